"""The typed face of the C extension: the ONLY module that imports ``loadgen._native``.

What the C core holds (native/), and what here faces it:
  lrusim/       InnoDB's LRU kernel, the page cleaner, both read-ahead rules, miniatures, Mattson
                stacks, the mix kernel: lrusim_innodb, lrusim_curve, lrusim_mix, lrusim_mattson and
                the constants Python must not restate (lrusim_constants); mixsim.c is the mix
                kernel's Python glue
  querydrv.c, pipeline.c, mixdrv.c (mixconn.c, mixpipe.c; wire.c, plreader.c)
                the query loops of the native drivers: their handles, through extension() (drivers/);
                pipeline_max_depth (--pipeline's bound)
  rowgen.c, tablegen.c, permute.c, keydist.c, traceplace.c
                fast paths of loops with a pure-Python twin: rowgen_lines, tablegen_lines,
                permute_fill, keydist_fill, keys_to_pages, trace_place (None without the extension)
  memory.c, memcore.c
                the OS experiments (`loadgen native`): pagez, memset, lazymap, alloc_touch, each a
                timed pass with its page-fault deltas (getrusage), and dTLB misses where perf has them

Errors from the C side (an ``OSError`` from mmap) become ``LoadgenError`` with a hint.

``LOADGEN_NATIVE_SO=/path/to/_native.so`` loads another build of the extension under the same
name; ``make sanitize`` uses it to run the tests against an ASan/UBSan build.
"""
from __future__ import annotations

import errno as _errno
import functools
import os
from array import array
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from .errors import LoadgenError

PAGE_MODES = ("4k", "thp", "hugetlb")
LAZY_KINDS = ("fresh", "reused", "malloc")

_ext = None


def _load():
    """Import the extension once; explain how to build it if it is missing."""
    global _ext
    if _ext is not None:
        return _ext
    override = os.environ.get("LOADGEN_NATIVE_SO")
    try:
        if override:
            import importlib.machinery
            import importlib.util

            loader = importlib.machinery.ExtensionFileLoader("loadgen._native", override)
            spec = importlib.util.spec_from_file_location("loadgen._native", override, loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            _ext = module
        else:
            from . import _native

            _ext = _native
    except ImportError as exc:
        raise LoadgenError(f"the C extension loadgen._native is not available ({exc})", "build it with: pip install "
                           "-e . (needs gcc and the Python headers, apt install python3-dev)") from None
    return _ext


@functools.cache
def _optional(name: str):
    """A function of the extension, or None when the extension (or that function) is missing."""
    try:
        return getattr(_load(), name, None)
    except Exception:  # noqa: BLE001 - no extension: the caller's Python path does the work
        return None


# -- fast paths: C loops with a pure-Python twin, which runs where these give None -----------------
def rowgen_lines():
    """native/rowgen.c: the built-in schema's rows as LOAD DATA lines (seeding/dataset.py)."""
    return _optional("rowgen_lines")


def tablegen_lines():
    """native/tablegen.c: a user table's generated rows as LOAD DATA lines (seeding/tablegen.py)."""
    return _optional("tablegen_lines")


def permute_fill():
    """native/permute.c: the random order's permutation of the ids, a chunk at a time (orders.py)."""
    return _optional("permute_fill")


def keydist_fill():
    """native/keydist.c: a key distribution's draws, a chunk at a time (workload/patterns.py)."""
    return _optional("keydist_fill")


def keys_to_pages():
    """native/keydist.c: each key's root-to-leaf page references (analysis/keymodel.py)."""
    return _optional("keys_to_pages")


def trace_place():
    """native/traceplace.c: a captured trace's chunk placed on the tables' keys (analysis/traceplace.py)."""
    return _optional("trace_place")


def extension():
    """The extension module itself, for the drivers' query handles (drivers/native.py,
    drivers/mixnative.py); LoadgenError with how to build it when it is missing."""
    return _load()


def pipeline_max_depth() -> int:
    """The most statements the pipelined drivers keep in flight on one connection (--pipeline's
    upper bound): native/pipeline.h's PL_MAX_DEPTH, exported as PIPELINE_MAX_DEPTH."""
    return _load().PIPELINE_MAX_DEPTH


def extension_path() -> str:
    """Where the loaded extension lives (shows whether a sanitizer build is in use)."""
    return getattr(_load(), "__file__", "?")


@dataclass(frozen=True)
class Pass:
    """One timed step: seconds (CLOCK_MONOTONIC), minor_faults / major_faults (getrusage(RUSAGE_THREAD)
    deltas), tlb_misses (dTLB load misses, user space; None when not measured)."""

    seconds: float
    minor_faults: int
    major_faults: int
    tlb_misses: int | None = None

    @classmethod
    def from_raw(cls, raw: tuple) -> Pass:
        seconds, minflt, majflt, tlb = raw
        return cls(seconds, minflt, majflt, None if tlb < 0 else tlb)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def tlb_status(err: int) -> str | None:
    """None when dTLB misses were counted, else why not (e.g. 'not supported: ENOENT ...')."""
    if err == 0:
        return None
    name = _errno.errorcode.get(err, str(err))
    if err in (_errno.ENOENT, _errno.EOPNOTSUPP, _errno.ENODEV, _errno.EINVAL):
        return f"not supported (perf_event_open: {name}, no hardware PMU for dTLB-load-misses)"
    return f"not available (perf_event_open: {name}: {os.strerror(err)})"


@dataclass(frozen=True)
class PagezRun:
    """pagez(chunks, iters): map `chunks` chunks, then chunks*iters passes of one byte per page."""

    chunks: int
    iters: int
    chunk_size: int
    alloc: Pass
    passes: tuple[Pass, ...]
    tlb: str | None

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.passes)

    @property
    def minor_faults(self) -> int:
        return sum(p.minor_faults for p in self.passes)

    @property
    def major_faults(self) -> int:
        return sum(p.major_faults for p in self.passes)


@dataclass(frozen=True)
class MemsetRun:
    """One fresh mapping, then `passes` memsets over it. map_step: the mmap (and, with populate, the
    prefault) before the first pass; anon_huge_kb: growth of AnonHugePages in /proc/self/smaps_rollup
    over the first pass (None if unreadable): confirms that THP was really used."""

    size: int
    pages: str
    populate: bool
    map_step: Pass
    passes: tuple[Pass, ...]
    anon_huge_kb: int | None
    tlb: str | None


@dataclass(frozen=True)
class LazymapRun:
    """`reps` write-then-read rounds over a buffer of `size` bytes; totals over all rounds.

    kind: fresh (mmap/munmap per round), reused (one buffer faulted in beforehand) or malloc.
    map_seconds: time in mmap+munmap (or malloc+free), kept out of the write/read times.
    """

    size: int
    reps: int
    kind: str
    write_seconds: float
    read_seconds: float
    map_seconds: float
    write_minor_faults: int
    write_major_faults: int
    read_minor_faults: int
    read_major_faults: int
    write_tlb_misses: int | None
    read_tlb_misses: int | None
    tlb: str | None


@dataclass(frozen=True)
class AllocRun:
    """Lemire's new-and-touch: mmap + one write per 4 KiB (timed as `touch`), then a memset of the
    same memory (`fill`). anon_huge_kb: AnonHugePages growth, None if unreadable."""

    size: int
    pages: str
    touch: Pass
    fill: Pass
    anon_huge_kb: int | None
    tlb: str | None


def _page_code(pages: str) -> int:
    ext = _load()
    codes = {"4k": ext.PAGES_4K, "thp": ext.PAGES_THP, "hugetlb": ext.PAGES_HUGETLB}
    if pages not in codes:
        raise LoadgenError(f"unknown page mode {pages!r}", f"use one of {', '.join(PAGE_MODES)}")
    return codes[pages]


def _os_error(exc: OSError, size: int, pages: str = "4k") -> LoadgenError:
    from .units import format_bytes

    what = f"{exc.filename or 'mmap'} of {format_bytes(size)}"
    if pages == "hugetlb" and exc.errno == _errno.ENOMEM:
        return LoadgenError(f"{what} with MAP_HUGETLB failed: not enough free huge pages",
                            "reserve with: echo N > /proc/sys/vm/nr_hugepages")
    if exc.errno == _errno.ENOMEM:
        return LoadgenError(f"{what} failed: out of memory", "use a smaller size")
    return LoadgenError(f"{what} failed: {exc.strerror}")


def pagez(chunks: int, iters: int, chunk_size: int) -> PagezRun:
    """The seed's pagez with chunks of `chunk_size` bytes (4 KiB pages; mmap, not malloc)."""
    ext = _load()
    try:
        alloc, passes, tlb_err = ext.pagez(chunks, iters, chunk_size)
    except OSError as exc:
        raise _os_error(exc, chunks * chunk_size) from None
    return PagezRun(chunks, iters, chunk_size, Pass.from_raw(alloc),
                    tuple(Pass.from_raw(p) for p in passes), tlb_status(tlb_err))


def memset(size: int, passes: int = 3, pages: str = "4k", populate: bool = False) -> MemsetRun:
    """Map `size` bytes fresh and memset them `passes` times."""
    ext = _load()
    code = _page_code(pages)
    try:
        map_step, raw, huge_kb, tlb_err = ext.memset(size, passes, code, populate)
    except OSError as exc:
        raise _os_error(exc, size, pages) from None
    return MemsetRun(size, pages, populate, Pass.from_raw(map_step), tuple(Pass.from_raw(p) for p in raw),
                     None if huge_kb < 0 else huge_kb, tlb_status(tlb_err))


def lazymap(size: int, reps: int, kind: str = "fresh") -> LazymapRun:
    """Write every byte, then read every byte, `reps` times; see LazymapRun."""
    ext = _load()
    codes = {"fresh": ext.LAZY_FRESH, "reused": ext.LAZY_REUSED, "malloc": ext.LAZY_MALLOC}
    if kind not in codes:
        raise LoadgenError(f"unknown lazymap kind {kind!r}", f"use one of {', '.join(LAZY_KINDS)}")
    try:
        raw = ext.lazymap(size, reps, codes[kind])
    except OSError as exc:
        raise _os_error(exc, size) from None
    *times_faults, write_tlb, read_tlb, tlb_err = raw
    return LazymapRun(size, reps, kind, *times_faults, None if write_tlb < 0 else write_tlb,
                      None if read_tlb < 0 else read_tlb, tlb_status(tlb_err))


def alloc_touch(size: int, pages: str = "4k") -> AllocRun:
    """Allocate `size` bytes and touch one byte per 4 KiB, then memset them; see AllocRun."""
    ext = _load()
    code = _page_code(pages)
    try:
        touch, fill, huge_kb, tlb_err = ext.alloc_touch(size, code)
    except OSError as exc:
        raise _os_error(exc, size, pages) from None
    return AllocRun(size, pages, Pass.from_raw(touch), Pass.from_raw(fill),
                    None if huge_kb < 0 else huge_kb, tlb_status(tlb_err))


# -- buffer-pool simulation kernels (native/lrusim/, bound in native/lrusim.c; loadgen/analysis/ calls them)
class LruSimConstants(NamedTuple):
    """The simulator kernel's constants the Python side needs, as the kernel has them.

    old_min_len, old_tolerance, non_old_min_len, ratio_div, lru_min_len: buf0lru.cc's
        BUF_LRU_OLD_MIN_LEN, BUF_LRU_OLD_TOLERANCE, BUF_LRU_NON_OLD_MIN_LEN,
        BUF_LRU_OLD_RATIO_DIV and BUF_LRU_MIN_LEN (pages; the kernel ports them, the Python
        reference simulator uses the same).
    filler_slots: simulated pages kept after the table's for the non-leaf pages MySQL's
        read-ahead reads (native/lrusim/layout.h).
    extent_pages: pages in an extent, the largest read-ahead area.
    max_height: the deepest B-tree a workload may describe.
    ra_rule_mariadb, ra_rule_mysql: the codes of the two linear read-ahead triggers (ra_rule).
    """

    old_min_len: int
    old_tolerance: int
    non_old_min_len: int
    ratio_div: int
    lru_min_len: int
    filler_slots: int
    extent_pages: int
    max_height: int
    ra_rule_mariadb: int
    ra_rule_mysql: int


@functools.cache
def lrusim_constants() -> LruSimConstants:
    """The kernel's constants, read from the extension (module constants LRUSIM_<NAME>)."""
    ext = _load()
    return LruSimConstants(*(getattr(ext, f"LRUSIM_{name.upper()}") for name in LruSimConstants._fields))


def _pairs(seen):  # the recorded LRU batches as the kernel's uint64 pairs (queries done, pages)
    return None if seen is None else array("Q", [int(x) for pair in seen for x in pair])


def lrusim_innodb(trace, workload: tuple | None, n_pages: int, capacity: int, pool_pages: int, old_pct: float,
                  old_time_ms: float, ms_per_query: float, ra_threshold: int = 0,
                  ra_area: int = 64, collapse: bool = True, ra_rule: int = 0, start_pages: int = 0,
                  start_freed: int = 0, batch: int = 0, tick_depth: int = 0, tick_phase_ms: float = 0.0,
                  tick_period_ms: float = 1000.0, ticks: int = 1,
                  trace_leaf_pages: int = 0, seen=None) -> tuple[int, int, int, int, int, int]:
    """InnoDB's LRU on a uint32 page trace or a workload tuple:
    (refs, misses, made_young, not_young, read_ahead, read_ahead_evicted).
    collapse=False replays every repeated query reference by reference (the slow reference).
    ra_rule: 0 = MariaDB 10.11's linear read-ahead trigger, 1 = MySQL 8.0-9.x's. start_pages:
    pages resident before the run; start_freed: pages evicted while the server started; batch:
    pages the page cleaner frees at once when the pool is full (0 or 1: one per read). tick_*:
    MySQL's timed page-cleaner LRU batch (refill the free list to tick_depth frames, the LRU kept
    at 256 pages or more), first at tick_phase_ms, then every tick_period_ms, `ticks` of them (0:
    no end); tick_depth 0: none. trace_leaf_pages: a bare trace's leaves are its pages below this,
    in key order (MySQL's read-ahead can then run on it). seen: the LRU batches a run recorded,
    ((queries done, pages evicted), ...) in order, replayed where they were seen (pass tick_depth 0:
    they stand for the timed batch); None: none recorded."""
    return _load().lrusim_innodb(trace, workload, n_pages, capacity, pool_pages, old_pct, old_time_ms,
                                 ms_per_query, ra_threshold, ra_area, collapse, ra_rule, start_pages,
                                 start_freed, batch, tick_depth, tick_phase_ms, tick_period_ms, ticks,
                                 trace_leaf_pages, _pairs(seen))


def lrusim_curve(trace, workload: tuple | None, n_pages: int, leaf_pages: int, old_pct: float, old_time_ms: float,
                 ms_per_query: float, ra_threshold: int, pools: list[tuple], ra_rule: int = 0,
                 plain_lru: bool = False) -> list:
    """Several pools in one pass, each exact or a miniature: see native/lrusim/kernel.h. A pool is
    (capacity, pool_pages, ra_area, rate, salt[, start_pages, start_freed, batch, tick_depth,
    tick_phase_ms, tick_period_ms, ticks]). With plain_lru, the last element is lrusim_mattson's
    histogram of the trace without leaf steps."""
    return _load().lrusim_curve(trace, workload, n_pages, leaf_pages, old_pct, old_time_ms, ms_per_query,
                                ra_threshold, pools, ra_rule, plain_lru)


class MixFlags(NamedTuple):
    """The flag bits of a mix trace's references (native/lrusim/mix.h MIX_*, lrusim_mix's flags):
    a step to the next leaf, a write, an operation's first reference, a page the operation
    creates, a change MySQL's change buffer may take instead of reading the leaf, with it purge's
    removal of an entry."""

    move: int
    write: int
    op: int
    new: int
    buffer: int
    purge: int


@functools.cache
def mix_flags() -> MixFlags:
    """The mix kernel's flag bits, read from the extension (module constants MIX_<NAME>)."""
    ext = _load()
    return MixFlags(*(getattr(ext, f"MIX_{name.upper()}") for name in MixFlags._fields))


class MixSim(NamedTuple):
    """What lrusim_mix ends with: the pool's counters, the pages evicted dirty (each a write-back
    before its frame was reused) and those still dirty at the end, the reads of pages without a
    page number (MySQL's read-ahead of non-leaf pages of the first B-tree), MySQL's single-page
    flushes and LRU batches, and each page's reads (bytes of uint32, one per page of the space)."""

    refs: int
    misses: int
    made_young: int
    not_young: int
    read_ahead: int
    read_ahead_evicted: int
    dirty_evicted: int
    dirty_at_end: int
    filler_reads: int
    single_flushes: int
    lru_batches: int
    ibuf_buffered: int  # changes MySQL's change buffer took (native/lrusim/ibuf.h)
    ibuf_merged: int  # pages their changes were merged into (read by a reference or the merge)
    ibuf_merge_reads: int  # of them, read by the master thread's merge
    reads: bytes


def lrusim_mix(pages, flags, n_pages: int, leaf_pages: int, capacity: int, pool_pages: int, old_pct: float,
               old_time_ms: float, ms_per_op: float, ra_threshold: int = 0, ra_area: int = 64, ra_rule: int = 0,
               start_pages: int = 0, start_freed: int = 0, batch: int = 0, tick_depth: int = 0,
               tick_phase_ms: float = 0.0, tick_period_ms: float = 1000.0, ticks: int = 1, clean_scan: int = 0,
               fl_batch: int = 0, ibuf_max: int = 0, ibuf_merge: int = 0, fl_io: int = 0, seen=None) -> MixSim:
    """InnoDB's LRU on a mixed workload's trace (native/lrusim/mix.h): pages (uint32) and flags
    (uint8 per reference: 1 a step to the next leaf, 2 a write, 4 an operation's first reference,
    8 a page the operation creates, not reads); the first leaf_pages pages are the leaves read-ahead
    sees. clean_scan: MySQL's user threads free the first clean page of that many at the tail (0:
    the tail page); fl_batch: pages its flush-list batch writes a second (0: none; dirtypages.py);
    ibuf_max, ibuf_merge: MySQL's change buffer, the entries it holds and the pages its merge reads
    a second (0: none; native/lrusim/ibuf.h, analysis/changebuf.py); fl_io: innodb_io_capacity, the
    flush-list batch sized each second as MySQL's adaptive flushing does (0: fl_batch; cleaner.c);
    seen: a run's recorded LRU batches, as lrusim_innodb's (queries done: operations done here).
    The other arguments as lrusim_innodb's."""
    counts, reads = _load().lrusim_mix(pages, flags, n_pages, leaf_pages, capacity, pool_pages, old_pct, old_time_ms,
                                       ms_per_op, ra_threshold, ra_area, ra_rule, start_pages, start_freed, batch,
                                       tick_depth, tick_phase_ms, tick_period_ms, ticks, clean_scan, fl_batch,
                                       ibuf_max, ibuf_merge, fl_io, _pairs(seen))
    return MixSim(*counts, reads)


class MixStream:
    """lrusim_mix fed the trace piece by piece (lrusim/mix.h): the counts of one call over the pieces joined. Arguments
    as lrusim_mix's after flags; feed() from one thread at a time. mini: (map, rate, salt, more_ones[, pin, pin_share[,
    scale_leaves]]) for a miniature (mixmini_open), whose close() gives (MixSim, the sampled pages' dirty evictions)."""

    def __init__(self, n_pages: int, leaf_pages: int, capacity: int, pool_pages: int, old_pct: float,
                 old_time_ms: float, ms_per_op: float, ra_threshold: int = 0, ra_area: int = 64, ra_rule: int = 0,
                 start_pages: int = 0, start_freed: int = 0, batch: int = 0, tick_depth: int = 0,
                 tick_phase_ms: float = 0.0, tick_period_ms: float = 1000.0, ticks: int = 1, clean_scan: int = 0,
                 fl_batch: int = 0, ibuf_max: int = 0, ibuf_merge: int = 0, fl_io: int = 0, mini: tuple = ()):
        args, ext = (n_pages, leaf_pages, capacity, pool_pages, old_pct, old_time_ms, ms_per_op, ra_threshold,
                     ra_area, ra_rule, start_pages, start_freed, batch, tick_depth, tick_phase_ms, tick_period_ms,
                     ticks, clean_scan, fl_batch, ibuf_max, ibuf_merge, fl_io), _load()
        self._state = ext.mixmini_open(*mini[:4], args, *mini[4:]) if mini else ext.mixsim_open(*args)
        self._feed, self._close = (ext.mixmini_feed, ext.mixmini_close) if mini else (ext.mixsim_feed, ext.mixsim_close)

    def feed(self, pages, flags) -> None:
        self._feed(self._state, pages, flags)

    def feed_with(self, others: list, pages, flags) -> int:  # the references dropped as pinned in every pool
        return _load().mixmini_feed_group((self._state, *(o._state for o in others)), pages, flags)

    def peek(self) -> MixSim:  # close()'s counts of the pieces fed so far, the state fed on after (exact pools)
        return MixSim(*(got := _load().mixsim_peek(self._state))[0], got[1])

    def close(self):
        got = self._close(self._state)
        return MixSim(*got[0], got[1]) if isinstance(got[1], bytes) else (MixSim(*got[0][0], got[0][1]), got[1])


def mix_mark(seen: bytearray, pages) -> None:
    """seen[page] = 1 for every page referenced (GIL released)."""
    _load().mix_mark(seen, pages)


def lrusim_mattson(trace, workload: tuple | None, n_pages: int) -> bytes:
    """Plain-LRU stack-distance histogram as bytes of uint64 (index 0 = cold misses)."""
    return _load().lrusim_mattson(trace, workload, n_pages)


# -- the mix model's reference building (native/mixref.c; analysis/mixpages.py holds the numpy twin) --
def has_mixref() -> bool:
    return _optional("mixref_scatter") is not None


def mixref_leaves(starts, keys, out, rows: int, leaf_pages: int, all_leaves: int, rows_per_leaf: float) -> None:
    _load().mixref_leaves(starts, keys, out, rows, leaf_pages, all_leaves, rows_per_leaf)  # Tree.leaf_of_key


def mixref_path(leaves, out, base: int, all_leaves: int, fanout: int, sizes) -> None:
    _load().mixref_path(leaves, out, base, all_leaves, fanout, sizes)  # Tree.path: out (n x height, int64)


def mixref_walks(lo, hi, pages, flags, first_flag: int, move_flag: int, *path) -> None:
    _load().mixref_walks(lo, hi, pages, flags, first_flag, move_flag, *path)  # walks: path as mixref_path's


def mixref_order(op_widths, p_at, p_widths, starts) -> None:
    _load().mixref_order(op_widths, p_at, p_widths, starts)  # add_ops: each op's and purge piece's first place


def mixref_scatter(out_pages, out_flags, cursor, pages, flags, widths, where) -> None:
    """Op k's references to out from cursor[where[k]] (where empty: k) on, the cursor moved past (put)."""
    _load().mixref_scatter(out_pages, out_pages.itemsize, out_flags, cursor, pages, pages.itemsize, flags, widths,
                           where)

"""The mix model's page space: each B-tree of a mixed workload (clustered index and secondary
indexes) as a block of page numbers, leaves first in key order, then its upper levels, the root
last; and the page references an op makes in them (a descent to a leaf, a walk along leaves, a
whole scan), each with its flags for the kernel (native/lrusim/mix.h). mixmodel.py turns the op
sequence into these references and simulates the pool; tracemodel.py does the same for a
captured op trace.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .. import native
from . import ibdpages
from .geometry import btree_height
from ..errors import UsageError
from ..workload import mix as mixspec
from ..workload.statements import steps_by_one
from .geometry import DEFAULT_FANOUT, Geometry, leaf_jitter
from .phasemean import mean_sim

MOVE, WRITE, OP, NEW, BUFFER, PURGE = native.mix_flags()  # a reference's flags for the kernel (native/lrusim/mix.h)
PRIMARY = "PRIMARY"
# A mix's trace (mixmodel.build_trace) is held whole: 5 bytes a reference (a uint32 page, a uint8
# flag), joined in place (Trace.arrays: each block freed as it is copied), so 500M hold 2.5 GB, a
# tenth of the 24 GiB machine (computed; a mix that size was not run). It was 50M while joining
# held the trace twice. A captured op trace is not held at all (tracesim.PoolFeed): no limit there.
MAX_REFS = 500_000_000
# A full scan reads a leaf's rows over several row_search_mvcc calls (one row, then the fetch
# cache's 8, per call), each restoring its cursor on the leaf (buf_page_optimistic_get makes the
# page young when due): the leaf is accessed again right after its first access. That second
# access is what innodb_old_blocks_time is about: at 0 it moves every scanned leaf to the young
# list (the scan flushes the hot set), at 1000 ms the leaf stays old (the access is too recent).
SCAN_RETOUCH = True
_STARTS: dict[tuple[int, int], np.ndarray] = {}
# The hot loops below (a key's leaf, a descent, a walk, each op's references put in place) run in C
# (native/mixref.c), value for value; False: numpy's, the twin test_mixref.py holds C to.
NATIVE = native.has_mixref()
_I64 = np.int64


@dataclass(frozen=True)
class Tree:
    """One B-tree in the model's page space: leaves base..base+leaf_pages+grown-1 in key order,
    then its upper levels (level 1 first), the root last."""

    table: str  # the mix's table name
    index: str  # PRIMARY or the secondary index's name
    rows: int  # rows at the start
    leaf_pages: int  # leaves at the start
    height: int
    grown: int = 0  # leaves the run's inserts add at the end
    base: int = 0
    fanout: int = DEFAULT_FANOUT
    unique: bool = False  # a UNIQUE secondary index: MySQL's change buffer takes none of its changes

    @property
    def rows_per_leaf(self) -> float:
        return max(1.0, self.rows / self.leaf_pages)

    @property
    def all_leaves(self) -> int:
        return self.leaf_pages + self.grown

    def level_sizes(self) -> list[int]:
        """Pages per level above the leaves, level 1 first, the root (1 page) last."""
        sizes, n = [], self.all_leaves
        for level in range(1, self.height):
            n = 1 if level == self.height - 1 else max(1, -(-n // self.fanout))
            sizes.append(n)
        return sizes

    @property
    def n_pages(self) -> int:
        return self.all_leaves + sum(self.level_sizes())

    def leaf_starts(self) -> np.ndarray:
        """The first key of each of the start's leaves: near k * rows / L, up to geometry's
        jitter off (geometry.leaf_start, vectorised; which keys are a leaf's first or last
        decides which reads step to a neighbour leaf)."""
        cached = _STARTS.get((self.rows, self.leaf_pages))
        if cached is not None:
            return cached
        k = np.arange(self.leaf_pages, dtype=np.int64)
        g = Geometry(self.rows, self.leaf_pages, self.height)
        a = leaf_jitter(g)
        jitter = (mix64(k.astype(np.uint64)) % np.uint64(2 * a + 1)).astype(np.int64) - a if a else 0
        starts = 1 + (2 * k * self.rows + self.leaf_pages) // (2 * self.leaf_pages) + jitter
        starts[0] = 1
        if len(_STARTS) > 8:
            _STARTS.clear()
        _STARTS[(self.rows, self.leaf_pages)] = starts
        return starts

    def leaf_of_key(self, key: np.ndarray) -> np.ndarray:
        """The leaf (index in the tree) of clustered keys: the start's rows on the start's leaves
        (leaf_starts); keys past them (inserted at the end) on the new leaves."""
        key = np.asarray(key).astype(np.int64)
        if NATIVE and key.ndim == 1:
            out = np.empty(len(key), _I64)
            native.mixref_leaves(self.leaf_starts(), key, out, self.rows, self.leaf_pages, self.all_leaves,
                                 self.rows_per_leaf)
            return out
        old = leaf_index(self.leaf_starts(), np.clip(key, 1, self.rows), self.rows)
        new = self.leaf_pages + ((key - self.rows - 1) // self.rows_per_leaf).astype(np.int64)
        return np.where(key <= self.rows, old, np.minimum(new, self.all_leaves - 1))

    def span(self, first_key: np.ndarray, last_key: np.ndarray, read_on: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The leaves a read of keys first..last visits, as (first leaf, last leaf): the descent
        searches for the key before the first (PAGE_CUR_L: a leaf's first key lands on the leaf
        before it), and the read goes on to the key after the last (a leaf's last key reads on
        into the next leaf), as the single-table model's leaf steps (model.py); read_on False:
        it stops on the last key, as a single-row UPDATE or DELETE does (mixmodel.WRITE_READS_ON)."""
        lo = self.leaf_of_key(np.maximum(np.asarray(first_key).astype(np.int64) - 1, 1))
        hi = self.leaf_of_key(np.asarray(last_key).astype(np.int64) + (1 if read_on else 0))
        return lo, hi

    def entry_leaf(self, key: np.ndarray, salt: int = 0) -> np.ndarray:
        """A secondary index entry's leaf: a hash of the row's key over the index's leaves."""
        h = mix64(key.astype(np.uint64) + np.uint64(salt * 0x9E3779B97F4A7C15 & (2**64 - 1)))
        return (h % np.uint64(self.leaf_pages)).astype(np.int64)

    def path(self, leaf: np.ndarray) -> np.ndarray:
        """The pages of each leaf's descent, root first: shape (len(leaf), height)."""
        leaf = np.asarray(leaf, dtype=np.int64)
        if NATIVE and leaf.ndim == 1:
            sizes = np.array(self.level_sizes(), _I64)
            out = np.empty((len(leaf), len(sizes) + 1), _I64)
            native.mixref_path(np.ascontiguousarray(leaf), out, self.base, self.all_leaves, self.fanout, sizes)
            return out
        cols = []
        at, div = self.base + self.all_leaves, 1
        for size in self.level_sizes():
            div *= self.fanout
            cols.append(at + np.minimum(leaf // div, size - 1))
            at += size
        cols.reverse()  # root first
        cols.append(self.base + leaf)
        return np.stack(cols, axis=1) if len(cols) > 1 else (self.base + leaf)[:, None]


def leaf_index(starts: np.ndarray, key: np.ndarray, rows: int) -> np.ndarray:
    """searchsorted(starts, key, side="right") - 1 for keys 1..rows on leaves whose first keys
    (starts, non-decreasing, starts[0] = 1) lie near k * rows / L: the even spread's leaf, then
    steps to a neighbour while the key is not on it (a few at most: the jitter is 2 keys). 3-4x
    faster than the binary search, which missed the cache on every level (bench/predict_speed.py)."""
    n_leaves = len(starts)
    at = np.minimum(((key - 1) * (n_leaves / max(rows, 1))).astype(np.int64), n_leaves - 1)
    np.maximum(at, 0, out=at)
    todo = np.arange(len(key))
    while len(todo):
        a, k = at[todo], key[todo]
        up = starts[np.minimum(a + 1, n_leaves - 1)] <= k
        up &= a + 1 < n_leaves
        down = starts[a] > k
        moved = up | down
        at[todo] = a + up - down
        todo = todo[moved]
    return at


def simulate(trace: Trace, space: Space, pool, leaf_pages: int, span: list | None = None,
             dirty: tuple = (0, 0), ibuf: tuple = (0, 0)) -> native.MixSim:
    """The pool over the trace, averaged over MySQL's cleaner phases (model.mean_over_phases).
    `span`, a list, gets the fewest and most misses of any one phase (the cleaner's range); dirty:
    MySQL's rules for dirty pages at the LRU tail (dirtypages.kernel_args, or run_args's third, the
    adaptive flush list's io capacity; (0, 0): none); ibuf: MySQL's change buffer
    (changebuf.kernel_args; (0, 0): none)."""
    pages, flags = trace.arrays()
    dirty, fl_io = dirty[:2], dirty[2:]
    seen = {"seen": pool.cleaner_seen} if pool.cleaner_seen is not None else {}
    runs = [native.lrusim_mix(pages, flags, space.n_pages, leaf_pages, pool.capacity_high, pool.pool_pages,
                              pool.old_pct, pool.old_time_ms, 1000.0 / pool.qps, pool.ra_threshold, pool.ra_area,
                              pool.ra_rule, pool.start_pages, pool.start_freed, pool.cleaner_batch,
                              *pool.tick_args(ph), *dirty, *ibuf, *fl_io, **seen) for ph in pool.phases()]
    if span is not None:
        span[:] = [min(r.misses for r in runs), max(r.misses for r in runs)]
    return mean_sim(runs)


def table_reads(sim, space: Space, tables: dict, database: str | None, first: str) -> tuple[dict, int]:
    """A simulation's reads per table (by its qualified name, with its indexes') and on the system
    pages; the first table's clustered index has MySQL's read-ahead of the first extent's non-leaf pages."""
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    out: dict[str, dict] = {}
    for (name, idx), tree in space.trees.items():
        qualified = f"{tables[name].get('database') or database}.{tables[name].get('table') or name}"
        got = int(reads[tree.base:tree.base + tree.n_pages].sum(dtype=np.uint64))
        if name == first and idx == PRIMARY:
            got += sim.filler_reads
        t = out.setdefault(qualified, {"pages_read": 0, "indexes": {}})
        t["pages_read"] += got
        t["indexes"][idx] = {"pages_read": got, "leaf_pages": tree.all_leaves, "grown_leaves": tree.grown}
    ibdpages.add_reads(out, reads, space,
                       lambda n: f"{tables[n].get('database') or database}.{tables[n].get('table') or n}")
    return out, int(reads[space.system_base:space.n_pages].sum(dtype=np.uint64))


def groups(values: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(value, where it is) for each distinct value, in ascending order, `where` ascending: as
    np.nonzero(values == v) for each np.unique(values), in one sort instead of a pass a value."""
    if not len(values):
        return []
    small = values.astype(np.int16) if 0 <= values.min() and values.max() < 32767 else values
    order = np.argsort(small, kind="stable")  # stable: each value's places in ascending order
    v = values[order]
    cut = np.flatnonzero(v[1:] != v[:-1]) + 1
    return [(int(v[at]), where) for at, where in zip(np.concatenate([[0], cut]), np.split(order, cut))]


def mix64(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return x


def grown_leaves(inserts: int, rows_per_leaf: float) -> int:
    """Leaves `inserts` rows at the end add: the last leaf is taken as full, so a new leaf every
    rows-per-leaf inserts, the first at the first insert (ceil(n / rows_per_leaf))."""
    return math.ceil(inserts / rows_per_leaf) if inserts > 0 else 0


class Trace:
    """References in order: pages (uint32) and flags (uint8), appended op by op in numpy blocks."""

    def __init__(self):
        self.pages: list[np.ndarray] = []
        self.flags: list[np.ndarray] = []
        self.n = 0

    def add(self, pages: np.ndarray, flags: np.ndarray) -> None:
        self.n += len(pages)
        if self.n > MAX_REFS:
            raise UsageError(f"the mix makes over {MAX_REFS:,} page references: too many for the model",
                             "run fewer operations, or scans over smaller tables")
        self.pages.append(pages.astype(np.uint32, copy=False))
        self.flags.append(flags.astype(np.uint8, copy=False))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The references as two arrays, joined once (later calls get the same arrays): each block
        is copied into its place and dropped, so the join holds the trace once plus one block."""
        if len(self.pages) != 1:
            self.pages, self.flags = [_join(self.pages, np.uint32, self.n)], [_join(self.flags, np.uint8, self.n)]
        return self.pages[0], self.flags[0]


def _join(blocks: list[np.ndarray], dtype, n: int) -> np.ndarray:
    out = np.empty(n, dtype=dtype)
    at = 0
    blocks.reverse()  # popped from the end: the first block first
    while blocks:
        b = blocks.pop()
        out[at:at + len(b)] = b
        at += len(b)
    return out


class Space:
    """The mix's B-trees in one page space (Tree.base), the first table's clustered index first."""

    def __init__(self, trees: dict[tuple[str, str], Tree], rollback_segments: int = 0,
                 txns_per_undo_page: float = 0.0, live_pages: int = 1, temp_rsegs: int = 0,
                 undo_files: int = 1, insert_history: bool = True, ibd_pages: tuple = ()):
        self.trees = trees
        # after the B-trees, each table's pages 0-2 where the model references some (ibdpages.py;
        # ibd_pages: which), then each rollback segment's header page, then the undo pages
        self.ibd_used = frozenset(ibd_pages)
        self.ibd_pages, self.system_base = ibdpages.layout((n for n, _ in trees),
                                                           sum(t.n_pages for t in trees.values()), ibd_pages)
        self.rollback_segments = rollback_segments
        # An autocommit write appends its undo log to its segment's cached undo page until the
        # page is 3/4 full (TRX_UNDO_PAGE_REUSE_LIMIT) or purge freed it (MariaDB), then the next
        # one takes a new page (created: buf_page_create, no read). txns_per_undo_page: how many
        # logs a page takes (0: one page per segment for ever). Purge frees the pages behind it
        # and the tablespace hands them out again: a segment has live_pages pages in turn.
        self.txns_per_undo_page = float(txns_per_undo_page or 0.0)
        self.live_pages = max(1, int(live_pages)) if self.txns_per_undo_page else 1
        self.undo_base = self.system_base + rollback_segments
        # MySQL's temporary tablespace (ibtmp1): its rollback segments' header pages, last
        self.temp_rsegs = temp_rsegs
        self.temp_base = self.undo_base + rollback_segments * self.live_pages
        # each undo tablespace's file-space header and segment inode page, which creating and
        # freeing an undo segment change (fseg_create, fseg_free_step): segments in turn per file
        self.undo_files = max(1, int(undo_files)) if rollback_segments else 0
        self.insert_history = insert_history  # an insert's undo log goes to purge (MariaDB)
        self.file_base = self.temp_base + temp_rsegs
        self.n_pages = self.file_base + 2 * self.undo_files

    def file_pages(self, txn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The file-space header and inode page of the undo tablespace txn's segment is in."""
        f = (txn.astype(np.int64) % self.rollback_segments) % self.undo_files
        return self.file_base + 2 * f, self.file_base + 2 * f + 1

    def rseg_pages(self, txn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rollback segment header and undo page write transaction `txn` uses (segments in
        turn), and whether it is the undo page's first log (its generation's first; the first
        generation is the segment's cached page from before the run)."""
        r = txn.astype(np.int64) % self.rollback_segments
        k = txn.astype(np.int64) // self.rollback_segments  # the segment's k-th transaction
        if self.txns_per_undo_page:
            gen = (k / self.txns_per_undo_page).astype(np.int64)
            prev = np.where(k > 0, ((k - 1) / self.txns_per_undo_page).astype(np.int64), -1)
            first = gen != prev
        else:
            gen = np.zeros_like(k)
            first = k == 0
        gen %= self.live_pages
        return self.system_base + r, self.undo_base + gen * self.rollback_segments + r, first

    @classmethod
    def of(cls, tables: dict[str, dict], inserts: dict[str, int], order: list[str],
           rollback_segments: int = 0, txns_per_undo_page: float = 0.0, live_pages: int = 1,
           temp_rsegs: int = 0, undo_files: int = 1, insert_history: bool = True,
           ibd_pages: tuple = ()) -> Space:
        """tables: dataset.tables (rows, leaf_pages, height, indexes {name: {leaf_pages, height}});
        inserts: each table's inserts in the run; order: the tables, the one at page 0 first."""
        trees: dict[tuple[str, str], Tree] = {}
        base = 0
        for name in order:
            t = tables[name]
            rows = max(1, int(t.get("rows") or 1))
            leaves = max(1, int(t.get("leaf_pages") or 1))
            clustered = Tree(name, PRIMARY, rows, leaves, btree_height(t.get("height"), f"table {name}", leaves, rows))
            clustered = dataclasses.replace(clustered, grown=grown_leaves(inserts.get(name, 0),
                                                                          clustered.rows_per_leaf), base=base)
            trees[(name, PRIMARY)] = clustered
            base += clustered.n_pages
            for iname, ix in sorted((t.get("indexes") or {}).items()):
                if iname == PRIMARY:
                    continue
                il = max(1, int(ix.get("leaf_pages") or 1))
                # an index entry per row: the inserts add to it at hashed places, its leaves fill
                # and split there; the model keeps its leaves (their count grows a little)
                ih = btree_height(ix.get("height"), f"index {name}.{iname}", il, rows)
                tree = Tree(name, iname, rows, il, ih, base=base, unique=bool(ix.get("unique")))
                trees[(name, iname)] = tree
                base += tree.n_pages
        return cls(trees, rollback_segments, txns_per_undo_page, live_pages, temp_rsegs, undo_files, insert_history,
                   ibd_pages)

    def secondaries(self, table: str) -> list[Tree]:
        return [t for (name, idx), t in self.trees.items() if name == table and idx != PRIMARY]

    def tree_of(self, table: str, index: str | None) -> Tree:
        return self.trees[(table, index or PRIMARY)]


def _first_flags(n: int, height: int, first: bool, write_leaf: bool = False) -> np.ndarray:
    """Flags of n descents of `height` pages: OP on the first page when `first`, WRITE on the leaf."""
    f = np.zeros((n, height), dtype=np.uint8)
    if first:
        f[:, 0] |= OP
    if write_leaf:
        f[:, -1] |= WRITE
    return f


def point_refs(tree: Tree, leaves: np.ndarray, first: bool = True, write: bool = False,
               new: np.ndarray | None = None, buffer: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Descents to `leaves` as (pages, flags), shape (n, height) each: one op per row when first;
    buffer (BUFFER or 0) on the leaf: a change the change buffer may take (changebuf.py)."""
    pages = tree.path(leaves)
    flags = _first_flags(len(leaves), pages.shape[1], first, write)
    flags[:, -1] |= buffer
    if new is not None:
        flags[:, -1] |= np.where(new, NEW, 0).astype(np.uint8)
    return pages, flags


@dataclass(frozen=True)
class Refs:
    """The references of n ops, op after op: pages and flags flat, widths[i] references of op i."""

    pages: np.ndarray
    flags: np.ndarray
    widths: np.ndarray

    @classmethod
    def block(cls, pages: np.ndarray, flags: np.ndarray) -> Refs:
        """n ops of as many references each: (n, width) arrays."""
        n, w = pages.shape
        return cls(pages.ravel(), flags.ravel(), np.full(n, w, dtype=np.int64))


def exclusive_cumsum(x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x), dtype=np.int64)
    np.cumsum(x[:-1], out=out[1:])
    return out


def positions(starts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Where op i's widths[i] references go, given where its first goes: flat, op after op."""
    total = int(widths.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(exclusive_cumsum(widths), widths)
    return np.repeat(starts, widths) + within


def hcat(*parts: Refs) -> Refs:
    """Each op's references of every part, one part after the other (the parts are the same ops)."""
    widths = sum(p.widths for p in parts)
    total = int(widths.sum())
    pages, flags = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.uint8)
    at = exclusive_cumsum(widths)
    for p in parts:
        put(pages, flags, at, p)
    return Refs(pages, flags, widths)


def put(pages: np.ndarray, flags: np.ndarray, cursor: np.ndarray, refs: Refs, where: np.ndarray | None = None) -> None:
    """refs' ops' references into pages/flags, op k's at cursor[where[k]] on (where None: cursor[k]),
    and that cursor moved past them (in place; where's entries distinct)."""
    if NATIVE:
        native.mixref_scatter(pages, flags, cursor, np.ascontiguousarray(refs.pages),
                              np.ascontiguousarray(refs.flags, np.uint8), np.ascontiguousarray(refs.widths, _I64),
                              _NOWHERE if where is None else np.ascontiguousarray(where, _I64))
        return
    at = cursor if where is None else cursor[where]
    idx = positions(at, refs.widths)
    pages[idx] = refs.pages
    flags[idx] = refs.flags
    if where is None:
        cursor += refs.widths
    else:
        cursor[where] += refs.widths


_NOWHERE = np.zeros(0, _I64)


def walks(tree: Tree, lo: np.ndarray, hi: np.ndarray, first: bool = True) -> Refs:
    """Per op, a descent to leaf lo, then each next leaf up to hi (steps: MariaDB's read-ahead trigger)."""
    if NATIVE and np.ndim(lo) == 1:
        lo, hi = np.ascontiguousarray(lo, _I64), np.ascontiguousarray(hi, _I64)
        sizes = np.array(tree.level_sizes(), _I64)
        widths = len(sizes) + 1 + np.maximum(hi - lo, 0)
        total = int(widths.sum())
        pages, flags = np.empty(total, _I64), np.empty(total, np.uint8)
        native.mixref_walks(lo, hi, pages, flags, OP if first else 0, MOVE, tree.base, tree.all_leaves, tree.fanout,
                            sizes)
        return Refs(pages, flags, widths)
    p, f = point_refs(tree, lo, first)
    steps = np.maximum(hi - lo, 0).astype(np.int64)
    if not steps.any():
        return Refs.block(p, f)
    within = np.arange(int(steps.sum()), dtype=np.int64) - np.repeat(exclusive_cumsum(steps), steps)
    nxt = tree.base + np.repeat(lo.astype(np.int64), steps) + 1 + within
    return hcat(Refs.block(p, f), Refs(nxt, np.full(len(nxt), MOVE, dtype=np.uint8), steps))


def walk_refs(tree: Tree, first_leaf: int, last_leaf: int, first: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """One walk (walks): a descent to first_leaf, then each next leaf to last_leaf."""
    r = walks(tree, np.array([first_leaf], dtype=np.int64), np.array([last_leaf], dtype=np.int64), first)
    return r.pages, r.flags


def scan_refs(tree: Tree, n: int = 1) -> Refs:
    """n full scans of the tree (each an op): walks from leaf 0 to the last, each leaf accessed
    again right after its first access (SCAN_RETOUCH; the second access never triggers read-ahead)."""
    p, f = walk_refs(tree, 0, tree.all_leaves - 1)
    if SCAN_RETOUCH:
        h = len(p) - tree.all_leaves  # the descent's pages above leaf 0
        p = np.concatenate([p[:h], np.stack([p[h:], p[h:]], axis=1).ravel()])
        f = np.concatenate([f[:h], np.stack([f[h:], np.zeros_like(f[h:])], axis=1).ravel()])
    return Refs(np.tile(p, n), np.tile(f, n), np.full(n, len(p), dtype=np.int64))


def stepped_columns(tables: dict) -> set[tuple[str, str]]:
    """(table, column) of the columns an update moves one step (statements.steps_by_one: k = k + 1;
    the index entry it moves stays in its leaf; sysbench-oltp-rw at 100k rows, 16M: without this
    the model read k_1 twice per index update, the table +9%)."""
    return {(name, c.lower()) for name, t in tables.items() for c, ty in (t.get("columns") or {}).items()
            if steps_by_one(str(ty))}


def table_order(spec: mixspec.MixSpec, tables: dict) -> list[str]:
    """The table at page 0 (the one read-ahead runs on) first: the one with the most range and
    scan ops (else the most ops), then the rest as declared."""
    weight: dict[str, float] = {t.name: 0.0 for t in spec.tables}
    for s in spec.streams:
        w = (s.share or 0.0) * (1000 if s.op in ("range", "scan") else 1) + (1e6 if s.scheduled else 0)
        weight[s.table] = weight.get(s.table, 0.0) + w
    names = [t.name for t in spec.tables if t.name in tables]
    return sorted(names, key=lambda n: -weight.get(n, 0.0))

"""The op stream of a mix: the contract between the runner and the model (docs/mix-design.md).

ops(spec, start, stop) / Generator(spec).chunk(start, stop) give the mix's operations
start..stop-1 as parallel numpy arrays (stream u16, key u64, length u32) and the streams' own op
counts at `start`. Op i is a pure function of (seed, i):
  - its stream: splitmix64(draw seed + i * golden) against the cumulative shares (53 bits);
  - its key: the stream's n-th key, n = the stream's ops before i, from the stream's own
    counter-based distribution (patterns.py / native/keydist.c, sysbench's 'special' below);
  - a range's length: the stream's n-th draw from its length distribution.
Inserts go at the end: rows + the table's inserts so far + 1 (all insert streams of a table
share one counter, so keys never collide). `latest` for the read ops (read, read-secondary,
range, read-modify-write) follows those inserts, as YCSB's workload D reads what was just
inserted; updates and deletes draw over the original rows 1..rows. Memory is one chunk whatever
`operations` is; consecutive chunks cost nothing extra, a chunk far from the last one counts the
stream draws from 0 (vectorised, ~20 ms per million ops).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from .patterns import KIND_CODES, Pattern
from .mix import (GOLDEN, GROWING_LATEST_OPS, M64, SPECIAL_ITER, SPECIAL_PCT, SPECIAL_RES, MixSpec, StreamSpec,
                  check_stream_trace)

CHUNK_OPS = 65536
_U53 = float(1 << 53)


@dataclass
class Chunk:
    """Ops start..stop-1 of the mix, as parallel arrays."""

    start: int
    stop: int
    stream: np.ndarray  # uint16: index into spec.streams
    key: np.ndarray  # uint64: row id in 1..rows of the stream's table (insert: the new key)
    length: np.ndarray  # uint32: rows of a range, the table's rows for a scan, else 1
    counts: np.ndarray  # uint64 per spec stream: its ops before `start`

    def __len__(self) -> int:
        return self.stop - self.start


def _splitmix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of each uint64 (wrapping arithmetic, as patterns.splitmix64)."""
    with np.errstate(over="ignore"):
        x = x + np.uint64(GOLDEN)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _counter(seed: int, n0: int, m: int) -> np.ndarray:
    """splitmix64(seed + (n0 + j) * golden) for j < m: the j-th counter-based draw."""
    idx = np.arange(n0, n0 + m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _splitmix(np.uint64(seed & M64) + idx * np.uint64(GOLDEN))


def _unit(h: np.ndarray) -> np.ndarray:
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / _U53)


def _py_splitmix(x: int) -> int:
    from .patterns import splitmix64

    return splitmix64(x & M64)


def stream_seed(seed: int, name: str, salt: int) -> int:
    """A stream's own seed for one of its draws (keys, lengths): from the mix's seed and the
    stream's name, so reordering the file's streams keeps each stream's keys."""
    return _py_splitmix(seed ^ _py_splitmix(zlib.crc32(name.encode()) * 0x100000001 + salt))


class _KeySource:
    """A stream's key sequence: key(n) for its n-th op, taken a slice at a time."""

    def __init__(self, spec: MixSpec, s: StreamSpec, native: bool):
        t = spec.table(s.table)
        self.rows = int(t.rows)
        self.k = s.keys
        self.seed = stream_seed(spec.seed, s.name, 1)
        self.native = native
        self.growing = s.keys.name == "latest" and s.op in GROWING_LATEST_OPS
        self.pattern = None
        if self.k.name in ("uniform", "zipfian", "hotspot", "latest"):
            self.pattern = Pattern(self.k.name, self.rows, seed=self.seed, theta=self.k.zipf_theta,
                                   scrambled=self.k.zipf_scramble, hot_fraction=self.k.hot_fraction,
                                   hot_ops=self.k.hot_ops)
        self._trace_iter = None
        self._trace_at = -1
        self._trace_keys = None

    def take(self, n0: int, m: int) -> np.ndarray:
        if m == 0:
            return np.empty(0, dtype=np.uint64)
        name = self.k.name
        if self.pattern is not None:
            return self._pattern(n0, m)
        if name == "sequential":
            return (np.arange(n0, n0 + m, dtype=np.uint64) % np.uint64(self.rows)) + np.uint64(1)
        if name == "special":
            return special_keys(self.seed, n0, m, self.rows, self.k.special_pct, self.k.special_res,
                                self.k.special_iter)
        return self._trace(n0, m)

    def _pattern(self, n0: int, m: int) -> np.ndarray:
        from .patterns import native_fill

        fill = native_fill() if self.native else None
        if fill is None:
            return np.fromiter(self.pattern.keys(n0, n0 + m, native=False), dtype=np.uint64, count=m)
        out = np.empty(m, dtype=np.uint64)
        done = 0
        code, params = KIND_CODES[self.pattern.kind], self.pattern.params()
        while done < m:
            done += fill(code, self.pattern.n, n0 + done, out[done:], params)
        return out

    def _trace(self, n0: int, m: int) -> np.ndarray:
        """The trace's keys inside 1..rows, in file order, from the n0-th on, cycling at its end."""
        from .trace import scan, table_keys

        if self._trace_keys is None:
            self._trace_keys = scan(self.k.trace, 1, self.rows).keys
            if self._trace_keys == 0:
                raise UsageError(f"trace {self.k.trace}: no key inside the table's 1..{self.rows:,}",
                                 "check the trace and the table's rows")
        total = self._trace_keys
        out = np.empty(m, dtype=np.uint64)
        for j in range(m):
            n = (n0 + j) % total
            if self._trace_iter is None or self._trace_at != n:
                self._trace_iter = table_keys(self.k.trace, 1, self.rows, lo=n)
                self._trace_at = n
            out[j] = next(self._trace_iter)
            self._trace_at = (n + 1) if n + 1 < total else -1
        return out


def special_keys(seed: int, n0: int, m: int, rows: int, pct: float = SPECIAL_PCT, res: float = SPECIAL_RES,
                 iterations: int = SPECIAL_ITER) -> np.ndarray:
    """sysbench 1.0's default --rand-type=special over 1..rows (sb_rand.c, sb_rand_special), with
    counter-based draws: of a uniform u over [0, 100/(100-res)) * (rows-1), the part below rows-1
    is a gaussian (the mean of `iterations` uniforms), the rest lands uniformly in the `pct`% of
    the keys around the middle. Key n of the stream depends on (seed, n) only."""
    t = float(rows - 1)
    u = _unit(_counter(seed, n0, m))
    r = u * (t * (100.0 / (100.0 - res)))
    gauss = r < t
    out = np.empty(m, dtype=np.float64)
    if gauss.any():
        idx = np.nonzero(gauss)[0].astype(np.uint64) + np.uint64(n0)
        total = np.zeros(idx.size)
        b = _py_splitmix(seed ^ 0xD1B54A32D192ED03)
        for j in range(iterations):
            with np.errstate(over="ignore"):
                counter = idx * np.uint64(iterations) + np.uint64(j)
                total += _unit(_splitmix(np.uint64(b) + counter * np.uint64(GOLDEN)))
        out[gauss] = total * t / iterations
    spec = ~gauss
    if spec.any():
        d = t * pct / 100.0
        out[spec] = np.floor(u[spec] * (d + 1) + t / 2 - t * pct / 200.0)
    keys = np.floor(out).astype(np.int64) + 1
    return np.clip(keys, 1, rows).astype(np.uint64)


class Generator:
    """The op stream of one spec; chunk() is ops(spec, start, stop) with state kept between
    consecutive calls (the running per-stream counts and any trace file positions)."""

    def __init__(self, spec: MixSpec, native: bool = True):
        missing = [t.name for t in spec.tables if t.rows is None]
        if missing:
            raise UsageError(f"table {missing[0]}'s rows are not known yet", "resolve existing tables first")
        self.spec = spec
        self.mixed = np.array(spec.mixed, dtype=np.uint16)
        cum = np.cumsum([spec.streams[i].share for i in spec.mixed])
        self.thresholds = np.array([min(int(round(c * _U53)), 1 << 53) for c in cum[:-1]], dtype=np.uint64)
        self.draw_seed = _py_splitmix(spec.seed ^ 0x6A09E667F3BCC909)
        self.len_seeds = [stream_seed(spec.seed, s.name, 2) for s in spec.streams]
        self.sources = [_KeySource(spec, s, native) if not s.scheduled and s.op not in ("scan", "insert") else None
                        for s in spec.streams]
        self.rows = [int(spec.table(s.table).rows) for s in spec.streams]
        # insert streams per table: their ops share the table's insert counter
        self.inserts_of = {t.name: [i for i, s in enumerate(spec.streams) if s.table == t.name and s.op == "insert"
                                    and not s.scheduled] for t in spec.tables}
        self._at = 0
        self._counts = np.zeros(len(spec.streams), dtype=np.uint64)
        for s in spec.streams:  # --rows may have changed since the file was read: the traces again
            if s.keys.name == "trace" and not s.scheduled:
                check_stream_trace(s, int(spec.table(s.table).rows), lambda what, hint=None: UsageError(
                    f"workload {spec.source}: {what}", hint))

    def streams_of(self, start: int, stop: int) -> np.ndarray:
        """Which stream each op start..stop-1 belongs to (uint16 index into spec.streams)."""
        u = _counter(self.draw_seed, start, stop - start) >> np.uint64(11)
        return self.mixed[np.searchsorted(self.thresholds, u, side="right")]

    def counts_at(self, i: int) -> np.ndarray:
        """Each stream's ops before op i."""
        if i < self._at:
            self._at, self._counts = 0, np.zeros_like(self._counts)
        step = 1 << 20
        while self._at < i:
            hi = min(i, self._at + step)
            self._counts += np.bincount(self.streams_of(self._at, hi), minlength=len(self._counts)).astype(np.uint64)
            self._at = hi
        return self._counts.copy()

    def chunk(self, start: int, stop: int) -> Chunk:
        if not 0 <= start <= stop:
            raise ValueError(f"ops {start}..{stop}: need 0 <= start <= stop")
        counts = self.counts_at(start)
        stream = self.streams_of(start, stop)
        m = stop - start
        key = np.ones(m, dtype=np.uint64)
        length = np.ones(m, dtype=np.uint32)
        # the table's inserts before each op of the chunk (for insert keys and growing `latest`)
        inserts_before: dict[str, np.ndarray] = {}
        for table, ins in self.inserts_of.items():
            if ins:
                mask = np.isin(stream, np.array(ins, dtype=np.uint16))
                base = sum(int(counts[i]) for i in ins)
                inserts_before[table] = base + np.concatenate(([0], np.cumsum(mask)[:-1])).astype(np.uint64)
        for i, s in enumerate(self.spec.streams):
            if s.scheduled:
                continue
            where = np.nonzero(stream == i)[0]
            if where.size == 0:
                continue
            n0 = int(counts[i])
            rows = self.rows[i]
            if s.op == "insert":
                key[where] = np.uint64(rows) + inserts_before[s.table][where] + np.uint64(1)
            elif s.op == "scan":
                key[where] = 1
                length[where] = min(rows, 0xFFFFFFFF)
            else:
                src = self.sources[i]
                k = src.take(n0, where.size)
                if src.growing and s.table in inserts_before:
                    k = k + inserts_before[s.table][where]
                key[where] = k
                if s.op == "range":
                    lo, hi = s.length
                    if lo == hi:
                        length[where] = lo
                    else:
                        u = _unit(_counter(self.len_seeds[i], n0, where.size))
                        length[where] = (lo + np.floor(u * (hi - lo + 1))).astype(np.uint32)
        self._at = stop
        self._counts = counts + np.bincount(stream, minlength=len(counts)).astype(np.uint64)
        return Chunk(start, stop, stream, key, length, counts)

    def chunks(self, start: int = 0, stop: int | None = None, size: int = CHUNK_OPS):
        """Chunks of at most `size` ops from start to stop (default: the spec's operations)."""
        stop = self.spec.operations if stop is None else stop
        for lo in range(start, stop, size):
            yield self.chunk(lo, min(stop, lo + size))


_GENERATORS: dict = {}


def ops(spec: MixSpec, start: int, stop: int) -> Chunk:
    """Ops start..stop-1 of the mix (the contract's entry point): stream, key, length arrays and
    the streams' counts at start. Consecutive calls on one spec continue where the last ended."""
    gen = _GENERATORS.get(spec)
    if gen is None:
        if len(_GENERATORS) >= 8:
            _GENERATORS.pop(next(iter(_GENERATORS)))
        gen = _GENERATORS[spec] = Generator(spec)
    return gen.chunk(start, stop)


def op_reference(spec: MixSpec, i: int) -> tuple[int, int, int]:
    """Op i as (stream, key, length), computed from scratch (slow: the tests' reference)."""
    gen = Generator(spec, native=False)
    c = gen.chunk(i, i + 1)
    return int(c.stream[0]), int(c.key[0]), int(c.length[0])

"""Access orders as lazy streams of ids: memory stays flat whatever the number of queries.

  interleaved (variation A): each id `reps` times in a row, then the next id
  looped      (variation B): `reps` full passes over the same ids
  sequential               : one pass over the ids (reps ignored)
  random                   : `reps` passes, each a different pseudo-random permutation of the ids
The ids are range(1, rows + 1, stride) in every order, so A, B and random query the same multiset.

The key distributions zipfian, hotspot, latest and uniform (loadgen/workload/patterns.py, YCSB's
definitions) draw from every id 1..rows with replacement: `queries` operations, by default as
many as the looped order makes (rows/stride * reps). `trace` replays the keys of a file
(loadgen/workload/trace.py) in its order; keys outside 1..rows are skipped and counted.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import asdict, dataclass
from collections.abc import Iterator

from ..errors import UsageError

ORDERS = ("interleaved", "looped", "sequential", "random", "zipfian", "hotspot", "latest", "uniform", "trace")
PATTERN_ORDERS = ("zipfian", "hotspot", "latest", "uniform")
VARIATIONS = {"A": "interleaved", "B": "looped"}


@dataclass(frozen=True)
class Workload:
    order: str
    rows: int
    stride: int = 10
    reps: int = 2
    seed: int = 1
    variation: str | None = None
    count: int | None = None  # --queries for the distributions (None: rows/stride * reps)
    zipf_theta: float = 0.99
    zipf_scramble: bool = True
    hot_fraction: float = 0.2
    hot_ops: float = 0.8
    trace: str | None = None  # the trace file of order "trace"
    trace_key_min: int = 1  # the table's first key: a trace holds absolute keys (runner sets it)

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise UsageError(f"unknown order {self.order!r}", f"choose one of: {', '.join(ORDERS)}")
        if self.rows < 1:
            raise UsageError(f"--rows {self.rows} must be at least 1")
        if self.stride < 1:
            raise UsageError(f"--stride {self.stride} must be at least 1")
        if self.reps < 1:
            raise UsageError(f"--reps {self.reps} must be at least 1")
        if self.count is not None and self.count < 1:
            raise UsageError(f"--queries {self.count} must be at least 1")
        if self.order in PATTERN_ORDERS:
            self.pattern()  # bad --zipf-theta / --hot-* are usage errors now
        if self.order == "trace" and self.trace is None:
            raise UsageError("--order trace needs --trace FILE")

    @property
    def distinct_ids(self) -> int:
        return len(range(1, self.rows + 1, self.stride))

    @property
    def queries(self) -> int:
        if self.order == "trace":
            return self.trace_scan().keys
        if self.order in PATTERN_ORDERS and self.count is not None:
            return self.count
        return self.distinct_ids * (1 if self.order == "sequential" else self.reps)

    def pattern(self):
        from .patterns import Pattern

        return Pattern(self.order, self.rows, self.seed, self.zipf_theta, self.zipf_scramble, self.hot_fraction,
                       self.hot_ops)

    def trace_scan(self):
        """(keys in the table, keys outside it, ...) of the trace file: one pass, cached."""
        from .trace import scan

        return scan(self.trace, self.trace_key_min, self.rows)

    def ids(self, part: int = 0, parts: int = 1) -> Iterator[int]:
        return ids(self, part, parts)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["queries"] = self.queries
        if self.order not in PATTERN_ORDERS:  # the distributions' knobs mean nothing elsewhere
            for k in ("count", "zipf_theta", "zipf_scramble", "hot_fraction", "hot_ops"):
                d.pop(k)
        if self.order == "trace":
            d["trace"] = self.trace_scan().to_dict()
        else:
            d.pop("trace")
            d.pop("trace_key_min")
        return d


def workload_from_dict(wl: dict, rows: int | None = None) -> Workload | None:
    """The Workload a result file's workload block describes, over `rows` keys (the table's, where
    the caller knows them; else the block's); None where it cannot be rebuilt: an order this
    version does not know, or a trace whose file is gone. The one place a block becomes a
    Workload again (the model's door, analysis/predict.py, uses it for files read back)."""
    order = wl.get("order")
    if order not in ORDERS:
        return None
    rows = int(rows if rows is not None else wl.get("rows") or 0)
    common = {"stride": int(wl.get("stride") or 10), "reps": int(wl.get("reps") or 2), "seed": int(wl.get("seed") or 1)}
    if order == "trace":
        t = wl.get("trace") or {}
        path = t.get("path") if isinstance(t, dict) else t
        if not path or not os.path.exists(path):
            return None
        return Workload("trace", rows, trace=path, trace_key_min=int(wl.get("trace_key_min") or 1), **common)
    knobs = {k: wl[k] for k in ("count", "zipf_theta", "zipf_scramble", "hot_fraction", "hot_ops") if k in wl}
    return Workload(order, rows, **common, **knobs)


def resolve(variation: str | None, order: str | None, trace: str | None = None) -> tuple[str, str | None]:
    """--variation A|B, --order NAME or --trace FILE -> (order, variation)."""
    if trace is not None:
        if variation or (order and order != "trace"):
            raise UsageError("--trace replays its own order", "drop --variation/--order")
        return "trace", None
    if variation and order:
        raise UsageError("give --variation or --order, not both")
    if variation:
        v = variation.upper()
        if v not in VARIATIONS:
            raise UsageError(f"unknown variation {variation!r}", "use A (interleaved) or B (looped), or --order")
        return VARIATIONS[v], v
    if order:
        if order not in ORDERS:
            raise UsageError(f"unknown order {order!r}", f"choose one of: {', '.join(ORDERS)}")
        return order, next((k for k, o in VARIATIONS.items() if o == order), None)
    return "interleaved", "A"


def parse_variations(text: str, handled: tuple[str, ...] = ORDERS, who: str = "") -> list[tuple[str, str | None]]:
    """--variations 'A,B,zipfian' -> [(order, variation), ...]: A and B, or orders by name (an order
    with a letter gets it: looped is B). The one parser of the option (run's compare, sweep,
    advise); who/handled: a command that takes fewer orders names them in its refusal."""
    names = [t.strip() for t in str(text).split(",") if t.strip()]
    if not names:
        raise UsageError("--variations is empty", "e.g. --variations A,B")
    out = []
    for n in names:
        if who and n.upper() not in VARIATIONS and n not in handled:
            raise UsageError(f"{who} handles {', '.join([*VARIATIONS, *handled])}, not {n!r}")
        out.append(resolve(n, None) if n.upper() in VARIATIONS else resolve(None, n))
    return out


def ids(w: Workload, part: int = 0, parts: int = 1) -> Iterator[int]:
    """The order's ids; with parts > 1 (--threads), the order over the part-th contiguous slice
    of the distinct ids, so each connection keeps the order's shape on its own share."""
    if w.order in PATTERN_ORDERS or w.order == "trace":
        lo, hi = part * w.queries // parts, (part + 1) * w.queries // parts
        if w.order == "trace":
            from .trace import table_keys

            keys = table_keys(w.trace, w.trace_key_min, w.rows, lo, hi)
            # ids are 1-based like every order's; the driver adds the table's key offset back
            return keys if w.trace_key_min == 1 else (k - w.trace_key_min + 1 for k in keys)
        return w.pattern().keys(lo, hi)
    base = range(1, w.rows + 1, w.stride)
    if parts > 1:
        base = base[part * len(base) // parts:(part + 1) * len(base) // parts]
    if w.order == "interleaved":
        return itertools.chain.from_iterable(itertools.repeat(i, w.reps) for i in base)
    if w.order == "looped":
        return itertools.chain.from_iterable(itertools.repeat(base, w.reps))
    if w.order == "sequential":
        return iter(base)
    return itertools.chain.from_iterable(
        permuted(base, w.seed * 1_000_003 + rep) for rep in range(w.reps)
    )


PERMUTE_CHUNK = 4096


def permuted(base: range, key: int, native: bool = True) -> Iterator[int]:
    """base[k] for k in permutation(len(base), key): in chunks from C (native/permute.c, the same
    values) when the extension has it, else from the Python generator below."""
    fill = _native_permute() if native and len(base) > 1 else None
    if fill is None:
        yield from (base[k] for k in permutation(len(base), key))
        return
    from array import array

    n = len(base)
    half_bits, keys = _feistel(n, key)
    buf = array("Q", bytes(8 * PERMUTE_CHUNK))
    done = 0
    while done < n:
        got = fill(n, half_bits, tuple(keys), done, buf, base.start, base.step)
        yield from buf[:got]
        done += got


def _native_permute():
    """The C version of this loop, or None without the extension."""
    from .. import native

    return native.permute_fill()


def _feistel(n: int, key: int) -> tuple[int, list[int]]:
    """(half_bits, the four round keys) of permutation(n, key)."""
    half_bits = max(1, ((n - 1).bit_length() + 1) // 2)
    keys = [((key + 1) * 0x9E3779B97F4A7C15 + r * 0xBF58476D1CE4E5B9) & 0xFFFFFFFF for r in range(4)]
    return half_bits, keys


def permutation(n: int, key: int) -> Iterator[int]:
    """A pseudo-random permutation of range(n) in O(1) memory: a 4-round Feistel network over the
    next power of four, walking cycles to stay inside range(n)."""
    if n <= 1:
        yield from range(n)
        return
    half_bits, keys = _feistel(n, key)
    mask = (1 << half_bits) - 1

    def encrypt(x: int) -> int:
        left, right = x >> half_bits, x & mask
        for k in keys:
            f = ((right * 0x85EBCA6B) ^ k) & 0xFFFFFFFF
            f = ((f ^ (f >> 13)) * 0xC2B2AE35) & mask
            left, right = right, left ^ f
        return (left << half_bits) | right

    for i in range(n):
        x = encrypt(i)
        while x >= n:  # cycle walking: the domain is at most 4x n, so this ends fast
            x = encrypt(x)
        yield x

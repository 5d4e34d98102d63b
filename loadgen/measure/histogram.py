"""A latency histogram with bounded memory and < 0.8% relative error (log-linear buckets).

Values are nanoseconds. Values below 256 have a bucket each; above that, each power of two is
split into 128 buckets (the HDR-histogram layout with 7 sub-bucket bits). The native driver
uses the same layout, so both produce comparable histograms.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass

SUB_BITS = 7
SUB = 1 << SUB_BITS  # 128
MAX_SHIFT = 40  # 2^47 ns ~ 39 hours: anything beyond lands in the last bucket
N_BUCKETS = (MAX_SHIFT + 2) * SUB


def bucket_index(value_ns: int) -> int:
    if value_ns < 2 * SUB:
        return max(0, value_ns)
    shift = value_ns.bit_length() - (SUB_BITS + 1)
    if shift > MAX_SHIFT:
        return N_BUCKETS - 1
    return shift * SUB + (value_ns >> shift)


def bucket_bounds(index: int) -> tuple[int, int]:
    """[low, high) of the values that land in a bucket."""
    if index < 2 * SUB:
        return index, index + 1
    shift, sub = divmod(index, SUB)
    low = (sub + SUB) << (shift - 1)
    return low, low + (1 << (shift - 1))


@dataclass
class LatencySummary:
    count: int
    mean: float
    p50: float
    p95: float
    p99: float
    p999: float
    max: float
    min: float

    def to_dict(self) -> dict:
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in self.__dict__.items()}


class Histogram:
    def __init__(self) -> None:
        self.counts = array("Q", bytes(8 * N_BUCKETS))
        self.count = 0
        self.total_ns = 0
        self.min_ns: int | None = None
        self.max_ns = 0

    def record(self, value_ns: int) -> None:
        self.counts[bucket_index(value_ns)] += 1
        self.count += 1
        self.total_ns += value_ns
        if value_ns > self.max_ns:
            self.max_ns = value_ns
        if self.min_ns is None or value_ns < self.min_ns:
            self.min_ns = value_ns

    def add_chunk(self, count: int, total_ns: int, min_ns: int, max_ns: int) -> None:
        """Account for `count` values the C loop has already bucketed into self.counts (it
        writes the buckets in place; the totals come back through here)."""
        if not count:
            return
        self.count += count
        self.total_ns += total_ns
        self.max_ns = max(self.max_ns, max_ns)
        self.min_ns = min_ns if self.min_ns is None else min(self.min_ns, min_ns)

    def merge(self, other: Histogram) -> None:
        for i, c in enumerate(other.counts):
            if c:
                self.counts[i] += c
        self.count += other.count
        self.total_ns += other.total_ns
        self.max_ns = max(self.max_ns, other.max_ns)
        if other.min_ns is not None:
            self.min_ns = other.min_ns if self.min_ns is None else min(self.min_ns, other.min_ns)

    def percentile(self, q: float) -> float:
        """Value (ns) at quantile q in [0, 100]: the midpoint of the bucket holding that rank."""
        if self.count == 0:
            return 0.0
        rank = max(1, int(q / 100.0 * self.count + 0.5))
        seen = 0
        for i, c in enumerate(self.counts):
            if c:
                seen += c
                if seen >= rank:
                    low, high = bucket_bounds(i)
                    return min(float(self.max_ns), (low + high - 1) / 2.0)
        return float(self.max_ns)

    def summary_us(self) -> LatencySummary:
        """Microseconds: mean and max exact, percentiles within bucket precision."""
        if self.count == 0:
            return LatencySummary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        return LatencySummary(
            count=self.count,
            mean=self.total_ns / self.count / 1000.0,
            p50=self.percentile(50) / 1000.0,
            p95=self.percentile(95) / 1000.0,
            p99=self.percentile(99) / 1000.0,
            p999=self.percentile(99.9) / 1000.0,
            max=self.max_ns / 1000.0,
            min=(self.min_ns or 0) / 1000.0,
        )

    def to_dict(self) -> dict:
        """Sparse form for the result file: [[bucket_low_ns, count], ...]."""
        return {
            "layout": f"log-linear/{SUB_BITS}",
            "buckets": [[bucket_bounds(i)[0], c] for i, c in enumerate(self.counts) if c],
        }

    @classmethod
    def from_dict(cls, d: dict) -> Histogram:
        h = cls()
        for low, c in d.get("buckets", []):
            h.counts[bucket_index(int(low))] += int(c)
            h.count += int(c)
            h.total_ns += int(low) * int(c)
            h.max_ns = max(h.max_ns, int(low))
        return h

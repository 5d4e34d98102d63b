"""Comparisons between runs, as data (rendering is report.py's job)."""
from __future__ import annotations

from dataclasses import dataclass

# (key, label, where in the result, lower_is_better)
AB_METRICS = [
    ("elapsed_s", "elapsed (s)", ("result", "elapsed_s"), True),
    ("qps", "queries/s", ("result", "qps"), False),
    ("p50_us", "p50 latency (µs)", ("result", "latency_us", "p50"), True),
    ("p99_us", "p99 latency (µs)", ("result", "latency_us", "p99"), True),
    ("reads", "buffer-pool reads (misses)", ("buffer_pool", "reads"), True),
    ("read_requests", "read requests", ("buffer_pool", "read_requests"), True),
    ("hit_ratio", "hit ratio", ("buffer_pool", "hit_ratio"), False),
    ("miss_ratio", "miss ratio", ("buffer_pool", "miss_ratio"), True),
]


def dig(d: dict, path: tuple):
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


@dataclass
class MetricRow:
    key: str
    label: str
    values: list  # one per run, None where missing
    ratio: float | None  # last / first
    lower_is_better: bool


def side_by_side(results: list[dict]) -> list[MetricRow]:
    """Each metric for each run, with the ratio of the last run to the first (B/A)."""
    rows = []
    for key, label, path, lower in AB_METRICS:
        values = [dig(r, path) for r in results]
        first, last = values[0], values[-1]
        ratio = last / first if isinstance(first, (int, float)) and isinstance(last, (int, float)) and first else None
        rows.append(MetricRow(key, label, values, ratio, lower))
    return rows

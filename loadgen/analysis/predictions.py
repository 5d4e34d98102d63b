"""What the model says: a prediction at one pool size, a point of the miss curve, a forecast.

Held apart so the readers of predictions (forecast.py, curve.py, advise.py, the reports) need not
import the simulator to name its results. Prediction, the one type for what the model says at a
pool, is the result file's own (loadgen/results/documents.py): a run's block and a forecast's
point are the same thing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..results.documents import Prediction
from .geometry import Geometry

__all__ = ["CurvePoint", "Forecast", "Prediction"]


@dataclass
class CurvePoint:
    pool_bytes: int
    pool_pages: int
    capacity_pages: int
    reads: int
    plain_lru_reads: int
    miss_ratio: float
    plain_lru_miss_ratio: float
    reads_se: float = 0.0  # standard error of reads: 0 when simulated exactly (loadgen/analysis/curve.py)
    rate: float = 1.0  # the miniature's sampling rate; 1.0 = exact
    exact: bool = True
    # how far reads can be off (Prediction.reads_low/high; the cleaner's range only at the forecast's own pool)
    reads_low: int | None = None
    reads_high: int | None = None


@dataclass
class Forecast:
    geometry: Geometry
    order: str
    queries: int
    read_requests: int
    at: Prediction
    curve: list[CurvePoint] = field(default_factory=list)

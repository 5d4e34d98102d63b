"""What the model says: a prediction at one pool size, a point of the miss curve, a forecast.

Held apart so the readers of predictions (forecast.py, curve.py, advise.py, the reports) need not
import the simulator to name its results. The result file's own `prediction` block is
loadgen/results/documents.py's Prediction.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .geometry import Geometry


@dataclass
class Prediction:
    model: str
    reads: int
    read_requests: int
    hit_ratio: float
    plain_lru_reads: int
    capacity_pages: int
    pool_pages: int
    made_young: int
    qps: float
    error_pct: float | None = None
    measured_reads: int | None = None
    plain_lru_error_pct: float | None = None
    read_ahead: int | None = None  # pages the model read ahead (included in reads)
    measured_read_ahead: int | None = None
    # a run that started warm (model.hold_to_measured): why there is no error figure, or (when the
    # resident pages were too few to matter) how many there were
    no_error_reason: str | None = None
    warm_start: str | None = None
    # a table past scaled.EXACT_MAX_PAGES: simulated on a copy this many times smaller, the reads
    # scaled back, with this standard error (1 and 0: simulated exactly; docs/innodb.md, "Large tables")
    scale: float = 1.0
    reads_se: float = 0.0
    # MySQL's timed page cleaner: how the model placed its LRU batch (a run's recorded batches
    # replayed, or the mean over four phases of one batch), and without a record how far that can
    # be off: the reads with no batch, one and two at any of the phases (model.simulate_bounded)
    cleaner: str | None = None
    cleaner_low: int | None = None
    cleaner_high: int | None = None
    # how far the prediction can be off, every known source together (analysis/intervals.py):
    # low <= reads <= high
    reads_low: int | None = None
    reads_high: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


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

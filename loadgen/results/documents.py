"""The result documents loadgen writes and reads: one schema, one place.

Three kinds of file, each versioned JSON written atomically, each with a `kind`:
  run     RunResult: one access order measured (`loadgen run`, `compare`, each point of a sweep)
  sweep   SweepResult: pool sizes x orders, the model's curve and the recommendation
  native  NativeResult: an OS-level experiment (`loadgen native ...`, kind "native.<experiment>")
and Prediction, the model's block inside a run. Every reader goes through load(), which refuses
a file of the wrong kind or of a newer format_version in one line. The JSON keys are the ones the
docs/results.md lists; keys this version does not know are kept as they were.

format_version history:
  1  first version: server, dataset, workload, result, buffer_pool, samples, latency histogram;
     files written before `kind` was on every file are runs
  2  the headline miss count is buffer_pool.pages_read (pages read into the pool, Innodb_pages_read),
     with demand_reads and read_ahead beside it and buffer_pool.counters naming the status variables;
     hit_ratio/miss_ratio (run totals and samples) are now computed from pages_read, not from
     Innodb_buffer_pool_reads (which leaves read-ahead out on MySQL). v1 files still load: their
     headline is derived by RunResult.headline() where their counters allow it.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar
from collections.abc import Iterable

from ..errors import BadValueError, ResultError, VersionError
from ..inputs import RESULT_FILE_MAX_BYTES, read_capped
from .blocks import BLOCKS, BufferPoolBlock, DatasetBlock, ResultBlock, ServerBlock, WorkloadBlock

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
KINDS = ("run", "sweep", "native")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def pages_read(counts: dict, flavor: str | None = None) -> tuple[int | None, str | None]:
    """The headline over an interval: pages read into the pool, and the counter it came from.

    Innodb_pages_read where the server has it; otherwise reads + read_ahead on MySQL (whose
    Innodb_buffer_pool_reads leaves read-ahead out) and reads on MariaDB (whose reads include it).
    """
    if counts.get("pages_read") is not None:
        return counts["pages_read"], "Innodb_pages_read"
    reads, ahead = counts.get("reads"), counts.get("read_ahead")
    if reads is None:
        return None, None
    if flavor == "mariadb":
        return reads, "Innodb_buffer_pool_reads"
    if flavor == "mysql" and ahead is not None:
        return reads + ahead, "Innodb_buffer_pool_reads + Innodb_buffer_pool_read_ahead"
    return None, None


# The counters of a run that comparisons read or derive from (the headline pages_read, or reads
# + read_ahead in a v1 file; the hit ratio from read_requests; the rates and latencies).
COUNTER_PATHS = [*(("buffer_pool", k) for k in ("pages_read", "demand_reads", "read_ahead", "reads",
                                                 "read_requests", "hit_ratio", "miss_ratio")),
                 ("result", "elapsed_s"), ("result", "qps"), ("result", "latency_us", "p50"),
                 ("result", "latency_us", "p99")]
RATIOS = ("hit_ratio", "miss_ratio")
# InnoDB's counters are unsigned 64-bit: a value above this (1e300 in a hand-edited file) was
# never measured, and neither were q/s, seconds or microseconds as large.
COUNTER_MAX = 2 ** 64
# The server variables the model takes from a run (analysis/pool.py), with the ranges the servers
# accept: a value outside one was never a server's (a hand-edited file), and reached the model as
# a traceback (advise --result, 29 November 2026).
MODEL_VARIABLES = {"innodb_old_blocks_pct": (5, 95), "innodb_old_blocks_time": (0, 2 ** 32 - 1),
                   "innodb_lru_scan_depth": (100, 2 ** 64 - 1), "innodb_read_ahead_threshold": (0, 64)}


class Document(Mapping):
    """A typed result document. It reads like its JSON too (doc["buffer_pool"]["reads"]), so a
    script written against the files works on the objects unchanged."""

    KIND: ClassVar[str] = ""
    # each kind's dataclass has `source`: the file load() read it from (or the runner wrote it to),
    # per instance and never part of the JSON

    @property
    def kind(self) -> str:
        return self.KIND

    def to_dict(self) -> dict:
        """The JSON form: format_version and kind first, then the fields in order, then the keys
        this version did not know."""
        out: dict[str, Any] = {"format_version": self.format_version, "kind": self.kind}
        for f in dataclasses.fields(self):
            if f.name not in ("format_version", "extra", "source"):
                value = getattr(self, f.name)
                out[f.name] = value.to_dict() if hasattr(value, "to_dict") else value
        out.update(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: dict):
        names = {f.name for f in dataclasses.fields(cls)} - {"extra", "source"}
        known = {k: v for k, v in data.items() if k in names}
        extra = {k: v for k, v in data.items() if k not in names and k != "kind"}
        return cls(**known, extra=extra)

    def __getitem__(self, key: str):
        return self.to_dict()[key]

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


@dataclass
class Prediction:
    """What the model says at one pool, the one type for it: a run's `prediction` block (with the
    run's `curve` and a `note`), `loadgen predict`'s prediction, a forecast's point (Forecast.at).
    Keys another kind of model writes (the mix model's tables) are kept in `extra`; a block read
    from a file is written back with its keys in the order it had them, so files do not change."""

    model: str | None = None
    reads: int | None = None
    read_requests: int | None = None
    hit_ratio: float | None = None
    plain_lru_reads: int | None = None
    capacity_pages: int | None = None
    pool_pages: int | None = None
    made_young: int | None = None
    qps: float | None = None
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
    # a run's block only: the model's curve around the run's pool, and what the model left out
    curve: list | None = None
    note: str | None = None
    extra: dict = field(default_factory=dict, repr=False)
    # the keys of the block it was read from, in their order (None: made here)
    read_keys: tuple | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: dict | None) -> Prediction | None:
        if not data:
            return None
        names = _PREDICTION_FIELDS
        return cls(**{k: v for k, v in data.items() if k in names},
                   extra={k: v for k, v in data.items() if k not in names}, read_keys=tuple(data))

    def to_dict(self) -> dict:
        if self.read_keys is not None:
            return {k: getattr(self, k) if k in _PREDICTION_FIELDS else self.extra[k] for k in self.read_keys
                    if k in _PREDICTION_FIELDS or k in self.extra}
        out = {k: getattr(self, k) for k in _PREDICTION_FIELDS if k not in ("curve", "note")}
        out.update({k: getattr(self, k) for k in ("curve", "note") if getattr(self, k) is not None})
        out.update(self.extra)
        return out


_PREDICTION_FIELDS = tuple(f.name for f in dataclasses.fields(Prediction) if f.name not in ("extra", "read_keys"))


@dataclass(eq=False)
class RunResult(Document):
    """One access order measured from a cold pool (docs/results.md)."""

    KIND: ClassVar[str] = "run"
    format_version: int = FORMAT_VERSION
    loadgen_version: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    complete: bool = False
    incomplete_reason: str | None = None
    server: ServerBlock = field(default_factory=ServerBlock)
    dataset: DatasetBlock = field(default_factory=DatasetBlock)
    workload: WorkloadBlock = field(default_factory=WorkloadBlock)
    result: ResultBlock = field(default_factory=ResultBlock)
    buffer_pool: BufferPoolBlock = field(default_factory=BufferPoolBlock)
    samples: list = field(default_factory=list)
    host: dict = field(default_factory=dict)
    prediction: Prediction | None = None
    extra: dict = field(default_factory=dict)
    source: Path | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.prediction, dict):
            self.prediction = Prediction.from_dict(self.prediction)
        if self.host is None:
            self.host = {}
        for name, block in BLOCKS.items():
            value = getattr(self, name)
            if value is None or (isinstance(value, Mapping) and not isinstance(value, block)):
                setattr(self, name, block(value))
            # anything else (a number where an object belongs) stays as read: bad_values() names it

    @property
    def key(self) -> str:
        """What a comparison groups runs by: the variation (A, B) or else the order."""
        return self.workload.get("variation") or self.workload.get("order") or "?"

    @property
    def pool_bytes(self) -> int | None:
        return self.server.get("innodb_buffer_pool_size")

    def headline(self) -> tuple[int | None, str | None]:
        """Pages read into the pool over the run and the counter(s) it came from, for this file's
        version: v2 files carry it; a v1 file's Innodb_pages_read delta is used where it has one,
        else reads (MariaDB, read-ahead included) or reads + read_ahead (MySQL). (None, None)
        when the file cannot tell, e.g. a v1 MySQL file with reads only."""
        bp = self.buffer_pool or {}
        if bp.get("pages_read") is not None:
            return bp["pages_read"], (bp.get("counters") or {}).get("pages_read", "Innodb_pages_read")
        return pages_read(bp, self.server.get("flavor"))

    def headline_hit_ratio(self) -> float | None:
        """1 - pages_read / read_requests, whatever the file's version (v1 stored it from reads)."""
        value, _ = self.headline()
        requests = (self.buffer_pool or {}).get("read_requests")
        if value is None or not requests:
            return None
        return max(0.0, 1.0 - value / requests)

    def value(self, path: Iterable[str]):
        """The value at a path of keys, e.g. ("buffer_pool", "reads"); None where it is missing."""
        first, *rest = path
        node: Any = getattr(self, first, None) if first in self.__dataclass_fields__ else self.extra.get(first)
        if hasattr(node, "to_dict"):
            node = node.to_dict()
        for key in rest:
            if not isinstance(node, Mapping) or key not in node:
                return None
            node = node[key]
        return node


    @property
    def has_data(self) -> bool:
        """Whether it measured anything: samples, buffer-pool totals or queries."""
        return bool(self.samples or self.buffer_pool or self.result.get("queries"))

    def bad_values(self) -> list[tuple[str, Any, str]]:
        """(key, value, what it should be) for each counter a comparison reads or derives from
        that is neither null nor a finite number >= 0 (a ratio: 0 to 1), and each block that is
        not an object. loadgen writes what it could not measure as null, so such a value was put
        there by hand (issue #18, N3: NaN and negative reads passed the gate, a string was a
        traceback)."""
        out: list[tuple[str, Any, str]] = []
        for name in ("server", "dataset", "workload", "result", "buffer_pool"):
            if not isinstance(getattr(self, name), Mapping):
                out.append((name, getattr(self, name), "an object"))
        for path in (("buffer_pool", "counters"), ("result", "latency_us")):
            node = self.value(path)
            if node is not None and not isinstance(node, dict):
                out.append((".".join(path), node, "an object"))
        for path in (("workload", "variation"), ("workload", "order")):  # what runs are grouped by
            node = self.value(path)
            if node is not None and not isinstance(node, str):
                out.append((".".join(path), node, "a string"))
        variables = self.server.get("variables") if isinstance(self.server, Mapping) else None
        for name, (lo, hi) in MODEL_VARIABLES.items():
            v = variables.get(name) if isinstance(variables, Mapping) else None
            if v is None:
                continue
            number = str(v).strip() if isinstance(v, (int, str)) and not isinstance(v, bool) else ""
            if not (number.isdigit() and lo <= int(number) <= hi):
                out.append((f"server.variables.{name}", v, f"an integer from {lo} to {hi}"))
        for path in COUNTER_PATHS:
            v = self.value(path)
            if v is None:
                continue
            ratio = path[-1] in RATIOS
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                  and 0 <= v <= COUNTER_MAX)
            if not ok or (ratio and v > 1):
                out.append((".".join(path), v, "a ratio from 0 to 1" if ratio else
                            "a finite number from 0 to 2^64 (the servers' counters are 64-bit)"))
        return out


@dataclass(eq=False)
class SweepResult(Document):
    """Pool sizes x orders on one dataset, each point a run file of its own."""

    KIND: ClassVar[str] = "sweep"
    format_version: int = FORMAT_VERSION
    started_at: str | None = None
    finished_at: str | None = None
    dataset: dict = field(default_factory=dict)
    workload: dict = field(default_factory=dict)
    server: dict = field(default_factory=dict)
    pools: list = field(default_factory=list)
    tolerance_pct: float | None = None
    points: list = field(default_factory=list)  # one dict per run: pool_bytes, reads, predicted_reads, ...
    curves: dict = field(default_factory=dict)  # the model's curve per order
    recommendation: dict = field(default_factory=dict)  # per order: pool_bytes, reason
    extra: dict = field(default_factory=dict)
    source: Path | None = field(default=None, compare=False, repr=False)

    @property
    def has_data(self) -> bool:
        return bool(self.points)


@dataclass(eq=False)
class NativeResult(Document):
    """An OS-level experiment: params, passes and totals as loadgen.experiments wrote them."""

    KIND: ClassVar[str] = "native"
    experiment: str = ""
    format_version: int = FORMAT_VERSION
    extra: dict = field(default_factory=dict)
    source: Path | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> str:
        return f"native.{self.experiment}"

    @classmethod
    def from_dict(cls, data: dict) -> NativeResult:
        kind = str(data.get("kind", ""))
        rest = {k: v for k, v in data.items() if k not in ("kind", "format_version")}
        return cls(experiment=kind.partition(".")[2], format_version=data.get("format_version", FORMAT_VERSION),
                   extra=rest)

    def to_dict(self) -> dict:
        return {"format_version": self.format_version, "kind": self.kind, **self.extra}


DOCUMENTS = {"run": RunResult, "sweep": SweepResult, "native": NativeResult}


def kind_of(data: dict) -> str:
    """The family of a document: "run" (also for files from before `kind`), "sweep", "native"."""
    return str(data.get("kind") or "run").partition(".")[0]


def load(path: str | os.PathLike, kind: str | tuple[str, ...] | None = None, pipes: bool = True) -> Document:
    """Read a result file as its typed document.

    kind: the kind(s) the caller can use ("run", "sweep", "native"); None takes any. A file of
    another kind, of a newer format_version, truncated or not JSON is refused in one line, as is
    one that is not a regular file (or, with `pipes`, a pipe) of at most 1 GiB (inputs.py).
    """
    path = Path(path)
    raw = read_capped(path, RESULT_FILE_MAX_BYTES, "result file", pipes=pipes, error=ResultError)
    try:
        text = raw.decode("utf-8")
        del raw  # the text is as large again: do not hold both while parsing
    except UnicodeDecodeError:
        raise ResultError(f"{path} is not a loadgen result (binary data, not JSON text)",
                          "give the JSON file a loadgen command wrote") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultError(f"{path} is not a loadgen result (bad JSON at line {exc.lineno})",
                          "was the file truncated? re-run to produce it again") from None
    except RecursionError:  # objects nested thousands deep: no file loadgen writes
        raise ResultError(f"{path} is not a loadgen result (JSON nested too deeply)") from None
    if not isinstance(data, dict) or "format_version" not in data:
        raise ResultError(f"{path} is not a loadgen result (no format_version)")
    version = data["format_version"]
    # bool is an int in Python (True == 1): a version must be a plain integer
    if type(version) is not int:
        raise VersionError(f"{path} has format_version {version!r}, not an integer", "is this a loadgen result?")
    if version > FORMAT_VERSION:
        raise VersionError(f"{path} has format_version {version}, newer than this loadgen reads ({FORMAT_VERSION})",
                           "upgrade loadgen to read it")
    if version not in READABLE_VERSIONS:
        raise VersionError(f"{path} has format_version {version}, this loadgen reads {READABLE_VERSIONS}",
                           "re-run it with this version of loadgen")
    found = kind_of(data)
    wanted = (kind,) if isinstance(kind, str) else kind
    if found not in DOCUMENTS or (wanted and found not in wanted):
        raise ResultError(f"{path} is a {data.get('kind')} file, not a {' or '.join(wanted or KINDS)} result",
                          "give the file of a `loadgen run` (or compare) here" if wanted == ("run",) else None)
    doc = DOCUMENTS[found].from_dict(data)
    doc.source = path  # where it was read from, for messages that must name the file (not part of the JSON)
    return doc


def check_values(runs: Iterable[RunResult]) -> None:
    """Refuse (exit 2, naming the file and the key) a run holding a counter that is not a finite
    number >= 0, before anything reads it: a NaN passed every limit of the gate, a negative count
    made a hit ratio above 1, a string was a traceback."""
    for r in runs:
        bad = r.bad_values()
        if bad:
            key, value, wanted = bad[0]
            shown = repr(value)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise BadValueError(f"{r.source or 'a result'}: {key} is {shown}, not {wanted}",
                                "loadgen never writes one (what it could not measure is null): was the file "
                                "edited? re-run to get one loadgen wrote")


def load_sides(paths: Iterable[str | os.PathLike]) -> list[list[RunResult]]:
    """The sides of `compare BASE NEW`: each a run file, or a directory whose run files (*.json)
    make one side; a directory's sweep and native files are passed over."""
    sides = []
    for p in map(Path, paths):
        if not p.is_dir():
            sides.append([load(p, kind="run")])
            continue
        files = [f for f in sorted(p.glob("*.json")) if not f.name.startswith(".")]
        docs = [load(f, pipes=False) for f in files]  # a FIFO among them would wait for a writer forever
        runs = [d for d in docs if isinstance(d, RunResult)]
        if not runs:
            raise ResultError(f"{p} holds no run result files (*.json)")
        sides.append(runs)
    check_values(r for side in sides for r in side)
    return sides

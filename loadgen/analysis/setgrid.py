"""`loadgen sweep --workload FILE --set-grid innodb_old_blocks_time=0,1000`: the scan advice's grid
measured on a real server (issue #21 item 5), one cold server per setting, each point beside the
model's.

What is compared, per setting (a run of the mix with its scheduled scan):
  pages read      the run's Innodb_pages_read against the run's prediction (mixmodel.predict,
                  with the scan where the run's execution started)
  lookups after   the pages the mix's other streams read from the op at which the last scan
                  ended to the end of the run, and their hit ratio: on the server from the
                  samples (per-interval counters, the op count interpolated inside a sample),
                  in the model from the same op on (the scan is over there too, so every read
                  is a lookup's)
  hit-ratio loss  the model's: the lookups' hit ratio over those ops with the scan, less without
                  it (the same op sequence, the scheduled streams left out); measured only with
                  `baseline` runs (the mix without its scans at the same setting: twice the runs)
The ranking: the run that reads more pages is the one the scan hurt more (every run sends the
same op sequence and one scan); the advice (scanadvice.advise over the grid's points, on the
first run's tables, rate and scan position) names the setting it would pick, and the measured
ranking agrees with it when the measured best is the advised one. The advice's pool is the one
`advise --workload` assumes before any run (its size and setting), not the first run's: the
start-up pages a run begins with (MariaDB 278 or 558 in two runs of one grid) move the model's
1000 ms point by ~500 pages (docs/workloads.md, "Where the ordering is a coin toss"), and one
run's count would decide the ranking of every point.
"""
from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from ..errors import UsageError
from ..servers import VARIABLE_RANGES
from ..workload.mix import MixSpec
from . import mixmodel as mm
from . import mixpages as mp
from . import scanadvice
from .dirtypages import run_args

GRID_VARIABLES = ("innodb_old_blocks_time", "innodb_old_blocks_pct")
MAX_POINTS = 16  # each is a cold server and a whole run


def parse(items, fixed: dict | None = None) -> list[dict[str, int]]:
    """--set-grid VAR=V1,V2 (repeatable) -> every combination, as {var: value} dicts; one line
    on a name the grid does not take, a value out of the server's range, a repeat, or a
    variable also given with --set."""
    values: dict[str, list[int]] = {}
    for item in items:
        name, sep, text = str(item).partition("=")
        name = name.strip().lower().replace("-", "_")
        if not sep or not name:
            raise UsageError(f"--set-grid {item!r} is not VAR=V1,V2", "e.g. --set-grid innodb_old_blocks_time=0,1000")
        if name not in GRID_VARIABLES:
            raise UsageError(f"--set-grid {name}: the grid takes {' and '.join(GRID_VARIABLES)} only",
                             "set other variables with --set VAR=VALUE (the same on every run)")
        if name in values:
            raise UsageError(f"--set-grid {name} is given twice", f"give its values once: {name}=V1,V2")
        if name in (fixed or {}):
            raise UsageError(f"{name} is in both --set and --set-grid", "give it in one of them")
        low, high = VARIABLE_RANGES[name]
        out = []
        for v in (x.strip() for x in text.split(",")):
            if not v.isdigit() or not low <= int(v) <= high:
                raise UsageError(f"--set-grid {name}={v or '(empty)'} is out of range",
                                 f"give whole numbers from {low} to {high}, comma-separated")
            if int(v) in out:
                raise UsageError(f"--set-grid {name} lists {v} twice", "give each value once")
            out.append(int(v))
        values[name] = out
    if not values:
        raise UsageError("--set-grid is empty", "e.g. --set-grid innodb_old_blocks_time=0,1000")
    names = list(values)
    points = [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]
    if len(points) < 2:
        raise UsageError("--set-grid gives one setting: nothing to rank", "give two values or more")
    if len(points) > MAX_POINTS:
        raise UsageError(f"--set-grid makes {len(points)} settings, each a cold server and a whole run",
                         f"give {MAX_POINTS} at most")
    return points


def check_workload(spec: MixSpec) -> None:
    """The grid compares what a scheduled scan does: the mix needs one, and other streams."""
    if not spec.scheduled:
        raise UsageError(f"workload {spec.source} has no scheduled scan: the grid measures what one costs",
                         'add a stream with op = "scan" and at_s = SECONDS (or every_s)')
    if not spec.mixed:
        raise UsageError(f"workload {spec.source} has only scheduled streams", "add the lookups the scan disturbs")


def without_scans(spec: MixSpec) -> MixSpec:
    """The mix without its scheduled streams: the same op sequence (keys are drawn per stream
    name, the stream of each op against the shares, which a scheduled stream has none of)."""
    return dataclasses.replace(spec, streams=tuple(s for s in spec.streams if not s.scheduled))


def scan_end_op(run: dict) -> int | None:
    """The mix's op count when the run's last scan ended (None: no scan ran)."""
    ends = [int(ex.get("ops_after") or 0) for s in ((run.get("result") or {}).get("streams") or {}).values()
            for ex in s.get("executions") or []]
    return max(ends) if ends else None


def _mixed_names(run: dict) -> list[str]:
    return [n for n, s in ((run.get("result") or {}).get("streams") or {}).items() if s.get("share") is not None]


def sample_boundary(run: dict, op: int) -> int | None:
    """The mix's op count at the first sample taken at or after mix op `op` (None: none was):
    from there on every read a sample counts is the lookups' once `op` is where the scan ended."""
    names = _mixed_names(run)
    for s in run.get("samples") or []:
        if s.get("gap") or "streams" not in s:
            continue
        now = sum(int((s.get("streams") or {}).get(n) or 0) for n in names)
        if now >= op:
            return now
    return None


def measured_after(run: dict, op: int) -> tuple[int, int]:
    """(pages read, read requests) from mix op `op` to the end of the run, from the samples
    (per-interval deltas; the sample that holds `op` counted pro rata by its ops)."""
    names = _mixed_names(run)
    reads = requests = 0.0
    before = 0
    for s in run.get("samples") or []:
        if s.get("gap") or "streams" not in s:
            continue
        now = sum(int((s.get("streams") or {}).get(n) or 0) for n in names)
        r, q = float(s.get("pages_read") or 0), float(s.get("read_requests") or 0)
        if now <= op:
            before = now
            continue
        part = 1.0 if before >= op else (now - op) / max(1, now - before)
        reads += part * r
        requests += part * q
        before = now
    return round(reads), round(requests)


def _hit(reads: int, requests: int) -> float | None:
    return 1.0 - reads / requests if requests > 0 else None


def predicted_after(run: dict, op: int) -> dict:
    """The model's lookups from op `op` on, with the run's scans where they started and without
    them: reads, references and hit ratio of each."""
    spec = mm.spec_of(run)
    tables = (run.get("dataset") or {}).get("tables") or {}
    flavor = (run.get("server") or {}).get("flavor") or "mariadb"
    done = int((run.get("result") or {}).get("ops") or spec.operations)
    space, order = mm.space_of(spec, tables, flavor, done)
    base_p, base_f = mm.build_trace(spec, space, {}, done, mm.index_columns(tables),
                                    prefetch=mm.RANGE_PREFETCH and flavor == "mariadb",
                                    stepped=mp.stepped_columns(tables)).arrays()
    scans = mm.scheduled_positions(run, spec)
    refs = {i: mp.scan_refs(space.tree_of(spec.streams[i].table, spec.streams[i].index)) for i in spec.scheduled}
    pages, flags, spans = scanadvice.splice(base_p, base_f, scans, refs)
    pool = mm.pool_of(run, spec.writes)
    leaf_pages = space.tree_of(order[0], None).all_leaves
    op_at = np.flatnonzero(base_f & mp.OP)
    at_base = int(op_at[op]) if op < len(op_at) else len(base_p)
    # the spliced trace's position of the same op: after every scan that went in at or before it
    at_scan = at_base + _shift_before(spans, at_base)
    out = {}
    dirty = run_args(pool, run) if spec.writes else (0, 0)  # MySQL's dirty tail, as the run's prediction
    for key, (p, f, at) in {"with_scan": (pages, flags, at_scan), "no_scan": (base_p, base_f, at_base)}.items():
        total, refs_total = scanadvice.trace_reads(p, f, space, pool, leaf_pages, dirty=dirty)
        pre, refs_pre = scanadvice.trace_reads(p, f, space, pool, leaf_pages, at, dirty)
        out[key] = {"reads": total - pre, "refs": refs_total - refs_pre, "hit_ratio": _hit(total - pre,
                                                                                          refs_total - refs_pre)}
        if key == "no_scan":
            out["no_scan_total"] = total
    return out


def _shift_before(spans: list[tuple[int, int]], at_base: int) -> int:
    """How far the scans spliced in before base position `at_base` moved it."""
    shift = 0
    for lo, hi in sorted(spans):
        if lo - shift <= at_base:
            shift += hi - lo
    return shift


@dataclasses.dataclass
class GridPoint:
    """One setting's run, measured and predicted (the module's docstring)."""

    setting: dict[str, int]
    result_file: str
    scan_at_op: list[int]
    scan_end_op: int | None
    qps: float | None
    pages_read: int | None  # the server's Innodb_pages_read
    pages_read_predicted: int | None
    lookup_reads_after: int | None  # from scan_end_op to the end
    lookup_hit_ratio_after: float | None
    lookup_reads_after_predicted: int | None
    lookup_hit_ratio_after_predicted: float | None
    hit_ratio_loss_pct_predicted: float | None  # the model's: with the scan less without it
    after_op: int | None = None  # where "after" starts: the first sample at or after the scan's end
    pages_read_no_scan: int | None = None  # measured, --baseline only
    pages_read_no_scan_predicted: int | None = None
    lookup_reads_after_no_scan: int | None = None  # measured, --baseline only
    hit_ratio_loss_pct: float | None = None  # measured, --baseline only

    @property
    def scan_cost(self) -> int | None:
        """Pages the scan cost in all, its own reads and the lookups' extra ones (--baseline)."""
        if self.pages_read is None or self.pages_read_no_scan is None:
            return None
        return self.pages_read - self.pages_read_no_scan

    @property
    def scan_cost_predicted(self) -> int | None:
        if self.pages_read_predicted is None or self.pages_read_no_scan_predicted is None:
            return None
        return self.pages_read_predicted - self.pages_read_no_scan_predicted

    @property
    def label(self) -> str:
        return " ".join(f"{k.replace('innodb_old_blocks_', '')}={v}" for k, v in self.setting.items())


def grid_point(run: dict, setting: dict[str, int], result_file: str, baseline: dict | None = None) -> GridPoint:
    """A setting's figures from its run's result document (and its baseline run's, if any)."""
    ex = [int(e.get("ops_before") or 0) for s in ((run.get("result") or {}).get("streams") or {}).values()
          for e in s.get("executions") or []]
    end = scan_end_op(run)
    pred = run.get("prediction") or {}
    p = GridPoint(setting, result_file, sorted(ex), end, (run.get("result") or {}).get("qps"),
                  (run.get("buffer_pool") or {}).get("pages_read"), pred.get("pages_read"),
                  None, None, None, None, None)
    if end is None or not run.get("complete"):
        return p
    p.after_op = sample_boundary(run, end)
    if p.after_op is None:
        return p
    p.lookup_reads_after, requests = measured_after(run, p.after_op)
    p.lookup_hit_ratio_after = _hit(p.lookup_reads_after, requests)
    model = predicted_after(run, p.after_op)
    p.lookup_reads_after_predicted = model["with_scan"]["reads"]
    p.lookup_hit_ratio_after_predicted = model["with_scan"]["hit_ratio"]
    if model["with_scan"]["hit_ratio"] is not None and model["no_scan"]["hit_ratio"] is not None:
        p.hit_ratio_loss_pct_predicted = 100.0 * (model["no_scan"]["hit_ratio"] - model["with_scan"]["hit_ratio"])
    p.pages_read_no_scan_predicted = model["no_scan_total"]
    if baseline is not None and baseline.get("complete"):
        p.pages_read_no_scan = (baseline.get("buffer_pool") or {}).get("pages_read")
        base_reads, base_requests = measured_after(baseline, p.after_op)
        p.lookup_reads_after_no_scan = base_reads
        base_hit = _hit(base_reads, base_requests)
        if base_hit is not None and p.lookup_hit_ratio_after is not None:
            p.hit_ratio_loss_pct = 100.0 * (base_hit - p.lookup_hit_ratio_after)
    return p


def ranking(points: list[GridPoint], key: str) -> list[int]:
    """Indexes of the points, the fewest of `key` first (None last)."""
    return sorted(range(len(points)), key=lambda i: (getattr(points[i], key) is None,
                                                     getattr(points[i], key) or 0))


def pairs_agreeing(points: list[GridPoint], a: str, b: str) -> tuple[int, int]:
    """(pairs of points ordered the same by a and by b, pairs with both known)."""
    same = total = 0
    for i, j in itertools.combinations(range(len(points)), 2):
        x = [getattr(points[k], a) for k in (i, j)]
        y = [getattr(points[k], b) for k in (i, j)]
        if None in x or None in y or x[0] == x[1] or y[0] == y[1]:
            continue
        total += 1
        same += (x[0] < x[1]) == (y[0] < y[1])
    return same, total


def advice_for(points: list[GridPoint], runs: list[dict]) -> dict | None:
    """The scan advice over the grid's settings, from the first complete run's tables, pool,
    flavour and scan position, at the runs' mean measured rate."""
    first = next((r for r in runs if r.get("complete") and scan_end_op(r) is not None), None)
    if first is None:
        return None
    spec = mm.spec_of(first)
    srv = first.get("server") or {}
    rates = [p.qps for p in points if p.qps]
    qps = sum(rates) / len(rates) if rates else 0.0
    if not qps or not math.isfinite(qps):
        return None
    spec = spec.with_overrides(operations=int((first.get("result") or {}).get("ops") or spec.operations))
    variables = dict(srv.get("variables") or {})
    current = (int(float(variables.get("innodb_old_blocks_time", scanadvice.DEFAULT_SETTING[0]))),
               int(float(variables.get("innodb_old_blocks_pct", scanadvice.DEFAULT_SETTING[1]))))
    grid = {(p.setting.get("innodb_old_blocks_time", current[0]), p.setting.get("innodb_old_blocks_pct", current[1]))
            for p in points}
    advice = scanadvice.advise(spec, (first.get("dataset") or {}).get("tables") or {},
                               int(srv.get("innodb_buffer_pool_size") or 0), qps, srv.get("flavor") or "mariadb",
                               variables, sorted({t for t, _ in grid}), sorted({p for _, p in grid}),
                               scans=mm.scheduled_positions(first, spec))
    # the advice's own grid adds the server's current setting: rank the grid's points only
    mine = [q for q in advice["points"] if (q.old_blocks_time_ms, q.old_blocks_pct) in grid]
    best = scanadvice.rank(mine)[0] if mine else None
    return {"qps": qps, "best": best, "points": mine}


def summary(points: list[GridPoint], advice: dict | None) -> dict:
    """The rankings and whether they agree (measured total pages read, the runs' predictions,
    the advice)."""
    by_measured = ranking(points, "pages_read")
    by_predicted = ranking(points, "pages_read_predicted")
    same, total = pairs_agreeing(points, "pages_read", "pages_read_predicted")
    out = {"measured_best": points[by_measured[0]].setting, "predicted_best": points[by_predicted[0]].setting,
           "rank_measured": [by_measured.index(i) + 1 for i in range(len(points))],
           "rank_predicted": [by_predicted.index(i) + 1 for i in range(len(points))],
           "pairs_agreeing": same, "pairs": total, "advised": None, "advice_agrees": None}
    if advice and advice.get("best") is not None:
        b = advice["best"]
        advised = {k: v for k, v in (("innodb_old_blocks_time", b.old_blocks_time_ms),
                                     ("innodb_old_blocks_pct", b.old_blocks_pct)) if k in points[0].setting}
        out["advised"] = advised
        out["advice_agrees"] = advised == {k: v for k, v in out["measured_best"].items() if k in advised}
    return out


def run(server_spec, spec: MixSpec, grid: list[dict[str, int]], out_dir, database: str = "chat", data_seed: int = 1,
        sample_interval_s: float = 1.0, reporter=None, driver: str = "auto", baseline: bool = False) -> dict:
    """Each setting's run (and its baseline without the scans), each from its own cold server;
    the points, the advice over them and the rankings."""
    from pathlib import Path

    from ..runner import mix as mixrun

    check_workload(spec)
    points, runs = [], []
    for setting in grid:
        tag = "-".join(f"{k.replace('innodb_old_blocks_', '')}{v}" for k, v in setting.items())
        server = dataclasses.replace(server_spec, options={**server_spec.options,
                                                           **{k: str(v) for k, v in setting.items()}})
        out = Path(out_dir) / f"grid-{tag}.json"
        if reporter is not None:
            reporter.say(f"setting {tag}: {out}")
        result = mixrun.run(server, spec, out, database=database, data_seed=data_seed,
                            sample_interval_s=sample_interval_s, reporter=reporter, driver=driver,
                            predict=mm.predict).to_dict()
        base = None
        if baseline:
            base_out = Path(out_dir) / f"grid-{tag}-no-scan.json"
            base = mixrun.run(server, without_scans(spec), base_out, database=database, data_seed=data_seed,
                              sample_interval_s=sample_interval_s, reporter=reporter, driver=driver,
                              predict=None).to_dict()
        runs.append(result)
        points.append(grid_point(result, setting, str(out), base))
    advice = advice_for(points, runs)
    return {"kind": "set-grid", "workload": spec.source, "points": points, "advice": advice,
            "summary": summary(points, advice)}


def to_dict(grid: dict) -> dict:
    """The grid as JSON-ready data."""
    advice = grid.get("advice")
    return {**grid, "points": [dataclasses.asdict(p) for p in grid["points"]],
            "advice": None if advice is None else {
                "qps": advice["qps"], "best": dataclasses.asdict(advice["best"]) if advice["best"] else None,
                "points": [{**dataclasses.asdict(q), "extra_reads": q.extra_reads,
                            "hit_ratio_loss_pct": q.hit_ratio_loss_pct} for q in advice["points"]]}}

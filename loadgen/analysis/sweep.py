"""Sweep pool sizes: measure each (pool, order) on one seeded dataset, each run from a cold pool,
put the model's prediction beside every point, and recommend a pool size per order.

The recommendation is the smallest pool whose measured miss ratio is within `tolerance_pct` of
the best miss ratio the sweep saw for that order: beyond it, memory buys (almost) nothing.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from . import model
from .predict import forecast_workload, predict, uses_workload_model
from ..seeding.dataset import EST_BYTES_PER_ROW, DatasetSpec
from ..errors import UsageError
from ..workload.orders import Workload, workload_from_dict
from ..paths import free_bytes
from .. import numfmt as nf
from ..results.documents import RunResult, SweepResult, now_iso
from ..results.files import write_json_atomic
from ..servers import ServerSpec
from ..units import format_bytes

EST_QPS = 10_000.0  # the slow end of what this Python driver reaches; estimates stay pessimistic
EST_RESTART_S = 6.0  # a cold restart of a local mariadbd


def knee_pools(rows: int, schema: str, variations: list, shape: dict, lo: int = 8 << 20, hi: int = 16 << 30,
               per_knee: tuple = (0.5, 1.0, 2.0)) -> tuple[list[int], dict]:
    """`--pools auto`: the few pools worth measuring, from the predicted curve of each order.

    Each order's curve (miniatures, loadgen/analysis/curve.py) is predicted from lo to hi on the table's
    estimated geometry; around its knee (advise.knee_index) the pools at half, at and twice the
    knee are measured; an order without a knee contributes the smallest pool. Returns the pools
    (8 MiB multiples) and, per order, the knee found (None without one)."""
    from . import advise, curve, model

    g = model.estimate_geometry(rows, schema)
    grid = sorted({int(lo * (hi / lo) ** (i / 23)) >> 23 << 23 for i in range(24)})
    picked, knees = set(), {}
    for order, var in variations:
        if not uses_workload_model(order):
            continue
        models = [model.pool_model(b) for b in grid]
        est = curve.estimate(curve.workload_source(order, int(shape["stride"]), int(shape["reps"]), g,
                                                   models[0].ra_threshold), models)
        k, _ = advise.knee_index(grid, [e.reads for e in est])
        knees[var or order] = grid[k] if k is not None else None
        if k is None:
            picked.add(grid[0])
            continue
        for f in per_knee:
            picked.add(max(lo, int(grid[k] * f) >> 23 << 23))
    if not picked:
        raise UsageError("--pools auto needs an order the model handles (interleaved, looped, sequential)",
                         "give the pools, e.g. --pools 8M,16M,32M")
    return sorted(picked), knees


@dataclass
class SweepBudget:
    """What a sweep will cost, estimated before it starts (check_budget)."""

    runs: int
    queries: int
    seconds: float
    seed_bytes: int


def budget(pools: list[int], variations: list, rows: int, shape: dict) -> SweepBudget:
    queries_each = [Workload(order, rows, variation=var, **shape).queries for order, var in variations]
    runs = len(pools) * len(variations)
    queries = len(pools) * sum(queries_each)
    return SweepBudget(runs, queries, queries / EST_QPS + runs * EST_RESTART_S, rows * EST_BYTES_PER_ROW)


def check_budget(est: SweepBudget, max_time_s: float, room_bytes: int | None) -> None:
    """Refuse, before anything starts, a sweep larger than the time or disk allows."""
    if est.seconds > max_time_s:
        raise UsageError(
            f"the sweep needs about {est.seconds / 60:,.0f} min ({est.runs} runs, {est.queries:,} queries at "
            f"~{EST_QPS:,.0f}/s), more than --max-time {max_time_s / 60:,.0f} min",
            "use fewer --pools, fewer --rows or a larger --stride, or raise --max-time",
        )
    if room_bytes is not None and est.seed_bytes > room_bytes:
        raise UsageError(
            f"the dataset needs about {format_bytes(est.seed_bytes)} of disk, only {format_bytes(room_bytes)} free",
            "use fewer --rows or set LOADGEN_CACHE_DIR to a larger disk",
        )


def recommend(points: list[dict], tolerance_pct: float) -> dict:
    """Per order: the smallest pool within tolerance of the best measured miss ratio, and why."""
    out = {}
    for key in sorted({p["variation"] for p in points}):
        # A point that started warm read fewer pages than its pool makes a cold start read: it
        # would win for the wrong reason (0 pages read at 16M on a dsn server, where the shrink
        # had kept the whole table), so it is left out and named.
        warm = [p for p in points if p["variation"] == key and p.get("started_cold") is False]
        mine = sorted((p for p in points if p["variation"] == key and p.get("miss_ratio") is not None
                       and p.get("started_cold") is not False), key=lambda p: p["pool_bytes"])
        if not mine:  # nothing to recommend from (each run said it started warm)
            continue
        best = min(p["miss_ratio"] for p in mine)
        bound = best * (1 + tolerance_pct / 100)
        pick = next(p for p in mine if p["miss_ratio"] <= bound + 1e-12)
        best_pool = min((p for p in mine if p["miss_ratio"] == best), key=lambda p: p["pool_bytes"])
        reason = (f"best miss ratio {nf.pct(best)} (at {format_bytes(best_pool['pool_bytes'])}); "
                  f"{format_bytes(pick['pool_bytes'])} is the smallest pool within {tolerance_pct:g}% of it "
                  f"({nf.pct(pick['miss_ratio'])})")
        smaller = [p for p in mine if p["pool_bytes"] < pick["pool_bytes"]]
        if smaller:
            s = smaller[-1]
            reason += (f"; {format_bytes(s['pool_bytes'])} misses {nf.pct(s['miss_ratio'])}, "
                       f"{nf.change((s['miss_ratio'] / best - 1) * 100 if best else None)} against the best")
        if pick["pool_bytes"] == mine[-1]["pool_bytes"] and len(mine) > 1 and mine[-2]["miss_ratio"] > bound:
            reason += "; the largest pool swept was needed: a larger one may still help, extend --pools"
        if warm:
            reason += ("; left out, as they started warm: "
                       + ", ".join(format_bytes(p["pool_bytes"]) for p in warm))
        out[key] = {"pool_bytes": pick["pool_bytes"], "miss_ratio": pick["miss_ratio"], "best_miss_ratio": best,
                    "tolerance_pct": tolerance_pct, "reason": reason}
    return out


def sweep_point(result: RunResult, path: Path) -> dict:
    bp = result.buffer_pool
    pred = result.prediction.to_dict() if result.prediction else {}
    return {
        "variation": result.key,
        "order": result.workload.get("order"),
        "pool_bytes": result.pool_bytes,
        "pages_total": bp.get("pages_total"),
        "pages_read": result.headline()[0],  # the headline: pages read into the pool
        "demand_reads": bp.get("demand_reads"),
        "reads": bp.get("reads"),  # Innodb_buffer_pool_reads as the server counts it
        "read_requests": bp.get("read_requests"),
        "read_ahead": bp.get("read_ahead"),
        "miss_ratio": bp.get("miss_ratio"),
        "hit_ratio": bp.get("hit_ratio"),
        "qps": result.result.get("qps"),
        "predicted_reads": pred.get("reads"),
        "predicted_low": pred.get("reads_low"),  # how far the prediction can be off (analysis/intervals.py)
        "predicted_high": pred.get("reads_high"),
        "plain_lru_reads": pred.get("plain_lru_reads"),
        "error_pct": pred.get("error_pct"),
        # cold: what the pool held before the run said (runner/single.py verify_cold); started_cold: cold,
        # or so nearly that the reads are a cold start's (model.started_cold_enough)
        "cold": (result.server.get("cold_start") or {}).get("cold"),
        "started_cold": model.started_cold_enough(result),
        "result_file": str(path),
    }


def run(server_spec: ServerSpec, dataset_spec: DatasetSpec, pools: list[int], variations: list, shape: dict,
        out_dir: Path, out: Path, tolerance_pct: float, sample_interval_s: float = 1.0, reporter=None,
        curve_pools: list[int] | None = None, drive: dict | None = None) -> SweepResult:
    """Measure every (pool, variation) from a cold pool on one dataset (the runner's loop,
    runner/single.py run_pools); write and return the sweep with the model's curves and the recommendation."""
    from ..runner import single
    from ..results.files import default_path

    def out_for(pool: int | None, w: Workload) -> Path:
        return default_path(out_dir, f"sweep-{format_bytes(pool or 0).replace(' ', '')}-{w.variation or w.order}")

    started_at = now_iso()
    workloads = [Workload(order, dataset_spec.rows, variation=var, **shape) for order, var in variations]
    runs = single.run_pools(server_spec, dataset_spec, pools, workloads, out_for, sample_interval_s, reporter,
                            predict=predict, **(drive or {}))
    points = [sweep_point(r, r.source) for r in runs]
    sweep = SweepResult(
        started_at=started_at,
        finished_at=now_iso(),
        dataset=runs[0].dataset.to_dict() if runs else {},
        workload={"stride": shape["stride"], "reps": shape["reps"]},
        server={k: runs[0].server.get(k) for k in ("provider", "flavor", "version", "variables")} if runs else {},
        pools=pools,
        tolerance_pct=tolerance_pct,
        points=points,
        curves=curves_for(runs, curve_pools or pools),
        recommendation=recommend(points, tolerance_pct),
    )
    write_json_atomic(out, sweep)
    return sweep


def dense_pools(pools: list[int], points: int = 20) -> list[int]:
    """The measured pools plus a geometric grid from half the smallest to twice the largest: the
    miniatures make a dense curve cheap (loadgen/analysis/curve.py)."""
    lo, hi = max(4 << 20, min(pools) // 2), max(pools) * 2
    grid = {int(lo * (hi / lo) ** (i / (points - 1))) >> 20 << 20 for i in range(points)}
    return sorted(set(pools) | grid)


def curves_for(runs: list[RunResult], pools: list[int]) -> dict:
    """The model's miss-ratio curve (InnoDB LRU and plain LRU) per variation, at the sweep's timing."""
    out = {}
    for r in runs:
        if r.key in out:
            continue
        g = model.geometry_of(r.dataset)
        w = workload_from_dict(r.workload, g.rows)
        if w is None:  # a trace whose file is gone
            continue
        fc = forecast_workload(w, g, pools[0], r.server.get("variables"), r.server.get("flavor") or "mariadb",
                               float(r.result.get("qps") or model.DEFAULT_QPS), curve_pools=dense_pools(pools))
        out[r.key] = [dataclasses.asdict(p) for p in fc.curve]
    return out


def free_room(server_spec: ServerSpec) -> int | None:
    from ..paths import cache_dir

    try:
        return free_bytes(cache_dir())
    except Exception:  # noqa: BLE001 - no estimate is better than a crash here
        return None

"""Pool advice in the shape of Oracle's V$DB_CACHE_ADVICE, from the InnoDB model's curve.

For a workload and a current pool: size factors 0.25x..4x, the pool the server would actually
run (rounded up to innodb_buffer_pool_chunk_size x instances, never above the memory given),
estimated pages read, read factor against the current size, estimated read time, the knee of
the curve, and what one more GiB buys in words. Data only; the tables are rendered in
report.py (tables) and plots.py.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from . import curve, model
from ..errors import UsageError
from ..units import format_bytes

FACTORS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0)
MIB, GIB = 1 << 20, 1 << 30
DEFAULT_MS_PER_READ = 0.1  # a local SSD's random 16 KiB read; give --ms-per-read or a run result
KNEE_POINTS = 12


@dataclass
class AdviceRow:
    factor: float
    pool_bytes: int
    reads: int
    reads_se: float
    read_factor: float
    read_time_s: float
    exact: bool


@dataclass
class Advice:
    order: str
    queries: int
    current_bytes: int
    ram_bytes: int
    unit_bytes: int  # chunk x instances
    ms_per_read: float
    ms_per_read_source: str
    rows: list[AdviceRow] = field(default_factory=list)
    knee_bytes: int | None = None
    knee_reads: int | None = None
    knee_note: str = ""
    marginal: str = ""
    dropped: list[float] = field(default_factory=list)  # factors above the memory limit
    curve: list[tuple[int, int, float]] = field(default_factory=list)  # (bytes, reads, se) for plots
    knee_how: str = ""
    estimates: dict = field(default_factory=dict)  # pool bytes -> curve.Estimate, every pool simulated
    # advise() also sets plain_lru_hist: the workload's plain-LRU stack histogram (an array of
    # uint64, from the same pass), an attribute and not a field, so asdict() and JSON leave it out


def mem_available_bytes(path: str = "/proc/meminfo") -> int | None:
    """MemAvailable from /proc/meminfo, in bytes (None where there is no such file)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def pool_unit(flavor: str, pool_bytes: int, chunk_bytes: int | None = None, instances: int | None = None) -> int:
    """What innodb_buffer_pool_size is rounded to: chunk x instances.

    MariaDB 10.11.12+ has no chunks (8 MiB extents); MySQL 8.4 has 128 MiB chunks and, above
    1 GiB, min(pool / chunk / 2, CPUs / 4) instances within 1..64 (research/innodb.md 2.2).
    """
    if flavor == "mariadb":
        chunk = chunk_bytes or 8 * MIB
        n = instances or 1
    else:
        chunk = chunk_bytes or 128 * MIB
        if instances:
            n = instances
        elif pool_bytes <= GIB:
            n = 1
        else:
            n = max(1, min(64, pool_bytes // chunk // 2, (os.cpu_count() or 4) // 4))
    return chunk * n


def round_pool(pool_bytes: float, unit: int, limit: int | None) -> int | None:
    """Up to a multiple of unit, as the server does; None where that passes the memory limit."""
    up = max(unit, math.ceil(pool_bytes / unit) * unit)
    return int(up) if limit is None or up <= limit else None


def knee_index(xs: list[float], ys: list[float], within: float = 0.05) -> tuple[int | None, str]:
    """The knee of a miss-ratio curve on log2(pool), and how it was found.

    A convex curve (reads fall fast, then flatten) has its knee where it lies farthest below the
    chord from the first to the last point (Kneedle, reads normalised to 0..1). A cliff (flat,
    then a drop when the table fits, as the looped order gives) lies above that chord: its knee
    is the smallest pool within `within` of the fewest reads, where the cliff ends.
    """
    if len(xs) < 3:
        return None, "too few points"
    y0, y1 = max(ys), min(ys)
    if y0 - y1 <= 0.01 * y0:
        return None, "flat"
    lx = [math.log2(x) for x in xs]
    nx = [(x - lx[0]) / (lx[-1] - lx[0]) for x in lx]
    ny = [(y - y1) / (y0 - y1) for y in ys]
    gaps = [(ny[0] + (ny[-1] - ny[0]) * x) - y for x, y in zip(nx, ny)]
    i = max(range(len(gaps)), key=lambda k: gaps[k])
    if gaps[i] > 0.05:
        return i, "where the curve bends most (Kneedle)"
    i = next(k for k, y in enumerate(ys) if y <= y1 * (1 + within))
    return i, f"where the drop ends: the smallest pool within {within:.0%} of the fewest reads"


def fit_bytes(g: model.Geometry, flavor: str, lru_scan_depth: int) -> int:
    """The smallest pool whose data pages hold every page of the table (8 MiB steps)."""
    need = g.n_pages + round(model.RESERVE_PER_SCAN_DEPTH * lru_scan_depth)
    per = 507 if flavor == "mariadb" else 512
    return -(-need // per) * 8 * MIB


def ms_per_read_from(result: dict) -> float | None:
    """Milliseconds one page read into the pool adds, from a run result: the mean latency above
    the median (a hit), times queries, over pages read (the quantity the estimates count; on
    MySQL Innodb_buffer_pool_reads leaves read-ahead out)."""
    lat = (result.get("result") or {}).get("latency_us") or {}
    queries = (result.get("result") or {}).get("queries")
    bp = result.get("buffer_pool") or {}
    reads = bp.get("pages_read") if bp.get("pages_read") is not None else bp.get("reads")
    if not lat.get("mean") or lat.get("p50") is None or not queries or not reads:
        return None
    extra_us = (lat["mean"] - lat["p50"]) * queries / reads
    return extra_us / 1000 if extra_us > 0 else None


def advise(order: str, stride: int, reps: int, g: model.Geometry, current_bytes: int, *,
           variables: dict | None = None, flavor: str = "mariadb", qps: float = model.DEFAULT_QPS,
           ram_bytes: int | None = None, ms_per_read: float | None = None, ms_source: str = "",
           chunk_bytes: int | None = None, instances: int | None = None, salt: int = 0,
           exact: bool = False, extra_pools: list[int] | None = None) -> Advice:
    """The advice table for one order; extra_pools are simulated in the same pass (for a curve
    printed beside it) and returned in Advice.estimates."""
    v = {**model.DEFAULTS, **(variables or {})}
    ram = ram_bytes or mem_available_bytes() or 0
    if not ram:
        raise UsageError("no MemAvailable in /proc/meminfo here", "give the target host's memory with --ram, e.g. --ram 16G")
    unit = pool_unit(flavor, current_bytes, chunk_bytes, instances)
    queries = model.queries_of(order, g.rows, stride, reps)
    adv = Advice(order, queries, current_bytes, ram, unit, ms_per_read or DEFAULT_MS_PER_READ,
                 ms_source or ("given" if ms_per_read else "assumed for a local SSD; give --ms-per-read or --result"))
    table: list[tuple[float, int]] = []
    for f in FACTORS:
        if f == 1.0:
            table.append((f, current_bytes))  # the current pool as it is, even if above the limit
            continue
        b = round_pool(f * current_bytes, pool_unit(flavor, int(f * current_bytes), chunk_bytes, instances), ram)
        if b is None or (f > 1 and b <= current_bytes) or (f < 1 and b >= current_bytes):
            adv.dropped.append(f)
        elif all(b != t for _, t in table):
            table.append((f, b))
    hi = min(ram, max(4 * current_bytes, fit_bytes(g, flavor, int(v["innodb_lru_scan_depth"])) * 5 // 4))
    lo = max(8 * MIB, current_bytes // 4)
    grid = sorted({max(lo, int(lo * (hi / lo) ** (i / (KNEE_POINTS - 1))) // MIB * MIB) for i in range(KNEE_POINTS)}) \
        if hi > lo else []
    plus = current_bytes + GIB
    fit = fit_bytes(g, flavor, int(v["innodb_lru_scan_depth"]))
    given = {b for _, b in table} | ({plus} if plus <= ram else set()) | set(extra_pools or [])
    if len(grid) > 1:
        # a grid point next to a pool simulated anyway (within half a grid step) adds nothing to
        # finding the knee, and a simulation costs
        half = math.log2(grid[1] / grid[0]) / 2
        grid = [x for x in grid if not any(lo <= b <= hi and abs(math.log2(b / x)) < half for b in given)]
    if lo < fit < hi:
        grid.append(fit)  # where a cliff ends
    pools = sorted(given | set(grid))
    models = [model.pool_model(b, variables, flavor, qps) for b in pools]
    src = curve.workload_source(order, stride, reps, g, models[0].ra_threshold)
    est, hist = curve.estimate_and_plain_lru(src, models, salt=salt, exact=exact,
                                             exact_at={pools.index(current_bytes)})
    adv.plain_lru_hist = hist
    by = dict(zip(pools, est))
    adv.estimates = by
    base = by[current_bytes].reads
    for f, b in sorted(table):
        e = by[b]
        adv.rows.append(AdviceRow(f, b, e.reads, e.reads_se, e.reads / base if base else 0.0,
                                  e.reads * adv.ms_per_read / 1000, e.exact))
    adv.curve = [(b, by[b].reads, by[b].reads_se) for b in pools]
    gx = [b for b in pools if lo <= b <= hi]
    k, how = knee_index(gx, [by[b].reads for b in gx])
    if k is not None:
        adv.knee_bytes, adv.knee_reads, adv.knee_how = gx[k], by[gx[k]].reads, how
        adv.knee_note = (f"knee at {format_bytes(gx[k])}: {by[gx[k]].reads:,} reads "
                         f"({by[gx[k]].reads / base:.2f}x the current), {how}")
    else:
        adv.knee_note = (f"no knee between {format_bytes(lo)} and {format_bytes(hi)}: the curve is {how} there "
                         "(more memory changes reads by under 1%)" if how == "flat" else f"no knee: {how}")
    if plus in by and queries:
        saved = base - by[plus].reads
        adv.marginal = (f"+1 GiB (to {format_bytes(plus)}) saves {saved / queries * 1000:,.2f} reads per 1k queries "
                        f"({-saved / base * 100 if base else 0:+.1f}% reads, "
                        f"{saved * adv.ms_per_read / 1000:,.1f} s of reads over the run)")
    else:
        adv.marginal = f"+1 GiB does not fit in the {format_bytes(ram)} given"
    return adv

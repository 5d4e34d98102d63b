"""Pool advice in the shape of Oracle's V$DB_CACHE_ADVICE, from the InnoDB model's curve.

For a workload and a current pool: size factors 0.25x..4x and on, in doublings, to where more
memory stops paying, the pool the server would actually run (rounded up to
innodb_buffer_pool_chunk_size x instances, never above the memory given), estimated pages read
(held monotonic: a larger pool never reads more), read factor against the current size,
estimated read time, the knee of the curve, what one more GiB buys, and the verdict in one
sentence: "set innodb_buffer_pool_size = X (reads -Y%); beyond Z nothing is gained", with the
server rules the model assumed. Data only; the tables are rendered in report.py (tables) and
plots.py.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

from . import curve, intervals, model, scaled
from .. import numfmt as nf
from ..errors import UsageError
from ..units import format_bytes

FACTORS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0)
MIB, GIB = 1 << 20, 1 << 30
DEFAULT_MS_PER_READ = 0.1  # a local SSD's random 16 KiB read; give --ms-per-read or a run result
KNEE_POINTS = 12
# "Nothing is gained" beyond the smallest pool whose reads are within this of the fewest
SATURATION = 0.01

# What the model assumes of each server (pool.py, docs/innodb.md), said under every advice table
FLAVOR_RULES = {
    "mariadb": "MariaDB 10.11's InnoDB (--flavor mariadb; --flavor mysql for MySQL 8.0-9.x): the pool in 8 MiB "
               "extents of 507 usable pages, the page cleaner keeping ~3/4 of innodb_lru_scan_depth free, "
               "linear read-ahead checked on a step to the next leaf",
    "mysql": "MySQL 8.0-9.x's InnoDB (--flavor mysql; --flavor mariadb for MariaDB 10.11): 128 MiB chunks, "
             "~960 pages held from start-up, one timed page-cleaner batch, linear read-ahead checked on every "
             "page's first access",
}


@dataclass
class AdviceRow:
    factor: float
    pool_bytes: int
    reads: int  # the estimate, held monotonic over the pools (see smooth())
    reads_se: float  # the miniature's standard error (0: simulated exactly)
    read_factor: float
    read_time_s: float
    exact: bool
    model_reads: int = 0  # what the simulation gave before smoothing
    marks: list[str] = field(default_factory=list)  # current, knee, saturation
    # how far the estimate can be off (analysis/intervals.py): reads_low <= reads <= reads_high
    reads_low: int | None = None
    reads_high: int | None = None


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
    merged: list[float] = field(default_factory=list)  # factors that round to the pool of another row
    curve: list[tuple[int, int, float]] = field(default_factory=list)  # (bytes, reads, se) for plots
    knee_how: str = ""
    flavor: str = "mariadb"
    assumptions: str = ""  # the server rules and variables the estimates assume, in words
    saturation_bytes: int | None = None  # beyond it, reads fall by under SATURATION
    recommended_bytes: int | None = None
    recommended_change_pct: float | None = None  # reads at the recommended pool vs the current, in percent
    verdict: str = ""  # "set innodb_buffer_pool_size = X (reads -Y%); beyond Z nothing is gained"
    smoothed: list[tuple[int, int, float]] = field(default_factory=list)  # (pool, simulated reads, se) held up
    estimates: dict = field(default_factory=dict)  # pool bytes -> curve.Estimate, every pool simulated
    # the workload's plain-LRU stack histogram (an array of uint64, from the same pass), which a
    # forecast reuses; render.report.advice_dict leaves it out of the JSON
    plain_lru_hist: Any = field(default=None, repr=False, compare=False)


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
    1 GiB, min(pool / chunk / 2, CPUs / 4) instances within 1..64 (docs/innodb.md, "Pool sizes").
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


def smooth(reads: list[float], se: list[float]) -> list[float]:
    """The closest non-increasing sequence to reads (ordered by pool size), weighted by each
    estimate's precision: pool-adjacent violators. A larger pool never reads more; a miniature's
    dip below a larger pool's exact count is its sampling error (32 MiB read 64,853 +- 773 beside
    96 MiB's exact 65,382), and the exact points, weighted most, hold the line."""
    blocks: list[list[float]] = []  # [weighted mean, weight, count]
    for r, s in zip(reads, se):
        blocks.append([float(r), 1.0 / max(float(s), 1.0) ** 2, 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return [m for m, _, n in blocks for _ in range(n)]


def assumptions_text(flavor: str, variables: dict, qps: float) -> str:
    v = {**model.DEFAULTS, **(model.MYSQL_DEFAULTS if flavor == "mysql" else {}), **(variables or {})}
    return (f"assumes {FLAVOR_RULES[flavor]}; innodb_old_blocks_pct {v['innodb_old_blocks_pct']}, "
            f"innodb_old_blocks_time {v['innodb_old_blocks_time']} ms at {qps:,.0f} queries/s, "
            f"innodb_lru_scan_depth {v['innodb_lru_scan_depth']}, innodb_read_ahead_threshold "
            f"{v['innodb_read_ahead_threshold']}; each run from a cold pool")


def ms_per_read_from(result) -> float | None:
    """Milliseconds one page read into the pool adds, from a run result (a RunResult): the mean
    latency above the median (a hit), times queries, over pages read (its headline, the quantity
    the estimates count; on MySQL Innodb_buffer_pool_reads leaves read-ahead out)."""
    lat = result.result.get("latency_us") or {}
    queries = result.result.get("queries")
    reads, _ = result.headline()
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
        raise UsageError("no MemAvailable in /proc/meminfo here",
                         "give the target host's memory with --ram, e.g. --ram 16G")
    unit = pool_unit(flavor, current_bytes, chunk_bytes, instances)
    queries = model.queries_of(order, g.rows, stride, reps)
    adv = Advice(order, queries, current_bytes, ram, unit, ms_per_read or DEFAULT_MS_PER_READ,
                 ms_source or ("given" if ms_per_read else "assumed for a local SSD; give --ms-per-read or --result"),
                 flavor=flavor, assumptions=assumptions_text(flavor, variables or {}, qps))
    hi = min(ram, max(4 * current_bytes, fit_bytes(g, flavor, int(v["innodb_lru_scan_depth"])) * 5 // 4))
    factors = list(FACTORS)
    # past 4x, doublings up to where the knee search ends (the table fits): the knee and the point
    # where nothing more is gained are rows of the table, not only words under it
    while factors[-1] * 2 * current_bytes <= hi:
        factors.append(factors[-1] * 2)
    table: list[tuple[float, int]] = []
    for f in factors:
        if f == 1.0:
            table.append((f, current_bytes))  # the current pool as it is, even if above the limit
            continue
        b = round_pool(f * current_bytes, pool_unit(flavor, int(f * current_bytes), chunk_bytes, instances), ram)
        if b is None:
            adv.dropped.append(f)
        elif (f > 1 and b <= current_bytes) or (f < 1 and b >= current_bytes) or any(b == t for _, t in table):
            adv.merged.append(f)  # rounded to the current pool or another row's
        else:
            table.append((b / current_bytes, b))  # the factor of the pool the server would run
    lo = max(8 * MIB, current_bytes // 4)

    def settable(b: float) -> int:
        # the knee and the saturation point are pools a DBA can set: rounded as the server would
        # (down, where up would pass the end of the search)
        unit_b = pool_unit(flavor, int(b), chunk_bytes, instances)
        up = round_pool(b, unit_b, None)
        return up if up <= hi or b < unit_b else int(b // unit_b * unit_b)

    grid = sorted({settable(max(lo, lo * (hi / lo) ** (i / (KNEE_POINTS - 1)))) for i in range(KNEE_POINTS)}) \
        if hi > lo else []
    plus = current_bytes + GIB
    fit = settable(fit_bytes(g, flavor, int(v["innodb_lru_scan_depth"])))
    given = {b for _, b in table} | ({plus} if plus <= ram else set()) | set(extra_pools or [])
    if len(grid) > 1:
        # a grid point next to a pool simulated anyway (within half a grid step) adds nothing to
        # finding the knee, and a simulation costs
        half = math.log2(grid[-1] / grid[0]) / (KNEE_POINTS - 1) / 2
        grid = [x for x in grid if not any(lo <= b <= hi and abs(math.log2(b / x)) < half for b in given)]
    if lo < fit <= hi:
        grid.append(fit)  # where a cliff ends
    pools = sorted(given | set(grid))
    models = [model.pool_model(b, variables, flavor, qps) for b in pools]
    if scaled.is_large(g):  # simulated on a scaled copy (scaled.py): no histogram of the whole table
        scaled.refuse_exact(g, exact)
        est, hist = scaled.estimates(order, stride, reps, g, models), None
    else:
        src = curve.workload_source(order, stride, reps, g, models[0].ra_threshold)
        est, hist = curve.estimate_and_plain_lru(src, models, salt=salt, exact=exact,
                                                 exact_at={pools.index(current_bytes)})
    adv.plain_lru_hist = hist
    by = dict(zip(pools, est))
    adv.estimates = by
    held = dict(zip(pools, (round(x) for x in smooth([e.reads for e in est], [e.reads_se for e in est]))))
    # said under the table where the held value differs from the simulated one visibly (0.1%)
    adv.smoothed = [(b, by[b].reads, by[b].reads_se) for b in pools
                    if abs(held[b] - by[b].reads) > 0.001 * by[b].reads and b in {t for _, t in table}]
    base = held[current_bytes]
    adv.curve = [(b, by[b].reads, by[b].reads_se) for b in pools]
    gx = [b for b in pools if lo <= b <= hi]
    k, how = knee_index(gx, [held[b] for b in gx])
    if k is not None:
        adv.knee_bytes, adv.knee_reads, adv.knee_how = gx[k], held[gx[k]], how
        adv.knee_note = (f"knee at {format_bytes(gx[k])}: {nf.count(held[gx[k]])} reads "
                         f"({nf.times(held[gx[k]] / base if base else None)} the current), {how}")
    else:
        adv.knee_note = (f"no knee between {format_bytes(lo)} and {format_bytes(hi)}: the curve is {how} there "
                         "(more memory changes reads by under 1%)" if how == "flat" else f"no knee: {how}")
    _verdict(adv, gx, held, hi < fit_bytes(g, flavor, int(v["innodb_lru_scan_depth"])) * 5 // 4)
    extra = [b for b in dict.fromkeys((adv.knee_bytes, adv.saturation_bytes)) if b and b not in {t for _, t in table}]
    for f, b in table + [(b / current_bytes, b) for b in extra]:
        e = by[b]
        marks = [m for m, at in (("current", current_bytes), ("knee", adv.knee_bytes),
                                 ("nothing gained beyond", adv.saturation_bytes)) if at == b]
        low, high = intervals.for_pool(held[b], models[pools.index(b)], se=e.reads_se, hist=hist)
        adv.rows.append(AdviceRow(f, b, held[b], e.reads_se, held[b] / base if base else 0.0,
                                  held[b] * adv.ms_per_read / 1000, e.exact, e.reads, marks, low, high))
    adv.rows.sort(key=lambda r: r.pool_bytes)
    if plus in by and queries:
        saved = base - held[plus]
        adv.marginal = (f"+1 GiB (to {format_bytes(plus)}) saves {nf.number(saved / queries * 1000)} reads per 1k "
                        f"queries ({nf.change(-saved / base * 100 if base else 0)} reads, "
                        f"{nf.seconds(saved * adv.ms_per_read / 1000)} of reads over the run)")
    else:
        adv.marginal = f"+1 GiB does not fit in the {format_bytes(ram)} given"
    return adv


def widen_current(adv: Advice, at) -> None:
    """The current pool's row takes the forecast's interval where that is wider (`predict --advise`):
    the forecast places MySQL's timed cleaner batch with its no-batch .. two range, the advice's
    estimates do not, and one pool should not read two ways in one output."""
    if at.reads_low is None or at.reads_high is None:
        return
    for r in adv.rows:
        if r.pool_bytes == adv.current_bytes and r.reads_low is not None:
            r.reads_low, r.reads_high = min(r.reads_low, at.reads_low), max(r.reads_high, at.reads_high)


def _verdict(adv: Advice, pools: list[int], reads: dict, capped: bool) -> None:
    """What to do, in one sentence: grow to the knee when it lies above the current pool, else
    keep the current one; and the pool beyond which reads fall by under SATURATION."""
    if not pools:
        adv.verdict = (f"keep innodb_buffer_pool_size = {format_bytes(adv.current_bytes)}: "
                       "no other pool fits in the memory given")
        return
    fewest = min(reads[b] for b in pools)
    adv.saturation_bytes = next(b for b in pools if reads[b] <= fewest * (1 + SATURATION))
    base = reads[adv.current_bytes]
    if adv.knee_bytes and adv.knee_bytes > adv.current_bytes:
        x = adv.knee_bytes
    elif adv.saturation_bytes > adv.current_bytes and adv.knee_bytes is None:
        x = adv.saturation_bytes  # a curve without a bend that still falls: its end
    else:
        x = adv.current_bytes
    adv.recommended_bytes = x
    adv.recommended_change_pct = round((reads[x] / base - 1) * 100, 2) if base else 0.0
    verb = "set" if x != adv.current_bytes else "keep"
    z = adv.saturation_bytes
    # the search ended at the memory given, not where the table fits: the last pool may still gain
    end = (f"reads still fall at {format_bytes(z)}, the most the {format_bytes(adv.ram_bytes)} of memory allows"
           if capped and z == pools[-1] and len(pools) > 1 else f"beyond {format_bytes(z)} nothing is gained")
    adv.verdict = (f"{verb} innodb_buffer_pool_size = {format_bytes(x)} "
                   f"(reads {nf.change(adv.recommended_change_pct)}); {end}")

"""What a scheduled full scan does to a mix's other streams, and the LRU setting that protects them
(issue #21 item 5; `loadgen advise --workload FILE`).

For each point of a grid of innodb_old_blocks_time x innodb_old_blocks_pct the mix model
(mixmodel.py: its op -> page references and the kernel's InnoDB LRU) runs the mix twice: as
declared, and without its scheduled streams. The lookups' pages read are the run's reads less
the ones the scans make themselves (the reads between a scan's first and last reference: the
model puts a scan's references at one point of the op sequence, where its execution starts).
The scan's cost to the lookups is the difference: extra pages read, and the hit ratio they lose
over the references they make from the first scan on.

The clock: innodb_old_blocks_time is real time and the model counts operations, so the query
rate turns one into the other (one op every 1000 / qps ms); a scheduled scan at at_s (or every
every_s) goes in at op at_s * qps. The rate is the user's (--qps) or a run's measured one.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..errors import UsageError
from ..workload import mix as mixspec
from . import mixmodel as mm
from . import mixpages as mp
from .geometry import ROWS_PER_LEAF, estimate_geometry
from .dirtypages import run_args
from .intervals import table_interval
from .pool import pool_model, under_writes
from .undomodel import without_rseg_pages

OLD_BLOCKS_TIME_MS = (0, 100, 1000, 5000)
OLD_BLOCKS_PCT = (20, 37, 50)
DEFAULT_SETTING = (1000, 37)  # both servers' defaults
# usertable (key + 10 fields of 100 bytes): 14 rows per 16 KiB leaf (mixmodel's leaf steps)
SCAN_ROWS_PER_LEAF = {**ROWS_PER_LEAF, "ycsb": 14.0}
MAX_EXECUTIONS = 20  # each costs two more simulations per setting


@dataclasses.dataclass(frozen=True)
class Point:
    """One setting's outcome: the lookups' pages read with and without the scans."""

    old_blocks_time_ms: int
    old_blocks_pct: int
    lookup_reads: int  # the mix's own ops, with the scans
    lookup_reads_no_scan: int  # the same ops, the scans left out
    scan_reads: int  # the scans' own reads
    lookup_refs_after: int  # the lookups' references from the first scan on
    hit_ratio_after: float  # over those references, with the scans
    hit_ratio_after_no_scan: float
    # how far the run's pages read (lookup_reads + scan_reads) can be off: a mix's interval (intervals.table_interval)
    reads_low: int = 0
    reads_high: int = 0

    @property
    def extra_reads(self) -> int:
        return self.lookup_reads - self.lookup_reads_no_scan

    @property
    def hit_ratio_loss_pct(self) -> float:
        """Percentage points of hit ratio the lookups lose from the first scan on."""
        return 100.0 * (self.hit_ratio_after_no_scan - self.hit_ratio_after)


def offline_mix_tables(spec: mixspec.MixSpec, rows_per_leaf: float | None = None) -> dict[str, dict]:
    """dataset.tables as a run would record them, without a server: leaf pages from the measured
    rows per leaf of the built-in schemas (secondary indexes are left out: the advice is about
    the clustered index a scan walks and the lookups on it)."""
    out = {}
    for t in spec.tables:
        if t.existing or not t.rows:
            raise UsageError(f"table {t.name} is an existing table: its geometry needs the server",
                             "give --result RUN.json of a run of this workload")
        rpl = rows_per_leaf or SCAN_ROWS_PER_LEAF.get(t.schema or "")
        if not rpl:
            raise UsageError(f"no measured rows per leaf page for table {t.name}'s schema",
                             "pass --rows-per-leaf, or --result RUN.json of a run of this workload")
        g = estimate_geometry(int(t.rows), rows_per_leaf=rpl)
        out[t.name] = {"rows": g.rows, "leaf_pages": g.leaf_pages, "height": g.height, "indexes": {}}
    return out


def scan_ops(spec: mixspec.MixSpec, qps: float) -> dict[int, list[int]]:
    """Where each scheduled execution goes in the op sequence at `qps`: at_s * qps, or every_s *
    qps, 2 * every_s * qps, ... while the mix runs (as scheduled_positions does from a run)."""
    out: dict[int, list[int]] = {}
    for i in spec.scheduled:
        s = spec.streams[i]
        times = [s.at_s] if s.at_s is not None else []
        if s.every_s:
            k = 1
            while k * s.every_s * qps < spec.operations:
                times.append(k * s.every_s)
                k += 1
        ops = [int(round(t * qps)) for t in times] + ([s.at_op] if s.at_op is not None else [])
        for op in ops:
            if op < spec.operations:
                out.setdefault(op, []).append(i)
    n = sum(len(v) for v in out.values())
    if n == 0:
        raise UsageError("the workload's scans all fall after its last operation at this query rate",
                         f"give fewer seconds in at_s/every_s (the mix lasts {spec.operations / qps:,.1f} s "
                         f"at {qps:,.0f} q/s), more operations, or a higher --qps")
    if n > MAX_EXECUTIONS:
        raise UsageError(f"{n} scan executions in the mix: the advice handles {MAX_EXECUTIONS} at most",
                         "a longer every_s or fewer operations")
    return out


def splice(base_p, base_f, scans: dict[int, list[int]], refs: dict[int, mp.Refs]):
    """The mix's trace with each scan's references before the op it starts at; the scans'
    [start, end) reference ranges in the result."""
    op_at = np.flatnonzero(base_f & mp.OP)
    parts_p, parts_f, spans, prev, shift = [], [], [], 0, 0
    for op in sorted(scans):
        pos = int(op_at[op]) if op < len(op_at) else len(base_p)
        parts_p.append(base_p[prev:pos])
        parts_f.append(base_f[prev:pos])
        for stream in scans[op]:
            r = refs[stream]
            start = pos + shift
            spans.append((start, start + len(r.pages)))
            shift += len(r.pages)
            parts_p.append(r.pages.astype(np.uint32))
            parts_f.append(r.flags.astype(np.uint8))
        prev = pos
    parts_p.append(base_p[prev:])
    parts_f.append(base_f[prev:])
    return np.concatenate(parts_p), np.concatenate(parts_f), spans


def trace_reads(pages, flags, space, pool, leaf_pages: int, upto: int | None = None,
                dirty: tuple = (0, 0)) -> tuple[int, int]:
    """(pages read, references) of the trace's first `upto` references; dirty: MySQL's dirty tail
    (dirtypages.run_args, as a mix's prediction has it)."""
    trace = mp.Trace()
    trace.add(pages[:upto], flags[:upto])
    sim = mm.simulate(trace, space, pool, leaf_pages, dirty=dirty)
    return int(np.frombuffer(sim.reads, dtype=np.uint32).sum(dtype=np.uint64)) + int(sim.filler_reads), int(sim.refs)


def advise(spec: mixspec.MixSpec, tables: dict[str, dict], pool_bytes: int, qps: float, flavor: str = "mariadb",
           variables: dict | None = None, times_ms=OLD_BLOCKS_TIME_MS, pcts=OLD_BLOCKS_PCT,
           scans: dict[int, list[int]] | None = None, run: dict | None = None) -> dict:
    """The grid's points (Point), the best one and the current one (variables' setting, else the
    defaults) as a dict; `scans` (op -> scheduled streams) from a run, else from the schedule.
    `run`: a run of the workload at this pool, whose pool the points take (mixmodel.pool_of: the
    start-up pages it held, the frames it held, its cleaner), each with the point's setting, so a
    point at the run's own setting is the run's prediction; else the pool from its size alone."""
    if not spec.scheduled:
        raise UsageError("the workload has no scheduled scan",
                         'add a stream with op = "scan" and at_s = SECONDS (or every_s) to the file')
    if qps <= 0 or not math.isfinite(qps):
        raise UsageError(f"--qps {qps} is not a query rate", "give the mix's operations per second, e.g. 5000")
    scans = scans if scans is not None else scan_ops(spec, qps)
    space, order = mm.space_of(spec, tables, flavor, spec.operations)
    base_p, base_f = mm.build_trace(spec, space, {}, spec.operations, mm.index_columns(tables),
                                    prefetch=mm.RANGE_PREFETCH and flavor == "mariadb",
                                    stepped=mp.stepped_columns(tables)).arrays()
    refs = {i: mp.scan_refs(space.tree_of(spec.streams[i].table, spec.streams[i].index)) for i in spec.scheduled}
    pages, flags, spans = splice(base_p, base_f, scans, refs)
    leaf_pages = space.tree_of(order[0], None).all_leaves
    base = without_rseg_pages(mm.pool_of(run, spec.writes), space) if run is not None else None
    if base is not None and spec.writes:  # the run's recorded batches came at its own rate, not at qps
        base = dataclasses.replace(base, cleaner_seen=None)
    # references of the lookups before the first scan: the same in both traces
    before_first = spans[0][0]
    current = (int(float((variables or {}).get("innodb_old_blocks_time", DEFAULT_SETTING[0]))),
               int(float((variables or {}).get("innodb_old_blocks_pct", DEFAULT_SETTING[1]))))
    # the current setting is always a point, so the sentence can say what changing it saves
    times_ms = sorted({*times_ms, current[0]})
    pcts = sorted({*pcts, current[1]})
    points = []
    for t_ms in times_ms:
        for pct in pcts:
            if base is not None:
                pool = dataclasses.replace(base, old_time_ms=float(t_ms), old_pct=float(pct), qps=qps)
            else:
                v = {**(variables or {}), "innodb_old_blocks_time": t_ms, "innodb_old_blocks_pct": pct}
                pool = pool_model(pool_bytes, v, flavor, qps)
                pool = under_writes(pool) if spec.writes else pool
            dirty = run_args(pool, run or {}) if spec.writes else (0, 0)  # MySQL's dirty tail under writes
            total, _ = trace_reads(pages, flags, space, pool, leaf_pages, dirty=dirty)
            base_total, base_refs = trace_reads(base_p, base_f, space, pool, leaf_pages, dirty=dirty)
            pre, pre_refs = trace_reads(pages, flags, space, pool, leaf_pages, before_first, dirty)
            scan_reads = 0
            for lo, hi in spans:
                scan_reads += trace_reads(pages, flags, space, pool, leaf_pages, hi, dirty)[0] - \
                    trace_reads(pages, flags, space, pool, leaf_pages, lo, dirty)[0]
            lookups = total - scan_reads
            refs_after = base_refs - pre_refs
            points.append(Point(t_ms, pct, lookups, base_total, scan_reads, refs_after,
                                1 - (lookups - pre) / refs_after if refs_after else 1.0,
                                1 - (base_total - pre) / refs_after if refs_after else 1.0,
                                *table_interval(total, pool, spec.writes)))
    best = rank(points)[0]
    now = next((p for p in points if (p.old_blocks_time_ms, p.old_blocks_pct) == current), None)
    return {"points": points, "best": best, "current": now, "qps": qps, "pool_bytes": pool_bytes,
            "flavor": flavor, "scan_ops": {int(k): [spec.streams[i].name for i in v] for k, v in scans.items()},
            "sentence": sentence(best, now)}


def rank(points: list[Point]) -> list[Point]:
    """Fewest lookup reads with the scans first (a setting that spares the lookups the scan but
    costs them more reads without it is no protection), then the fewest extra reads, then the
    defaults' neighbours."""
    return sorted(points, key=lambda p: (p.lookup_reads, p.extra_reads,
                                         abs(p.old_blocks_time_ms - DEFAULT_SETTING[0]),
                                         abs(p.old_blocks_pct - DEFAULT_SETTING[1])))


def _setting(p: Point) -> str:
    return f"innodb_old_blocks_time = {p.old_blocks_time_ms} and innodb_old_blocks_pct = {p.old_blocks_pct}"


def sentence(best: Point, current: Point | None) -> str:
    """The advice in one sentence: the setting, and what the scan costs the lookups with it."""
    head = (f"set {_setting(best)}: the scan costs the lookups {best.extra_reads:,} extra reads "
            f"({best.lookup_reads:,} in all)")
    if current is None:
        return head + "."
    if current == best:
        return head + ", the current setting already."
    return head + (f" instead of {current.extra_reads:,} ({current.lookup_reads:,}) at the current "
                   f"{current.old_blocks_time_ms} ms / {current.old_blocks_pct}%.")


def to_dict(advice: dict) -> dict:
    """The advice as JSON-ready data."""
    def point(p: Point | None):
        if p is None:
            return None
        return {**dataclasses.asdict(p), "extra_reads": p.extra_reads, "hit_ratio_loss_pct": p.hit_ratio_loss_pct}

    return {**advice, "points": [point(p) for p in advice["points"]], "best": point(advice["best"]),
            "current": point(advice["current"])}

"""How much the server itself scatters between runs of one config, and the mix model against the
mean of those runs (issue #21): repeated mixed runs (`loadgen run --workload PRESET --seed 1`, the
same rows, operations and pool, each from a cold start) grouped by config.

    ../.venv/bin/python whole_repeat.py                        # docs/data/repeats
    ../.venv/bin/python whole_repeat.py RUN.json.gz DIR ... --minq 350 --breakdown all

Per cell (server, preset, pool, rows, operations, seed): the runs, their q/s and load range (the
1-minute load average before and after each run, from a `loads.tsv` beside the runs when there is
one), the pool's whole reads (Innodb_pages_read, undo and system pages included) measured: mean,
min..max, spread (max-min over mean) and coefficient of variation (stdev over mean); the model's
prediction (mixmodel.predict again on each run, as the code is now: the mean of its per-run
predictions) and its error against the measured mean; the same for the table's own .ibd reads
(performance_schema); how many runs fall inside their prediction's interval (reads_low ..
reads_high). With --breakdown, a cell outside --bound (default 5%) of its mean is broken down by
file (buffer_pool.files) against the model's parts (parts()).
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadgen.analysis import mixmodel  # noqa: E402 - after sys.path takes the checkout's loadgen

DEFAULT_DIR = ROOT / "docs" / "data" / "repeats"
LOADS_FILE = "loads.tsv"  # name, load before (1 5 15 min), load after, seconds, finished at (UTC)


@dataclass
class Run:
    path: Path
    key: tuple  # (server, preset, pool, rows, operations, seed)
    qps: float
    load: tuple[float, float] | None  # 1-minute load average before and after the run
    whole: int  # measured Innodb_pages_read
    whole_pred: int
    whole_interval: tuple[int, int]
    table: int  # measured .ibd reads of the mix's (first) table
    table_pred: int
    table_interval: tuple[int, int]
    files: dict[str, int] = field(default_factory=dict)  # buffer_pool.files
    parts: dict[str, int] = field(default_factory=dict)  # the model's, parts()

    @property
    def inside(self) -> bool:
        return self.whole_interval[0] <= self.whole <= self.whole_interval[1]

    @property
    def table_inside(self) -> bool:
        return self.table_interval[0] <= self.table <= self.table_interval[1]


def load_doc(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)


def loads_of(directory: Path) -> dict[str, tuple[float, float]]:
    """A run file's name -> (1-minute load before, after) from the loads.tsv beside it."""
    out = {}
    tsv = directory / LOADS_FILE
    if tsv.exists():
        for line in tsv.read_text().splitlines():
            cols = line.split("\t")
            if len(cols) >= 3:
                out[cols[0]] = (float(cols[1].split()[0]), float(cols[2].split()[0]))
    return out


def parts(run: dict) -> tuple[dict, dict[str, int]]:
    """mixmodel.predict(run) and its system pages' reads split by where the model puts them (the
    Space's layout, mixpages.Space: rollback segment headers, undo pages less the undo cap's cut,
    the temporary tablespace's segment headers, the undo files' own header pages), besides the
    tables. The split comes from the model's own simulation: its first call of simulate() in
    predict() is the one the prediction is read from (the later ones are the held-spread's)."""
    seen: list = []
    real = mixmodel.simulate

    def spy(trace, space, *args, **kw):
        sim = real(trace, space, *args, **kw)
        seen.append((sim, space))
        return sim

    mixmodel.simulate = spy
    try:
        p = mixmodel.predict(run)
    finally:
        mixmodel.simulate = real
    if p is None:
        raise ValueError("no prediction (not a mixed run, or no table geometry)")
    out = {"table": sum(t["pages_read"] for t in p["tables"].values()),
           # the tables' own pages 0-2 (file-space header, change buffer bitmap; ibdpages.py), in "table"
           "table file-space pages": sum(t.get("file_space_pages_read", 0) for t in p["tables"].values())}
    if seen:
        sim, space = seen[0]
        reads = np.frombuffer(sim.reads, dtype=np.uint32)
        if space.rollback_segments:

            def total(a: int, b: int) -> int:
                return int(reads[a:b].sum(dtype=np.uint64))

            out["rseg headers"] = total(space.system_base, space.undo_base)
            out["undo pages"] = total(space.undo_base, space.temp_base) - int(p.get("undo_reads_cut") or 0)
            out["temp rseg headers"] = total(space.temp_base, space.file_base)
            out["undo file headers"] = total(space.file_base, space.n_pages)
    return p, out


def measure(path: Path, loads: dict | None = None, split: bool = False) -> Run:
    doc = load_doc(path)
    p, model_parts = parts(doc) if split else (mixmodel.predict(doc), {})
    if p is None:
        raise ValueError(f"{path}: no prediction (not a mixed run, or no table geometry)")
    srv, wl, bp = doc["server"], doc["workload"], doc["buffer_pool"]
    mix = wl.get("mix") or {}
    rows = tuple(sorted((k, v.get("rows")) for k, v in (mix.get("tables") or {}).items()))
    version = ".".join(str(srv.get("version", "")).split(".")[:2])
    key = (f"{srv['flavor']}-{version}", str(wl.get("name")).removeprefix("preset "),
           f"{int(srv['innodb_buffer_pool_size']) >> 20}M", rows, mix.get("operations"), mix.get("seed"))
    [(table, tp)] = list(p["tables"].items())[:1]
    return Run(path, key, float((doc.get("result") or {}).get("qps") or 0), (loads or {}).get(path.name),
               int(bp["pages_read"]), int(p["pages_read"]), (p["reads_low"], p["reads_high"]),
               int(bp["tables"][table]["file_pages_read"]), int(tp["pages_read"]),
               (tp["reads_low"], tp["reads_high"]), dict(bp.get("files") or {}), model_parts)


def run_files(args: list[str]) -> list[Path]:
    paths = [Path(a) for a in args] or [DEFAULT_DIR]
    out = []
    for p in paths:
        out += sorted(p.rglob("*.json*")) if p.is_dir() else [p]
    return [p for p in out if p.name.endswith((".json", ".json.gz"))]


def collect(paths: list[Path], minq: float = 0.0, split: bool = False) -> dict[tuple, list[Run]]:
    """The runs grouped by config; runs under minq q/s left out."""
    cache: dict[Path, dict] = {}
    groups: dict[tuple, list[Run]] = {}
    for path in paths:
        loads = cache.setdefault(path.parent, loads_of(path.parent))
        run = measure(path, loads, split)
        if run.qps >= minq:
            groups.setdefault(run.key, []).append(run)
    return groups


@dataclass
class Cell:
    key: tuple
    runs: list[Run]

    @property
    def n(self) -> int:
        return len(self.runs)

    def stats(self, attr: str) -> tuple[float, int, int, float]:
        """mean, min, max, coefficient of variation of a measured attribute over the runs."""
        v = [getattr(r, attr) for r in self.runs]
        mean = statistics.mean(v)
        cv = statistics.stdev(v) / mean if len(v) > 1 and mean else 0.0
        return mean, min(v), max(v), cv

    def error(self, attr: str) -> float:
        """The model's mean prediction against the measured mean, as a fraction."""
        mean = self.stats(attr)[0]
        return (statistics.mean(getattr(r, attr + "_pred") for r in self.runs) - mean) / mean

    def inside(self, attr: str = "whole") -> int:
        return sum(r.inside if attr == "whole" else r.table_inside for r in self.runs)


def cells(groups: dict[tuple, list[Run]]) -> list[Cell]:
    return [Cell(k, groups[k]) for k in sorted(groups, key=lambda k: tuple(map(str, k)))]


def _rng(values, fmt="{:,.0f}") -> str:
    values = list(values)
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}-{fmt.format(hi)}"


def table(all_cells: list[Cell]) -> str:
    lines = ["| server | preset | pool | n | q/s | load | whole mean | whole min..max (spread, cv) | predicted | "
             "error vs mean | inside | table mean | table spread (cv) | predicted | error vs mean | inside |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in all_cells:
        server, preset, pool = c.key[:3]
        wm, wlo, whi, wcv = c.stats("whole")
        tm, tlo, thi, tcv = c.stats("table")
        loads = [x for r in c.runs if r.load for x in r.load]
        wp = statistics.mean(r.whole_pred for r in c.runs)
        tp = statistics.mean(r.table_pred for r in c.runs)
        lines.append(
            f"| {server} | {preset} | {pool} | {c.n} | {_rng(r.qps for r in c.runs)} | "
            f"{_rng(loads, '{:.1f}') if loads else '–'} | {wm:,.0f} | {wlo:,}..{whi:,} "
            f"({100 * (whi - wlo) / wm:.1f}%, {100 * wcv:.1f}%) | {wp:,.0f} | {100 * c.error('whole'):+.1f}% | "
            f"{c.inside()}/{c.n} | {tm:,.0f} | {100 * (thi - tlo) / tm:.1f}% ({100 * tcv:.1f}%) | {tp:,.0f} | "
            f"{100 * c.error('table'):+.1f}% | {c.inside('table')}/{c.n} |")
    return "\n".join(lines)


def file_group(name: str, flavor: str) -> str:
    """Where a buffer_pool.files entry belongs for the breakdown."""
    base = name.rsplit("/", 1)[-1]
    if base.startswith("undo_"):
        return "undo files"
    if base == "ibdata1":  # MariaDB keeps its rollback segments and undo logs in the system tablespace
        return "undo files" if flavor == "mariadb" else "ibdata1"
    if base == "ibtmp1":
        return "ibtmp1"
    if name.endswith(".ibd") and not name.startswith("mysql"):
        return "tables"
    return "other"


# the model's parts against the server's files (parts(), file_group())
MODEL_OF = {"tables": ("table",), "undo files": ("rseg headers", "undo pages", "undo file headers"),
            "ibtmp1": ("temp rseg headers",), "ibdata1": (), "other": ()}


def breakdown(c: Cell) -> str:
    """Per file group: the measured mean (and range) against the model's mean, and the difference
    as a share of the measured whole mean, so the parts add up to the cell's error."""
    flavor = c.key[0].split("-")[0]
    wm = c.stats("whole")[0]
    lines = [f"{' '.join(map(str, c.key[:3]))}: n={c.n}, whole {wm:,.0f} measured, "
             f"{statistics.mean(r.whole_pred for r in c.runs):,.0f} predicted ({100 * c.error('whole'):+.1f}%)",
             "| file | measured mean (min..max) | model mean | model - measured | of the whole |",
             "|---|---|---|---|---|"]
    per_run = []
    for r in c.runs:
        groups: dict[str, int] = {g: 0 for g in MODEL_OF}
        for name, pages in r.files.items():
            groups[file_group(name, flavor)] += int(pages)
        groups["(pool, not in files)"] = r.whole - sum(groups.values())
        per_run.append((groups, r.parts))
    for g in list(MODEL_OF) + ["(pool, not in files)"]:
        meas = [gr[g] for gr, _ in per_run]
        model = [sum(pr.get(p, 0) for p in MODEL_OF.get(g, ())) for _, pr in per_run]
        m, mo = statistics.mean(meas), statistics.mean(model)
        lines.append(f"| {g} | {m:,.0f} ({min(meas):,}..{max(meas):,}) | {mo:,.0f} | {mo - m:+,.0f} | "
                     f"{100 * (mo - m) / wm:+.1f}% |")
    lines += page_types(c, wm)
    detail = ", ".join(f"{k} {statistics.mean(pr.get(k, 0) for _, pr in per_run):,.0f}"
                       for k in ("rseg headers", "undo pages", "undo file headers", "temp rseg headers"))
    files = sorted({f for r in c.runs for f in r.files})
    lines.append("")
    lines.append(f"model's system parts (mean): {detail}")
    lines.append("measured per file (mean): " + ", ".join(
        f"{f} {statistics.mean(r.files.get(f, 0) for r in c.runs):,.0f}" for f in files))
    return "\n".join(lines)


# the server's reads by page type (INNODB_METRICS buffer_page_read_*, buffer_pool.flush) against the
# model's parts: FIL_PAGE_UNDO_LOG pages are the undo pages; FIL_PAGE_TYPE_SYS the rollback segment
# headers (the temporary tablespace's too) and the trx system page; index pages (leaf, non-leaf) the
# tables' trees; the file-space header, inode, extent descriptor and change buffer bitmap pages
# the undo files' and the tables' own (pages 0-2 of each file)
PAGE_TYPES = {"undo log": (("undo_pages_read",), ("undo pages",), ()),
              "system (rseg headers)": (("system_pages_read",), ("rseg headers", "temp rseg headers"), ()),
              "index (leaf, non-leaf)": (("leaf_pages_read", "nonleaf_pages_read"), ("table",),
                                         ("table file-space pages",)),
              "fsp header, inode, xdes, ibuf bitmap": (
                  ("fsp_hdr_pages_read", "inode_pages_read", "xdes_pages_read", "ibuf_bitmap_pages_read"),
                  ("undo file headers", "table file-space pages"), ())}


def page_types(c: Cell, wm: float) -> list[str]:
    """The breakdown by page type, where the runs recorded the server's counters of it."""
    flushes = [load_doc(r.path)["buffer_pool"].get("flush") or {} for r in c.runs]
    if not all("undo_pages_read" in f for f in flushes):
        return []
    lines = ["", "| page type | measured mean (min..max) | model mean | model - measured | of the whole |",
             "|---|---|---|---|---|"]
    rows = []
    for label, (counters, model_parts, less) in PAGE_TYPES.items():
        rows.append((label, [sum(int(f.get(k) or 0) for k in counters) for f in flushes],
                     [sum(r.parts.get(k, 0) for k in model_parts) - sum(r.parts.get(k, 0) for k in less)
                      for r in c.runs]))
    # what the types above leave of the whole (blobs, the types the counters call other)
    rows.append(("the rest of the whole", [r.whole - sum(m[i] for _, m, _ in rows) for i, r in enumerate(c.runs)],
                 [r.whole_pred - sum(m[i] for _, _, m in rows) for i, r in enumerate(c.runs)]))
    for label, meas, model in rows:
        m, mo = statistics.mean(meas), statistics.mean(model)
        lines.append(f"| {label} | {m:,.0f} ({min(meas):,}..{max(meas):,}) | {mo:,.0f} | {mo - m:+,.0f} | "
                     f"{100 * (mo - m) / wm:+.1f}% |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="result files or directories (default: docs/data/repeats)")
    ap.add_argument("--minq", type=float, default=0.0, help="leave out runs under this many q/s")
    ap.add_argument("--min-runs", type=int, default=1, help="cells with fewer runs are left out")
    ap.add_argument("--bound", type=float, default=5.0, help="percent: cells outside it are broken down")
    ap.add_argument("--breakdown", choices=["outside", "all", "none"], default="outside")
    a = ap.parse_args(argv)
    paths = run_files(a.paths)
    if not paths:
        print("whole_repeat: no result files", file=sys.stderr)
        return 2
    try:
        found = [c for c in cells(collect(paths, a.minq, split=a.breakdown != "none")) if c.n >= a.min_runs]
    except (OSError, ValueError, KeyError) as exc:
        print(f"whole_repeat: {exc}", file=sys.stderr)
        return 2
    print(table(found))
    for c in found:
        if a.breakdown == "all" or (a.breakdown == "outside" and abs(c.error("whole")) > a.bound / 100):
            print()
            print(breakdown(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())

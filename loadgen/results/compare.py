"""Comparisons between runs, as data (rendering is report.py's job)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import GateError, ResultError, UsageError
from .. import numfmt as nf
from .documents import RunResult, check_values

# (key, label, where in the result, lower_is_better)
# The headline first: pages read into the pool (Innodb_pages_read), the one miss count that
# means the same on MySQL and MariaDB; demand reads and read-ahead beside it.
AB_METRICS = [
    ("pages_read", "pages read into the pool (misses)", lambda r: r.headline()[0], True),
    ("demand_reads", "  demand reads", ("buffer_pool", "demand_reads"), True),
    ("read_ahead", "  read-ahead", ("buffer_pool", "read_ahead"), True),
    ("read_requests", "read requests", ("buffer_pool", "read_requests"), True),
    ("hit_ratio", "hit ratio", lambda r: r.headline_hit_ratio(), False),
    ("miss_ratio", "miss ratio", lambda r: None if r.headline_hit_ratio() is None else 1 - r.headline_hit_ratio(),
     True),
    ("elapsed_s", "elapsed (s)", ("result", "elapsed_s"), True),
    ("qps", "queries/s", ("result", "qps"), False),
    ("p50_us", "p50 latency (µs)", ("result", "latency_us", "p50"), True),
    ("p99_us", "p99 latency (µs)", ("result", "latency_us", "p99"), True),
]


def as_run(r: RunResult | dict) -> RunResult:
    """A RunResult; a plain dict (a result file's JSON) is read as one."""
    return r if isinstance(r, RunResult) else RunResult.from_dict(r)


@dataclass
class MetricRow:
    key: str
    label: str
    values: list  # one per column, None where missing
    ratios: list  # one per SideBySide.ratios: that server's last run over its first, None where missing
    lower_is_better: bool


@dataclass
class CompareColumn:
    """One run of a side-by-side comparison: what ran, where, and which file holds it."""

    key: str  # the variation (A, B) or the order
    order: str | None
    server: str  # flavour, version and where it ran: "mariadb 10.11.19, local"
    file: str | None  # the result file's name (None: not written to a file)
    path: str | None = None  # and its path as given


@dataclass
class Ratio:
    """A ratio column: the last run on a server over the first on the same server (B/A)."""

    label: str  # "B/A"
    server: str
    first: int  # column indexes
    last: int


@dataclass
class SideBySide:
    columns: list[CompareColumn]
    ratios: list[Ratio]
    rows: list[MetricRow]
    notes: list[str]

    @property
    def servers(self) -> list[str]:
        return list(dict.fromkeys(c.server for c in self.columns))

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return {"kind": "side_by_side", "columns": [asdict(c) for c in self.columns],
                "ratios": [asdict(r) for r in self.ratios], "notes": self.notes,
                "rows": [{"metric": r.key, "label": r.label.strip(), "values": r.values,
                          "ratios": r.ratios, "lower_is_better": r.lower_is_better} for r in self.rows]}


def short_servers(labels: list[str]) -> dict[str, str]:
    """Each server label -> its flavour and version alone where that tells it from the others."""
    short = {lab: lab.partition(",")[0] for lab in labels}
    return {lab: s if list(short.values()).count(s) == 1 else lab for lab, s in short.items()}


def server_label(run: RunResult) -> str:
    """The server a run measured, as precise as its file says: flavour, version, provider and the
    image or endpoint (two servers of one version on different hosts are different servers)."""
    s = run.server or {}
    where = s.get("provider") or "?"
    detail = s.get("image") or s.get("endpoint")
    return f"{s.get('flavor') or '?'} {s.get('version') or '?'}, {where}" + (f" {detail}" if detail else "")


def side_by_side(results: list[RunResult], files: list | None = None) -> SideBySide:
    """Each metric for each run, with the ratio of the last run to the first (B/A) on each server.

    Runs of different servers are shown side by side, but never divided: a page read on MySQL
    and one on MariaDB, or a query per second on two hosts, are not the same quantity (a B on
    MySQL over an A on MariaDB was shown as 284.96x). Each server with two runs or more gets
    its own ratio column, and a note says the runs span servers.
    """
    results = [as_run(r) for r in results]
    check_values(results)
    # A/B ratios only mean something on the same table, pool and id set (as compare BASE NEW requires)
    for r in results[1:]:
        hard, _ = _differences(results[0], r)
        if hard:
            names = " and ".join(str(getattr(x, "source", None) or x.key) for x in (results[0], r))
            raise ResultError(f"{names} measured different things ({'; '.join(hard)})",
                              "compare runs of the same rows, stride, reps and pool size")
    files = list(files) if files is not None else [getattr(r, "source", None) for r in results]
    columns = [CompareColumn(r.key, r.workload.get("order"), server_label(r), _name(f), str(f) if f else None)
               for r, f in zip(results, files)]
    ratios, notes = [], []
    for server in dict.fromkeys(c.server for c in columns):
        idx = [i for i, c in enumerate(columns) if c.server == server]
        if len(idx) >= 2:
            ratios.append(Ratio(f"{columns[idx[-1]].key}/{columns[idx[0]].key}", server, idx[0], idx[-1]))
    servers = list(dict.fromkeys(c.server for c in columns))
    if len(servers) > 1:
        notes.append(f"these runs come from {len(servers)} servers ({'; '.join(servers)}): ratios are taken "
                     "between runs of one server, never across servers")
    rows = []
    for key, label, path, lower in AB_METRICS:
        values = [_metric_value(r, path) for r in results]
        rows.append(MetricRow(key, label, values, [_ratio(values[q.first], values[q.last]) for q in ratios], lower))
    return SideBySide(columns, ratios, rows, notes)


def _ratio(first, last) -> float | None:
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (first, last))
    return last / first if ok and first else None


def _name(path) -> str | None:
    from pathlib import Path

    return Path(path).name if path else None


# -- comparing result files (base vs new), with significance and regression limits ---------------
# (key, where, lower_is_better): the metrics a file comparison reports and can gate on
# pages_read and hit_ratio are read through RunResult.headline(), so v1 files count the same way.
FILE_METRICS = [
    ("pages_read", lambda r: r.headline()[0], True),
    ("demand_reads", ("buffer_pool", "demand_reads"), True),
    ("read_ahead", ("buffer_pool", "read_ahead"), True),
    ("hit_ratio", lambda r: r.headline_hit_ratio(), False),
    ("qps", ("result", "qps"), False),
    ("p50_us", ("result", "latency_us", "p50"), True),
    ("p99_us", ("result", "latency_us", "p99"), True),
]
METRIC_KEYS = [m[0] for m in FILE_METRICS]
# What `--max-regression 10%` (all metrics) gates: demand reads and read-ahead are shown beside
# the headline, gated only when named (a shift between them is not a regression by itself).
GATE_ALL = ["pages_read", "hit_ratio", "qps", "p50_us", "p99_us"]
# `reads=` gated Innodb_buffer_pool_reads before format 2, which on MySQL leaves read-ahead out
# (a chat -> chat_wide regression of 2.9x showed as +6%): it now names the headline.
ALIASES = {"reads": "pages_read"}


def _metric_value(run: RunResult, where):
    return where(run) if callable(where) else run.value(where)
ALPHA = 0.05
# Differences that make two runs measure different things: refuse. Others are only reported.
MUST_MATCH = [("dataset", "rows"), ("workload", "stride"), ("workload", "reps"), ("server", "innodb_buffer_pool_size")]
MAY_DIFFER = [("dataset", "schema"), ("dataset", "schema_hash"), ("dataset", "seed"), ("server", "flavor"),
              ("server", "version")]


@dataclass
class FileRow:
    variation: str
    metric: str
    base: float | None  # mean over the base runs
    new: float | None
    ratio: float | None  # new / base
    worse_pct: float | None  # how much worse new is, in percent (negative: better)
    n_base: int
    n_new: int
    test: str | None  # "welch" when it ran
    p_value: float | None
    significant: bool | None  # None: not enough data to tell
    limit_pct: float | None
    regressed: bool


@dataclass
class FileComparison:
    rows: list
    notes: list

    @property
    def regressed(self) -> bool:
        return any(r.regressed for r in self.rows)

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return {"regressed": self.regressed, "notes": self.notes, "rows": [asdict(r) for r in self.rows]}


def parse_limits(items: tuple | list) -> dict:
    """--max-regression 10% | reads=5%,p99_us=20% (repeatable) -> {metric: percent}; '*' = all."""
    limits: dict = {}
    for item in items:
        for part in str(item).split(","):
            part = part.strip()
            if not part:
                continue
            key, _, value = part.rpartition("=")
            key = key.strip() or "*"
            key = ALIASES.get(key, key)
            if key != "*" and key not in METRIC_KEYS:
                raise UsageError(f"--max-regression: unknown metric {key!r}", f"use one of: {', '.join(METRIC_KEYS)}")
            text = value.strip().rstrip("%")
            try:
                pct = float(text)
            except ValueError:
                raise UsageError(f"--max-regression {part!r} is not a percentage", "e.g. 10% or reads=5%") from None
            if pct < 0 or math.isnan(pct):
                raise UsageError(f"--max-regression {part!r} must be 0% or more")
            limits[key] = pct
    return limits


def gate_problems(runs: list[RunResult], limits: dict) -> list[str]:
    """Why a --max-regression gate cannot judge these runs: each entry names a file and says what
    is wrong (an interrupted run, a file without the gated metric). An empty list: gate away.

    A partial run shows fewer reads than a whole one, so gating it would pass any regression."""
    gated = [m for m in FILE_METRICS if m[0] in limits or ("*" in limits and m[0] in GATE_ALL)]
    problems = []
    for r in map(as_run, runs):
        name = str(getattr(r, "source", None) or r.key)
        if r.complete is not True:
            why = r.incomplete_reason or "no complete: true"
            problems.append(f"{name} is incomplete ({why})")
            continue
        missing = [key for key, path, _ in gated if not isinstance(_metric_value(r, path), (int, float))
                   or isinstance(_metric_value(r, path), bool)]
        if missing:
            why = ""
            if "pages_read" in missing and r.server.get("flavor") == "mysql":
                why = (f" (a format-{r.format_version} MySQL file with demand reads only: "
                       "they leave read-ahead out and do not mean what pages read mean)")
            problems.append(f"{name} has no {', '.join(missing)}{why}")
    return problems


def check_gateable(runs: list[RunResult], limits: dict) -> None:
    """Raise GateError (exit 2) naming the first file the gate cannot judge."""
    check_values(map(as_run, runs))
    problems = gate_problems(runs, limits)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise GateError(f"the --max-regression gate cannot judge: {problems[0]}{more}",
                        "re-run it to completion, or pass --allow-incomplete to compare it anyway")


def _differences(base: RunResult, new: RunResult) -> tuple[list, list]:
    hard, soft = [], []
    for where, out in ((MUST_MATCH, hard), (MAY_DIFFER, soft)):
        for path in where:
            a, b = base.value(path), new.value(path)
            if a != b:
                out.append(f"{'.'.join(path)}: {a} -> {b}")
    return hard, soft


def welch(a: list, b: list) -> float | None:
    """Two-sided p-value of Welch's t-test; None when it cannot be computed (n<2, no variance)."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1)
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1)
    se2 = va / na + vb / nb
    if se2 <= 0:
        return None
    t = (mb - ma) / math.sqrt(se2)
    df = se2 ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    return _betainc(df / 2, 0.5, df / (df + t * t))  # P(|T| > |t|) for Student's t with df


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) by Lentz's continued fraction (Numerical Recipes 6.4)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _betainc(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-12:
            break
    return front * f


def compare_files(base: list[RunResult], new: list[RunResult], limits: dict | None = None) -> FileComparison:
    """Each metric of the new runs against the base runs, per variation present on both sides.

    Args:
        base, new: loaded result files (several runs of a variation are pooled for the test).
        limits: {metric or '*': percent} beyond which a worse value is a regression.
    Returns:
        FileComparison; refuses (ResultError) runs whose rows, stride, reps or pool differ.
    """
    limits = limits or {}
    check_values(map(as_run, [*base, *new]))
    groups_b: dict = {}
    groups_n: dict = {}
    for r in map(as_run, base):
        groups_b.setdefault(r.key, []).append(r)
    for r in map(as_run, new):
        groups_n.setdefault(r.key, []).append(r)
    shared = [k for k in groups_b if k in groups_n]
    if not shared:
        raise ResultError(f"nothing to compare: base has {sorted(groups_b)}, new has {sorted(groups_n)}",
                          "give result files of the same variation on both sides")
    notes, rows = [], []
    for k in sorted(set(groups_b) ^ set(groups_n)):
        notes.append(f"variation {k} is only on one side: not compared")
    for k in shared:
        hard, soft = _differences(groups_b[k][0], groups_n[k][0])
        if hard:
            raise ResultError(f"variation {k}: the runs measured different things ({'; '.join(hard)})",
                              "compare runs of the same rows, stride, reps and pool size")
        if soft:
            notes.append(f"variation {k}: {'; '.join(soft)}")
        noise = model_noise_note(k, groups_b[k], groups_n[k])
        if noise:
            notes.append(noise)
        gated = set(limits) if "*" not in limits else set(GATE_ALL)
        if gated & {"pages_read", "hit_ratio"}:
            _check_headline(k, groups_b[k] + groups_n[k])
        for key, path, lower in FILE_METRICS:
            a = [v for v in (_metric_value(r, path) for r in groups_b[k]) if isinstance(v, (int, float))]
            b = [v for v in (_metric_value(r, path) for r in groups_n[k]) if isinstance(v, (int, float))]
            mb = sum(a) / len(a) if a else None
            mn = sum(b) / len(b) if b else None
            ratio = mn / mb if mb and mn is not None else None
            worse = None
            if ratio is not None:
                worse = (ratio - 1) * 100 if lower else (1 - ratio) * 100
            p = welch(a, b)
            significant = None if p is None else p < ALPHA
            limit = limits.get(key, limits.get("*") if key in GATE_ALL else None)
            # With one run per side there is no test: gate on the value (reads are deterministic);
            # with several, a change the test calls noise is not a regression.
            regressed = bool(limit is not None and worse is not None and worse > limit and significant is not False)
            rows.append(FileRow(k, key, mb, mn, ratio, None if worse is None else round(worse, 3), len(a), len(b),
                                "welch" if p is not None else None, p, significant, limit, regressed))
    return FileComparison(rows, notes)


def model_noise_note(variation: str, base: list[RunResult], new: list[RunResult]) -> str | None:
    """Whether the new runs' pages read lie inside the base run's prediction interval
    (prediction.reads_low .. reads_high, analysis/intervals.py): inside, a change is within what
    the model cannot tell apart; outside, it is beyond the model's noise. None without one."""
    pred = base[0].prediction
    pages = [r.headline()[0] for r in new]
    if pred is None or pred.reads_low is None or pred.reads_high is None or None in pages or not pages:
        return None
    mean = sum(pages) / len(pages)
    where = ("inside" if pred.reads_low <= mean <= pred.reads_high else "outside")
    return (f"variation {variation}: the new pages read ({nf.count(mean)}) are {where} the base run's predicted "
            f"interval ({nf.span(pred.reads_low, pred.reads_high)}): "
            + ("within the model's noise" if where == "inside" else "a change beyond the model's noise"))


def _check_headline(variation: str, runs: list[RunResult]) -> None:
    """Refuse to gate on misses when a run cannot say how many pages it read into the pool: a
    format-1 MySQL file with Innodb_buffer_pool_reads only counts demand reads, which does not
    mean what MariaDB's reads or any newer file's pages_read mean."""
    for r in runs:
        value, _ = r.headline()
        if value is None and r.complete is not False:
            raise ResultError(
                f"variation {variation}: a {r.server.get('flavor') or 'server'} run (format_version "
                f"{r.format_version}) has no pages read into the pool (Innodb_pages_read, or reads + read_ahead): "
                "its reads would not mean the same on MySQL and MariaDB, so it cannot be gated",
                "re-run that side with this loadgen, or gate only on qps/p50_us/p99_us")

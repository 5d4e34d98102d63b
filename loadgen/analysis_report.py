"""Rendering for predict, sweep and file compare: terminal rows, markdown, JSON, plots, HTML.

Data is built by model.py, sweep.py and compare.py; this module only turns it into text and
images. matplotlib is imported lazily so `loadgen --help` and compare never pay for it.
"""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from .compare import FileComparison
from .units import format_bytes


# -- compare --------------------------------------------------------------------------------------
COMPARE_HEADERS = ["variation", "metric", "base", "new", "new/base", "worse", "runs", "significance", "limit", "verdict"]


def _num(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float) and abs(v) < 1:
        return f"{v:.4f}"
    return f"{v:,.1f}" if isinstance(v, float) else f"{v:,}"


def compare_cells(c: FileComparison) -> list[list[str]]:
    rows = []
    for r in c.rows:
        if r.significant is None:
            sig = "not enough data"
        else:
            sig = f"{'significant' if r.significant else 'not significant'} (Welch p={r.p_value:.3g})"
        rows.append([
            r.variation, r.metric, _num(r.base), _num(r.new), "–" if r.ratio is None else f"{r.ratio:.3f}x",
            "–" if r.worse_pct is None else f"{r.worse_pct:+.2f}%", f"{r.n_base}/{r.n_new}", sig,
            "–" if r.limit_pct is None else f"{r.limit_pct:g}%", "REGRESSION" if r.regressed else "ok",
        ])
    return rows


def compare_markdown(c: FileComparison) -> str:
    from .report import markdown_table

    verdict = "**Regression**: at least one metric is worse than its limit." if c.regressed else \
        "No regression beyond the limits."
    lines = ["## loadgen compare", "", verdict, "", markdown_table(COMPARE_HEADERS, compare_cells(c))]
    if c.notes:
        lines += ["", *[f"- {n}" for n in c.notes]]
    return "\n".join(lines) + "\n"


# -- predict --------------------------------------------------------------------------------------
def forecast_rows(fc, pool_bytes: int) -> list[tuple[str, str]]:
    g, at = fc.geometry, fc.at
    return [
        ("table", f"{g.rows:,} rows, {g.leaf_pages:,} leaf pages, height {g.height}, {g.n_pages:,} pages touched"),
        ("workload", f"{fc.order}, {fc.queries:,} queries"),
        ("pool", f"{format_bytes(pool_bytes)}: {at.pool_pages:,} pages, {at.capacity_pages:,} hold data "
                 f"(page-cleaner reserve), {at.qps:,.0f} queries/s assumed"),
        ("predicted reads", f"{at.reads:,}  ({at.model})"),
        ("read requests", f"{at.read_requests:,}"),
        ("hit ratio", f"{at.hit_ratio * 100:.3f}%  (miss ratio {(1 - at.hit_ratio) * 100:.3f}%)"),
        ("plain LRU reads", f"{at.plain_lru_reads:,}  (naive baseline, "
                            f"{(at.plain_lru_reads / at.reads - 1) * 100 if at.reads else 0:+.1f}% vs the model)"),
        ("pages made young", f"{at.made_young:,}"),
    ]


def _reads_se(reads: int, se: float) -> str:
    return f"{reads:,} ± {se:,.0f}" if se else f"{reads:,}"


def curve_cells(fc) -> list[list[str]]:
    return [[format_bytes(p.pool_bytes), f"{p.capacity_pages:,}", _reads_se(p.reads, getattr(p, "reads_se", 0.0)),
             f"{p.miss_ratio * 100:.3f}%", f"{p.plain_lru_reads:,}", f"{p.plain_lru_miss_ratio * 100:.3f}%"]
            for p in fc.curve]


# -- advise ---------------------------------------------------------------------------------------
ADVICE_HEADERS = ["size factor", "pool", "est. pages read", "read factor", "est. read time", ""]


def advice_cells(adv) -> list[list[str]]:
    """One row per size factor, as V$DB_CACHE_ADVICE lists them (± = the miniature's standard error)."""
    rows = []
    for r in adv.rows:
        mark = "current" if r.factor == 1.0 else ("knee" if r.pool_bytes == adv.knee_bytes else "")
        rows.append([f"{r.factor:g}x", format_bytes(r.pool_bytes), _reads_se(r.reads, r.reads_se),
                     f"{r.read_factor:.4f}", f"{r.read_time_s:,.1f} s", mark])
    return rows


def advice_lines(adv) -> list[str]:
    from .units import format_bytes as fb

    lines = [adv.knee_note, adv.marginal,
             f"pools rounded up to {fb(adv.unit_bytes)} (innodb_buffer_pool_chunk_size x instances), "
             f"none above {fb(adv.ram_bytes)} of memory; read time = reads x {adv.ms_per_read:g} ms "
             f"({adv.ms_per_read_source})"]
    if adv.dropped:
        lines.append("left out (above the memory limit): " + ", ".join(f"{f:g}x" for f in adv.dropped))
    return lines


def advice_dict(adv) -> dict:
    import dataclasses

    d = dataclasses.asdict(adv)
    d.pop("estimates", None)
    return d


CURVE_HEADERS = ["pool", "data pages", "reads (InnoDB LRU)", "miss ratio", "reads (plain LRU)", "miss ratio (LRU)"]


# -- sweep ----------------------------------------------------------------------------------------
SWEEP_HEADERS = ["order", "pool", "measured reads", "predicted", "error", "plain LRU", "miss ratio", "qps"]


def sweep_cells(sweep: dict) -> list[list[str]]:
    rows = []
    for p in sweep["points"]:
        rows.append([p["variation"], format_bytes(p["pool_bytes"]), _num(p["reads"]), _num(p["predicted_reads"]),
                     "–" if p.get("error_pct") is None else f"{p['error_pct']:+.2f}%", _num(p["plain_lru_reads"]),
                     "–" if p["miss_ratio"] is None else f"{p['miss_ratio'] * 100:.3f}%", _num(p["qps"])])
    return rows


# -- plots ----------------------------------------------------------------------------------------
def _plt():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _label(r: dict) -> str:
    wl, srv = r.get("workload") or {}, r.get("server") or {}
    return f"{wl.get('variation') or wl.get('order')} @ {format_bytes(srv.get('innodb_buffer_pool_size') or 0)}"


def plot_time_series(runs: list[dict]):
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for r in runs:
        s = [x for x in r.get("samples") or [] if x.get("t_s") is not None]
        if not s:
            continue
        t = [x["t_s"] for x in s]
        ax1.plot(t, [(x.get("hit_ratio") or 0) * 100 for x in s], label=_label(r))
        ax2.plot(t, [x.get("reads") or 0 for x in s], label=_label(r))
    ax1.set_ylabel("hit ratio (%) per interval")
    ax2.set_ylabel("buffer-pool reads per interval")
    ax2.set_xlabel("time (s)")
    ax1.legend(fontsize=8)
    ax1.set_title("Hit ratio and reads over time")
    fig.tight_layout()
    return fig


def plot_latency(runs: list[dict]):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4))
    for r in runs:
        lat = (r.get("result") or {}).get("latency_us") or {}
        keys = [k for k in ("p50", "p95", "p99", "p999", "max") if lat.get(k) is not None]
        ax.plot(keys, [lat[k] for k in keys], marker="o", label=_label(r))
    ax.set_yscale("log")
    ax.set_ylabel("latency (µs)")
    ax.set_title("Latency distribution (percentiles)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_curve(sweep: dict):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    mib = 1 << 20
    for key in sorted({p["variation"] for p in sweep["points"]}):
        pts = sorted((p for p in sweep["points"] if p["variation"] == key), key=lambda p: p["pool_bytes"])
        line, = ax.plot([p["pool_bytes"] / mib for p in pts], [p["reads"] for p in pts], "o", ms=8,
                        label=f"{key} measured")
        color = line.get_color()
        curve = (sweep.get("curves") or {}).get(key) or []
        if curve:
            ax.plot([c["pool_bytes"] / mib for c in curve], [c["reads"] for c in curve], "-", color=color,
                    label=f"{key} predicted (InnoDB LRU)")
            ax.plot([c["pool_bytes"] / mib for c in curve], [c["plain_lru_reads"] for c in curve], ":", color=color,
                    label=f"{key} plain LRU")
        rec = (sweep.get("recommendation") or {}).get(key)
        if rec:
            ax.axvline(rec["pool_bytes"] / mib, color=color, ls="--", alpha=0.6)
            ax.annotate(f"{key}: {format_bytes(rec['pool_bytes'])}", (rec["pool_bytes"] / mib, ax.get_ylim()[1]),
                        color=color, fontsize=8, va="top")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("innodb_buffer_pool_size (MiB)")
    ax.set_ylabel("buffer-pool reads")
    ax.set_title("Miss-ratio curve: measured, predicted, plain LRU; recommended size dashed")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_curve_band(series: list[dict], title: str = "Miss-ratio curve per access order"):
    """The predicted curve with a band of ±2 standard errors, measured points, the knee and the
    current pool, one colour per order. series: [{key, curve: [(pool_bytes, reads, se)],
    measured: [(pool_bytes, reads)], knee: bytes|None, current: bytes|None}]."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    mib = 1 << 20
    for s in series:
        pts = sorted(s.get("curve") or [])
        if not pts:
            continue
        x = [b / mib for b, _, _ in pts]
        y = [r for _, r, _ in pts]
        line, = ax.plot(x, y, "-", lw=2, label=f"{s['key']} predicted")
        color = line.get_color()
        if any(se for _, _, se in pts):
            ax.fill_between(x, [r - 2 * se for _, r, se in pts], [r + 2 * se for _, r, se in pts], color=color,
                            alpha=0.2, lw=0, label=f"{s['key']} ±2 std. errors (miniatures)")
        meas = sorted(s.get("measured") or [])
        if meas:
            ax.plot([b / mib for b, _ in meas], [r for _, r in meas], "o", ms=8, color=color, mfc="white", mec=color,
                    mew=2, label=f"{s['key']} measured")
        if s.get("knee"):
            ky = min(pts, key=lambda p: abs(p[0] - s["knee"]))[1]
            ax.plot([s["knee"] / mib], [ky], "D", ms=10, color=color)
            ax.annotate(f"knee {format_bytes(s['knee'])}", (s["knee"] / mib, ky), textcoords="offset points",
                        xytext=(6, 8), color=color, fontsize=9, fontweight="bold")
        if s.get("current"):
            ax.axvline(s["current"] / mib, color="0.3", ls="--", lw=1)
            ax.annotate(f"current {format_bytes(s['current'])}", (s["current"] / mib, 1.0), xycoords=("data", "axes fraction"),
                        textcoords="offset points", xytext=(4, -12), fontsize=8, color="0.3")
    from matplotlib.ticker import FuncFormatter

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(v * mib).replace(" ", "")))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel("innodb_buffer_pool_size (log scale)")
    ax.set_ylabel("buffer-pool reads (pages)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


def sweep_series(sweep: dict) -> list[dict]:
    """plot_curve_band's input from a sweep: its curves, measured points and recommendation."""
    from .advise import knee_index

    out = []
    for key in sorted({p["variation"] for p in sweep["points"]}):
        curve = sorted((c["pool_bytes"], c["reads"], c.get("reads_se") or 0.0)
                       for c in (sweep.get("curves") or {}).get(key) or [])
        k = knee_index([c[0] for c in curve], [c[1] for c in curve])[0] if len(curve) >= 3 else None
        out.append({"key": key, "curve": curve,
                    "measured": [(p["pool_bytes"], p["reads"]) for p in sweep["points"]
                                 if p["variation"] == key and p["reads"] is not None],
                    "knee": curve[k][0] if k is not None else None,
                    "current": ((sweep.get("recommendation") or {}).get(key) or {}).get("pool_bytes")})
    return out


def advice_series(advs: list) -> list[dict]:
    return [{"key": a.order, "curve": a.curve, "measured": [], "knee": a.knee_bytes, "current": a.current_bytes}
            for a in advs]


def write_curve_plots(series: list[dict], directory: Path, title: str) -> list[Path]:
    """curve.png and curve.svg from plot_curve_band."""
    directory.mkdir(parents=True, exist_ok=True)
    fig = plot_curve_band(series, title)
    paths = []
    for ext in ("png", "svg"):
        path = directory / f"curve.{ext}"
        fig.savefig(path, format=ext, dpi=110)
        paths.append(path)
    _plt().close(fig)
    return paths


def figures(results: list[dict]) -> list[tuple[str, object]]:
    """(name, figure) for what the given files hold: runs and/or sweeps."""
    sweeps = [r for r in results if r.get("kind") == "sweep"]
    runs = [r for r in results if r.get("kind") != "sweep"]
    for s in sweeps:
        from .results import load

        for p in s["points"]:
            try:
                runs.append(load(p["result_file"]))
            except Exception:  # noqa: BLE001 - the sweep file alone still draws the curve
                pass
    out = []
    if runs:
        out += [("timeseries", plot_time_series(runs)), ("latency", plot_latency(runs))]
    for i, s in enumerate(sweeps):
        out.append((f"curve{i + 1 if len(sweeps) > 1 else ''}",
                    plot_curve_band(sweep_series(s), "Miss-ratio curve: predicted (band ±2 SE), measured, knee; "
                                                     "dashed: recommended")))
    return out


def write_plots(results: list[dict], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures(results):
        for ext in ("png", "svg"):
            path = directory / f"{name}.{ext}"
            fig.savefig(path, format=ext, dpi=110)
            paths.append(path)
        _plt().close(fig)
    return paths


def html_page(results: list[dict]) -> str:
    """One self-contained page: images embedded as data: URIs, a marker set once they all decode."""
    parts = []
    for name, fig in figures(results):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        _plt().close(fig)
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        parts.append(f'<figure><img id="plot-{name}" alt="{name}" src="data:image/png;base64,{data}"></figure>')
    recs = []
    for r in results:
        for key, rec in (r.get("recommendation") or {}).items():
            recs.append(f"<li><b>{html.escape(key)}</b>: {html.escape(format_bytes(rec['pool_bytes']))} — "
                        f"{html.escape(rec['reason'])}</li>")
    rows = []
    for r in results:
        if r.get("kind") == "sweep":
            rows += [[html.escape(str(c)) for c in cells] for cells in sweep_cells(r)]
    table = ""
    if rows:
        table = ("<table><tr>" + "".join(f"<th>{h}</th>" for h in SWEEP_HEADERS) + "</tr>"
                 + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</table>")
    # The marker lets a headless browser (and a test) tell that every image really decoded.
    script = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.length > 0 && imgs.every(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute('data-images-loaded', ok ? 'all' : 'missing');
  document.getElementById('status').textContent = ok ? ('images loaded: ' + imgs.length) : 'images missing';
});
</script>"""
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>loadgen report</title>
<style>body{{font-family:sans-serif;max-width:960px;margin:2em auto}}img{{max-width:100%}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}}</style>
</head><body><h1>loadgen report</h1><p id="status">loading</p>
{"<h2>Recommendation</h2><ul>" + "".join(recs) + "</ul>" if recs else ""}
{table}
{"".join(parts)}
{script}
</body></html>
"""

"""Plots and the HTML page of `loadgen report`: hit ratio and reads over time, latency, and a
sweep's miss-ratio curve. Tables and markdown are report.py's.

matplotlib is imported lazily so `loadgen --help` and compare never pay for it.
"""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from ..results.documents import Document, RunResult, SweepResult, load, pages_read
from ..units import format_bytes


# -- plots ----------------------------------------------------------------------------------------
def _plt():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _label(r: RunResult) -> str:
    return f"{r.key} @ {format_bytes(r.pool_bytes or 0)}"


def headline_of(point: dict, flavor: str | None):
    """The headline of a sample or sweep point (results.documents.pages_read, RunResult.headline's
    rule): format-1 files had only reads, which on MySQL leave read-ahead out."""
    return pages_read(point, flavor)[0]


def plot_time_series(runs: list[RunResult]):
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for r in runs:
        s = [x for x in r.samples if x.get("t_s") is not None]
        if not s:
            continue
        t = [x["t_s"] for x in s]
        ax1.plot(t, [(x.get("hit_ratio") or 0) * 100 for x in s], label=_label(r))
        ax2.plot(t, [headline_of(x, r.server.get("flavor")) or 0 for x in s], label=_label(r))
    ax1.set_ylabel("hit ratio (%) per interval")
    ax2.set_ylabel("pages read into the pool per interval")
    ax2.set_xlabel("time (s)")
    if ax1.get_legend_handles_labels()[0]:  # runs without samples draw nothing to label
        ax1.legend(fontsize=8)
    ax1.set_title("Hit ratio and pages read over time")
    fig.tight_layout()
    return fig


def _finish(fig, ax, ylabel: str, title: str):
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_latency(runs: list[RunResult]):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4))
    for r in runs:
        lat = r.result.get("latency_us") or {}
        keys = [k for k in ("p50", "p95", "p99", "p999", "max") if lat.get(k) is not None]
        ax.plot(keys, [lat[k] for k in keys], marker="o", label=_label(r))
    ax.set_yscale("log")
    return _finish(fig, ax, "latency (µs)", "Latency distribution (percentiles)")


def plot_curve_band(series: list[dict], title: str = "Miss-ratio curve per access order"):
    """The predicted curve with a band of ±2 standard errors, measured points, the knee and the
    current pool, one colour per order. series: [{key, curve: [(pool_bytes, reads, se)],
    measured: [(pool_bytes, reads)], knee: bytes|None, current: bytes|None}]."""
    from matplotlib.ticker import FuncFormatter

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
            ax.annotate(f"current {format_bytes(s['current'])}", (s["current"] / mib, 1.0),
                        xycoords=("data", "axes fraction"), textcoords="offset points", xytext=(4, -12), fontsize=8,
                        color="0.3")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(v * mib).replace(" ", "")))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel("innodb_buffer_pool_size (log scale)")
    ax.set_ylabel("pages read into the pool")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


def sweep_series(sweep: SweepResult) -> list[dict]:
    """plot_curve_band's input from a sweep: its curves, measured points and recommendation."""
    from ..analysis.advise import knee_index

    out, flavor = [], (sweep.server or {}).get("flavor")
    for key in sorted({p["variation"] for p in sweep.points}):
        curve = sorted((c["pool_bytes"], c["reads"], c.get("reads_se") or 0.0)
                       for c in (sweep.curves or {}).get(key) or [])
        k = knee_index([c[0] for c in curve], [c[1] for c in curve])[0] if len(curve) >= 3 else None
        out.append({"key": key, "curve": curve,
                    "measured": [(p["pool_bytes"], headline_of(p, flavor)) for p in sweep.points
                                 if p["variation"] == key and headline_of(p, flavor) is not None],
                    "knee": curve[k][0] if k is not None else None,
                    "current": ((sweep.recommendation or {}).get(key) or {}).get("pool_bytes")})
    return out


def advice_series(advs: list) -> list[dict]:
    return [{"key": a.order, "curve": a.curve, "measured": [], "knee": a.knee_bytes, "current": a.current_bytes}
            for a in advs]


def write_curve_plots(series: list[dict], directory: Path, title: str) -> list[Path]:
    """curve.png and curve.svg from plot_curve_band."""
    directory.mkdir(parents=True, exist_ok=True)
    return _save(plot_curve_band(series, title), directory, "curve")


def _save(fig, directory: Path, name: str) -> list[Path]:
    """The figure as NAME.png and NAME.svg in directory, then closed."""
    paths = []
    for ext in ("png", "svg"):
        path = directory / f"{name}.{ext}"
        fig.savefig(path, format=ext, dpi=110)
        paths.append(path)
    _plt().close(fig)
    return paths


def collect(results: list[Document]) -> tuple[list[RunResult], list[SweepResult]]:
    """The runs to show (those given, then each sweep point's run file where it can be read) and
    the sweeps."""
    sweeps = [r for r in results if isinstance(r, SweepResult)]
    runs = [r for r in results if isinstance(r, RunResult)]
    for s in sweeps:
        for p in s.points:
            try:
                runs.append(load(p["result_file"], kind="run"))
            except Exception:  # noqa: BLE001 - the sweep file alone still draws the curve
                pass
    return runs, sweeps


def figures(results: list[Document], collected: tuple | None = None) -> list[tuple[str, object]]:
    """(name, figure) for what the given files hold: runs and/or sweeps (collected: collect()'s
    answer, when the caller has it already)."""
    runs, sweeps = collected or collect(results)
    out = []
    if runs:
        out += [("timeseries", plot_time_series(runs)), ("latency", plot_latency(runs))]
    for i, s in enumerate(sweeps):
        out.append((f"curve{i + 1 if len(sweeps) > 1 else ''}",
                    plot_curve_band(sweep_series(s), "Miss-ratio curve: predicted (band ±2 SE), measured, knee; "
                                                     "dashed: recommended")))
    return out


def write_plots(results: list[Document], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures(results):
        paths += _save(fig, directory, name)
    return paths


def html_page(results: list[Document]) -> str:
    """One self-contained page: what ran (server and version, pool, dataset, workload, host),
    the numbers (pages read against the prediction, hit ratio, q/s, latency percentiles and
    kind), a sweep's table and recommendation, then the plots, embedded as data: URIs."""
    from .. import __version__
    from .report import (CONTEXT_HEADERS, RUN_HEADERS, SWEEP_HEADERS, context_cells, html_table, recommendation_lines,
                         run_cells, sweep_cells)
    from ..results.documents import now_iso

    runs, sweeps = collect(results)
    parts = [f"<p class=\"meta\">loadgen {html.escape(__version__)}, {html.escape(now_iso())}; "
             + html.escape(", ".join(str(getattr(r, "source", "")) for r in results)) + "</p>"]
    for i, s in enumerate(sweeps):
        parts.append(f"<h2>Sweep{f' {i + 1}' if len(sweeps) > 1 else ''}</h2>")
        parts.append(html_table(SWEEP_HEADERS, sweep_cells(s), css_class="numbers"))
        recs = recommendation_lines(s)
        if recs:
            parts.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in recs) + "</ul>")
    if runs:
        parts.append("<h2>Runs</h2>")
        parts.append(html_table(CONTEXT_HEADERS, context_cells(runs), caption="what ran", css_class="context"))
        parts.append(html_table(RUN_HEADERS, run_cells(runs), caption="what it measured", css_class="numbers"))
        busy = [r for r in runs if (r.host or {}).get("busy")]
        if busy:
            parts.append("<p class=\"warn\">" + html.escape(
                f"{len(busy)} of these runs ran on a busy host: their q/s and latency may be off "
                "(see the host column)") + "</p>")
    figs = []
    for name, fig in figures(results, (runs, sweeps)):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        _plt().close(fig)
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        figs.append(f'<figure><img id="plot-{name}" alt="{name}" src="data:image/png;base64,{data}"></figure>')
    if figs:
        parts += ["<h2>Plots</h2>", *figs]
    # A headless browser (and a test) can tell that every image really decoded from this
    # attribute; nothing of it shows on the page.
    script = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.length > 0 && imgs.every(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute('data-images-loaded', ok ? 'all' : 'missing');
  document.body.setAttribute('data-images', String(imgs.length));
});
</script>"""
    body = "\n".join(parts)
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>loadgen report</title>
<style>body{{font-family:sans-serif;max-width:1200px;margin:2em auto}}img{{max-width:100%}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:2px 6px}}
table.numbers td{{text-align:right}}table.numbers td:first-child{{text-align:left}}
caption{{text-align:left;font-weight:bold}}.meta{{color:#666}}.warn{{color:#a60}}</style>
</head><body><h1>loadgen report</h1>
{body}
{script}
</body></html>
"""

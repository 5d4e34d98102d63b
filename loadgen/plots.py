"""Plots and the HTML page of `loadgen report`: hit ratio and reads over time, latency, and a
sweep's miss-ratio curve. Tables and markdown are report.py's.

matplotlib is imported lazily so `loadgen --help` and compare never pay for it.
"""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from .report import SWEEP_HEADERS, sweep_cells
from .results import Document, RunResult, SweepResult, load
from .units import format_bytes


# -- plots ----------------------------------------------------------------------------------------
def _plt():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _label(r: RunResult) -> str:
    return f"{r.key} @ {format_bytes(r.pool_bytes or 0)}"


def plot_time_series(runs: list[RunResult]):
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for r in runs:
        s = [x for x in r.samples if x.get("t_s") is not None]
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


def _finish(fig, ax, ylabel: str, title: str):
    ax.set_ylabel(ylabel)
    ax.set_title(title)
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


def plot_curve(sweep: SweepResult):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    mib = 1 << 20
    for key in sorted({p["variation"] for p in sweep.points}):
        pts = sorted((p for p in sweep.points if p["variation"] == key), key=lambda p: p["pool_bytes"])
        line, = ax.plot([p["pool_bytes"] / mib for p in pts], [p["reads"] for p in pts], "o", ms=8,
                        label=f"{key} measured")
        color = line.get_color()
        curve = sweep.curves.get(key) or []
        if curve:
            ax.plot([c["pool_bytes"] / mib for c in curve], [c["reads"] for c in curve], "-", color=color,
                    label=f"{key} predicted (InnoDB LRU)")
            ax.plot([c["pool_bytes"] / mib for c in curve], [c["plain_lru_reads"] for c in curve], ":", color=color,
                    label=f"{key} plain LRU")
        rec = sweep.recommendation.get(key)
        if rec:
            ax.axvline(rec["pool_bytes"] / mib, color=color, ls="--", alpha=0.6)
            ax.annotate(f"{key}: {format_bytes(rec['pool_bytes'])}", (rec["pool_bytes"] / mib, ax.get_ylim()[1]),
                        color=color, fontsize=8, va="top")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("innodb_buffer_pool_size (MiB)")
    return _finish(fig, ax, "buffer-pool reads",
                   "Miss-ratio curve: measured, predicted, plain LRU; recommended size dashed")


def figures(results: list[Document]) -> list[tuple[str, object]]:
    """(name, figure) for what the given files hold: runs and/or sweeps."""
    sweeps = [r for r in results if isinstance(r, SweepResult)]
    runs = [r for r in results if isinstance(r, RunResult)]
    for s in sweeps:
        for p in s.points:
            try:
                runs.append(load(p["result_file"], kind="run"))
            except Exception:  # noqa: BLE001 - the sweep file alone still draws the curve
                pass
    out = []
    if runs:
        out += [("timeseries", plot_time_series(runs)), ("latency", plot_latency(runs))]
    for i, s in enumerate(sweeps):
        out.append((f"curve{i + 1 if len(sweeps) > 1 else ''}", plot_curve(s)))
    return out


def write_plots(results: list[Document], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures(results):
        for ext in ("png", "svg"):
            path = directory / f"{name}.{ext}"
            fig.savefig(path, format=ext, dpi=110)
            paths.append(path)
        _plt().close(fig)
    return paths


def html_page(results: list[Document]) -> str:
    """One self-contained page: images embedded as data: URIs, a marker set once they all decode."""
    parts = []
    for name, fig in figures(results):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        _plt().close(fig)
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        parts.append(f'<figure><img id="plot-{name}" alt="{name}" src="data:image/png;base64,{data}"></figure>')
    sweeps = [r for r in results if isinstance(r, SweepResult)]
    recs = []
    for r in sweeps:
        for key, rec in r.recommendation.items():
            recs.append(f"<li><b>{html.escape(key)}</b>: {html.escape(format_bytes(rec['pool_bytes']))} — "
                        f"{html.escape(rec['reason'])}</li>")
    rows = []
    for r in sweeps:
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

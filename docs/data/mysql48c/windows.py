"""The 48M runs' reads by window of the run (docs/capture.md, "The tables' re-reads at 48M", branch
mysql48c): the server's from its samples (free_frames: reads, undo pages, system pages read so far),
the model's on the trace's first t/run_s of operations (docs/data/mysql48/split.py's regions), and the
server's data pages (Innodb_buffer_pool_pages_data) in each window; then the levers tried on the whole
runs: the capacity a few frames under the model's, the start-up pages as the server had them
(Innodb_buffer_pool_pages_data at the run's start), MySQL's change buffer off.

    cd <worktree> && PYTHONPATH=. .venv/bin/python docs/data/mysql48c/windows.py
"""
import dataclasses
import gzip
import json
import sys
import tempfile
from pathlib import Path

RUNS = Path(__file__).resolve().parent.parent / "mysql48"
sys.path.insert(0, str(RUNS))
import split  # noqa: E402

from loadgen.analysis import tracegeometry  # noqa: E402
from loadgen.analysis import tracesample as ts  # noqa: E402
from loadgen.workload import optrace as ot  # noqa: E402

_pools, over = tracegeometry.pools_of, {}


def pools_of(*a, **k):
    return [(b, dataclasses.replace(p, **over)) for b, p in _pools(*a, **k)]


def runs(tmp, names=("rw48", "rw48b", "rw16")):
    for name in names:
        for run in json.loads(gzip.decompress((RUNS / f"{name}.json.gz").read_bytes())):
            trace = Path(tmp) / run["trace"].removesuffix(".gz")
            trace.write_bytes(gzip.decompress((RUNS / run["trace"]).read_bytes()))
            yield name, run, trace, json.loads(gzip.decompress((RUNS / run["predict"]).read_bytes()))


def windows(tmp) -> None:
    print("| run | q/s | tables by 2 s: server, model | 2-5 s | 5 s-end | whole run | undo + headers by 5 s "
          "| after 5 s | server data pages, mean 2-5 s / after 5 s |")
    print("|---|---:|---|---|---|---|---|---|---|")
    for name, run, trace, doc in runs(tmp, ("rw48", "rw48b")):
        _, count, _ = ot.read_header(trace)
        ff, end = run["free_frames"], run["run_s"]
        server, model = {}, {}
        for t in (2, 5, end):
            s = min(ff, key=lambda r: abs(r[0] - t))
            server[t] = (s[3] - s[4] - s[5], s[4] + s[5])  # tables (and the few other pages), undo + system
            _, d = split.predict(run, trace, doc, int(count * s[0] / end))
            model[t] = (d["tables"], d["undo"] + d["hdr"])

        def part(w, i, a, b):
            return w[b][i] - (w[a][i] if a else 0)

        def mean(a, b, ff=ff):
            xs = [r[2] for r in ff if a <= r[0] < b]
            return sum(xs) / len(xs)
        cells = [f"{part(server, 0, a, b):,}, {part(model, 0, a, b):,}"
                 for a, b in ((0, 2), (2, 5), (5, end), (0, end))]
        print(f"| {name} #{run['run']} | {run['qps']:,.0f} | " + " | ".join(cells)
              + f" | {server[5][1]}, {model[5][1]} | {part(server, 1, 5, end)}, {part(model, 1, 5, end)} "
              f"| {mean(2, 5):,.0f} / {mean(5, end):,.0f} |")


def levers(tmp) -> None:
    tracegeometry.pools_of = pools_of
    print("\n| run | server read | model | capacity -10 | -20 | -30 | -40 | start-up pages as measured "
          "| change buffer off |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, run, trace, doc in runs(tmp):
        s, cap = run["server_read"], _pools([run["pool_bytes"]], "mysql", {}, 1000.0)[0][1].capacity_pages
        cells = []
        shifts = [{}] + [{"capacity_pages": cap - k} for k in (10, 20, 30, 40)]
        for o in shifts + [{"start_pages": run["free_frames"][0][2]}]:
            over.clear()
            over.update(o)
            m, _ = split.predict(run, trace, doc)
            cells.append(f"{m:,} ({100 * (m - s) / s:+.1f}%)")
        over.clear()
        m, _ = split.predict(run, trace, {**doc, "change_buffering": "none"})
        cells.append(f"{m:,} ({100 * (m - s) / s:+.1f}%)")
        print(f"| {name} #{run['run']} ({run['pool_bytes'] >> 20}M, {run['free_frames'][0][2]:,} at start) | {s:,} | "
              + " | ".join(cells) + " |")
    over.clear()


def main() -> None:
    ts.exact, ot.chunks = split.exact, split.chunks
    with tempfile.TemporaryDirectory() as tmp:
        windows(tmp)
        levers(tmp)


if __name__ == "__main__":
    main()

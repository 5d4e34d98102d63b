"""What the model's list does at 48M, read from the debug build (lrudbg.patch: a patched, built copy of
the tree at DBG_TREE), against the servers' samples (docs/capture.md, "The tables' re-reads at 48M",
branch mysql48c): the data pages each holds by window, the pages the LRU batches write, the moves to
the young sublist; then two replays that are not models: the frames the server's batches wrote beyond
the model's evicted after each batch (LRUOVER), and the trace's clock as the server's redo was written
(LRUWARP, from the runs' log_lsn_current each second).

    DBG_TREE=/path/to/patched/copy .venv/bin/python docs/data/mysql48c/dbgbuild.py
"""
import collections
import gzip
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE.parent / "mysql48"
DBG = os.environ["DBG_TREE"]
HELD = 12  # the model's frames for pages it does not name (pool.mysql_write_held_pages(2))
FIVE = [("rw48", 0), ("rw48", 1), ("rw48", 2), ("rw48b", 0), ("rw48b", 1)]
ONE = """
import gzip, json, sys
from pathlib import Path
sys.path.insert(0, {runs!r})
import split
from loadgen.analysis import tracesample as ts
from loadgen.workload import optrace as ot
ts.exact, ot.chunks = split.exact, split.chunks
run = json.loads(gzip.decompress(Path({runs!r}, {name!r} + ".json.gz").read_bytes()))[{i}]
tr = Path({tmp!r}); tr.write_bytes(gzip.decompress(Path({runs!r}, run["trace"]).read_bytes()))
doc = json.loads(gzip.decompress(Path({runs!r}, run["predict"]).read_bytes()))
print(json.dumps(split.predict(run, tr, doc)))
"""


def run_of(name, i):
    return json.loads(gzip.decompress((RUNS / f"{name}.json.gz").read_bytes()))[i]


def predict(name, i, **env):
    """The debug build's prediction of one run ((total, regions)), with its dumps where env names them."""
    code = ONE.format(runs=str(RUNS), name=name, i=i, tmp=f"/tmp/mysql48c-{name}-{i}.optrace")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env, "PYTHONPATH": DBG},
                         cwd=DBG, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def dumps(name, i):
    t_path, b_path = f"/tmp/mysql48c-t-{name}-{i}", f"/tmp/mysql48c-b-{name}-{i}"
    for p in (t_path, b_path):
        Path(p).unlink(missing_ok=True)
    predict(name, i, LRUDBG=t_path, LRUDBG_B=b_path)
    batches = collections.defaultdict(list)
    for line in open(b_path):
        p, t, n, w, ln, _ = line.split()
        batches[p].append((float(t), int(n), int(w), int(ln)))
    # the base pool's simulations (one a cleaner phase): the list a batch leaves is 2,036 less what it
    # still writes; heldspread's pools leave ~38 fewer or more
    base = [p for p, rows in batches.items() if 2000 <= statistics.median(r[3] for r in rows[3:]) <= 2040]
    sims, moves = collections.defaultdict(list), {}
    for line in open(t_path):
        f = line.split()
        if len(f) > 3 and f[1] == "T" and f[0] in base:
            d = dict(zip(f[3::2], f[4::2]))
            sims[f[0]].append((float(f[2]), int(d["len"])))
            moves[f[0]] = (int(d["young"]), int(d["notyoung"]))
    return base, batches, sims, moves


def rng(xs):
    return f"{min(xs):,.0f}-{max(xs):,.0f}"


def frames() -> dict:
    print("| run | server data pages, mean 0-2 s / 2-5 s / after 5 s | model's list + 12, the same (4 phases) "
          "| server's LRU-batch writes (batches) | model's | made young, not: server "
          "| model (to 250 ms before the end) |")
    print("|---|---|---|---:|---|---|---|")
    writes = {}
    for name, i in FIVE:
        run = run_of(name, i)
        base, batches, sims, moves = dumps(name, i)
        ff, end = run["free_frames"], run["run_s"]

        def smean(a, b, ff=ff):
            return statistics.mean(r[2] for r in ff if a <= r[0] < b)

        def mmean(rows, a, b):
            return statistics.mean(n + HELD for t, n in rows if a * 1000 <= t < b * 1000)
        ms = list(sims.values())
        w = [sum(r[2] for r in batches[p]) for p in base]
        writes[(name, i)] = statistics.mean(w)
        lm = run["lru_moves"]
        print(f"| {name} #{i} | {smean(0, 2):,.0f} / {smean(2, 5):,.0f} / {smean(5, end):,.0f} "
              f"| {rng([mmean(r, 0, 2) for r in ms])} / {rng([mmean(r, 2, 5) for r in ms])} / "
              f"{rng([mmean(r, 5, end) for r in ms])} | {run['flush']['lru_batch_flushed']} "
              f"({run['counters']['buffer_LRU_batches_flush']}) | {rng(w)} "
              f"| {lm['made_young']:,}, {lm['not_made_young']:,} "
              f"| {rng([m[0] for m in moves.values()])}, {rng([m[1] for m in moves.values()])} |")
    return writes


def replay(writes: dict) -> None:
    print("\n| run | server read | model | frames a batch replayed | then | tables: server, model, replayed "
          "| undo log pages | headers |")
    print("|---|---:|---:|---:|---:|---|---|---|")
    for name, i in FIVE:
        run = run_of(name, i)
        s, t, f = run["server_read"], run["page_types"], run["file_reads"]
        k = max(0, round((run["flush"]["lru_batch_flushed"] - writes[(name, i)])
                         / run["counters"]["buffer_LRU_batches_flush"]))
        (m0, d0), (m1, d1) = predict(name, i), predict(name, i, LRUOVER=str(k))
        tables = f.get("sbtest1.ibd", 0) + f.get("sbtest2.ibd", 0)
        print(f"| {name} #{i} | {s:,} | {m0:,} ({100 * (m0 - s) / s:+.1f}%) | {k} "
              f"| {m1:,} ({100 * (m1 - s) / s:+.1f}%) "
              f"| {tables:,}, {d0['tables']:,}, {d1['tables']:,} | {t.get('undo_log', 0)}, {d0['undo']}, {d1['undo']} "
              f"| {t.get('system_page', 0)}, {d0['hdr']}, {d1['hdr']} |")


def clock() -> None:
    print("\n| run | server read | even clock | clock as the redo was written |")
    print("|---|---:|---:|---:|")
    for name, i in (("rw48", 1), ("rw48", 2)):  # rw48 #0 (the first after the load) wrote redo unevenly
        run = run_of(name, i)
        doc = json.loads(gzip.decompress((RUNS / run["predict"]).read_bytes()))
        n, span = doc["operations"], doc["operations"] / doc["qps"]
        lt = run["lru_tail"]
        rate = (lt[-1]["lsn"] - lt[-2]["lsn"]) / (lt[-1]["t"] - lt[-2]["t"])  # the last second's, to the end
        last = lt[-1]["lsn"] + rate * (run["run_s"] - lt[-1]["t"])
        pts = [(x["t"] * span / run["run_s"], (x["lsn"] - lt[0]["lsn"]) / (last - lt[0]["lsn"])) for x in lt]
        s = run["server_read"]
        cells = []
        for p in ([(0, 0), (span, 1)], pts + [(span, 1)]):
            m, _ = predict(name, i, LRUWARP=f"{n}" + "".join(f";{t:.4f},{f:.5f}" for t, f in p))
            cells.append(f"{m:,} ({100 * (m - s) / s:+.1f}%)")
        print(f"| {name} #{i} | {s:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    replay(frames())
    clock()

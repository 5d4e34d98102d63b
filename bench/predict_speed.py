"""Prediction speed of a captured hour (issue #22, benchmarks): a synthetic op trace of tens of
millions of operations over several tables (points on skewed keys, ranges with a LIMIT, updates,
inserts at the end, deletes; autocommit), `predict --trace --schema --rows` with a curve of pools
timed in a child process (wall and CPU seconds, peak RSS), against a reference timed in the same run:
numpy's sort of as many uint32 page ids as the prediction made page references, in CPU seconds (the
cheapest thing a model of those references could do). --flavor mysql (or both: MariaDB's run, then
MySQL's, on the same trace, each with its own sort) predicts with MySQL's rules: every pool exact, its
timed cleaner's phases, a re-insert's undo log in the history (tracetxns.reinserted), no read-ahead on
a range.

    .venv/bin/python bench/predict_speed.py --ops 30000000 --rows 10000000 --pools 64M,256M,1G,4G
    .venv/bin/python bench/predict_speed.py --ops 30000000 --rows 10000000 --flavor both
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCHEMA = "".join(f"""CREATE TABLE t{i} (id BIGINT NOT NULL AUTO_INCREMENT, k INT NOT NULL, c CHAR(100) NOT NULL,
  PRIMARY KEY (id), KEY k_{i} (k));
""" for i in range(1, 5))
# the share of each kind of operation (a read-mostly application): points, ranges, updates, inserts, deletes
MIX = {"point": 0.70, "range": 0.12, "update": 0.10, "insert": 0.05, "delete": 0.03}
TABLE_SHARES = (0.55, 0.25, 0.15, 0.05)


def write_trace(path: Path, ops: int, rows: int, seed: int) -> None:
    """The trace in CHUNK_RECORDS blocks (optrace.Writer.add_records): memory stays one block."""
    from loadgen.workload import optrace as ot

    rng = np.random.default_rng(seed)
    w = ot.Writer(path)
    trees = [w.tree(f"app.t{i}", ot.PRIMARY) for i in range(1, 5)]
    kinds = np.array([ot.POINT, ot.RANGE, ot.UPDATE, ot.INSERT, ot.DELETE], dtype=np.uint8)
    shares = np.array(list(MIX.values()))
    txn, block = 0, 1 << 20
    for at in range(0, ops, block):
        n = min(block, ops - at)
        r = np.zeros(n, dtype=ot.RECORD)
        kind = kinds[rng.choice(len(kinds), n, p=shares)]
        r["kind"] = kind
        r["tree"] = np.array(trees, dtype=np.uint16)[rng.choice(4, n, p=TABLE_SHARES)]
        # skewed keys: a hot 2% of the rows takes 80% of the accesses, spread over the table
        hot = rng.random(n) < 0.8
        key = np.where(hot, (rng.integers(0, rows // 50, n) * 50 + 1), rng.integers(1, rows + 1, n))
        r["lo"] = key
        r["hi"] = key
        rng_ = kind == ot.RANGE
        r["hi"][rng_] = key[rng_] + 99
        r["extra"][rng_] = np.where(rng.random(int(rng_.sum())) < 0.5, 10, 0)
        r["extra"][kind == ot.UPDATE] = 1  # sets k: its index's entry too
        writes = np.isin(kind, (ot.INSERT, ot.UPDATE, ot.DELETE))
        r["hi"][writes] = txn + 1 + np.arange(int(writes.sum()))
        txn += int(writes.sum())
        r["flags"][kind == ot.INSERT] = ot.AUTO
        w.add_records(r)
    tables = {f"app.t{i}": {"primary_key": ["id"], "indexes": {f"k_{i}": ["k"]}} for i in range(1, 5)}
    w.close({"source": "bench/predict_speed.py", "statements": ops, "modelled": ops, "no_table": 0,
             "tables": tables})


def timed(*args: str) -> tuple[float, float, float, str]:
    """(seconds, CPU seconds (user + system, all threads), peak RSS in MiB, stdout) of a child process
    (GNU time): the CPU seconds are the figure that holds on a shared machine, the wall clock the one
    a user waits."""
    t0 = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", sys.executable, "-m", "loadgen", *args],
                         capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    rss_kib, user, system = res.stderr.strip().splitlines()[-1].split()
    return took, float(user) + float(system), int(rss_kib) / 1024, res.stdout


def reference_sort(n: int, seed: int) -> float:
    ids = np.random.default_rng(seed).integers(0, 1 << 24, n, dtype=np.uint32)
    t0 = time.process_time()
    np.sort(ids)
    return time.process_time() - t0


def predict_once(trace: Path, schema: Path, a: argparse.Namespace, flavor: str) -> None:
    """One timed prediction of the trace with one flavour's rules, and its reference sort."""
    took, cpu, rss, out = timed("predict", "--trace", str(trace), "--schema", str(schema), "--rows", str(a.rows),
                                "--pool", a.pools, "--flavor", flavor, "--format", "json")
    doc = json.loads(out)
    refs = doc["pools"][0]["read_requests"]
    ref_s = reference_sort(refs, a.seed)
    reads = ", ".join(f"{p['pool_bytes'] >> 20}M {p['pages_read']:,}" + (
        f" (sampled at {100 * p['sampled']['rate']:.1f}%, SE {p['sampled']['se_pages']:,})" if p.get("sampled") else "")
        for p in doc["pools"])
    print(f"predict ({flavor}): {doc['simulated']:,} operations, {refs:,} page references, {len(doc['pools'])} pools "
          f"({a.pools}) in {took:.1f} s ({cpu:.1f} s CPU), peak RSS {rss:,.0f} MiB "
          f"({rss * 2**20 / max(1, doc['simulated']):.0f} bytes an operation); pages read {reads}")
    print(f"reference: numpy sort of {refs:,} uint32 in {ref_s:.2f} s CPU; predict / sort = {took / ref_s:.1f} "
          f"(wall), {cpu / ref_s:.1f} (CPU)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=30_000_000)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--pools", default="64M,256M,1G,4G")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", default=None, help="Where the trace goes (default: a temporary directory).")
    ap.add_argument("--keep", action="store_true", help="Keep the trace (and reuse it when present).")
    ap.add_argument("--flavor", choices=("mariadb", "mysql", "both"), default="mariadb",
                    help="Whose InnoDB rules the prediction follows (both: one run each, MariaDB's first).")
    a = ap.parse_args()
    work = Path(a.dir or tempfile.mkdtemp(prefix="predict-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    trace, schema = work / f"bench-{a.ops}-{a.rows}.optrace", work / "app.sql"
    schema.write_text(SCHEMA)
    if not trace.exists():
        t0 = time.perf_counter()
        write_trace(trace, a.ops, a.rows, a.seed)
        print(f"trace: {a.ops:,} operations ({trace.stat().st_size / 2**20:,.0f} MiB) written in "
              f"{time.perf_counter() - t0:.1f} s")
    for flavor in (("mariadb", "mysql") if a.flavor == "both" else (a.flavor,)):
        predict_once(trace, schema, a, flavor)
    if not a.keep:
        trace.unlink()
        schema.unlink()
        if not a.dir:
            work.rmdir()


if __name__ == "__main__":
    main()

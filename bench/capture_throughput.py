"""Whole-server capture and prediction speed (issue #22, benchmarks): a synthetic sysbench-like general
log (oltp_read_write's statements on two tables, BEGIN..COMMIT), `trace capture --schema` timed
(statements/s, peak memory) and `predict --trace --schema --rows` at two pools.

    .venv/bin/python bench/capture_throughput.py --transactions 50000 --rows 1000000
"""
from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCHEMA = """CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL,
  pad CHAR(60) NOT NULL, PRIMARY KEY (id), KEY k_1 (k));
CREATE TABLE sbtest2 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL,
  pad CHAR(60) NOT NULL, PRIMARY KEY (id), KEY k_2 (k));
"""


def write_log(path: Path, transactions: int, rows: int, seed: int) -> int:
    rnd = random.Random(seed)
    n = 0
    with open(path, "w") as f:
        f.write("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB. started with:\nTcp port: 3306\n"
                "Time\t\t    Id Command\tArgument\n261125 18:00:00\t     7 Connect\troot@localhost on sbtest\n")
        for t in range(transactions):
            tbl = f"sbtest{rnd.randint(1, 2)}"
            if t % 500 == 0:
                stamp = f"261125 {18 + t // 1_800_000:02d}:{t // 30_000 % 60:02d}:{t // 500 % 60:02d}"
                f.write(f"{stamp}\t     7 Query\tBEGIN\n")
            else:
                f.write("\t\t     7 Execute\tBEGIN\n")
            lines = [f"SELECT c FROM {tbl} WHERE id={rnd.randint(1, rows)}" for _ in range(10)]
            for form in ("c", "SUM(k)", "c", "DISTINCT c"):
                a = rnd.randint(1, rows - 99)
                lines.append(f"SELECT {form} FROM {tbl} WHERE id BETWEEN {a} AND {a + 99}")
            i = rnd.randint(1, rows)
            lines += [f"UPDATE {tbl} SET k=k+1 WHERE id={rnd.randint(1, rows)}",
                      f"UPDATE {tbl} SET c='{'0' * 119}' WHERE id={rnd.randint(1, rows)}",
                      f"DELETE FROM {tbl} WHERE id={i}",
                      f"INSERT INTO {tbl} (id, k, c, pad) VALUES ({i}, {rnd.randint(1, rows)}, "
                      f"'{'1' * 119}', '{'2' * 59}')",
                      "COMMIT"]
            for sql in lines:
                f.write(f"\t\t     7 Execute\t{sql}\n")
            n += len(lines) + 1
    return n


def timed(*args: str) -> tuple[float, float]:
    """(seconds, peak RSS of the child in MiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "loadgen", *args], capture_output=True, text=True)
    took = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return took, max(peak, before) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transactions", type=int, default=50_000)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--pools", default="64M,256M")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="capture-bench-"))
    log, schema, trace = work / "general.log", work / "sb.sql", work / "t.optrace"
    schema.write_text(SCHEMA)
    statements = write_log(log, a.transactions, a.rows, a.seed)
    mib = log.stat().st_size / 2**20
    took, rss = timed("trace", "capture", "--general-log", str(log), "--schema", str(schema), "-o", str(trace))
    print(f"capture: {statements:,} statements ({mib:,.0f} MiB) in {took:.1f} s: {statements / took:,.0f} "
          f"statements/s, {mib / took:.1f} MiB/s, peak RSS {rss:.0f} MiB")
    took, rss = timed("predict", "--trace", str(trace), "--schema", str(schema), "--rows", str(a.rows),
                      "--pool", a.pools, "--format", "json")
    print(f"predict: {a.pools} in {took:.1f} s, peak RSS {rss:.0f} MiB")
    for p in (log, schema, trace):
        p.unlink()
    work.rmdir()


if __name__ == "__main__":
    main()

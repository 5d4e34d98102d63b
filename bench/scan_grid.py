"""The scan advice's grid measured (issue #21 item 5): `loadgen run --workload FILE --set
innodb_old_blocks_time=T --set innodb_old_blocks_pct=P` for each setting, each from a cold pool
(its own server), then a markdown table of pages read measured and predicted per setting (the
run's prediction, loadgen/analysis/mixmodel.py) and the ranking of both.

    ../.venv/bin/python scan_grid.py WORKLOAD.toml OUT_DIR [--pool 48M] [--times 0,100,1000,5000]
        [--pcts 37] [-- extra `loadgen run` options, e.g. --server local]

Every run's mix is the same op sequence and the same scan; they differ in what the setting lets
the scan do to the hot set (and in where the scan lands in the sequence: at_s is real time), so
the run that reads more pages is the one the scan hurt more. Result files already in OUT_DIR
are reused (delete them to measure again).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("workload")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--pool", default="48M")
    ap.add_argument("--times", default="0,100,1000,5000")
    ap.add_argument("--pcts", default="37")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for t in (int(x) for x in a.times.split(",")):
        for p in (int(x) for x in a.pcts.split(",")):
            out = a.out_dir / f"old{t}-pct{p}.json"
            if not out.exists():
                cmd = [sys.executable, "-m", "loadgen", "run", "--workload", a.workload, "--pool", a.pool,
                       "--set", f"innodb_old_blocks_time={t}", "--set", f"innodb_old_blocks_pct={p}",
                       "--out", str(out), *extra]
                subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
            doc = json.loads(out.read_text())
            ex = [e["ops_before"] for s in doc["result"]["streams"].values() for e in s.get("executions") or []]
            rows.append((t, p, doc["buffer_pool"]["pages_read"], doc["prediction"]["pages_read"], ex))
    print("| old_blocks_time (ms) | old_blocks_pct | scan at op | pages read measured | predicted | error |"
          " rank measured | rank predicted |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    by_m = sorted(rows, key=lambda r: r[2])
    by_p = sorted(rows, key=lambda r: r[3])
    for r in rows:
        t, p, meas, pred, ex = r
        print(f"| {t:,} | {p} | {', '.join(f'{o:,}' for o in ex)} | {meas:,} | {pred:,} | "
              f"{100 * (pred - meas) / meas:+.1f}% | {by_m.index(r) + 1} | {by_p.index(r) + 1} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

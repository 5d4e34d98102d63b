"""MariaDB's purge runs seen from INNODB_METRICS (issue #21, docs/workloads.md "Purge's runs and the
undo pages"): poll the counters of the server `loadgen up` started while a run goes on against it,
then split the run's undo-side reads into the users' and purge's.

    loadgen up --server local --pool 16M --set innodb_monitor_enable=all
    .venv/bin/python bench/purge_runs.py sample --out /tmp/a.jsonl &   # until killed or --seconds
    loadgen run --workload ycsb-a --pool 16M --rows 300k --queries 100k --seed 1
    kill %1; .venv/bin/python bench/purge_runs.py report /tmp/a.jsonl [--runs]

The server is the one in $LOADGEN_STATE_DIR/server.json (its socket; the password beside it);
`loadgen run` restarts it for a cold pool, so the sampler reconnects and the report keeps the
samples after the last restart. A purge run is a cluster of samples where purge_invoked moved
(its batches, innodb_purge_batch_size undo pages each); what the users read is taken as one undo
page and one system page (the segment header) per update beside the purge runs, one undo page
less per page created (a new undo segment's page is made, not read).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

COUNTERS = ["buffer_page_read_undo_log", "buffer_page_read_system_page", "buffer_pages_created", "buffer_pages_read",
            "purge_invoked", "purge_undo_log_pages", "trx_rseg_history_len", "buffer_page_read_index_leaf"]


def connect(state: Path):
    import MySQLdb

    server = json.loads((state / "server.json").read_text())
    password = (state / "server" / "password").read_text().strip()
    conn = MySQLdb.connect(unix_socket=server["socket"], user="root", passwd=password, connect_timeout=2)
    conn.autocommit(True)
    return conn.cursor()


def sample(out: Path, interval_s: float, seconds: float | None) -> None:
    state = Path(os.environ.get("LOADGEN_STATE_DIR") or "/var/lib/loadgen")
    names = ",".join(f"'{n}'" for n in COUNTERS)
    query = f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ({names})"
    cur, end = None, time.time() + seconds if seconds else None
    with out.open("w") as f:
        while end is None or time.time() < end:
            try:
                cur = cur or connect(state)
                cur.execute(query)
                row = dict(cur.fetchall())
                cur.execute("SHOW GLOBAL STATUS LIKE 'Com_update'")
                row["com_update"] = int(cur.fetchone()[1])
            except Exception:  # noqa: BLE001 - the server restarts under the run: reconnect
                cur = None
                time.sleep(0.1)
                continue
            row["t"] = time.time()
            f.write(json.dumps(row) + "\n")
            f.flush()
            time.sleep(interval_s)


def deltas(path: Path) -> list[dict]:
    rows = [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip()) if "t" in r]
    start = max([i for i in range(1, len(rows)) if rows[i]["buffer_pages_read"] < rows[i - 1]["buffer_pages_read"]],
                default=0)
    rows = rows[start:]
    out = []
    for a, b in zip(rows, rows[1:]):
        d = {k: b[k] - a[k] for k in COUNTERS + ["com_update"]}
        d["history"], d["t"] = b["trx_rseg_history_len"], b["t"] - rows[0]["t"]
        out.append(d)
    return out


def report(path: Path, each_run: bool) -> dict:
    d = deltas(path)
    runs: list[list[int]] = []
    for i, x in enumerate(d):
        if x["purge_invoked"]:
            if runs and i - runs[-1][-1] <= 2:
                runs[-1].append(i)
            else:
                runs.append([i])
    purge_undo = purge_system = 0
    for r in runs:
        seg = d[max(0, r[0] - 1):r[-1] + 2]
        s = {k: sum(x[k] for x in seg) for k in COUNTERS + ["com_update"]}
        undo = s["buffer_page_read_undo_log"] - (s["com_update"] - s["buffer_pages_created"])
        system = s["buffer_page_read_system_page"] - s["com_update"]
        purge_undo, purge_system = purge_undo + undo, purge_system + system
        if each_run:
            print(f"t {d[r[0]]['t']:6.1f} s  batches {s['purge_invoked']:3d}  undo pages handled "
                  f"{s['purge_undo_log_pages']:5d}  purge's undo reads {undo:5d}  system {system:5d}  "
                  f"pages created {s['buffer_pages_created']:4d}")
    total = {k: sum(x[k] for x in d) for k in COUNTERS + ["com_update"]}
    summary = {"seconds": round(d[-1]["t"], 1) if d else 0, "updates": total["com_update"], "purge_runs": len(runs),
               "batches": total["purge_invoked"], "undo_pages_read": total["buffer_page_read_undo_log"],
               "system_pages_read": total["buffer_page_read_system_page"],
               "pages_created": total["buffer_pages_created"], "purge_undo_reads": purge_undo,
               "purge_system_reads": purge_system,
               "purge_undo_reads_per_run": round(purge_undo / max(len(runs), 1), 1)}
    print(json.dumps(summary))
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--interval", type=float, default=0.2, help="seconds between samples (0.02 slows the server)")
    s.add_argument("--seconds", type=float, default=None)
    r = sub.add_parser("report")
    r.add_argument("samples", type=Path)
    r.add_argument("--runs", action="store_true", help="a line per purge run")
    a = ap.parse_args()
    if a.cmd == "sample":
        sample(a.out, a.interval, a.seconds)
    else:
        report(a.samples, a.runs)


if __name__ == "__main__":
    main()

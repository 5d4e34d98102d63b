"""The mix model (loadgen/analysis/mixmodel.py) against a real MariaDB 10.11: a read-only preset
and a write preset at a small size, each table's predicted pages read held to its measured
.ibd reads (performance_schema) within the bound measured for it here.

One server for the module (`loadgen up`, performance_schema on, a 16 MiB pool: 1,014 pages,
the pool the issue's runs use), a state directory of the module's own, stopped at the end.
"""
from __future__ import annotations

import json
import os

import pytest

from ..accuracy import Point, check
from ..conftest import run_loadgen

# (preset, rows, operations, bound in % of the table's measured pages read, bound in % of the
# pool's Innodb_pages_read or None). Measured here (docs/workloads.md, "What is predicted"):
# see each bound's comment.
CASES = [
    # ycsb-c: zipfian point reads on usertable (14 rows per leaf): measured +0.6% (20,214 of
    # 20,095 pages) here; 300k rows: -0.6% at 16M, -0.3% at 128M.
    ("ycsb-c", "50k", 20_000, 5.0, None),
    # sysbench-oltp-rw: point selects, 100-row ranges, an update of k (indexed: k_1), of c, a
    # delete + insert. With the undo side modelled (undomodel.py: a segment's new undo pages, a
    # delete-insert two transactions, the purge lag's live pages) the table is -1.9% .. +4.6%
    # here in five runs (300k rows, 20k operations; 18,189 .. 18,966 pages read) and +5.1% at
    # 100k operations, the pool's whole reads -8.5% .. -14.2% (the system pages the model lacks):
    # held to 6% (was 8%) and 16% (new); with purge reading the segments' headers (undomodel.purge_refs)
    # +1.3% and -6.7% in one run. At 100k rows, where this case ran before, the table is
    # +9.7% .. +14.2% in four runs (it was +4.9% .. +5.9% with the undo side's two pages per
    # segment, the pool's whole reads then -11.5%). The cause was k_1's second leaf per index
    # update (k = k + 1 writes beside the old entry): with one leaf and purge's header reads, 300k
    # rows is +0.1%, -2.1%, -2.1%, -0.7% in four runs (+4.5 .. +6.8% with two leaves), the pool's
    # whole reads -3.4% .. -7.0%, and 100k rows +4.6 .. +5.3% (+11.0%) (docs/workloads.md,
    # "Measured"); the bounds stay.
    ("sysbench-oltp-rw", "300k", 20_000, 6.0, 16.0),
]


@pytest.fixture(scope="module")
def server_env(mysqld_binary, session_dir):
    path = session_dir / "mixmodel-state"
    path.mkdir(mode=0o711, exist_ok=True)
    os.chmod(path, 0o711)
    env = {"LOADGEN_STATE_DIR": str(path)}
    res = run_loadgen("up", "--server", "local", "--pool", "16M", "--set", "performance_schema=ON", env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    try:
        yield env
    finally:
        down = run_loadgen("down", env=env)
        assert down.returncode == 0, down.stderr


@pytest.mark.mysqld
@pytest.mark.parametrize("preset,rows,ops,bound_pct,all_bound_pct", CASES)
def test_mix_prediction_within_its_measured_bound(server_env, tmp_path, preset, rows, ops, bound_pct, all_bound_pct):
    out = tmp_path / f"{preset}.json"
    res = run_loadgen("run", "--workload", preset, "--rows", rows, "--queries", str(ops), "--out", str(out),
                      env=server_env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "no prediction" not in res.stdout + res.stderr
    doc = json.loads(out.read_text())
    p = doc["prediction"]
    assert p is not None and p["model"] == "innodb-lru-mix"
    table = "chat.sbtest1" if preset.startswith("sysbench") else "chat.usertable"
    t = p["tables"][table]
    measured = doc["buffer_pool"]["tables"][table]["file_pages_read"]
    assert t["measured_pages_read"] == measured > 0
    print(f"{preset} {rows} x {ops}: predicted {t['pages_read']:,}, measured {measured:,}, "
          f"{t['error_pct']:+.1f}%, dirty evictions {p['dirty_evictions']:,}")
    # within the bound and the table's interval (reads_low/high: analysis/intervals.for_mix), the
    # one miss a 95% interval makes now and then allowed within 2x (tests/accuracy.py)
    points = [Point(f"{preset} {table}", measured, t["pages_read"], t.get("reads_low"), t.get("reads_high"),
                    bound_pct / 100)]
    if all_bound_pct is not None:  # the undo side too: the pool's whole reads (undomodel.py)
        print(f"  all: predicted {p['pages_read']:,}, measured {doc['buffer_pool']['pages_read']:,}, "
              f"{p['error_pct']:+.1f}%")
        points.append(Point(f"{preset} Innodb_pages_read", doc["buffer_pool"]["pages_read"], p["pages_read"],
                            p.get("reads_low"), p.get("reads_high"), all_bound_pct / 100))
    check(points)
    assert p["reads_low"] <= p["pages_read"] <= p["reads_high"]
    # the per-index reads and the table's own pages 0-2 (MariaDB: analysis/ibdpages.py) add up to
    # the table's, and the total is the tables' and the undo pages'
    assert sum(i["pages_read"] for i in t["indexes"].values()) + t.get("file_space_pages_read", 0) == t["pages_read"]
    assert p["pages_read"] == sum(x["pages_read"] for x in p["tables"].values()) + p["system_pages_read"]
    if preset == "sysbench-oltp-rw":
        assert t["indexes"]["k_1"]["pages_read"] > 0  # the index update and delete + insert read k_1
        assert p["dirty_evictions"] > 0 and p["system_pages_read"] > 0
        # the pages written back to free frames: the model's dirty evictions beside the server's
        # LRU flushing, printed, not held (docs/workloads.md, "What is predicted")
        print(f"  dirty evictions {p['dirty_evictions']:,}, LRU flushed {doc['buffer_pool'].get('lru_flushed')}")
        # the purge lag (INNODB_METRICS trx_rseg_history_len) with each sample: the writes leave
        # committed undo logs for purge, so the history list is longer than zero at some sample
        lags = [s["history_len"] for s in doc["samples"] if s.get("history_len") is not None]
        assert len(lags) >= len(doc["samples"]) - 1 and max(lags) > 0
        assert doc["buffer_pool"]["history_len_max"] >= max(lags) and "purge lag" in res.stdout
    else:
        assert p["dirty_evictions"] == 0 == p["system_pages_read"]
    # the tables show the prediction and its error
    assert "predicted" in res.stdout and "%" in res.stdout

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

from ..conftest import run_loadgen

# (preset, rows, operations, bound in % of the table's measured pages read). Measured here
# (docs/workloads.md, "What is predicted"): see each bound's comment.
CASES = [
    # ycsb-c: zipfian point reads on usertable (14 rows per leaf). The model reads fewer pages
    # than the server: the level-1 pages the server reads again at this pool size are what it
    # under-counts (the same kernel predicting the same keys as one table gives the same figure).
    ("ycsb-c", "50k", 20_000, 20.0),
    # sysbench-oltp-rw: point selects, 100-row ranges, updates (one of an indexed column), a
    # delete + insert, on sbtest1 with k_1.
    ("sysbench-oltp-rw", "100k", 20_000, 20.0),
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
@pytest.mark.parametrize("preset,rows,ops,bound_pct", CASES)
def test_mix_prediction_within_its_measured_bound(server_env, tmp_path, preset, rows, ops, bound_pct):
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
    assert abs(t["pages_read"] - measured) <= bound_pct / 100 * measured, (t, measured)
    # the per-index reads add up to the table's, and the total is the tables'
    assert sum(i["pages_read"] for i in t["indexes"].values()) == t["pages_read"]
    assert p["pages_read"] == sum(x["pages_read"] for x in p["tables"].values())
    if preset == "sysbench-oltp-rw":
        assert t["indexes"]["k_1"]["pages_read"] > 0  # the index update and delete + insert read k_1
        assert p["dirty_evictions"] > 0
    else:
        assert p["dirty_evictions"] == 0
    # the tables show the prediction and its error
    assert "predicted" in res.stdout and "%" in res.stdout

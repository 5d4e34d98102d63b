"""A scheduled full scan's damage at innodb_old_blocks_time 0 and 1000, measured on MariaDB 10.11
(local) and MySQL 9.7 (docker) with `loadgen sweep --workload FILE --set-grid
innodb_old_blocks_time=0,1000` (one cold server per setting) and predicted by the mix model
(analysis/mixmodel.py, the scan advice's model): the ordering of the two (which one reads more)
is the same on the server, in the runs' predictions and in the scan advice (issue #21, Tests).

The mix: 500k rows of chat.message (3,556 leaves, 57 MiB), hotspot lookups (99% on 15% of the
rows: 533 leaves, which fit in the young list) and one full scan of the table at a fixed op of
the sequence (`at_op`: at_s is real time, and the rate on the busy CI machine moves 10x).
MariaDB: a 48 MiB pool (~1,900 pages held), 150k lookups, the scan at op 50k; MySQL: a 32 MiB
pool (2,048 pages), 100k lookups, the scan at op 40k. The two runs read the same pages but for
what the scan does to the hot set, so the run with more pages read is the one the scan hurt more.

Why 15% / 99%: with 20% / 95% (this test until 2026-11-29) the cold lookups' misses turn the old
sublist over in about a second, as long as old_blocks_time itself: at 1000 ms a hot page read
back often leaves the pool before a second has passed and never goes young, or goes young just
in time, and the outcome flips with the rate. The server ranked 0 below 1000 in three of six MySQL
pairs (7,213 < 7,461 at 8.8k/10.8k q/s) and the model put 1000 within 0.5-3% of 0 (+6..+11% over
the server at 1000). At 1% cold lookups the old sublist turns over in ~5 s and the hot set goes
young at either setting; then only the scan decides. Measured 2026-11-29 under load (4 other jobs
on the 2 cores), 0 ms read more than 1000 ms in 6 of 6 pairs: MySQL 9.7 32M +278..+381 pages
(model +408..+532), MariaDB 10.11 48M +133..+350 (model +496), every run within 5% of its
prediction.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import run_loadgen

pytestmark = pytest.mark.mysqld

WORKLOAD = """format = 1
seed = 7
operations = {operations}

[tables.message]
schema = "chat"
rows = 500000

[[streams]]
name = "lookups"
table = "message"
op = "read"
keys = "hotspot"
hot_fraction = 0.15
hot_ops = 0.99
share = 1

[[streams]]
name = "scan"
table = "message"
op = "scan"
at_op = {at_op}
"""


def _grid(where, server_args, pool: str, operations: int, at_op: int) -> dict:
    """`loadgen sweep --set-grid innodb_old_blocks_time=0,1000`: the grid document and each setting's run."""
    path = where / "scan.toml"
    path.write_text(WORKLOAD.format(operations=operations, at_op=at_op))
    out = where / "grid.json"
    res = run_loadgen("sweep", "--workload", str(path), *server_args, "--pool", pool, "--set-grid",
                      "innodb_old_blocks_time=0,1000", "--out-dir", str(where / "runs"), "--out", str(out),
                      timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "the measured ranking agrees with it" in res.stdout or "does NOT agree" in res.stdout, res.stdout
    grid = json.loads(out.read_text())
    runs = {p["setting"]["innodb_old_blocks_time"]: json.loads(Path(p["result_file"]).read_text())
            for p in grid["points"]}
    return {"grid": grid, "runs": runs, "operations": operations, "at_op": at_op}


@pytest.fixture(scope="module")
def mariadb_grid(mysqld_binary, tmp_path_factory):
    return _grid(tmp_path_factory.mktemp("scangrid-mariadb"), ["--server", "local", "--mysqld", mysqld_binary],
                 "48M", 150_000, 50_000)


@pytest.fixture(scope="module")
def mysql_grid(engine, mysql_image, tmp_path_factory):
    return _grid(tmp_path_factory.mktemp("scangrid-mysql"), ["--server", "docker", "--image", mysql_image],
                 "32M", 100_000, 40_000)


def _check_ordering(g: dict) -> None:
    runs, grid = g["runs"], g["grid"]
    measured = {t: doc["buffer_pool"]["pages_read"] for t, doc in runs.items()}
    predicted = {t: doc["prediction"]["pages_read"] for t, doc in runs.items()}
    for t, doc in runs.items():
        assert doc["server"]["variables"]["innodb_old_blocks_time"] in (t, str(t))
        ex = doc["result"]["streams"]["scan"]["executions"]
        # the scan ran inside the mix, at its op (at_op: whatever the rate, after the pool has filled)
        assert len(ex) == 1 and g["at_op"] <= ex[0]["ops_before"] < g["at_op"] + 2_000
        print(f"{doc['server']['flavor']} old_blocks_time {t}: measured {measured[t]:,}, predicted {predicted[t]:,} "
              f"({(predicted[t] - measured[t]) / measured[t]:+.1%}), scan at op {ex[0]['ops_before']:,}")
    # at 0 the scan's leaves go young and flush the hot set; at 1000 ms they stay old. The model
    # always says so (by ~10%). The server's gap follows real time (old_blocks_time is in ms):
    # +2.9% .. +8.0% in six pairs under load; within 1% the server cannot tell the two apart, and
    # only the model's ranking and the advice are held; the server reading more at 1000 fails.
    assert predicted[0] > predicted[1000]
    assert measured[0] > measured[1000] * 0.99, measured
    summary = grid["summary"]
    assert summary["predicted_best"] == {"innodb_old_blocks_time": 1000}
    assert summary["advised"] == {"innodb_old_blocks_time": 1000}
    if measured[0] > measured[1000] * 1.01:
        assert summary["measured_best"] == {"innodb_old_blocks_time": 1000}
        assert summary["advice_agrees"] is True
    for p in grid["points"]:  # the lookups after the scan: measured from the samples, predicted from the same op
        assert p["after_op"] is not None and p["lookup_reads_after"] > 0 and p["lookup_reads_after_predicted"] > 0


def test_the_setting_that_hurts_less_is_the_same_in_the_model_and_on_mariadb(mariadb_grid):
    _check_ordering(mariadb_grid)


@pytest.mark.docker
def test_the_setting_that_hurts_less_is_the_same_in_the_model_and_on_mysql(mysql_grid):
    _check_ordering(mysql_grid)


def test_scan_advice_from_a_run_names_a_setting_and_ranks_0_below_1000(mariadb_grid, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(mariadb_grid["runs"][1000]))
    res = run_loadgen("advise", "--result", str(path), "--format", "json")
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(res.stdout)
    assert doc["qps_source"].startswith("measured in") and doc["pool_bytes"] == 48 << 20
    at = {(p["old_blocks_time_ms"], p["old_blocks_pct"]): p for p in doc["points"]}
    assert at[(0, 37)]["lookup_reads"] > at[(1000, 37)]["lookup_reads"]
    # the named setting is the grid's fewest lookup reads with the scan, and no worse than the
    # current one (1000 ms / 37%). Which setting that is moves with the run's rate: at 20% the
    # old sublist is too small for the scan to flush much at any time, and 0, 100 and 1000 ms
    # come within 1% of each other there (1,697 / 1,702 / 1,711 at 35,868 q/s), so the test does
    # not name it.
    best = at[(doc["best"]["old_blocks_time_ms"], doc["best"]["old_blocks_pct"])]
    assert best["lookup_reads"] == min(p["lookup_reads"] for p in doc["points"])
    assert best["lookup_reads"] <= at[(1000, 37)]["lookup_reads"]
    # one model: the point at the run's own setting is the run's prediction (the advice takes the
    # run's pool, its start-up pages and held frames, and only changes the setting)
    own = at[(1000, 37)]
    run_prediction = mariadb_grid["runs"][1000]["prediction"]
    run_predicted = run_prediction["pages_read"]
    assert abs(own["lookup_reads"] + own["scan_reads"] - run_predicted) <= 0.005 * run_predicted, (own, run_predicted)
    # and every point carries the interval a mix's prediction has: the run's, at its setting
    assert all(p["reads_low"] < p["lookup_reads"] + p["scan_reads"] < p["reads_high"] for p in doc["points"])
    assert abs(own["reads_low"] - run_prediction["reads_low"]) <= 0.005 * run_predicted
    assert abs(own["reads_high"] - run_prediction["reads_high"]) <= 0.005 * run_predicted

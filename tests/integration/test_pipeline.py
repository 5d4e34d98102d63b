"""--pipeline N (native/pipeline.c) against real servers: every row, in the order's order, the
same buffer-pool reads as one query at a time, and the failures (Ctrl-C, a server killed with
queries in flight) keep only completed queries. No timing assertions: speed lives in bench/."""
from __future__ import annotations

import json
import os
import signal

import pytest

from loadgen.drivers import native
from loadgen.drivers.drive import Drive, choose_driver
from loadgen.drivers.python import DriverState
from loadgen.workload.orders import Workload

from ..conftest import TEST_ROWS, our_server_pids, require, run_loadgen
from .test_failures import _start_run, _wait_for_queries, _wait_running, assert_one_line_error, interrupted_run

pytestmark = pytest.mark.mysqld


@pytest.fixture(scope="module")
def need_native():
    if not native.available():
        require("LOADGEN_REQUIRE_NATIVE_DRIVER", "no native driver in this build",
                "loadgen._native was built without libmariadb (apt install libmariadb-dev pkg-config)")


@pytest.fixture(scope="module")
def seeded(mysqld_binary):
    """The CLI's cached 200k-row dataset, so the runs below start querying within seconds."""
    res = run_loadgen("seed", "--server", "local", "--rows", "200k")
    assert res.returncode == 0, res.stderr


def expected_digest(server, database, ids, sql="SELECT alias FROM message WHERE id = %s") -> int:
    """The rows the order should return, id by id, through a plain mysqlclient cursor."""
    conn = server.connect(database)
    try:
        cur = conn.cursor()
        rows = []
        for i in ids:
            cur.execute(sql, (i,))
            rows.extend(cur.fetchall())
        cur.close()
    finally:
        conn.close()
    return native.row_digest(rows)


def run_native(endpoint, database, ids, pipeline, sql=native.PREPARED_QUERY) -> tuple[DriverState, int]:
    state = DriverState()
    with native.NativeQueries(endpoint, database, sql, verify=True, pipeline=pipeline) as q:
        native.run_queries_native(q, ids, state)
        return state, q.digest


@pytest.mark.parametrize("order,pipeline", [("interleaved", 16), ("looped", 16), ("random", 16),
                                            ("looped", 2), ("random", 4096)])
def test_pipelined_runs_return_every_row_in_order(local_server, need_native, order, pipeline):
    server, info = local_server
    workload = Workload(order, TEST_ROWS, stride=97, reps=2)
    ids = list(workload.ids())
    state, digest = run_native(server.endpoint, info.database, ids, pipeline)
    assert state.error is None
    assert state.queries == state.rows == state.histogram.count == workload.queries
    assert state.latency_kind == "pipelined_response"
    # The digest folds the values in the order they arrive: any reordering changes it.
    assert digest == expected_digest(server, info.database, ids)
    assert digest != expected_digest(server, info.database, ids[1:] + ids[:1])
    one, one_digest = run_native(server.endpoint, info.database, ids, 1)
    assert one.latency_kind == "per_query" and one_digest == digest


def test_missing_ids_nulls_and_integers(local_server, need_native):
    server, info = local_server
    sql = "SELECT alias, id, IF(MOD(id, 3) = 0, NULL, -id) FROM message WHERE id = ?"
    ids = [1, TEST_ROWS + 5, 2, 3, TEST_ROWS + 6, 6, 9]
    state, digest = run_native(server.endpoint, info.database, ids, 8, sql)
    assert (state.queries, state.rows) == (7, 5)
    _, one_digest = run_native(server.endpoint, info.database, ids, 1, sql)
    assert digest == one_digest == expected_digest(server, info.database, ids, sql.replace("?", "%s"))


def test_threads_with_a_pipeline_add_up(local_server, need_native):
    server, info = local_server
    workload = Workload("interleaved", TEST_ROWS, stride=101, reps=3)
    drive = Drive(server, info.database, workload, choose_driver("native", threads=2, pipeline=8))
    state = DriverState()
    try:
        drive.run(state)
    finally:
        drive.close()
    assert state.error is None and state.latency_kind == "pipelined_response"
    assert state.queries == state.rows == workload.queries == state.histogram.count


def test_a_failing_query_stops_at_a_completed_prefix(local_server, need_native):
    # The statement fails for one id only (a subquery returning two rows): every query before it
    # counts, it and the ones in flight behind it do not, and the error names the cause.
    server, info = local_server
    state = DriverState()
    sql = "SELECT alias FROM message WHERE id = (SELECT id FROM message WHERE id BETWEEN ? AND 3)"
    with native.NativeQueries(server.endpoint, info.database, sql, pipeline=8) as q:
        native.run_queries_native(q, [3, 3, 3, 2, 3, 3, 3], state)  # 2 -> two rows in the subquery
        assert state.error and "1242" in state.error
        assert (state.queries, state.rows) == (3, 3)
        again = DriverState()
        native.run_queries_native(q, [3, 3], again)  # the connection is still in step
        assert (again.queries, again.rows, again.error) == (2, 2, None)


def test_pipeline_with_the_python_driver_is_a_usage_error():
    assert_one_line_error(run_loadgen("run", "--driver", "python", "--pipeline", "4"), 2, "--pipeline 4",
                          "native")
    assert_one_line_error(run_loadgen("run", "--pipeline", "0"), 2, "--pipeline 0")


def test_same_reads_with_and_without_pipelining(seeded, need_native, tmp_path):
    # The server runs pipelined queries one after another in the order sent, so the pool sees the
    # same page sequence: the same misses, up to the few pages whose timing depends on the rate
    # (the page cleaner's free reserve, read-ahead) -- a handful in 1,600-3,300 here.
    reads = {}
    for variation in ("A", "B"):
        for pipeline in ("1", "16"):
            out = tmp_path / f"{variation}-{pipeline}.json"
            res = run_loadgen("run", "--server", "local", "--variation", variation, "--pool", "8M", "--rows", "200k",
                              "--pipeline", pipeline, "--out", str(out))
            assert res.returncode == 0, res.stderr
            r = json.loads(out.read_text())
            assert r["result"]["queries"] == r["result"]["rows_returned"] == r["workload"]["queries"]
            assert r["result"]["pipeline"] == int(pipeline)
            assert r["result"]["latency_kind"] == ("per_query" if pipeline == "1" else "pipelined_response")
            reads[variation, pipeline] = r["buffer_pool"]["reads"]
    for variation in ("A", "B"):
        one, piped = reads[variation, "1"], reads[variation, "16"]
        assert abs(piped - one) <= max(10, one // 100), reads
    assert reads["B", "16"] > 1.5 * reads["A", "16"], reads  # and the orders still differ as they should


def test_ctrl_c_with_a_pipeline_keeps_what_was_measured(seeded, need_native, tmp_path):
    r, _ = interrupted_run(tmp_path, "--pipeline", "16")
    assert r["result"]["latency_kind"] == "pipelined_response"
    # Each query returns one row: a count that included an unfinished response would differ.
    buckets = r["result"]["latency_histogram"]["buckets"]
    assert r["result"]["rows_returned"] == r["result"]["queries"] == sum(c for _, c in buckets)
    assert not our_server_pids()


def test_a_server_killed_with_queries_in_flight(seeded, need_native, tmp_path):
    out = tmp_path / "r.json"
    proc = _start_run(tmp_path, out, "--pipeline", "64")
    _wait_for_queries(proc)
    _wait_running(proc, 4)
    pids = our_server_pids()
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    assert "the server went away" in stderr and "partial result written" in stderr
    r = json.loads(out.read_text())
    assert r["complete"] is False and r["incomplete_reason"].startswith("server lost")
    assert 0 < r["result"]["queries"] < r["workload"]["queries"]
    buckets = r["result"]["latency_histogram"]["buckets"]
    assert r["result"]["rows_returned"] == r["result"]["queries"] == sum(c for _, c in buckets)
    assert not our_server_pids()

"""The native query driver against the Python one on the same real server: same rows, same
counts, same histogram layout; and its failures as one-line errors. No timing assertions here:
speed lives in bench/."""
from __future__ import annotations

import json
import os
import random
import signal

import pytest

from loadgen.drivers.drive import Drive, choose_driver
from loadgen.drivers.python import DriverState, run_queries
from loadgen.errors import WorkloadError
from loadgen.measure.histogram import N_BUCKETS, Histogram, bucket_index
from loadgen.workload.orders import Workload

from ..conftest import TEST_ROWS, our_server_pids, require, run_loadgen
from .test_failures import _start_run, _wait_for_queries, _wait_running, assert_one_line_error, interrupted_run

from loadgen.drivers import native as driver_native

pytestmark = pytest.mark.mysqld


def require_native() -> None:
    # CI sets LOADGEN_REQUIRE_NATIVE_DRIVER=1: a build that silently lost libmariadb must fail the
    # suite, not skip the native driver's tests.
    if not driver_native.available():
        require("LOADGEN_REQUIRE_NATIVE_DRIVER", "no native driver in this build",
                "loadgen._native was built without libmariadb (apt install libmariadb-dev pkg-config)")


@pytest.fixture(scope="module")
def native():
    require_native()
    return driver_native


def expected_digest(server, info, workload) -> int:
    """The values the C loop should fetch, read with a plain mysqlclient cursor, id by id."""
    conn = server.connect(info.database)
    try:
        cur = conn.cursor()
        rows = []
        for i in workload.ids():
            cur.execute("SELECT alias FROM message WHERE id = %s", (i,))
            rows.extend(cur.fetchall())
        cur.close()
    finally:
        conn.close()
    return driver_native.row_digest(rows)


@pytest.mark.parametrize("order", ["interleaved", "looped", "random"])
def test_native_returns_the_same_rows_and_count_as_python(local_server, native, order):
    server, info = local_server
    workload = Workload(order, TEST_ROWS, stride=97, reps=2)

    py = DriverState()
    conn = server.connect(info.database)
    try:
        run_queries(conn, workload.ids(), py)
    finally:
        conn.close()

    nat, checked = DriverState(), DriverState()
    with native.NativeQueries(server.endpoint, info.database) as q:
        native.run_queries_native(q, workload.ids(), nat)
    with native.NativeQueries(server.endpoint, info.database, verify=True) as q:
        native.run_queries_native(q, workload.ids(), checked)  # also fetches every value
        digest = q.digest

    assert py.error is None and nat.error is None and checked.error is None
    assert nat.queries == checked.queries == py.queries == workload.queries
    assert nat.rows == checked.rows == py.rows == workload.queries  # every id exists: one row each
    assert nat.histogram.count == nat.queries == sum(nat.histogram.counts)
    assert digest == expected_digest(server, info, workload)


def test_ids_past_the_table_return_no_rows(local_server, native):
    server, info = local_server
    for verify in (False, True):
        state = DriverState()
        with native.NativeQueries(server.endpoint, info.database, verify=verify) as q:
            native.run_queries_native(q, [1, TEST_ROWS + 5, 2, TEST_ROWS + 6], state)
        assert (state.queries, state.rows) == (4, 2)


def test_the_c_histogram_buckets_like_python():
    require_native()
    rng = random.Random(7)
    values = [0, 1, 127, 128, 255, 256, 257, 511, 512, 1 << 20, (1 << 20) - 1, (1 << 47) - 1, 1 << 47,
              1 << 60, (1 << 64) - 1]
    values += [rng.randrange(1 << rng.randrange(1, 48)) for _ in range(20000)]
    values += [int(rng.lognormvariate(10, 1.5)) for _ in range(20000)]  # latency-like: ~20 us
    c_counts = driver_native.bucket_counts(values)
    py = Histogram()
    for v in values:
        py.record(v)
    assert len(c_counts) == N_BUCKETS
    assert list(c_counts) == list(py.counts)
    assert all(c_counts[bucket_index(v)] for v in values[:15])


def test_native_and_python_histograms_agree_within_bucket_precision(local_server, native):
    # Different latencies each run, so compare the summary the result files carry: every
    # percentile is a bucket midpoint of the same layout, at most 1/128 off the true value.
    server, info = local_server
    workload = Workload("sequential", TEST_ROWS, stride=50)
    nat = DriverState()
    with native.NativeQueries(server.endpoint, info.database) as q:
        native.run_queries_native(q, workload.ids(), nat)
    h = nat.histogram
    assert h.count == workload.queries
    assert h.min_ns <= h.percentile(50) <= h.percentile(99) <= h.max_ns
    assert h.min_ns * h.count <= h.total_ns <= h.max_ns * h.count
    again = Histogram.from_dict(json.loads(json.dumps(h.to_dict())))
    assert list(again.counts) == list(h.counts)


def test_threads_split_the_ids_and_add_up(local_server, native):
    server, info = local_server
    workload = Workload("interleaved", TEST_ROWS, stride=101, reps=3)
    for driver in ("native", "python"):
        drive = Drive(server, info.database, workload, choose_driver(driver, threads=3))
        state = DriverState()
        try:
            drive.run(state)
        finally:
            drive.close()
        assert state.error is None
        assert state.driver == driver
        assert state.queries == state.rows == workload.queries == state.histogram.count
    parts = [list(workload.ids(k, 3)) for k in range(3)]
    assert sorted(sum(parts, [])) == sorted(workload.ids())
    assert all(p[0] == p[1] == p[2] for p in parts)  # each part keeps the interleaved shape


def test_a_statement_that_fails_to_prepare_is_a_workload_error(local_server, native):
    server, _ = local_server
    with pytest.raises(WorkloadError, match=r"cannot prepare .*message.*\(1146\)"):
        native.NativeQueries(server.endpoint, "mysql")
    with pytest.raises(WorkloadError, match="placeholders"):
        native.NativeQueries(server.endpoint, "mysql", "SELECT 1")


def test_threads_zero_is_a_usage_error():
    assert_one_line_error(run_loadgen("run", "--threads", "0"), 2, "--threads 0")


@pytest.mark.parametrize("driver", ["native", "python"])
def test_a_server_killed_mid_run_is_reported_alike_by_both_drivers(mysqld_binary, tmp_path, driver):
    if driver == "native":
        require_native()
    out = tmp_path / "r.json"
    proc = _start_run(tmp_path, out, "--driver", driver)
    _wait_for_queries(proc)
    _wait_running(proc, 4)  # past the cold restart: the run is under way
    pids = our_server_pids()
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    assert "the server went away" in stderr and "partial result written" in stderr
    r = json.loads(out.read_text())
    assert r["result"]["driver"] == driver
    assert r["complete"] is False and r["incomplete_reason"].startswith("server lost")
    assert r["result"]["queries"] > 0
    assert not our_server_pids()


def test_ctrl_c_with_threads_keeps_what_was_measured(mysqld_binary, tmp_path):
    r, _ = interrupted_run(tmp_path, "--threads", "2")
    assert r["result"]["threads"] == 2
    assert not our_server_pids()

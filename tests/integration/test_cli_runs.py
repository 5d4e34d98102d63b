"""The red-team's findings that need a real run (issue #11: D6, D17, D20): a result whose final
write fails is kept elsewhere, --threads beyond max_connections is refused before the run, and a
partial result says what its figures cover."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from ..conftest import run_loadgen, our_server_pids
from .test_failures import _start_run, _wait_for_queries, _wait_running, assert_one_line_error

pytestmark = pytest.mark.mysqld


@pytest.fixture(scope="module", autouse=True)
def seeded(mysqld_binary):
    """The runs below act a few seconds into the query phase: seed first, so those seconds are
    not spent seeding."""
    res = run_loadgen("seed", "--server", "local", "--rows", "200k", "--pool", "8M")
    assert res.returncode == 0, res.stderr


def _wait_for_query_phase(proc, seconds: float = 3) -> None:
    """Until the run's server has been restarted cold (a new mariadbd pid) and `seconds` more:
    on a busy machine a fixed pause after the first server may still be before the queries."""
    first = set(_wait_for_queries(proc))
    # the restart may also have come before the first poll saw a server: then wait a while instead
    end = time.monotonic() + 15
    while time.monotonic() < end and not set(our_server_pids()) - first:
        if proc.poll() is not None:
            pytest.fail(f"loadgen ended early: {proc.stderr.read()}")
        time.sleep(0.1)
    _wait_running(proc, seconds)


def test_threads_beyond_max_connections_are_refused_before_the_run(mysqld_binary, tmp_path):
    out = tmp_path / "r.json"
    res = run_loadgen("run", "--server", "local", "--variation", "A", "--pool", "8M", "--rows", "1000",
                      "--threads", "1000", "--out", str(out))
    assert_one_line_error(res, 2, "--threads 1000", "max_connections", "--set max_connections=")
    assert "Too many connections" not in res.stderr and not out.exists()
    res = run_loadgen("sweep", "--server", "local", "--pools", "8M", "--variations", "A", "--rows", "1000",
                      "--threads", "1000", "--out-dir", str(tmp_path / "sweep"))
    assert_one_line_error(res, 2, "--threads 1000", "max_connections")


def test_a_failed_final_write_keeps_the_result_elsewhere(mysqld_binary, tmp_path):
    out_dir = tmp_path / "out"
    out = out_dir / "r.json"
    proc = _start_run(tmp_path, out)
    _wait_for_query_phase(proc)
    # the destination passed the check at the start; now its directory becomes a file
    shutil.rmtree(out_dir)
    out_dir.write_text("in the way")
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "instead" in stderr  # the warning (rich may wrap it)
    m = re.search(r"^loadgen: .*partial result written to (\S+)$", stderr, re.MULTILINE)
    assert m, stderr
    kept = Path(m.group(1))
    assert kept != out and kept.name == "r.json"
    r = json.loads(kept.read_text())
    assert r["complete"] is False and r["result"]["queries"] > 0
    kept.unlink()
    assert not our_server_pids()


def test_a_killed_servers_partial_result_has_no_whole_workload_prediction(mysqld_binary, tmp_path):
    out = tmp_path / "r.json"
    proc = _start_run(tmp_path, out)
    _wait_for_query_phase(proc)
    for pid in our_server_pids():
        os.kill(pid, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    r = json.loads(out.read_text())
    assert r["complete"] is False and r["incomplete_reason"].startswith("server lost")
    # the model's figure for the whole workload would be compared with a fraction of it
    assert r["prediction"] is None
    bp, queries = r["buffer_pool"], r["result"]["queries"]
    assert 0 < bp["queries"] <= queries < r["workload"]["queries"]
    assert bp["covers_all_queries"] is (bp["queries"] == queries)
    assert bp["read_requests_per_query"] == pytest.approx(bp["read_requests"] / bp["queries"], rel=1e-3)
    assert not our_server_pids()


def test_interrupted_totals_run_to_the_stop_and_complete_runs_keep_the_prediction(mysqld_binary, tmp_path):
    out = tmp_path / "r.json"
    proc = _start_run(tmp_path, out)
    _wait_for_query_phase(proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    r = json.loads(out.read_text())
    # a final sample at the stop: the totals cover every query that ran
    assert r["buffer_pool"]["queries"] == r["result"]["queries"] and r["buffer_pool"]["covers_all_queries"]
    assert r["prediction"] is None
    whole = tmp_path / "whole.json"
    res = run_loadgen("run", "--server", "local", "--variation", "A", "--pool", "8M", "--rows", "200k",
                      "--out", str(whole))
    assert res.returncode == 0, res.stderr
    w = json.loads(whole.read_text())
    assert w["complete"] and w["buffer_pool"]["covers_all_queries"] and w["prediction"]["reads"] > 0
    assert w["buffer_pool"]["queries"] == w["result"]["queries"] == w["workload"]["queries"]

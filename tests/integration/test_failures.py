"""Bad input and failures: one line on stderr, the right exit code, nothing left running,
and nothing already measured lost."""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import time

import pytest

from ..conftest import loadgen_cmd, our_server_pids, run_loadgen, ROOT

pytestmark = pytest.mark.mysqld


def assert_one_line_error(res, code, *needles):
    assert res.returncode == code, (res.returncode, res.stderr)
    err = res.stderr.strip()
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert not our_server_pids()


@pytest.mark.parametrize("args,needle", [
    (["run", "--pool", "12Q"], "is not a size"),
    (["run", "--pool", "0"], "greater than zero"),
    (["run", "--variation", "C"], "unknown variation"),
    (["run", "--rows", "-5"], "--rows"),
    (["run", "--stride", "0"], "--stride"),
    (["run", "--order", "zigzag"], "zigzag"),
    (["run", "--schema", "nope"], "unknown schema"),
    (["run", "--server", "nowhere"], "unknown --server"),
    (["run", "--set", "novalue"], "VAR=VALUE"),
])
def test_usage_errors_exit_2(args, needle):
    assert_one_line_error(run_loadgen(*args), 2, needle)


def test_pool_below_the_server_minimum_names_it(mysqld_binary):
    assert_one_line_error(run_loadgen("run", "--server", "local", "--pool", "4M", "--rows", "1000"), 2,
                          "minimum of 6 MiB")


def test_no_mysqld_says_how_to_get_one(tmp_path):
    res = run_loadgen("run", "--server", "local", "--rows", "1000", env={"LOADGEN_MYSQLD_SEARCH_PATH": str(tmp_path)})
    assert_one_line_error(res, 1, "no mariadbd or mysqld", "apt-get install mariadb-server", "--server docker")


def test_unreachable_dsn():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = run_loadgen("run", "--dsn", f"mysql://root:pw@127.0.0.1:{port}/", "--rows", "1000")
    assert_one_line_error(res, 1, "cannot connect", f"127.0.0.1:{port}")
    assert ":pw@" not in res.stderr


def test_a_port_already_taken(mysqld_binary):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        res = run_loadgen("run", "--server", "local", "--port", str(port), "--rows", "1000", "--pool", "8M")
    assert_one_line_error(res, 2, f"port {port} is already in use")


def test_a_disk_without_room_is_refused_before_seeding(mysqld_binary, tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mnt)]).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        res = run_loadgen("run", "--server", "local", "--rows", "2M", "--pool", "8M",
                          env={"LOADGEN_CACHE_DIR": str(mnt)})
        assert_one_line_error(res, 1, "needs about", "free", "LOADGEN_CACHE_DIR")
    finally:
        subprocess.run(["umount", str(mnt)])


_SEEDED: list[bool] = []


def _start_run(tmp_path, out, *extra):
    # The dataset is seeded first, once: a signal sent a few seconds in must land in the query
    # phase, not in a first seeding slowed down by a busy machine.
    if not _SEEDED:
        seeded = run_loadgen("seed", "--server", "local", "--rows", "200k", "--pool", "8M")
        assert seeded.returncode == 0, seeded.stderr
        _SEEDED.append(True)
    # enough queries to still be running when we act on it
    return subprocess.Popen(
        loadgen_cmd("run", "--server", "local", "--variation", "B", "--pool", "8M", "--rows", "200k", "--reps", "50",
                    "--sample-interval", "0.2", "--out", str(out), *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )


def _wait_for_queries(proc, deadline_s=120):
    """Until the server of this run answers queries (its pid shows up and a second passes)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"loadgen ended early: {proc.stderr.read()}")
        pids = our_server_pids()
        if pids:
            return pids
        time.sleep(0.2)
    pytest.fail("the server never came up")


def _wait_running(proc, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        time.sleep(0.1)


def interrupted_run(tmp_path, *extra) -> tuple[dict, str]:
    """A run (with `extra` options) given Ctrl-C a few seconds into its queries: exit 130 without
    a traceback, its result written as interrupted with part of the queries. (result, stderr)."""
    out = tmp_path / "r.json"
    proc = _start_run(tmp_path, out, *extra)
    _wait_for_queries(proc)
    _wait_running(proc, 4)  # let it seed (cached) and run a little
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    r = json.loads(out.read_text())
    assert r["complete"] is False and r["incomplete_reason"] == "interrupted"
    assert 0 < r["result"]["queries"] < r["workload"]["queries"]
    return r, stderr


def test_ctrl_c_keeps_what_was_measured_and_stops_the_server(mysqld_binary, tmp_path):
    _, stderr = interrupted_run(tmp_path)
    assert "partial result written" in stderr or "interrupted" in stderr
    assert not our_server_pids()


# The server killed mid-run, for each driver: tests/integration/test_driver.py.


def test_sigterm_is_handled_like_ctrl_c(mysqld_binary, tmp_path):
    out = tmp_path / "r.json"
    proc = _start_run(tmp_path, out)
    _wait_for_queries(proc)
    _wait_running(proc, 3)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert not our_server_pids()


def test_up_status_run_down(mysqld_binary, tmp_path):
    res = run_loadgen("status")
    assert res.returncode == 1 and "no server is up" in res.stdout
    res = run_loadgen("up", "--server", "local", "--pool", "16M")
    try:
        assert res.returncode == 0, res.stderr
        assert "pool 16 MiB" in res.stdout
        status = run_loadgen("status")
        assert status.returncode == 0 and "pool 16 MiB" in status.stdout
        # a second `up` reuses and reports the running server (it used to be an error, and is
        # never a second server on a new port); one asking for another pool says how to stop it
        port = status.stdout.rsplit("tcp 127.0.0.1:", 1)[1].split()[0].rstrip(",")
        again = run_loadgen("up", "--server", "local")
        assert again.returncode == 0, again.stderr
        assert again.stdout.startswith("already up:") and f"tcp 127.0.0.1:{port} " in again.stdout
        assert len(our_server_pids()) == 1
        other = run_loadgen("up", "--pool", "32M")
        assert other.returncode == 1 and "Traceback" not in other.stderr
        assert "already up" in other.stderr and "not with --pool 32 MiB" in other.stderr
        assert "loadgen down" in other.stderr
        assert "pool 16 MiB" in run_loadgen("status").stdout and len(our_server_pids()) == 1
        out = tmp_path / "r.json"
        run = run_loadgen("run", "--variation", "A", "--rows", "50k", "--out", str(out))
        assert run.returncode == 0, run.stderr
        assert "using the server from `loadgen up`" in run.stderr
        r = json.loads(out.read_text())
        assert r["server"]["innodb_buffer_pool_size"] == 16 << 20
        assert "state" in r["server"]["datadir"]  # the up server's datadir, not a cached one
        assert len(our_server_pids()) == 1  # still up after the run
    finally:
        down = run_loadgen("down")
    assert down.returncode == 0 and "stopped" in down.stdout
    assert run_loadgen("status").returncode == 1
    assert not our_server_pids()


def test_no_orphan_server_when_loadgen_itself_is_killed(mysqld_binary, tmp_path):
    # SIGKILL gives loadgen no chance to clean up; the kernel's parent-death signal must.
    proc = _start_run(tmp_path, tmp_path / "r.json")
    _wait_for_queries(proc)
    _wait_running(proc, 3)
    proc.kill()
    proc.communicate(timeout=60)
    end = time.monotonic() + 60
    while our_server_pids() and time.monotonic() < end:
        time.sleep(0.2)
    assert not our_server_pids()

"""The red-team's concurrency and cached-dataset findings (issue #11: D3, D7, D8, D9, D15, D19),
each reproduced against real mariadbd servers started by loadgen."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ..conftest import ROOT, loadgen_cmd, our_server_pids, run_loadgen

pytestmark = pytest.mark.mysqld


def _home_of(rows: int, mysqld_binary: str) -> Path:
    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.paths import cache_dir
    from loadgen.servers.local import binary_flavor

    return cache_dir() / "datasets" / DatasetSpec(rows=rows).cache_key(binary_flavor(mysqld_binary))


def _run_args(rows: int, out: Path, *extra: str) -> list[str]:
    return ["run", "--server", "local", "--variation", "A", "--pool", "8M", "--rows", str(rows),
            "--sample-interval", "0.5", "--out", str(out), *extra]


def _one_error_line(res) -> str:
    assert "Traceback" not in res.stderr, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1, res.stderr
    return lines[0]


def _sql(home: Path, mysqld_binary: str, *statements: str) -> list:
    """Run statements on a cached dataset's datadir through loadgen's own server class."""
    from loadgen.servers.local import LocalServer

    server = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        conn = server.connect()
        cur = conn.cursor()
        out = []
        for statement in statements:
            cur.execute(statement)
            out.append(cur.fetchall())
        conn.close()
        return out
    finally:
        server.stop()


def test_d3_two_concurrent_runs_on_one_fresh_dataset(mysqld_binary, tmp_path):
    rows = 130_000
    outs = [tmp_path / "g1.json", tmp_path / "g2.json"]
    first = subprocess.Popen(loadgen_cmd(*_run_args(rows, outs[0])), cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.5)  # the red team's case (c): the second starts while the first initialises or seeds
    second = subprocess.Popen(loadgen_cmd(*_run_args(rows, outs[1])), cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = [p.communicate(timeout=900) for p in (first, second)]
    for proc, (_, err) in zip((first, second), results):
        assert proc.returncode == 0, err
    # the second waited for the first, saying for whom
    assert "is in use by pid" in results[1][1], results[1][1]
    for out in outs:
        r = json.loads(out.read_text())
        assert r["complete"] is True
        assert r["dataset"]["height"] == 3
        assert r["result"]["queries"] == r["result"]["rows_returned"] == 2 * len(range(1, rows + 1, 10))
        assert r["prediction"] is not None
    height = _sql(_home_of(rows, mysqld_binary), mysqld_binary,
                  "SELECT v FROM chat.loadgen_meta WHERE k='height'")[0][0][0]
    assert height == "3"
    assert not our_server_pids()


def test_d7_rows_deleted_from_a_cached_table_are_noticed(mysqld_binary, tmp_path):
    rows = 110_000
    assert run_loadgen("seed", "--server", "local", "--rows", str(rows), "--pool", "8M").returncode == 0
    home = _home_of(rows, mysqld_binary)
    _sql(home, mysqld_binary, "DELETE FROM chat.message WHERE id BETWEEN 1000 AND 60000")
    out = tmp_path / "r.json"
    res = run_loadgen(*_run_args(rows, out))
    if res.returncode == 0:  # re-seeded: the numbers describe the full table again
        r = json.loads(out.read_text())
        assert r["result"]["rows_returned"] == r["result"]["queries"]
        assert "reusing" not in res.stderr
    else:  # or refused, in one line naming the dataset
        assert str(home) in _one_error_line(res)
    count = _sql(home, mysqld_binary, "SELECT COUNT(*) FROM chat.message")[0][0][0]
    assert count in (rows, 0) or res.returncode != 0


def test_d8_a_truncated_tablespace_is_one_line_naming_the_dataset(mysqld_binary, tmp_path):
    rows = 105_000
    assert run_loadgen("seed", "--server", "local", "--rows", str(rows), "--pool", "8M").returncode == 0
    home = _home_of(rows, mysqld_binary)
    ibd = home / "data" / "chat" / "message.ibd"
    os.truncate(ibd, ibd.stat().st_size // 2)
    res = run_loadgen(*_run_args(rows, tmp_path / "r.json"))
    assert res.returncode == 1
    line = _one_error_line(res)
    assert str(home) in line and "remove" in line, line
    assert not our_server_pids()


def test_d19_a_killed_seed_leaves_no_temp_file_behind(mysqld_binary, tmp_path):
    rows = 1_500_000
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    home = _home_of(rows, mysqld_binary)
    proc = subprocess.Popen(loadgen_cmd("seed", "--server", "local", "--rows", str(rows), "--pool", "8M"),
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    end = time.monotonic() + 300
    # kill it once a chunk file exists somewhere loadgen writes them
    while time.monotonic() < end and proc.poll() is None:
        if list(tmpdir.glob("loadgen-seed-*")) or list(home.rglob("loadgen-seed-*")):
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read()
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 60
    while our_server_pids() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not list(tmpdir.glob("loadgen-seed-*")), "chunk files belong in the dataset home"
    # the next seed of that dataset sweeps the stale file the killed one left
    again = subprocess.run(loadgen_cmd("seed", "--server", "local", "--rows", str(rows), "--pool", "8M"),
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert not list(home.rglob("loadgen-seed-*"))
    assert not list(tmpdir.glob("loadgen-seed-*"))


@pytest.fixture
def up_server(mysqld_binary):
    res = run_loadgen("up", "--server", "local", "--pool", "16M")
    assert res.returncode == 0, res.stderr
    try:
        yield
    finally:
        run_loadgen("down")
    assert not our_server_pids()


def test_d9_set_on_a_run_against_the_up_server_is_applied(up_server, tmp_path):
    out = tmp_path / "r.json"
    res = run_loadgen("run", "--variation", "A", "--rows", "50k", "--out", str(out),
                      "--set", "innodb_old_blocks_time=0")
    assert res.returncode == 0, res.stderr
    r = json.loads(out.read_text())
    assert r["server"]["variables"]["innodb_old_blocks_time"] == "0"
    assert "state" in r["server"]["datadir"]  # still the up server
    assert len(our_server_pids()) == 1


def test_d15_two_runs_against_the_up_server_at_once(up_server, tmp_path):
    outs = [tmp_path / "u1.json", tmp_path / "u2.json"]
    procs = [subprocess.Popen(loadgen_cmd("run", "--variation", v, "--rows", "50k", "--pool", p, "--out", str(o)),
                              cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for v, p, o in (("A", "16M", outs[0]), ("B", "24M", outs[1]))]
    results = [p.communicate(timeout=600) for p in procs]
    for proc, (_, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert "no longer running" not in err
    for out, pool in zip(outs, (16 << 20, 24 << 20)):
        r = json.loads(out.read_text())
        assert r["complete"] and r["server"]["innodb_buffer_pool_size"] == pool
        assert "state" in r["server"]["datadir"]
    status = run_loadgen("status")
    assert status.returncode == 0, status.stdout
    assert len(our_server_pids()) == 1

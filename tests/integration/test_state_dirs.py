"""An up server belongs to its state directory and to the job that kept it up (issue #18: as root,
`--server local` in one job restarted another job's `loadgen up` server with its own pool and
seeded rows into it, though each job had its own LOADGEN_CACHE_DIR)."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from ..conftest import ROOT, loadgen_cmd, our_server_pids

pytestmark = pytest.mark.mysqld


def job(base, **env: str):
    """A loadgen command runner with the environment of one job: its own LOADGEN_CACHE_DIR (and
    whatever else is given), none of the test session's state settings, and XDG_STATE_HOME
    inside the test (the machine-wide /var/lib/loadgen that root's default once was is never
    touched)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("LOADGEN_STATE_DIR", "LOADGEN_CACHE_DIR")}
    clean.update({"XDG_STATE_HOME": str(base / "xdg"), **env})

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(loadgen_cmd(*args), capture_output=True, text=True, env=clean, timeout=600, cwd=ROOT)

    return run


@pytest.fixture
def base(session_dir, request):
    path = session_dir / f"jobs-{request.node.name[:40]}"
    path.mkdir(mode=0o711)
    os.chmod(path, 0o711)  # as root the servers run as mysql, which must pass through
    return path


def test_a_job_with_its_own_cache_dir_never_takes_over_another_jobs_up_server(mysqld_binary, base, tmp_path):
    a = job(base, LOADGEN_CACHE_DIR=str(base / "a"))
    b = job(base, LOADGEN_CACHE_DIR=str(base / "b"))
    res = a("up", "--server", "local", "--pool", "16M")
    assert res.returncode == 0, res.stderr
    try:
        out = tmp_path / "b.json"
        res = b("run", "--server", "local", "--pool", "8M", "--rows", "20k", "--variation", "A",
                "--driver", "python", "--out", str(out))
        assert res.returncode == 0, res.stderr[-2000:]
        assert "from `loadgen up`" not in res.stderr
        doc = json.loads(out.read_text())
        assert doc["server"]["datadir"].startswith(str(base / "b"))  # its own server, in its own cache
        assert doc["server"]["innodb_buffer_pool_size"] == 8 << 20
        # one line says which server the run used: flavour, version, binary, pool
        flavor, version = doc["server"]["flavor"], doc["server"]["version"]
        assert f"using local {flavor} {version}, binary {mysqld_binary}, pool 8 MiB" in " ".join(res.stderr.split())
        status = a("status")
        assert status.returncode == 0 and "pool 16 MiB" in status.stdout, status.stdout  # untouched
        assert b("status").returncode == 1  # B has no up server: the state is per job
    finally:
        a("down")
    assert not our_server_pids()


def test_a_shared_state_dir_lends_the_up_server_as_it_is_and_never_restarts_seeds_or_stops_it(
        mysqld_binary, base, tmp_path):
    state = str(base / "shared-state")
    a = job(base, LOADGEN_CACHE_DIR=str(base / "a"), LOADGEN_STATE_DIR=state)
    c = job(base, LOADGEN_CACHE_DIR=str(base / "c"), LOADGEN_STATE_DIR=state)
    res = a("up", "--server", "local", "--pool", "16M")
    assert res.returncode == 0, res.stderr
    try:
        before = our_server_pids()
        run = ["run", "--variation", "A", "--rows", "20k", "--driver", "python"]
        res = c(*run, "--pool", "8M", "--out", str(tmp_path / "c8.json"))
        assert res.returncode == 2, res.stderr[-2000:]
        assert "kept up by another job" in res.stderr and "LOADGEN_STATE_DIR" in res.stderr
        assert "--pool 8 MiB (it has 16 MiB)" in " ".join(res.stderr.split())
        res = c(*run, "--out", str(tmp_path / "c-unseeded.json"))
        assert res.returncode == 1 and "does not seed into it" in res.stderr, res.stderr[-2000:]
        assert "Traceback" not in res.stderr
        assert our_server_pids() == before  # neither command restarted it
        res = a("seed", "--rows", "20k")  # its own job may
        assert res.returncode == 0, res.stderr[-2000:]
        out = tmp_path / "c.json"
        res = c(*run, "--out", str(out))
        assert res.returncode == 0, res.stderr[-2000:]
        assert "using the server from `loadgen up`" in res.stderr and "kept up by another job" in res.stderr
        assert json.loads(out.read_text())["server"]["innodb_buffer_pool_size"] == 16 << 20
        res = c("down")
        assert res.returncode == 2 and "does not stop it" in res.stderr
        assert our_server_pids() == before
    finally:
        a("down")
    assert not our_server_pids()



def test_down_removes_a_long_homes_socket_directory_in_tmp(mysqld_binary, base):
    """A state directory too long for a socket path puts the up server's socket in a private /tmp
    directory; `loadgen down` (another process, attached from the state) removes it with the server
    (it stayed behind: a CI rehearsal left two empty /tmp/loadgen-<uid>-* directories)."""
    long_dir = base / ("s" * 90)
    a = job(base, LOADGEN_CACHE_DIR=str(base / "a"), LOADGEN_STATE_DIR=str(long_dir))
    res = a("up", "--server", "local", "--pool", "16M")
    assert res.returncode == 0, res.stderr
    try:
        socket_dirs = [d for d in os.listdir("/tmp") if d.startswith("loadgen-") and os.path.isdir(f"/tmp/{d}")
                       and os.path.exists(f"/tmp/{d}/mysqld.sock")]
        mine = [d for d in socket_dirs if f"{d}/mysqld.sock" in res.stdout + res.stderr]
        assert len(mine) == 1, (res.stdout, res.stderr, socket_dirs)
    finally:
        assert a("down").returncode == 0
    assert not os.path.exists(f"/tmp/{mine[0]}")
    assert not our_server_pids()

"""--server docker, `loadgen image build` and compose/, against the real Docker engine.

The image is the offline one (`make image`, or built here when missing). With
LOADGEN_REQUIRE_DOCKER=1 (CI) a missing engine or image fails these tests instead of skipping
them. Every test checks that no container of this session is left (the fixtures in conftest.py,
which never touch another loadgen's); the dataset volumes they create live in the session's cache
namespace and are removed at the end.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from ..conftest import ROOT, loadgen_cmd, require, run_loadgen
from .conftest import IMAGE, LABEL, leaves_no_container, session_containers, session_labels

pytestmark = pytest.mark.docker

ROWS = "200k"
POOL = "16M"
POOL_BYTES = 16 << 20


# -- helpers -------------------------------------------------------------------------------------
def docker_run(*args: str, out: Path | None = None, extra: tuple = ()) -> list[str]:
    return ["--server", "docker", "--image", IMAGE, "--pool", POOL, "--rows", ROWS, *args, *extra] + (
        ["--out", str(out)] if out else [])


def assert_one_line_error(res, code: int, *needles: str) -> str:
    assert res.returncode == code, (res.returncode, res.stderr[-2000:])
    err = res.stderr.strip()
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def wait_for(predicate, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def start_loadgen(*args: str) -> subprocess.Popen:
    return subprocess.Popen(loadgen_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)


def containers_of(client, pid: int) -> list:
    return client.containers.list(all=True, filters={"label": f"{LABEL}.pid={pid}"}, ignore_removed=True)


def wait_until_measuring(client, proc: subprocess.Popen) -> str:
    """Name of the container a run measures: the second one, after the cold restart."""
    seen: list[str] = []

    def second():
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        for c in containers_of(client, proc.pid):
            if c.name not in seen:
                seen.append(c.name)
        return seen[1] if len(seen) > 1 else None

    name = wait_for(second, 90, "the cold restart before the run")
    # Well into the queries, as the server counts them: a fixed sleep after the restart landed
    # before the first query on a loaded host.
    container = client.containers.get(name)
    wait_for(lambda: (assert_running(proc) and selects_done(container) >= MEASURING_SELECTS), 90,
             f"{MEASURING_SELECTS:,} queries on the restarted server")
    return name


MEASURING_SELECTS = 2_000


def assert_running(proc: subprocess.Popen) -> bool:
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    return True


def selects_done(container) -> int:
    """Com_select of the container's server, read through its published port with the password
    the container itself holds (0 while it cannot be reached: still starting). Never another
    run's password: each refused login is a warning in the server's log, and the test below
    wants the log's last lines to be the server's own."""
    from loadgen import db
    from loadgen.servers.docker import SECRET_PATH

    try:
        container.reload()
        bindings = (container.attrs["NetworkSettings"]["Ports"] or {}).get("3306/tcp") or []
        code, out = container.exec_run(["cat", SECRET_PATH])
    except Exception:  # noqa: BLE001 - gone: the caller's checks say why
        return 0
    if code != 0 or not bindings:
        return 0
    try:
        conn = db.connect(db.Endpoint(host="127.0.0.1", port=int(bindings[0]["HostPort"]), user="root",
                                      password=out.decode().strip()))
    except Exception:  # noqa: BLE001 - not up yet
        return 0
    try:
        return int(db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Com_select'")[0][1])
    finally:
        conn.close()


def passwords() -> list[str]:
    cache = Path(os.environ["LOADGEN_CACHE_DIR"]) / "docker"
    return [p.read_text().strip() for p in cache.glob("*/password")]


# -- the main path -------------------------------------------------------------------------------
def test_ab_through_docker_reports_the_requested_pool(image, engine, no_new_containers, tmp_path):
    res = run_loadgen("compare", *docker_run("--out-dir", str(tmp_path)))
    assert res.returncode == 0, res.stderr[-2000:]
    files = sorted(tmp_path.glob("*.json"))
    results = {json.loads(f.read_text())["workload"]["variation"]: json.loads(f.read_text()) for f in files}
    assert set(results) == {"A", "B"}
    for r in results.values():
        assert r["complete"]
        assert r["server"]["provider"] == "docker"
        assert r["server"]["image"] == IMAGE
        # The server's own variable, read over the connection, not what we asked for.
        assert int(r["server"]["variables"]["innodb_buffer_pool_size"]) == POOL_BYTES
        assert r["server"]["variables"]["innodb_flush_method"] == "O_DIRECT"
        assert r["server"]["variables"]["log_bin"] == "OFF"
        assert r["server"]["cold_start"]["cold"]
    # The looped order misses more than the interleaved one once the table exceeds the pool.
    assert results["B"]["buffer_pool"]["reads"] > results["A"]["buffer_pool"]["reads"] > 0
    secrets_seen = passwords()
    assert secrets_seen, "the dataset volume's password file is missing"
    for pw in secrets_seen:
        assert pw not in res.stdout and pw not in res.stderr
        assert all(pw not in f.read_text() for f in files)


def test_second_run_reuses_the_seeded_volume(image, engine, no_new_containers, tmp_path):
    out = tmp_path / "r.json"
    res = run_loadgen("run", *docker_run("--variation", "A", out=out))
    assert res.returncode == 0, res.stderr[-2000:]
    assert "reusing the seeded" in res.stderr
    doc = json.loads(out.read_text())
    assert doc["dataset"]["seeded"] is False
    assert doc["server"]["volume_kept"] is True


def test_auto_says_which_server_it_chose(image, engine, no_new_containers, mysqld_binary):
    """Flavour, version, and the image or binary (it said "a local mysqld" for a MariaDB)."""
    from loadgen.servers.engine import image_flavor
    from loadgen.servers.mysqld import binary_flavor

    flavor = image_flavor(engine, IMAGE)
    res = run_loadgen("seed", "--image", IMAGE, "--pool", "8M", "--rows", "1000")
    assert res.returncode == 0, res.stderr[-2000:]
    said = " ".join(res.stderr.split())
    assert f"--server auto: using docker, {flavor.name} {flavor.version} in image {IMAGE} (present here)" in said
    assert f"using docker {flavor.name}" in said and f"image {IMAGE}, pool 8 MiB" in said
    local = binary_flavor(mysqld_binary)
    res = run_loadgen("seed", "--image", "loadgen/absent:0", "--pool", "8M", "--rows", "1000")
    assert (f"--server auto: using a local {local.name} {local.version} ({mysqld_binary}), not docker "
            "(image loadgen/absent:0 is neither present nor pullable)") in " ".join(res.stderr.split())


def test_up_keeps_one_container_between_commands(image, engine, no_new_containers, tmp_path):
    res = run_loadgen("up", "--server", "docker", "--image", IMAGE, "--pool", "8M")
    try:
        assert res.returncode == 0, res.stderr[-2000:]
        assert "up: docker mariadb" in res.stdout
        [container] = [c for c in session_containers(engine) if c.labels.get(f"{LABEL}.keep") == "1"]
        bindings = container.attrs["HostConfig"]["PortBindings"]["3306/tcp"]
        assert [b["HostIp"] for b in bindings] == ["127.0.0.1"]
        assert run_loadgen("status").returncode == 0
        out = tmp_path / "up.json"
        res = run_loadgen("run", "--variation", "A", "--rows", ROWS, "--out", str(out))
        assert res.returncode == 0, res.stderr[-2000:]
        assert "using the server from `loadgen up` (docker" in res.stderr
        doc = json.loads(out.read_text())
        assert doc["server"]["provider"] == "docker"
        assert int(doc["server"]["variables"]["innodb_buffer_pool_size"]) == 8 << 20
        # Still up after the run, ready for the next command.
        assert run_loadgen("status").returncode == 0
    finally:
        down = run_loadgen("down")
    assert down.returncode == 0 and "stopped" in down.stdout, down.stderr


# -- the suite's own checks ----------------------------------------------------------------------
def _idle_container(client, labels: dict[str, str]):
    return client.containers.run(IMAGE, entrypoint=["sleep", "300"], detach=True, network_disabled=True,
                                 labels=labels, name=f"loadgen-test-{secrets.token_hex(3)}")


def test_the_leftover_check_counts_this_sessions_containers_and_spares_another_suites(image, engine):
    # Another loadgen on the same engine (a user's run, a second test suite): its own cache dir.
    other_labels = {**session_labels(), f"{LABEL}.cache-dir": "/elsewhere/another-suite/cache"}
    others = [_idle_container(engine, other_labels)]
    try:
        with leaves_no_container(engine):
            others.append(_idle_container(engine, other_labels))  # started meanwhile: still not ours
        ids = {c.id for c in others}
        assert ids <= {c.id for c in engine.containers.list(filters={"label": LABEL}, ignore_removed=True)}
        assert not ids & {c.id for c in session_containers(engine)}
        with pytest.raises(AssertionError, match="left behind"):
            with leaves_no_container(engine):
                mine = _idle_container(engine, session_labels())
        with pytest.raises(docker_errors().NotFound):  # the check removed it
            engine.containers.get(mine.id)
        for c in others:
            c.reload()
            assert c.status == "running"
    finally:
        for c in others:
            c.remove(force=True)


def docker_errors():
    import docker

    return docker.errors


# -- interruptions and failures ------------------------------------------------------------------
@pytest.mark.parametrize("phase", ["seeding", "running"])
def test_sigint_leaves_no_container(image, engine, no_new_containers, tmp_path, phase):
    out = tmp_path / "r.json"
    if phase == "seeding":
        # A dataset of its own, so seeding is still under way when the signal lands.
        proc = start_loadgen("run", "--server", "docker", "--image", IMAGE, "--pool", POOL, "--rows", "3M",
                             "--variation", "A", "--out", str(out))
        wait_for(lambda: containers_of(engine, proc.pid), 60, "the container")
        time.sleep(3)  # start-up takes ~2 s; 3M rows take ~10 s to seed
    else:
        proc = start_loadgen("run", *docker_run("--variation", "A", "--reps", "50", out=out))
        wait_until_measuring(engine, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    assert not containers_of(engine, proc.pid)
    assert subprocess.run(["docker", "ps", "-a", "-q", "--filter", f"label={LABEL}.pid={proc.pid}"],
                          capture_output=True, text=True, check=True).stdout.strip() == ""
    if phase == "seeding":
        assert "seeded chat.message" not in err
    else:
        doc = json.loads(out.read_text())  # what was measured is kept
        assert doc["complete"] is False and doc["incomplete_reason"] == "interrupted"
        assert doc["result"]["queries"] > 0


def test_container_dying_mid_run_names_its_last_log_lines(image, engine, no_new_containers, tmp_path):
    out = tmp_path / "r.json"
    proc = start_loadgen("run", *docker_run("--variation", "A", "--reps", "50", out=out))
    name = wait_until_measuring(engine, proc)
    engine.containers.get(name).kill()
    _, err = proc.communicate(timeout=120)
    res = subprocess.CompletedProcess(proc.args, proc.returncode, "", err)
    line = assert_one_line_error(res, 1, "went away", "exit code 137 (killed)", "mariadbd", str(out))
    assert "ready for connections" in line or "ERROR" in line  # the container's own log lines
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and doc["result"]["queries"] > 0
    assert not containers_of(engine, proc.pid)


def test_container_orphaned_by_a_killed_loadgen_is_swept_by_the_next(image, engine, no_new_containers, tmp_path):
    from testcontainers.core.config import testcontainers_config

    proc = start_loadgen("run", *docker_run("--variation", "A", "--reps", "50", out=tmp_path / "r.json"))
    name = wait_until_measuring(engine, proc)
    proc.kill()  # SIGKILL: no finally runs, and no Ryuk here to reap the container
    proc.communicate(timeout=30)
    try:
        has_ryuk = bool(engine.images.list(name=testcontainers_config.ryuk_image))
    except Exception:  # noqa: BLE001 - any engine trouble: take it as no Ryuk
        has_ryuk = False
    if not has_ryuk:
        assert engine.containers.get(name).status == "running"
    res = run_loadgen("seed", *docker_run())
    assert res.returncode == 0, res.stderr[-2000:]
    assert not containers_of(engine, proc.pid)


def test_no_engine_suggests_local(image, no_new_containers):
    res = run_loadgen("run", *docker_run("--variation", "A"), env={"DOCKER_HOST": "unix:///nonexistent.sock"})
    assert_one_line_error(res, 1, "no Docker engine answers", "--server local")


def test_missing_image_suggests_building_one(engine, no_new_containers):
    res = run_loadgen("run", "--server", "docker", "--image", "loadgen/absent:0", "--rows", ROWS)
    assert_one_line_error(res, 1, "loadgen/absent:0 is neither present nor pullable", "loadgen image build",
                          "--image")


def test_pool_larger_than_the_container_may_use(image, engine, no_new_containers):
    res = run_loadgen("run", "--server", "docker", "--image", IMAGE, "--pool", "4096G", "--rows", ROWS)
    assert_one_line_error(res, 2, "larger than a container may use", "use --pool")


# -- compose/ ------------------------------------------------------------------------------------
def _compose_cmd() -> list[str] | None:
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_compose_file_comes_up_healthy_and_dsn_runs_against_it(image, engine, tmp_path):
    compose = _compose_cmd()
    if compose is None:
        require("LOADGEN_REQUIRE_DOCKER", "no docker compose", "install docker-compose or the compose plugin")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    project = f"loadgentest{secrets.token_hex(3)}"
    env = {**os.environ, "LOADGEN_IMAGE": image, "LOADGEN_POOL": POOL, "LOADGEN_PORT": str(port),
           "LOADGEN_PASSWORD": secrets.token_hex(12)}
    base = [*compose, "-f", str(ROOT / "compose" / "docker-compose.yml"), "-p", project]
    try:
        up = subprocess.run([*base, "up", "-d"], env=env, capture_output=True, text=True, timeout=300)
        assert up.returncode == 0, up.stderr
        [container] = engine.containers.list(filters={"label": f"com.docker.compose.project={project}"})

        def healthy():
            container.reload()
            assert container.status == "running", container.logs(tail=20).decode(errors="replace")
            return container.attrs["State"]["Health"]["Status"] == "healthy"

        wait_for(healthy, 120, "the compose service to become healthy")
        bindings = container.attrs["HostConfig"]["PortBindings"]["3306/tcp"]
        assert [b["HostIp"] for b in bindings] == ["127.0.0.1"]
        out = tmp_path / "dsn.json"
        res = run_loadgen("run", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{port}/", "--variation", "A",
                          "--rows", ROWS, "--out", str(out), env={"LOADGEN_PASSWORD": env["LOADGEN_PASSWORD"]})
        assert res.returncode == 0, res.stderr[-2000:]
        doc = json.loads(out.read_text())
        assert doc["server"]["provider"] == "dsn"
        assert int(doc["server"]["variables"]["innodb_buffer_pool_size"]) == POOL_BYTES
        assert doc["server"]["variables"]["innodb_flush_method"] == "O_DIRECT"
    finally:
        subprocess.run([*base, "down", "-v", "-t", "30"], env=env, capture_output=True, timeout=300)
    assert not engine.containers.list(all=True, filters={"label": f"com.docker.compose.project={project}"})

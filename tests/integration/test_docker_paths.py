"""--server docker past docker-proxy (servers/fastpath.py) and --pipeline against containers:
the path a run used is recorded and each one works; the pipelined driver returns the same rows as
one query at a time on MariaDB and on MySQL (loadgen/mysql:9.7, when present)."""
from __future__ import annotations

import json
import os

import pytest

from loadgen.drivers import native
from loadgen.drivers.python import DriverState

from ..conftest import require, run_loadgen

pytestmark = pytest.mark.docker

MYSQL_IMAGE = os.environ.get("LOADGEN_TEST_MYSQL_IMAGE", "loadgen/mysql:9.7")


def scratch(image_name: str):
    from loadgen.servers import ServerSpec
    from loadgen.servers.docker import DockerServer

    server = DockerServer(ServerSpec(provider="docker", image=image_name, pool_bytes=64 << 20))
    server.start()
    return server


@pytest.mark.parametrize("path", ["unix_socket", "bridge", "published_port"])
def test_each_path_is_used_when_asked_and_recorded(image, engine, no_new_containers, monkeypatch, path):
    from loadgen.servers import fastpath

    if not fastpath.local_linux_engine() and path != "published_port":
        pytest.skip("the engine is not local: only the published port exists")
    monkeypatch.setenv(fastpath.ENV, path)
    server = scratch(image)
    try:
        assert server.endpoint_path == path == server.describe()["endpoint_path"]
        ep = server.endpoint
        if path == "unix_socket":
            assert ep.unix_socket and os.path.exists(ep.unix_socket)
        elif path == "bridge":
            assert ep.unix_socket is None and ep.host.startswith(("172.", "10.", "192.168.")) and ep.port == 3306
        else:
            assert ep.unix_socket is None and (ep.host, ep.port) == ("127.0.0.1", server.port)
        conn = server.connect()
        cur = conn.cursor()
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
        conn.close()
        # Whatever path the client uses, the host side of the port is 127.0.0.1 only.
        bindings = server.container.attrs["NetworkSettings"]["Ports"]["3306/tcp"]
        assert {b["HostIp"] for b in bindings} == {"127.0.0.1"}
        sock_dir = server.sock_dir
    finally:
        server.stop()
    assert sock_dir is None or not sock_dir.exists()  # removed with the container


def test_auto_picks_the_socket_on_a_local_engine_and_a_run_records_it(image, engine, no_new_containers, tmp_path):
    from loadgen.servers import fastpath

    out = tmp_path / "r.json"
    res = run_loadgen("run", "--server", "docker", "--image", image, "--pool", "16M", "--rows", "200k",
                      "--variation", "A", "--pipeline", "16", "--out", str(out), env={fastpath.ENV: "auto"})
    assert res.returncode == 0, res.stderr
    r = json.loads(out.read_text())
    assert r["server"]["endpoint_path"] == ("unix_socket" if fastpath.local_linux_engine() else "published_port")
    assert r["result"]["latency_kind"] == "pipelined_response"
    assert r["complete"] and r["result"]["rows_returned"] == r["result"]["queries"] == r["workload"]["queries"]


def test_a_forced_path_that_does_not_answer_is_a_usage_error(monkeypatch):
    from loadgen.errors import UsageError
    from loadgen.servers import fastpath

    monkeypatch.setenv(fastpath.ENV, "carrier-pigeon")
    with pytest.raises(UsageError, match="carrier-pigeon"):
        fastpath.wanted()


@pytest.mark.parametrize("which", ["mariadb", "mysql"])
def test_pipelined_rows_match_one_at_a_time_in_a_container(engine, no_new_containers, which, request):
    if not native.available():
        require("LOADGEN_REQUIRE_NATIVE_DRIVER", "no native driver in this build", "built without libmariadb")
    if which == "mariadb":
        image_name = request.getfixturevalue("image")
    else:
        image_name = MYSQL_IMAGE
        try:
            engine.images.get(image_name)
        except Exception:  # noqa: BLE001 - docker's NotFound, or no engine: the image is missing
            require("LOADGEN_REQUIRE_DOCKER", f"no image {image_name}", "build it or set LOADGEN_TEST_MYSQL_IMAGE")
    server = scratch(image_name)
    try:
        conn = server.connect()
        cur = conn.cursor()
        cur.execute("CREATE DATABASE p")
        cur.execute("CREATE TABLE p.m (id BIGINT UNSIGNED PRIMARY KEY, alias VARCHAR(40), n INT)")
        cur.execute("INSERT INTO p.m VALUES " + ",".join(
            f"({i},'alias-{i}',{'NULL' if i % 3 == 0 else -i})" for i in range(1, 3001)))
        conn.commit()
        ids = [(i * 7919) % 3500 + 1 for i in range(6000)]  # some past the table: no row
        cur.execute("SELECT id, alias, n FROM p.m")
        table = {row[0]: row[1:] for row in cur.fetchall()}
        conn.close()
        expected = native.row_digest(
            tuple(None if v is None else str(v).encode() for v in table[i]) for i in ids if i in table)
        digests = {}
        for pipeline in (1, 16):
            state = DriverState()
            with native.NativeQueries(server.endpoint, "p", "SELECT alias, n FROM m WHERE id = ?", verify=True,
                                      pipeline=pipeline) as q:
                native.run_queries_native(q, ids, state)
                digests[pipeline] = q.digest
            assert state.error is None
            assert (state.queries, state.rows) == (len(ids), sum(i in table for i in ids))
        assert digests[1] == digests[16] == expected
    finally:
        server.stop()

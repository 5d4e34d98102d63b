"""`sweep --server dsn` against a server loadgen did not start: every pool after the first is set
by resizing the running server (it used to fail with an AttributeError and a traceback)."""
from __future__ import annotations

import json

import pytest

from ..conftest import run_loadgen

pytestmark = pytest.mark.mysqld


@pytest.fixture(scope="module")
def dsn_server(mysqld_binary, session_dir):
    """A real mariadbd we start ourselves and then treat as someone else's, through --dsn."""
    from loadgen.servers.local import LocalServer

    # under the session dir: as root the server runs as mysql, which must be able to enter its home
    server = LocalServer(session_dir / "dsn-server", 32 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_sweep_over_two_pools_on_a_dsn_server_resizes_it(dsn_server, tmp_path):
    ep = dsn_server.endpoint
    if dsn_server.flavor.name != "mariadb" or dsn_server.flavor.version_tuple < (10, 11, 12):
        pytest.skip(f"online resize to a cold pool needs MariaDB 10.11.12+, not {dsn_server.flavor.version}")
    out = tmp_path / "sweep.json"
    res = run_loadgen("sweep", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{ep.port}/",
                      "--pools", "8M,16M", "--variations", "A", "--rows", "20k", "--driver", "python",
                      "--out", str(out), "--out-dir", str(tmp_path / "runs"),
                      env={"LOADGEN_PASSWORD": ep.password})
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Traceback" not in res.stderr
    sweep = json.loads(out.read_text())
    assert sweep["kind"] == "sweep"
    pools = sorted(p["pool_bytes"] for p in sweep["points"])
    assert pools == [8 << 20, 16 << 20]  # as the server reported them: the resize happened
    for p in sweep["points"]:
        run = json.loads(open(p["result_file"]).read())
        assert run["kind"] == "run" and run["server"]["provider"] == "dsn"
        assert run["server"]["cold_start"]["method"] == "resize" and run["buffer_pool"]["reads"] > 0
    assert ep.password not in res.stdout + res.stderr

"""The MariaDB images `loadgen image build` makes, the host release's (`loadgen/mariadb:10.11` on
bookworm) and Debian trixie's (`--release trixie`: `loadgen/mariadb:11.8`), held to what the MySQL
image is held to (test_docker_mysql.py): flags reach the server, root has the generated password
at both doors and no account logs in without one, the server does not run as root, the password
stays out of the logs, and an empty datadir without a password is refused. And `--server dsn`'s
cold start (shrink the pool to the minimum, grow it back) on 11.8, whose pool resizing was
rewritten (MDEV-29445: no chunks, innodb_buffer_pool_size_max).
"""
from __future__ import annotations

import contextlib
import json
import secrets
import subprocess

import pytest

from ..conftest import run_loadgen
from .conftest import login as _login
from .conftest import session_filter, session_labels

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module", params=["10.11", "11.8"])
def mariadb_image(request) -> tuple[str, str]:
    """(tag, series): the host release's image (conftest.image) or trixie's."""
    fixture = "image" if request.param == "10.11" else "mariadb_trixie_image"
    return request.getfixturevalue(fixture), request.param


@contextlib.contextmanager
def started(engine, tag: str):
    """The image started by hand, as compose or `docker run` would: (container, port, password)."""
    password = "p'w\\" + secrets.token_hex(8)  # a quote and a backslash: the entrypoint must escape them
    container = engine.containers.run(
        tag, ["--innodb-buffer-pool-size=16M", "--local-infile=ON"], detach=True,
        environment={"MARIADB_ROOT_PASSWORD": password}, ports={"3306/tcp": ("127.0.0.1", None)},
        labels=session_labels(), name=f"loadgen-test-{secrets.token_hex(3)}")
    try:
        container.reload()
        port = int(container.attrs["NetworkSettings"]["Ports"]["3306/tcp"][0]["HostPort"])
        yield container, port, password
    finally:
        container.remove(force=True, v=True)


@pytest.fixture
def raw_container(engine, mariadb_image):
    """(container, port, password, series) of each MariaDB image, started by hand."""
    tag, series = mariadb_image
    with started(engine, tag) as (container, port, password):
        yield container, port, password, series


def test_image_is_labelled_with_its_release_and_named_after_its_series(engine, mariadb_image):
    from loadgen.servers.docker import image_flavor
    from loadgen.servers.image import find_image

    tag, series = mariadb_image
    flavor = image_flavor(engine, tag)
    assert flavor.name == "mariadb" and flavor.version.startswith(series + "."), flavor
    built = find_image(tag)
    assert built.flavor == "mariadb" and built.version == flavor.version
    if series == "11.8":
        assert built.release == "trixie"


def test_entrypoint_behaves_like_the_official_image(raw_container):
    container, port, password, series = raw_container
    conn = _login(port, password)
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@innodb_buffer_pool_size, @@local_infile, VERSION()")
        pool, local_infile, version = cur.fetchone()
        assert int(pool) == 16 << 20 and int(local_infile) == 1  # flags after the image name reach mariadbd
        assert version.startswith(series + ".") and "mariadb" in version.lower()
        cur.execute("SELECT user, host FROM mysql.global_priv ORDER BY user, host")
        assert cur.fetchall() == (("mariadb.sys", "localhost"), ("root", "%"), ("root", "localhost"))
        # no account logs in without a password (mariadb.sys has none, and is locked)
        cur.execute("SELECT user, host FROM mysql.global_priv WHERE JSON_VALUE(priv, '$.authentication_string') = '' "
                    "AND IFNULL(JSON_VALUE(priv, '$.account_locked'), 0) IN (0, 'false')")
        assert cur.fetchall() == ()
    finally:
        conn.close()
    # root with another password, or none, is refused at the published door
    import MySQLdb

    for wrong in ("", password + "x"):
        with pytest.raises(MySQLdb.OperationalError, match="Access denied"):
            MySQLdb.connect(host="127.0.0.1", port=port, user="root", passwd=wrong, connect_timeout=5)
    status = container.exec_run(["cat", "/proc/1/status"]).output.decode()
    uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
    assert uid == "999"  # mariadbd runs as the mysql user, not root
    assert password not in container.logs().decode(errors="replace")


def test_entrypoint_refuses_an_empty_datadir_without_a_password(engine, mariadb_image):
    tag, _ = mariadb_image
    out = subprocess.run(["docker", "run", "--rm", "--label", session_filter(), tag],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "no root password was given" in out.stderr


def test_dsn_cold_start_on_11_8_shrinks_and_regrows_the_pool(engine, mariadb_trixie_image, tmp_path):
    """--server dsn on a server we do not own: the pool is shrunk to MariaDB's 6 MiB minimum and
    grown back before the run, synchronously on 11.8 as on 10.11.12+ (whose path test_local_runs
    and test_dsn_sweep cover)."""
    with started(engine, mariadb_trixie_image) as (_, port, password):
        _login(port, password).close()
        out = tmp_path / "dsn.json"
        res = run_loadgen("run", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{port}/", "--rows", "60k",
                          "--variation", "A", "--out", str(out), env={"LOADGEN_PASSWORD": password})
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["server"]["version"].startswith("11.8.")
    cold = doc["server"]["cold_start"]
    assert cold["method"] == "resize" and cold["cold"] is True and cold["verified"] is True, cold
    assert cold["pool_bytes_shrunk"] == 6 << 20 and cold["pool_bytes_after"] == 16 << 20, cold
    # the 6 MiB pool (379 frames) kept at most what it holds: the rest of the table (~490 leaves) was evicted
    assert cold["pages_data_shrunk"] <= 379 < doc["dataset"]["leaf_pages"], cold
    assert doc["buffer_pool"]["pages_read"] >= doc["dataset"]["leaf_pages"] - 379

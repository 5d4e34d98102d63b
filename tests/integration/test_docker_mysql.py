"""Real MySQL in a container: the image `loadgen image build --flavor mysql` makes, and loadgen's
--server docker / --server dsn paths against it.

The image is found by its labels (the newest loadgen/mysql:*), named by
LOADGEN_TEST_MYSQL_IMAGE, or built here once (about a minute). With LOADGEN_REQUIRE_DOCKER=1 a
missing engine, or an image that cannot be built, fails these tests instead of skipping them.
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess

import pytest

from ..conftest import run_loadgen
from .conftest import login as _login
from .conftest import session_filter, session_labels
from .test_docker import assert_one_line_error
from .test_docker import test_compose_file_comes_up_healthy_and_dsn_runs_against_it as compose_check

pytestmark = pytest.mark.docker

ROWS = "200k"
# A quarter of the 200k-row table (26.6 MiB, 1,633 leaf pages): where the order matters most.
QUARTER_POOL = "8M"


@pytest.fixture
def raw_container(engine, mysql_image):
    """The image started by hand, as compose or `docker run` would: (container, port, password)."""
    password = "p'w\\" + secrets.token_hex(8)  # a quote and a backslash: the entrypoint must escape them
    container = engine.containers.run(
        mysql_image, ["--innodb-buffer-pool-size=16M", "--local-infile=ON", "--mysqlx=OFF"], detach=True,
        environment={"MYSQL_ROOT_PASSWORD": password}, ports={"3306/tcp": ("127.0.0.1", None)},
        labels=session_labels(),
        name=f"loadgen-test-{secrets.token_hex(3)}")
    try:
        container.reload()
        port = int(container.attrs["NetworkSettings"]["Ports"]["3306/tcp"][0]["HostPort"])
        yield container, port, password
    finally:
        container.remove(force=True, v=True)


# -- the image -----------------------------------------------------------------------------------
def test_image_is_labelled_mysql_and_named_after_its_series(engine, mysql_image):
    from loadgen.servers.docker import image_flavor

    flavor = image_flavor(engine, mysql_image)
    assert flavor.name == "mysql"
    series = ".".join(flavor.version.split(".")[:2])
    assert mysql_image.endswith(f":{series}") or os.environ.get("LOADGEN_TEST_MYSQL_IMAGE")


def test_entrypoint_behaves_like_the_official_image(raw_container, tmp_path):
    container, port, password = raw_container
    conn = _login(port, password)
    try:
        cur = conn.cursor()
        # Flags after the image name reach mysqld.
        cur.execute("SELECT @@innodb_buffer_pool_size, @@local_infile, @@secure_file_priv, VERSION()")
        pool, local_infile, secure_dir, version = cur.fetchone()
        assert int(pool) == 16 << 20 and int(local_infile) == 1
        assert secure_dir == "/var/lib/mysql-files/"
        assert "mariadb" not in version.lower()
        # root at both doors, and no account anyone can use without a password.
        cur.execute("SELECT user, host FROM mysql.user WHERE user = 'root' ORDER BY host")
        assert cur.fetchall() == (("root", "%"), ("root", "localhost"))
        cur.execute("SELECT user, host FROM mysql.user WHERE authentication_string = '' AND account_locked = 'N'")
        assert cur.fetchall() == ()
        cur.execute("SELECT plugin FROM mysql.user WHERE user = 'root' AND host = '%'")
        assert cur.fetchone()[0] == "caching_sha2_password"
        # secure_file_priv names a directory that exists: the server can write there.
        cur.execute("SELECT 1 INTO OUTFILE '/var/lib/mysql-files/probe.txt'")
        # LOAD DATA LOCAL works between libmariadb and this server (seeding depends on it).
        data = tmp_path / "rows.tsv"
        data.write_text("1\ta\n2\tb\n")
        cur.execute("CREATE DATABASE t")
        cur.execute("CREATE TABLE t.x (id INT PRIMARY KEY, v TEXT)")
    finally:
        conn.close()
    conn = _login(port, password, local_infile=1)
    try:
        cur = conn.cursor()
        cur.execute("LOAD DATA LOCAL INFILE %s INTO TABLE t.x", (str(data),))
        cur.execute("SELECT COUNT(*) FROM t.x")
        assert cur.fetchone()[0] == 2
    finally:
        conn.close()
    # mysqld runs as the mysql user, not root.
    status = container.exec_run(["cat", "/proc/1/status"]).output.decode()
    uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
    assert uid == "999"
    assert password not in container.logs().decode(errors="replace")


def test_entrypoint_refuses_an_empty_datadir_without_a_password(engine, mysql_image):
    out = subprocess.run(["docker", "run", "--rm", "--label", session_filter(), mysql_image],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "no root password was given" in out.stderr


# -- loadgen against it --------------------------------------------------------------------------
def test_ab_on_mysql_with_both_drivers_and_a_reused_volume(engine, mysql_image, no_new_containers,
                                                           tmp_path):
    common = ["--server", "docker", "--image", mysql_image, "--pool", QUARTER_POOL, "--rows", ROWS]
    res = run_loadgen("compare", *common, "--driver", "native", "--out-dir", str(tmp_path / "native"))
    assert res.returncode == 0, res.stderr[-2000:]
    assert "seeded chat.message" in res.stderr
    docs = {json.loads(f.read_text())["workload"]["variation"]: json.loads(f.read_text())
            for f in (tmp_path / "native").glob("*.json")}
    assert set(docs) == {"A", "B"}
    for doc in docs.values():
        server = doc["server"]
        assert doc["complete"] and server["provider"] == "docker" and server["image"] == mysql_image
        # The flavour comes from the server itself, and the version string is parsed.
        assert server["flavor"] == "mysql" and server["version"] == server["variables"]["version"].split("-")[0]
        assert server["cold_start"]["cold"]
        assert int(server["variables"]["innodb_buffer_pool_size"]) == 8 << 20
        assert server["variables"]["innodb_flush_method"] == "O_DIRECT"
        assert doc["dataset"]["height"] >= 2 and doc["dataset"]["leaf_pages"] > 1000
    # Pages read into the pool: B reloads the table on its second pass, A reads it once.
    a, b = docs["A"]["buffer_pool"]["pages_read"], docs["B"]["buffer_pool"]["pages_read"]
    assert b >= 1.6 * a, (a, b)
    assert a >= docs["A"]["dataset"]["leaf_pages"]

    out = tmp_path / "python.json"
    res = run_loadgen("run", *common, "--variation", "B", "--driver", "python", "--out", str(out))
    assert res.returncode == 0, res.stderr[-2000:]
    assert "reusing the seeded" in res.stderr
    doc = json.loads(out.read_text())
    assert doc["dataset"]["seeded"] is False and doc["server"]["volume_kept"] is True
    assert doc["result"]["queries"] == docs["B"]["result"]["queries"]
    # The same order from a cold pool reads about as many pages, whichever driver sends it.
    assert abs(doc["buffer_pool"]["pages_read"] - b) <= 0.1 * b


def test_dsn_login_failures_name_their_fix(raw_container):
    _, port, password = raw_container
    _login(port, password).close()
    dsn = ["run", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{port}/", "--rows", "1000"]
    res = run_loadgen(*dsn, env={"LOADGEN_PASSWORD": "wrong"})
    assert_one_line_error(res, 1, "Access denied", "check the user and password")
    # The client library without its caching_sha2_password plugin: libmariadb says 1045 too, but
    # a new password would not help. FLUSH PRIVILEGES empties the server's cache of fast logins.
    conn = _login(port, password)
    conn.cursor().execute("FLUSH PRIVILEGES")
    conn.close()
    res = run_loadgen(*dsn, env={"LOADGEN_PASSWORD": password, "MARIADB_PLUGIN_DIR": "/nonexistent"})
    assert_one_line_error(res, 1, "caching_sha2_password", "libmariadb3")


def test_compose_file_with_the_mysql_image(mysql_image, engine, tmp_path):
    compose_check(mysql_image, engine, tmp_path)


def test_dsn_on_mysql_says_what_the_server_did(raw_container, tmp_path):
    """A MySQL server we do not own: a --pool below its resize step is refused (MySQL would
    ignore it silently), local_infile=OFF is turned on for the seed and back off, and a pool of
    one chunk that cannot shrink is recorded as a warm start, never a cold one."""
    _, port, password = raw_container
    conn = _login(port, password)
    conn.cursor().execute("SET GLOBAL local_infile = 0")  # MySQL's default
    conn.close()
    dsn = ["--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{port}/", "--rows", "20k", "--variation", "A"]
    env = {"LOADGEN_PASSWORD": password}
    res = run_loadgen("run", *dsn, "--pool", "8M", env=env)
    assert_one_line_error(res, 2, "steps of 16 MiB", "--pool 16M")
    out = tmp_path / "dsn.json"
    res = run_loadgen("run", *dsn, "--out", str(out), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["dataset"]["seed_method"] == "load data local"
    assert "local_infile=OFF" in doc["dataset"]["seed_note"]
    cold = doc["server"]["cold_start"]
    assert cold["method"] == "resize" and cold["cold"] is False
    assert cold["pool_bytes_shrunk"] == cold["pool_bytes_after"] == 16 << 20  # one chunk: nothing evicted
    assert cold["pages_data_before"] is not None
    bp = doc["buffer_pool"]
    assert bp["pages_read"] == bp["reads"] + bp["read_ahead"]
    conn = _login(port, password)
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@GLOBAL.local_infile, @@GLOBAL.innodb_buffer_pool_size")
        assert tuple(map(int, cur.fetchone())) == (0, 16 << 20)  # both as the server's owner left them
    finally:
        conn.close()


def test_dsn_on_mysql_of_one_chunk_is_cold_right_after_a_restart_and_names_the_fix_when_warm(raw_container,
                                                                                            tmp_path):
    """A default MySQL pool is one chunk, which no resize can shrink: the start used to be recorded
    warm even right after a restart. The pool's contents decide: right after a restart without a
    pool reload it holds none of the table (cold, with an error figure); after a run it holds the
    table (warm, with the fix named, reload included, and no error figure)."""
    container, port, password = raw_container
    _login(port, password).close()
    env = {"LOADGEN_PASSWORD": password}

    def dsn(port: int) -> list[str]:
        return ["--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{port}/", "--rows", "200k"]

    res = run_loadgen("seed", *dsn(port), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    # as loadgen's fix says: MySQL dumps its pool at shutdown and reloads it at start-up by default,
    # which makes a restart warm too (28-184 of the table's pages back before the first query)
    conn = _login(port, password)
    conn.cursor().execute("SET GLOBAL innodb_buffer_pool_dump_at_shutdown = OFF")
    conn.close()
    container.restart(timeout=60)
    container.reload()
    port = int(container.attrs["NetworkSettings"]["Ports"]["3306/tcp"][0]["HostPort"])
    _login(port, password).close()

    out = tmp_path / "after-restart.json"
    res = run_loadgen("run", *dsn(port), "--variation", "A", "--out", str(out), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(out.read_text())
    cold = doc["server"]["cold_start"]
    assert cold["pool_bytes_shrunk"] == 16 << 20  # one chunk: the shrink evicted nothing
    assert cold["cold"] is True and cold["verified_by"] == "table_pages", cold
    assert cold["table_pages_before"] <= cold["table_pages_cold_max"]
    assert "it starts cold" in res.stderr
    assert doc["buffer_pool"]["pages_read"] >= doc["dataset"]["leaf_pages"]
    assert doc["prediction"]["error_pct"] is not None

    out = tmp_path / "next.json"
    conn = _login(port, password)
    conn.cursor().execute("SET GLOBAL innodb_buffer_pool_dump_at_shutdown = ON")  # the default again
    conn.close()
    res = run_loadgen("run", *dsn(port), "--variation", "A", "--out", str(out), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(out.read_text())
    cold = doc["server"]["cold_start"]
    assert cold["cold"] is False and cold["table_pages_before"] > cold["table_pages_cold_max"], cold
    assert cold["reloads_pool_at_restart"] is True
    assert "restart the server right before the run with innodb_buffer_pool_load_at_startup=OFF" in cold["fix"]
    assert "starts warm" in res.stderr and "innodb_buffer_pool_load_at_startup=OFF" in " ".join(res.stderr.split())
    assert doc["prediction"]["error_pct"] is None and "started warm" in doc["prediction"]["no_error_reason"]


def test_auto_prefers_a_built_image_that_is_here_and_names_it(engine, mysql_image, no_new_containers):
    """--server auto used the local MariaDB while a built loadgen/mysql image sat there (only the
    default mysql:8.4, absent and not pullable offline, was looked for)."""
    from loadgen.servers.engine import DEFAULT_IMAGE, image_flavor

    try:
        engine.images.get(DEFAULT_IMAGE)
        expected = DEFAULT_IMAGE  # the default itself is here: it comes first
    except Exception:  # noqa: BLE001 - absent, as on an offline host
        expected = mysql_image
    flavor = image_flavor(engine, expected)
    res = run_loadgen("seed", "--pool", "16M", "--rows", "1000")
    assert res.returncode == 0, res.stderr[-2000:]
    said = " ".join(res.stderr.split())
    assert f"--server auto: using docker, {flavor.name} {flavor.version} in image {expected} (present here)" in said

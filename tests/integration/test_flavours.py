"""The server tests that must hold on every server, run on each of three: a local mariadbd
(MariaDB 10.11 on bookworm), MariaDB 11.8 in a container (`loadgen/mariadb:11.8`, Debian
trixie's packages) and Oracle MySQL in a container (`loadgen/mysql:9.7`), the images found or
built as conftest.mariadb_trixie_image and conftest.mysql_image do.

On MySQL Innodb_buffer_pool_reads leaves read-ahead out, so these tests hold every flavour to
the headline, pages read into the pool (Innodb_pages_read). One seeded dataset per flavour is
shared by the whole session (local: the dataset cache; docker: the seeded volume), so each
container server costs a few container starts, not a seed per test.
"""
from __future__ import annotations

import json
import os
import signal

import pytest

from loadgen import db
from loadgen.drivers.drive import choose_driver
from loadgen.runner import single as runner
from loadgen.measure import coldstart
from loadgen.seeding import dataset
from loadgen.results.compare import compare_files, parse_limits
from loadgen.seeding.dataset import DatasetSpec
from loadgen.errors import WorkloadError
from loadgen.workload.orders import Workload
from loadgen.results.documents import FORMAT_VERSION, load
from loadgen.servers import ServerSpec
from loadgen.servers.provision import provisioned

from ..conftest import TEST_ROWS, run_loadgen

# A quarter of the 200k-row table (1,633 leaf pages, 26.6 MiB): where the order matters most.
POOL_BYTES = 8 << 20
STARTUP_PAGES = coldstart.STARTUP_PAGES_DATA


# The matrix: id -> (flavour, the fixture giving its image (None: the local mariadbd), the release
# series it must run (None: whatever the host has; 10.11 on bookworm)).
SERVERS = {"mariadb": ("mariadb", None, None), "mariadb-11.8": ("mariadb", "mariadb_trixie_image", "11.8"),
           "mysql": ("mysql", "mysql_image", "9.7")}


@pytest.fixture(scope="module", params=[pytest.param("mariadb", marks=pytest.mark.mysqld),
                                        pytest.param("mariadb-11.8", marks=pytest.mark.docker),
                                        pytest.param("mysql", marks=pytest.mark.docker)])
def server_id(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def flavour(server_id, request) -> tuple[str, ServerSpec]:
    """(flavour, the ServerSpec that gets one): local mariadbd, docker loadgen/mariadb:11.8 or
    docker loadgen/mysql:9.7."""
    name, image_fixture, _ = SERVERS[server_id]
    if image_fixture is None:
        binary = request.getfixturevalue("mysqld_binary")
        return name, ServerSpec(provider="local", pool_bytes=POOL_BYTES, mysqld=binary)
    image = request.getfixturevalue(image_fixture)
    return name, ServerSpec(provider="docker", pool_bytes=POOL_BYTES, image=image)


@pytest.fixture(scope="module")
def ab(flavour, tmp_path_factory):
    """A and B at a quarter-table pool, each from a cold start, through the CLI's core."""
    name, spec = flavour
    out = tmp_path_factory.mktemp(f"ab-{name}")
    workloads = [Workload("interleaved", TEST_ROWS, variation="A"), Workload("looped", TEST_ROWS, variation="B")]
    paths = [out / "A.json", out / "B.json"]
    results = runner.run(spec, DatasetSpec(rows=TEST_ROWS), workloads, paths, sample_interval_s=0.5)
    return name, results, paths


def test_looped_reads_at_least_1_6x_the_pages_of_interleaved(ab, server_id):
    name, (a, b), _ = ab
    assert a.server["flavor"] == name and b.server["flavor"] == name
    series = SERVERS[server_id][2]  # the matrix runs the release it says
    assert series is None or a.server["version"].startswith(series + "."), (series, a.server["version"])
    assert a.complete and b.complete
    pa, pb = a.buffer_pool["pages_read"], b.buffer_pool["pages_read"]
    assert pa >= a.dataset["leaf_pages"]  # every leaf at least once
    assert pb >= 1.6 * pa, (name, pa, pb)


def test_pages_read_is_the_same_quantity_on_both_flavours(ab):
    name, results, paths = ab
    for r, path in zip(results, paths):
        bp = r.buffer_pool
        assert load(path).format_version == FORMAT_VERSION
        assert bp["counters"]["pages_read"] == "Innodb_pages_read"
        if name == "mysql":
            # demand reads leave read-ahead out: pages read = reads + read-ahead, exactly
            assert bp["pages_read"] == bp["reads"] + bp["read_ahead"]
            assert bp["demand_reads"] == bp["reads"]
        else:
            assert bp["pages_read"] == bp["reads"]  # MariaDB's reads include read-ahead
        assert bp["hit_ratio"] == pytest.approx(1 - bp["pages_read"] / bp["read_requests"])
        # samples carry the same headline, and add up to the run's (give or take the tail)
        sampled = sum(s.get("pages_read") or 0 for s in r.samples)
        assert sampled == bp["pages_read"]


def test_every_run_had_o_direct_and_no_pool_dump_or_load(ab):
    """What makes a run cold and its misses real reads, on every server of the matrix (MariaDB
    11.x deprecates innodb_flush_method for innodb_data_file_buffering, but still takes it)."""
    _, results, _ = ab
    for r in results:
        v = r.server["variables"]
        assert v["innodb_flush_method"] == "O_DIRECT", v
        assert v["innodb_buffer_pool_dump_at_shutdown"] == v["innodb_buffer_pool_load_at_startup"] == "OFF", v


def _uid(status_text: str) -> str:
    return next(line.split()[1] for line in status_text.splitlines() if line.startswith("Uid:"))


# Accounts that log in without a password: none may exist (a locked one, MariaDB's mariadb.sys or
# MySQL's mysql.sys, cannot log in).
PASSWORDLESS = {
    "mariadb": "SELECT user, host FROM mysql.global_priv WHERE JSON_VALUE(priv, '$.authentication_string') = '' "
               "AND IFNULL(JSON_VALUE(priv, '$.account_locked'), 0) IN (0, 'false')",
    "mysql": "SELECT user, host FROM mysql.user WHERE authentication_string = '' AND account_locked = 'N'",
}


def test_the_server_is_for_this_host_only_and_not_run_as_root(flavour):
    name, spec = flavour
    with provisioned(spec, DatasetSpec(rows=TEST_ROWS), lambda _m: None) as server:
        if server.provider == "docker":
            server.container.reload()
            bindings = server.container.attrs["HostConfig"]["PortBindings"]["3306/tcp"]
            assert [b["HostIp"] for b in bindings] == ["127.0.0.1"]  # published on loopback only
            status = server.container.exec_run(["cat", "/proc/1/status"]).output.decode()
        else:
            status = open(f"/proc/{server.pid}/status").read()
        assert _uid(status) != "0"
        conn = server.connect()
        try:
            assert db.query_all(conn, PASSWORDLESS[name]) == []
            rows = db.query_all(conn, "SELECT user FROM mysql.user")
            users = {u.decode() if isinstance(u, bytes) else u for (u,) in rows}
            # only root (at the doors loadgen or the image made) and the servers' locked system accounts
            assert users - {"mariadb.sys", "mysql.sys", "mysql.session", "mysql.infoschema"} == {"root"}
        finally:
            conn.close()


def test_every_run_started_verified_cold(ab):
    name, results, _ = ab
    for r in results:
        cold = r.server["cold_start"]
        assert cold["method"] == "restart" and cold["verified"] is True and cold["cold"] is True
        # what a freshly started server holds, not an earlier run's pages (the table has 1,633)
        assert 0 < cold["pages_data_before"] <= STARTUP_PAGES[name], cold
        assert cold["pages_total_before"] == r.buffer_pool["pages_total"]


def test_the_gate_catches_a_wider_row(ab, flavour, tmp_path):
    """chat -> chat_wide: ~2.6x the leaf pages. On MySQL `reads=10%` used to see +6% and pass."""
    name, (_, b_chat), paths = ab
    _, spec = flavour
    wide = tmp_path / "B-wide.json"
    (b_wide,) = runner.run(spec, DatasetSpec(rows=TEST_ROWS, schema="chat_wide"),
                           [Workload("looped", TEST_ROWS, variation="B")], [wide], sample_interval_s=0.5)
    assert b_wide.buffer_pool["pages_read"] >= 2 * b_chat.buffer_pool["pages_read"]
    c = compare_files([b_chat], [b_wide], parse_limits(["reads=10%"]))
    assert c.regressed
    res = run_loadgen("compare", str(paths[1]), str(wide), "--max-regression", "reads=10%")
    assert res.returncode == 3, res.stderr[-2000:]
    assert "pages_read" in res.stderr
    res = run_loadgen("compare", str(paths[1]), str(paths[1]), "--max-regression", "pages_read=10%")
    assert res.returncode == 0, res.stderr[-2000:]


def test_seeding_resumes_after_an_interruption(flavour):
    name, spec = flavour
    rows = 120_000
    resume = DatasetSpec(rows=rows, database="resume_test")

    class Stop(Exception):
        pass

    def stop_after_first_chunk(done, total):
        if done < total:
            raise Stop

    with provisioned(spec, DatasetSpec(rows=TEST_ROWS), lambda _m: None) as server:
        conn = server.connect(local_infile=1)
        try:
            db.query_all(conn, "DROP DATABASE IF EXISTS resume_test")
            with pytest.raises(Stop):
                dataset.ensure(conn, resume, progress=stop_after_first_chunk)
            partial = db.query_value(conn, "SELECT COUNT(*) FROM resume_test.message")
            assert 0 < partial < rows
            resumed = dataset.ensure(conn, resume)
            assert resumed.seeded and resumed.seed_method == "load data local"
            assert db.query_value(conn, "SELECT COUNT(*) FROM resume_test.message") == rows
            assert db.query_value(conn, "SELECT MAX(id) FROM resume_test.message") == rows
            assert dataset.ensure(conn, resume).seeded is False  # a re-run only verifies
        finally:
            db.query_all(conn, "DROP DATABASE IF EXISTS resume_test")
            conn.close()


def _kill(server) -> None:
    if server.provider == "docker":
        server.container.kill()
    else:
        os.kill(server.pid, signal.SIGKILL)


def test_a_server_killed_mid_run_keeps_what_was_measured(flavour, tmp_path):
    name, spec = flavour
    out = tmp_path / "killed.json"
    ds = DatasetSpec(rows=TEST_ROWS)
    with provisioned(spec, ds, lambda _m: None) as server:
        info = runner.prepare_dataset(server, ds, runner.QuietReporter())
        cold = server.restart_cold()

        class Killer(runner.QuietReporter):
            killed = False

            def run_progress(self, done, hit_ratio):
                if done >= 5_000 and not self.killed:
                    self.killed = True
                    _kill(server)

        workload = Workload("looped", TEST_ROWS, variation="B")
        with pytest.raises(WorkloadError, match="went away"):
            runner.measure(server, info, workload, cold, out, 0.5, Killer(), choose_driver())
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and doc["incomplete_reason"].startswith("server lost")
    assert 5_000 <= doc["result"]["queries"] < workload.queries
    assert doc["server"]["flavor"] == name

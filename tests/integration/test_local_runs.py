"""End to end on a real mariadbd: provisioning, seeding, A vs B, result files."""
from __future__ import annotations

import json

import pytest

from loadgen import db
from loadgen.drivers.drive import choose_driver
from loadgen.runner import single as runner
from loadgen.seeding.dataset import DatasetSpec
from loadgen.workload.orders import Workload
from loadgen.servers import ServerSpec

from ..conftest import TEST_POOL, TEST_ROWS, our_server_pids, run_loadgen

pytestmark = pytest.mark.mysqld


def _ab(mysqld_binary, out, pool_bytes, options):
    spec = ServerSpec(provider="local", pool_bytes=pool_bytes, mysqld=mysqld_binary, options=options)
    workloads = [Workload("interleaved", TEST_ROWS, variation="A"), Workload("looped", TEST_ROWS, variation="B")]
    paths = [out / "a.json", out / "b.json"]
    results = runner.run(spec, DatasetSpec(rows=TEST_ROWS), workloads, paths, sample_interval_s=0.5)
    return results, paths


@pytest.fixture(scope="module")
def ab_results(mysqld_binary, tmp_path_factory):
    """A and B on the 200k-row dataset with an 8 MiB pool, through the same core as the CLI.

    Linear read-ahead is off here: an 8 MiB pool has 507 frames while MariaDB's page cleaner aims
    to keep innodb_lru_scan_depth=1536 of them free, so read-ahead pages are evicted before use
    and re-read, adding 20-30% to A's reads (measured). At realistic pool sizes it is harmless,
    as the default-settings test at 16 MiB below shows.
    """
    return _ab(mysqld_binary, tmp_path_factory.mktemp("ab"), TEST_POOL, {"innodb_read_ahead_threshold": "0"})


def test_with_server_defaults_looped_still_misses_far_more(mysqld_binary, tmp_path):
    (a, b), _ = _ab(mysqld_binary, tmp_path, 16 << 20, {})
    assert a["server"]["variables"]["innodb_read_ahead_threshold"] == "56"
    assert b["buffer_pool"]["reads"] >= 1.6 * a["buffer_pool"]["reads"]


def test_looped_misses_the_pool_far_more_than_interleaved(ab_results):
    (a, b), _ = ab_results
    assert a["complete"] and b["complete"]
    assert b["buffer_pool"]["reads"] >= 1.6 * a["buffer_pool"]["reads"]
    assert b["buffer_pool"]["miss_ratio"] > a["buffer_pool"]["miss_ratio"]


def test_interleaved_reads_each_page_about_once(ab_results):
    (a, _), _ = ab_results
    leaf = a["dataset"]["leaf_pages"]
    # every leaf once, plus the few internal and dictionary pages
    assert leaf <= a["buffer_pool"]["reads"] <= leaf * 1.02 + 20
    assert a["buffer_pool"]["read_ahead"] == 0


def test_result_files_carry_the_keys_ci_parses(ab_results):
    (a, b), paths = ab_results
    for result, path in zip((a, b), paths):
        on_disk = json.loads(path.read_text())
        # the file holds what the run returned
        assert on_disk["buffer_pool"]["pages_read"] == result["buffer_pool"]["pages_read"]
        assert on_disk["format_version"] == 2  # 2: pages_read is the headline (results.py)
        assert on_disk["server"]["provider"] == "local"
        assert on_disk["server"]["flavor"] == "mariadb"
        assert on_disk["server"]["innodb_buffer_pool_size"] == TEST_POOL
        assert on_disk["server"]["variables"]["innodb_flush_method"] == "O_DIRECT"
        assert on_disk["server"]["variables"]["innodb_buffer_pool_load_at_startup"] == "OFF"
        assert on_disk["server"]["variables"]["innodb_read_ahead_threshold"] == "0"  # --set reached it
        cold = on_disk["server"]["cold_start"]
        assert (cold["method"], cold["cold"], cold["quiet"]) == ("restart", True, True)
        assert 0.3 <= cold["settle_s"] < 15
        assert on_disk["dataset"]["rows"] == TEST_ROWS and on_disk["dataset"]["leaf_pages"] > 1000
        assert on_disk["workload"]["queries"] == 40_000 == on_disk["result"]["queries"]
        assert on_disk["result"]["rows_returned"] == 40_000
        lat = on_disk["result"]["latency_us"]
        assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["p999"] <= lat["max"]
        assert on_disk["buffer_pool"]["read_requests"] >= 3 * 40_000  # height 3: root, level 1, leaf
        assert on_disk["samples"], "the sampler recorded no interval"
        assert sum(s["queries"] for s in on_disk["samples"]) == 40_000
        assert sum(s.get("reads", 0) for s in on_disk["samples"]) == on_disk["buffer_pool"]["reads"]
        bp = on_disk["buffer_pool"]
        assert bp["counters"]["pages_read"] == "Innodb_pages_read"
        assert bp["hit_ratio"] == pytest.approx(1 - bp["pages_read"] / bp["read_requests"])


def test_seeding_is_deterministic_idempotent_and_resumable(local_server, mysqld_binary, session_dir):
    """Interrupt a seed after its first chunk, resume it, and get the same table as one pass."""
    from loadgen.seeding import dataset

    server, info = local_server
    rows = 120_000
    spec = DatasetSpec(rows=rows, database="resume_test")

    class Stop(Exception):
        pass

    def stop_after_first_chunk(done, total):
        if done < total:
            raise Stop

    conn = server.connect(local_infile=1)
    try:
        with pytest.raises(Stop):
            dataset.ensure(conn, spec, progress=stop_after_first_chunk)
        partial = db.query_value(conn, "SELECT COUNT(*) FROM resume_test.message")
        assert 0 < partial < rows
        resumed = dataset.ensure(conn, spec)
        assert resumed.seeded
        assert db.query_value(conn, "SELECT COUNT(*) FROM resume_test.message") == rows
        resumed_sum = db.query_all(conn, "CHECKSUM TABLE resume_test.message")[0][1]
        again = dataset.ensure(conn, spec)
        assert again.seeded is False  # a re-run only verifies
        # the same rows seeded in one pass into another database
        fresh = DatasetSpec(rows=rows, database="fresh_test")
        dataset.ensure(conn, fresh)
        assert db.query_all(conn, "CHECKSUM TABLE fresh_test.message")[0][1] == resumed_sum
    finally:
        conn.close()


def test_geometry_matches_the_seed_table(local_server):
    _, info = local_server
    # ~140 bytes per row on disk like the seed's 14 GB / 100M rows, ~120 rows per leaf page
    assert 120 <= info.table_bytes / info.rows <= 160
    assert 100 <= info.rows / info.leaf_pages <= 140
    assert info.height == 3


def test_runs_reuse_the_cached_dataset(mysqld_binary, tmp_path):
    # the module fixture above seeded the 200k-row dataset into the cache: this run only verifies
    out = tmp_path / "r.json"
    res = run_loadgen("run", "--server", "local", "--variation", "A", "--pool", "8M", "--rows", "200k",
                      "--out", str(out), "--mysqld", mysqld_binary)
    assert res.returncode == 0, res.stderr
    assert "reusing the seeded" in res.stderr
    assert json.loads(out.read_text())["dataset"]["seeded"] is False


def test_readme_example_reports_the_requested_pool(mysqld_binary, tmp_path):
    out = tmp_path / "r.json"
    res = run_loadgen("run", "--server", "local", "--variation", "B", "--pool", "128M", "--rows", "1M",
                      "--out", str(out))
    assert res.returncode == 0, res.stderr
    r = json.loads(out.read_text())
    assert r["server"]["innodb_buffer_pool_size"] == 134217728
    assert r["workload"]["queries"] == 200000
    assert r["workload"]["order"] == "looped" and r["workload"]["variation"] == "B"
    assert "loadgen run: B" in res.stdout
    assert not our_server_pids()


def test_existing_server_through_a_dsn_never_shows_the_password(local_server, tmp_path):
    server, _ = local_server
    password = server.endpoint.password
    assert password
    out = tmp_path / "dsn.json"
    res = run_loadgen("run", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{server.endpoint.port}/",
                      "--variation", "A", "--rows", "200k", "--out", str(out),
                      env={"LOADGEN_PASSWORD": password})
    assert res.returncode == 0, res.stderr
    assert password not in res.stdout + res.stderr + out.read_text()
    r = json.loads(out.read_text())
    assert r["server"]["provider"] == "dsn"
    assert r["server"]["cold_start"]["method"] == "resize" and r["server"]["cold_start"]["cold"] is True
    assert r["result"]["queries"] == 40_000


def test_auto_without_docker_names_the_local_server_it_runs(mysqld_binary):
    """It said "a local mysqld" for a MariaDB: the flavour, version and binary are named."""
    from loadgen.servers.mysqld import binary_flavor

    local = binary_flavor(mysqld_binary)
    res = run_loadgen("seed", "--pool", "8M", "--rows", "1000", env={"DOCKER_HOST": "unix:///nonexistent.sock"})
    assert res.returncode == 0, res.stderr[-2000:]
    said = " ".join(res.stderr.split())
    assert f"--server auto: using a local {local.name} {local.version} ({mysqld_binary}), not docker" in said
    assert f"using local {local.name} {local.version}, binary {mysqld_binary}, pool 8 MiB" in said
    assert not our_server_pids()


@pytest.mark.parametrize("threads", [1, 3])
def test_an_interrupt_while_the_server_settles_leaves_no_connection_open(local_server, monkeypatch, tmp_path,
                                                                         threads):
    """Ctrl-C (or an error) between opening the driver's connections and the run's own try/finally
    (the sampler's settle takes up to 15 s) closes them all (issue #19, B3: they were left open)."""
    import time

    server, info = local_server
    cold = server.restart_cold()
    conn = server.connect()
    try:
        def open_connections() -> int:
            return int(db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Threads_connected'")[0][1])

        before = open_connections()
        seen = []

        def interrupted(*_args, **_kwargs):
            seen.append(open_connections())
            raise KeyboardInterrupt

        monkeypatch.setattr(runner, "wait_quiet", interrupted)
        # the interrupt is held (as the CLI holds it while it reports): its frames keep every object
        # alive, so only closing them explicitly closes the connections, not the garbage collector
        with pytest.raises(KeyboardInterrupt) as held:
            runner.measure(server, info, Workload("interleaved", TEST_ROWS), cold, tmp_path / "r.json", 0.5,
                           runner.QuietReporter(), choose_driver("python", threads))
        assert seen[0] >= before + threads + 1  # the driver's and the sampler's were open
        deadline = time.monotonic() + 10  # the server counts a closed connection out in its own time
        while open_connections() > before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert open_connections() == before, held.traceback[-1]
        assert not (tmp_path / "r.json").exists()
    finally:
        conn.close()

"""`sweep --server dsn` against a server loadgen did not start: every pool after the first is set
by resizing the running server (it used to fail with an AttributeError and a traceback)."""
from __future__ import annotations

import json
import os
import signal
import threading
import time

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


def test_sweep_over_two_pools_on_a_dsn_server_resizes_it_and_starts_each_run_really_cold(dsn_server, tmp_path):
    """Each point starts from a pool that holds none of the table, checked from the pool's contents
    and from the reads: the A order touches every leaf, so a cold run reads each one. (On a fresh
    clone the 16M point read 0 pages of a 20k-row table: MariaDB's shrink evicts nothing while the
    LRU list fits in 6 MiB, which an 8-16 MiB pool's always does, and the run was taken as cold.)"""
    ep = dsn_server.endpoint
    if dsn_server.flavor.name != "mariadb" or dsn_server.flavor.version_tuple < (10, 11, 12):
        pytest.skip(f"online resize to a cold pool needs MariaDB 10.11.12+, not {dsn_server.flavor.version}")
    out = tmp_path / "sweep.json"
    res = run_loadgen("sweep", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{ep.port}/",
                      "--pools", "8M,16M", "--variations", "A", "--rows", "200k", "--database", "sweep",
                      "--driver", "python", "--out", str(out), "--out-dir", str(tmp_path / "runs"),
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
        cold = run["server"]["cold_start"]
        assert run["buffer_pool"]["pages_read"] >= run["dataset"]["leaf_pages"], (p, cold)
        assert cold["method"] == "resize" and cold["verified_by"] == "table_pages", cold
        assert cold["cold"] is True and cold["table_pages_before"] <= cold["table_pages_cold_max"], cold
        assert run["prediction"]["error_pct"] is not None
        assert p["started_cold"] is True
    assert ep.password not in res.stdout + res.stderr


@pytest.fixture
def fresh_dsn_server(mysqld_binary, session_dir, tmp_path):
    """A server of its own, at 16 MiB, holding nothing but what the test puts there. (On the
    module's shared server the sweep's 200k-row table was still in the pool: the LRU list then
    did not fit in 6 MiB, MariaDB's shrink evicted all of it, and the run really was cold.)"""
    from loadgen.servers.local import LocalServer

    server = LocalServer(session_dir / f"dsn-fresh-{tmp_path.name}", 16 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# MariaDB 10.11.19 kept the 165-page table through each shrink (table_pages_shrunk 165, three
# tries) and then, in about one run in six (session 14: two CI rehearsals and 1 of 6 alone), held
# none of it when the run began (table_pages_before 0, 167 pages read while settling, 883 of 1,014
# frames free): the pool was emptied after all, after the grow-back. loadgen says so (cold, verified
# from the table's pages); the warm case these tests check is run again, and where it never comes
# (both failed in two CI rehearsals, passing 8 of 8 in the module alone) the cold one is checked.
ATTEMPTS = 3


def _cold_after_all(cold: dict) -> bool:
    """The run came out cold however the server got there: the pool emptied after the grow-back
    (above), or the shrink itself took most of the table (CI rehearsal, 2026-11-30, 10.11.19 at load
    ~3: "17 of the most recently used pages stayed", said cold from the table's pages, rightly)."""
    return bool(cold.get("cold"))


def test_a_run_whose_table_stays_in_the_pool_is_recorded_warm_without_an_error_figure(fresh_dsn_server, tmp_path):
    """A 20k-row table (165 pages) in a pool that holds little else: its LRU list fits in the 6 MiB
    pool a shrink goes down to, so MariaDB's shrink evicts none of it (MySQL's keeps the most
    recently used pages that fit). The run says it starts warm and how to start cold, records it,
    and prints the prediction without an error figure (a warm run's error against a cold-start
    model was +3,238% with no caveat)."""
    dsn_server = fresh_dsn_server
    ep = dsn_server.endpoint
    env = {"LOADGEN_PASSWORD": ep.password}
    dsn = ["--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{ep.port}/", "--rows", "20k",
           "--database", "tiny", "--variation", "B", "--driver", "python"]
    res = run_loadgen("seed", *dsn[:-4], env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    out = tmp_path / "warm.json"
    for _ in range(ATTEMPTS):
        res = run_loadgen("run", *dsn, "--out", str(out), env=env)
        assert res.returncode == 0, res.stderr[-2000:]
        doc = json.loads(out.read_text())
        if not _cold_after_all(doc["server"]["cold_start"]):
            break
        print("the run came out cold after all: again")
    else:  # never warm here: then the cold start it had is what must be said, and an error figure given
        cold = doc["server"]["cold_start"]
        assert cold["cold"] is True and cold["verified_by"] == "table_pages", cold
        assert "starts warm" not in res.stderr and doc["prediction"]["error_pct"] is not None
        return
    cold = doc["server"]["cold_start"]
    assert cold["cold"] is False and cold["verified_by"] == "table_pages", cold
    assert cold["table_pages_before"] > cold["table_pages_cold_max"]
    assert "restart the server" in cold["fix"]
    assert "starts warm" in res.stderr and "restart the server" in res.stderr
    pred = doc["prediction"]
    assert pred["reads"] > 0 and pred["error_pct"] is None and pred["plain_lru_error_pct"] is None
    assert "started warm" in pred["no_error_reason"]
    assert "no error figure" in res.stdout and "error –" not in res.stdout


def test_a_sweep_says_when_its_pool_was_not_emptied_as_a_run_does(fresh_dsn_server, tmp_path):
    """The sweep's runs go through the runner's own loop (runner.run_pools): a point whose pool a
    resize could not empty is said on screen, as `run` says it (the sweep's copy of the loop once
    dropped the warning: issue #19, B2), recorded warm, and left out of the recommendation."""
    ep = fresh_dsn_server.endpoint
    env = {"LOADGEN_PASSWORD": ep.password}
    dsn = ["--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{ep.port}/", "--rows", "20k", "--database", "tiny"]
    assert run_loadgen("seed", *dsn, env=env).returncode == 0
    out = tmp_path / "sweep.json"
    for _ in range(ATTEMPTS):
        res = run_loadgen("sweep", *dsn, "--pools", "16M", "--variations", "B", "--driver", "python", "--out",
                          str(out), "--out-dir", str(tmp_path / "runs"), env=env)
        assert res.returncode == 0, res.stderr[-2000:]
        [point] = json.loads(out.read_text())["points"]
        if not _cold_after_all(json.loads(open(point["result_file"]).read())["server"]["cold_start"]):
            break
        print("the run came out cold after all: again")
    else:  # never warm here: then the point is a cold one, said and recommended from as such
        assert point["cold"] is True and point["started_cold"] is True, point
        assert "warning: the run starts warm" not in res.stderr
        return
    assert "warning: the run starts warm" in res.stderr and "restart the server" in res.stderr
    [point] = json.loads(out.read_text())["points"]
    assert point["cold"] is False and point["started_cold"] is False
    assert json.loads(out.read_text())["recommendation"] == {}


def test_a_dsn_table_changed_between_runs_is_counted_after_the_run_and_seeded_again(dsn_server, tmp_path):
    """On a server loadgen does not own, a reused table is checked by its key range before the
    run and counted after it (a scan before would leave it in a pool that may not be emptied):
    rows deleted in between still make the run's result incomplete and the next run seed anew."""
    ep = dsn_server.endpoint
    env = {"LOADGEN_PASSWORD": ep.password}
    dsn = ["--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{ep.port}/", "--rows", "20k",
           "--database", "changed", "--driver", "python"]
    res = run_loadgen("seed", *dsn[:-2], env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    conn = dsn_server.connect()
    try:
        conn.cursor().execute("DELETE FROM changed.message WHERE id BETWEEN 100 AND 5000")
    finally:
        conn.close()
    out = tmp_path / "changed.json"
    res = run_loadgen("run", *dsn, "--variation", "A", "--out", str(out), env=env)
    assert res.returncode == 1, res.stderr[-2000:]
    assert "holds 15,099 rows, not 20,000" in res.stderr and "Traceback" not in res.stderr
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and "the table changed" in doc["incomplete_reason"]
    assert doc["prediction"] is None
    res = run_loadgen("run", *dsn, "--variation", "A", "--out", str(tmp_path / "again.json"), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "seeded changed.message: 20,000 rows" in res.stderr


def test_an_interrupt_while_emptying_the_pool_gives_it_back_and_stays_an_interrupt(fresh_dsn_server, monkeypatch):
    """Issue #18 N6, replayed on the merged main: a SIGTERM 0.9 s into a dsn run landed while the
    fill scan of restart_cold() waited for its result. The interrupt left the connection out of
    sync (2014), growing the pool back on it failed, the 2014 took the interrupt's place (a
    traceback, exit 1) and the user's server kept loadgen's 64 MiB fill pool instead of its 16."""
    from loadgen import db
    from loadgen.servers.dsn import DsnServer

    server = fresh_dsn_server
    conn, cur, pool_before = _server_with_table(server, "intr", "(id INT PRIMARY KEY)", "VALUES (1), (2), (3)")
    monkeypatch.setenv("LOADGEN_PASSWORD", server.endpoint.password)
    dsn = DsnServer(f"mysql://root@127.0.0.1:{server.endpoint.port}/")
    dsn.start()
    dsn.will_query("intr", "t", 100.0)
    cur.execute("LOCK TABLES intr.t WRITE")  # the fill scan waits here until the interrupt came
    thread = _interrupt_when_waiting(server, "%loadgen_fill%", lambda: cur.execute("UNLOCK TABLES"))
    try:
        with pytest.raises(KeyboardInterrupt):
            dsn.restart_cold()
    finally:
        thread.join()
    assert int(db.query_value(conn, "SELECT @@GLOBAL.innodb_buffer_pool_size")) == pool_before
    conn.close()


def test_a_second_interrupt_while_the_pool_is_given_back_waits_for_it(fresh_dsn_server, monkeypatch):
    """Issue #18: the first Ctrl-C lands in the fill scan (as above); a second one while the pool
    is being grown back used to abort that too, leaving the user's server at loadgen's 64 MiB fill
    pool. Now the second one waits for the restore, is said, and is still an interrupt."""
    from loadgen import db
    from loadgen.servers import dsn as dsn_module
    from loadgen.servers.dsn import DsnServer

    server = fresh_dsn_server
    conn, cur, pool_before = _server_with_table(server, "intr2", "(id INT PRIMARY KEY)", "VALUES (1), (2), (3)")
    real_set_pool, calls = dsn_module._set_pool, []

    def set_pool_interrupted_again(c, pool_bytes, *args, **kwargs):
        calls.append(pool_bytes)
        if len(calls) > 1:  # the first grows the pool for the fill scan; the next ones give it back
            os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, while the restore starts
        return real_set_pool(c, pool_bytes, *args, **kwargs)

    monkeypatch.setattr(dsn_module, "_set_pool", set_pool_interrupted_again)
    monkeypatch.setenv("LOADGEN_PASSWORD", server.endpoint.password)
    said = []
    dsn = DsnServer(f"mysql://root@127.0.0.1:{server.endpoint.port}/", say=said.append)
    dsn.start()
    dsn.will_query("intr2", "t", 100.0)
    cur.execute("LOCK TABLES intr2.t WRITE")
    thread = _interrupt_when_waiting(server, "%loadgen_fill%", lambda: cur.execute("UNLOCK TABLES"))
    try:
        with pytest.raises(KeyboardInterrupt):
            dsn.restart_cold()
    finally:
        thread.join()
    assert calls[-1] == pool_before, calls
    assert int(db.query_value(conn, "SELECT @@GLOBAL.innodb_buffer_pool_size")) == pool_before
    assert any("giving the server its pool of 16 MiB back" in s for s in said), said
    conn.close()


def _interrupt_when_waiting(server, info_like: str, unlock) -> threading.Thread:
    """A thread that waits for a statement (INFO LIKE info_like) to wait for a lock the test holds,
    sends this process SIGINT (what a SIGTERM is to loadgen) while the main thread is inside the C
    client, then lets the statement go on (unlock)."""
    from loadgen import db

    watcher = server.connect()

    def interrupt() -> None:
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not db.query_value(
                    watcher, "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                             "WHERE INFO LIKE %s AND STATE LIKE 'Waiting%%'", (info_like,)):
                time.sleep(0.05)  # polling the server for the statement to be blocked
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)  # the signal is pending in the main thread, which is in the C client
        finally:
            unlock()
            watcher.close()

    thread = threading.Thread(target=interrupt)
    thread.start()
    return thread


def test_an_interrupt_right_after_turning_local_infile_on_still_turns_it_off(fresh_dsn_server, tmp_path):
    """Issue #18, replayed on the merged main: a SIGTERM 0.70-0.80 s into a dsn run on a server with
    local_infile=OFF landed in the LOAD DATA that follows SET GLOBAL local_infile = 1, before the
    seed had recorded that it turned it on: someone else's server was left with local_infile=ON."""
    from loadgen import db
    from loadgen.seeding import dataset
    from loadgen.seeding.dataset import DatasetSpec

    server = fresh_dsn_server
    admin = server.connect()
    cur = admin.cursor()
    spec = DatasetSpec(rows=20_000, database="seedint")
    cur.execute("CREATE DATABASE seedint")
    dataset._create_table(admin, spec)
    cur.execute("SET GLOBAL local_infile = 0")
    cur.execute("LOCK TABLES seedint.message WRITE")  # the LOAD DATA after the SET GLOBAL waits here
    thread = _interrupt_when_waiting(server, "LOAD DATA%", lambda: cur.execute("UNLOCK TABLES"))
    conn = server.connect(local_infile=1)
    try:
        with pytest.raises(KeyboardInterrupt):
            dataset._load(conn, spec, 1, None, tmp_path)
    finally:
        thread.join()
        conn.close()
    assert str(db.query_value(admin, "SELECT @@GLOBAL.local_infile")) == "0"
    admin.close()


def test_a_shrink_that_leaves_the_table_in_the_pool_is_tried_again(fresh_dsn_server, monkeypatch):
    """A filled shrink once left 97 of the table's pages in a 16 MiB pool (a CI run: the second pool
    of a dsn sweep then read 1,650 pages, not cold): restart_cold tries the fill and the shrink again
    while more than SHRINK_KEPT_TABLE_PAGES of the table stay. Forced here (no page may stay), every
    try runs, the pool is given back, and the tries are recorded."""
    from loadgen import db
    from loadgen.servers import dsn as dsnmod

    server = fresh_dsn_server
    conn, cur, pool_before = _server_with_table(server, "again", "(id INT PRIMARY KEY, pad CHAR(200))",
                                                "SELECT seq, 'x' FROM again.seq_1_to_10000")
    monkeypatch.setenv("LOADGEN_PASSWORD", server.endpoint.password)
    monkeypatch.setattr(dsnmod, "SHRINK_KEPT_TABLE_PAGES", -1)
    dsn = dsnmod.DsnServer(f"mysql://root@127.0.0.1:{server.endpoint.port}/")
    dsn.start()
    dsn.will_query("again", "t", 30.0)
    cold = dsn.restart_cold()
    d = cold.details
    assert d["shrink_attempts"] == dsnmod.SHRINK_TRIES, d
    # the table's pages were counted after each try (its 10k rows fit in 6 MiB: they all stay)
    assert d["table_pages_shrunk"] is not None and d["table_pages_shrunk"] > 0, d
    assert d["pool_bytes_after"] == pool_before == int(db.query_value(conn, "SELECT @@GLOBAL.innodb_buffer_pool_size"))
    conn.close()


def _server_with_table(server, database: str, ddl: str, rows_sql: str):
    """The fresh server's connection, a cursor, and its pool size, after making database.t
    (the fill scan runs on MariaDB 10.11.12+ only: skipped elsewhere)."""
    from loadgen import db

    if server.flavor.name != "mariadb" or server.flavor.version_tuple < (10, 11, 12):
        pytest.skip(f"the fill scan runs on MariaDB 10.11.12+ only, not {server.flavor.version}")
    conn = server.connect()
    cur = conn.cursor()
    cur.execute(f"CREATE DATABASE {database}")
    cur.execute(f"CREATE TABLE {database}.t {ddl}")
    cur.execute(f"INSERT INTO {database}.t {rows_sql}")
    return conn, cur, int(db.query_value(conn, "SELECT @@GLOBAL.innodb_buffer_pool_size"))

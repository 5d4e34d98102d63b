"""capture -> predict -> replay of traffic loadgen did not write (issue #22 item 2, the replay):
sysbench's oltp_read_only on its own two tables from a cold pool (a restart), the general log
captured whole (`trace capture --dsn`), predicted (`predict --trace --dsn`), then replayed with
`run --server dsn --trace` from a cold pool: the replay reads what sysbench read (within the range
of two sysbench runs of the same events, widened by 5%) and
the prediction of the replay, in its result, is held to the replay (tests/accuracy.py, 5%).
MariaDB 10.11 local, MariaDB 11.8 and MySQL 9.7 in docker; figures in docs/capture.md ("Validation").
"""
from __future__ import annotations

import json
import shutil

import pytest

from loadgen.runner.replay import NOT_AN_INTEGER

from ..accuracy import Point, check
from ..conftest import require, run_loadgen
from .test_foreign_traffic import _pages_read, _sql, _sysbench, local_log

ROWS = 50_000  # 686 leaves a table: two do not fit 16M
TABLES = 2
EVENTS = 1_000
POOL_MIB = 16
BOUND_PCT = 5.0
# The server does not read the same pages twice for the same statements, so the original is run
# twice and the replay held to their range, widened by BOUND_PCT. On MySQL the replay is held where
# the two tables fit the pool (48M: each page read once, so a replay that skipped or added work
# shows): below that MySQL's own runs of the same events differ by up to 16% (8,121-9,809 pages at
# 32M, 100k rows), and the replay read -15% to +19% from sysbench's (docs/capture.md, open).
MYSQL_ROWS = ROWS
MYSQL_POOL_MIB = 48
# The string-keyed traffic at 48M, where both tables and the undo fit, so each page is read once and
# a prediction that drops or doubles a table shows (30 November 2026): MariaDB 10.11 read 167 against
# 168 predicted (account 107/108, ledger 59/60), MySQL 9.7 177 and 179 against 168 (its undo and
# mysql.ibd's 6-8 pages). Held to 10% (tables and total). At 16M, MariaDB's LRU near 256 pages, the
# tables were within 10% in four quiet runs but the total -3.8 .. -18.7% (ibdata1's re-reads) and,
# beside another job's replay, -24%: not a bound a shared machine keeps (docs/capture.md, "A string
# key"). The replay's integer-keyed table: MariaDB 60/60 at 48M; MySQL read 50 of its 60 pages
# (+20%, twice): the dsn's shrink (not a restart) left some in the pool; held to 25%.
STRING_POOL_MIB = 48
STRING_BOUND_PCT = 10.0
REPLAY_BOUND_PCT = 25.0


@pytest.fixture(scope="module")
def mariadb_sbtest(mysqld_binary, session_dir):
    """A mariadbd of our own with performance_schema (each table's reads), sysbench's two tables."""
    from loadgen.servers.local import LocalServer

    if shutil.which("sysbench") is None:
        require("LOADGEN_REQUIRE_MYSQLD", "no sysbench", "install it (make deps)")
    server = LocalServer(session_dir / "replay-server", POOL_MIB << 20, mysqld=mysqld_binary,
                         options={"performance_schema": "ON"})
    yield from _prepared(server)


@pytest.fixture(scope="module")
def mysql_sbtest(mysql_image):
    from loadgen.servers import ServerSpec
    from loadgen.servers.docker import DockerServer

    if shutil.which("sysbench") is None:
        require("LOADGEN_REQUIRE_DOCKER", "no sysbench", "install it (make deps)")
    server = DockerServer(ServerSpec(provider="docker", image=mysql_image, pool_bytes=MYSQL_POOL_MIB << 20))
    yield from _prepared(server, MYSQL_ROWS)


@pytest.fixture(scope="module")
def mariadb118_sbtest(mariadb_trixie_image):
    """MariaDB 11.8 (Debian trixie's, in docker) with performance_schema, sysbench's two tables."""
    from loadgen.servers import ServerSpec
    from loadgen.servers.docker import DockerServer

    if shutil.which("sysbench") is None:
        require("LOADGEN_REQUIRE_DOCKER", "no sysbench", "install it (make deps)")
    server = DockerServer(ServerSpec(provider="docker", image=mariadb_trixie_image, pool_bytes=POOL_MIB << 20,
                                     options={"performance_schema": "ON"}))
    yield from _prepared(server)


def _prepared(server, rows: int = ROWS):
    """The fixture's body: the server started and prepared (_prepare), stopped afterwards."""
    server.start()
    try:
        _prepare(server, rows)
        yield server
    finally:
        server.stop()


def _prepare(server, rows: int = ROWS) -> None:
    _sql(server, "CREATE DATABASE sbtest")
    _sysbench(server, "prepare", f"--table-size={rows}", script="oltp_read_only", tables=TABLES)
    _sql(server, *(f"ANALYZE TABLE sbtest.sbtest{i}" for i in range(1, TABLES + 1)))


def _dsn(server) -> tuple[str, dict]:
    ep = server.endpoint  # after a restart: a local server may come back on another port
    return f"mysql://root@127.0.0.1:{ep.port}/", {"LOADGEN_PASSWORD": ep.password}


def _original(server, rows: int, log: str | None) -> int:
    """Pages sysbench's run read from a cold pool (the same events each time: --rand-seed), its
    general log written to log when one is given."""
    server.restart_cold()
    before = _pages_read(server)
    if log:
        _sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    _sysbench(server, "run", f"--table-size={rows}", f"--events={EVENTS}", "--time=0", "--threads=1",
              "--rand-seed=1", "--rand-type=uniform", script="oltp_read_only", tables=TABLES)
    if log:
        _sql(server, "SET GLOBAL general_log = OFF")
    return _pages_read(server) - before


def _capture(server, tmp_path, rows: int, pool_mib: int) -> tuple[list[int], object]:
    """(pages two sysbench runs read from a cold pool, the op trace of the first one's general log)."""
    docker = server.provider == "docker"
    log = "/tmp/general-replay.log" if docker else str(server.files_dir / "general-replay.log")
    server.set_pool(pool_mib << 20)
    originals = [_original(server, rows, log)]
    # before the next restart: the container's /tmp does not outlive it
    log = local_log(server, log, tmp_path / "general.log")
    originals.append(_original(server, rows, None))
    dsn, env = _dsn(server)
    trace = tmp_path / "sysbench.optrace"
    res = run_loadgen("trace", "capture", "--general-log", log, "--dsn", dsn, "-o", str(trace), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    return originals, trace


def _check(server, tmp_path, rows: int = ROWS, pool_mib: int = POOL_MIB) -> None:
    originals, trace = _capture(server, tmp_path, rows, pool_mib)
    dsn, env = _dsn(server)
    pred = run_loadgen("predict", "--trace", str(trace), "--dsn", dsn, "--pool", f"{pool_mib}M", "--format", "json",
                       env=env)
    assert pred.returncode == 0, pred.stderr[-2000:]
    predicted = json.loads(pred.stdout)["pools"][0]
    for t in predicted["tables"].values():
        assert t["low"] <= t["pages_read"] <= t["high"], t
    server.restart_cold()  # as the other dsn replays: a restart, then the replay's own resize
    dsn, env = _dsn(server)
    out = tmp_path / "replay.json"
    res = run_loadgen("run", "--server", "dsn", "--dsn", dsn, "--trace", str(trace), "--out", str(out), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "tables: pages read, replayed and predicted" in res.stdout and "sbtest.sbtest2" in res.stdout
    doc = json.loads(out.read_text())
    assert doc["complete"] and doc["workload"]["queries"] == EVENTS * 14  # oltp_read_only: 14 statements an event
    replayed = doc["buffer_pool"]["pages_read"]
    p = doc["prediction"]
    runs = " and ".join(f"{n:,}" for n in originals)
    figures = (f"{server.flavor.name} {server.flavor.version} at {pool_mib}M: sysbench read {runs}, "
               f"the replay {replayed:,}, "
               f"predicted {p['pages_read']:,} (predict --trace {predicted['pages_read']:,})")
    print(figures)
    assert min(originals) > 1_000, figures  # the runs really read from disk
    low, high = min(originals) * (1 - BOUND_PCT / 100), max(originals) * (1 + BOUND_PCT / 100)
    assert low <= replayed <= high, figures
    # each table's pages read from its file, the prediction beside it with its error
    for name in (f"sbtest.sbtest{i}" for i in range(1, TABLES + 1)):
        got = doc["buffer_pool"]["tables"][name]["file_pages_read"]
        assert got > 0 and p["tables"][name]["measured_pages_read"] == got, (name, p["tables"][name])
        assert p["tables"][name]["reads_low"] <= p["tables"][name]["pages_read"] <= p["tables"][name]["reads_high"]
    assert p["replay"]["not_replayed"] == {} and p["error_pct"] is not None
    check([Point(f"{figures}: the replay", replayed, p["pages_read"], p["reads_low"], p["reads_high"],
                 BOUND_PCT / 100)])


@pytest.mark.mysqld
def test_sysbench_captured_predicted_and_replayed_on_mariadb(mariadb_sbtest, tmp_path):
    _check(mariadb_sbtest, tmp_path)


@pytest.mark.docker
def test_sysbench_captured_predicted_and_replayed_on_mysql(mysql_sbtest, tmp_path):
    _check(mysql_sbtest, tmp_path, MYSQL_ROWS, MYSQL_POOL_MIB)


@pytest.mark.docker
def test_sysbench_captured_predicted_and_replayed_on_mariadb_11_8(mariadb118_sbtest, tmp_path):
    """The same on MariaDB 11.8 at 16M (its pool is 10.11's, docs/innodb.md; docs/capture.md has
    its rows at 2,000 events)."""
    _check(mariadb118_sbtest, tmp_path)


@pytest.mark.mysqld
def test_a_table_not_on_the_server_is_one_line_before_the_pool_is_touched(mariadb_sbtest, tmp_path):
    """A trace naming a table the server does not have: exit 2, one line, the pool as it was."""
    from loadgen.workload import optrace as ot

    w = ot.Writer(tmp_path / "other.optrace")
    w.add(ot.POINT, w.tree("sbtest.sbtest9", "PRIMARY"), 5)
    w.add(ot.POINT, w.tree("sbtest.sbtest1", "PRIMARY"), 5)
    w.close({"tables": {}, "statements": 2})
    dsn, env = _dsn(mariadb_sbtest)
    res = run_loadgen("run", "--server", "dsn", "--dsn", dsn, "--trace", str(tmp_path / "other.optrace"),
                      "--out", str(tmp_path / "r.json"), env=env)
    assert res.returncode == 2 and "sbtest.sbtest9" in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (tmp_path / "r.json").exists()
    conn = mariadb_sbtest.connect()
    try:
        from loadgen import db

        assert int(db.query_value(conn, "SELECT @@innodb_buffer_pool_size")) == POOL_MIB << 20
    finally:
        conn.close()


def _point_trace(path, n: int = 200_000):
    """n point reads on sbtest1 at keys spread over the table: a replay of a minute or more."""
    import numpy as np

    from loadgen.workload import optrace as ot

    w = ot.Writer(path)
    tree = w.tree("sbtest.sbtest1", "PRIMARY")
    for k in (np.arange(n, dtype=np.int64) * 7919) % ROWS + 1:
        w.add(ot.POINT, tree, int(k))
    w.close({"tables": {"sbtest.sbtest1": {"primary_key": ["id"], "indexes": {"k_1": ["k"]}}}, "statements": n})
    return path


@pytest.mark.mysqld
def test_ctrl_c_gives_the_pool_back_and_leaves_no_half_made_result(mariadb_sbtest, tmp_path):
    """SIGINT while the trace runs (after the cold start's shrink and grow): exit 130, the server's
    pool as it was, and the result file either absent or whole JSON marked incomplete (a partial run,
    docs/results.md). The run is seen from the server's own Com_select, which counts every select
    the replay made; polling the process list for one of them missed it under load. A SIGINT inside
    the cold start's shrink is tested where the shrink can be held still (test_dsn_sweep.py: the
    fill scan waits on a lock the test holds); here the window is a fraction of a second."""
    import os
    import signal
    import subprocess
    import time

    from loadgen import db

    from ..conftest import loadgen_cmd

    server = mariadb_sbtest
    server.set_pool(POOL_MIB << 20)
    trace = _point_trace(tmp_path / "points.optrace")
    dsn, env = _dsn(server)
    out = tmp_path / "r.json"
    conn = server.connect()

    def selects() -> int:
        return int(db.query_value(conn, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                                        "WHERE VARIABLE_NAME = 'COM_SELECT'"))

    before = selects()
    proc = subprocess.Popen(loadgen_cmd("run", "--server", "dsn", "--dsn", dsn, "--trace", str(trace), "--out",
                                        str(out)), env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        running = False
        while time.monotonic() < deadline and proc.poll() is None and not running:
            running = selects() - before > 5_000  # well into the 200,000 (loadgen's own look-ups are fewer)
            time.sleep(0.02)
        assert running, "the replay never ran 5,000 selects"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err[-2000:]
        assert "Traceback" not in err, err
        assert int(db.query_value(conn, "SELECT @@GLOBAL.innodb_buffer_pool_size")) == POOL_MIB << 20, err
    finally:
        if proc.poll() is None:
            proc.kill()
        conn.close()
    if out.exists():
        doc = json.loads(out.read_text())
        assert doc["complete"] is False and doc["incomplete_reason"] == "interrupted", doc["incomplete_reason"]
        assert 0 < doc["result"]["ops"] < 200_000
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".r.json")]  # no temporary left


# A server with a table keyed by a string (a VARCHAR id) beside one keyed by an integer: before
# inspect_table(hashed_keys=True) the string-keyed table refused the whole server's prediction and
# replay ("the key column id is VARCHAR ... give --query").
STRING_ROWS = 20_000
STRING_OPS = 2_000  # half on each table, a tenth of them updates: a second or two of traffic


def _string_keyed_tables(server) -> dict[str, int]:
    """strkeys.account (VARCHAR key, YCSB's 'user<digits>' form) and strkeys.ledger (BIGINT key),
    STRING_ROWS rows each, written in key order; the keys of account, for the traffic."""
    conn = server.connect()
    try:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE IF NOT EXISTS strkeys")
        cur.execute("DROP TABLE IF EXISTS strkeys.account, strkeys.ledger")
        cur.execute("CREATE TABLE strkeys.account (id VARCHAR(40) NOT NULL PRIMARY KEY, name VARCHAR(60) NOT NULL, "
                    "balance INT NOT NULL) ENGINE=InnoDB")
        cur.execute("CREATE TABLE strkeys.ledger (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, amount INT NOT NULL, "
                    "note VARCHAR(60) NOT NULL) ENGINE=InnoDB")
        # an odd multiplier is a bijection mod 2^64: distinct keys, not in the order they are numbered
        keys = sorted(f"user{(i * 11400714819323198485) % 2 ** 64:020d}" for i in range(1, STRING_ROWS + 1))
        for lo in range(0, STRING_ROWS, 1_000):
            cur.executemany("INSERT INTO strkeys.account VALUES (%s, %s, %s)",
                            [(k, f"name of {k}", 100) for k in keys[lo:lo + 1_000]])
            cur.executemany("INSERT INTO strkeys.ledger VALUES (%s, %s, %s)",
                            [(i, i % 1000, f"note {i:08d}") for i in range(lo + 1, lo + 1_001)])
        conn.commit()
        for t in ("account", "ledger"):  # TABLE_ROWS, the string-keyed table's rows in the model
            cur.execute(f"ANALYZE TABLE strkeys.{t}")
            cur.fetchall()
    finally:
        conn.close()
    return keys


def _string_traffic(server, keys: list[str], log: str) -> tuple[int, int, dict]:
    """STRING_OPS point reads and updates on both tables, on one connection with the general log on:
    (the pages the server read from a cold pool (a restart), the operations on the string-keyed table,
    the pages read per file)."""
    import random

    server.restart_cold()
    before = _pages_read(server)
    _sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    rnd = random.Random(7)
    account_ops = 0
    files = _file_reads(server)
    conn = server.connect()
    try:
        conn.autocommit(True)
        cur = conn.cursor()
        cur.execute("USE strkeys")
        for _ in range(STRING_OPS):
            update = rnd.random() < 0.1
            if rnd.random() < 0.5:
                k = keys[rnd.randrange(STRING_ROWS)]
                account_ops += 1
                cur.execute("UPDATE account SET balance = balance + 1 WHERE id = %s" if update else
                            "SELECT * FROM account WHERE id = %s", (k,))
            else:
                k = rnd.randrange(1, STRING_ROWS + 1)
                cur.execute("UPDATE ledger SET amount = amount + 1 WHERE id = %s" if update else
                            "SELECT * FROM ledger WHERE id = %s", (k,))
            if cur.description:
                cur.fetchall()
    finally:
        conn.close()
    _sql(server, "SET GLOBAL general_log = OFF")
    after = _file_reads(server)
    return _pages_read(server) - before, account_ops, {f: n - files.get(f, 0) for f, n in after.items()
                                                       if n > files.get(f, 0)}


def _file_reads(server) -> dict[str, int]:
    """Pages read per file so far (performance_schema), for the figures a failure prints."""
    from loadgen import db

    conn = server.connect()
    try:
        return {f.rsplit("/", 1)[-1]: int(n) // 16384 for f, n in db.query_all(
            conn, "SELECT FILE_NAME, SUM_NUMBER_OF_BYTES_READ FROM performance_schema.file_summary_by_instance "
                  "WHERE EVENT_NAME LIKE 'wait/io/file/innodb/%'")}
    finally:
        conn.close()


def _check_string_keys(server, tmp_path, fixture_pool_mib: int) -> None:
    """Captured, predicted and replayed with a VARCHAR-keyed table on the server: both tables in the
    prediction with pages read, the server's own reads within its interval; the replay runs the
    integer-keyed table's operations (the other's keys are hashes in the trace: counted, not run)."""
    server.set_pool(STRING_POOL_MIB << 20)
    try:
        _string_keys_at(server, tmp_path, STRING_POOL_MIB)
    finally:  # the module's other tests find the pool their fixture set
        server.set_pool(fixture_pool_mib << 20)


def _string_keys_at(server, tmp_path, pool_mib: int) -> None:
    keys = _string_keyed_tables(server)
    docker = server.provider == "docker"
    log = "/tmp/general-strkeys.log" if docker else str(server.files_dir / "general-strkeys.log")
    original, account_ops, files = _string_traffic(server, keys, log)
    log = local_log(server, log, tmp_path / "general.log")
    dsn, env = _dsn(server)
    trace = tmp_path / "strkeys.optrace"
    res = run_loadgen("trace", "capture", "--general-log", log, "--dsn", dsn, "-o", str(trace), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    pred = run_loadgen("predict", "--trace", str(trace), "--dsn", dsn, "--pool", f"{pool_mib}M", "--format", "json",
                       env=env)
    assert pred.returncode == 0, pred.stderr[-2000:]  # was: the key column id is VARCHAR ... give --query
    doc = json.loads(pred.stdout)
    assert doc["capture"]["modelled"] == STRING_OPS, doc["capture"]
    p = doc["pools"][0]
    tables = p["tables"]
    assert set(tables) == {"strkeys.account", "strkeys.ledger"}, tables
    figures = (f"{server.flavor.name} {server.flavor.version} at {pool_mib}M: the traffic read {original:,}, "
               f"predicted {p['pages_read']:,} ({p['low']:,} .. {p['high']:,}; account "
               f"{tables['strkeys.account']['pages_read']:,}, ledger {tables['strkeys.ledger']['pages_read']:,}, "
               f"system {p['system_pages_read']:,}; read per file {files})")
    print(figures)
    assert all(t["pages_read"] > 0 for t in tables.values()), figures
    assert original > 100, figures  # the traffic really read from disk
    # the whole, and each table from its own file (the string-keyed one's rows placed by hash)
    check([Point(f"{figures}: the traffic", original, p["pages_read"], p["low"], p["high"], STRING_BOUND_PCT / 100)]
          + [Point(f"{figures}: {name}", files.get(f"{name.split('.')[1]}.ibd", 0), t["pages_read"], t["low"],
                   t["high"], STRING_BOUND_PCT / 100) for name, t in sorted(tables.items())])
    server.restart_cold()
    dsn, env = _dsn(server)
    out = tmp_path / "strkeys.json"
    res = run_loadgen("run", "--server", "dsn", "--dsn", dsn, "--trace", str(trace), "--allow-writes", "--out",
                      str(out), env=env)
    assert res.returncode == 0, res.stderr[-3000:]  # was: the key column id is VARCHAR ... give --query
    run = json.loads(out.read_text())
    replay = run["prediction"]["replay"]
    skipped = replay["not_replayed"]
    # every operation on the string-keyed table, and only those, named as not replayed
    assert all("strkeys.account" in why or why == NOT_AN_INTEGER for why in skipped), skipped
    assert sum(skipped.values()) == account_ops and replay["operations"] == STRING_OPS - account_ops, replay
    assert replay["predicted"] == "the replayed operations" and run["complete"], replay
    # the replay's prediction is of what it ran (replay.replayed_trace): the integer-keyed table held to
    # it. Not its total: after the dsn's cold start (a resize, not a restart) the server read ibdata1's
    # system pages again, which the model takes as read at start-up (docs/capture.md, "A string key")
    ledger = run["prediction"]["tables"]["strkeys.ledger"]
    replayed = (f"{server.flavor.name} at {pool_mib}M, the replay: ledger read {ledger['measured_pages_read']:,}, "
                f"in total {run['buffer_pool']['pages_read']:,}, predicted {run['prediction']['pages_read']:,} "
                f"{run['buffer_pool'].get('files')}")
    print(replayed)
    check([Point(replayed, ledger["measured_pages_read"], ledger["pages_read"], ledger["reads_low"],
                 ledger["reads_high"], REPLAY_BOUND_PCT / 100)])


@pytest.mark.mysqld
def test_a_string_keyed_table_is_captured_predicted_and_replayed_on_mariadb(mariadb_sbtest, tmp_path):
    _check_string_keys(mariadb_sbtest, tmp_path, POOL_MIB)


@pytest.mark.docker
def test_a_string_keyed_table_is_captured_predicted_and_replayed_on_mysql(mysql_sbtest, tmp_path):
    _check_string_keys(mysql_sbtest, tmp_path, MYSQL_POOL_MIB)


@pytest.mark.mysqld
def test_writes_are_replayed_in_their_transactions_only_when_allowed(mariadb_sbtest, tmp_path):
    """sysbench oltp_read_write (BEGIN .. COMMIT around each event's writes): refused on --dsn
    without --allow-writes (exit 2, nothing run); with it, over the python driver's one
    connection, every event's writes inside one BEGIN .. COMMIT and none fails. (Last in this
    file: it changes the tables.)"""
    server = mariadb_sbtest
    events = 200
    log = str(server.files_dir / "general-rw.log")
    server.restart_cold()
    _sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    _sysbench(server, "run", f"--table-size={ROWS}", f"--events={events}", "--time=0", "--threads=1",
              "--rand-seed=1", script="oltp_read_write", tables=TABLES)
    _sql(server, "SET GLOBAL general_log = OFF")
    dsn, env = _dsn(server)
    trace = tmp_path / "rw.optrace"
    res = run_loadgen("trace", "capture", "--general-log", log, "--dsn", dsn, "-o", str(trace), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    out = tmp_path / "rw.json"
    args = ("run", "--server", "dsn", "--dsn", dsn, "--trace", str(trace), "--out", str(out), "--driver", "python")
    refused = run_loadgen(*args, env=env)
    assert refused.returncode == 2 and "--allow-writes" in refused.stderr and not out.exists(), refused.stderr
    res = run_loadgen(*args, "--allow-writes", env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    streams = doc["result"]["streams"]
    assert streams["transaction begin"]["ops"] == streams["transaction commit"]["ops"] == events
    summary = doc["prediction"]["replay"]
    assert summary["transactions"] == events and summary["cut_transactions"] == 0
    assert all(s["errors"] == 0 for s in streams.values()), {n: s.get("first_error") for n, s in streams.items()}
    assert doc["result"]["driver"] == "python" and doc["complete"]
    ops = {s["op"] for s in streams.values()}
    assert {"update", "delete", "insert", "read", "range"} <= ops, ops
    tables = doc["buffer_pool"]["tables"].values()  # the rows the server says each table changed
    assert sum(t["rows_updated"] for t in tables) >= 2 * events and sum(t["rows_deleted"] for t in tables) >= events

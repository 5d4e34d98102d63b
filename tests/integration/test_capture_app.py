"""A hand-written application's traffic (tests/integration/shopapp.py: joins, secondary ranges and
non-unique equalities, a composite primary key, writes by a secondary key), captured from the
general log with `trace capture --dsn` (EXPLAIN for the joins), predicted with `predict --trace
--dsn` and held to the pages the server read during the original run (Innodb_pages_read from a
cold pool: a restart), on MariaDB 10.11 (local) and MySQL 9.7 (docker), at two pools.

Measured: docs/capture.md, "Validation: an application's traffic". The bounds are the measured
errors with the server's own spread between runs (tests/accuracy.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from ..accuracy import Point, check
from ..conftest import loadgen_cmd, run_loadgen
from loadgen.workload import optrace

from . import shopapp
from .test_foreign_traffic import _pages_read, _sql, local_log

CUSTOMERS = 20_000  # 60,000 orders, 180,000 items: ~2,500 pages of data
REQUESTS = 3_000
# (pool MiB, bound %, interval widened by %): 16M reads most of what it touches, 64M holds the
# tables. MariaDB 16M: the server read 16,251 .. 19,323 in eleven runs of the same traffic (a fresh
# seed reads more), predicted 17,339 .. 17,482: -10.3% .. +5.2%, held to 12%, the interval (+-3.4%)
# widened by the server's own spread (8%); 64M: +0.5% .. +0.7% (eight runs)
MARIADB = [(16, 12.0, 8.0), (64, 5.0, 0.0)]
# MySQL 9.7 64M: -0.8% .. +3.4% (1,744 .. 1,817 read, five runs); -0.1%, -1.4% with purge's walks' first
# touches by op (2026-11-30; +6.5%, +8.8% before at 149-232 q/s). 16M (2026-11-30, four runs at 58-232 q/s,
# load 9-13): the server read 9,931 .. 16,911, the slower runs more; predicted +12.4% (before the walks'
# fix), -0.3%, -11.3%, -4.9% (docs/capture.md): held to 15%, the interval widened by 8% as MariaDB's 16M
MYSQL = [(16, 15.0, 8.0), (64, 5.0, 0.0)]


@pytest.fixture(scope="module")
def shop_mariadb(mysqld_binary, session_dir):
    from loadgen.servers.local import LocalServer

    # performance_schema: the replay's pages read per table (test_index_ranges_replayed_read_what_the_app_read)
    yield from _seeded(LocalServer(session_dir / "shop-server", 16 << 20, mysqld=mysqld_binary,
                                   options={"performance_schema": "ON"}))


@pytest.fixture(scope="module")
def shop_mysql(mysql_image):
    from loadgen.servers import ServerSpec
    from loadgen.servers.docker import DockerServer

    # the change buffer off, as MySQL 8.4 starts (Debian's 9.7.4 starts with `all`): the model has
    # none, and with it MySQL merged the sku index's buffered inserts at times of its own, so the
    # same traffic read 1,552-1,816 pages at 64M (order_items 598-820); off: 1,789-1,794
    yield from _seeded(DockerServer(ServerSpec(provider="docker", image=mysql_image, pool_bytes=16 << 20,
                                               options={"innodb_change_buffering": "none"})))


def _seeded(server):
    """The server started, the shop's tables seeded; stopped after the module's tests."""
    server.start()
    try:
        conn = server.connect()
        shopapp.seed(conn, CUSTOMERS)
        conn.close()
        yield server
    finally:
        server.stop()


def _captured(server, log: str, copy_to, trace) -> tuple[int, str, dict, str]:
    """The general log switched off and copied out to `copy_to`, then captured into `trace` with
    --dsn: the server's pages read at that moment (before the capture's EXPLAINs), its dsn and env,
    and what the capture printed."""
    _sql(server, "SET GLOBAL general_log = OFF")
    pages = _pages_read(server)
    local = local_log(server, log, copy_to)
    ep = server.endpoint
    dsn, env = f"mysql://root@127.0.0.1:{ep.port}/", {"LOADGEN_PASSWORD": ep.password}
    res = run_loadgen("trace", "capture", "--general-log", local, "--dsn", dsn, "-o", str(trace), env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    return pages, dsn, env, res.stderr


def measure(server, pool_mib: int, tmp_path, seed: int = 1) -> tuple[int, dict, str]:
    """(pages the application read from a cold pool, the prediction, capture's stderr)."""
    docker = server.provider == "docker"
    log = f"/tmp/shop-{pool_mib}-{seed}.log" if docker else str(server.files_dir / f"shop-{pool_mib}-{seed}.log")
    conn = server.connect()
    try:
        first_new = shopapp.next_order(conn)  # before the log: not part of the traffic
    finally:
        conn.close()
    server.set_pool(pool_mib << 20)
    server.restart_cold()
    before = _pages_read(server)
    _sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    conn = server.connect()
    try:
        shopapp.run(conn, CUSTOMERS, REQUESTS, seed, first_new)
    finally:
        conn.close()
    trace = tmp_path / "shop.optrace"
    after, dsn, env, said = _captured(server, log, tmp_path / "shop.log", trace)
    measured = after - before
    pred = run_loadgen("predict", "--trace", str(trace), "--dsn", dsn, "--pool", f"{pool_mib}M", "--format", "json",
                       env=env)
    assert pred.returncode == 0, pred.stderr[-2000:]
    return measured, json.loads(pred.stdout), said


def _check(server, pool_mib: int, bound_pct: float, widen_pct: float, tmp_path) -> None:
    measured, doc, said = measure(server, pool_mib, tmp_path)
    print(said)
    cap = doc["capture"]
    on_tables = cap["statements"] - cap["no_table"]
    # every statement of the application is modelled: joins through EXPLAIN, the rest from the text
    assert cap["modelled"] == on_tables > REQUESTS, (cap, said)
    kinds = doc["operations_by_kind"]
    assert {"range", "range-secondary", "read-secondary", "read", "update", "insert"} <= set(kinds), kinds
    p = doc["pools"][0]
    assert set(p["tables"]) == {"shop.customers", "shop.orders", "shop.order_items"}
    figures = f"{server.provider} {pool_mib}M: the server read {measured:,}, predicted {p['pages_read']:,}"
    print(figures)
    assert measured > 300, figures  # the run really read from disk
    check([Point(figures, measured, p["pages_read"], p["low"], p["high"], bound_pct / 100, widen_pct / 100)])


@pytest.mark.mysqld
@pytest.mark.parametrize("pool_mib,bound_pct,widen_pct", MARIADB)
def test_app_traffic_captured_and_predicted_mariadb(shop_mariadb, tmp_path, pool_mib, bound_pct, widen_pct):
    _check(shop_mariadb, pool_mib, bound_pct, widen_pct, tmp_path)


@pytest.mark.docker
@pytest.mark.parametrize("pool_mib,bound_pct,widen_pct", MYSQL)
def test_app_traffic_captured_and_predicted_mysql(shop_mysql, tmp_path, pool_mib, bound_pct, widen_pct):
    _check(shop_mysql, pool_mib, bound_pct, widen_pct, tmp_path)


@pytest.mark.docker
def test_predict_says_when_the_server_buffers_index_changes(shop_mysql, tmp_path):
    """predict --trace --dsn on a trace with writes follows a MySQL server's change buffer where it
    is on (each pool's `change_buffer` block: what the model buffered) and records the setting; with
    it off, neither. Predicted with MariaDB's rules (--flavor mariadb), which have no change buffer,
    it says so instead."""
    log = "/tmp/shop-buffering.log"
    conn = shop_mysql.connect()
    try:
        first_new = shopapp.next_order(conn)
    finally:
        conn.close()
    _sql(shop_mysql, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    conn = shop_mysql.connect()
    try:
        shopapp.run(conn, CUSTOMERS, 300, 3, first_new)
    finally:
        conn.close()
    trace = tmp_path / "buffering.optrace"
    _, dsn, env, _ = _captured(shop_mysql, log, tmp_path / "buffering.log", trace)
    said = {}
    try:
        for setting in ("all", "none"):
            _sql(shop_mysql, f"SET GLOBAL innodb_change_buffering = '{setting}'")
            res = run_loadgen("predict", "--trace", str(trace), "--dsn", dsn, "--pool", "64M", "--format", "json",
                              env=env)
            assert res.returncode == 0, res.stderr[-2000:]
            doc = json.loads(res.stdout)
            said[setting] = (doc["change_buffering"], all("change_buffer" in p for p in doc["pools"]),
                             "innodb_change_buffering=" in res.stderr)
            if setting == "all":
                res = run_loadgen("predict", "--trace", str(trace), "--dsn", dsn, "--pool", "64M", "--format",
                                  "json", "--flavor", "mariadb", env=env)
                assert res.returncode == 0, res.stderr[-2000:]
                said["all, mariadb's rules"] = ("change_buffer" in json.loads(res.stdout)["pools"][0],
                                                "innodb_change_buffering=all" in res.stderr)
    finally:
        _sql(shop_mysql, "SET GLOBAL innodb_change_buffering = 'none'")  # as the fixture starts it
    assert said == {"all": ("all", True, False), "none": (None, False, False),
                    "all, mariadb's rules": (False, True)}, said


@pytest.mark.docker
def test_app_traffic_captured_from_performance_schema_mysql(shop_mysql, tmp_path):
    """`trace capture --performance-schema --dsn` polls the statement history while the application
    runs: its statements on tables are modelled (joins through EXPLAIN) and the share of the rows
    the server examined is printed (performance_schema counts them; a general log does not)."""
    _sql(shop_mysql, "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN "
                     "('events_statements_current', 'events_statements_history_long')")
    ep = shop_mysql.endpoint
    trace = tmp_path / "pfs.optrace"
    proc = subprocess.Popen(loadgen_cmd("trace", "capture", "--performance-schema", "--dsn",
                                        f"mysql://root@127.0.0.1:{ep.port}/", "--duration", "12", "--interval", "0.2",
                                        "-o", str(trace)),
                            env={**os.environ, "LOADGEN_PASSWORD": ep.password}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(4)  # connected and polling
        conn = shop_mysql.connect()
        try:
            sent = shopapp.run(conn, CUSTOMERS, 300, 5, shopapp.next_order(conn))
        finally:
            conn.close()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-2000:]
    print(err)
    meta, count, _ = optrace.read_header(trace)
    on_tables = meta["statements"] - meta["no_table"]
    # the application's statements on tables, all modelled (none lost between polls at this rate)
    assert meta["modelled"] == on_tables >= 300 and sent > on_tables and count > on_tables
    assert meta["source"] == "performance_schema" and 0 < meta["rows_examined_modelled"] == meta["rows_examined"]
    assert "rows examined (the server's count)" in err and "(100.0%)" in err


@pytest.mark.mysqld
def test_explain_on_the_server_is_read_only_and_one_statement(shop_mariadb):
    """The capture's EXPLAIN (joinops.explainer) on a real server: a join's plan in EXPLAIN's order;
    an executable comment, a second statement or a write are never run."""
    from loadgen import db
    from loadgen.workload import joinops

    conn = db.connect(shop_mariadb.endpoint, multi_statements=False)
    try:
        explain = joinops.explainer(conn)
        plan = explain("SELECT o.total, i.qty FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = 7",
                       "shop")
        assert [(s.alias, s.access, s.key) for s in plan] == [("o", "const", "PRIMARY"), ("i", "ref", "PRIMARY")]
        assert explain("SELECT * FROM orders /*!50000 WHERE id = 1 */", "shop") == "other_statement"
        assert explain("SELECT * FROM orders; DELETE FROM orders", "shop") == "explain_failed"
        # a stored function in the text: EXPLAIN would run it while planning (MariaDB ran this one twice
        # for one EXPLAIN, counted in a session variable); the explainer never sends it
        cur = conn.cursor()
        cur.execute("CREATE FUNCTION IF NOT EXISTS shop.counted() RETURNS INT DETERMINISTIC "
                    "BEGIN SET @loadgen_calls = IFNULL(@loadgen_calls, 0) + 1; RETURN 7; END")
        cur.execute("SET @loadgen_calls = 0")
        cur.execute("EXPLAIN SELECT * FROM shop.orders o JOIN shop.order_items i ON i.order_id = o.id "
                    "WHERE o.id = shop.counted()")
        cur.fetchall()
        assert db.query_value(conn, "SELECT @loadgen_calls") > 0  # EXPLAIN itself runs it
        cur.execute("SET @loadgen_calls = 0")
        cur.close()
        assert explain("SELECT o.total FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = counted()",
                       "shop") == "calls_function"
        assert db.query_value(conn, "SELECT @loadgen_calls") == 0
        # EXPLAIN of a write inside the read-only transaction: refused or only explained, nothing changes
        before = db.query_value(conn, "SELECT COUNT(*) FROM shop.orders")
        explain("DELETE FROM orders WHERE id < 100", "shop")
        assert db.query_value(conn, "SELECT COUNT(*) FROM shop.orders") == before
    finally:
        conn.close()


# The shop's index-range requests (a customer's last 10 orders through `customer`, 31-value `placed`
# ranges, an org's 20 newest customers through `org_created`, an order's lines by the composite
# primary key's leading column) from a cold pool, then their replay.
# Measured (MariaDB 10.11, 16M, docs/capture.md "Replayed: index ranges"): 1,408 ranges, three runs:
# the application read 12,652 .. 12,689, the replay -2.1% .. -0.3% of it, predicted +1.5% .. +3.1% of
# the replay; without the order lines (1,063 ranges, three runs) -4.5% .. -0.1%, predicted +1.1% ..
# +5.4%. Held to 8% (the replay) and 5% with the interval (its prediction).
RANGE_REQUESTS = 4_000  # drawn; about 35% of them are index ranges
RANGE_REPLAY_BOUND_PCT = 8.0
RANGE_PREDICTED_BOUND_PCT = 5.0


def _index_range_requests(first_new: int):
    wanted = ("SELECT id, placed, total FROM orders WHERE customer_id", "SELECT id, total FROM orders WHERE placed",
              "SELECT id, email FROM customers WHERE org", "SELECT line, sku, qty FROM order_items WHERE order_id")
    for req in shopapp.requests(CUSTOMERS, RANGE_REQUESTS, 3, first_new):
        if req[0].startswith(wanted):
            yield req[0]


@pytest.mark.mysqld
def test_index_ranges_replayed_read_what_the_app_read(shop_mariadb, tmp_path):
    """capture -> replay of index ranges (trace 1.1 kind 7): each replayed on its captured values
    through the index the capture chose, each entry's row read; the replay from a cold pool (the
    dsn's resize) reads what the application read from a cold pool (a restart)."""
    original, replayed, predicted, figures = replay_ranges(shop_mariadb, tmp_path)
    assert original > 1_000, figures  # the run really read from disk
    assert abs(replayed - original) <= original * RANGE_REPLAY_BOUND_PCT / 100, figures
    check([Point(f"{figures}: the replay's prediction", replayed, predicted["pages_read"], predicted["reads_low"],
                 predicted["reads_high"], RANGE_PREDICTED_BOUND_PCT / 100)])


def replay_ranges(server, tmp_path) -> tuple[int, int, dict, str]:
    """(pages the index-range requests read from a cold pool, pages their replay read, the replay's
    prediction block, the figures as a line)."""
    docker = server.provider == "docker"
    log = "/tmp/shop-ranges.log" if docker else str(server.files_dir / "shop-ranges.log")
    conn = server.connect()
    try:
        first_new = shopapp.next_order(conn)
    finally:
        conn.close()
    server.set_pool(16 << 20)
    server.restart_cold()
    before = _pages_read(server)
    _sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    conn = server.connect()
    try:
        cur = conn.cursor()
        cur.execute("USE shop")
        sent = 0
        for st in _index_range_requests(first_new):
            cur.execute(st)
            cur.fetchall()
            sent += 1
        cur.close()
    finally:
        conn.close()
    trace = tmp_path / "ranges.optrace"
    after, dsn, env, _ = _captured(server, log, tmp_path / "shop-ranges.log", trace)
    original = after - before
    meta, count, _ = optrace.read_header(trace)
    assert meta["modelled"] == sent and count == sent, (meta, count, sent)
    server.restart_cold()
    ep = server.endpoint
    dsn, env = f"mysql://root@127.0.0.1:{ep.port}/", {"LOADGEN_PASSWORD": ep.password}
    out = tmp_path / "replay.json"
    res = run_loadgen("run", "--server", "dsn", "--dsn", dsn, "--trace", str(trace), "--out", str(out), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    streams = doc["result"]["streams"]
    assert doc["complete"] and doc["prediction"]["replay"]["not_replayed"] == {}, doc["prediction"]["replay"]
    assert {s["op"] for s in streams.values()} == {"index-range"}, list(streams)
    assert sum(s["ops"] for s in streams.values()) == sent
    assert all(s["errors"] == 0 for s in streams.values())
    replayed, predicted = doc["buffer_pool"]["pages_read"], doc["prediction"]["pages_read"]
    figures = (f"{server.flavor.name} {server.flavor.version}, {sent:,} index ranges at 16M: the application read "
               f"{original:,}, the replay {replayed:,} ({(replayed - original) / original * 100:+.1f}%), "
               f"predicted {predicted:,}")
    print(figures)
    return original, replayed, doc["prediction"], figures  # the prediction held to the replay (test_replay_ops)

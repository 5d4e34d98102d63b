"""clone-shape and seed --shape (issue #22, item 3): a table's shape read from one real server
without writing to it, and rebuilt with synthetic rows on another: rows, key range and gaps
exact, leaf pages within a few percent."""
from __future__ import annotations

import json
import random

import pytest

from ..conftest import run_loadgen

pytestmark = pytest.mark.mysqld

SB_ROWS, HOLES_ROWS = 100_000, 150_000
# Leaf pages of the seeded table against the source's, in percent. Measured on MariaDB 10.11.19
# (4 runs, the same every time: the rows are deterministic): sbtest1 PRIMARY 0.0, k_1 0.0
# (built after, sorted, as sysbench builds it), data bytes 0.0; holes PRIMARY +0.7, by_owner +0.4
# (filled by random inserts, on both), data bytes +2.6.
LEAF_BOUND_PCT = 5.0


def _server(session_dir, mysqld_binary, name):
    from loadgen.servers.local import LocalServer

    return LocalServer(session_dir / name, 16 << 20, mysqld=mysqld_binary)


@pytest.fixture(scope="module")
def servers(mysqld_binary, session_dir):
    """(source, target): the source holds sbtest.sbtest1 as sysbench makes it (rows in key order,
    then CREATE INDEX k_1) and sbtest.holes (keys 3, 6, .. 150,000, a hole, then dense to
    550,000; an index filled by random inserts; text and NULLs), and users `reader` (SELECT on
    sbtest.* only) and `nobody` (no grant)."""
    src, dst = _server(session_dir, mysqld_binary, "shape-src"), _server(session_dir, mysqld_binary, "shape-dst")
    src.start()
    try:
        dst.start()
        try:
            conn = src.connect()
            fill(conn, SB_ROWS, HOLES_ROWS)
            conn.close()
            yield src, dst
        finally:
            dst.stop()
    finally:
        src.stop()


def fill(conn, sb_rows: int, holes_rows: int, hosts=("127.0.0.1", "localhost")) -> None:
    """sbtest.sbtest1 and sbtest.holes (see `servers`), the users reader and nobody."""
    rnd = random.Random(1)
    dense_from = holes_rows // 3
    cur = conn.cursor()
    cur.execute("CREATE DATABASE sbtest")
    cur.execute("CREATE TABLE sbtest.sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, "
                "c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id))")
    cur.execute("CREATE TABLE sbtest.holes (id BIGINT PRIMARY KEY, owner INT NOT NULL, title VARCHAR(200) NOT NULL, "
                "note TEXT NULL, KEY by_owner (owner))")
    sb = [(i, rnd.randint(1, sb_rows), f"{rnd.getrandbits(32):011d}-" * 10, f"{rnd.getrandbits(32):011d}-" * 5)
          for i in range(1, sb_rows + 1)]
    holes = [(i * 3 if i <= dense_from else 8 * dense_from + i, rnd.randint(1, 5000), "t" * rnd.randint(20, 120),
              None if rnd.random() < 0.3 else "n" * rnd.randint(10, 400)) for i in range(1, holes_rows + 1)]
    for table, rows in (("sbtest1", sb), ("holes", holes)):
        for i in range(0, len(rows), 5000):
            cur.executemany(f"INSERT INTO sbtest.{table} VALUES (%s, %s, %s, %s)", rows[i:i + 5000])
    cur.execute("CREATE INDEX k_1 ON sbtest.sbtest1 (k)")
    cur.execute("ANALYZE TABLE sbtest.sbtest1, sbtest.holes")
    cur.fetchall()
    for user, grant in (("reader", "GRANT SELECT ON sbtest.* TO {}"), ("nobody", None)):
        for host in hosts:
            who = f"'{user}'@'{host}'"
            cur.execute(f"CREATE USER {who} IDENTIFIED BY 'pw-{user}'")
            if grant:
                cur.execute(grant.format(who))
    cur.close()


def _dsn(server, user="root"):
    return f"mysql://{user}@127.0.0.1:{server.endpoint.port}/"


def _env(server, user="root"):
    return {"LOADGEN_PASSWORD": server.endpoint.password if user == "root" else f"pw-{user}"}


def _state(conn):
    """What a write would change: the databases and tables, and every sbtest table's checksum."""
    from loadgen import db

    tables = db.query_all(conn, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
                          "WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') "
                          "ORDER BY 1, 2")
    sums = db.query_all(conn, "CHECKSUM TABLE sbtest.sbtest1, sbtest.holes")
    return tables, sums


@pytest.fixture(scope="module")
def cloned(servers, tmp_path_factory):
    src, _ = servers
    out = tmp_path_factory.mktemp("shape") / "sb.json"
    conn = src.connect()
    before = _state(conn)
    res = run_loadgen("clone-shape", "--dsn", _dsn(src), "--database", "sbtest", "-o", str(out), env=_env(src))
    assert res.returncode == 0, res.stderr[-3000:]
    assert _state(conn) == before
    conn.close()
    return out, json.loads(out.read_text())


def test_the_schema_file_passes_the_schema_gate_and_names_every_table(cloned):
    from loadgen.seeding.schemas import read_schema_file

    out, doc = cloned
    schema = read_schema_file(out.with_suffix(".sql"), "anywhere")
    assert sorted(schema.tables) == ["holes", "sbtest1"]
    assert doc["format"] == "loadgen-shape" and doc["version"] == 1
    t = {t["name"]: t for t in doc["tables"]}
    assert t["holes"]["rows"] == HOLES_ROWS and t["sbtest1"]["rows"] == SB_ROWS
    assert (t["holes"]["primary_key"]["min"], t["holes"]["primary_key"]["max"]) == (3, 550_000)
    assert t["holes"]["indexes"]["by_owner"]["build"] == "load"  # filled by random inserts
    assert t["sbtest1"]["indexes"]["k_1"]["build"] == "after"  # created after the rows
    note = next(c for c in t["holes"]["columns"] if c["name"] == "note")
    assert 0.2 < note["null_fraction"] < 0.4 and 150 < note["avg_bytes"] < 260


def test_seed_rebuilds_rows_keys_and_pages_of_the_source(servers, cloned):
    from loadgen.seeding import clone

    src, dst = servers
    out, doc = cloned
    res = run_loadgen("seed", "--shape", str(out), "--server", "dsn", "--dsn", _dsn(dst), env=_env(dst))
    assert res.returncode == 0, res.stderr[-3000:]
    conn = dst.connect()
    try:
        again = clone.clone(conn, "sbtest", ["holes", "sbtest1"])
    finally:
        conn.close()
    for want, got in zip(doc["tables"], again["tables"]):
        name = want["name"]
        assert got["rows"] == want["rows"], name
        # the same key range cut the same way: every segment holds the source's rows, within its keys
        assert [s[2] for s in got["primary_key"]["segments"]] == [s[2] for s in want["primary_key"]["segments"]]
        for (a_lo, a_hi, _), (b_lo, b_hi, _) in zip(want["primary_key"]["segments"], got["primary_key"]["segments"]):
            assert a_lo == b_lo and a_hi == b_hi, name
        for iname, ix in want["indexes"].items():
            pct = 100.0 * (got["indexes"][iname]["leaf_pages"] - ix["leaf_pages"]) / ix["leaf_pages"]
            assert abs(pct) <= LEAF_BOUND_PCT, (name, iname, ix["leaf_pages"], got["indexes"][iname]["leaf_pages"])
        assert abs(got["data_bytes"] - want["data_bytes"]) <= LEAF_BOUND_PCT / 100 * want["data_bytes"], name
        for a, b in zip(want["columns"], got["columns"]):
            if a["fixed_bytes"] is None and a["avg_bytes"]:
                assert abs(b["avg_bytes"] - a["avg_bytes"]) <= 0.08 * a["avg_bytes"], (name, a, b)
    # a second seed finds the shape there and only reads it back
    res = run_loadgen("seed", "--shape", str(out), "--server", "dsn", "--dsn", _dsn(dst), env=_env(dst))
    assert res.returncode == 0 and "already holds" in res.stderr, res.stderr[-2000:]


def test_clone_shape_needs_only_select_and_writes_nothing(servers, tmp_path):
    src, _ = servers
    conn = src.connect()
    before = _state(conn)
    out = tmp_path / "reader.json"
    res = run_loadgen("clone-shape", "--dsn", _dsn(src, "reader"), "--database", "sbtest", "--tables", "holes",
                      "-o", str(out), env=_env(src, "reader"))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "pw-reader" not in res.stdout + res.stderr
    doc = json.loads(out.read_text())
    assert [t["name"] for t in doc["tables"]] == ["holes"] and doc["tables"][0]["rows"] == HOLES_ROWS
    res = run_loadgen("clone-shape", "--dsn", _dsn(src, "nobody"), "--database", "sbtest", "-o",
                      str(tmp_path / "n.json"), env=_env(src, "nobody"))
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert not (tmp_path / "n.json").exists()
    assert _state(conn) == before
    conn.close()

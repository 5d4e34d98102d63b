"""Whole-server capture (workload/sqlops.py, sqltext.py, tablekeys.py, opcapture.py, optrace.py): the statement shapes
sysbench and YCSB-like clients send, what is not modelled, hostile logs, and the trace file."""
from __future__ import annotations

import os

import numpy as np
import pytest

from loadgen.errors import UsageError
from loadgen.results.files import process_umask
from loadgen.workload import capture as logs
from loadgen.workload import opcapture, optrace as ot, sqlops, sqltext, tablekeys

SBTEST = tablekeys.TableDef(["id", "k", "c", "pad"], ["id"], {"k_1": ["k"]})
USERS = tablekeys.TableDef(["ycsb_key", "field0"], ["ycsb_key"], {})
# an ORM's shapes: a composite primary key, a unique and a composite secondary index
ITEMS = tablekeys.TableDef(["order_id", "line", "sku", "qty"], ["order_id", "line"], {"sku": ["sku"]})
USERS2 = tablekeys.TableDef(["id", "email", "org", "created"], ["id"],
                            {"email": ["email"], "org_created": ["org", "created"], "created": ["created"]},
                            {"email"})
SCHEMAS = tablekeys.Schemas({("sbtest", "sbtest1"): SBTEST, (None, "usertable"): USERS, (None, "items"): ITEMS,
                             (None, "users"): USERS2})


def classify(sql: str, schema: str | None = "sbtest") -> sqlops.Result:
    return sqlops.Classifier(SCHEMAS).classify(sql, schema)[0]


def one(sql: str):
    r = classify(sql)
    assert r.reason is None, (sql, r.reason)
    assert len(r.ops) == 1, r.ops
    o = r.ops[0]
    return o.kind, o.index, o.lo, o.hi, o.flags, o.extra


@pytest.mark.parametrize("sql,want", [
    ("SELECT c FROM sbtest1 WHERE id=2423", (ot.POINT, "PRIMARY", 2423, 2423, 0, 0)),
    ("SELECT c FROM sbtest.sbtest1 WHERE id = '7'", (ot.POINT, "PRIMARY", 7, 7, 0, 0)),
    ("SELECT c FROM sbtest1 WHERE id BETWEEN 3212 AND 3311", (ot.RANGE, "PRIMARY", 3212, 3311, 0, 0)),
    ("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 10 AND 109", (ot.RANGE, "PRIMARY", 10, 109, 0, 0)),
    ("SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c", (ot.RANGE, "PRIMARY", 5, 104, 0, 0)),
    ("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c", (ot.RANGE, "PRIMARY", 5, 104, 0, 0)),
    ("SELECT * FROM sbtest1 WHERE id > 10 AND id <= 20", (ot.RANGE, "PRIMARY", 11, 20, 0, 0)),
    ("SELECT * FROM sbtest1 WHERE id >= 100 ORDER BY id LIMIT 10", (ot.RANGE, "PRIMARY", 100, 0, ot.HI_OPEN, 10)),
    ("SELECT * FROM sbtest1 WHERE k = 5", (ot.INDEX_RANGE, "k_1", 5, 5, 0, 0)),
    ("SELECT * FROM sbtest1", (ot.SCAN, "PRIMARY", 0, None, 0, 0)),
    ("SELECT COUNT(*) FROM sbtest1 WHERE c LIKE '%FROM x WHERE id=1%'", (ot.SCAN, "PRIMARY", 0, None, 0, 0)),
    ("UPDATE sbtest1 SET k=k+1 WHERE id=2490", (ot.UPDATE, "PRIMARY", 2490, 2490, 0, 1)),
    ("UPDATE sbtest1 SET c='a=b, k=1' WHERE id=2644", (ot.UPDATE, "PRIMARY", 2644, 2644, 0, 0)),
    ("DELETE FROM sbtest1 WHERE id=2507", (ot.DELETE, "PRIMARY", 2507, 2507, 0, 0)),
    ("INSERT INTO sbtest1 (id, k, c, pad) VALUES (2507, 2500, 'x(1)', 'y')", (ot.INSERT, "PRIMARY", 2507, 2507, 0, 0)),
    ("INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'x', 'y')", (ot.INSERT, "PRIMARY", 0, 0, ot.AUTO, 0)),
    ("/* app */ SELECT field0 FROM usertable WHERE ycsb_key = 'user6284781860667377211'", None),
])
def test_statement_shapes(sql, want):
    got = one(sql)
    if want is None:  # a string key: hashed, flagged
        assert got[0] == ot.POINT and got[4] == ot.HASHED and got[2] == sqltext.key_hash("user6284781860667377211")
    else:
        assert got == want


H = sqltext.key_tuple


@pytest.mark.parametrize("sql,want", [
    # a secondary range, bounds and LIMIT, read downwards
    ("SELECT * FROM sbtest1 WHERE k BETWEEN 10 AND 20", [(ot.INDEX_RANGE, "k_1", 10, 20, 0, 0)]),
    ("SELECT id FROM users WHERE created >= 100 ORDER BY created DESC LIMIT 5",
     [(ot.INDEX_RANGE, "created", 100, 0, ot.HI_OPEN | ot.DESC, 5)]),
    ("SELECT * FROM users ORDER BY created DESC LIMIT 10",
     [(ot.INDEX_RANGE, "created", 0, None, ot.LO_OPEN | ot.HI_OPEN | ot.DESC, 10)]),
    # a unique index's equality is one row; a composite index's prefix the entries with the value
    ("SELECT * FROM users WHERE email = 'a@b'", [(ot.POINT, "email", sqltext.key_hash("a@b"), None, ot.HASHED, 0)]),
    ("SELECT * FROM users WHERE org = 7 ORDER BY created DESC LIMIT 20",
     [(ot.INDEX_RANGE, "org_created", 7, None, ot.DESC, 20)]),
    # a composite primary key: every column's equality one row (a hash), the prefix a range of it
    ("SELECT qty FROM items WHERE order_id = 5 AND line = 2", [(ot.POINT, "PRIMARY", H([5, 2]), None, ot.HASHED, 0)]),
    ("SELECT qty FROM items WHERE line = 2 AND order_id = 5", [(ot.POINT, "PRIMARY", H([5, 2]), None, ot.HASHED, 0)]),
    ("SELECT * FROM items WHERE order_id = 5", [(ot.INDEX_RANGE, "PRIMARY", 5, None, 0, 0)]),
    ("SELECT * FROM items WHERE order_id IN (5, 6)", [(ot.INDEX_RANGE, "PRIMARY", 5, None, 0, 0),
                                                       (ot.INDEX_RANGE, "PRIMARY", 6, None, 0, 0)]),
    ("SELECT * FROM items WHERE order_id BETWEEN 5 AND 9", [(ot.INDEX_RANGE, "PRIMARY", 5, 9, 0, 0)]),
    ("UPDATE items SET qty = 3 WHERE order_id = 5 AND line = 1",
     [(ot.UPDATE, "PRIMARY", H([5, 1]), None, ot.HASHED, 0)]),
    ("DELETE FROM items WHERE order_id = 5 AND line = 1", [(ot.DELETE, "PRIMARY", H([5, 1]), None, ot.HASHED, 0)]),
    ("INSERT INTO items (order_id, line, sku, qty) VALUES (5, 1, 'a', 1), (5, 2, 'b', 1)",
     [(ot.INSERT, "PRIMARY", 5, None, 0, 0), (ot.INSERT, "PRIMARY", 5, None, 0, 0)]),  # by the leading value
    ("INSERT INTO items (order_id, line, sku, qty) VALUES ('x5', 1, 'a', 1)",
     [(ot.INSERT, "PRIMARY", H([sqltext.key_hash("x5"), 1]), None, ot.HASHED, 0)]),
    # a write by a secondary key: the lookup, then the row it found (VIA_INDEX, the same value)
    ("UPDATE sbtest1 SET c = 'x' WHERE k = 5", [(ot.POINT, "k_1", 5, None, 0, 0),
                                                (ot.UPDATE, "PRIMARY", 5, None, ot.VIA_INDEX, 0)]),
    ("DELETE FROM users WHERE email = 'a@b'", [(ot.POINT, "email", sqltext.key_hash("a@b"), None, ot.HASHED, 0),
                                               (ot.DELETE, "PRIMARY", sqltext.key_hash("a@b"), None,
                                                ot.HASHED | ot.VIA_INDEX, 0)]),
    ("UPDATE users SET org = 3 WHERE email = 'a@b'", [(ot.POINT, "email", sqltext.key_hash("a@b"), None, ot.HASHED, 0),
                                                      (ot.UPDATE, "PRIMARY", sqltext.key_hash("a@b"), None,
                                                       ot.HASHED | ot.VIA_INDEX, 4)]),  # org_created: bit 2
])
def test_secondary_ranges_composite_keys_and_writes_by_index(sql, want):
    r = classify(sql, "sbtest" if "sbtest1" in sql else None)
    assert r.reason is None, (sql, r.reason)
    got = [(o.kind, o.index, o.lo, o.hi if o.hi != o.lo else None, o.flags, o.extra) for o in r.ops]
    assert got == want


def test_several_keys_and_rows():
    assert [o.lo for o in classify("SELECT c FROM sbtest1 WHERE id IN (1, 2, 3)").ops] == [1, 2, 3]
    r = classify("INSERT INTO sbtest1 VALUES (1, 2, 'a', 'b'), (2, 3, 'c', 'd'), (NULL, 4, 'e', 'f')")
    assert [(o.lo, o.flags) for o in r.ops] == [(1, 0), (2, 0), (0, ot.AUTO)]


@pytest.mark.parametrize("sql,reason", [
    ("SELECT * FROM sbtest1 a JOIN sbtest1 b ON a.id = b.k WHERE a.id = 1", "join"),
    ("SELECT * FROM sbtest1 WHERE id = 1 OR id = 2", "complex_where"),
    ("SELECT * FROM sbtest1 WHERE id IN (SELECT k FROM sbtest1)", "subquery"),
    ("UPDATE sbtest1 SET c = 'x' WHERE k > 5", "write_not_by_key"),
    ("UPDATE sbtest1 SET c = 'x' WHERE c = 'y'", "write_not_by_key"),
    ("DELETE FROM sbtest1", "write_not_by_key"),
    ("DELETE FROM items WHERE order_id = 5", "write_not_by_key"),
    ("SELECT * FROM sbtest1 WHERE k BETWEEN 'a' AND 'b'", "non_integer_range"),
    ("UPDATE sbtest1 SET id = 5 WHERE id = 4", "update_of_primary_key"),
    ("INSERT INTO sbtest1 SELECT * FROM sbtest1", "insert_select"),
    ("SELECT c FROM sbtest1 WHERE id=?", "placeholder"),
    ("SELECT * FROM nosuch WHERE id = 1", "unknown_table"),
    ("SELECT * FROM mysql.user WHERE id = 1", "system_table"),
    ("ALTER TABLE sbtest1 ADD COLUMN x INT", "other_statement"),
    ("SELECT c FROM sbtest1 WHERE id = 99999999999999999999999", "key_out_of_range"),
    ("BEGIN", "none"),
    ("SELECT @@version", "none"),
])
def test_what_is_not_modelled_says_why(sql, reason):
    assert classify(sql).reason == reason


def test_digest_hides_literals():
    masked, _ = sqltext.mask("SELECT c FROM t WHERE id IN (1, 2, 3) AND c = 'secret'")
    assert "secret" not in sqltext.digest(masked) and "1" not in sqltext.digest(masked)


LOG = """/usr/sbin/mariadbd, Version: 10.11.19-MariaDB. started with:
Tcp port: 3306  Unix socket: /run/mysqld.sock
Time\t\t    Id Command\tArgument
261125 18:22:28\t     7 Connect\troot@127.0.0.1 on sbtest using TCP/IP
\t\t     7 Prepare\tSELECT c FROM sbtest1 WHERE id=?
\t\t     7 Execute\tBEGIN
\t\t     7 Execute\tSELECT c FROM sbtest1 WHERE id=2423
\t\t     7 Execute\tUPDATE sbtest1 SET k=k+1 WHERE id=5
\t\t     7 Execute\tDELETE FROM sbtest1 WHERE id=6
\t\t     7 Execute\tCOMMIT
261125 18:22:30\t     8 Query\tSELECT *
FROM sbtest.sbtest1 WHERE id BETWEEN 1 AND 10
\t\t     8 Query\tINSERT INTO sbtest.sbtest1 (k, c, pad) VALUES (1, 'a', 'b')
\t\t     8 Query\tSELECT * FROM sbtest.sbtest1 a JOIN sbtest.sbtest1 b USING (id) WHERE a.id = 3
"""


def test_general_log_to_trace_and_back(tmp_path):
    log = tmp_path / "general.log"
    log.write_text(LOG)
    out = tmp_path / "t.optrace"
    cap = opcapture.run(log, "general", SCHEMAS, out)
    # the join is counted, not dropped: without a server there is no EXPLAIN
    assert cap.modelled == 5 and cap.unused == {"needs_explain": 1} and cap.span_s == 2.0
    assert cap.top()[0]["reason"] == "needs_explain"
    meta, count, _ = ot.read_header(out)
    assert count == 5 and meta["trees"] == [{"table": "sbtest.sbtest1", "index": "PRIMARY"}]
    a = np.concatenate(list(ot.chunks(out)))

    assert list(a["kind"]) == [ot.POINT, ot.UPDATE, ot.DELETE, ot.RANGE, ot.INSERT]
    # the two writes of one BEGIN..COMMIT share a transaction; the autocommit insert has its own
    assert a["hi"][1] == a["hi"][2] != a["hi"][4]
    assert meta["tables"]["sbtest.sbtest1"] == {"primary_key": ["id"], "indexes": {"k_1": ["k"]}, "unique": []}
    assert (meta["version"], meta["minor"]) == (ot.VERSION, ot.MINOR)


def test_hostile_logs_are_counted_never_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "MAX_LINE_CHARS", 1000)
    monkeypatch.setattr(logs, "MAX_STATEMENT_CHARS", 2000)
    log = tmp_path / "general.log"
    # a line past the limit, a key past 64 bits, a statement past the limit over several lines
    # (the junk line after it is one more of its lines: the general log's statements span lines)
    log.write_text(LOG + "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE id=" + "9" * 5000 + "\n"
                   + "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE id=-9223372036854775809\n"
                   + "\t\t     8 Query\tSELECT c\n" + ("x" * 900 + "\n") * 5 + "junk \ufffd\ufffd\x7f line\n")
    cap = opcapture.run(log, "general", SCHEMAS, tmp_path / "t.optrace")
    assert cap.unused["too_long"] == 2 and cap.unused["key_out_of_range"] == 1
    assert cap.modelled == 5
    bad = tmp_path / "binary.log"
    bad.write_bytes(b"\x00\x01" * 100)
    with pytest.raises(UsageError):
        opcapture.run(bad, "general", SCHEMAS, tmp_path / "u.optrace")
    assert not (tmp_path / "u.optrace").exists()


def test_damaged_traces_are_one_line_errors(tmp_path):
    log = tmp_path / "general.log"
    log.write_text(LOG)
    out = tmp_path / "t.optrace"
    opcapture.run(log, "general", SCHEMAS, out)
    data = out.read_bytes()
    (tmp_path / "cut").write_bytes(data[:-5])
    with pytest.raises(ot.OpTraceError, match="truncated"):
        ot.read_header(tmp_path / "cut")
    (tmp_path / "meta").write_bytes(data[:30] + b"\xff" + data[31:])
    with pytest.raises(ot.OpTraceError):
        list(ot.chunks(tmp_path / "meta"))
    from loadgen.workload import trace as keytrace

    with pytest.raises(keytrace.TraceError, match="op trace"):
        list(keytrace.chunks(out))
    # a 1.0 trace (no minor) still reads; a newer minor is refused, not misread
    import json
    import struct

    meta, count, start = ot.read_header(out)
    body = data[start:]

    def with_meta(m: dict) -> bytes:
        blob = json.dumps(m).encode()
        return struct.pack("<8sIIQ", ot.MAGIC, ot.VERSION, len(blob), count) + blob + body

    old = {k: v for k, v in meta.items() if k != "minor"}
    (tmp_path / "v10").write_bytes(with_meta(old))
    assert sum(len(a) for a in ot.chunks(tmp_path / "v10")) == count
    (tmp_path / "v19").write_bytes(with_meta({**meta, "minor": ot.MINOR + 8}))
    with pytest.raises(ot.OpTraceError, match=r"format 1\.9"):
        ot.read_header(tmp_path / "v19")


def test_schema_file_gives_the_keys(tmp_path):
    sql = tmp_path / "s.sql"
    sql.write_text("CREATE TABLE t (id INT NOT NULL, a INT, b CHAR(10), PRIMARY KEY (id), KEY ab (a, b));")
    s = tablekeys.schemas_from_file(sql)
    t = s.find("anydb", "t")
    assert t.primary_key == ["id"] and t.indexes == {"ab": ["a", "b"]} and t.columns == ["id", "a", "b"]


def test_the_trace_predicted_per_table_and_index(tmp_path):
    """The adapter (analysis/tracemodel.py) over the mix model: per-index reads add up, the
    update of k reaches k_1, the AUTO_INCREMENT insert grows the table, keys past it are skipped."""
    from loadgen.analysis import tracegeometry, tracemodel

    log = tmp_path / "general.log"
    log.write_text(LOG + "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE id=999999\n")
    out = tmp_path / "t.optrace"
    opcapture.run(log, "general", SCHEMAS, out)
    meta, _, _ = ot.read_header(out)
    tables = tracegeometry.offline_geometry(meta, {"*": 10_000}, {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}})
    t = tables["sbtest.sbtest1"]
    assert 100 <= t["leaf_pages"] <= 250 and t["indexes"]["k_1"]["columns"] == ["k"]  # ~73 rows a leaf
    doc = tracemodel.predict(out, tables, tracegeometry.pools_of([8 << 20, 64 << 20], "mariadb", {}, 1000.0))
    assert doc["skipped"] == {"outside the table's keys": 1} and doc["simulated"] == 5
    assert doc["operations_by_kind"] == {"read": 1, "update": 1, "delete": 1, "range": 1, "insert": 1}
    for p in doc["pools"]:
        tt = p["tables"]["sbtest.sbtest1"]
        assert tt["pages_read"] == sum(tt["indexes"].values()) > 0
        assert tt["indexes"]["k_1"] > 0  # the update of k and the delete write its entries
        assert p["pages_read"] == tt["pages_read"] + p["system_pages_read"]
        assert p["low"] <= p["pages_read"] <= p["high"]
    with pytest.raises(UsageError, match="no --rows"):
        tracegeometry.offline_geometry(meta, {}, {})


def test_the_three_commands_without_a_server(tmp_path):
    """capture --schema, trace info, predict --trace --schema --rows at two pools; misuse is one line."""
    from ..conftest import run_loadgen

    log, sql, out = tmp_path / "general.log", tmp_path / "sb.sql", tmp_path / "t.optrace"
    log.write_text(LOG)
    sql.write_text("CREATE TABLE sbtest1 (id INT NOT NULL, k INT NOT NULL, c CHAR(120), pad CHAR(60), "
                   "PRIMARY KEY (id), KEY k_1 (k));")
    res = run_loadgen("trace", "capture", "--general-log", str(log), "--schema", str(sql), "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert "5 of 6 on tables modelled (83.3%)" in res.stderr and "join" in res.stderr
    # the most frequent unmodelled shapes are dim text, never their markup tags printed as text
    assert "x needs_explain: SELECT" in res.stderr and "[dim]" not in res.stderr and "[/]" not in res.stderr
    info = run_loadgen("trace", "info", str(out))
    assert info.returncode == 0 and "sbtest.sbtest1 PRIMARY update: 1" in info.stdout, info.stdout + info.stderr
    pred = run_loadgen("predict", "--trace", str(out), "--schema", str(sql), "--rows", "10k", "--pool", "8M,64M",
                       "--format", "json")
    assert pred.returncode == 0, pred.stderr
    import json

    doc = json.loads(pred.stdout)
    assert [p["pool_bytes"] for p in doc["pools"]] == [8 << 20, 64 << 20] and doc["simulated"] == 5
    table = run_loadgen("predict", "--trace", str(out), "--schema", str(sql), "--rows", "10k", "--pool", "8M")
    assert table.returncode == 0 and "total pages read" in table.stdout, table.stderr
    for args, said in [(("trace", "capture", "--general-log", str(log), "-o", str(tmp_path / "x")), "--dsn URL"),
                       (("predict", "--trace", str(out), "--pool", "8M"), "--schema FILE.sql --rows N"),
                       (("predict", "--trace", str(out), "--schema", str(sql)), "--rows"),
                       (("run", "--trace", str(out), "--rows", "10k"), "op trace")]:
        bad = run_loadgen(*args)
        assert bad.returncode != 0 and said in bad.stderr and "Traceback" not in bad.stderr, (args, bad.stderr)
    assert not (tmp_path / "x").exists()


def test_shapes_reused_give_what_classifying_gives():
    """The shape cache (Classifier.shapes): the second statement of a shape comes from the cache
    and equals a fresh classification, bounds' +-1 and negative keys included."""
    statements = ["SELECT c FROM sbtest1 WHERE id=2423", "SELECT c FROM sbtest1 WHERE id=-7",
                  "SELECT * FROM sbtest1 WHERE id > 10 AND id <= 20", "SELECT * FROM sbtest1 WHERE id > 5 AND id <= 9",
                  "UPDATE sbtest1 SET c='x' WHERE id=5", "UPDATE sbtest1 SET c='y' WHERE id=6",
                  "SELECT c FROM sbtest1 WHERE id IN (1, 2, 3)", "SELECT c FROM sbtest1 WHERE id IN (4, 5, 6)",
                  "SELECT field0 FROM usertable WHERE ycsb_key = 'user1'",
                  "SELECT field0 FROM usertable WHERE ycsb_key = 'user2'",
                  "SELECT * FROM sbtest1 WHERE id >= 100 ORDER BY id LIMIT 10",
                  "SELECT * FROM sbtest1 WHERE id >= 200 ORDER BY id LIMIT 10"]
    c = sqlops.Classifier(SCHEMAS)
    for sql in statements * 2:
        assert c.classify(sql, "sbtest")[0] == sqlops.Classifier(SCHEMAS).classify(sql, "sbtest")[0], sql
    assert len(c.shapes) >= 4


def test_index_ranges_and_writes_by_index_predicted(tmp_path):
    """INDEX_RANGE (a secondary range, a non-unique equality, a composite key's prefix) and a write
    found through an index reach the pages they should: the range's secondary leaves and the rows'
    clustered leaves; a wider range reads more; the write by index writes the row the lookup found."""
    from loadgen.analysis import tracegeometry, tracemodel

    def predict(statements: list[str]) -> dict:
        log = tmp_path / "g.log"
        log.write_text(LOG.split("261125 18:22:28")[0] + "261125 18:22:28\t     9 Connect\troot@h on shop using TCP\n"
                       + "".join(f"\t\t     9 Query\t{q}\n" for q in statements))
        out = tmp_path / "i.optrace"
        opcapture.run(log, "general", SCHEMAS, out)
        meta, _, _ = ot.read_header(out)
        tables = tracegeometry.offline_geometry(meta, {"*": 50_000}, {})
        for t in tables.values():  # the leading columns' values as the server would give them
            t["indexes"].get("created", {}).update(values=[1, 50_000], distinct=50_000)
            t["indexes"].get("org_created", {}).update(values=[1, 500], distinct=500)
            if "sku" in t["indexes"]:  # items: 10,000 orders of 5 lines
                t.update(values=[1, 10_000], distinct=10_000)
        return tracemodel.predict(out, tables, tracegeometry.pools_of([64 << 20], "mariadb", {}, 1000.0))

    narrow = predict(["SELECT * FROM users WHERE created BETWEEN 100 AND 199"])
    wide = predict(["SELECT * FROM users WHERE created BETWEEN 100 AND 4099"])
    assert narrow["operations_by_kind"] == {"range-secondary": 1}
    n, w = narrow["pools"][0]["tables"]["shop.users"], wide["pools"][0]["tables"]["shop.users"]
    assert 0 < n["indexes"]["created"] < w["indexes"]["created"]
    # 100 rows in a random order over ~333 leaves: ~86 leaves; 4,000 rows: nearly all of them
    assert 60 <= n["indexes"]["PRIMARY"] <= 110 and w["indexes"]["PRIMARY"] > 3 * n["indexes"]["PRIMARY"]
    # a non-unique equality of a composite index: 100 entries a value (50,000 rows / 500 values)
    org = predict(["SELECT * FROM users WHERE org = 7"])
    assert org["operations_by_kind"] == {"range-secondary": 1} and org["pools"][0]["tables"]["shop.users"][
        "indexes"]["PRIMARY"] > 50
    # a composite primary key's prefix: a range of the clustered index (5 rows a value: one or two leaves)
    items = predict(["SELECT * FROM items WHERE order_id = 77"])
    assert items["operations_by_kind"] == {"range": 1}
    assert items["pools"][0]["tables"]["shop.items"]["indexes"]["PRIMARY"] <= 2 + 3
    # a write by a unique secondary key: the index's lookup and the row's leaf, written
    upd = predict(["UPDATE users SET org = 3 WHERE email = 'a@b'"])
    assert upd["operations_by_kind"] == {"read-secondary": 1, "update": 1}
    assert upd["pools"][0]["tables"]["shop.users"]["indexes"]["org_created"] > 0  # the index its column is in


def _joins(plan):
    """joinops.Joins over SCHEMAS with an EXPLAIN that answers `plan` (steps or a reason) and
    records what it was asked: the classification's own logic (the server's EXPLAIN is exercised
    in tests/integration/test_capture_app.py on MariaDB and MySQL)."""
    from loadgen.workload import joinops

    asked = []

    def explain(sql, schema):
        asked.append(sql)
        return plan(sql) if callable(plan) else plan

    return joinops.Joins(sqlops.Classifier(SCHEMAS), explain), asked


def _join(j, sql, schema="shop"):
    masked, strings = sqltext.mask(sql)
    return j.classify(sql, masked, strings, schema, sqltext.digest(masked))


def test_joins_from_explain():
    from loadgen.workload.joinops import Step

    plan = [Step("u", "const", "PRIMARY", 1.0, 1.0), Step("i", "ref", "PRIMARY", 5.0, 5.0)]
    j, asked = _joins(plan)
    r = _join(j, "SELECT u.email, i.qty FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 42")
    assert r.reason is None
    # the driving table's own condition; one lookup of the inner key per driving row, at a hashed row
    assert [(o.table, o.kind, o.index, o.lo) for o in r.ops][0] == ("shop.users", ot.POINT, "PRIMARY", 42)
    assert [(o.table, o.kind, o.index, o.flags) for o in r.ops[1:]] == [("shop.items", ot.INDEX_RANGE, "PRIMARY",
                                                                         ot.HASHED)]
    # cached per shape: another key, no second EXPLAIN; a different inner key each statement
    r2 = _join(j, "SELECT u.email, i.qty FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 43")
    assert len(asked) == 1 and r2.ops[0].lo == 43 and r2.ops[1].lo != r.ops[1].lo
    # a driving IN list of three: three inner lookups; an inner ALL (hash join): one scan of it
    j, _ = _joins([Step("u", "range", "PRIMARY", 3.0, 3.0), Step("i", "ALL", None, 900.0, 900.0)])
    r = _join(j, "SELECT * FROM users u, items i WHERE u.id IN (1, 2, 3) AND i.sku = u.org")
    assert [(o.kind, o.table) for o in r.ops] == [(ot.POINT, "shop.users")] * 3 + [(ot.SCAN, "shop.items")]


def test_joins_that_cannot_be_modelled_say_why_and_never_reach_the_server():
    from loadgen.workload.joinops import Step

    j, asked = _joins([Step("u", "const", "PRIMARY", 1.0, 1.0)])
    for sql, reason in [
        ("SELECT * FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 1; DROP TABLE users", "other_statement"),
        ("SELECT * FROM users u JOIN `items``; DROP TABLE x` i ON 1 WHERE u.id = 1", "other_statement"),
        ("SELECT * FROM users u JOIN `items`` OR 1=1 --` i ON 1 WHERE u.id = 1", "join"),  # not taken apart
        ("SELECT * FROM users u JOIN (SELECT * FROM items) i ON i.order_id = u.id", "subquery"),
        ("SELECT * FROM users u JOIN mysql.user m ON m.User = u.email", "system_table"),
        ("SELECT * FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 1 OR u.id = 2", "complex_where"),
    ]:
        assert _join(j, sql).reason == reason, sql
    assert asked == [], asked
    # without a server: counted as needing EXPLAIN
    from loadgen.workload import joinops

    none = joinops.Joins(sqlops.Classifier(SCHEMAS), None)
    assert _join(none, "SELECT * FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 1").reason == \
        "needs_explain"
    # a plan of keys that match nothing is asked again for the next statement of the shape
    j, asked = _joins(lambda sql: "explain_empty" if "= 1" in sql else [Step("u", "const", "PRIMARY", 1.0, 1.0),
                                                                       Step("i", "ref", "PRIMARY", 3.0, 3.0)])
    assert _join(j, "SELECT * FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 1").reason == \
        "explain_empty"
    assert _join(j, "SELECT * FROM users u JOIN items i ON i.order_id = u.id WHERE u.id = 2").reason is None
    assert len(asked) == 2


def test_a_statement_that_calls_a_function_is_never_explained():
    """EXPLAIN runs a DETERMINISTIC stored function while it plans: a log's text that calls anything
    but SQL words and side-effect-free built-ins is not sent (joinops.calls_function)."""
    from loadgen.workload.joinops import calls_function

    for sql in ["SELECT * FROM a JOIN b ON a.b = b.id WHERE a.id = SLEEP(3)",
                "SELECT * FROM a JOIN b ON a.b = b.id WHERE a.id = shop.slow()",
                "SELECT * FROM a JOIN b ON a.b = b.id WHERE a.id = slow ()",
                "SELECT * FROM a JOIN b ON a.b = b.id WHERE a.id = `slow`()",
                "SELECT BENCHMARK(1000000, MD5('x')) FROM a JOIN b ON a.b = b.id",
                "SELECT * FROM a JOIN b ON a.b = b.id WHERE a.id = GET_LOCK('x', 10)"]:
        assert calls_function(sql), sql
    for sql in ["SELECT o.total, i.qty FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = 7",
                "SELECT COUNT(*), SUM(i.qty) FROM a JOIN b USING (id) WHERE a.x IN (1, 2)",
                "SELECT * FROM a JOIN b ON a.b = b.id WHERE a.n = 'sleep(3)' "
                "AND a.d > DATE_SUB(NOW(), INTERVAL 1 DAY)"]:
        assert not calls_function(sql), sql


def test_slow_log_rows_examined_are_counted(tmp_path):
    log = tmp_path / "slow.log"
    log.write_text("# Time: 2026-11-29T01:00:00\n# User@Host: app[app] @ localhost []\n# Schema: sbtest\n"
                   "# Query_time: 0.001  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 7\n"
                   "SET timestamp=1764378000;\nSELECT c FROM sbtest1 WHERE id=5;\n"
                   "# Query_time: 0.001  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 93\n"
                   "SET timestamp=1764378001;\nSELECT * FROM sbtest1 WHERE c = 'x' OR pad = 'y';\n")
    cap = opcapture.run(log, "slow", SCHEMAS, tmp_path / "s.optrace")
    assert (cap.modelled, cap.rows_examined, cap.rows_examined_modelled) == (1, 100, 7)
    assert cap.rows_modelled_pct == 7.0


def test_several_usable_indexes_take_the_servers_choice(tmp_path):
    """A SELECT whose conditions two indexes could serve: the classifier's order without a server,
    EXPLAIN's key (or its full scan) with one; one EXPLAIN per shape."""
    from loadgen.workload.joinops import Step

    sql = "SELECT id FROM users WHERE org = 7 AND created BETWEEN 10 AND 20"
    r = classify(sql, None)
    assert r.choices == 2 and [(o.kind, o.index) for o in r.ops] == [(ot.INDEX_RANGE, "org_created")]
    assert [(o.kind, o.index, o.lo, o.hi) for o in sqlops.Classifier(SCHEMAS).classify(sql, None, "created")[0].ops] \
        == [(ot.INDEX_RANGE, "created", 10, 20)]
    for step, want in [(Step("users", "range", "created", 11.0, 11.0), [(ot.INDEX_RANGE, "created")]),
                       (Step("users", "ALL", None, 50.0, 50.0), [(ot.SCAN, "PRIMARY")])]:
        log = tmp_path / "g.log"
        log.write_text(LOG.split("261125 18:22:28")[0] + "261125 18:22:28\t     9 Connect\troot@h on shop using TCP\n"
                       + f"\t\t     9 Query\t{sql}\n\t\t     9 Query\t{sql.replace('7', '8')}\n")
        asked = []
        out = tmp_path / "c.optrace"
        opcapture.run(log, "general", SCHEMAS, out, lambda q, s, step=step, asked=asked: asked.append(q) or [step])
        a = np.concatenate(list(ot.chunks(out)))
        meta, _, _ = ot.read_header(out)
        got = [(int(k), meta["trees"][int(t)]["index"]) for k, t in zip(a["kind"], a["tree"])]
        assert got == want * 2 and len(asked) == 1, (got, asked)


def test_captured_transactions_take_the_mix_models_undo_side(tmp_path, monkeypatch):
    """A captured BEGIN..COMMIT's writes share one rollback segment, numbered among the transactions
    that write (an empty or read-only one takes none: the same prediction with them between), and
    the undo side is the mix model's (MySQL: purge's truncation passes over its undo tablespaces'
    and ibtmp1's segment headers, on the trace's clock)."""
    from loadgen.analysis import tracegeometry, tracemodel
    from loadgen.analysis import undomodel as um

    def predict(flavor: str, empty_between: bool) -> dict:
        lines = [LOG.split("\t\t     7 Prepare")[0]]
        for i in range(600):
            if empty_between:
                lines.append("\t\t     7 Query\tBEGIN\n\t\t     7 Query\tCOMMIT\n")
            k = 1 + (i * 7919) % 20_000
            lines.append(f"\t\t     7 Query\tBEGIN\n\t\t     7 Query\tUPDATE sbtest1 SET c='x' WHERE id={k}\n"
                         f"\t\t     7 Query\tDELETE FROM sbtest1 WHERE id={k + 1}\n"
                         f"\t\t     7 Query\tINSERT INTO sbtest1 (id, k, c, pad) VALUES ({k + 1}, 1, 'a', 'b')\n"
                         "\t\t     7 Query\tCOMMIT\n")
        log = tmp_path / "rw.log"
        log.write_text("".join(lines))
        out = tmp_path / "rw.optrace"
        opcapture.run(log, "general", SCHEMAS, out)
        meta, _, _ = ot.read_header(out)
        widths = {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}}
        tables = tracegeometry.offline_geometry(meta, {"*": 20_000}, widths)
        return tracemodel.predict(out, tables, tracegeometry.pools_of([4 << 20], flavor, {}, 1000.0), flavor)

    maria, mysql = predict("mariadb", False), predict("mysql", False)
    assert maria["operations_by_kind"] == {"update": 600, "delete": 600, "insert": 600}
    assert predict("mariadb", True)["pools"] == maria["pools"]
    for doc in (maria, mysql):
        p = doc["pools"][0]
        assert p["system_pages_read"] > 0 and p["pages_read"] == p["tables"]["sbtest.sbtest1"]["pages_read"] + p[
            "system_pages_read"]
    # each of MySQL's passes reads its 256 + 128 headers again in a 256-page pool: ten times the
    # passes (1,800 statements at 1,000/s, 600 transactions), at least 128 pages more a pass
    # an update and a delete a transaction that purge takes (the insert's log is freed at commit)
    passes = int(1_800 // um.sweep_ops_of("mysql", 1000.0, 600 / 1_800, 2.0))
    monkeypatch.setitem(um.TRUNCATE_BATCHES, "mysql", um.TRUNCATE_BATCHES["mysql"] // 10)
    more = predict("mysql", False)["pools"][0]["system_pages_read"]
    assert passes >= 1 and more >= mysql["pools"][0]["system_pages_read"] + 8 * passes * um.TEMP_RSEGS["mysql"]


def test_purge_follows_the_commits_of_transactions_with_several_updates_or_deletes():
    """MySQL's purge batches a commit (undomodel.PURGE_BATCHES_PER_MULTI_WRITE_TXN) where a captured
    transaction holds several writes purge takes: sysbench's two updates and a delete, not an
    application's single UPDATE or its inserts (their logs freed at commit)."""
    from loadgen.analysis import tracemodel as tm
    from loadgen.analysis import undomodel as um
    from loadgen.analysis.traceplace import Spec, Stream

    spec = Spec((Stream("u", "t", "update"), Stream("d", "t", "delete"), Stream("i", "t", "insert"),
                 Stream("r", "t", "read")), ())
    one = np.ones(7, np.int64)
    # transactions 0 and 1: update, update, delete, insert; transaction 2: two inserts; reads between
    sysbench = [(np.array([3, 0, 0, 1, 2, 3, 0]), one, one, np.array([0, 0, 0, 0, 0, 0, 1])),
                (np.array([0, 1, 2, 2, 2, 3, 3]), one, one, np.array([1, 1, 1, 2, 2, 0, 0]))]
    assert tm._purged_writes_per_txn(sysbench, spec) == 3.0
    shop = [(np.array([0, 3, 0, 2, 2, 0]), one[:6], one[:6], np.array([0, 0, 1, 2, 2, 3]))]
    assert tm._purged_writes_per_txn(shop, spec) == 1.0
    multi, single = (um.sweep_ops_of("mysql", 1800.0, 1 / 18, w) for w in (3.0, 1.0))
    assert multi < single  # more batches a second: passes closer together


def test_predict_with_a_list_of_pools_and_no_trace_says_where_the_list_goes():
    """README's `predict --trace ... --pool 1G,2G,4G` takes a list; a single order's predict takes
    one size, and the list goes to --curve (it said only "is not a size")."""
    from ..conftest import run_loadgen

    res = run_loadgen("predict", "--variation", "B", "--rows", "60k", "--pool", "7M,8M,9M")
    assert res.returncode == 2 and "one size here" in res.stderr and "--curve 7M,8M,9M" in res.stderr, res.stderr


def test_a_link_planted_at_a_trace_temporary_name_is_not_written_through(tmp_path):
    """The writer's temporary files were `.NAME.PID.body` and `.NAME.PID.tmp` beside the trace, opened
    with a plain open(): in a shared directory another user's symlink there redirected a root run's
    write into any file. They are mkstemp's now (O_EXCL), and the trace keeps the umask's mode."""
    out = tmp_path / "t.optrace"
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    for suffix in ("body", "tmp"):
        (tmp_path / f".{out.name}.{os.getpid()}.{suffix}").symlink_to(victim)
    w = ot.Writer(out)
    w.add(ot.POINT, w.tree("db.t", "PRIMARY"), 5)
    assert w.close({}) == 1
    assert victim.read_text() == "keep me\n"
    meta, records, _ = ot.read_header(out)
    assert meta["trees"] == [{"table": "db.t", "index": "PRIMARY"}] and records == 1
    assert out.stat().st_mode & 0o777 == 0o644 & ~process_umask()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith((".body", ".tmp"))) == sorted(
        f".{out.name}.{os.getpid()}.{s}" for s in ("body", "tmp"))  # only the planted links: none left


def test_a_link_planted_at_a_key_trace_temporary_name_is_not_written_through(tmp_path):
    """The key trace (workload/trace.py write) had the same predictable `.NAME.PID.tmp`."""
    from loadgen.workload import trace

    out = tmp_path / "k.trace"
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (tmp_path / f".{out.name}.{os.getpid()}.tmp").symlink_to(victim)
    assert trace.write(out, [3, 1, 2]) == 3
    assert victim.read_text() == "keep me\n"
    assert out.stat().st_mode & 0o777 == 0o644 & ~process_umask()


def test_the_logs_own_rate_under_a_second_too():
    """docs/capture.md "MySQL at 16M again": MySQL's general log stamps microseconds, so a log of less
    than a second is a rate (sysbench's 2,000 point selects spanned 0.82-1.00 s, and the 15,000 q/s
    taken instead put the model's page-cleaner batch after the run); a span of 0 (MariaDB's whole
    seconds, a run inside one) or no statement on a table is none: --qps then."""
    from loadgen.cli.tracepredict import log_rate

    assert log_rate({"span_s": 0.8413, "statements": 2006, "no_table": 6}) == pytest.approx(2000 / 0.8413)
    assert log_rate({"span_s": 12.5, "statements": 25_000, "no_table": 0}) == 2000.0
    assert log_rate({"span_s": 2.0, "statements": 5, "no_table": 1}) == 2.0
    for none in ({"span_s": 0.0, "statements": 9}, {"span_s": None, "statements": 9}, {"statements": 9},
                 {"span_s": 0.5, "statements": 3, "no_table": 3}, {"span_s": -1.0, "statements": 9},
                 # a hand-made or damaged header (the trace is the user's file): no rate, no traceback
                 {"span_s": "abc", "statements": 9}, {"span_s": 1.0, "statements": "x"},
                 {"span_s": [1], "statements": 9}, {"span_s": 5e-324, "statements": 9},
                 {"span_s": float("nan"), "statements": 9}, {"span_s": 1.0, "statements": 10**400}):
        assert log_rate(none) is None, none

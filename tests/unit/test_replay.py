"""The replay of an op trace (loadgen/runner/replay.py) without a server: the sequence in the recorded
order with its transactions, what it cannot run counted by reason, and hostile traces refused
with one line (exit 2) before anything starts."""
from __future__ import annotations

import numpy as np
import pytest

from loadgen.analysis.tracemodel import TracePlan
from loadgen.runner import replay
from loadgen.errors import UsageError
from loadgen.runner.mixseed import IndexInfo, TableInfo
from loadgen.workload import opcapture, optrace as ot

from ..conftest import run_loadgen
from .test_opcapture import LOG, SCHEMAS

ROWS = 10_000


def _infos() -> dict:
    return {"sbtest.sbtest1": TableInfo(
        name="sbtest.sbtest1", database="sbtest", table="sbtest1", rows=ROWS, key_column="id", key_offset=0,
        existing=True, leaf_pages=140, height=2, columns={"id": "INT", "k": "INT", "c": "CHAR", "pad": "CHAR"},
        column_lengths={"c": 120, "pad": 60}, primary_key=["id"], indexes={"k_1": IndexInfo("k_1", ["k"], 20)})}


def _geometry() -> dict:
    return {"sbtest.sbtest1": {"rows": ROWS, "leaf_pages": 140, "height": 2, "key_offset": 0,
                               "indexes": {"k_1": {"leaf_pages": 20, "height": 2, "columns": ["k"]}}}}


def _trace(tmp_path, text: str = LOG):
    log = tmp_path / "general.log"
    log.write_text(text)
    out = tmp_path / "t.optrace"
    opcapture.run(log, "general", SCHEMAS, out)
    return out


def _ops(seq) -> list[tuple[str, int]]:
    return [(seq.spec.streams[s].op, int(k)) for s, k in zip(seq.stream, seq.key)]


def test_the_sequence_is_the_recorded_order_with_its_transaction(tmp_path):
    out = _trace(tmp_path)
    meta, kinds = replay.read_trace_kinds(out)
    assert kinds == {"point": 1, "update": 1, "delete": 1, "range": 1, "insert": 1} and replay.writes_of(kinds) == 3
    seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t")
    # the point, then BEGIN, the update and the delete of one transaction, COMMIT; the range; the
    # AUTO_INCREMENT insert (a transaction of its own: no BEGIN) past the table's last key
    assert _ops(seq) == [("read", 2423), ("begin", 1), ("update", 5), ("delete", 6), ("commit", 1), ("range", 1),
                         ("insert", ROWS + 1)]
    assert seq.transactions == 1 and seq.cut_transactions == 0 and not seq.not_replayed
    assert seq.length[seq.stream == next(i for i, s in enumerate(seq.spec.streams) if s.op == "range")][0] == 10
    update = next(s for s in seq.spec.streams if s.op == "update")
    assert update.column == "k"  # k=k+1 set k_1's column: the replay sets it too
    assert [st.sql for st in seq.plans[next(i for i, s in enumerate(seq.spec.streams) if s.op == "begin")]] == \
        ["BEGIN"]
    assert abs(sum(s.share for s in seq.spec.streams) - 1.0) < 1e-9
    assert sum(len(c) for c in seq.chunks()) == seq.operations == seq.spec.operations == 7


def test_an_update_of_no_index_sets_a_column_in_none(tmp_path):
    text = LOG.replace("UPDATE sbtest1 SET k=k+1 WHERE id=5", "UPDATE sbtest1 SET c='x' WHERE id=5")
    out = _trace(tmp_path, text)
    meta, _ = replay.read_trace_kinds(out)
    seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t")
    assert next(s for s in seq.spec.streams if s.op == "update").column == "c"


def test_interleaved_transactions_are_cut_and_counted(tmp_path):
    """Two sessions' transactions whose writes interleave: on one connection each run of one
    transaction's writes is its own BEGIN..COMMIT, and the cut is counted."""
    text = LOG + ("\t\t     9 Query\tBEGIN\n\t\t     10 Query\tBEGIN\n"
                  "\t\t     9 Query\tUPDATE sbtest.sbtest1 SET c='a' WHERE id=20\n"
                  "\t\t     10 Query\tUPDATE sbtest.sbtest1 SET c='a' WHERE id=30\n"
                  "\t\t     9 Query\tUPDATE sbtest.sbtest1 SET c='b' WHERE id=21\n"
                  "\t\t     9 Query\tCOMMIT\n\t\t     10 Query\tDELETE FROM sbtest.sbtest1 WHERE id=31\n"
                  "\t\t     10 Query\tCOMMIT\n")
    out = _trace(tmp_path, text)
    meta, _ = replay.read_trace_kinds(out)
    seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t")
    assert _ops(seq)[-12:] == [("begin", 1), ("update", 20), ("commit", 1), ("begin", 1), ("update", 30),
                               ("commit", 1), ("begin", 1), ("update", 21), ("commit", 1), ("begin", 1),
                               ("delete", 31), ("commit", 1)]
    ops = _ops(seq)
    assert ops.count(("begin", 1)) == ops.count(("commit", 1)) == seq.transactions == 5
    assert seq.cut_transactions == 2
    # every BEGIN is closed before the next one
    depth = 0
    for op, _ in ops:
        depth += {"begin": 1, "commit": -1}.get(op, 0)
        assert depth in (0, 1)
    assert depth == 0


def test_what_cannot_be_replayed_is_counted_by_reason(tmp_path):
    """A key outside the table (not placed by the model either) and an index the table does not
    have are named with their counts, never dropped silently."""
    text = LOG + "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE id=999999\n"
    out = _trace(tmp_path, text)
    meta, _ = replay.read_trace_kinds(out)
    seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t")
    assert seq.not_replayed == {"outside the table's keys (not placed by the model either)": 1}
    infos = _infos()
    infos["sbtest.sbtest1"].columns = {"id": "INT", "k": "INT"}  # every column indexed: no update of c
    text = LOG.replace("UPDATE sbtest1 SET k=k+1 WHERE id=5", "UPDATE sbtest1 SET c='x' WHERE id=5")
    out = _trace(tmp_path, text)
    meta, _ = replay.read_trace_kinds(out)
    seq = replay.build(out, TracePlan(meta, _geometry()), infos, "trace t")
    [(why, n)] = seq.not_replayed.items()
    assert n == 1 and "update" in why and "every column is in an index" in why
    assert "update" not in [s.op for s in seq.spec.streams]


def test_hostile_traces_are_one_line_exit_2_before_anything_starts(tmp_path):
    """Malformed, damaged, 10 GB (a sparse file: refused by its size, never read), writes on a
    --dsn server without --allow-writes: one line, exit 2; the --dsn is never dialled (port 9
    answers nothing)."""
    good = _trace(tmp_path)
    data = good.read_bytes()
    cases = {}
    (tmp_path / "garbage.optrace").write_bytes(ot.MAGIC + b"\xff" * 200)
    cases["garbage.optrace"] = "op trace"
    (tmp_path / "cut.optrace").write_bytes(data[:-7])
    cases["cut.optrace"] = "truncated"
    kind = bytearray(data)
    kind[len(data) - ot.RECORD.itemsize] = 99  # the last record's kind: none the format has
    (tmp_path / "kind.optrace").write_bytes(bytes(kind))
    cases["kind.optrace"] = "kind"
    with open(tmp_path / "huge.optrace", "wb") as f:
        f.write(data[:64])
        f.truncate(10 << 30)
    cases["huge.optrace"] = "10.0 GiB"
    dsn = ["--server", "dsn", "--dsn", "mysql://loadgen@127.0.0.1:9/"]
    for name, said in cases.items():
        res = run_loadgen("run", *dsn, "--trace", str(tmp_path / name), "--out", str(tmp_path / "r.json"))
        assert res.returncode == 2 and said in res.stderr, (name, res.stderr)
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    res = run_loadgen("run", *dsn, "--trace", str(good), "--out", str(tmp_path / "r.json"))
    assert res.returncode == 2 and "--allow-writes" in res.stderr and "3 inserts" in res.stderr, res.stderr
    res = run_loadgen("run", *dsn, "--trace", str(good), "--order", "random")
    assert res.returncode == 2 and "--order does not go with an op trace" in res.stderr, res.stderr
    (tmp_path / "t.sql").write_text("CREATE TABLE t (id INT PRIMARY KEY);")
    res = run_loadgen("run", *dsn, "--trace", str(good), "--schema", str(tmp_path / "t.sql"))
    assert res.returncode == 2 and "loadgen predict --trace OPTRACE --schema" in res.stderr, res.stderr
    assert "seed --shape" in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    res = run_loadgen("run", "--variation", "A", "--allow-writes")
    assert res.returncode == 2 and "--allow-writes goes with --trace" in res.stderr, res.stderr
    assert not (tmp_path / "r.json").exists()


def test_the_size_caps_are_checked_before_the_records(tmp_path, monkeypatch):
    out = _trace(tmp_path)
    monkeypatch.setattr(replay, "MAX_REPLAY_OPS", 4)
    with pytest.raises(UsageError, match="holds 5 operations"):
        replay.read_trace_kinds(out)


def test_predict_trace_gives_each_table_its_interval(tmp_path):
    from loadgen.analysis import tracegeometry, tracemodel

    out = _trace(tmp_path)
    doc = tracemodel.predict(out, _geometry(), tracegeometry.pools_of([8 << 20], "mariadb", {}, 1000.0))
    t = doc["pools"][0]["tables"]["sbtest.sbtest1"]
    assert t["low"] <= t["pages_read"] <= t["high"] and t["low"] < t["high"]
    assert np.isfinite(t["low"])


def test_an_operation_the_replay_has_no_statement_for_is_counted(tmp_path, monkeypatch):
    """A kind the model places but the replay cannot run (a new capture kind) is named and
    counted with its operations, the rest replayed."""
    monkeypatch.setattr(replay, "REPLAYED_OPS", {k: v for k, v in replay.REPLAYED_OPS.items() if k != "range"})
    out = _trace(tmp_path)
    meta, _ = replay.read_trace_kinds(out)
    seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t")
    [(why, n)] = seq.not_replayed.items()
    assert n == 1 and "no statement for range" in why
    assert "range" not in [s.op for s in seq.spec.streams] and seq.operations == 6


def test_index_ranges_are_replayed_by_their_values_one_statement_per_form(tmp_path):
    """Index ranges (trace 1.1 kind 7) run on the captured values through the index the capture
    chose, each entry's row read (SELECT *): an equality, a range with its LIMIT read downwards,
    an open bound; the same form twice is one stream; a value that is only a hash, and a negative
    bound (the native driver binds unsigned integers), are counted."""
    text = LOG + ("\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE k = 77\n"
                  "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE k = 78\n"
                  "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE k BETWEEN 10 AND 50 ORDER BY k DESC LIMIT 5\n"
                  "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE k > 100 ORDER BY k LIMIT 3\n"
                  "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE k = 'x'\n"
                  "\t\t     8 Query\tSELECT c FROM sbtest.sbtest1 WHERE k BETWEEN -9 AND 4\n")
    out = _trace(tmp_path, text)
    meta, kinds = replay.read_trace_kinds(out)
    assert kinds["index-range"] == 6
    seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t")
    assert seq.not_replayed == {replay.NOT_AN_INTEGER: 1, "an index range with a negative bound": 1}
    ranges = [(i, s) for i, s in enumerate(seq.spec.streams) if s.op == "index-range"]
    assert len(ranges) == 3 and all(s.index == "k_1" for _, s in ranges)
    sql = {i: seq.plans[i][0] for i, _ in ranges}
    got = []
    for s, k, n in zip(seq.stream, seq.key, seq.length):
        if s in sql:
            got.append(sql[s].text(int(k), int(k + n - 1), 0))
    t = "SELECT * FROM `sbtest`.`sbtest1` FORCE INDEX (`k_1`) WHERE `k`"
    assert got == [f"{t} = 77", f"{t} = 78",
                   f"{t} BETWEEN 10 AND 50 ORDER BY `k` DESC LIMIT 5", f"{t} >= 101 ORDER BY `k` LIMIT 3"]
    assert seq.operations == 7 + 4 and abs(sum(s.share for s in seq.spec.streams) - 1.0) < 1e-9


def test_a_table_keyed_by_a_string_is_taken_for_a_trace_by_its_row_estimate(monkeypatch):
    """A captured server's table with a VARCHAR key (the trace holds its keys' hashes) is no longer
    refused by predict --trace / run --trace ('the key column k is VARCHAR' ... '--query'): its rows
    are the server's TABLE_ROWS, its keys placed by hash; an integer key still reads its key range."""
    from types import SimpleNamespace

    from loadgen.runner import mixseed
    from loadgen.seeding import usertable
    from loadgen.workload.mix import TableSpec

    def shape(key_type):
        return SimpleNamespace(primary_key=["k"], columns=[SimpleNamespace(name="k", type_name=key_type)])

    got = {}
    monkeypatch.setattr(mixseed.db, "query_value", lambda conn, sql, args=None: 1234)
    monkeypatch.setattr(mixseed, "_info",
                        lambda conn, t, database, shp, **kw: got.update(spec_rows=t.rows, **kw) or "info")
    monkeypatch.setattr(usertable, "check_existing", lambda conn, database, table: shape("VARCHAR"))
    spec = TableSpec(name="chat.meta", existing="chat.meta")
    assert mixseed.inspect_table(None, spec, hashed_keys=True) == "info"
    assert got == {"spec_rows": 1234, "rows": 1234, "seeded": False, "existing": True}

    def refused(conn, spec):
        raise UsageError("the key column k is VARCHAR, not an integer")

    monkeypatch.setattr(usertable, "inspect_existing", refused)
    with pytest.raises(UsageError, match="VARCHAR"):  # a single-table run still needs an integer key
        mixseed.inspect_table(None, spec)
    monkeypatch.setattr(usertable, "check_existing", lambda conn, database, table: shape("BIGINT"))
    with pytest.raises(UsageError, match="VARCHAR"):  # an integer key takes the key-range path as before
        mixseed.inspect_table(None, spec, hashed_keys=True)


def test_each_replay_stores_values_an_earlier_replay_of_the_trace_did_not(tmp_path):
    """A replay's update stored LPAD(op index): replayed again on the rows the last replay left, the
    same values, so the server changed nothing and wrote no undo log (MariaDB 10.11, 10k ycsb-a
    updates: the second and third replays read 7,501 and 7,895 pages of ibdata1, the first 25,352;
    predicted ~28.5k). Now a salt of the replay's own goes into each value; a mix (seeded again
    after it writes) keeps its values."""
    text = LOG.replace("UPDATE sbtest1 SET k=k+1 WHERE id=5", "UPDATE sbtest1 SET c='x' WHERE id=5")
    out = _trace(tmp_path, text)
    meta, _ = replay.read_trace_kinds(out)

    def update_text(salt: int) -> str:
        seq = replay.build(out, TracePlan(meta, _geometry()), _infos(), "trace t", salt)
        i = next(i for i, s in enumerate(seq.spec.streams) if s.op == "update")
        assert seq.summary().get("update_salt", 0) == salt
        [st] = seq.plans[i]
        return st.text(5, 5, 42)

    assert update_text(0) == "UPDATE `sbtest`.`sbtest1` SET `c` = LPAD(42, 120, '#') WHERE `id` = 5"
    assert update_text(7) == ("UPDATE `sbtest`.`sbtest1` SET `c` = LPAD(RIGHT(42 * 1000 + 7, 120), 120, '#') "
                              "WHERE `id` = 5")
    assert update_text(8) != update_text(7)  # the same op of another replay: another value
    assert all(1 <= replay.new_salt() <= 999 for _ in range(200))
    # a narrow string column keeps the salt: its rightmost characters (VARCHAR(8): 4 written)
    from loadgen.workload.statements import PARAM_OP, _update_expr

    narrow = _infos()["sbtest.sbtest1"]
    narrow.columns, narrow.column_lengths = {**narrow.columns, "v": "VARCHAR"}, {**narrow.column_lengths, "v": 8}
    assert _update_expr(narrow, "v", 7) == ("`v` = LPAD(RIGHT(? * 1000 + 7, 4), 4, '#')", (PARAM_OP,))
    assert _update_expr(narrow, "k", 7) == ("`k` = `k` + 1", ())  # an integer steps: it always changes
    # a YEAR takes the op modulo 40: shifted by the salt, not scaled (op * 1000 + 7 is 7 mod 40 for
    # every op: one value for the whole replay, a row's second update changing nothing)
    narrow.columns = {**narrow.columns, "y": "YEAR"}
    expr, _ = _update_expr(narrow, "y", 7)
    assert expr == "`y` = (1990 + (? + 7) % 40)"


def test_the_replay_is_predicted_from_the_operations_it_runs(tmp_path):
    """A trace whose string-keyed table (its keys hashes) the replay cannot run: the prediction
    beside the replay is of the trace less those operations (replayed_trace), not of the whole: the
    other table, without their pages in the pool, read 249 pages where the whole trace's prediction
    said 483 (MariaDB 10.11, 16M). A trace run whole is predicted from itself."""
    from loadgen.analysis.tracemodel import predict
    from loadgen.analysis.tracegeometry import pools_of

    w = ot.Writer(tmp_path / "t.optrace")
    ints, strs = w.tree("sbtest.sbtest1", "PRIMARY"), w.tree("chat.meta", "PRIMARY")
    for i in range(300):
        if i % 3:
            w.add(ot.POINT, ints, 1 + (i * 7919) % ROWS)
        else:
            w.add(ot.POINT, strs, (i * 2654435761) % 2 ** 62, flags=ot.HASHED)
    w.close({"tables": {"sbtest.sbtest1": {"primary_key": ["id"], "indexes": {"k_1": ["k"]}},
                        "chat.meta": {"primary_key": ["k"], "indexes": {}}}, "statements": 300})
    path = tmp_path / "t.optrace"
    infos = _infos()
    infos["chat.meta"] = TableInfo(name="chat.meta", database="chat", table="meta", rows=5_000, key_column="k",
                                   key_offset=0, existing=True, leaf_pages=50, height=2,
                                   columns={"k": "VARCHAR", "v": "INT"}, primary_key=["k"])
    geometry = {**_geometry(), "chat.meta": {"rows": 5_000, "leaf_pages": 50, "height": 2, "key_offset": 0,
                                             "indexes": {}}}
    meta, _ = replay.read_trace_kinds(path)
    seq = replay.build(path, TracePlan(meta, geometry), infos, "trace t")
    assert sum(seq.not_replayed.values()) == 100 and seq.operations == 200
    assert seq.summary()["predicted"] == "the replayed operations"
    out = tmp_path / "r.json"
    got = replay.replayed_trace(seq, meta, path, out)
    assert got != path and got.parent == tmp_path
    assert replay.read_trace_kinds(got)[1] == {"point": 200}
    pools = pools_of([16 << 20], "mariadb", {}, 1000.0)
    whole, replayed = (predict(p, geometry, pools, "mariadb")["pools"][0]["tables"] for p in (path, got))
    assert replayed["sbtest.sbtest1"]["pages_read"] > 0, replayed
    assert replayed.get("chat.meta", {}).get("pages_read", 0) == 0, replayed
    assert whole["chat.meta"]["pages_read"] > 0
    # the integer-keyed table alone: the records it ran, in their order
    assert np.array_equal(np.concatenate(list(ot.chunks(got)))["lo"],
                          [1 + (i * 7919) % ROWS for i in range(300) if i % 3])
    seq = replay.build(got, TracePlan(meta, geometry), infos, "trace t")
    assert seq.replayed_records is None and replay.replayed_trace(seq, meta, got, out) == got

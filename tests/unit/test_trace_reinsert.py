"""A captured insert of a key a delete just left delete-marked (sysbench-oltp-rw's delete and insert of
one id) on MySQL: an update of that record, its log in the history as the delete's is
(undomodel.REINSERT_HISTORY; tracetxns.reinserted, tracemodel._reinserts), where an insert of a new
key inside the table has its log freed at commit."""
from __future__ import annotations

import numpy as np

from loadgen.analysis import tracemodel, undomodel
from loadgen.analysis.tracetxns import reinserted

from .test_trace_changebuf import _predict, _trace

# streams: 0 a delete of table 0, 1 an insert inside table 0, 2 a delete of table 1, 3 an insert
# inside table 1, 4 a read (neither)
TABLE_OF = np.array([0, 0, 1, 1, -1])
IS_INSERT = np.array([False, True, False, True, False])


def _chunk(stream, key, txn):
    stream = np.array(stream, np.int64)
    return stream, np.array(key, np.int64), np.ones(len(stream), np.int64), np.array(txn, np.int64)


def test_an_insert_is_a_reinsert_where_its_key_was_deleted_in_its_table_and_not_yet_purged():
    chunks = [_chunk([0, 4, 1, 1, 2, 1], [5, 5, 5, 6, 7, 7], [1, 0, 1, 2, 3, 4]),
              # the next chunk: table 1's key 7 deleted at the last one's op 4 (not a table 0's key 7),
              # table 1's key 9 deleted long before in another transaction (purged) and again just before
              _chunk([3, 2] + [4] * 20 + [3, 2, 3], [7, 9] + [0] * 20 + [9, 9, 9], [5, 6] + [0] * 20 + [7, 8, 8])]
    got = reinserted(chunks, TABLE_OF, IS_INSERT, lag_ops=10)
    assert got[0].tolist() == [False, False, True, False, False, False]
    assert got[1].tolist() == [True, False] + [False] * 20 + [False, False, True]


def test_mysql_logs_an_autocommit_reinsert_in_the_history_and_mariadb_is_unchanged(tmp_path, monkeypatch):
    """_trace's deletes and inserts are autocommit statements: each re-insert a transaction of its own, whose
    log (its rollback segment's header written at commit, purge reading the log back) a plain insert
    would not leave."""
    out = _trace(tmp_path)
    on = {flavor: _predict(out, flavor, None) for flavor in ("mysql", "mariadb")}
    monkeypatch.setattr(undomodel, "REINSERT_HISTORY", False)
    off = {flavor: _predict(out, flavor, None) for flavor in ("mysql", "mariadb")}
    assert on["mariadb"] == off["mariadb"]  # MariaDB's inserts keep theirs in the history already
    assert on["mysql"]["system_pages_read"] > 1.1 * off["mysql"]["system_pages_read"], (on, off)
    # the trees' work is the same; their pages read a little more (the undo pages held in the pool)
    assert on["mysql"]["read_requests"] - off["mysql"]["read_requests"] < 0.1 * off["mysql"]["read_requests"]


def test_the_reinserts_move_to_their_table_s_own_stream(tmp_path):
    from loadgen.analysis import tracegeometry
    from loadgen.analysis.traceplace import INSERT_AT, REINSERT_AT, TracePlan
    from loadgen.analysis.tracetxns import dense_txns
    from loadgen.workload import optrace as ot

    out = _trace(tmp_path)
    meta, _, _ = ot.read_header(out)
    tables = tracegeometry.offline_geometry(meta, {"*": 20_000}, {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}})
    plan = TracePlan(meta, tables)
    chunks, _ = dense_txns([plan.map(a) for a in ot.chunks(out)])
    chunks = tracemodel._reinserts(chunks, plan)
    ops = [plan.streams[i].op for i in np.concatenate([c[0] for c in chunks])]
    assert ops.count(REINSERT_AT) == 1_500 and INSERT_AT not in ops

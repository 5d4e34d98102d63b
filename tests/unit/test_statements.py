"""Each stream's SQL (loadgen/workload/statements.py) from its op and its table as the server
made it, and the check of a stream against those columns (runner/mix.py plan_statements)."""
from __future__ import annotations

import pytest

from loadgen.errors import UsageError
from loadgen.runner.mix import plan_statements
from loadgen.seeding.mixseed import IndexInfo, TableInfo
from loadgen.workload import presets
from loadgen.workload.mixfile import parse
from loadgen.workload.statements import PARAM_END, PARAM_KEY, PARAM_OP, PARAM_RAW, build


def sbtest(**over) -> TableInfo:
    t = TableInfo(name="sbtest1", database="chat", table="sbtest1", rows=1000, key_column="id",
                  columns={"id": "INT", "k": "INT", "c": "CHAR", "pad": "CHAR"},
                  column_lengths={"c": 120, "pad": 60}, defaults=["k", "c", "pad"], primary_key=["id"],
                  indexes={"k_1": IndexInfo("k_1", ["k"])})
    for k, v in over.items():
        setattr(t, k, v)
    return t


def test_the_sysbench_preset_runs_sysbenchs_statements():
    spec = presets.load("sysbench-oltp-rw", rows=1000)
    plans = plan_statements(spec, {"sbtest1": sbtest()})
    sql = {spec.streams[i].name: [(st.sql, st.params) for st in plan] for i, plan in plans.items()}
    t = "`chat`.`sbtest1`"
    assert sql["point_selects"] == [(f"SELECT `c` FROM {t} WHERE `id` = ?", (PARAM_KEY,))]
    between = f"FROM {t} WHERE `id` BETWEEN ? AND ?"
    assert sql["simple_ranges"] == [(f"SELECT `c` {between}", (PARAM_KEY, PARAM_END))]
    assert sql["sum_ranges"][0][0] == f"SELECT SUM(`k`) {between}"
    assert sql["order_ranges"][0][0] == f"SELECT `c` {between} ORDER BY `c`"
    assert sql["distinct_ranges"][0][0] == f"SELECT DISTINCT `c` {between} ORDER BY `c`"
    assert sql["index_updates"] == [(f"UPDATE {t} SET `k` = `k` + 1 WHERE `id` = ?", (PARAM_KEY,))]
    # a new value per op, as wide as the CHAR column: the row keeps its size and really changes
    assert sql["non_index_updates"] == [(f"UPDATE {t} SET `c` = LPAD(?, 120, '#') WHERE `id` = ?",
                                         (PARAM_OP, PARAM_KEY))]
    (delete, _), (insert, params) = sql["delete_inserts"]
    assert delete == f"DELETE FROM {t} WHERE `id` = ?"
    assert insert.startswith(f"INSERT INTO {t} (`id`, `k`, `c`, `pad`) VALUES (?, ")
    assert params == (PARAM_KEY,) * 4


def test_text_of_a_statement():
    [update] = build(presets.load("ycsb-a", rows=10).streams[1],
                     TableInfo(name="usertable", database="chat", table="usertable", rows=10, key_column="ycsb_key",
                               columns={"ycsb_key": "BIGINT", "field0": "CHAR"}, column_lengths={"field0": 100},
                               primary_key=["ycsb_key"]))
    assert update.text(7, 7, 123) == "UPDATE `chat`.`usertable` SET `field0` = LPAD(123, 100, '#') WHERE `ycsb_key` = 7"


def test_inserts_leave_generated_and_defaulted_columns_they_cannot_make_to_the_server():
    table = TableInfo(name="t", database="d", table="t", rows=100, key_column="id",
                      columns={"id": "BIGINT", "v": "VARCHAR", "g": "INT", "b": "BIT", "when": "DATETIME"},
                      column_lengths={"v": 40}, nullable=["b"], generated=["g"], primary_key=["id"])
    insert_stream = presets.load("ycsb-d", rows=10).streams[1]
    assert insert_stream.op == "insert"
    [insert] = build(insert_stream, table)
    assert "`g`" not in insert.sql and "`b`" not in insert.sql
    assert "LPAD(?, 20, '#')" in insert.sql  # VARCHAR(40): the generator's mean length
    assert "FROM_UNIXTIME(" in insert.sql
    table.nullable = []
    with pytest.raises(UsageError, match="cannot make values of b"):
        build(insert_stream, table)


def test_an_existing_tables_secondary_lookup_spreads_keys_over_the_columns_values():
    table = sbtest(rows=20_000, key_offset=999, column_ranges={"k": [0, 499]}, existing=True)
    spec = parse("format = 1\noperations = 1\n[tables.sbtest1]\nexisting = 'x.sbtest1'\n[[streams]]\nname = 'r'\n"
                 "table = 'sbtest1'\nop = 'read-secondary'\ncolumn = 'k'\nshare = 1\n")
    [st] = build(spec.streams[0], table)
    assert st.params == (PARAM_RAW,)
    assert st.sql.endswith("WHERE `k` = (0 + ((? - 1) * 500) DIV 20000)")
    assert st.text(1020, 1020, 0, raw=21) == st.sql.replace("?", "21")


def test_the_servers_columns_are_checked_before_anything_is_measured():
    """What the schema file's text could not tell (a column the server made otherwise) is
    checked against the table the server reports, with the file's name in the one line."""
    spec = presets.load("sysbench-oltp-ro", rows=1000)
    with pytest.raises(UsageError,
                       match="preset sysbench-oltp-ro: stream 'point_selects': table sbtest1 has no column 'c'"):
        plan_statements(spec, {"sbtest1": sbtest(columns={"id": "INT", "k": "INT", "pad": "CHAR"})})
    spec = presets.load("sysbench-oltp-rw", rows=1000)
    with pytest.raises(UsageError, match="has no column 'k'"):
        plan_statements(spec, {"sbtest1": sbtest(columns={"id": "INT", "c": "CHAR", "pad": "CHAR"}, indexes={})})
    with pytest.raises(UsageError, match="is not an integer"):
        plan_statements(spec, {"sbtest1": sbtest(columns={"id": "VARCHAR", "k": "INT", "c": "CHAR", "pad": "CHAR"})})

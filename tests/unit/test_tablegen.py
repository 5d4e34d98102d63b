"""The generic row generator: C and Python produce the same bytes; rows depend only on (seed, n)."""
from __future__ import annotations

import pytest

from loadgen.seeding import tablegen
from loadgen.errors import UsageError
from loadgen.seeding.tablegen import Column

EVERY_TYPE = [
    Column("tenant_id", "INT", unsigned=True),
    Column("id", "BIGINT", unsigned=True),
    Column("qty", "SMALLINT"),
    Column("price", "DECIMAL", precision=10, scale=2),
    Column("ratio", "DOUBLE"),
    Column("code", "CHAR", length=8),
    Column("title", "VARCHAR", length=120, nullable=True),
    Column("body", "TEXT", nullable=True),
    Column("created_at", "DATETIME"),
    Column("updated_at", "TIMESTAMP", nullable=True),
    Column("day", "DATE"),
    Column("at", "TIME"),
    Column("yr", "YEAR"),
    Column("doc", "JSON", nullable=True),
    Column("state", "ENUM", labels=("new", "paid", "shipped", "void")),
    Column("flags", "SET", labels=("a", "b", "c")),
    Column("total", "INT", generated=True),
]
PK = ["tenant_id", "id"]


def _native_or_skip():
    if tablegen._native() is None:
        pytest.skip("the C extension is not built")


def test_c_matches_python_byte_for_byte():
    _native_or_skip()
    plan = tablegen.plan(EVERY_TYPE, PK, rows=5000)
    pool = tablegen.text_pool(3)
    for first, last in [(1, 400), (777, 1300), (4990, 5000)]:
        assert tablegen.lines(plan, pool, 3, first, last) == tablegen.lines(plan, pool, 3, first, last, native=False)


def test_rows_are_a_function_of_seed_and_row_number():
    plan = tablegen.plan(EVERY_TYPE, PK, rows=1000)
    pool = tablegen.text_pool(1)
    whole = tablegen.lines(plan, pool, 1, 1, 300).split(b"\n")
    part = tablegen.lines(plan, pool, 1, 101, 300).split(b"\n")
    assert whole[100:] == part
    assert tablegen.lines(plan, tablegen.text_pool(2), 2, 1, 300) != tablegen.lines(plan, pool, 1, 1, 300)


def test_composite_key_in_key_order_and_generated_column_left_out():
    plan = tablegen.plan(EVERY_TYPE, PK, rows=100)
    assert "total" in plan.skipped and "total" not in plan.columns
    rows = [line.split(b"\t") for line in tablegen.lines(plan, tablegen.text_pool(1), 1, 1, 100).splitlines()]
    keys = [(int(r[0]), int(r[1])) for r in rows]
    assert keys == sorted(keys) and len(set(keys)) == 100
    assert keys[0] == (1, 1) and keys[tablegen.FANOUT] == (2, 1)
    nulls = sum(r[plan.columns.index("title")] == b"\\N" for r in rows)
    assert 0 < nulls < 40  # 10% expected


def test_varchar_lengths_fit_and_vary():
    plan = tablegen.plan([Column("id", "INT"), Column("s", "VARCHAR", length=30)], ["id"], rows=2000)
    values = [line.split(b"\t")[1] for line in tablegen.lines(plan, tablegen.text_pool(1), 1, 1, 2000).splitlines()]
    lengths = [len(v) for v in values]
    assert max(lengths) <= 30 and min(lengths) >= 1 and len(set(lengths)) > 10


def test_columns_loadgen_cannot_fill():
    with pytest.raises(UsageError, match="DEFAULT"):
        tablegen.plan([Column("id", "INT"), Column("shape", "GEOMETRY")], ["id"], rows=10)
    plan = tablegen.plan([Column("id", "INT"), Column("shape", "GEOMETRY", nullable=True)], ["id"], rows=10)
    assert plan.skipped == ["shape"]
    with pytest.raises(UsageError, match="cannot hold"):
        tablegen.plan([Column("id", "TINYINT")], ["id"], rows=1000)


def test_a_key_map_spreads_the_key_over_its_segments_with_both_ends_and_the_same_bytes_in_c():
    from array import array

    cols = [Column("id", "BIGINT"), Column("k", "INT"), Column("c", "VARCHAR", length=100)]
    plan = tablegen.plan(cols, ["id"], rows=1000)
    plan.words[7] = 1  # the key column takes its keys from the map
    plan.keymap = array("q", [1, 500, 10, 3000, 501, 1, 5000, 5000, 502, 499, -7, 9_000_000_000])
    pool = tablegen.text_pool(1)
    keys = [int(line.split(b"\t")[0]) for line in tablegen.lines(plan, pool, 1, 1, 1000, native=False).splitlines()]
    assert keys[0] == 10 and keys[499] == 3000 and keys[500] == 5000 and keys[501] == -7 and keys[-1] == 9_000_000_000
    assert all(a < b for a, b in zip(keys[:500], keys[1:500])) and len(set(keys)) == 1000
    if tablegen._native() is not None:
        for first, last in [(1, 1000), (480, 520), (999, 1000)]:
            assert tablegen.lines(plan, pool, 1, first, last) == tablegen.lines(plan, pool, 1, first, last,
                                                                               native=False)

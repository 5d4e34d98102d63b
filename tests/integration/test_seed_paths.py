"""The fast seeding path (rows generated in C, LOAD DATA LOCAL) against the plain one (the Python
generator, INSERT statements): the same table, byte for byte, on a real server."""
from __future__ import annotations

import pytest

from loadgen.seeding import chatrows
from loadgen import db
from loadgen.seeding.chatrows import chunk_lines
from loadgen.seeding.dataset import DatasetSpec, ensure

pytestmark = pytest.mark.mysqld

ROWS = 120_000  # three chunks, the last one partial


def _native_rowgen_or_skip():
    if chatrows.native_rowgen() is None:
        pytest.skip("loadgen._native has no rowgen_lines")


@pytest.mark.parametrize("first", [1, 50_001, 99_999_951])
def test_the_c_rows_are_the_python_rows(first):
    _native_rowgen_or_skip()
    assert chunk_lines(3, first, first + 49_999) == chunk_lines(3, first, first + 49_999, native=False)
    assert chunk_lines(3, first, first) == chunk_lines(3, first, first, native=False)


def test_fast_and_plain_seeding_give_the_same_table_checksum(local_server, monkeypatch):
    _native_rowgen_or_skip()
    server, _ = local_server
    fast = server.connect(local_infile=1)
    plain = server.connect(local_infile=0)  # no LOCAL INFILE: ensure() falls back to INSERTs
    try:
        ensure(fast, DatasetSpec(rows=ROWS, database="seed_fast"))
        monkeypatch.setattr(chatrows, "native_rowgen", lambda: None)  # the Python generator
        ensure(plain, DatasetSpec(rows=ROWS, database="seed_plain"))
        used = {name: dict((k, int(v)) for k, v in db.query_all(c, "SHOW SESSION STATUS WHERE Variable_name "
                                                                   "IN ('Com_load', 'Com_insert')"))
                for name, c in (("fast", fast), ("plain", plain))}
        sums = {name: db.query_all(fast, f"CHECKSUM TABLE `{name}`.message")[0][1]
                for name in ("seed_fast", "seed_plain")}
        counts = {name: db.query_value(fast, f"SELECT COUNT(*) FROM `{name}`.message")
                  for name in ("seed_fast", "seed_plain")}
    finally:
        for name in ("seed_fast", "seed_plain"):
            db.query_all(fast, f"DROP DATABASE IF EXISTS `{name}`")
        fast.close()
        plain.close()
    assert used["fast"]["Com_load"] >= 3  # one LOAD DATA LOCAL per chunk
    assert used["plain"]["Com_load"] <= 1 and used["plain"]["Com_insert"] >= ROWS // 1000  # refused once
    assert counts == {"seed_fast": ROWS, "seed_plain": ROWS}
    assert sums["seed_fast"] == sums["seed_plain"] and sums["seed_fast"]

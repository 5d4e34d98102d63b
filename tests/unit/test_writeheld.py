"""The pages MySQL's writes keep in use that no reference of the model names (pool.mysql_write_held_pages;
docs/capture.md, "Pages the model does not name"): the simulated LRU list that much shorter on MySQL
under writes, nowhere else."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from loadgen.analysis import mixmodel, pool, tracegeometry

MIXRUNS = Path(__file__).resolve().parents[2] / "docs" / "data" / "mixruns" / "mysql-9.7"


def test_mysql_under_writes_holds_three_pages_a_table_and_six_besides():
    mysql = tracegeometry.pools_of([48 << 20], "mysql", {}, 1000.0)[0][1]
    assert pool.under_writes(mysql).capacity_pages == mysql.capacity_pages - 9
    assert pool.under_writes(mysql, tables=2).capacity_pages == mysql.capacity_pages - 12  # sysbench's capture
    maria = tracegeometry.pools_of([48 << 20], "mariadb", {}, 1000.0)[0][1]
    assert pool.under_writes(maria, tables=2) == maria  # MariaDB's tables' pages 0-2 are references (ibdpages.py)


def test_the_held_pages_bring_a_stored_mysql_write_run_closer(monkeypatch):
    # the lead's sysbench-oltp-rw at 16M (1,005 q/s): the pool's whole reads -8.7% without them, -7.6% with
    # when they were added; with half of the page cleaner's last full doublewrite batch still in the list
    # (cleaner.c still_writing) -0.6% without them, +0.2% with
    run = json.loads(gzip.decompress((MIXRUNS / "lead-sysbench-oltp-rw-16M.json.gz").read_bytes()))
    measured = run["buffer_pool"]["pages_read"]
    held = mixmodel.predict(run)["pages_read"]
    monkeypatch.setattr(pool, "MYSQL_WRITE_HELD_FIXED", 0)
    monkeypatch.setattr(pool, "MYSQL_WRITE_HELD_PER_TABLE", 0)
    plain = mixmodel.predict(run)["pages_read"]
    assert plain < held and abs(held - measured) < abs(plain - measured), (plain, held, measured)

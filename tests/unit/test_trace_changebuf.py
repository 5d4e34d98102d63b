"""MySQL's change buffer in the captured-trace model (tracemodel.predict's buffers, tracesim.PoolFeed's
ibuf args; analysis/changebuf.py's rules): a captured change to a non-unique secondary index's leaf
not in the pool is buffered instead of read; none on MariaDB, a UNIQUE index or with the mode none."""
from __future__ import annotations

import json

from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.workload import opcapture, optrace as ot

from ..conftest import run_loadgen
from .test_opcapture import LOG, SCHEMAS

ROWS = 20_000
SQL = ("CREATE TABLE sbtest1 (id INT NOT NULL, k INT NOT NULL, c CHAR(120), pad CHAR(60), "
       "PRIMARY KEY (id), KEY k_1 (k));")


def _trace(tmp_path):
    """sysbench's writes: updates of k (k_1's entries moved), deletes and inserts of a row, 1,500 each,
    at keys spread over the table."""
    lines = [LOG.split("\t\t     7 Prepare")[0]]
    for i in range(1_500):
        k = 1 + (i * 7919) % (ROWS - 1)
        lines.append(f"\t\t     7 Query\tUPDATE sbtest1 SET k=k+1 WHERE id={k}\n"
                     f"\t\t     7 Query\tDELETE FROM sbtest1 WHERE id={k + 1}\n"
                     f"\t\t     7 Query\tINSERT INTO sbtest1 (id, k, c, pad) VALUES ({k + 1}, {k}, 'a', 'b')\n")
    log, out = tmp_path / "rw.log", tmp_path / "rw.optrace"
    log.write_text("".join(lines))
    opcapture.run(log, "general", SCHEMAS, out)
    return out


def _predict(out, flavor: str, mode: str | None, unique: bool = False) -> dict:
    meta, _, _ = ot.read_header(out)
    tables = tracegeometry.offline_geometry(meta, {"*": ROWS}, {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}})
    tables["sbtest.sbtest1"]["indexes"]["k_1"]["unique"] = unique
    pools = tracegeometry.pools_of([4 << 20], flavor, {}, 1000.0)
    return tracemodel.predict(out, tables, pools, flavor, changebuf.kinds_of(flavor, mode))["pools"][0]


def test_mysql_buffers_the_trace_s_secondary_changes_and_reads_fewer_index_leaves(tmp_path):
    out = _trace(tmp_path)
    off, on = _predict(out, "mysql", None), _predict(out, "mysql", "all")
    k_off, k_on = (p["tables"]["sbtest.sbtest1"]["indexes"]["k_1"] for p in (off, on))
    cb = on["change_buffer"]
    assert "change_buffer" not in off
    # the k_1 leaves not in the 256-page pool are buffered, not read; some are merged (read) later
    assert cb["buffered"] > 500 and 0 < cb["merged_pages"] <= cb["buffered"]
    assert k_on < k_off and on["pages_read"] < off["pages_read"], (k_off, k_on, cb)
    assert on["pages_read"] == on["tables"]["sbtest.sbtest1"]["pages_read"] + on["system_pages_read"]
    # inserts alone: fewer changes buffered than all of them (the delete-marks and purge's read the leaf)
    inserts = _predict(out, "mysql", "inserts")
    assert 0 < inserts["change_buffer"]["buffered"] < cb["buffered"]


def test_no_buffering_on_a_unique_index_on_mariadb_or_with_none(tmp_path):
    out = _trace(tmp_path)
    off = _predict(out, "mysql", None)
    for same in (_predict(out, "mysql", "none"), _predict(out, "mysql", "all", unique=True)):
        assert same["tables"] == off["tables"] and same["pages_read"] == off["pages_read"]
    maria = _predict(out, "mariadb", None)
    assert _predict(out, "mariadb", "all") == maria and "change_buffer" not in maria


def test_predict_trace_takes_the_mode_from_set(tmp_path):
    out, sql = _trace(tmp_path), tmp_path / "sb.sql"
    sql.write_text(SQL)
    base = ("predict", "--trace", str(out), "--schema", str(sql), "--rows", str(ROWS), "--pool", "4M",
            "--flavor", "mysql", "--format", "json")
    on = run_loadgen(*base, "--set", "innodb_change_buffering=all")
    off = run_loadgen(*base)
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    p_on, p_off = json.loads(on.stdout), json.loads(off.stdout)
    assert p_on["change_buffering"] == "all" and "change_buffering" not in p_off
    assert p_on["pools"][0]["change_buffer"]["buffered"] > 0 and "change_buffer" not in p_off["pools"][0]
    assert p_on["pools"][0]["pages_read"] < p_off["pools"][0]["pages_read"]
    bad = run_loadgen(*base, "--set", "innodb_change_buffering=sometimes")
    assert bad.returncode != 0 and "is not a mode" in bad.stderr and "Traceback" not in bad.stderr

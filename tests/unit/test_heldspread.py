"""The pages held, uncertain (analysis/heldspread.py): a mix's or a captured trace's prediction is
simulated again with the pool holding a measured spread of pages fewer and more, and the reads
there are an envelope in its interval: wide where the prediction sits on a knife edge, nothing
where the curve is flat."""
import json
import random

import pytest

from loadgen.analysis import heldspread, intervals, tracegeometry, tracemodel
from loadgen.workload import opcapture, optrace as ot

from ..conftest import run_loadgen
from .test_opcapture import LOG, SCHEMAS

ROWS = 400_000
HOT_KEYS = 170_000  # ~2,300 leaves: just over a 48M MariaDB pool's list (1,890 .. 2,274), far under 128M's
SQL = "CREATE TABLE sbtest1 (id INT NOT NULL, k INT NOT NULL, c CHAR(120), pad CHAR(60), PRIMARY KEY (id));"


@pytest.fixture(scope="module")
def hot_trace(tmp_path_factory):
    """60,000 point reads at random keys of a hot range of the table."""
    tmp = tmp_path_factory.mktemp("held")
    rng = random.Random(1)
    lines = [LOG.split("\t\t     7 Prepare")[0]]
    lines += [f"\t\t     7 Query\tSELECT c FROM sbtest1 WHERE id={rng.randint(1, HOT_KEYS)}\n" for _ in range(60_000)]
    log, out = tmp / "hot.log", tmp / "hot.optrace"
    log.write_text("".join(lines))
    opcapture.run(log, "general", SCHEMAS, out)
    return out


def _predict(out, mib: int, held: bool = True) -> dict:
    meta, _, _ = ot.read_header(out)
    tables = tracegeometry.offline_geometry(meta, {"*": ROWS}, {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}})
    pools = tracegeometry.pools_of([mib << 20], "mariadb", {}, 1000.0)
    if not held:
        pair, heldspread.pair = heldspread.pair, lambda pool: None
    try:
        return tracemodel.predict(out, tables, pools, "mariadb")["pools"][0]
    finally:
        if not held:
            heldspread.pair = pair


def test_a_knife_edge_prediction_gets_a_wide_interval_and_a_flat_one_stays_as_it_was(hot_trace):
    edge, flat = _predict(hot_trace, 48), _predict(hot_trace, 128)
    e, f = edge["held_spread"], flat["held_spread"]
    # 16 pages fewer held: thousands of reads more (the hot set stops fitting); at 128M none
    assert e["reads_fewer_held"] - e["reads_more_held"] > 0.1 * edge["pages_read"], e
    assert e["reach_pct"] >= 100 * heldspread.NOTE_REL
    assert f["reads_fewer_held"] == f["reads_more_held"] == flat["pages_read"] and f["reach_pct"] == 0.0
    assert edge["low"] <= min(e["reads_more_held"], edge["pages_read"]) and e["reads_fewer_held"] <= edge["high"]
    before_edge, before_flat = _predict(hot_trace, 48, held=False), _predict(hot_trace, 128, held=False)
    assert (before_edge["pages_read"], before_flat["pages_read"]) == (edge["pages_read"], flat["pages_read"])
    assert edge["high"] - edge["low"] > 2 * (before_edge["high"] - before_edge["low"])
    assert (flat["low"], flat["high"]) == (before_flat["low"], before_flat["high"])  # flat: not one page wider
    t = edge["tables"]["sbtest.sbtest1"]  # the table's own interval spans it too
    assert t["low"] <= e["reads_more_held"] and e["reads_fewer_held"] - edge["system_pages_read"] <= t["high"]


def test_predict_trace_says_why_an_interval_is_wide_in_one_line(hot_trace, tmp_path):
    sql = tmp_path / "sb.sql"
    sql.write_text(SQL)
    base = ("predict", "--trace", str(hot_trace), "--schema", str(sql), "--rows", str(ROWS), "--qps", "1000")
    got = {mib: run_loadgen(*base, "--pool", f"{mib}M") for mib in (48, 128)}
    assert all(r.returncode == 0 for r in got.values()), [r.stderr for r in got.values()]
    [line] = [x for x in got[48].stderr.splitlines() if "knife edge" in x]
    assert line.startswith("48 MiB is on a knife edge: 16 pages held more or fewer") and "Traceback" not in line
    assert "knife edge" not in got[128].stderr
    doc = json.loads(run_loadgen(*base, "--pool", "48M", "--format", "json").stdout)
    assert doc["pools"][0]["held_spread"]["pages"] == heldspread.HELD_SPREAD_PAGES_MARIADB


def test_the_shifted_pools_hold_pages_as_each_server_does():
    maria = tracegeometry.pools_of([48 << 20], "mariadb", {}, 1000.0)[0][1]
    mysql = tracegeometry.pools_of([48 << 20], "mysql", {}, 1000.0)[0][1]
    fewer, more = heldspread.pair(maria)
    assert (fewer.capacity_pages, more.capacity_pages) == (maria.capacity_pages - 16, maria.capacity_pages + 16)
    from loadgen.analysis.pool import under_writes

    w = under_writes(mysql)  # MySQL's cleaner refills its free frames every second: 38 frames fewer free
    fewer, more = heldspread.pair(w)
    assert (fewer.cleaner_depth, more.cleaner_depth) == (w.cleaner_depth + 38, w.cleaner_depth - 38)
    fewer, more = heldspread.pair(mysql)  # one batch: the start-up pages hold 38 frames more or fewer
    assert (fewer.start_pages, more.start_pages) == (mysql.start_pages + 38, mysql.start_pages - 38)
    # 16M: the cleaner's depth (1,024) is every frame; no more can be free, 38 fewer can
    small = under_writes(tracegeometry.pools_of([16 << 20], "mysql", {}, 1000.0)[0][1])
    fewer, more = heldspread.pair(small)
    assert (fewer.cleaner_depth, more.cleaner_depth) == (small.pool_pages, small.pool_pages - 38)


def test_a_mixs_interval_takes_the_envelope_per_part_and_only_where_given():
    pool = tracegeometry.pools_of([16 << 20], "mysql", {}, 1000.0)[0][1]
    block = {"pages_read": 10_000, "system_pages_read": 0, "tables": {"db.a": {"pages_read": 6_000},
                                                                      "db.b": {"pages_read": 4_000}}}
    plain = json.loads(json.dumps(block))
    intervals.for_mix(plain, pool)
    intervals.for_mix(block, pool, held={"*": (13_000, 9_000), "db.a": (9_000, 5_800)})
    assert block["reads_high"] >= 13_000 and block["reads_low"] <= 9_000
    assert block["tables"]["db.a"]["reads_high"] >= 9_000
    assert block["tables"]["db.b"] == plain["tables"]["db.b"]  # no envelope given: as before
    assert heldspread.note("16M", {"pages": 38, "reach_pct": 4.9, "reads_more_held": 1, "reads_fewer_held": 2}) is None

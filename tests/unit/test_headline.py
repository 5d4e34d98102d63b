"""The headline miss count, pages read into the pool: the same quantity from MySQL's and MariaDB's
counters (docs/mysql-lab.md), v1 result files read the same way, and compare refusing to gate
where a file cannot say it."""
import json

import pytest

from loadgen.results.compare import compare_files, parse_limits
from loadgen.errors import ResultError
from loadgen.results.documents import FORMAT_VERSION, RunResult, load
from loadgen.measure.sampler import Snapshot, totals

# Measured on MySQL 9.7.4, 200k rows, 16M pool, order B (docs/mysql-lab.md): demand reads are a
# tenth of the pages read; read-ahead brings in the rest.
MYSQL_B = {"read_requests": 123_712, "reads": 361, "pages_read": 2_793, "read_ahead": 2_432}
MARIADB_B = {"read_requests": 120_674, "reads": 3_296, "pages_read": 3_296, "read_ahead": 640}


def _totals(counts: dict, flavor: str) -> dict:
    return totals(Snapshot(0.0, 0, {k: 0 for k in counts}), Snapshot(1.0, 1, dict(counts)), flavor=flavor)


def test_the_headline_is_innodb_pages_read_on_both_flavours():
    my, ma = _totals(MYSQL_B, "mysql"), _totals(MARIADB_B, "mariadb")
    assert my["pages_read"] == 2_793 and my["demand_reads"] == 361 and my["read_ahead"] == 2_432
    assert ma["pages_read"] == 3_296 and ma["demand_reads"] == 3_296 - 640
    # the hit ratio comes from pages read, not from MySQL's demand-only reads (99.71% would be wrong)
    assert my["hit_ratio"] == pytest.approx(1 - 2_793 / 123_712)
    assert my["counters"]["pages_read"] == "Innodb_pages_read"


def test_without_innodb_pages_read_mysql_adds_read_ahead_and_mariadb_does_not():
    no_pr = {k: v for k, v in MYSQL_B.items() if k != "pages_read"}
    my = _totals(no_pr, "mysql")
    assert my["pages_read"] == 361 + 2_432 == MYSQL_B["pages_read"]  # exact on 9.7.4 (mysql-lab.md)
    assert "read_ahead" in my["counters"]["pages_read"]
    ma = _totals({k: v for k, v in MARIADB_B.items() if k != "pages_read"}, "mariadb")
    assert ma["pages_read"] == 3_296 and ma["counters"]["pages_read"] == "Innodb_buffer_pool_reads"


def _run(bp: dict, flavor: str, version: int = FORMAT_VERSION, schema: str = "chat") -> dict:
    return {"format_version": version, "kind": "run", "complete": True,
            "server": {"innodb_buffer_pool_size": 8 << 20, "flavor": flavor, "version": "x"},
            "dataset": {"rows": 200_000, "schema": schema, "schema_hash": schema, "seed": 1},
            "workload": {"variation": "B", "order": "looped", "stride": 10, "reps": 2},
            "result": {"qps": 9000.0, "latency_us": {"p50": 50.0, "p99": 200.0}}, "buffer_pool": bp}


def test_v1_files_still_load_and_count_pages_read(tmp_path):
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(_run({"reads": 361, "read_ahead": 2_432, "read_requests": 123_712,
                                     "hit_ratio": 0.997}, "mysql", version=1)))
    r = load(path, kind="run")
    assert r.format_version == 1
    assert r.headline() == (2_793, "Innodb_buffer_pool_reads + Innodb_buffer_pool_read_ahead")
    assert r.headline_hit_ratio() == pytest.approx(1 - 2_793 / 123_712)


def test_the_gate_catches_on_mysql_what_reads_hid():
    """chat -> chat_wide on MySQL: demand reads +6%, pages read 2.9x; `reads=10%` must fail it."""
    base = RunResult.from_dict(_run({**MYSQL_B}, "mysql"))
    new = RunResult.from_dict(_run({"read_requests": 125_000, "reads": 383, "pages_read": 8_100,
                                    "read_ahead": 7_717}, "mysql", schema="chat_wide"))
    c = compare_files([base], [new], parse_limits(["reads=10%"]))
    row = next(r for r in c.rows if r.metric == "pages_read")
    assert c.regressed and row.regressed and row.ratio == pytest.approx(8_100 / 2_793)


def test_compare_refuses_to_gate_a_v1_mysql_file_with_reads_only():
    v1 = RunResult.from_dict(_run({"reads": 361, "read_requests": 123_712}, "mysql", version=1))
    v2 = RunResult.from_dict(_run(dict(MYSQL_B), "mysql"))
    with pytest.raises(ResultError, match="cannot be gated"):
        compare_files([v1], [v2], parse_limits(["reads=10%"]))
    # without a limit on misses it only reports (qps is still comparable)
    c = compare_files([v1], [v2], parse_limits(["qps=50%"]))
    assert not c.regressed


def test_every_reader_of_a_v1_mysql_file_counts_its_read_ahead_as_compare_does():
    """One rule (RunResult.headline / documents.pages_read) for the prediction's error, the
    sweep's table and its plot: they once took `pages_read or reads`, 361 here instead of 2,793."""
    from loadgen.analysis.predict import predict
    from loadgen.analysis.sweep import sweep_point
    from loadgen.render.plots import sweep_series
    from loadgen.render.report import sweep_cells
    from loadgen.results.documents import SweepResult

    bp = {"reads": 361, "read_ahead": 2_432, "read_requests": 123_712, "pages_total": 1024}
    doc = _run(bp, "mysql", version=1)
    doc["dataset"].update(leaf_pages=1633, height=3)
    run = RunResult.from_dict(doc)
    p = predict(run)
    assert p.measured_reads == 2_793
    assert p.error_pct == round((p.reads - 2_793) / 2_793 * 100, 2)
    point = {k: v for k, v in sweep_point(run, "v1.json").items() if k != "pages_read"}  # a v1 sweep's point
    sweep = SweepResult(server={"flavor": "mysql"}, points=[point])
    assert sweep_cells(sweep)[0][2] == "2,793"
    assert sweep_series(sweep)[0]["measured"] == [(8 << 20, 2_793)]
    # demand reads alone cannot tell the headline on MySQL: nothing is plotted or held to it
    run.buffer_pool.pop("read_ahead")
    assert predict(run).measured_reads is None

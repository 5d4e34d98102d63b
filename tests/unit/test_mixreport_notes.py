"""The mixed run's report says when the server buffered the run's index changes: what the model
buffered on MySQL, that the model has none on MariaDB (render/mixreport.py change_buffer_note)."""
from __future__ import annotations

from loadgen.render.mixreport import change_buffer_note
from loadgen.results.documents import RunResult


def _run(flavor: str, version: str, mode: str | None, indexes: dict, updated: int,
         prediction: dict | None = None) -> RunResult:
    variables = {"innodb_change_buffering": mode} if mode is not None else {}
    return RunResult.from_dict({"prediction": prediction,
        "server": {"flavor": flavor, "version": version, "variables": variables},
        "dataset": {"kind": "mix", "tables": {"sbtest1": {"indexes": {"PRIMARY": {}, **indexes}}}},
        "workload": {"kind": "mix"}, "result": {},
        "buffer_pool": {"tables": {"chat.sbtest1": {"rows_updated": updated, "rows_inserted": 0}}},
    })


def test_the_note_only_where_changes_were_buffered_for_an_indexed_table_written():
    k = {"k_1": {"leaf_pages": 42}}
    assert "innodb_change_buffering=all" in change_buffer_note(_run("mysql", "9.7.4", "all", k, 10))
    assert change_buffer_note(_run("mysql", "8.4.3", "none", k, 10)) is None  # MySQL 8.4's default
    assert change_buffer_note(_run("mysql", "9.7.4", None, k, 10)) is None  # not recorded: no claim
    assert change_buffer_note(_run("mysql", "9.7.4", "all", {}, 10)) is None  # no secondary index
    assert change_buffer_note(_run("mysql", "9.7.4", "all", k, 0)) is None  # read only
    assert change_buffer_note(_run("mariadb", "10.6.5", "all", k, 10)) is not None
    assert change_buffer_note(_run("mariadb", "10.11.19", "all", k, 10)) is None  # ignored from 10.9


def test_mysql_says_what_the_model_buffered_mariadb_that_it_has_none():
    k = {"k_1": {"leaf_pages": 42}}
    block = {"model": "innodb-lru-mix",
             "change_buffer": {"buffered": 23553, "merged_pages": 11359, "merge_reads": 11359}}
    said = change_buffer_note(_run("mysql", "9.7.4", "all", k, 10, block))
    assert "23,553 changes buffered, 11,359 leaves merged" in said and "has none" not in said
    assert "has none" in change_buffer_note(_run("mariadb", "10.6.5", "all", k, 10))


def test_a_mix_on_a_knife_edge_says_why_its_interval_is_wide():
    from loadgen.render.mixreport import knife_edge_note, summary_lines

    def run(reach: float) -> RunResult:
        r = _run("mysql", "9.7.4", None, {}, 10, {"model": "innodb-lru-mix", "pages_read": 3_940, "held_spread": {
            "pages": 38, "reads_fewer_held": 4_913, "reads_more_held": 2_166, "reach_pct": reach}})
        r.server["innodb_buffer_pool_size"] = 48 << 20
        return r

    said = knife_edge_note(run(45.3))
    assert said.startswith("the 48 MiB pool is on a knife edge: 38 pages held more or fewer") and "45%" in said
    assert said in summary_lines(run(45.3))
    assert knife_edge_note(run(1.7)) is None  # a flat curve: no note
    assert knife_edge_note(_run("mysql", "9.7.4", None, {}, 10)) is None  # no prediction


def test_a_slow_write_run_says_why_its_interval_reaches_further_down():
    """Stored runs (docs/data): a sysbench-oltp-rw run at 133 q/s, whose table the model
    over-predicted by +11.4%, is inside its interval only with the slow-write reach; one at 1,379 q/s
    carries none (analysis/intervals.py SLOW_WRITES_QPS)."""
    import gzip
    import json
    from pathlib import Path

    from loadgen.analysis import mixmodel
    from loadgen.render.mixreport import slow_writes_note, summary_lines

    data = Path(__file__).resolve().parents[2] / "docs" / "data"
    slow, fast = (json.loads(gzip.decompress((data / f).read_bytes())) for f in (
        "slowmaria/mariadb-10.11-sysbench-oltp-rw-16M-q5-15.json.gz",
        "rwrate/mariadb-10.11-sysbench-oltp-rw-16M-tr1.json.gz"))
    for run in (slow, fast):
        run["prediction"] = mixmodel.predict(run)
    p, measured = slow["prediction"], slow["buffer_pool"]["tables"]["chat.sbtest1"]["file_pages_read"]
    t = p["tables"]["chat.sbtest1"]
    assert t["pages_read"] > 1.08 * measured  # the over-prediction the reach is for
    assert t["reads_low"] <= measured <= t["reads_high"]
    assert p["slow_writes"]["qps"] < 350 and "slow_writes" not in fast["prediction"]
    said = slow_writes_note(RunResult.from_dict(slow))
    assert said.startswith("note: this write mix ran at 133 q/s") and "16% below" in said
    assert said in summary_lines(RunResult.from_dict(slow))
    assert slow_writes_note(RunResult.from_dict(fast)) is None


def test_a_scheduled_stream_that_never_ran_says_why():
    from loadgen.render.mixreport import stream_rows, summary_lines

    zeros = {"mean": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    result = RunResult.from_dict({
        "workload": {"kind": "mix", "mix": {"streams": [{"name": "read", "op": "read", "share": 1.0},
                                                        {"name": "nightly", "op": "scan", "every_s": 60}]}},
        "result": {"elapsed_s": 5.628, "ops": 20_000, "streams": {
            "read": {"op": "read", "ops": 20_000, "latency_us": {"p50": 137.0}},
            "nightly": {"op": "scan", "ops": 0, "latency_us": zeros, "executions": []}}},
        "buffer_pool": {}})
    notes = [line for line in summary_lines(result) if "never ran" in line]
    assert notes == ["note: stream 'nightly' never ran (every_s = 60): the mix's operations ended after 5.6 s, "
                     "before its first time; give more operations (--queries) or an earlier time (at_op, at_s)"]
    nightly = next(r for r in stream_rows(result) if r[0] == "nightly")
    assert nightly[1] == "scan (0x)" and nightly[5:8] == ["–", "–", "–"]  # no latency of no operation
    ran = RunResult.from_dict({**result.to_dict(), "result": {"streams": {"nightly": {
        "op": "scan", "ops": 1, "executions": [{"start_s": 60.0, "end_s": 61.2}]}}}})
    assert not any("never ran" in line for line in summary_lines(ran))


def test_a_predicted_run_says_what_its_intervals_are():
    from loadgen.render.mixreport import INTERVAL_NOTE, summary_lines

    pred = {"model": "innodb-lru-mix", "pages_read": 20_214, "reads_low": 19_300, "reads_high": 21_100}
    with_pred = RunResult.from_dict({"workload": {"kind": "mix"}, "result": {}, "buffer_pool": {},
                                     "prediction": pred})
    assert INTERVAL_NOTE in summary_lines(with_pred) and "not a confidence level" in INTERVAL_NOTE
    bare = RunResult.from_dict({"workload": {"kind": "mix"}, "result": {}, "buffer_pool": {}})
    assert INTERVAL_NOTE not in summary_lines(bare)  # no prediction: nothing to explain


def test_a_run_without_per_table_reads_says_why():
    from loadgen.render.mixreport import per_table_note

    def run(pfs, tables):
        return RunResult.from_dict({"workload": {"kind": "mix"}, "result": {}, "buffer_pool": {"tables": tables},
                                    "server": {"flavor": "mariadb", "variables": {"performance_schema": pfs}}})

    unmeasured = {"chat.usertable": {"database": "chat", "table": "usertable"}}
    assert "performance_schema is OFF" in per_table_note(run("OFF", unmeasured))
    assert "performance_schema=ON" in per_table_note(run(None, unmeasured))
    assert per_table_note(run("ON", {"chat.usertable": {"file_pages_read": 25_578}})) is None
    assert per_table_note(run("OFF", {})) is None  # a single-order run: no tables block

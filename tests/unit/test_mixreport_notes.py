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

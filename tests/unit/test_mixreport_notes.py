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

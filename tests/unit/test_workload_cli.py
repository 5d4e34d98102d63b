"""`loadgen run --workload` refuses a bad workload file with one line (exit 2) before anything
starts: no server is looked for, none is started (these run without one)."""
from __future__ import annotations

import os
import time

import pytest

from .test_cli_misuse import loadgen, one_line
from .test_mix import BAD, GOOD, _with


def run_file(tmp_path, text: str):
    path = tmp_path / "w.toml"
    path.write_text(text)
    # --server local with a mysqld that does not exist: reaching the server would say so instead
    return loadgen("run", "--workload", path, "--server", "local", "--mysqld", tmp_path / "no-such-mysqld",
                   "--out", tmp_path / "out.json")


# the contract's list: unknown table, a stream on a missing column, shares that do not add up, a
# schedule in the past (the rest of BAD is held to one line in test_mix.py)
@pytest.mark.parametrize("what", ["unknown table", "missing column", "shares that do not add up",
                                  "schedule in the past", "unknown op", "column without an index"])
def test_a_bad_file_is_one_line_before_anything_starts(tmp_path, what):
    _, edit, words = next(b for b in BAD if b[0] == what)
    res = run_file(tmp_path, _with(GOOD, *edit))
    one_line(res, 2, words)
    assert not (tmp_path / "out.json").exists()


def test_a_10_gb_file_is_refused_by_its_size(tmp_path):
    big = tmp_path / "huge.toml"
    with open(big, "wb") as f:
        f.truncate(10 << 30)
    started = time.monotonic()
    one_line(loadgen("run", "--workload", big), 2, "over the 1,048,576-byte limit")
    assert time.monotonic() - started < 30  # never read


def test_not_toml_not_a_file_not_a_preset(tmp_path):
    (tmp_path / "w.toml").write_text("format = 1\n[[streams]\n")
    one_line(loadgen("run", "--workload", tmp_path / "w.toml"), 2, "not valid TOML")
    one_line(loadgen("run", "--workload", tmp_path), 2, "not a regular file")
    one_line(loadgen("run", "--workload", "ycsb-z"), 2, "cannot read workload ycsb-z", "ycsb-a")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line(loadgen("run", "--workload", fifo), 2, "not a regular file")  # no writer: must not hang


def test_single_order_options_do_not_go_with_a_workload(tmp_path):
    one_line(loadgen("run", "--workload", "ycsb-a", "--variation", "B"), 2, "--variation goes with a single order")
    one_line(loadgen("run", "--workload", "ycsb-a", "--schema", "chat_idx"), 2, "--schema goes with")
    one_line(loadgen("run", "--workload", "ycsb-a", "--threads", "2"), 2, "--threads goes with")
    one_line(loadgen("run", "--workload", "ycsb-a", "--queries", "lots"), 2, "--queries")


def test_the_new_builtin_schemas_work_for_a_single_table_run_too():
    """schema/ycsb.sql and schema/sbtest.sql make usertable and sbtest1, not chat's message: as
    --schema they are seeded like a schema file (tablegen), not by the chat generator."""
    from loadgen.cli.options import dataset_spec_from
    from loadgen.seeding.schemas import queried_table, read_schema_file

    for name, table in (("ycsb", "usertable"), ("sbtest", "sbtest1")):
        spec = dataset_spec_from("1000", name)
        assert spec.custom and spec.schema.endswith(f"{name}.sql") and spec.schema_label == name
        assert queried_table(read_schema_file(spec.schema, spec.database), None) == table
    chat = dataset_spec_from("1000", "chat_idx")
    assert not chat.custom and chat.schema == "chat_idx"

"""Heights read from files are untrusted: a measurement other clients' page gets spoiled (30 and
37 recorded for sbtest1's 3 levels on a loaded machine) must not reach the simulator, where 37
killed the process with a floating-point exception (a CI rehearsal, session 14)."""
from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from loadgen.analysis import mixmodel
from loadgen.analysis.geometry import btree_height, estimate_height
from loadgen.errors import InputNote, UsageError

RUN = Path(__file__).resolve().parents[2] / "docs" / "data" / "ycsbd" / "mysql-9.7-ycsb-d-16M-fast1.json.gz"


def test_a_believable_height_is_kept():
    assert btree_height(3, "t", 4111, 300_000) == 3
    assert btree_height("2", "t") == 2


@pytest.mark.parametrize("value", [37, 30, 16, 0, -1, "x", 10**9])
def test_a_spoiled_height_is_the_leaf_pages_estimate_and_says_so(value):
    with pytest.warns(InputNote, match=r"table sbtest1 has a B-tree height of .*predicted with 3"):
        assert btree_height(value, "table sbtest1", 4111, 300_000) == estimate_height(4111) == 3


def test_a_believable_height_says_nothing(recwarn):
    btree_height(3, "table sbtest1", 4111, 300_000)
    assert not [w for w in recwarn if issubclass(w.category, InputNote)]


def test_the_note_is_one_line_on_stderr_once(capsys):
    """__main__ prints an InputNote as "loadgen: note: ...", once per message (a prediction reads
    a table's height for every pool), not as Python's file:line warning."""
    import warnings

    from loadgen import __main__, errors

    saved = warnings.showwarning
    with warnings.catch_warnings():
        try:
            __main__._notes_as_lines(errors)
            for _ in range(3):
                btree_height(37, "table sbtest1", 4111, 300_000)
        finally:
            warnings.showwarning = saved
    err = capsys.readouterr().err
    assert err.splitlines() == ["loadgen: note: table sbtest1 has a B-tree height of 37, not believable for 4,111 "
                                "leaf pages: predicted with 3, the leaf pages' estimate"]


def test_without_leaf_pages_a_spoiled_height_is_a_usage_error():
    with pytest.raises(UsageError, match="table sbtest1 has a B-tree height of 37"):
        btree_height(37, "table sbtest1")


def test_a_result_with_a_spoiled_height_is_predicted_as_with_the_estimate():
    run = json.loads(gzip.decompress(RUN.read_bytes()))
    table = run["dataset"]["tables"]["usertable"]
    spoiled, estimated = copy.deepcopy(run), copy.deepcopy(run)
    spoiled["dataset"]["tables"]["usertable"]["height"] = 37
    estimated["dataset"]["tables"]["usertable"]["height"] = estimate_height(int(table["leaf_pages"]))
    with pytest.warns(InputNote, match="table usertable has a B-tree height of 37"):
        got = mixmodel.predict(spoiled)["pages_read"]
    assert got == mixmodel.predict(estimated)["pages_read"] > 0

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
from loadgen.errors import UsageError

RUN = Path(__file__).resolve().parents[2] / "docs" / "data" / "ycsbd" / "mysql-9.7-ycsb-d-16M-fast1.json.gz"


def test_a_believable_height_is_kept():
    assert btree_height(3, "t", 4111, 300_000) == 3
    assert btree_height("2", "t") == 2


@pytest.mark.parametrize("value", [37, 30, 16, 0, -1, "x", 10**9])
def test_a_spoiled_height_is_the_leaf_pages_estimate(value):
    assert btree_height(value, "table sbtest1", 4111, 300_000) == estimate_height(4111) == 3


def test_without_leaf_pages_a_spoiled_height_is_a_usage_error():
    with pytest.raises(UsageError, match="table sbtest1 has a B-tree height of 37"):
        btree_height(37, "table sbtest1")


def test_a_result_with_a_spoiled_height_is_predicted_as_with_the_estimate():
    run = json.loads(gzip.decompress(RUN.read_bytes()))
    table = run["dataset"]["tables"]["usertable"]
    spoiled, estimated = copy.deepcopy(run), copy.deepcopy(run)
    spoiled["dataset"]["tables"]["usertable"]["height"] = 37
    estimated["dataset"]["tables"]["usertable"]["height"] = estimate_height(int(table["leaf_pages"]))
    assert mixmodel.predict(spoiled)["pages_read"] == mixmodel.predict(estimated)["pages_read"] > 0

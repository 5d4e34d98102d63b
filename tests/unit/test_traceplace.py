"""A captured trace's chunks placed in C (native/traceplace.c, traceplace.NATIVE) give what numpy's
per-group code gave (NATIVE False), value for value: the stream, key, length and transaction of
every record, the records kept, and the plan's streams (named in the same order), counts, skips,
inserts at each table's end and inside it, carried from chunk to chunk; on random traces of every
kind and flag (test_mixref's), with a composite key placed by value and a table offset."""
from __future__ import annotations

import numpy as np
import pytest

from loadgen import native
from loadgen.analysis import traceplace as tp
from loadgen.workload import optrace as ot

from .test_mixref import _tables, _trace


def _placed(path, tables: dict, chunk: int, on: bool, monkeypatch):
    monkeypatch.setattr(tp, "NATIVE", on)
    meta, _, _ = ot.read_header(path)
    plan = tp.TracePlan(meta, tables)
    out = [plan.place(a) for a in ot.chunks(path, chunk)]
    return out, plan


def _same(a, b) -> None:
    (out_a, plan_a), (out_b, plan_b) = a, b
    assert len(out_a) == len(out_b)
    for x, y in zip(out_a, out_b):
        for u, v in zip(x, y):
            assert u.dtype == v.dtype and np.array_equal(u, v)
    assert plan_a.streams == plan_b.streams and list(plan_a.ids) == list(plan_b.ids)
    # the counters' order too: predict's operations_by_kind is their dict
    assert list(plan_a.ops.items()) == list(plan_b.ops.items())
    assert list(plan_a.skipped.items()) == list(plan_b.skipped.items())
    assert dict(plan_a.appended) == dict(plan_b.appended) and plan_a.inserted_at == plan_b.inserted_at


@pytest.mark.parametrize("seed,chunk", [(1, 5_000), (2, 1_000), (3, 70_000)])
def test_the_c_pass_places_as_numpy_does(tmp_path, monkeypatch, seed, chunk):
    if native.trace_place() is None:
        pytest.skip("the extension has no trace_place")
    out = tmp_path / "t.optrace"
    _trace(out, 30_000, seed)
    meta, _, _ = ot.read_header(out)
    tables = _tables(meta)
    tables["app.c"]["key_offset"] = 7  # a table whose lowest key is not 1
    got = _placed(out, tables, chunk, True, monkeypatch)
    _same(got, _placed(out, tables, chunk, False, monkeypatch))
    plan = got[1]
    # every kind, both kinds of insert and every skip were met: not two empty placements compared
    assert {"read", "read-secondary", "range", "range-secondary", "scan", "insert", "update", "delete"} <= set(plan.ops)
    assert plan.inserted_at > 100 and sum(plan.appended.values()) > 1_000
    assert plan.skipped["outside the table's keys"] > 0 and plan.skipped["empty ranges"] > 0
    assert len({s.name for s in plan.streams if s.op == "update"}) >= 4  # the indexes' masks, each table's


def test_values_numpy_cannot_hand_to_c_keep_numpys_path(tmp_path, monkeypatch):
    """A leading column's values that are not integers: the whole plan stays numpy's, the same places."""
    if native.trace_place() is None:
        pytest.skip("the extension has no trace_place")
    out = tmp_path / "t.optrace"
    _trace(out, 5_000, 4)
    meta, _, _ = ot.read_header(out)
    tables = _tables(meta)
    tables["app.b"]["values"] = [0.5, 900_000.5]
    got = _placed(out, tables, 2_000, True, monkeypatch)
    assert got[1]._native_trees() is None
    _same(got, _placed(out, tables, 2_000, False, monkeypatch))


@pytest.mark.filterwarnings("error::RuntimeWarning")  # numpy's cast of a float past int64 warned
@pytest.mark.parametrize("values", [[-(2**62) + 1, 2**62 - 1], [10, 20], [10, 3]])
def test_a_columns_extreme_values_place_as_pythons_exact_integers(tmp_path, monkeypatch, values):
    """A composite key's leading values as wide as C takes them (|v| < 2^62, else numpy's path) or
    narrow, with the trace's values anywhere in int64 (both are untrusted input): C's width must not
    overflow, nor a value far below the lowest become a double past int64 cast to a row."""
    if native.trace_place() is None:
        pytest.skip("the extension has no trace_place")
    out = tmp_path / "t.optrace"
    _trace(out, 5_000, 5)
    meta, _, _ = ot.read_header(out)
    recs = np.concatenate(list(ot.chunks(out, 5_000)))
    far = recs["kind"] == ot.INSERT
    recs["lo"][far] = np.where(np.arange(far.sum()) % 2, np.iinfo(np.int64).min, np.iinfo(np.int64).max)
    with open(out, "r+b") as f:  # the records in place, after the header
        f.seek(-recs.nbytes, 2)
        f.write(recs.tobytes())
    assert np.array_equal(np.concatenate(list(ot.chunks(out, 5_000))), recs)
    tables = _tables(meta)
    tables["app.b"]["values"] = values
    got = _placed(out, tables, 2_000, True, monkeypatch)
    assert got[1]._native_trees() is not None
    _same(got, _placed(out, tables, 2_000, False, monkeypatch))


def test_hostile_records_are_a_value_error_not_a_crash():
    place = native.trace_place()
    if place is None:
        pytest.skip("the extension has no trace_place")
    a = np.zeros(3, dtype=ot.RECORD)
    a["kind"], a["tree"] = ot.POINT, [0, 1, 2]  # tree 2: past the plan's two
    trees = np.array([[0, 100, 0, 0, 0, 0, 1], [0, 100, 0, 0, 0, 0, 1]], dtype=np.int64).ravel()
    outs = [np.zeros(3, np.int64) for _ in range(4)]
    with pytest.raises(ValueError, match="trace_place"):
        place(a, trees, np.zeros(1, np.int64), np.zeros(1, np.int64), *outs, np.zeros(32, np.int64),
              np.zeros(32, np.int64))
    with pytest.raises(ValueError, match="trace_place"):  # a tree's table outside appended's
        place(a[:2], np.array([[3, 100, 0, 0, 0, 0, 1]] * 2, dtype=np.int64).ravel(), np.zeros(1, np.int64),
              np.zeros(1, np.int64), *(o[:2] for o in outs), np.zeros(32, np.int64), np.zeros(32, np.int64))

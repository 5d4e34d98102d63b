"""One door to the model (analysis/predict.py): each order's model chosen in one place, the same
exact figures as the kernel gave before the door (measured before the change, on the same files)."""
from __future__ import annotations

import copy
import json
from array import array
from pathlib import Path

from loadgen.analysis.predict import predict, uses_workload_model
from loadgen.results.documents import Prediction, RunResult
from loadgen.seeding.indexmap import IndexMap

DATA = Path(__file__).resolve().parents[1] / "data"


def run(name: str, **workload) -> RunResult:
    doc = json.loads((DATA / name).read_text())
    if workload:
        doc["workload"] = workload
    return RunResult.from_dict(doc)


def test_built_in_orders_get_the_workload_models_curve_and_exact_reads():
    for name, reads in (("run_A_mariadb.json", 1649), ("run_B_mariadb.json", 3298)):
        p = predict(run(name))
        assert isinstance(p, Prediction) and p.model == "innodb-lru"
        assert p.reads == reads  # the kernel's exact count, as before the door
        assert [c["pool_bytes"] for c in p.curve] == [8 << 20, 16 << 20, 32 << 20]


def test_key_streams_get_the_key_model_and_say_read_ahead_is_left_out_on_mariadb():
    p = predict(run("run_A_mariadb.json", order="random", rows=200_000, stride=10, reps=2, seed=1, count=40_000))
    # the kernel's exact count: 37,209 before the key streams' leaf steps (688 selects on a leaf's first
    # or last key read the neighbouring leaf too; at this pool most of those are reads)
    assert p.reads == 37920 and p.curve is None
    assert p.note == "linear read-ahead is not modelled for key streams"
    assert not uses_workload_model("random") and uses_workload_model("looped")


def test_an_index_map_sends_any_order_to_the_secondary_model():
    keys = 20_000
    imap = IndexMap("k", False, 1, array("Q", [min(i * 3, 60_000) for i in range(keys + 1)]),
                    array("I", [(e * 7919) % 1633 for e in range(60_000)]), 60, 2)
    r = run("run_B_mariadb.json", order="random", rows=keys, stride=10, reps=2, seed=1, count=5000)
    p = predict(r, index_map=imap)
    assert p.model == "innodb-lru+secondary" and p.reads == 13890
    assert p.measured_reads == r.headline()[0]  # held to the headline like every model


def test_no_geometry_or_an_unknown_order_is_no_prediction_not_an_error():
    doc = run("run_A_mariadb.json")
    assert predict(RunResult.from_dict({**doc.to_dict(), "dataset": {}})) is None
    gone = copy.deepcopy(doc.to_dict())
    gone["workload"] = {"order": "trace", "rows": 200_000, "trace": {"path": "/nonexistent/keys.txt"}}
    assert predict(RunResult.from_dict(gone)) is None

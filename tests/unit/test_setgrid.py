"""`loadgen sweep --workload FILE --set-grid VAR=V1,V2` (loadgen/analysis/setgrid.py): the grid's
checks (one line, exit 2, before any server is looked for), the measured figures taken from a
run's samples, and the rankings; the runs themselves are tests/integration/test_scan_advice.py's."""
from __future__ import annotations

import numpy as np
import pytest

from loadgen.analysis import setgrid
from loadgen.errors import UsageError
from loadgen.workload import mixfile
from loadgen.workload.opstream import Generator

from ..conftest import run_loadgen

WORKLOAD = """format = 1
seed = 7
operations = 20000
[tables.message]
schema = "chat"
rows = 50000
[[streams]]
name = "lookups"
table = "message"
op = "read"
keys = "hotspot"
share = 0.7
[[streams]]
name = "nightly"
table = "message"
op = "scan"
at_s = 1
[[streams]]
name = "more"
table = "message"
op = "read"
keys = "uniform"
share = 0.3
"""

TIME, PCT = setgrid.GRID_VARIABLES


def test_every_combination_of_the_two_variables_is_a_setting():
    grid = setgrid.parse([f"{TIME}=0,1000", f"{PCT}=20,37"])
    assert grid == [{TIME: 0, PCT: 20}, {TIME: 0, PCT: 37}, {TIME: 1000, PCT: 20}, {TIME: 1000, PCT: 37}]
    assert setgrid.parse(["innodb-old-blocks-time = 0, 5000"]) == [{TIME: 0}, {TIME: 5000}]


@pytest.mark.parametrize("items, fixed, says", [
    (["innodb_io_capacity=100,200"], {}, "takes innodb_old_blocks_time and innodb_old_blocks_pct only"),
    ([f"{PCT}=4,37"], {}, f"{PCT}=4 is out of range"),
    ([f"{PCT}=20,96"], {}, "out of range"),
    ([f"{TIME}=0,-1"], {}, "out of range"),
    ([f"{TIME}=0,1e3"], {}, "out of range"),
    ([f"{TIME}=0,"], {}, "(empty) is out of range"),
    ([f"{TIME}=0,4294967296"], {}, "out of range"),
    ([f"{TIME}=0,0"], {}, "lists 0 twice"),
    ([f"{TIME}=0", f"{TIME}=1000"], {}, "given twice"),
    ([f"{TIME}=0"], {}, "one setting"),
    ([f"{TIME}"], {}, "is not VAR=V1,V2"),
    ([f"{TIME}=0,1000"], {TIME: "5"}, "in both --set and --set-grid"),
    ([f"{TIME}=0,1,2,3,4,5", f"{PCT}=20,37,50"], {}, "18 settings"),
    ([], {}, "empty"),
])
def test_a_bad_grid_is_one_usage_error(items, fixed, says):
    with pytest.raises(UsageError) as err:
        setgrid.parse(items, fixed)
    assert says in str(err.value)


def test_the_mix_without_its_scans_sends_the_same_op_sequence():
    spec = mixfile.parse(WORKLOAD, "<test>")
    bare = setgrid.without_scans(spec)
    assert [s.name for s in bare.streams] == ["lookups", "more"] and not bare.scheduled
    a, b = Generator(spec).chunk(0, 20_000), Generator(bare).chunk(0, 20_000)
    names_a = np.array([spec.streams[i].name for i in a.stream])
    names_b = np.array([bare.streams[i].name for i in b.stream])
    assert (names_a == names_b).all() and (a.key == b.key).all()


def test_a_grid_needs_a_scheduled_scan():
    with pytest.raises(UsageError, match="no scheduled scan"):
        setgrid.check_workload(setgrid.without_scans(mixfile.parse(WORKLOAD, "<test>")))


def _run(samples, ops_before=1_000, ops_after=1_500):
    return {"complete": True,
            "result": {"streams": {"lookups": {"share": 0.7}, "more": {"share": 0.3},
                                   "nightly": {"share": None, "executions": [
                                       {"ops_before": ops_before, "ops_after": ops_after}]}}},
            "samples": samples}


def _sample(ops, reads, requests):
    return {"streams": {"lookups": ops * 7 // 10, "more": ops - ops * 7 // 10, "nightly": 1},
            "pages_read": reads, "read_requests": requests}


def test_after_the_scan_counts_from_the_first_sample_past_its_end():
    run = _run([_sample(1_000, 500, 4_000), _sample(2_000, 900, 4_000), _sample(3_000, 100, 4_000),
                {"gap": True, "queries": 5}, _sample(4_000, 50, 4_000)])
    assert setgrid.scan_end_op(run) == 1_500
    assert setgrid.sample_boundary(run, 1_500) == 2_000  # the scan's own reads are in the 2,000 sample
    assert setgrid.measured_after(run, 2_000) == (150, 8_000)
    assert setgrid.measured_after(run, 2_500) == (100, 6_000)  # half the 3,000 sample
    assert setgrid.sample_boundary(run, 4_001) is None


def _point(setting, measured, predicted):
    return setgrid.GridPoint(setting, "f", [1], 2, 1000.0, measured, predicted, None, None, None, None, None)


def test_the_rankings_and_how_many_pairs_they_order_alike():
    points = [_point({TIME: 0}, 9_400, 8_900), _point({TIME: 100}, 8_300, 8_400), _point({TIME: 1000}, 8_200, 8_500)]
    assert setgrid.pairs_agreeing(points, "pages_read", "pages_read_predicted") == (2, 3)
    best = type("P", (), {"old_blocks_time_ms": 1000, "old_blocks_pct": 37})()
    s = setgrid.summary(points, {"best": best})
    assert s["measured_best"] == {TIME: 1000} and s["predicted_best"] == {TIME: 100}
    assert s["rank_measured"] == [3, 2, 1] and s["rank_predicted"] == [3, 1, 2]
    assert s["advised"] == {TIME: 1000} and s["advice_agrees"] is True
    s = setgrid.summary(points, {"best": type("P", (), {"old_blocks_time_ms": 0, "old_blocks_pct": 37})()})
    assert s["advice_agrees"] is False


@pytest.mark.parametrize("args, says", [
    (["--set-grid", "innodb_old_blocks_time=0,1000"], "give --workload FILE"),
    (["--workload", "ycsb-c", "--set-grid", "innodb_old_blocks_time=0,1000"], "has no scheduled scan"),
    (["--workload", "ycsb-c"], "add --set-grid"),
    (["--workload", "WL", "--set-grid", "innodb_lru_scan_depth=100,200"], "takes innodb_old_blocks_time"),
    (["--workload", "WL", "--set-grid", "innodb_old_blocks_pct=20,99"], "out of range"),
    (["--workload", "WL", "--set-grid", "innodb_old_blocks_time=0,1000", "--server", "dsn"], "its own server"),
    (["--workload", "WL", "--set-grid", "innodb_old_blocks_time=0,1000", "--pools", "8M,16M"], "--pools goes with"),
    (["--workload", "WL", "--set-grid", "innodb_old_blocks_time=0,1000", "--max-time", "0.01"], "over --max-time"),
])
def test_the_command_refuses_before_anything_starts(tmp_path, args, says):
    wl = tmp_path / "scan.toml"
    wl.write_text(WORKLOAD)
    res = run_loadgen("sweep", *[str(wl) if a == "WL" else a for a in args], "--out-dir", str(tmp_path / "out"))
    assert res.returncode == 2, res.stderr
    assert says in res.stderr and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists()

"""Every prediction carries an interval (loadgen/analysis/intervals.py): low <= reads <= high on
both flavours, in predict's forecast and curve, the advice rows, a run's prediction; and a wider
source of error gives a wider interval."""
import json
from pathlib import Path

import pytest

from loadgen.analysis import advise, forecast, intervals, keymodel, model
from loadgen.analysis.predict import predict
from loadgen.results.documents import RunResult


def predicted(result: dict) -> dict | None:
    """The door's prediction block for a result given as its JSON."""
    p = predict(RunResult.from_dict(result))
    return None if p is None else p.to_dict()


DATA = Path(__file__).resolve().parent.parent / "data"
G = model.Geometry(200_000, 1633, 3)


def width(lh: tuple[int, int]) -> int:
    return lh[1] - lh[0]


def test_the_interval_holds_the_estimate_and_each_source_widens_it():
    base = intervals.interval(10_000)
    assert base[0] <= 10_000 <= base[1] and width(base) > 0
    assert width(intervals.interval(10_000, se=300)) > width(base)
    assert width(intervals.interval(10_000, cleaner=(9_500, 10_600))) > width(base)
    assert width(intervals.interval(10_000, read_ahead=True)) > width(base)
    assert width(intervals.interval(10_000, start_unknown=True)) > width(base)
    assert width(intervals.interval(10_000, swing_reads=200)) > width(base)
    assert width(intervals.interval(10_000, floor_rel=0.05)) > width(intervals.interval(10_000, floor_rel=0.01))
    # an estimate outside the cleaner's range still lies inside the interval
    lo, hi = intervals.interval(10_000, cleaner=(10_200, 10_400))
    assert lo <= 10_000 <= hi and hi >= 10_400
    assert intervals.interval(0) == (0, 0)


def test_the_pages_held_cost_more_reads_for_a_key_stream_than_for_a_scan():
    scan = model.stack_histogram("looped", 10, 2, G)
    hist = [0] * (G.n_pages + 1)
    hist[0], hist[500], hist[900] = 100, 400, 400  # reuse at distances either side of the capacity
    assert intervals.swing_reads(scan, 876, 16) == 0
    assert intervals.swing_reads(hist, 880, 16) == 0  # no reuse between 864 and 896
    assert intervals.swing_reads(hist, 895, 16) == 200


@pytest.mark.parametrize("flavor", ["mariadb", "mysql"])
def test_predict_and_its_curve_have_low_le_reads_le_high(flavor):
    fc = forecast.forecast("looped", 10, 2, G, 16 << 20, flavor=flavor, curve_pools=[8 << 20, 32 << 20, 64 << 20])
    for p in [fc.at, *fc.curve]:
        assert p.reads_low <= p.reads <= p.reads_high, p
    if flavor == "mysql":  # the cleaner's timing is placed by the model: its range is inside the interval
        assert fc.at.reads_low <= fc.at.cleaner_low and fc.at.cleaner_high <= fc.at.reads_high


@pytest.mark.parametrize("flavor", ["mariadb", "mysql"])
def test_advice_rows_have_low_le_reads_le_high(flavor):
    adv = advise.advise("looped", 10, 2, G, 16 << 20, ram_bytes=1 << 30, flavor=flavor)
    assert adv.rows
    for r in adv.rows:
        assert r.reads_low <= r.reads <= r.reads_high, r


@pytest.mark.parametrize("name", ["run_A_mariadb.json", "run_B_mariadb.json"])
def test_a_runs_prediction_has_an_interval_that_holds_its_measured_reads(name):
    result = json.loads((DATA / name).read_text())
    p = predicted(result)
    assert p["reads_low"] <= p["reads"] <= p["reads_high"]
    assert p["reads_low"] <= p["measured_reads"] <= p["reads_high"], p
    for c in p["curve"]:
        assert c["reads_low"] <= c["reads"] <= c["reads_high"], c


def test_a_key_streams_prediction_has_an_interval_too():
    result = json.loads((DATA / "run_A_mariadb.json").read_text())
    result["workload"] = {**result["workload"], "order": "random", "seed": 1}
    p = predicted(result)
    assert p["reads_low"] <= p["reads"] <= p["reads_high"]


def test_mysql_start_pages_measured_narrow_the_interval():
    pool = model.pool_model(16 << 20, {}, "mysql")
    assert width(intervals.for_pool(3_000, pool)) > width(intervals.for_pool(3_000, pool, start_measured=True))


def test_a_mysql_key_stream_carries_the_cleaners_range_inside_its_interval():
    from loadgen.workload.orders import Workload

    fc = keymodel.forecast_keys(Workload("random", 200_000, seed=1), G, 16 << 20, flavor="mysql",
                           curve_pools=[8 << 20, 32 << 20])
    assert fc.at.reads_low <= fc.at.reads <= fc.at.reads_high
    for p in fc.curve:
        assert p.reads_low <= p.reads <= p.reads_high, p
    pages, used, _ = keymodel.page_trace(Workload("random", 200_000, seed=1).ids(), G)
    ms_per_ref = 1000.0 / model.DEFAULT_QPS * used / len(pages)  # as keymodel.forecast_keys paces it
    lo, hi = keymodel.cleaner_bounds(pages, G, model.pool_model(16 << 20, {}, "mysql"), ms_per_ref)
    assert lo < hi and fc.at.reads_low <= lo and hi <= fc.at.reads_high


def test_predict_advise_shows_the_current_pool_as_the_forecast_does_on_mysql():
    adv = advise.advise("looped", 10, 2, G, 16 << 20, ram_bytes=1 << 30, flavor="mysql")
    fc = forecast.forecast("looped", 10, 2, G, 16 << 20, flavor="mysql")
    [current] = [r for r in adv.rows if r.pool_bytes == 16 << 20]
    before = current.reads_high - current.reads_low
    advise.widen_current(adv, fc.at)
    assert current.reads_low <= fc.at.reads_low and fc.at.reads_high <= current.reads_high
    assert current.reads_high - current.reads_low > before  # the cleaner's range, which the advice lacks
    assert current.reads_low <= current.reads <= current.reads_high


def test_compare_says_whether_the_new_pages_read_are_outside_the_base_runs_interval():
    from loadgen.results import compare
    from loadgen.results.documents import RunResult

    base = json.loads((DATA / "run_B_mariadb.json").read_text())
    base["prediction"] = predicted(base)
    lo, hi = base["prediction"]["reads_low"], base["prediction"]["reads_high"]
    same = RunResult.from_dict(base)
    far = RunResult.from_dict({**base, "buffer_pool": {**base["buffer_pool"], "pages_read": hi + 500}})
    [inside] = [n for n in compare.compare_files([same], [same]).notes if "interval" in n]
    [outside] = [n for n in compare.compare_files([same], [far]).notes if "interval" in n]
    assert "inside" in inside and "within the model's noise" in inside
    assert "outside" in outside and "beyond the model's noise" in outside
    assert lo <= same.headline()[0] <= hi


def test_a_scaled_copys_prediction_spans_its_standard_error():
    """Past scaled.EXACT_MAX_PAGES the table is simulated on a smaller copy with a standard error:
    the interval spans at least +-2 SE around the estimate."""
    g = model.estimate_geometry(1_000_000_000, "chat")
    fc = forecast.forecast("looped", 10, 2, g, 1 << 30, curve_pools=[2 << 30])
    assert fc.at.scale > 1 and fc.at.reads_se > 0
    assert fc.at.reads_low <= fc.at.reads - 2 * fc.at.reads_se and fc.at.reads + 2 * fc.at.reads_se <= fc.at.reads_high
    for p in fc.curve:
        assert p.reads_low <= p.reads <= p.reads_high, p


def test_the_calibrated_floor_is_the_servers_own():
    """bench_intervals --fit per server: MySQL's larger errors (scans to 4.6%, key streams to 3.8%)
    widen only MySQL's intervals."""
    maria, mysql = model.pool_model(16 << 20, {}, "mariadb"), model.pool_model(16 << 20, {}, "mysql")
    assert intervals.floor_of(maria) == intervals.FLOOR_REL < intervals.FLOOR_REL_MYSQL == intervals.floor_of(mysql)
    w_maria = width(intervals.for_pool(10_000, maria, start_measured=True))
    w_mysql = width(intervals.for_pool(10_000, mysql, start_measured=True))
    assert w_mysql > w_maria


def test_workloads_the_grid_does_not_hold_keep_the_wider_floor(monkeypatch):
    """The floors are fitted on A/B and the random and zipfian key streams; a hotspot stream (like
    a captured trace, mixes and secondary keys) keeps the wider floors of before, on either server:
    with those set to 50%, only the hotspot stream's interval reaches that far."""
    from loadgen.workload.orders import Workload

    monkeypatch.setattr(intervals, "UNFITTED_FLOOR_REL", 0.5)
    monkeypatch.setattr(intervals, "UNFITTED_FLOOR_REL_MYSQL", 0.5)
    for flavor in ("mariadb", "mysql"):
        pool = model.pool_model(16 << 20, {}, flavor)
        assert intervals.floor_of(pool, fitted=False) == 0.5 > intervals.floor_of(pool)
        for order, wide in (("zipfian", False), ("hotspot", True)):
            at = keymodel.forecast_keys(Workload(order, 200_000, count=20_000, seed=1), G, 16 << 20,
                                        flavor=flavor).at
            assert (at.reads_high - at.reads >= 0.5 * at.reads) == wide, (flavor, order, at)
        at = forecast.forecast("looped", 10, 2, G, 16 << 20, flavor=flavor).at
        assert at.reads_high - at.reads < 0.5 * at.reads, (flavor, at)


def test_a_write_traces_total_carries_the_write_side_as_a_mixs_total_does():
    """A captured read/write trace's total interval has the write side's guesses (write_swing) like
    its tables' and a mix's total; without them 12 of 27 read/write captures at 64M fell below it
    (docs/capture.md, "The intervals"). A read-only trace's is as it was."""
    for flavor in ("mariadb", "mysql"):
        pool = model.pool_model(64 << 20, {}, flavor)
        plain = intervals.for_pool(180_000, pool, fitted=False)
        wrote = intervals.for_pool(180_000, pool, fitted=False, writes=True, undo=500)
        assert intervals.for_pool(180_000, pool, fitted=False, writes=False, undo=500) == plain
        assert wrote[0] < plain[0] and wrote[1] > plain[1]
        # the write side's 5% in quadrature with the unfitted floor: more than 5% either side
        assert 180_000 - wrote[0] > intervals.WRITE_SPREAD_REL * 180_000
        lo, hi = intervals.table_interval(180_000, pool, writes=True, undo=500)
        assert abs((wrote[1] - wrote[0]) - (hi - lo)) <= 0.01 * (hi - lo)  # the same sources

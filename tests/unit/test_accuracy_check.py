"""The accuracy tests' shared check (tests/accuracy.py) tells a regression from the model's noise:
the measured grid of test_model_accuracy passes, one point a little outside passes, and the same
grid with the model 10% off (either way), or one point far out, fails."""
import pytest

from loadgen.analysis import intervals

from ..accuracy import Point, check, misses_allowed

# MariaDB 10.11 at the server defaults (test_model_accuracy's docstring): (label, read, predicted)
GRID = [("A 8M", 1646, 1638), ("A 16M", 1646, 1638), ("A 32M", 1648, 1642), ("A 64M", 1636, 1636),
        ("B 8M", 3293, 3273), ("B 16M", 3296, 3273), ("B 32M", 2712, 2749), ("B 64M", 1636, 1636)]


def grid(shift: float = 1.0, bound_rel: float = 0.05) -> list[Point]:
    out = []
    for label, read, pred in GRID:
        p = round(pred * shift)
        low, high = intervals.interval(p, read_ahead=True)  # the calibrated floor and read-ahead jitter
        out.append(Point(label, read, p, low, high, bound_rel))
    return out


def test_the_measured_grid_passes():
    assert check(grid()) == []


def test_one_point_a_little_outside_passes_and_is_reported():
    points = grid()
    points[6].measured = round(points[6].high * 1.02)  # B at 32M, 2% past its interval's high end
    assert [p.label for p in check(points)] == ["B 32M"]


@pytest.mark.parametrize("shift", [1.10, 0.90])
def test_a_model_10_percent_off_everywhere_fails(shift):
    with pytest.raises(AssertionError, match="points outside"):
        check(grid(shift))


def test_one_point_far_out_fails():
    points = grid()
    points[4].measured = round(points[4].predicted * 1.25)  # B at 8M read 25% more than predicted
    with pytest.raises(AssertionError, match=r"1 beyond 2x"):
        check(points)


def test_the_point_estimate_is_held_to_its_bound_too():
    # an interval wide enough to hold a 12% error does not excuse it where the bound is 5%
    wide = [Point(p.label, p.measured, round(p.predicted * 1.12), 0, 10 ** 6, 0.05) for p in grid()]
    with pytest.raises(AssertionError):
        check(wide)


def test_a_prediction_without_an_interval_fails():
    with pytest.raises(AssertionError, match="no interval"):
        check([Point("x", 100, 100, None, None, 0.05)])


def test_misses_allowed_follow_the_binomial_at_95_percent():
    # P(more than k of n outside) <= 1%: 8 points -> 2 (P(>1) = 5.7%, P(>2) = 0.6%)
    assert [misses_allowed(n) for n in (1, 2, 6, 8, 16)] == [1, 1, 2, 2, 3]
    assert misses_allowed(8, coverage=0.999) == 0


def test_the_ledger_keeps_the_points_measured_in_this_run_not_a_unit_tests_stored_ones(monkeypatch):
    """tests/accuracy.py LEDGER, listed at the run's end (conftest.py): an integration test's point
    with its test's name; a unit test's (a stored run re-predicted) left out."""
    from .. import accuracy

    monkeypatch.setattr(accuracy, "LEDGER", [])
    accuracy.note("a stored run")  # this test is under tests/unit
    assert accuracy.LEDGER == []
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/integration/test_x.py::test_y[16M] (call)")
    accuracy.note("read 100, predicted 101")
    assert accuracy.LEDGER == ["test_y[16M]: read 100, predicted 101"]

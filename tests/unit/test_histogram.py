import random

import pytest

from loadgen.measure.histogram import Histogram, bucket_bounds, bucket_index


def test_every_value_lands_in_a_bucket_that_contains_it():
    rng = random.Random(1)
    values = list(range(0, 5000)) + [rng.randrange(1, 10**12) for _ in range(20000)]
    for v in values:
        low, high = bucket_bounds(bucket_index(v))
        assert low <= v < high
        assert (high - low) / max(low, 1) <= 1 / 128 or high - low == 1


def test_percentiles_agree_with_exact_ones_within_bucket_precision():
    rng = random.Random(2)
    # a bimodal latency mix like hits (~20 us) and misses (~150 us), in ns
    values = [int(rng.lognormvariate(9.9, 0.2)) for _ in range(50_000)]
    values += [int(rng.lognormvariate(11.9, 0.3)) for _ in range(2_000)]
    h = Histogram()
    for v in values:
        h.record(v)
    values.sort()
    for q in (50, 95, 99, 99.9):
        exact = values[max(0, int(q / 100 * len(values) + 0.5) - 1)]
        assert h.percentile(q) == pytest.approx(exact, rel=0.01)
    s = h.summary_us()
    assert s.count == len(values)
    assert s.max == values[-1] / 1000
    assert s.mean == pytest.approx(sum(values) / len(values) / 1000)


def test_merge_and_round_trip():
    a, b = Histogram(), Histogram()
    for v in range(1000, 2000):
        a.record(v)
    for v in range(5000, 6000):
        b.record(v)
    a.merge(b)
    assert a.count == 2000 and a.max_ns == 5999 and a.min_ns == 1000
    back = Histogram.from_dict(a.to_dict())
    assert back.count == 2000
    assert back.percentile(50) == pytest.approx(a.percentile(50), rel=0.01)


def test_memory_is_bounded_whatever_the_count():
    h = Histogram()
    for v in range(200_000):
        h.record(v * 37)
    assert len(h.counts) == len(Histogram().counts)

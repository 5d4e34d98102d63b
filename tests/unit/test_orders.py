import itertools
import tracemalloc

import pytest

from loadgen.errors import UsageError
from loadgen.workload.orders import Workload, permutation, resolve


def test_interleaved_queries_each_id_reps_times_in_a_row():
    w = Workload("interleaved", rows=35, stride=10, reps=2)
    assert list(w.ids()) == [1, 1, 11, 11, 21, 21, 31, 31]
    assert w.queries == 8


def test_looped_makes_full_passes():
    w = Workload("looped", rows=35, stride=10, reps=3)
    assert list(w.ids()) == [1, 11, 21, 31] * 3
    assert w.queries == 12


def test_sequential_is_one_pass():
    w = Workload("sequential", rows=35, stride=10, reps=5)
    assert list(w.ids()) == [1, 11, 21, 31]
    assert w.queries == 4


def test_random_queries_the_same_multiset_in_another_order_and_is_seeded():
    w = Workload("random", rows=10_000, stride=10, reps=2, seed=7)
    got = list(w.ids())
    assert sorted(got) == sorted(Workload("looped", rows=10_000, stride=10, reps=2).ids())
    assert got[:1000] != list(range(1, 10_001, 10))
    assert got == list(Workload("random", rows=10_000, stride=10, reps=2, seed=7).ids())
    assert got != list(Workload("random", rows=10_000, stride=10, reps=2, seed=8).ids())
    # each pass is a permutation of its own
    first, second = got[:1000], got[1000:]
    assert sorted(first) == sorted(second) and first != second


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000, 4097])
def test_permutation_is_a_bijection(n):
    assert sorted(permutation(n, 42)) == list(range(n))


def test_seed_case_counts_and_memory_stays_flat():
    # The seed's full case: 100M rows, stride 10, 2 reps = 20M queries.
    w = Workload("looped", rows=100_000_000, stride=10, reps=2)
    assert w.queries == 20_000_000
    tracemalloc.start()
    for order in ("interleaved", "looped", "random"):
        stream = Workload(order, rows=100_000_000, stride=10, reps=2).ids()
        for _ in itertools.islice(stream, 200_000):
            pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1 << 20, f"id streams allocated {peak} bytes"


def test_resolve_variations_and_orders():
    assert resolve("A", None) == ("interleaved", "A")
    assert resolve("b", None) == ("looped", "B")
    assert resolve(None, "random") == ("random", None)
    with pytest.raises(UsageError):
        resolve("C", None)
    with pytest.raises(UsageError):
        resolve("A", "looped")


@pytest.mark.parametrize("kw", [{"stride": 0}, {"reps": 0}, {"rows": 0}])
def test_bad_shapes_are_usage_errors(kw):
    args = {"rows": 100, "stride": 10, "reps": 2, **kw}
    with pytest.raises(UsageError):
        Workload("interleaved", **args)

"""The random order's ids from C (native/permute.c) against the Python Feistel network."""
from __future__ import annotations

import itertools

import pytest

from loadgen.workload import orders
from loadgen.workload.orders import Workload, permutation, permuted


@pytest.fixture(scope="module", autouse=True)
def native_permute():
    if orders._native_permute() is None:
        pytest.skip("loadgen._native has no permute_fill")


@pytest.mark.parametrize("n", [2, 3, 4, 5, 16, 17, 1000, 4096, 4097, 65_537, 200_000])
@pytest.mark.parametrize("key", [0, 1, 1_000_004, 2**40 + 7])
def test_c_permutation_is_the_python_one(n, key):
    base = range(1, n + 1)
    assert list(permuted(base, key)) == [base[k] for k in permutation(n, key)]


def test_strided_and_sliced_bases():
    for base in (range(1, 1_000_001, 10), range(1, 1_000_001, 10)[3333:66666], range(7, 8)):
        assert list(permuted(base, 5)) == list(permuted(base, 5, native=False))
    assert sorted(permuted(range(1, 100_001, 3), 9)) == list(range(1, 100_001, 3))


def test_the_random_order_is_unchanged():
    w = Workload("random", 50_000, stride=7, reps=3, seed=11)
    python = itertools.chain.from_iterable(
        (range(1, 50_001, 7)[k] for k in permutation(len(range(1, 50_001, 7)), 11 * 1_000_003 + rep))
        for rep in range(3))
    assert list(w.ids()) == list(python)

"""Key distributions (loadgen/workload/patterns.py, native/keydist.c): YCSB's definitions, held to their
distributions by chi-square on a sample, C equal to the Python reference, lazy."""
from __future__ import annotations

import itertools
import math
import tracemalloc
from collections import Counter

import pytest

from loadgen.workload import patterns
from loadgen.errors import UsageError
from loadgen.workload.orders import Workload
from loadgen.workload.patterns import Pattern, fnvhash64, zeta, zipf_rank_cdf

SAMPLE = 200_000


def chi_square(observed: list[int], expected: list[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected) if e > 0)


def critical(df: int, z: float = 3.29) -> float:
    """Chi-square quantile at p = 0.0005 (Wilson-Hilferty): a correct generator fails 1 in 2,000."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def sample(p: Pattern, n: int = SAMPLE) -> Counter:
    return Counter(p.keys(0, n))


def test_zeta_matches_ycsb_constant():
    # YCSB's ScrambledZipfianGenerator.ZETAN is zeta(10^10, 0.99), summed term by term in doubles
    assert zeta(10 ** 10, 0.99) == pytest.approx(patterns.YCSB_ZETAN, rel=1e-11)
    assert zeta(50_000, 0.5) == pytest.approx(math.fsum(i ** -0.5 for i in range(1, 50_001)), rel=1e-12)


def test_fnvhash64_is_ycsbs():
    # FNV-1 over the 8 little-endian bytes of 0, then Math.abs of the signed long
    h = 0xCBF29CE484222325
    for _ in range(8):
        h = (h * 1099511628211) & (2 ** 64 - 1)
    assert fnvhash64(0) == ((-h) & (2 ** 64 - 1) if h >> 63 else h)
    assert fnvhash64(1) != fnvhash64(0)


@pytest.mark.parametrize("name,scrambled", [("uniform", True), ("zipfian", True), ("zipfian", False),
                                            ("latest", True), ("hotspot", True)])
def test_c_is_the_python_reference(name, scrambled):
    p = Pattern(name, 123_457, seed=9, scrambled=scrambled, theta=0.9 if name == "latest" else 0.99)
    if patterns.native_fill() is None:
        pytest.skip("loadgen._native has no keydist_fill")
    c = list(p.keys(0, 5000))
    assert c == list(p.keys(0, 5000, native=False))
    assert list(p.keys(4321, 5000)) == c[4321:]  # any start: counter-based
    assert all(1 <= k <= 123_457 for k in c)


def test_uniform_matches_its_distribution():
    n = 100_000
    counts = sample(Pattern("uniform", n, seed=2))
    bins = [0] * 100
    for k, c in counts.items():
        bins[(k - 1) * 100 // n] += c
    chi = chi_square(bins, [SAMPLE / 100] * 100)
    assert chi < critical(99), chi


def _rank_bins(items: int) -> list[int]:
    """Bin edges over ranks: 0..29 one each, then doubling."""
    edges, r = list(range(31)), 60
    while r < items:
        edges.append(r)
        r *= 2
    return edges + [items]


@pytest.mark.parametrize("theta", [0.99, 0.7])
def test_unscrambled_zipfian_matches_ycsbs_generator(theta):
    n = 100_000
    p = Pattern("zipfian", n, seed=4, theta=theta, scrambled=False)
    counts = sample(p)
    edges = _rank_bins(n)
    obs = [sum(counts.get(1 + r, 0) for r in range(a, b)) for a, b in zip(edges, edges[1:])]
    cdf = [zipf_rank_cdf(b - 1, n, p.zetan, theta) for b in edges[1:]]
    exp = [SAMPLE * (c - c0) for c0, c in zip([0.0] + cdf, cdf)]
    chi = chi_square(obs, exp)
    assert chi < critical(len(obs) - 1), chi
    # rank 0 is exactly Zipf's 1/zeta(n): the top key's share
    assert counts[1] / SAMPLE == pytest.approx(1 / zeta(n, theta), rel=0.03)
    # and the same sample is far from uniform (the test can fail)
    assert chi_square(obs, [SAMPLE * (b - a) / n for a, b in zip(edges, edges[1:])]) > 100 * critical(len(obs) - 1)


def test_latest_is_zipfian_from_the_newest_key():
    n = 50_000
    p = Pattern("latest", n, seed=5)
    counts = sample(p)
    edges = _rank_bins(n)
    obs = [sum(counts.get(n - r, 0) for r in range(a, b)) for a, b in zip(edges, edges[1:])]
    cdf = [zipf_rank_cdf(b - 1, n, p.zetan, 0.99) for b in edges[1:]]
    exp = [SAMPLE * (c - c0) for c0, c in zip([0.0] + cdf, cdf)]
    chi = chi_square(obs, exp)
    assert chi < critical(len(obs) - 1), chi
    assert counts.most_common(1)[0][0] == n


def test_scrambled_zipfian_matches_ycsbs_scrambled_generator():
    # ranks over 10^10 items, key = fnvhash64(rank) mod n: the expected share of each key is the
    # mass of the ranks hashed onto it (ranks below R exactly, the far tail spread evenly)
    n, big_r = 1000, 100_000
    p = Pattern("zipfian", n, seed=6)
    counts = sample(p)
    exp = [0.0] * n
    prev = 0.0
    for r in range(big_r):
        c = zipf_rank_cdf(r, p.items, p.zetan, 0.99)
        exp[fnvhash64(r) % n] += c - prev
        prev = c
    exp = [SAMPLE * (e + (1 - prev) / n) for e in exp]
    obs = [counts.get(1 + k, 0) for k in range(n)]
    chi = chi_square(obs, exp)
    assert chi < critical(n - 1), chi
    hottest = 1 + fnvhash64(0) % n
    assert counts.most_common(1)[0][0] == hottest
    assert counts[hottest] / SAMPLE == pytest.approx(exp[hottest - 1] / SAMPLE, rel=0.03)


def test_hotspot_matches_its_distribution():
    n = 100_000
    p = Pattern("hotspot", n, seed=7, hot_fraction=0.2, hot_ops=0.8)
    counts = sample(p)
    hot_n = p.hot_n
    assert hot_n == 20_000
    obs = [0] * 20
    for k, c in counts.items():
        i = k - 1
        obs[i * 10 // hot_n if i < hot_n else 10 + (i - hot_n) * 10 // (n - hot_n)] += c
    exp = [SAMPLE * 0.8 / 10] * 10 + [SAMPLE * 0.2 / 10] * 10
    chi = chi_square(obs, exp)
    assert chi < critical(19), chi
    assert sum(obs[:10]) / SAMPLE == pytest.approx(0.8, abs=0.005)


@pytest.mark.parametrize("order", ["zipfian", "hotspot", "latest", "uniform"])
def test_streams_are_lazy_and_deterministic(order):
    w = Workload(order, rows=100_000_000, stride=10, reps=2, seed=3)
    assert w.queries == 20_000_000
    tracemalloc.start()
    for _ in itertools.islice(w.ids(), 300_000):
        pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1 << 20, f"{order} allocated {peak} bytes"
    first = list(itertools.islice(w.ids(), 1000))
    assert first == list(itertools.islice(Workload(order, 100_000_000, seed=3).ids(), 1000))
    assert first != list(itertools.islice(Workload(order, 100_000_000, seed=4).ids(), 1000))


def test_queries_and_threads_split_the_operations():
    w = Workload("zipfian", rows=10_000, count=5000, seed=1)
    assert w.queries == 5000
    whole = list(w.ids())
    assert len(whole) == 5000
    assert list(itertools.chain(*(w.ids(k, 3) for k in range(3)))) == whole


@pytest.mark.parametrize("kw", [{"zipf_theta": 1.0}, {"zipf_theta": 0}, {"hot_fraction": 0},
                                {"hot_ops": 1.5}, {"count": 0}])
def test_bad_knobs_are_usage_errors(kw):
    order = "hotspot" if "hot_fraction" in kw or "hot_ops" in kw else "zipfian"
    with pytest.raises(UsageError):
        Workload(order, 1000, **kw)

"""The fast curve (miniatures, loadgen/analysis/curve.py) against full simulations, and the advice built on it."""
import random
from array import array

import pytest

from loadgen.analysis import advise, curve, model
from loadgen.errors import UsageError
from loadgen.workload.orders import parse_variations

G = model.estimate_geometry(1_200_000)  # 9,796 leaves in 154 extents, height 3
CAPACITIES = (2_000, 3_000, 6_000)  # miniatures at rates 0.32, 0.21 and 0.11


def pools(ra_threshold: int = 0) -> list[model.PoolModel]:
    return [model.PoolModel(pool_pages=c + 1152, capacity_pages=c, ra_threshold=ra_threshold,
                            ra_area=64) for c in CAPACITIES]


def random_trace(g: model.Geometry, stride: int, reps: int, seed: int) -> array:
    """The random order's page trace: reps passes, each a different permutation of the ids."""
    sizes = model.level_sizes(g)
    rng = random.Random(seed)
    ids = list(range(1, g.rows + 1, stride))
    out = array("I")
    for _ in range(reps):
        rng.shuffle(ids)
        for i in ids:
            leaf = (i - 1) * g.leaf_pages // g.rows
            out.extend((g.n_pages - 1, g.leaf_pages + leaf // g.fanout, leaf))  # root, level 1, leaf
    assert sizes[1] == -(-g.leaf_pages // g.fanout)
    return out


def within_error(fast: list[curve.Estimate], exact: list[curve.Estimate]) -> list[tuple]:
    return [(f.reads, e.reads, round(f.reads_se)) for f, e in zip(fast, exact)
            if abs(f.reads - e.reads) > 3 * f.reads_se]


@pytest.mark.parametrize("order,ra", [("interleaved", 0), ("looped", 0), ("looped", 56), ("interleaved", 56)])
@pytest.mark.parametrize("salt", [0, 99])
def test_miniatures_are_within_their_error_of_the_full_simulation(order, ra, salt):
    src = curve.workload_source(order, 10, 2, G, ra)
    fast = curve.estimate(src, pools(ra), salt=salt, tolerance=1.0)  # keep every miniature
    exact = curve.estimate(src, pools(ra), exact=True)
    assert all(not f.exact and 0 < f.rate < 0.4 for f in fast)  # they were miniatures
    assert all(e.exact and e.reads_se == 0 for e in exact)
    assert not within_error(fast, exact)
    exact_one = model.simulate_detail(order, 10, 2, G, pools(ra)[1])
    assert exact[1].reads == exact_one[1] and exact[1].refs == exact_one[0]  # the batch kernel is the same model


@pytest.mark.parametrize("seed", [1, 2])
def test_miniatures_of_the_random_order_are_within_their_error(seed):
    trace = random_trace(G, 10, 2, seed)
    src = curve.trace_source(trace, G.n_pages, G.leaf_pages)
    fast = curve.estimate(src, pools(), salt=seed, tolerance=1.0)
    exact = curve.estimate(src, pools(), exact=True)
    assert all(not f.exact for f in fast)
    assert not within_error(fast, exact)
    assert fast[0].reads_se > 0  # re-reads were sampled: the error is real, not zero by construction
    # a random order scatters a leaf's ~12 ids over the pass: most selects miss, fewer in a larger pool
    assert G.leaf_pages < exact[-1].reads < exact[0].reads < len(trace) // 3


def test_a_point_whose_error_exceeds_the_tolerance_is_simulated_exactly():
    src = curve.workload_source("looped", 10, 2, G, 0)
    loose = curve.estimate(src, pools(), tolerance=1.0)
    strict = curve.estimate(src, pools(), tolerance=1e-9)
    assert any(not e.exact for e in loose)
    assert all(e.exact for e in strict if e.reads_se or not e.exact)
    assert [e.reads for e in strict] == [e.reads for e in curve.estimate(src, pools(), exact=True)]


def batched_pools(ra_threshold: int) -> list[model.PoolModel]:
    # MariaDB's defaults: innodb_lru_scan_depth 1536, batches of 768 (model.pool_model)
    return [model.pool_model(mib << 20, {"innodb_read_ahead_threshold": ra_threshold}) for mib in (32, 64, 128)]


@pytest.mark.parametrize("order", ["looped", "interleaved"])
@pytest.mark.parametrize("salt", [0, 99])
def test_page_cleaner_batches_with_read_ahead_are_within_their_error(order, salt):
    # MariaDB's defaults: batches of 768 with read-ahead's 64-page bursts. The miniatures keep the
    # old sublist in weighted units and move a burst's young pages to the head before a batch
    # inside the burst (native/lrusim/cleaner.c make_room): without that they fell up to 4.2% below the
    # exact model at 100M rows, 1-4G (bench/README.md)
    ps = batched_pools(56) + [model.pool_model(mib << 20) for mib in (48, 96)]
    assert all(p.cleaner_batch == 768 for p in ps[1:])
    src = curve.workload_source(order, 10, 2, G, 56)
    fast = curve.estimate(src, ps, salt=salt, tolerance=1.0)
    exact = curve.estimate(src, ps, exact=True)
    assert all(not f.exact and 0 < f.rate < curve.EXACT_ABOVE_RATE for f in fast[1:])
    assert not within_error(fast, exact)
    assert [e.reads for e in exact] == [model.simulate_detail(order, 10, 2, G, p)[1] for p in ps]


@pytest.mark.parametrize("salt", [0, 99])
def test_page_cleaner_batches_without_read_ahead_scale_in_miniatures(salt):
    ps = batched_pools(0)
    src = curve.workload_source("looped", 10, 2, G, 0)
    fast = curve.estimate(src, ps, salt=salt, tolerance=1.0)
    exact = curve.estimate(src, ps, exact=True)
    assert any(not f.exact for f in fast)  # some were miniatures
    assert not within_error(fast, exact)


def test_a_miniature_never_drops_under_its_floor():
    for capacity in (200, 600, 2_000, 60_000, 6_000_000):
        p = model.PoolModel(pool_pages=capacity, capacity_pages=capacity)
        r = curve.rate_for(p, 0.001)
        assert r == 1.0 or r * capacity >= curve.MINIATURE_MARGIN * curve.min_pages(p) * 0.999
        assert curve.MIN_MINIATURE_FLOOR <= curve.min_pages(p) <= curve.MIN_MINIATURE_PAGES


def test_pools_that_simulate_the_same_share_one_simulation(monkeypatch):
    # two pools holding the whole table (nothing is ever evicted) and a pool given twice
    big = [model.pool_model(mib << 20) for mib in (256, 512)]
    assert all(p.capacity_high > G.n_pages + model.FILLER_SLOTS for p in big)
    small = model.pool_model(64 << 20)
    ps = [small, big[0], small, big[1]]
    seen = []
    real = curve._run
    monkeypatch.setattr(curve, "_run", lambda src, pools, *a: seen.append(len(pools)) or real(src, pools, *a))
    src = curve.workload_source("looped", 10, 2, G, 56)
    est = curve.estimate(src, ps, exact=True)
    assert seen == [2]  # one simulation for each kind
    assert est[0].reads == est[2].reads and est[1].reads == est[3].reads
    assert est[3].reads == model.simulate_detail("looped", 10, 2, G, big[1])[1] == G.n_pages  # every page once
    assert est[0].reads == model.simulate_detail("looped", 10, 2, G, small)[1] > G.n_pages


# -- advice -------------------------------------------------------------------------------------
BIG = model.estimate_geometry(20_000_000)  # 163k leaves: a looped cliff at about 2.6 GiB


def test_advice_never_exceeds_the_memory_given_and_rounds_like_the_server():
    ram = 300 << 20
    a = advise.advise("looped", 10, 2, G, 128 << 20, ram_bytes=ram, ms_per_read=0.2)
    others = [r for r in a.rows if r.factor != 1.0]
    assert others and all(r.pool_bytes <= ram for r in others)
    assert all(r.pool_bytes % a.unit_bytes == 0 for r in others)
    assert set(a.dropped) == {3.0, 4.0}  # 384M and 512M would pass 300M
    assert all(b <= ram for b, _, _ in a.curve)
    cur = next(r for r in a.rows if r.factor == 1.0)
    assert cur.read_factor == 1.0 and cur.read_time_s == pytest.approx(cur.reads * 0.2 / 1000)
    mysql = advise.advise("looped", 10, 2, G, 1536 << 20, flavor="mysql", ram_bytes=64 << 30, instances=4)
    assert mysql.unit_bytes == 512 << 20 and all(r.pool_bytes % (512 << 20) == 0 for r in mysql.rows)


def test_knee_is_stable_under_a_change_of_salt():
    knees = {advise.advise("looped", 10, 2, BIG, 128 << 20, ram_bytes=64 << 30, salt=s).knee_bytes
             for s in (0, 1, 2, 12345)}
    assert len(knees) == 1
    knee = knees.pop()
    assert advise.fit_bytes(BIG, "mariadb", 1536) * 0.8 <= knee <= advise.fit_bytes(BIG, "mariadb", 1536) * 1.3


def test_knee_of_a_convex_curve_is_where_it_bends():
    xs = [2 ** i for i in range(10)]
    ys = [1000 / (1 + 2 ** (i - 3)) + 10 for i in range(10)]  # falls fast around 2^3, then flat
    k, how = advise.knee_index(xs, ys)
    assert 3 <= k <= 6 and "Kneedle" in how
    assert advise.knee_index(xs, [100.0] * 10)[0] is None


def test_marginal_gib_in_words():
    a = advise.advise("looped", 10, 2, BIG, 1 << 30, ram_bytes=64 << 30)
    assert "+1 GiB (to 2 GiB) saves" in a.marginal and "reads per 1k queries" in a.marginal
    tight = advise.advise("looped", 10, 2, G, 128 << 20, ram_bytes=512 << 20)
    assert "does not fit" in tight.marginal


def test_advice_needs_memory_to_cap_at(monkeypatch):
    monkeypatch.setattr(advise, "mem_available_bytes", lambda path="": None)
    with pytest.raises(UsageError):
        advise.advise("looped", 10, 2, G, 128 << 20)


def test_ms_per_read_from_a_result():
    from loadgen.results.documents import RunResult

    def run(flavor: str, **bp) -> RunResult:
        return RunResult(format_version=1, server={"flavor": flavor}, buffer_pool=bp,
                         result={"latency_us": {"mean": 150.0, "p50": 50.0}, "queries": 1000})

    assert advise.ms_per_read_from(run("mariadb", reads=50)) == pytest.approx(2.0)  # 100 us x 1000 queries / 50
    # a v1 MySQL file: its reads leave read-ahead out; the headline (reads + read_ahead) is the divisor
    assert advise.ms_per_read_from(run("mysql", reads=50, read_ahead=50)) == pytest.approx(1.0)
    assert advise.ms_per_read_from(run("mysql", reads=50)) is None  # cannot tell, as compare says
    assert advise.ms_per_read_from(RunResult()) is None


def test_sweep_pools_auto_are_around_the_predicted_knee():
    from loadgen.analysis import sweep

    pools, knees = sweep.knee_pools(200_000, "chat", parse_variations("A,B"), {"stride": 10, "reps": 2})
    assert knees["A"] is None  # interleaved reads each leaf once at any pool: no knee
    assert 32 << 20 <= knees["B"] <= 96 << 20  # looped: the table (1,633 leaves) fits at ~40-50 MiB
    assert knees["B"] in pools and knees["B"] // 2 >> 23 << 23 in pools and 2 * knees["B"] in pools
    assert all(p % (8 << 20) == 0 for p in pools) and len(pools) <= 4


@pytest.mark.parametrize("order", ["interleaved", "looped", "sequential"])
@pytest.mark.parametrize("ra", [0, 56])
def test_the_curve_pass_gives_the_plain_lru_histogram_of_the_workload(order, ra):
    # the same pass as the miniatures, its leaf steps left out: model.stack_histogram's numbers
    src = curve.workload_source(order, 7, 2, G, ra)
    est, hist = curve.estimate_and_plain_lru(src, pools(ra), tolerance=1.0)
    assert hist == model.stack_histogram(order, 7, 2, G)
    assert [e.reads for e in est] == [e.reads for e in curve.estimate(src, pools(ra), tolerance=1.0)]
    trace = random_trace(G, 10, 1, 5)
    _, thist = curve.estimate_and_plain_lru(curve.trace_source(trace, G.n_pages, G.leaf_pages), pools())
    assert thist == model.stack_histogram_trace(trace, G.n_pages)


@pytest.mark.parametrize("order", ["looped", "interleaved"])
@pytest.mark.parametrize("salt", [0, 99])
def test_small_pools_with_read_ahead_are_within_their_error(order, salt):
    # 8M-24M: 192-400 data pages, read-ahead areas of 16-32 pages. A miniature a burst nearly
    # fills thrashes (16M in 30 pages: +19.5% at 100M rows), so it holds 1.5 areas at least.
    # A scan depth of 100: at the default 1536 these pools keep their LRU list at 256 pages or
    # under (model.pool_model), too few for a miniature
    ps = [model.pool_model(mib << 20, {"innodb_lru_scan_depth": 100}) for mib in (8, 16, 24)]
    assert all(curve.min_pages(p) >= p.ra_area * 3 // 2 for p in ps)
    src = curve.workload_source(order, 10, 2, G, 56)
    fast = curve.estimate(src, ps, salt=salt, tolerance=1.0)
    exact = curve.estimate(src, ps, exact=True)
    assert all(not f.exact for f in fast)
    assert not within_error(fast, exact)

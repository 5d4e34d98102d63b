"""The C kernel (native/lrusim/, bound in native/lrusim.c) against the pure-Python references in
loadgen/analysis/lru_reference.py."""
import random

import pytest

from loadgen.analysis import lru_reference as ref
from loadgen.analysis import model


def random_trace(rng: random.Random, n_pages: int, length: int) -> list[int]:
    # half skewed (a hot set), half uniform: exercises hits, promotions and evictions
    return [min(n_pages - 1, int(rng.expovariate(4 / n_pages))) if rng.random() < 0.5 else rng.randrange(n_pages)
            for _ in range(length)]


@pytest.mark.parametrize("seed", range(12))
def test_innodb_kernel_equals_reference_on_random_traces(seed):
    rng = random.Random(seed)
    n_pages = rng.choice([30, 700, 1600])
    capacity = rng.choice([4, 300, 511, 512, 513, 900])
    trace = random_trace(rng, n_pages, rng.randint(3000, 8000))
    pool = model.PoolModel(pool_pages=capacity + rng.choice([0, 50]), capacity_pages=capacity,
                           old_pct=rng.choice([20, 37, 60]), old_time_ms=rng.choice([0, 3, 1000]))
    c = model.simulate_trace(trace, n_pages, pool, ms_per_ref=1.0)
    py = ref.py_simulate(((p, i) for i, p in enumerate(trace)), pool.capacity_pages, pool.pool_pages,
                            pool.old_pct, pool.old_time_ms, 1.0)
    assert c == py[:4] and py[4:] == (0, 0)  # a bare trace has no read-ahead
    assert c[1] <= len(trace)


@pytest.mark.parametrize("seed", range(8))
def test_mattson_kernel_equals_brute_force(seed):
    rng = random.Random(100 + seed)
    n_pages = rng.choice([3, 50, 400])
    trace = random_trace(rng, n_pages, rng.randint(1, 5000))  # long enough to compact the Fenwick tree
    assert list(model.stack_histogram_trace(trace, n_pages)) == ref.py_stack_histogram(trace, n_pages)


@pytest.mark.parametrize("order", ["interleaved", "looped", "sequential"])
def test_workload_expansion_in_c_equals_python_trace(order):
    g = model.Geometry(rows=60_000, leaf_pages=490, height=3, fanout=200)
    pool = model.PoolModel(pool_pages=700, capacity_pages=520, qps=15_000)
    c = model.simulate(order, 7, 3, g, pool)
    py = ref.py_simulate(ref.py_trace(order, 7, 3, g), 520, 700, pool.old_pct, pool.old_time_ms,
                            1000 / pool.qps)
    assert c == py[:4]
    trace = [p for p, _ in ref.py_trace(order, 7, 3, g)]
    assert list(model.stack_histogram(order, 7, 3, g)) == ref.py_stack_histogram(trace, g.n_pages)


@pytest.mark.parametrize("order,capacity,area,threshold", [("interleaved", 300, 16, 56), ("looped", 300, 16, 56),
                                                           ("looped", 520, 64, 56), ("interleaved", 40, 16, 8),
                                                           ("looped", 900, 32, 60)])
def test_read_ahead_in_c_equals_python(order, capacity, area, threshold):
    # 2,000 leaves span fragment pages and 30 extents; small pools evict pages read ahead
    g = model.Geometry(rows=240_000, leaf_pages=2000, height=3, fanout=300)
    pool = model.PoolModel(pool_pages=capacity + 200, capacity_pages=capacity, qps=20_000,
                           ra_threshold=threshold, ra_area=area)
    c = model.simulate_detail(order, 10, 2, g, pool)
    py = ref.py_simulate(ref.py_trace(order, 10, 2, g, moves=True), capacity, capacity + 200, pool.old_pct,
                            pool.old_time_ms, 1000 / pool.qps, threshold, area, g.leaf_pages)
    assert c == py
    assert c[4] > 0  # read-ahead fired
    no_ra = model.simulate(order, 10, 2, g, model.PoolModel(pool_pages=capacity + 200, capacity_pages=capacity,
                                                           qps=20_000))
    assert c[1] >= no_ra[1] - c[4]  # read-ahead can only replace demand reads it prefetched


@pytest.mark.parametrize("order,capacity,batch,threshold", [("looped", 520, 100, 56), ("looped", 900, 300, 56),
                                                            ("interleaved", 520, 200, 56), ("looped", 700, 64, 0)])
def test_page_cleaner_batches_in_c_equal_python(order, capacity, batch, threshold):
    # MariaDB's page cleaner frees `batch` pages at once when the list is full (model.PoolModel.cleaner_batch)
    g = model.Geometry(rows=240_000, leaf_pages=2000, height=3, fanout=300)
    pool = model.PoolModel(pool_pages=capacity + 200, capacity_pages=capacity, qps=20_000,
                           ra_threshold=threshold, ra_area=64, cleaner_batch=batch)
    c = model.simulate_detail(order, 10, 2, g, pool)
    py = ref.py_simulate(ref.py_trace(order, 10, 2, g, moves=threshold > 0), pool.capacity_high,
                            capacity + 200, pool.old_pct, pool.old_time_ms, 1000 / pool.qps, threshold, 64,
                            g.leaf_pages, batch=batch)
    assert c == py
    one_by_one = model.simulate_detail(order, 10, 2, g, model.PoolModel(
        pool_pages=capacity + 200, capacity_pages=capacity, qps=20_000, ra_threshold=threshold, ra_area=64))
    assert c != one_by_one  # the batches change the replay


def test_read_ahead_steps_are_the_leaf_boundaries():
    g = model.Geometry(rows=1000, leaf_pages=10, height=2, fanout=300)  # ~100 ids per leaf
    first = model.leaf_start(g, 1)  # 101 +- 2: real leaves do not hold equal rows
    assert abs(first - 101) <= 2 and model.leaf_of_id(g, first) == 1 and model.leaf_of_id(g, first - 1) == 0
    steps = [(p, q) for p, q, step in ref.py_trace("sequential", 1, 1, g, moves=True) if step]
    # the last key of leaf 0 reads on to leaf 1; the first key of leaf 1 lands on leaf 0 first:
    # both step to leaf 1 (query index = id - 1)
    assert steps[:2] == [(1, first - 2), (1, first - 1)]
    assert len(steps) == 2 * 9


def test_leaf_starts_spread_the_boundaries_like_real_leaves():
    g = model.estimate_geometry(4_000_000)  # 122.5 rows per leaf
    starts = [model.leaf_start(g, k) for k in range(g.leaf_pages)]
    assert all(b - a in range(118, 128) for a, b in zip(starts, starts[1:]))
    # which leaves a stride-10 select enters at its first key: about 1 in 10, not an even-spread
    # pattern (every 4th leaf, never one that ends a read-ahead area)
    first_key = [k for k, st in enumerate(starts) if (st - 1) % 10 == 0]
    assert 0.08 < len(first_key) / g.leaf_pages < 0.12
    assert any(model.leaf_phys(k) % 64 == 63 for k in first_key)


def test_kernel_rejects_bad_input():
    pool = model.PoolModel(pool_pages=10, capacity_pages=10)
    with pytest.raises(ValueError):
        model.simulate_trace([0, 5], 3, pool)  # page 5 of 3
    with pytest.raises(ValueError):
        model.simulate_trace([0], 3, model.PoolModel(pool_pages=10, capacity_pages=10, old_pct=99))
    g = model.Geometry(rows=1000, leaf_pages=10, height=2, fanout=300)
    with pytest.raises(ValueError):  # the area is a power of two
        model.simulate("looped", 1, 1, g, model.PoolModel(pool_pages=10, capacity_pages=10, ra_threshold=56,
                                                          ra_area=48))


# -- the collapsed trace (runs of identical queries) against the reference-by-reference replay --
def _both(order, stride, reps, g, pool):
    return (model.simulate_detail(order, stride, reps, g, pool, collapse=True),
            model.simulate_detail(order, stride, reps, g, pool, collapse=False))


@pytest.mark.parametrize("seed", range(40))
def test_collapse_changes_nothing(seed):
    # small pools (plain-LRU regime under 512 pages, the old-list boundary), old_blocks_time
    # that elapses inside a run (low qps, 1 ms), 0 (drift rule), warm-up, read-ahead on and off,
    # page-cleaner batches
    rng = random.Random(7000 + seed)
    rows = rng.choice([3_000, 20_000, 90_000])
    leaf = max(2, rows // rng.choice([5, 40, 122]))
    g = model.Geometry(rows=rows, leaf_pages=leaf, height=rng.choice([1, 2, 3]) if leaf < 300 else 3,
                       fanout=rng.choice([3, 50, 300]))
    g = model.Geometry(rows, leaf, max(g.height, 2) if leaf > 1 else 1, g.fanout)
    capacity = rng.choice([3, 40, 300, 520, 700, leaf // 2 + 1, leaf + 50])
    area = rng.choice([16, 32, 64])
    pool = model.PoolModel(pool_pages=capacity + rng.choice([0, 100]), capacity_pages=capacity,
                           old_pct=rng.choice([5, 37, 95]), old_time_ms=rng.choice([0, 1, 3, 1000]),
                           qps=rng.choice([50, 900, 15_000]), ra_threshold=rng.choice([0, 0, 8, 56]),
                           ra_area=area, cleaner_batch=rng.choice([0, 0, 30, 200]))
    order = rng.choice(["interleaved", "looped", "sequential"])
    fast, slow = _both(order, rng.choice([1, 3, 10]), rng.choice([1, 2, 5]), g, pool)
    assert fast == slow
    assert fast[1] > 0


def test_collapse_changes_nothing_where_old_blocks_time_elapses_mid_run():
    # 100 queries/s over 200-row leaves: a leaf is made young inside its own run of queries
    g = model.Geometry(rows=200_000, leaf_pages=1000, height=2, fanout=300)
    pool = model.PoolModel(pool_pages=650, capacity_pages=600, old_pct=37, old_time_ms=1_000, qps=100.0)
    fast, slow = _both("looped", 1, 2, g, pool)
    assert fast == slow and fast[2] > 0  # made young happened


def test_collapse_on_a_bare_trace_of_repeats():
    rng = random.Random(3)
    trace = [p for p in (rng.randrange(900) for _ in range(3000)) for _ in range(rng.randint(1, 30))]
    from array import array

    from loadgen import native

    args = (array("I", trace), None, 900, 560, 600, 37.0, 5.0, 0.25)
    assert native.lrusim_innodb(*args, 0, 64, True) == native.lrusim_innodb(*args, 0, 64, False)
    py = ref.py_simulate(((p, i) for i, p in enumerate(trace)), 560, 600, 37, 5, 0.25)
    assert native.lrusim_innodb(*args)[:4] == py[:4]


# -- MySQL 8.0-9.x's linear read-ahead (checked on every first access of an area's border page) ---
@pytest.mark.parametrize("order,capacity,area,threshold,start", [
    ("interleaved", 300, 16, 56, 0), ("looped", 300, 16, 56, 0), ("looped", 600, 32, 56, 200),
    ("looped", 900, 64, 56, 700), ("interleaved", 520, 64, 8, 50), ("looped", 1500, 16, 60, 400),
    ("sequential", 40, 16, 56, 0)])
def test_mysql_read_ahead_in_c_equals_python(order, capacity, area, threshold, start):
    g = model.Geometry(rows=240_000, leaf_pages=2000, height=3, fanout=300)
    pool = model.PoolModel(pool_pages=capacity + 200, capacity_pages=capacity, qps=20_000, ra_threshold=threshold,
                           ra_area=area, ra_rule=model.RA_RULE_MYSQL, start_pages=start, start_freed=3)
    c = model.simulate_detail(order, 10, 2, g, pool)
    py = ref.py_simulate(ref.py_trace(order, 10, 2, g, moves=True), capacity, capacity + 200, pool.old_pct,
                            pool.old_time_ms, 1000 / pool.qps, threshold, area, g.leaf_pages,
                            model.RA_RULE_MYSQL, g.n_pages, start, 3)
    assert c == py
    assert c == model.simulate_detail(order, 10, 2, g, pool, collapse=False)
    assert c[4] > 0.5 * c[1]  # read-ahead brings in most pages, as on MySQL


def test_mysql_read_ahead_counts_like_the_lab():
    # docs/mysql-lab.md, 200k rows (1,633 leaves): MySQL 9.7.4 read ahead 1,631 pages at 8M (area
    # 16) and 16M (area 32), 1,600 at 32M and 64M (area 64); the first extent is read on demand
    # (the lab's start-up pages; at 16M the page cleaner's batch can empty part of an area being
    # read, which is then read on demand: 1,599 in the model as once in the integration test)
    g = model.Geometry(rows=200_000, leaf_pages=1633, height=3)
    for mib, start, read_ahead in [(8, 214, {1631}), (16, 510, {1599, 1631}), (32, 970, {1600}), (64, 967, {1600})]:
        pool = model.pool_model(mib << 20, flavor="mysql", start_pages=start)
        for ph in model.MYSQL_CLEANER_PHASES_MS:
            phased = model.PoolModel(**{**pool.__dict__, "cleaner_phase_ms": ph})
            assert model.simulate_detail("interleaved", 10, 2, g, phased)[4] in read_ahead


def test_mysql_read_ahead_needs_the_threshold():
    # every page of an area accessed in order passes any threshold; 64 pages of the area may not fail
    g = model.Geometry(rows=200_000, leaf_pages=1633, height=3)
    on = model.simulate_detail("interleaved", 10, 2, g, model.pool_model(32 << 20, flavor="mysql"))
    off = model.simulate_detail("interleaved", 10, 2, g,
                                model.pool_model(32 << 20, {"innodb_read_ahead_threshold": 0}, flavor="mysql"))
    assert off[4] == 0 and on[4] == 1600
    assert abs(on[1] - off[1]) < 120  # the same table read, by other means (plus non-leaf pages)


def test_start_pages_take_frames():
    # pages resident before the run that the run never touches: a looped run that nearly fits
    # stops fitting (the lab's 32M, 200k rows on MySQL)
    g = model.Geometry(rows=200_000, leaf_pages=1633, height=3)
    base = model.PoolModel(pool_pages=2048, capacity_pages=2048, ra_threshold=56, ra_area=64,
                           ra_rule=model.RA_RULE_MYSQL)
    empty = model.simulate_detail("looped", 10, 2, g, base)
    held = model.simulate_detail("looped", 10, 2, g, model.PoolModel(**{**base.__dict__, "start_pages": 976}))
    assert empty[1] < 1750 < 2600 < held[1]


def test_mysql_rule_is_checked():
    from loadgen import native

    g = model.Geometry(rows=1000, leaf_pages=10, height=2, fanout=300)
    with pytest.raises(ValueError):
        native.lrusim_innodb(None, model.workload_tuple("looped", 1, 1, g, True), g.n_pages, 10, 10, 37.0, 1000.0,
                             1.0, 56, 64, True, 7)


# -- MySQL's page cleaner: one LRU batch on its clock (native/lrusim/cleaner.c cleaner_tick) -------
@pytest.mark.parametrize("order,capacity,depth,phase,ticks,start", [
    ("looped", 1024, 1024, 300.0, 1, 500), ("looped", 2048, 1024, 50.0, 1, 970), ("interleaved", 600, 100, 700.0, 2, 0),
    ("looped", 900, 400, 10.0, 0, 300), ("looped", 1800, 1024, 500.0, 3, 100)])
def test_timed_page_cleaner_in_c_equals_python(order, capacity, depth, phase, ticks, start):
    g = model.Geometry(rows=240_000, leaf_pages=2000, height=3, fanout=300)
    pool = model.PoolModel(pool_pages=capacity, capacity_pages=capacity, qps=20_000, ra_threshold=56, ra_area=32,
                           ra_rule=model.RA_RULE_MYSQL, start_pages=start, cleaner_depth=depth,
                           cleaner_phase_ms=phase, cleaner_ticks=ticks)
    c = model.simulate_detail(order, 10, 2, g, pool)
    py = ref.py_simulate(ref.py_trace(order, 10, 2, g, moves=True), capacity, capacity, pool.old_pct,
                            pool.old_time_ms, 1000 / pool.qps, 56, 32, g.leaf_pages, model.RA_RULE_MYSQL,
                            g.n_pages, start, 0, 0, pool.tick_args(phase))
    assert c == py
    off = model.simulate_detail(order, 10, 2, g, model.PoolModel(**{**pool.__dict__, "cleaner_depth": 0}))
    assert c != off  # the batch changed something


def test_timed_batch_refills_the_free_frames_once():
    # 1,024 frames all in use, then one batch (scan depth 1,024) between two passes over the same
    # 1,024 pages: it frees 768 (the LRU list keeps 256, BUF_LRU_MIN_LEN) and the second pass reads
    # exactly those again into the free frames; without the batch it reads nothing
    from array import array

    from loadgen import native

    trace = array("I", list(range(1024)) * 2)
    args = (trace, None, 1024, 1024, 1024, 37.0, 1000.0, 1.0, 0, 64, True, model.RA_RULE_MYSQL, 0, 0, 0)
    assert native.lrusim_innodb(*args)[1] == 1024
    assert native.lrusim_innodb(*args, 1024, 1024.0, 1000.0, 1)[1] == 1024 + 768  # at the second pass
    assert native.lrusim_innodb(*args, 100, 1024.0, 1000.0, 1)[1] == 1024 + 100  # depth 100: 100 freed
    assert native.lrusim_innodb(*args, 1024, 5000.0, 1000.0, 1)[1] == 1024  # after the run: nothing
    # one batch per tick however long the quiet stretch before it; ticks=0: every second
    assert native.lrusim_innodb(*args, 100, 1024.0, 100.0, 0)[1] > 1024 + 100


def test_timed_batch_phases_average():
    g = model.Geometry(rows=200_000, leaf_pages=1633, height=3)
    pool = model.pool_model(16 << 20, flavor="mysql", qps=3000.0, start_pages=531)
    each = [model.simulate_detail("looped", 10, 2, g, model.PoolModel(**{**pool.__dict__, "cleaner_phase_ms": ph}))[1]
            for ph in model.MYSQL_CLEANER_PHASES_MS]
    assert model.simulate_detail("looped", 10, 2, g, pool)[1] == round(sum(each) / len(each))


@pytest.mark.parametrize("seed,capacity", [(1, 300), (2, 520), (3, 900)])
def test_mysql_read_ahead_on_a_bare_key_trace_equals_python(seed, capacity):
    # a key stream's trace (keymodel.py): leaves are its pages below trace_leaf_pages, in key order
    from array import array

    from loadgen import native
    from loadgen.analysis import keymodel
    from loadgen.workload.orders import Workload

    g = model.Geometry(rows=200_000, leaf_pages=1633, height=3)
    keys = Workload("hotspot", g.rows, stride=10, reps=2, seed=seed, count=6000).ids()
    pages, _, _ = keymodel.page_trace(keys, g)
    c = native.lrusim_innodb(pages, None, g.n_pages, capacity, capacity, 37.0, 1000.0, 0.1, 56, 16, True,
                             model.RA_RULE_MYSQL, 100, 0, 0, 0, 0.0, 1000.0, 1, g.leaf_pages)
    py = ref.py_simulate(((p, i) for i, p in enumerate(pages)), capacity, capacity, 37, 1000.0, 0.1, 56, 16,
                            g.leaf_pages, model.RA_RULE_MYSQL, g.n_pages, 100)
    assert c == py and c[4] > 0  # hot keys fill whole areas: read-ahead fires, as on MySQL
    with pytest.raises(ValueError):  # MariaDB's trigger needs the leaf steps only a workload has
        native.lrusim_innodb(array("I", pages), None, g.n_pages, capacity, capacity, 37.0, 1000.0, 0.1, 56, 16,
                             True, model.RA_RULE_MARIADB, 0, 0, 0, 0, 0.0, 1000.0, 1, g.leaf_pages)


def test_the_kernel_exports_innodbs_constants_and_the_model_uses_them():
    # buf0lru.h's BUF_LRU_OLD_MIN_LEN, _OLD_TOLERANCE, _NON_OLD_MIN_LEN, _OLD_RATIO_DIV and BUF_LRU_MIN_LEN;
    # then the kernel's own filler slots, extent, deepest tree and read-ahead rule codes
    from loadgen import native
    from loadgen.analysis import pool

    k = native.lrusim_constants()
    assert tuple(k) == (512, 20, 5, 1024, 256, 128, 64, 15, 0, 1)
    assert (pool.OLD_MIN_LEN, pool.OLD_TOLERANCE, pool.NON_OLD_MIN_LEN, pool.RATIO_DIV, pool.LRU_MIN_LEN,
            pool.FILLER_SLOTS, pool.RA_RULE_MARIADB, pool.RA_RULE_MYSQL) == (
        k.old_min_len, k.old_tolerance, k.non_old_min_len, k.ratio_div, k.lru_min_len, k.filler_slots,
        k.ra_rule_mariadb, k.ra_rule_mysql)

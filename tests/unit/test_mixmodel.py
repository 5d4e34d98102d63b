"""The mix model's ops -> page references (loadgen/analysis/mixmodel.py) and its kernel entry
(native/lrusim/mix.c): what each op touches, in which B-tree, read or written, and the pool over
a whole mix (per-table reads, dirty evictions, created leaves read nothing)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from loadgen import native
from loadgen.analysis import mixmodel as mm
from loadgen.analysis import mixpages as mp
from loadgen.workload import mix, mixfile, presets


def _tree(rows=10_000, leaves=100, height=2, **kw) -> mp.Tree:
    return mp.Tree("usertable", mp.PRIMARY, rows, leaves, height, **kw)


def _spec(text: str) -> mix.MixSpec:
    return mixfile.parse("format = 1\nseed = 3\n" + text, "<test>")


def _usertable(streams: str, operations: int = 1) -> mix.MixSpec:
    """A mix of these [[streams]] over a 10,000-row usertable."""
    return _spec(f"operations = {operations}\n[tables.usertable]\nschema = \"ycsb\"\nrows = 10000\n" + streams)


def test_scan_references_every_leaf_once_in_order():
    t = _tree(rows=5_000, leaves=40, height=2, base=7)
    pages, flags = mp.walk_refs(t, 0, t.all_leaves - 1)
    root = t.base + t.all_leaves  # the root follows the leaves
    assert pages[0] == root and flags[0] & mp.OP
    leaves = pages[1:]
    assert list(leaves) == list(range(t.base, t.base + 40))
    # every step to the next leaf is one (MariaDB's read-ahead trigger), the first leaf is reached by descent
    assert not flags[1] & mp.MOVE and all(f & mp.MOVE for f in flags[2:])
    assert not any(f & mp.WRITE for f in flags)


def test_point_read_is_a_root_to_leaf_descent():
    t = _tree(rows=1_000_000, leaves=10_000, height=3)
    pages, flags = mp.point_refs(t, t.leaf_of_key(np.array([1, 500_000, 1_000_000], dtype=np.uint64)))
    assert pages.shape == (3, 3)
    sizes = t.level_sizes()
    assert sizes == [math.ceil(10_000 / t.fanout), 1]
    root = t.all_leaves + sizes[0]
    assert all(p[0] == root for p in pages)  # root first
    assert list(pages[:, 2]) == [0, 4_999, 9_999]  # the key's leaf last
    assert all(t.all_leaves <= p[1] < root for p in pages)  # a level-1 page between
    assert list(flags[:, 0]) == [mp.OP] * 3 and not flags[:, 1:].any()


def test_insert_stream_grows_ceil_n_over_rows_per_leaf_leaves():
    rows, leaves, n = 10_000, 100, 1_234  # 100 rows per leaf
    spec = _spec(f"""operations = {n}
[tables.usertable]
schema = "ycsb"
rows = {rows}
[[streams]]
name = "ins"
table = "usertable"
op = "insert"
share = 1
""")
    tables = {"usertable": {"rows": rows, "leaf_pages": leaves, "height": 2, "indexes": {}}}
    space = mp.Space.of(tables, {"usertable": n}, ["usertable"])
    tree = space.tree_of("usertable", None)
    assert tree.grown == math.ceil(n / 100) == 13
    pages, flags = mm.build_trace(spec, space).arrays()
    leaf_refs = pages[flags & mp.WRITE != 0]
    assert len(leaf_refs) == n  # each insert writes one leaf
    assert sorted(set(leaf_refs)) == list(range(leaves, leaves + 13))  # only new leaves, at the end
    assert np.all(np.diff(leaf_refs.astype(np.int64)) >= 0)  # in key order
    created = pages[flags & mp.NEW != 0]
    assert list(created) == list(range(leaves, leaves + 13))  # each new leaf created once


def test_writes_touch_their_leaf_dirty_and_an_indexed_update_its_index():
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=3_000)
    tables = {"sbtest1": {"rows": 20_000, "leaf_pages": 290, "height": 2,
                          "indexes": {"k_1": {"columns": ["k"], "leaf_pages": 25, "height": 2}}}}
    space = mp.Space.of(tables, {}, ["sbtest1"])
    columns_of = {("sbtest1", "k_1"): ["k"]}
    mapper = mm.Mapper(spec, space, columns_of)
    by_name = {s.name: i for i, s in enumerate(spec.streams)}
    key = np.array([5, 10_000], dtype=np.uint64)
    one = np.ones(2, dtype=np.uint32)
    prim, k1 = space.tree_of("sbtest1", None), space.tree_of("sbtest1", "k_1")

    def in_k1(p):
        return k1.base <= p < k1.base + k1.n_pages

    r = mapper.op_refs(by_name["non_index_updates"], key, one)
    pages, flags = r.pages, r.flags
    written = pages[flags & mp.WRITE != 0]
    assert list(written) == list(prim.leaf_of_key(key))  # the row's leaf, nothing in k_1
    r = mapper.op_refs(by_name["index_updates"], key, one)
    pages, flags = r.pages, r.flags
    written = pages[flags & mp.WRITE != 0]
    assert sum(in_k1(p) for p in written) == 4  # k_1's old and new entries' leaves, per op
    assert set(prim.leaf_of_key(key)) <= set(written)
    r = mapper.op_refs(by_name["point_selects"], key, one)
    pages, flags = r.pages, r.flags
    assert not (flags & mp.WRITE).any() and not any(in_k1(p) for p in pages)


def test_an_update_moving_k_one_step_writes_one_k_1_leaf_and_a_new_value_two():
    """k = k + 1 leaves the new entry beside the old one (statements.steps_by_one): one k_1 leaf
    per op where the column's type steps (INTEGER), two where the update sets a new value (CHAR)."""
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=3_000)
    key = np.arange(1, 41, dtype=np.uint64)
    one = np.ones(len(key), dtype=np.uint32)
    written = {}
    for k_type in ("INTEGER", "CHAR"):
        tables = {"sbtest1": {"rows": 20_000, "leaf_pages": 290, "height": 2, "columns": {"id": "INTEGER", "k": k_type},
                              "indexes": {"k_1": {"columns": ["k"], "leaf_pages": 25, "height": 2}}}}
        space = mp.Space.of(tables, {}, ["sbtest1"])
        assert (("sbtest1", "k") in mp.stepped_columns(tables)) == (k_type == "INTEGER")
        mapper = mm.Mapper(spec, space, mm.index_columns(tables), stepped=mp.stepped_columns(tables))
        k1 = space.tree_of("sbtest1", "k_1")
        r = mapper.op_refs(next(i for i, s in enumerate(spec.streams) if s.name == "index_updates"), key, one)
        leaf = r.pages[(r.flags & mp.WRITE != 0)]
        written[k_type] = leaf[(leaf >= k1.base) & (leaf < k1.base + k1.all_leaves)]
    assert len(written["INTEGER"]) == len(key) and len(written["CHAR"]) == 2 * len(key)
    # the one leaf is the old entry's, where purge later removes it (salt 0)
    assert set(written["INTEGER"]) <= set(written["CHAR"])


def test_range_walks_the_leaves_its_rows_span():
    t = _tree(rows=10_000, leaves=100, height=2)  # 100 rows per leaf
    spec = _usertable("""[[streams]]
name = "r"
table = "usertable"
op = "range"
length = 250
keys = "uniform"
share = 1
""")
    space = mp.Space({("usertable", mp.PRIMARY): t})
    r = mm.Mapper(spec, space).op_refs(0, np.array([150], dtype=np.uint64), np.array([250]))
    pages, flags = r.pages, r.flags
    # rows 150..399, and the row after them (the read stops on it): leaves 1 to the leaf of row
    # 400 (3 or 4: leaves start up to 2 rows off the even spread), the first by descent
    last = int(np.searchsorted(t.leaf_starts(), 400, side="right")) - 1
    assert last in (3, 4)
    assert list(pages[1:]) == list(range(1, last + 1))
    assert list(flags[1:] & mp.MOVE) == [0] + [mp.MOVE] * (last - 1)


def test_a_point_read_of_a_leafs_first_or_last_key_steps_to_its_neighbour():
    t = _tree(rows=10_000, leaves=100, height=2)
    starts = t.leaf_starts()
    first_of_5, last_of_5, middle_of_5 = int(starts[5]), int(starts[6]) - 1, int(starts[5]) + 10
    r = mp.walks(t, *t.span(np.array([first_of_5]), np.array([first_of_5])))
    pages, flags = r.pages, r.flags
    assert list(pages[1:]) == [4, 5] and list(flags[1:] & mp.MOVE) == [0, mp.MOVE]  # lands on 4, steps to 5
    r = mp.walks(t, *t.span(np.array([last_of_5]), np.array([last_of_5])))
    pages, flags = r.pages, r.flags
    assert list(pages[1:]) == [5, 6]  # reads on into 6
    r = mp.walks(t, *t.span(np.array([middle_of_5]), np.array([middle_of_5])))
    pages, flags = r.pages, r.flags
    assert list(pages[1:]) == [5]


def test_an_updates_lookup_steps_back_like_a_read_but_does_not_read_on():
    """MariaDB 10.11's traced reads (docs/workloads-lab.md, "A write does not read on"): an UPDATE of a
    leaf's first key reads the leaf before it as a SELECT does, of a leaf's last key not the next
    leaf, which the SELECT reads; a read-modify-write's select still reads on."""
    t = _tree(rows=10_000, leaves=100, height=2)
    stream = '[[streams]]\nname = "{0}"\ntable = "usertable"\nop = "{0}"\nkeys = "uniform"\nshare = 0.5\n'
    spec = _usertable(stream.format("update") + stream.format("read-modify-write"))
    space = mp.Space({("usertable", mp.PRIMARY): t})
    starts = t.leaf_starts()
    first_of_5, last_of_5 = int(starts[5]), int(starts[6]) - 1
    one = np.ones(1, dtype=np.uint32)

    def leaves(stream, key):
        r = mm.Mapper(spec, space).op_refs(stream, np.array([key], dtype=np.uint64), one)
        return [int(p) for p in r.pages if p < t.all_leaves]

    assert leaves(0, first_of_5) == [4, 5, 5]  # lands on 4, steps to 5; the row's leaf written
    assert leaves(0, last_of_5) == [5, 5]  # leaf 6 not read
    assert leaves(1, last_of_5) == [5, 6, 5, 5]  # the select reads on into 6, the update does not


def test_kernel_counts_reads_per_page_dirty_evictions_and_creates_without_reading():
    # pages 0..599, a pool of 200: a pass writing 0..299, then a pass reading 300..599 evicts
    # every written page dirty; page 600 created: no read
    n_pages = 601
    pages = np.concatenate([np.arange(300), np.arange(300, 600), [600]]).astype(np.uint32)
    flags = np.full(len(pages), mp.OP, dtype=np.uint8)
    flags[:300] |= mp.WRITE
    flags[-1] |= mp.NEW | mp.WRITE
    sim = native.lrusim_mix(pages, flags, n_pages, 0, 200, 200, 37.0, 0.0, 1.0)
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    assert sim.misses == 600 == reads.sum() and reads[600] == 0
    assert sim.dirty_evicted == 300 and sim.dirty_at_end == 1
    assert sim.refs == len(pages)


def test_mariadbs_lru_batch_writes_a_dirty_page_and_keeps_it():
    """MariaDB's batch (buf_flush_LRU_list_batch) writes a dirty page it meets and leaves it in the
    list, evicting clean pages further up instead; a clean page in its place is evicted. MySQL's
    batch rules are their own (cleaner.c free_for_read, refill) and do not change."""
    def page_0_reads(written: bool, ra_rule: int) -> tuple[int, int]:
        # page 0 first (dirty or not), 24 others: the pool of 20 (batch 16) frees a batch that
        # reaches page 0 at the tail; then page 0 again
        pages = np.array([0, *range(1, 25), 0], dtype=np.uint32)
        flags = np.full(len(pages), mp.OP, dtype=np.uint8)
        if written:
            flags[0] |= mp.WRITE
        sim = native.lrusim_mix(pages, flags, 64, 0, 20, 64, 37.0, 0.0, 1.0, ra_rule=ra_rule, batch=16)
        return int(np.frombuffer(sim.reads, dtype=np.uint32)[0]), sim.dirty_evicted

    assert page_0_reads(False, 0) == (2, 0)
    assert page_0_reads(True, 0) == (1, 1)  # written by the batch, still there
    assert page_0_reads(False, 1) == (2, 0) and page_0_reads(True, 1) == (2, 1)  # MySQL: evicted dirty


def test_kernel_rejects_a_page_beyond_the_space():
    with pytest.raises(ValueError, match="below n_pages"):
        native.lrusim_mix(np.array([5], dtype=np.uint32), np.array([mp.OP], dtype=np.uint8), 5, 0, 10, 10, 37.0,
                          0.0, 1.0)


def test_predict_gives_per_table_reads_that_add_up():
    spec = presets.load("ycsb-a", rows=20_000, operations=5_000)
    run = {"workload": {"kind": "mix", "mix": spec.to_dict()},
           "dataset": {"database": "chat", "tables": {"usertable": {"database": "chat", "table": "usertable",
                                                                    "rows": 20_000, "leaf_pages": 1_430, "height": 2,
                                                                    "indexes": {}}}},
           "server": {"flavor": "mariadb", "innodb_buffer_pool_size": 8 << 20, "variables": {}},
           "buffer_pool": {}, "result": {"ops": 5_000, "qps": 3_000.0}, "samples": []}
    p = mm.predict(run)
    t = p["tables"]["chat.usertable"]
    # the total is the table's and the undo pages' (128 rollback segments, 2 pages each)
    assert p["pages_read"] == t["pages_read"] + p["system_pages_read"]
    assert t["pages_read"] > 0 and 0 < p["system_pages_read"]
    assert p["dirty_evictions"] > 0  # half the ops are updates, the pool holds a fraction of the table
    assert 0 < p["pages_read"] <= p["read_requests"]


@pytest.mark.parametrize("flavor", ["mariadb", "mysql"])
def test_mix_predictions_carry_an_interval_on_the_total_and_each_table(flavor):
    """Issue #20 item 1 on mixes: reads_low <= pages_read <= reads_high, total and per table; a mix
    that writes is wider (the write-side guesses, intervals.WRITE_SPREAD_REL) than one that reads."""
    widths = {}
    for preset in ("ycsb-c", "ycsb-a"):
        spec = presets.load(preset, rows=20_000, operations=5_000)
        run = {"workload": {"kind": "mix", "mix": spec.to_dict()},
               "dataset": {"database": "chat", "tables": {"usertable": {
                   "database": "chat", "table": "usertable", "rows": 20_000, "leaf_pages": 1_430, "height": 2,
                   "indexes": {}}}},
               "server": {"flavor": flavor, "innodb_buffer_pool_size": 8 << 20, "variables": {}},
               "buffer_pool": {}, "result": {"ops": 5_000, "qps": 3_000.0}, "samples": []}
        p = mm.predict(run)
        for part in (p, *p["tables"].values()):
            assert part["reads_low"] <= part["pages_read"] <= part["reads_high"], part
            assert part["reads_low"] < part["reads_high"]
        widths[preset] = (p["reads_high"] - p["reads_low"]) / p["pages_read"]
    assert widths["ycsb-a"] > widths["ycsb-c"], widths


def test_purge_revisits_an_index_update_s_old_entry_after_its_lag():
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=3 * mm.PURGE_LAG_OPS)
    tables = {"sbtest1": {"rows": 20_000, "leaf_pages": 290, "height": 2,
                          "indexes": {"k_1": {"columns": ["k"], "leaf_pages": 25, "height": 2}}}}
    space = mp.Space.of(tables, {}, ["sbtest1"], rollback_segments=128)
    pages, flags = mm.build_trace(spec, space, columns_of={("sbtest1", "k_1"): ["k"]}).arrays()
    ops = np.cumsum(flags & mp.OP != 0)  # the op each reference belongs to (purge's: the op it runs before)
    k1 = space.tree_of("sbtest1", "k_1")
    in_k1 = (pages >= k1.base) & (pages < k1.base + k1.n_pages) & (flags & mp.WRITE != 0)
    undo = pages >= space.system_base
    # purge's references carry no OP flag and start only after the lag
    purge_k1 = in_k1 & (flags & mp.OP == 0)
    first_purge_op = ops[np.nonzero(undo & (flags & mp.WRITE == 0))[0][0]]
    assert first_purge_op > mm.PURGE_LAG_OPS
    assert purge_k1.any()
    # every undo page is one of the 128 segments' two pages, or the file-space header and inode
    # page of their tablespace (undomodel.undo_refs: a segment's creation and freeing)
    assert pages[undo].max() < space.n_pages == space.system_base + 256 + 2


def test_a_scheduled_scan_goes_in_where_its_execution_started():
    spec = _usertable("""[[streams]]
name = "read"
table = "usertable"
op = "read"
keys = "uniform"
share = 1
[[streams]]
name = "nightly"
table = "usertable"
op = "scan"
at_s = 1
""", operations=1000)
    tables = {"usertable": {"rows": 10_000, "leaf_pages": 700, "height": 2, "indexes": {}}}
    space = mp.Space.of(tables, {}, ["usertable"])
    run = {"result": {"streams": {"nightly": {"executions": [{"ops_before": 400, "ops_after": 420}]}}}}
    assert mm.scheduled_positions(run, spec) == {400: [1]}
    pages, flags = mm.build_trace(spec, space, mm.scheduled_positions(run, spec)).arrays()
    ops = np.cumsum(flags & mp.OP != 0)
    # the scan: 699 steps (leaf 0 by descent), each leaf accessed again right after (SCAN_RETOUCH)
    scan_start = np.nonzero(flags & mp.MOVE)[0]
    longest = max(np.split(scan_start, np.nonzero(np.diff(scan_start) > 2)[0] + 1), key=len)
    assert len(longest) == 699 and set(np.diff(longest)) == {2}
    assert list(pages[longest]) == list(range(1, 700))
    assert list(pages[longest + 1]) == list(range(1, 700)) and not flags[longest + 1].any()  # the re-access
    assert pages[longest[0] - 1] == 0 and pages[longest[0] - 2] == 0  # leaf 0 (descent) and its re-access
    assert ops[longest[0]] == 401  # the scan is the 401st op: 400 of the mix before it
    assert ops[-1] == 1001  # the mix's 1,000 and the scan


@pytest.mark.parametrize("preset", ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f", "sysbench-oltp-ro",
                                    "sysbench-oltp-rw"])
def test_every_preset_s_spec_reads_back_from_its_result(preset):
    spec = presets.load(preset, rows=5_000, operations=100)
    back = mm.spec_of({"workload": {"mix": spec.to_dict()}})
    assert back.streams == spec.streams and back.seed == spec.seed and back.operations == spec.operations


def test_mariadb_ranges_read_in_fetch_cache_batches():
    # the row after the last ends the range: 1 + n rows, the first 4 singly, then 8 at a time
    assert list(mm.fetched_rows(np.array([1, 3, 4, 5, 11, 12, 100]))) == [2, 4, 12, 12, 12, 20, 108]


def test_the_mix_tables_show_the_prediction_with_its_interval():
    from loadgen.render.mixreport import table_rows
    from loadgen.render.report import run_rows
    from loadgen.results.documents import RunResult

    pred = {"model": mm.MODEL, "pages_read": 20_214, "reads_low": 19_300, "reads_high": 21_100, "error_pct": 0.6,
            "tables": {"chat.usertable": {"pages_read": 20_000, "reads_low": 19_100, "reads_high": 20_900}}}
    result = RunResult(workload={"kind": "mix"}, buffer_pool={"pages_read": 20_095, "tables": {
        "chat.usertable": {"file_pages_read": 19_900}}}, prediction=pred)
    rows = table_rows(result)
    assert rows[0][2] == "20,000 (19,100 .. 20,900)" and rows[-1][2] == "20,214 (19,300 .. 21,100)"
    assert ("20,214 (19,300 .. 21,100)" in dict(run_rows(result))["predicted pages read"])


def test_the_mix_report_prints_the_purge_lag_where_the_run_has_it():
    from loadgen.render.mixreport import summary_lines
    from loadgen.results.documents import RunResult

    lag = {"history_len_before": 4, "history_len_max": 592, "history_len": 37}
    lines = summary_lines(RunResult(workload={"kind": "mix"}, buffer_pool=lag))
    assert any(line.startswith("purge lag") and "4 at the start" in line and "at most 592" in line
               and "37 at the end" in line for line in lines)
    assert not any("purge lag" in line for line in summary_lines(RunResult(workload={"kind": "mix"}, buffer_pool={})))
    walks = {"flush": {"purge_batches": 3_870, "purge_truncations": 30}}
    assert any(line.startswith("purge batches 3,870") and line.endswith("headers 30")
               for line in summary_lines(RunResult(workload={"kind": "mix"}, buffer_pool=walks)))


def _tail_trace(n_dirty: int, then: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Pages 0..n_dirty-1 written, then 0..599 read through a pool of 600 (the written pages at
    the LRU tail: a list under 512 pages takes them at its head), then `then` read."""
    pages = np.concatenate([np.arange(n_dirty), np.arange(n_dirty, 600), then]).astype(np.uint32)
    flags = np.full(len(pages), mp.OP, dtype=np.uint8)
    flags[:n_dirty] |= mp.WRITE
    return pages, flags


# lrusim_mix's pool: 700 pages, capacity 600, old_pct 37, old_time 0, 1 ms an op (then read-ahead
# off, MariaDB's trigger, no start-up pages, no batch)
POOL = (700, 0, 600, 600, 37.0, 0.0, 1.0, 0, 64, 0, 0, 0, 0)


def test_a_dirty_tail_page_survives_a_user_threads_eviction_the_cleaners_batch_takes_it():
    # page 0 written, at the tail when page 600 needs a frame: MySQL's user thread passes it for
    # page 1, the first clean page (buf_LRU_free_from_common_LRU_list); page 0 is read once
    pages, flags = _tail_trace(1, [600, 0])
    sim = native.lrusim_mix(pages, flags, *POOL, 0, 0.0, 1000.0, 1, 100)
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    assert reads[0] == 1 and sim.dirty_evicted == 0 and sim.dirty_at_end == 1 and sim.single_flushes == 0
    # without the rule (MariaDB's, and the model before it) the tail page goes, written first
    sim = native.lrusim_mix(pages, flags, *POOL, 0, 0.0, 1000.0, 1, 0)
    assert np.frombuffer(sim.reads, dtype=np.uint32)[0] == 2 and sim.dirty_evicted == 1
    # the page cleaner's LRU batch (innodb_lru_scan_depth 1024, before the read at 601 ms) takes the tail
    # whatever it holds: page 0 is written and evicted, and read again
    sim = native.lrusim_mix(pages, flags, *POOL, 1024, 600.5, 1000.0, 1, 100)
    assert np.frombuffer(sim.reads, dtype=np.uint32)[0] == 2 and sim.dirty_evicted == 1 and sim.lru_batches == 1


@pytest.mark.parametrize("n_dirty,left", [(100, 256 - 99), (200, 256 - (199 - 128) - 64)])
def test_a_dirty_tail_a_user_thread_cannot_pass_is_written_and_the_batch_overshoots_by_its_writes(n_dirty, left):
    # the 100 pages at the tail all dirty (and more): the user thread writes the tail page (a single-page
    # flush), stops searching (try_LRU_scan) and wakes the page cleaner, whose batch at the next
    # read writes the dirty pages it meets and counts those still being written in the list: the
    # list ends that many short of BUF_LRU_MIN_LEN (256); of 199 written, the last partial
    # doublewrite batch's 71 still count and half of the full 128 before it (cleaner.c still_writing)
    pages, flags = _tail_trace(n_dirty, [600, 601])
    sim = native.lrusim_mix(pages, flags, *POOL, 1024, 1e9, 1000.0, 1, 100)
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    assert sim.single_flushes == 1 and sim.lru_batches == 1 and sim.dirty_evicted == n_dirty
    assert reads[:n_dirty].sum() == n_dirty and sim.misses == 602
    # the batch left `left` of the 600 pages (the top of the list: 511 down, read first into a
    # list under 512 pages); read 0..599 again: those are the hits (256 without the overshoot)
    again = np.concatenate([pages, np.arange(600)]).astype(np.uint32)
    again_flags = np.concatenate([flags, np.full(600, mp.OP, dtype=np.uint8)])
    sim2 = native.lrusim_mix(again, again_flags, *POOL, 1024, 1e9, 1000.0, 1, 100)
    assert sim2.lru_batches == 1 and sim2.refs - sim2.misses == left


def test_the_flush_list_batch_cleans_the_oldest_dirty_pages_in_place():
    # two pages written, a flush-list batch of one page a second, 2 ms an op: at 1 s (op 500) the
    # first page written is cleaned, not evicted; the user thread then frees it from the tail
    # like any clean page, and page 1 stays dirty
    pages, flags = _tail_trace(2, [600, 0])
    slow = POOL[:6] + (2.0,) + POOL[7:]
    sim = native.lrusim_mix(pages, flags, *slow, 0, 0.0, 1000.0, 1, 100, 1)
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    assert reads[0] == 2 and reads[1] == 1 and sim.dirty_evicted == 0 and sim.dirty_at_end == 1
    # without the batch page 0 is passed (dirty) and page 2 goes
    sim = native.lrusim_mix(pages, flags, *slow, 0, 0.0, 1000.0, 1, 100, 0)
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    assert reads[0] == 1 and sim.dirty_at_end == 2


def test_the_mix_rules_apply_to_mysql_only():
    from loadgen.analysis import dirtypages
    from loadgen.analysis.pool import RA_RULE_MARIADB, RA_RULE_MYSQL

    class P:
        ra_rule = RA_RULE_MYSQL

    assert dirtypages.kernel_args(P(), 25.6) == (dirtypages.MYSQL_CLEAN_SCAN, 26)
    P.ra_rule = RA_RULE_MARIADB
    assert dirtypages.kernel_args(P(), 25.6) == (0, 0)
    run = {"buffer_pool": {"flush": {"flush_list_flushed": 1_699}}, "result": {"elapsed_s": 64.4}}
    assert round(dirtypages.flush_list_rate(run), 1) == 26.4
    assert dirtypages.flush_list_rate({}) == 0.0 == dirtypages.flush_list_rate(
        {"buffer_pool": {"flush": {"flush_list_flushed": "x"}}, "result": {"elapsed_s": 0}})


@pytest.mark.parametrize("n_dirty,io_capacity,left", [
    # the first batch of a restarted server: avg_page_rate and lsn_avg_rate are 0 until 30 batches
    # averaged them, so pages_for_lsn is the oldest page alone, / 3, at least 1
    (30, 10_000, 30),  # 5% of the pool dirty, under the lwm: (0 + 0 + 1) / 3 = 0 written
    (120, 200, 106),  # 20%: pct_for_dirty 21, (PCT_IO 42 + 0 + 1) / 3 = 14 written
    (120, 10_000, 0),  # 8.4's io capacity: (2,100 + 0 + 1) / 3 is more than are dirty
])
def test_the_adaptive_flush_list_batch_follows_the_dirty_pages_and_the_io_capacity(n_dirty, io_capacity, left):
    # n_dirty pages written, then reads of other pages (no eviction: 520 pages in a pool of 600) until
    # past the first second (2 ms an op): the batch at 1 s is sized as MySQL's page cleaner sizes it
    # (cleaner.c adaptive_batch); fl_batch, a run's own rate, is not used
    pages = np.concatenate([np.arange(n_dirty), np.arange(200, 200 + 520 - n_dirty)]).astype(np.uint32)
    flags = np.full(len(pages), mp.OP, dtype=np.uint8)
    flags[:n_dirty] |= mp.WRITE
    slow = POOL[:6] + (2.0,) + POOL[7:]
    sim = native.lrusim_mix(pages, flags, *slow, 0, 0.0, 1000.0, 1, 100, 0, fl_io=io_capacity)
    assert sim.dirty_at_end == left and sim.misses == 520 and sim.dirty_evicted == 0
    # no io capacity and no rate: nothing is written
    assert native.lrusim_mix(pages, flags, *slow, 0, 0.0, 1000.0, 1, 100, 0).dirty_at_end == n_dirty


def test_the_adaptive_batch_writes_under_the_lwm_only_once_30_batches_averaged_the_redo_rate():
    # a page dirtied every 100 ms, none twice, in a pool whose 10% lwm is never reached: for 30 batches
    # lsn_avg_rate is 0, pages_for_lsn the oldest page alone (1 / 3 -> 1, (0 + 0 + 1) / 3 = 0 written);
    # the 30th averages it to half the rate, the window opens to 1.5 s of pages (15 / 3 = 5), and from
    # then on the batch writes (0 + 0 + 5) / 3 = 1 page a second
    def run(seconds):
        pages = np.arange(seconds * 10, dtype=np.uint32)
        flags = np.full(len(pages), mp.OP | mp.WRITE, dtype=np.uint8)
        cfg = (700, 0, 600, 6_000, 37.0, 0.0, 100.0) + POOL[7:]
        return native.lrusim_mix(pages, flags, *cfg, 0, 0.0, 1000.0, 1, 100, 0, fl_io=10_000)

    assert run(29).dirty_at_end == 290  # nothing written yet
    late = run(40)
    assert late.misses == 400 and late.dirty_evicted == 0
    assert 400 - late.dirty_at_end == 9  # one a batch from the 31st on (the last op at 39.9 s: 31 .. 39 s)


def test_a_traces_mysql_pool_takes_the_adaptive_batch_and_the_servers_io_capacity():
    from loadgen.analysis import dirtypages, tracegeometry

    (_, my), = tracegeometry.pools_of([16 << 20], "mysql", {"innodb_io_capacity": 200}, 1_000.0)
    assert dirtypages.adaptive_args(my) == {"clean_scan": dirtypages.MYSQL_CLEAN_SCAN, "fl_io": 200}
    (_, my), = tracegeometry.pools_of([16 << 20], "mysql", {}, 1_000.0)
    assert dirtypages.adaptive_args(my)["fl_io"] == dirtypages.MYSQL_IO_CAPACITY
    (_, maria), = tracegeometry.pools_of([16 << 20], "mariadb", {"innodb_io_capacity": 200}, 1_000.0)
    assert dirtypages.adaptive_args(maria) == {}


def test_a_mixed_run_without_the_flush_counters_takes_the_adaptive_batch():
    from loadgen.analysis import dirtypages
    from loadgen.analysis.pool import RA_RULE_MARIADB, RA_RULE_MYSQL

    class P:
        ra_rule = RA_RULE_MYSQL

    timed = {"buffer_pool": {"flush": {"flush_list_flushed": 1_699}}, "result": {"elapsed_s": 64.4}}
    assert dirtypages.run_args(P(), timed) == (dirtypages.MYSQL_CLEAN_SCAN, 26)
    bare = {"buffer_pool": {"flush": {}}, "server": {"variables": {"innodb_io_capacity": "200"}}}
    assert dirtypages.run_args(P(), bare) == (dirtypages.MYSQL_CLEAN_SCAN, 0, 200)
    assert dirtypages.run_args(P(), {}) == (dirtypages.MYSQL_CLEAN_SCAN, 0, dirtypages.MYSQL_IO_CAPACITY)
    P.ra_rule = RA_RULE_MARIADB
    assert dirtypages.run_args(P(), bare) == (0, 0)


def test_the_kernel_replays_a_runs_recorded_lru_batches_where_they_were_seen():
    # a 600-page pool filled by a pass over 0..599, then 0..99 read again: all hits; a recorded
    # batch of 200 pages before op 600 evicts the tail (0..199), so 0..99 are read twice
    pages = np.concatenate([np.arange(600), np.arange(100)]).astype(np.uint32)
    flags = np.full(len(pages), mp.OP, dtype=np.uint8)
    plain = native.lrusim_mix(pages, flags, *POOL)
    assert plain.misses == 600 and plain.lru_batches == 0
    seen = native.lrusim_mix(pages, flags, *POOL, seen=((600, 200),))
    reads = np.frombuffer(seen.reads, dtype=np.uint32)
    assert seen.misses == 700 and seen.lru_batches == 1 and reads[:100].tolist() == [2] * 100
    # a batch seen after the last op is never due; the record must be sorted
    assert native.lrusim_mix(pages, flags, *POOL, seen=((10_000, 200),)).misses == 600
    with pytest.raises(ValueError, match="sorted by queries done"):
        native.lrusim_mix(pages, flags, *POOL, seen=((600, 1), (10, 1)))


def test_a_mysql_read_only_mix_replays_its_recorded_batches_a_write_mix_keeps_the_timed_ones():
    record = {"complete": True, "batches": [{"queries_before": 990, "queries_after": 1010, "pages": 600}]}
    run = {"server": {"flavor": "mysql", "innodb_buffer_pool_size": 16 << 20, "variables": {}},
           "buffer_pool": {"cleaner_batches": record}, "result": {"qps": 2_000.0}, "samples": []}
    assert mm.pool_of(run).cleaner_seen == ((1000, 600),)
    assert mm.pool_of(run, writes=True).cleaner_seen is None  # its batches come every second
    assert mm.pool_of({**run, "server": {**run["server"], "flavor": "mariadb"}}).cleaner_seen is None
    # a record cut short: the timed batch's phases, as before
    run["buffer_pool"]["cleaner_batches"] = {**record, "complete": False}
    assert mm.pool_of(run).cleaner_seen is None

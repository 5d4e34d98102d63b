"""The undo side of the mix model (loadgen/analysis/undomodel.py): the rollback segments' pages, the
new undo pages a segment's logs take, MySQL's ibtmp1 pages, and where the logs-per-page figure
comes from (a run's pages_created, else the forecast's table)."""
from __future__ import annotations

import numpy as np

from loadgen.analysis import mixmodel as mm
from loadgen.analysis import mixpages as mp
from loadgen.analysis import purgewalks as pw
from loadgen.analysis import undomodel as um
from loadgen.analysis.pool import PoolModel
from loadgen.workload import presets
from loadgen.workload.opstream import Generator

TABLES = {"usertable": {"database": "chat", "table": "usertable", "rows": 20_000, "leaf_pages": 1_430, "height": 2,
                        "indexes": {}}}


def _space(rsegs=4, per_page=2.0, live=2, temp=0):
    tree = mp.Tree("usertable", mp.PRIMARY, 20_000, 1_430, 2)
    return mp.Space({("usertable", mp.PRIMARY): tree}, rsegs, per_page, live, temp)


def test_a_segment_takes_a_new_undo_page_every_per_page_logs_in_its_live_pages():
    space = _space(rsegs=4, per_page=2.0, live=2)
    txn = np.arange(24, dtype=np.int64)
    hdr, undo, first = space.rseg_pages(txn)
    assert (hdr == space.system_base + txn % 4).all()
    assert ((undo >= space.undo_base) & (undo < space.temp_base)).all()
    assert space.temp_base == space.file_base == space.n_pages - 2  # one tablespace's header and inode page
    k = txn // 4  # each segment's k-th log
    assert (first == (k % 2 == 0)).all()  # a new page every 2 logs
    # the segment's pages in turn: 2 live ones, so its 1st and 3rd page are the same page number
    seg0 = undo[txn % 4 == 0]
    assert seg0[0] == seg0[1] != seg0[2] == seg0[3] and seg0[4] == seg0[0]
    assert len(set(undo.tolist())) == 4 * 2


def test_without_growth_a_segment_keeps_one_undo_page():
    space = _space(per_page=0.0)
    _, undo, first = space.rseg_pages(np.arange(12, dtype=np.int64))
    assert len(set(undo.tolist())) == 4 and first.sum() == 4


def test_undo_refs_create_new_pages_and_skip_start_up_reads():
    space = _space(rsegs=4, per_page=2.0, live=2)
    txn = np.arange(12, dtype=np.int64)
    r = um.undo_refs(space, txn, rsegs_at_start=False)
    _, _, first = space.rseg_pages(txn)
    created = first & (txn >= 4)
    # a created page's segment also changes its tablespace's header and inode page
    assert r.widths.tolist() == (2 + 2 * created).tolist() and (r.flags & mp.WRITE).all()
    starts = np.cumsum(r.widths) - r.widths
    undo_flags = r.flags[starts]
    # a later page's first log creates it (no read); the segment's first page is read at first use
    assert ((undo_flags & mp.NEW) > 0).tolist() == created.tolist()
    assert set(r.pages[starts[created] + 2].tolist()) == {space.file_base}
    started = um.undo_refs(space, txn, rsegs_at_start=True)
    s0 = (np.cumsum(started.widths) - started.widths)[:4]
    assert (started.flags[s0] & mp.NEW).all() and (started.flags[s0 + 1] & mp.NEW).all()
    # purge reads the undo page, and where a new page began, the freeing's header and inode page;
    # the segment's header only for the logs it reaches before the next walk (header)
    pr = um.purge_refs(space, txn)
    assert pr.widths.tolist() == (1 + 2 * created).tolist()
    hdr, undo, _ = space.rseg_pages(txn)
    starts = np.cumsum(pr.widths) - pr.widths
    assert pr.pages[starts].tolist() == undo.tolist() and not set(pr.pages.tolist()) & set(hdr.tolist())
    own = np.arange(len(txn)) % 2 == 0
    pr = um.purge_refs(space, txn, header=own)
    assert pr.widths.tolist() == (1 + own + 2 * created).tolist()
    starts = np.cumsum(pr.widths) - pr.widths
    assert pr.pages[starts].tolist() == undo.tolist() and pr.pages[starts[own] + 1].tolist() == hdr[own].tolist()


def test_mysql_purge_truncation_passes_read_every_rollback_segment_header():
    """MySQL 8.0-9.x (undomodel.TRUNCATE_BATCHES): a write touches its undo page and header only;
    every `every` ops, once the history holds a log, purge reads the header of every rollback
    segment, the undo tablespaces' and ibtmp1's; a page's first touch creates it (read or made at
    start-up); purge's own pass over a log reads its undo page, not the header."""
    space = _space(rsegs=4, per_page=0.0, temp=3)
    txn = np.arange(10, dtype=np.int64)
    r = um.undo_refs(space, txn, rsegs_at_start=True)
    assert r.widths.tolist() == [2] * 10  # no ibtmp1 page per write
    sw = pw.Sweeps.of(space, 40.0)
    sw.used(np.array([0, 1]))  # segments 0 and 1 used by a transaction already
    assert sw.due(0, 30, [np.array([5, 7])], [np.array([0, 1])]) is None  # none due yet
    at, refs = sw.due(30, 70, [np.array([50])], [np.array([2])])  # writes that left a log at 5, 7, 50
    assert at.tolist() == [40, 80] and refs.widths.tolist() == [7, 7]
    want = [space.system_base + i for i in range(4)] + [space.temp_base + i for i in range(3)]
    assert refs.pages.tolist() == want * 2
    assert (refs.flags[:7] > 0).tolist() == [False, False, True, True, True, True, True]
    assert not refs.flags[7:].any() and sw.seen.all()
    # ops 100..199: a walk at 120 (a write at 110), none at 160 (no log written since 120)
    at, _ = sw.due(100, 100, [np.array([110])], [np.array([3])])
    assert at.tolist() == [120]
    assert pw.Sweeps.of(_space(rsegs=4), 40.0).seen is None  # MariaDB: the headers read (no ibtmp1)
    # purge's batches a second: min(1.15, 92 / r + 0.21) a write transaction (r a second); 128 a pass
    assert abs(um.sweep_ops_of("mysql", 1000.0, 0.5) - 128 * 1000 / (92 + 0.21 * 500)) < 1e-9
    assert abs(um.sweep_ops_of("mysql", 1000.0, 0.05) - 128 * 1000 / (1.15 * 50)) < 1e-9  # commits rare
    assert um.sweep_ops_of("mysql", 1000.0, 0.0) == 0.0
    # a captured BEGIN .. COMMIT of several writes: 1.6 batches a commit, whatever the rate, to 300 a second
    assert abs(um.sweep_ops_of("mysql", 1800.0, 1 / 18, 4.0) - 128 * 1800 / (1.6 * 100)) < 1e-9
    assert abs(um.sweep_ops_of("mysql", 1800.0, 1 / 6, 4.0) - 128 * 1800 / 300.0) < 1e-9
    assert um.sweep_ops_of("mysql", 1800.0, 1 / 18, 1.0) == um.sweep_ops_of("mysql", 1800.0, 1 / 18)
    pr = um.purge_refs(space, txn)
    assert pr.widths.tolist() == [1] * 10 and pr.pages.tolist() == space.rseg_pages(txn)[1].tolist()


def test_logs_per_page_come_from_the_runs_pages_created_less_its_new_leaves():
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=17_000)
    counts = Generator(spec).counts_at(17_000)
    txns = um.write_txns(spec, counts)
    di = [i for i, s in enumerate(spec.streams) if s.op == "delete-insert"]
    writes = sum(int(c) for s, c in zip(spec.streams, counts) if s.writes)
    assert txns == writes + int(counts[di[0]])  # a delete-insert is two transactions
    space = _space()
    run = {"server": {"flavor": "mysql"}, "buffer_pool": {"flush": {"pages_created": 1_000}}}
    assert abs(um.undo_txns_per_page(run, space, spec, 17_000) - txns / 1_000) < 1e-9
    assert um.undo_txns_per_page({"buffer_pool": {}}, space, spec, 17_000) is None
    # MariaDB's own count at most the forecast's: a fast run's 1,000 pages created (4.1 logs a
    # page) are fewer than its segments took (freed pages created again in their frames are not
    # counted); a slow run's 3,000 (1.4 a page) stand
    maria = {"server": {"flavor": "mariadb"}, "buffer_pool": {"flush": {"pages_created": 1_000}}}
    forecast = um.forecast_txns_per_undo_page(spec, "mariadb")
    assert txns / 1_000 > forecast and um.undo_txns_per_page(maria, space, spec, 17_000) == forecast
    maria["buffer_pool"]["flush"]["pages_created"] = 3_000
    assert abs(um.undo_txns_per_page(maria, space, spec, 17_000) - txns / 3_000) < 1e-9 < forecast - txns / 3_000
    # the forecast: MariaDB's 1 + a segment's transactions within the purge lag (sysbench: 4 of
    # every 17 statements write, a delete-insert twice), MySQL's between its ops' per-page figures
    t = um.forecast_txns_per_undo_page(spec, "mariadb")
    assert abs(t - (1 + um.PURGE_LAG_OPS * (4 / 17) / 128)) < 1e-6
    table = um.UNDO_TXNS_PER_PAGE["mysql"]
    assert table["update"] <= um.forecast_txns_per_undo_page(spec, "mysql") <= table["delete-insert"]
    assert um.forecast_txns_per_undo_page(presets.load("ycsb-c", rows=1000), "mariadb") == 0.0


def test_the_start_up_pages_give_up_the_frames_the_rollback_segments_hold():
    space = _space(rsegs=128, temp=128)
    pool = PoolModel(pool_pages=1024, capacity_pages=1024, start_pages=975)
    assert um.without_rseg_pages(pool, space).start_pages == 975 - 2 * 128 - 128
    assert um.without_rseg_pages(PoolModel(pool_pages=1024, capacity_pages=1024), space).start_pages == 0


def test_a_runs_own_pages_created_change_the_undo_pages_not_the_tables_alone():
    """The prediction with the run's pages_created against the forecast's: both carry the undo
    pages; a run that created a page per log reads fewer undo pages back than one that created
    none beyond its segments' own (created pages are not read)."""
    spec = presets.load("ycsb-a", rows=20_000, operations=8_000)
    base = {"workload": {"kind": "mix", "mix": spec.to_dict()}, "dataset": {"database": "chat", "tables": TABLES},
            "server": {"flavor": "mariadb", "innodb_buffer_pool_size": 8 << 20, "variables": {}},
            "result": {"ops": 8_000, "qps": 3_000.0}, "samples": []}
    writes = um.write_txns(spec, Generator(spec).counts_at(8_000))
    many = mm.predict({**base, "buffer_pool": {"flush": {"pages_created": writes}}})
    few = mm.predict({**base, "buffer_pool": {"flush": {"pages_created": 0}}})
    forecast = mm.predict({**base, "buffer_pool": {"flush": {"pages_created": writes}}}, own_undo=False)
    assert many["system_pages_read"] < few["system_pages_read"]
    assert forecast["system_pages_read"] > 0
    for p in (many, few, forecast):
        assert p["pages_read"] == p["tables"]["chat.usertable"]["pages_read"] + p["system_pages_read"]


def test_a_mysql_insert_writes_its_undo_page_only():
    """MySQL frees an insert's undo log at commit (undomodel.INSERT_HISTORY): no segment header,
    no temporary rollback segment page, nothing for purge; MariaDB's goes to purge."""
    space = _space(rsegs=4, per_page=0.0, temp=3)
    txn = np.arange(8, dtype=np.int64)
    plain = np.array([True, False] * 4)
    r = um.undo_refs(space, txn, rsegs_at_start=True, plain=plain)
    # inserts: the undo page only; the others: undo page and header; a segment's first
    # transaction (0 and 2 of segments 0 and 2) keeps its header even as an insert, created (the
    # segments were read at start-up), so nothing reads it later
    assert r.widths.tolist() == [2, 2, 2, 2, 1, 2, 1, 2]
    hdr, _, _ = space.rseg_pages(txn)
    assert r.pages[1] == hdr[0] and r.flags[1] & mp.NEW
    _, undo, _ = space.rseg_pages(txn)
    starts = np.cumsum(r.widths) - r.widths
    assert (r.pages[starts] == undo).all()
    for flavor, purged in (("mariadb", True), ("mysql", False)):
        spec = presets.load("ycsb-d", rows=20_000, operations=4_000)
        tables = {"usertable": {**TABLES["usertable"]}}
        sp, _ = mm.space_of(spec, tables, flavor, 4_000)
        assert sp.insert_history is purged
        pages, flags = mm.build_trace(spec, sp, {}, 4_000).arrays()
        undo_reads_by_purge = ((pages >= sp.undo_base) & (pages < sp.temp_base) & (flags == 0)).sum()
        assert bool(undo_reads_by_purge > 0) is purged


def test_a_mysql_mix_has_truncation_passes_while_its_history_holds_logs():
    """The mix model's MySQL trace: a pass (every rollback segment header and ibtmp1's) every
    sweep_ops ops while updates leave logs, each ibtmp1 page read (created at its first touch
    where the segments were held at start, read after); an insert-only mix (ycsb-d: MySQL frees
    an insert's log at commit) has none, as the server read no ibtmp1 page there."""
    tables = {"usertable": {**TABLES["usertable"]}}
    for preset, passes in (("ycsb-a", 4_000 // 500 - 1), ("ycsb-d", 0)):
        spec = presets.load(preset, rows=20_000, operations=4_000)
        sp, _ = mm.space_of(spec, tables, "mysql", 4_000)
        pages, flags = mm.build_trace(spec, sp, {}, 4_000, sweep_ops=500.0).arrays()
        temp = (pages >= sp.temp_base) & (pages < sp.temp_base + sp.temp_rsegs)
        assert temp.sum() == passes * sp.temp_rsegs, preset
        assert not (flags[temp] & mp.NEW).any(), preset  # not held at start (rsegs_at_start): all read
        if passes:  # held: the first pass makes them, the others read them
            pages, flags = mm.build_trace(spec, sp, {}, 4_000, sweep_ops=500.0, rsegs_at_start=True).arrays()
            temp = (pages >= sp.temp_base) & (pages < sp.temp_base + sp.temp_rsegs)
            assert (flags[temp] & mp.NEW > 0).sum() == sp.temp_rsegs


def test_purge_walks_the_headers_once_a_second_only_while_writes_come():
    """sweeps_due: a walk every `every` ops where a write came within the `every` ops before it,
    whichever chunk the write was in (none after the writes stop for longer than that), reading
    every segment's header (the pool decides which are still in it)."""
    last = np.full(4, -1, dtype=np.int64)
    ops, rsegs = np.array([10, 20, 2_400]), np.array([0, 1, 2])
    points, reads, k = pw.sweeps_due(0, 1_500, ops[:2], rsegs[:2], 1_000.0, 1, last)
    assert points == [1_000] and k == 2 and reads[0].tolist() == [0, 1, 2, 3]
    assert last.tolist() == [10, 20, -1, -1]
    # the next chunk: 2,000 had no write in 1,000..2,000 (no walk), 3,000 had 2,400 (segment 2)
    points, reads, k = pw.sweeps_due(1_500, 3_000, ops[2:], rsegs[2:], 1_000.0, k, last)
    assert points == [3_000] and reads[0].tolist() == [0, 1, 2, 3] and k == 5
    # a write in the chunk before counts for a walk early in this one
    last = np.full(4, -1, dtype=np.int64)
    pw.sweeps_due(0, 900, np.array([850]), np.array([3]), 1_000.0, 1, last)
    points, reads, _ = pw.sweeps_due(900, 200, np.zeros(0, np.int64), np.zeros(0, np.int64), 1_000.0, 1, last)
    assert points == [1_000] and reads[0].tolist() == [0, 1, 2, 3]
    refs = pw.sweep_refs(_space(rsegs=4), reads)
    assert refs.widths.tolist() == [4] and (refs.flags == 0).all()
    # purge reads a log's header itself only where it reaches the log before the next walk
    sw = pw.Sweeps.of(_space(rsegs=4), 1_000.0)
    assert sw.before_walk(np.array([100, 950, 1_500]), 300.0).tolist() == [True, False, True]
    assert pw.Sweeps.of(_space(rsegs=4), 0.0).before_walk(np.array([100]), 300.0) is None
    assert um.sweep_ops_of("mariadb", 2_500.0) == 2_500.0 and um.sweep_ops_of("mysql", 2_500.0) == 0.0


def test_mysql_walks_by_the_batches_fall_at_their_phase_with_or_without_writes():
    """MySQL's walks placed by the run's batches (undomodel.measured_walks: the first at its op, then
    every `every`): made where no write left history (an insert-only run walked once at the 128th
    batch from the server's start, docs/data/ycsbd), and the walks' later reads follow the phase."""
    last = np.full(4, -1, dtype=np.int64)
    none = np.zeros(0, np.int64)
    points, reads, k = pw.sweeps_due(0, 2_000, none, none, 1_000.0, 1, last, first=900.0)
    assert points == [900, 1_900] and k == 3 and reads[0].tolist() == [0, 1, 2, 3]
    points, _, k = pw.sweeps_due(2_000, 1_000, none, none, 1_000.0, k, last, first=900.0)
    assert points == [2_900] and k == 4
    # by the count alone (no phase) the same chunk has no walk without a write
    assert pw.sweeps_due(0, 2_000, none, none, 1_000.0, 1, np.full(4, -1, np.int64))[0] == []
    sw = pw.Sweeps.of(_space(rsegs=4, temp=3), (500.0, 420.0), reads_logs=True)
    assert sw.first == 420.0 and sw.every == 500.0
    assert sw.walk_after(np.array([0, 420, 421, 921, 1_000])).tolist() == [420, 420, 920, 1_420, 1_420]
    assert pw.Sweeps.of(_space(rsegs=4), (500.0, 420.0)).due(0, 1_000, [], []) is not None
    assert pw.Sweeps.of(_space(rsegs=4), 500.0).due(0, 1_000, [], []) is None


def test_a_slower_run_reads_more_headers_where_they_do_not_stay():
    """The same ops at a twelfth of the rate walk the 128 headers twelve times as often: where
    writes are rare (25 a second: ~80% of the segments unused in a second) and the pool too small
    to keep the headers (8M), the system pages read go up by most of those walks; MySQL, whose walks
    follow its purge batches, far less."""
    spec = presets.load("ycsb-b", rows=20_000, operations=20_000)
    base = {"workload": {"kind": "mix", "mix": spec.to_dict()}, "dataset": {"database": "chat", "tables": TABLES},
            "server": {"flavor": "mariadb", "innodb_buffer_pool_size": 8 << 20, "variables": {}},
            "buffer_pool": {}, "samples": []}
    fast = mm.predict({**base, "result": {"ops": 20_000, "qps": 6_000.0}})
    slow = mm.predict({**base, "result": {"ops": 20_000, "qps": 500.0}})
    mysql = {**base, "server": {**base["server"], "flavor": "mysql"}}
    my_fast = mm.predict({**mysql, "result": {"ops": 20_000, "qps": 6_000.0}})
    my_slow = mm.predict({**mysql, "result": {"ops": 20_000, "qps": 500.0}})
    unused = np.exp(-25 / 128)  # a segment's share of seconds with no write
    walks_more = (20_000 / 500 - 20_000 / 6_000) * 128 * unused
    assert slow["system_pages_read"] - fast["system_pages_read"] > walks_more / 2
    # MySQL walks every 128 purge batches, about one a commit where commits are rare: the rate moves
    # its walks far less (at 500 q/s 1.15 x 25 batches a second, at 6,000 92 + 0.21 x 300)
    assert abs(my_slow["system_pages_read"] - my_fast["system_pages_read"]) < walks_more / 2


def test_mysql_walks_come_from_the_runs_own_count_where_it_has_one():
    """A MySQL run that recorded purge_truncate_history_count walks exactly as often as its server
    did (ops / walks), not at the rate fitted to its q/s; MariaDB's walks follow the clock, and a
    run without the counter, or the forecast (own_undo=False), keeps the fit. Where it counted its
    purge batches too, one walk every 128 of them (the k-th at the (128 k)-th batch: the server's
    walks counted were floor(batches / 128)), while the two agree to a walk."""
    assert um.measured_sweep_ops({"buffer_pool": {"flush": {"purge_truncations": 40}}}, "mysql", 20_000) == 500.0
    both = {"buffer_pool": {"flush": {"purge_truncations": 16, "purge_batches": 2_154}}}  # a 16M run's
    every = um.measured_sweep_ops(both, "mysql", 20_000)
    assert every == 128 * 20_000 / 2_154 and int(20_000 // every) == 16  # ops / walks (1,250) gave 15 before op 20,000
    odd = {"buffer_pool": {"flush": {"purge_truncations": 16, "purge_batches": 3_000}}}  # 23 walks' batches
    assert um.measured_sweep_ops(odd, "mysql", 20_000) == 1_250.0  # the two disagree: the walks' count
    assert um.measured_sweep_ops({"buffer_pool": {"flush": {"purge_truncations": 0}}}, "mysql", 20_000) == 0.0
    assert um.measured_sweep_ops({"buffer_pool": {"flush": {}}}, "mysql", 20_000) is None
    assert um.measured_sweep_ops({"buffer_pool": {"flush": {"purge_truncations": 40}}}, "mariadb", 20_000) is None
    spec = presets.load("ycsb-a", rows=20_000, operations=20_000)
    base = {"workload": {"kind": "mix", "mix": spec.to_dict()}, "dataset": {"database": "chat", "tables": TABLES},
            "server": {"flavor": "mysql", "innodb_buffer_pool_size": 8 << 20, "variables": {}},
            "samples": [], "result": {"ops": 20_000, "qps": 2_000.0}}
    fit = mm.predict({**base, "buffer_pool": {}})
    assert fit["purge_walks_from"] == "fit"
    assert abs(fit["purge_walk_ops"] / um.sweep_ops_of("mysql", fit["qps"], 0.5) - 1) < 0.02  # ~half updates
    few = mm.predict({**base, "buffer_pool": {"flush": {"purge_truncations": 2}}})
    many = mm.predict({**base, "buffer_pool": {"flush": {"purge_truncations": 60}}})
    assert few["purge_walks_from"] == many["purge_walks_from"] == "run" and few["purge_walk_ops"] == 10_000.0
    # every walk reads the 384 headers in an 8M pool that cannot keep them: more walks, more reads
    assert many["system_pages_read"] > few["system_pages_read"] + 40 * 200
    assert mm.predict({**base, "buffer_pool": {"flush": {"purge_truncations": 60}}}, own_undo=False)[
        "purge_walks_from"] == "fit"


def test_mysql_walk_reads_each_purged_logs_undo_page_again():
    """MySQL's truncation walk (trx_purge_truncate_rseg_history) reads the undo page of every log
    purge passed since the walk before (to take it off the history list or free its segment):
    each update's undo page is read by purge a few ops after the write (the run's measured lag)
    and again at the first walk after that (Sweeps.walk_after); none after the last walk.
    MariaDB's purge reads it once, PURGE_LAG_OPS after the write, beside the header."""
    sw = pw.Sweeps.of(_space(rsegs=4, temp=3), 500.0, reads_logs=True)
    assert sw.walk_after(np.array([0, 1, 499, 500, 501, 1_200])).tolist() == [500, 500, 500, 500, 1_000, 1_500]
    assert pw.Sweeps.of(_space(rsegs=4, temp=3), 0.0, reads_logs=True).walk_after(np.array([10])) is None
    # no measured lag (a trace, the forecast) or MariaDB (no ibtmp1 segments): PURGE_LAG_OPS's read
    assert pw.Sweeps.of(_space(rsegs=4, temp=3), 500.0).walk_after(np.array([10])) is None
    assert pw.Sweeps.of(_space(rsegs=4), 500.0, reads_logs=True).walk_after(np.array([10])) is None
    spec = presets.load("ycsb-a", rows=20_000, operations=4_000)
    tables = {"usertable": {**TABLES["usertable"]}}
    ops = 4_000
    counts = dict(zip([s.op for s in spec.streams], Generator(spec).counts_at(ops)))
    assert counts["update"] > 1_000
    reads = {}
    for flavor in ("mysql", "mariadb"):
        sp, _ = mm.space_of(spec, tables, flavor, ops)
        sweep = 500.0 if flavor == "mysql" else 0.0
        pages, flags = mm.build_trace(spec, sp, {}, ops, sweep_ops=sweep, purge_lag=10.0).arrays()
        undo = (pages >= sp.undo_base) & (pages < sp.temp_base)
        reads[flavor] = int((undo & (flags == 0)).sum())
    # MySQL: purge's read of every update 10 ops on (all but the last 10 ops'), the walk's of those
    # before the last walk (3,500: logs purged after it wait for the walk at 4,000, past the end)
    # (3,724 for 1,988 updates; main's model, purge's read PURGE_LAG_OPS on and no walk's: 1,479)
    assert 1.8 * counts["update"] < reads["mysql"] < 1.95 * counts["update"]
    # MariaDB: purge's alone, PURGE_LAG_OPS (1,000) after the write: the first 3,000 ops' updates
    assert 0.7 * counts["update"] < reads["mariadb"] < 0.8 * counts["update"]


def test_mysql_walk_reads_each_segments_header_then_its_logs_tablespace_by_tablespace():
    """trx_purge_truncate_history walks the first undo tablespace's segments, then the second's,
    then ibtmp1's; each segment's header (trx_rsegf_get), then the logs purge passed from the
    oldest (trx_purge_truncate_rseg_history). Write transactions take the tablespaces in turn, so
    the model's segment r is in tablespace r % 2: the walk visits 0, 2, 1, 3."""
    tree = mp.Tree("usertable", mp.PRIMARY, 20_000, 1_430, 2)
    space = mp.Space({("usertable", mp.PRIMARY): tree}, 4, 2.0, 2, 3, 2, False)
    assert pw.walk_order(space).tolist() == [0, 2, 1, 3]
    sw = pw.Sweeps.of(space, 100.0, reads_logs=True)
    # logs of transactions 9, 5 (segment 1) and 6 (segment 2), all for the walk at op 100; 13
    # (segment 1) for the walk at 200
    sw.to_walk(np.array([100, 100, 100, 200]), np.array([9, 5, 6, 13]))
    sw.used(np.arange(4))
    ops, refs = sw.due(0, 150, [np.array([40, 50, 60])], [np.array([1, 2, 1])])
    assert ops.tolist() == [100] and refs.widths.tolist() == [4 + 3 + 2 + 3]
    hdr = space.system_base + np.arange(4)
    _, undo, first = space.rseg_pages(np.array([5, 6, 9]))
    assert not first[0] and not first[1] and first[2]  # 9 is segment 1's first log on a new page: freed
    fsp, inode = space.file_pages(np.array([9]))
    temp = space.temp_base + np.arange(3)
    want = [hdr[0], hdr[2], undo[1], hdr[1], undo[0], undo[2], fsp[0], inode[0], hdr[3], *temp]
    assert refs.pages.tolist() == [int(p) for p in want]
    assert refs.flags.tolist()[6:8] == [mp.WRITE, mp.WRITE]  # the freed segment's file pages, written
    assert not refs.flags[:6].any() and sw.logs[0][1].tolist() == [13]  # 13's log waits for the walk at 200


def test_a_result_files_counters_that_are_not_counts_are_ignored_not_trusted():
    # a result file is the user's: a counter that is not a non-negative number is as good as absent
    for bad in ("12", None, -3, True, float("nan"), float("inf"), [1]):
        run = {"buffer_pool": {"flush": {"purge_truncations": bad, "purge_batches": bad, "pages_created": bad}}}
        assert um.measured_sweep_ops(run, "mysql", 20_000) is None
        assert um.measured_purge_lag(run, 20_000) is None
    assert um.measured_purge_lag({"buffer_pool": {"flush": {"purge_batches": 400.0}}}, 20_000) == 50.0


def test_a_walk_before_a_segments_first_write_creates_its_header():
    """A chunk's writes are numbered before its walks are placed: a segment first written after a
    walk (in the same chunk) is first touched by the walk, which reads nothing where the headers
    were read at start-up (MySQL 9.7, the shop at 64M and 232 q/s: the model read 151 headers, the
    server none); where they were not held (a MySQL restart at 16M that left fewer data pages than
    they are), the walk reads them all, ibtmp1's too: the server's 16M write runs read 128 ibtmp1
    pages for each walk they counted, the first included (2,031 for 16, 2,295 for 18)."""
    space = _space(rsegs=4, per_page=0.0, temp=3)
    sw = pw.Sweeps.of(space, 40.0)
    sw.used(np.arange(4), np.array([10, 20, 60, 70]))  # segments 2 and 3 first written after the walk at 40
    at, refs = sw.due(0, 100, [np.array([10, 20, 60, 70])], [np.arange(4)])
    assert at.tolist() == [40, 80] and refs.widths.tolist() == [7, 7]
    assert (refs.flags[:7] > 0).tolist() == [False, False, True, True, True, True, True]
    assert not refs.flags[7:].any()  # the second walk finds them all touched
    assert sw.seen.all()
    cold = pw.Sweeps.of(space, 40.0, held=False)
    cold.used(np.arange(4), np.array([10, 20, 60, 70]))
    _, refs = cold.due(0, 100, [np.array([10, 20, 60, 70])], [np.arange(4)])
    assert not refs.flags.any()  # every header read, ibtmp1's too


def test_a_mysql_delete_inserts_insert_is_purged_as_an_update():
    """sysbench-oltp-rw's delete-insert re-inserts the key its delete just delete-marked: on MySQL an
    update of that record (undomodel.REINSERT_HISTORY), so its log goes to the history as the
    delete's does (the segment's header written at commit, purge reading the log back: the server's
    purge_undo_pages counted every statement), where a plain insert (ycsb-d's) leaves none."""
    tables = {"sbtest1": {"database": "chat", "table": "sbtest1", "rows": 20_000, "leaf_pages": 1_000, "height": 2,
                          "indexes": {"k_1": {"leaf_pages": 100, "height": 2, "columns": ["k"]}}}}
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=4_000)
    sp, _ = mm.space_of(spec, tables, "mysql", 4_000)
    counts = Generator(spec).counts_at(4_000)
    txns = um.write_txns(spec, counts)
    reinserts = sum(int(c) for s, c in zip(spec.streams, counts) if s.op == "delete-insert")
    assert not sp.insert_history and reinserts > 0
    pages, flags = mm.build_trace(spec, sp, {}, 4_000, purge_lag=10.0).arrays()
    headers = (pages >= sp.system_base) & (pages < sp.undo_base)
    assert (headers & (flags & mp.WRITE > 0)).sum() == txns  # every transaction's commit, the re-inserts' too
    purged = ((pages >= sp.undo_base) & (pages < sp.temp_base) & (flags == 0)).sum()
    # purge reads each one's log back (no walks here) PURGE_LAG_OPS later: those of the first 3,000 ops
    assert purged == um.write_txns(spec, Generator(spec).counts_at(4_000 - um.PURGE_LAG_OPS))

"""A long trace's MySQL held-spread twins cut short (heldspread.TWIN_SHARE, tracesim.PoolFeed's cut):
fed the trace's first chunks, their reach carried to the whole trace (heldspread.extrapolated). The
estimate must stay the whole trace's exact simulation to the page, and each side's reach within the
gate branch mysqltwins held on the bench's traces: max(0.1% of the reads, 20% of the whole trace's
reach) of the reach of twins fed the whole trace."""

from __future__ import annotations

import numpy as np

from loadgen import native
from loadgen.analysis import heldspread, tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts

from .test_mysqlcurve import QPS, _reach, _setup

GATE_READS_REL = 0.001
GATE_REACH_REL = 0.2


def test_cut_twins_reach_stays_within_the_gate(tmp_path, monkeypatch):
    # 100,000 operations in 50 chunks (any chunk size gives the same references: test_tracespeed.py),
    # counted as long (the one-phase gate let in); at 30,000 operations the 64M pool's cut reach was
    # 2.2 gates off (branch mysqltwins): a trace this short is no candidate in use (10M operations)
    out, tables = _setup(tmp_path, 100_000)
    monkeypatch.setattr(ts, "SAMPLE_MIN_OPS", 10_000)
    # the twins are the exact one-phase pools' (a write-heavy trace's, MAX_WRITE_SHARE; a curve's
    # pools are miniatures by default, with no twins)
    monkeypatch.setattr(ts, "MYSQL_MINI", False)
    monkeypatch.setattr(tracemodel, "CHUNK_OPS", 2_000)
    monkeypatch.setattr(heldspread, "TWIN_MIN_OPS", 0)
    pools = tracegeometry.pools_of([4 << 20, 64 << 20], "mysql", {}, QPS)
    monkeypatch.setattr(heldspread, "TWIN_SHARE", 1.0)  # the twins fed the whole trace: exact
    whole = tracemodel.predict(out, tables, pools, "mysql")["pools"]
    monkeypatch.setattr(heldspread, "TWIN_SHARE", 0.25)
    cut = tracemodel.predict(out, tables, pools, "mysql")["pools"]
    assert whole[1]["held_spread"]["twins_share"] == 1.0 and cut[1]["held_spread"]["twins_share"] < 0.3
    assert min(abs(r) for r in _reach(whole[1])) > 500  # a reach worth checking (gate 20% of it)
    for a, b in zip(whole, cut):
        assert b["pages_read"] == a["pages_read"]  # the estimate is simulated whole, to the page
        assert {n: t["pages_read"] for n, t in b["tables"].items()} == {
            n: t["pages_read"] for n, t in a["tables"].items()
        }
        for x, y in zip(_reach(a), _reach(b)):
            assert abs(y - x) <= max(GATE_READS_REL * a["pages_read"], GATE_REACH_REL * abs(x)), (
                a["pool_bytes"],
                _reach(a),
                _reach(b),
            )


def test_peek_is_close_so_far_and_keeps_feeding():
    rng = np.random.default_rng(3)
    pages = rng.integers(0, 5_000, 40_000).astype(np.uint32)
    flags = np.zeros(len(pages), dtype=np.uint8)
    args = (5_000, 0, 1_000, 1_000, 37.0, 1000.0, 1.0)
    whole, half = native.MixStream(*args), native.MixStream(*args)
    whole.feed(pages, flags)
    half.feed(pages[:20_000], flags[:20_000])
    first = native.MixStream(*args)
    first.feed(pages[:20_000], flags[:20_000])
    peeked = half.peek()
    assert peeked.reads == first.close().reads and peeked.misses > 0
    half.feed(pages[20_000:], flags[20_000:])
    assert half.close().reads == whole.close().reads  # peeking changed nothing
    assert heldspread.rereads(peeked.reads) == peeked.misses - int(
        np.count_nonzero(np.frombuffer(peeked.reads, np.uint32))
    )

"""MySQL's pools of a curve as miniatures (tracesample.MYSQL_MINI, on by default since branch
mysqlminion: on the bench's 3M, 10M and 30M traces every one of 8 independent draws held the exact
pool within 2 of its standard errors; -15% at 16M on this test's trace, whose 100,000 operations
never pass the long-trace gate (SAMPLE_MIN_OPS) in use; bench/README.md). The timed page cleaner's
batch, its floor, the doublewrite batch, the user threads' clean-page scan and the flush-list batch
are scaled by the sampling rate in the kernel (native/lrusim/cleaner.c refill_w, flush_list_tick):
before, the timed batch of 1,024 pages emptied a miniature's list and the kernel read past its
tail."""

from __future__ import annotations

from loadgen.analysis import tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts

from .test_mysqlcurve import QPS, _setup

# how far this trace's miniatures were from the exact pools (salts 0-2): 16M -14.5..-16.7%, 64M
# -4.5..+3.7%, 256M -2.8..+1.6%; the bound is a smoke test's, not an accuracy the path claims
SMOKE_REL = 0.25


def test_mysql_miniatures_run_where_the_switch_lets_them(tmp_path, monkeypatch):
    out, tables = _setup(tmp_path, 100_000)
    pools = tracegeometry.pools_of([16 << 20, 64 << 20], "mysql", {}, QPS)
    assert ts.MYSQL_MINI
    short = tracemodel.predict(out, tables, pools, "mysql")["pools"]  # under SAMPLE_MIN_OPS: exact
    assert not any("sampled" in p for p in short)
    monkeypatch.setattr(ts, "SAMPLE_MIN_OPS", 10_000)  # this trace counts as long: one cleaner phase
    mini = tracemodel.predict(out, tables, pools, "mysql")["pools"]  # the default: miniatures
    monkeypatch.setattr(ts, "MYSQL_MINI", False)
    exact = tracemodel.predict(out, tables, pools, "mysql")["pools"]
    assert not any("sampled" in p for p in exact)  # the switch off: exact
    for a, b in zip(exact, mini):
        assert b["sampled"]["rate"] < 1 and b["cleaner_phase_ms"] == ts.CURVE_PHASE_MS
        assert "held_spread" not in b  # a miniature's interval holds its standard error instead
        assert abs(b["pages_read"] - a["pages_read"]) <= SMOKE_REL * a["pages_read"], (a["pages_read"], b)


def test_mysql_pools_stay_exact_with_the_change_buffer_on(tmp_path, monkeypatch):
    """A miniature does not scale MySQL's change buffer (its size and merges are the whole pool's):
    with innodb_change_buffering on, a long trace's MySQL curve is simulated exactly, as before
    mysqlminion; off, the same curve's pools are miniatures."""
    from loadgen.analysis import changebuf

    out, tables = _setup(tmp_path, 100_000)
    pools = tracegeometry.pools_of([16 << 20, 64 << 20], "mysql", {}, QPS)
    monkeypatch.setattr(ts, "SAMPLE_MIN_OPS", 10_000)
    off = tracemodel.predict(out, tables, pools, "mysql", changebuf.kinds_of("mysql", "none"))["pools"]
    assert all(p["sampled"]["rate"] < 1 for p in off)
    on = tracemodel.predict(out, tables, pools, "mysql", changebuf.kinds_of("mysql", "all"))["pools"]
    assert not any("sampled" in p for p in on)
    assert all("held_spread" in p for p in on)  # exact pools carry their held-pages twins again

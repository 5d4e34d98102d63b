"""A MariaDB miniature runs the page cleaner's LRU batch as the exact pool does (native/lrusim/
cleaner.c make_room: mariadb_batch, whose dirty pages are written and stay in the list): with every
unit kept (rate 0.9999) the miniature's machinery must read what the exact pool reads. Without the
batch in a miniature its dirty pages were evicted instead: +13% at 64M on bench/predict_speed.py's
3M trace at that rate, +11.5% in the 30M trace's curve (branch mysqlmini2, bench/README.md)."""

from __future__ import annotations

from loadgen.analysis import tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts

from .test_mysqlcurve import QPS, _setup

SAME_REL = 0.005  # the miniature's machinery at rate ~1 against the exact pool (weights in floating point)


def test_a_whole_miniature_reads_what_the_exact_mariadb_pool_reads(tmp_path, monkeypatch):
    out, tables = _setup(tmp_path, 100_000)
    pools = tracegeometry.pools_of([16 << 20, 64 << 20], "mariadb", {}, QPS)
    exact = tracemodel.predict(out, tables, pools, "mariadb")["pools"]  # a short trace: exact
    monkeypatch.setattr(ts, "SAMPLE_MIN_OPS", 10_000)
    monkeypatch.setattr(ts, "rate_for", lambda pool, rate: 0.9999)
    mini = tracemodel.predict(out, tables, pools, "mariadb")["pools"]
    for a, b in zip(exact, mini):
        # every unit kept: the JSON shows no rate (the realised one is 1), but no held-spread twins
        # either (a miniature's interval holds its standard error): the miniature's path ran
        assert "held_spread" not in b and a["dirty_evictions"] > 0
        assert abs(b["pages_read"] - a["pages_read"]) <= SAME_REL * a["pages_read"], (a["pages_read"], b["pages_read"])

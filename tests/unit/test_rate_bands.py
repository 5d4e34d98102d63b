"""MariaDB 10.11's write presets at CI's size against the run's rate (issue #21, branch mariarate;
docs/workloads-lab.md, "The error follows the rate"). The server reads fewer rollback segment
headers and undo pages the faster a run goes (fewer purge batches, so fewer walks); the model's
headers rose with the rate while purge's lag was counted in operations, so ycsb-f's fast runs were
+7.5% on average and its slower ones -3%. Every stored run of ycsb-a, ycsb-f and sysbench-oltp-rw
at 16M (20,000 operations) from 350 q/s is predicted again, and each rate band's mean error is
held to the issue's 5%; the slow runs (under 350 q/s, intervals.slow_writes) to their intervals.
bench/rate_bands.py prints the same table. Since session 20 the model meets it: purge's header read
comes PURGE_HEADER_LAG_S after the write, in time, and the undo reads are capped at
undocap.UNDO_READ_SHARE of the pages written (branch mariarate's candidate, adopted; it costs the slow
sysbench-oltp-rw runs' table about a point)."""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pytest

from loadgen.analysis import mixmodel

DATA = Path(__file__).resolve().parents[2] / "docs" / "data"
PRESETS = ("ycsb-a", "ycsb-f", "sysbench-oltp-rw")
BANDS_QPS = ((350, 1000), (1000, 2000), (2000, float("inf")))
BAND_BOUND = 0.05
MIN_BAND_RUNS = 3
# CI's size, the rows the bands are held at: the ycsb-a 300k-row runs (docs/data/ycsba300k,
# ycsba300k2) are a size of their own, open in docs/workloads-lab.md ("The LRU batch under writes")
CI_ROWS = {"ycsb-a": 50_000, "ycsb-f": 50_000, "sysbench-oltp-rw": 300_000}


def _load(path: Path) -> dict | None:
    raw = path.read_bytes()
    try:
        doc = json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _runs() -> dict[str, list[tuple[float, int, dict]]]:
    """preset -> [(q/s, the server's whole reads, the prediction now)] of MariaDB 10.11 at 16M, CI's rows."""
    out: dict[str, list] = {p: [] for p in PRESETS}
    for path in sorted(DATA.rglob("*.json*")):
        if not path.name.endswith((".json", ".json.gz")):
            continue
        doc = _load(path)
        wl, srv = (doc or {}).get("workload"), (doc or {}).get("server") or {}
        if not isinstance(wl, dict) or srv.get("flavor") != "mariadb":
            continue
        preset = str(wl.get("name")).removeprefix("preset ")
        if preset not in out or not str(srv.get("version", "")).startswith("10.11"):
            continue
        if int(srv.get("innodb_buffer_pool_size", 0)) >> 20 != 16 or (wl.get("mix") or {}).get("operations") != 20000:
            continue
        if (doc.get("dataset") or {}).get("rows") != CI_ROWS[preset]:
            continue
        out[preset].append((float(doc["result"]["qps"]), int(doc["buffer_pool"]["pages_read"]), mixmodel.predict(doc)))
    return out


@pytest.fixture(scope="module")
def runs() -> dict[str, list[tuple[float, int, dict]]]:
    return _runs()


@pytest.mark.parametrize("preset", PRESETS)
def test_every_rate_band_within_the_issues_bound(runs, preset):
    """Each band's mean error within 5% (the model of before, 2026-11-30: ycsb-a +6.3% and ycsb-f
    +7.4% from 2,000 q/s, sysbench-oltp-rw -5.8% at 350-1,000 q/s and -5.1% at 1,000-2,000 q/s)."""
    got = {}
    for lo, hi in BANDS_QPS:
        errs = [(p["pages_read"] - whole) / whole for q, whole, p in runs[preset] if lo <= q < hi]
        assert len(errs) >= MIN_BAND_RUNS, (preset, lo, len(errs))
        got[lo] = round(100 * statistics.fmean(errs), 1)
    assert all(abs(e) <= 100 * BAND_BOUND for e in got.values()), (preset, got)


@pytest.mark.parametrize("preset", PRESETS)
def test_slow_runs_stay_inside_their_intervals(runs, preset):
    slow = [(whole, p["reads_low"], p["reads_high"]) for q, whole, p in runs[preset] if q < BANDS_QPS[0][0]]
    assert slow and all(lo <= whole <= hi for whole, lo, hi in slow), (preset, slow)

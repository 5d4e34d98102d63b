"""MariaDB's LRU batch under writes (issue #21, branch lrubatch; docs/workloads-lab.md, "A rate-gated
LRU batch"). Under writes a 16M pool's batch evicts 123-153 pages (measured, branch ycsba300k2), not
the 225 of main's list (256 -> 32); each batch evicts the table's hot non-leaf pages, so with 225 the
model read too few of them and MariaDB 10.11's ycsb-a at 300k rows read -4.8 .. -6.7% under in the
table. pool.write_batch takes the batch from the run's LRU counters from 800 q/s (main's below) and
the list's mean three quarters of the way to the top."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from loadgen.analysis import mixmodel
from loadgen.analysis.pool import WRITE_BATCH_HANDLED, WRITE_BATCH_MIN_QPS, pool_model, under_writes, write_batch

DATA = Path(__file__).resolve().parents[2] / "docs" / "data"
TABLE_BOUND = 0.03


def _small_pool():
    pool = under_writes(pool_model(16 << 20, {}, "mariadb", 1500.0))
    assert pool.cleaner_batch == 225 and pool.capacity_high == 256
    return pool


def test_the_batch_follows_the_pages_written_from_the_gates_rate():
    """From 800 q/s, 249 / (1 + written/evicted) (ycsb-a at 300k, watch-a-2: 148) and the list's mean
    three quarters of the way from main's 144 to 256 - 74; below 800 q/s main's batch."""
    pool = _small_pool()
    flush = {"lru_batch_evicted": 59679, "lru_batch_flushed": 40395}
    fast = write_batch(pool, flush, WRITE_BATCH_MIN_QPS)
    assert fast.cleaner_batch == round(WRITE_BATCH_HANDLED / (1 + 40395 / 59679)) == 148
    assert pool.capacity_pages == 144 and fast.capacity_pages == 172 and fast.capacity_high == 246
    assert write_batch(pool, flush, 5000.0) == fast
    assert write_batch(pool, flush, WRITE_BATCH_MIN_QPS - 1) == pool


@pytest.mark.parametrize(
    "flush",
    [
        None,
        {},
        {"lru_batch_evicted": 0, "lru_batch_flushed": 0},
        {"lru_batch_evicted": 23205, "lru_batch_flushed": 1},  # read-only ycsb-c
        {"lru_batch_evicted": "59679", "lru_batch_flushed": 40395},
        {"lru_batch_evicted": True, "lru_batch_flushed": 40395},
        {"lru_batch_evicted": 59679, "lru_batch_flushed": -1},
    ],
)
def test_no_counters_or_no_writes_keep_mains_batch(flush):
    pool = _small_pool()
    assert write_batch(pool, flush, 1500.0) == pool
    for qps in (None, "1500", True, float("nan"), -1.0):
        assert write_batch(pool, {"lru_batch_evicted": 59679, "lru_batch_flushed": 40395}, qps) == pool


def test_larger_pools_and_mysql_keep_their_batch():
    flush = {"lru_batch_evicted": 59679, "lru_batch_flushed": 40395}
    for pool in (
        under_writes(pool_model(64 << 20, {}, "mariadb", 1500.0)),
        under_writes(pool_model(16 << 20, {}, "mysql", 1500.0)),
    ):
        assert write_batch(pool, flush, 1500.0) == pool


def _ycsb_a_300k() -> list[tuple[str, float]]:
    out = []
    for d in ("ycsba300k", "ycsba300k2"):
        for path in sorted((DATA / d).glob("*.json.gz")):
            doc = json.loads(gzip.decompress(path.read_bytes()))
            if not isinstance(doc, dict):  # the stored rate_bands rows
                continue
            wl, srv = doc.get("workload") or {}, doc.get("server") or {}
            if wl.get("name") != "preset ycsb-a" or not str(srv.get("version", "")).startswith("10.11"):
                continue
            if (wl.get("mix") or {}).get("operations") != 20000 or (doc.get("dataset") or {}).get("rows") != 300_000:
                continue
            server = sum(t["file_pages_read"] for t in doc["buffer_pool"]["tables"].values())
            pred = sum(t["pages_read"] for t in mixmodel.predict(doc)["tables"].values())
            out.append((path.name, (pred - server) / server))
    return out


def test_ycsb_a_at_300k_rows_reads_its_table_within_3_percent():
    """The eleven 10.11 runs of ycsb-a at 300k rows, 16M, 20,000 operations (1,139-1,794 q/s;
    docs/data/ycsba300k, ycsba300k2): main -5.0 .. -6.7% in the table (the non-leaf pages 20-25%
    under), the rate-gated batch -0.6 .. +1.2%."""
    errs = _ycsb_a_300k()
    assert len(errs) >= 11, errs
    assert all(abs(e) <= TABLE_BOUND for _, e in errs), [(n, round(100 * e, 1)) for n, e in errs]

"""The mix model against a real MySQL 9.7 (the `loadgen/mysql:9.7` image, `--server docker`, server
defaults) where its page cleaner decides the pool: ycsb-a (half updates) at 16M, 300k rows, 100k
operations, where the tail of the LRU list is mostly dirty.

MySQL's user threads pass dirty pages at the tail for a clean one, wake the page cleaner when none
of the 100 there is clean, and its LRU batch then runs at once (dirtypages.py, native/lrusim/
cleaner.c). Without those rules the model ran one batch a second, fewer than half the server's, and
missed the table by -7.9% .. -8.7% and the pool's whole reads by -24.1% .. -32.4% (seven runs,
2026-11-29, this test's among them; main at 1b47afc); with them -0.7% .. +0.7% and -2.7% .. -8.6%,
its batches 0.99-1.11x the server's recorded ones (docs/mysql-lab.md, "Dirty pages at the LRU tail"). With
the walks as the server counted them and their read of each purged log's undo page (docs/workloads-lab.md,
"MySQL's walk reads the logs it truncates") the pool's whole reads were -2.6% .. -5.2% in five runs
(main at 08dc65a -3.6% .. -6.5%), -3.6% in this test's run. Held to 5%, 8% and 0.7-1.3x.

Needs the docker engine and the MySQL image (found or built by the conftest fixture); with
LOADGEN_REQUIRE_DOCKER=1 either missing fails the test.
"""
from __future__ import annotations

import json

import pytest

from ..conftest import run_loadgen

pytestmark = pytest.mark.docker


def test_mysql_ycsb_a_at_16m_with_its_dirty_tail(engine, mysql_image, no_new_containers, tmp_path):
    out = tmp_path / "ycsb-a.json"
    res = run_loadgen("run", "--server", "docker", "--image", mysql_image, "--workload", "ycsb-a", "--pool", "16M",
                      "--rows", "300k", "--queries", "100k", "--seed", "1", "--out", str(out), timeout=1200)
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["server"]["flavor"] == "mysql"
    p, bp = doc["prediction"], doc["buffer_pool"]
    t = p["tables"]["chat.usertable"]
    measured = bp["tables"]["chat.usertable"]["file_pages_read"]
    batches = len((bp.get("cleaner_batches") or {}).get("batches") or [])
    print(f"table: predicted {t['pages_read']:,}, measured {measured:,}, {t['error_pct']:+.1f}%; all: predicted "
          f"{p['pages_read']:,}, measured {bp['pages_read']:,}, {p['error_pct']:+.1f}%; LRU batches: model "
          f"{p['lru_batches']}, server {batches}; single-page flushes {p['single_flushes']}, server's waits "
          f"{bp.get('wait_free')}; dirty evictions {p['dirty_evictions']:,}, "
          f"LRU flushed {bp['flush']['lru_batch_flushed']:,}")
    assert abs(t["pages_read"] - measured) <= 0.05 * measured
    assert abs(p["pages_read"] - bp["pages_read"]) <= 0.08 * bp["pages_read"]
    # the batches come as often as the server's: woken by the user threads, not once a second
    assert batches > 0 and 0.7 * batches <= p["lru_batches"] <= 1.3 * batches
    assert p["single_flushes"] > 0 and p["dirty_evictions"] > 0
    # purge's walks over the rollback segments' headers: as many as the server counted
    # (purge_truncate_history_count), one every 128 of its purge batches where the two agree to a
    # walk, else evenly over the run's ops (undomodel.measured_sweep_ops)
    walks, batches = bp["flush"]["purge_truncations"], bp["flush"]["purge_batches"]
    assert walks > 0 and p["purge_walks_from"] == "run"
    ops = doc["result"]["ops"]
    every = 128 * ops / batches if abs(batches // 128 - walks) <= 1 else ops / walks
    assert abs(p["purge_walk_ops"] - every) <= 0.1


def test_mysql_sysbench_rw_at_16m_with_its_change_buffer(engine, mysql_image, no_new_containers, tmp_path):
    """sysbench-oltp-rw with innodb_change_buffering=all (Debian 9.7.4's start-up value): k_1's
    changes to leaves not in the pool go to the change buffer, merged when the leaf is read or by the
    master thread's merge (analysis/changebuf.py), and purge removes the old entries at the run's own
    lag (undomodel.measured_purge_lag). Main's model (neither) had the table +25.0% .. +29.8% in three
    runs of 100k operations (2026-11-29); with both +4.7% (the run with the purge counter), the pages
    merged 1.1-1.4x the server's ibuf_merges. Here 30k operations: merges held to 0.6-1.6x, changes
    buffered to 0.5-1.5x the server's merged ones, the table to 20%."""
    out = tmp_path / "sysbench-rw.json"
    res = run_loadgen("run", "--server", "docker", "--image", mysql_image, "--workload", "sysbench-oltp-rw",
                      "--pool", "16M", "--rows", "300k", "--queries", "30k", "--seed", "1", "--set",
                      "innodb_change_buffering=all", "--out", str(out), timeout=1200)
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["server"]["variables"]["innodb_change_buffering"] == "all"
    p, bp = doc["prediction"], doc["buffer_pool"]
    t, f = p["tables"]["chat.sbtest1"], bp["flush"]
    measured = bp["tables"]["chat.sbtest1"]["file_pages_read"]
    merged_ops = f["ibuf_merged_inserts"] + f["ibuf_merged_delete_marks"] + f["ibuf_merged_deletes"]
    cb = p["change_buffer"]
    print(f"table: predicted {t['pages_read']:,}, measured {measured:,}, {t['error_pct']:+.1f}%; all: "
          f"{p['error_pct']:+.1f}%; change buffer: model {cb}, server merges {f['ibuf_merges']:,}, "
          f"merged ops {merged_ops:,}")
    assert f["ibuf_merges"] > 0 and 0.6 * f["ibuf_merges"] <= cb["merged_pages"] <= 1.6 * f["ibuf_merges"]
    assert 0.5 * merged_ops <= cb["buffered"] <= 1.5 * merged_ops
    assert abs(t["pages_read"] - measured) <= 0.20 * measured
    assert "changes buffered" in res.stderr + res.stdout  # the report's note says what the model buffered

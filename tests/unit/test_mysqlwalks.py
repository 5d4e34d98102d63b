"""MySQL 9.7's sysbench-oltp-rw at CI's size (docs/data/mysqlrw3: 300k rows, 10,000 and 20,000
operations, 16M, the test_workloads calls; docs/workloads.md, "MySQL's walks by its purge
batches"): purge's truncation walks read ibtmp1's 128 headers each, the first included, and come
every 128 purge batches; the model walks as the batches say and reads them all."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from loadgen.analysis import mixmodel
from loadgen.analysis import undomodel as um

RUNS = sorted((Path(__file__).resolve().parents[2] / "docs" / "data" / "mysqlrw3").glob("*.json.gz"))


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    assert len(RUNS) >= 20, "docs/data/mysqlrw3 holds the runs"
    return {p.name: json.loads(gzip.decompress(p.read_bytes())) for p in RUNS}


def test_the_server_reads_ibtmp1_once_a_walk_and_walks_every_128_batches(runs):
    """The evidence behind the rule: each walk the server counted read ibtmp1's 128 headers, or
    nearly (few stayed in a 16M pool from one walk to the next, and the first walk read them too:
    2,031 for 16 walks at 1,692 q/s; the least, 2,599 for 22 at 1,007 q/s), and the walks counted
    are floor(batches / 128), or one more (a walk a few batches early)."""
    exact = 0
    for name, run in runs.items():
        bp = run["buffer_pool"]
        walks, batches = bp["flush"]["purge_truncations"], bp["flush"]["purge_batches"]
        assert 0.9 * 128 * walks <= bp["files"]["ibtmp1"] <= 128 * walks, name
        assert walks - batches // 128 in (0, 1), name
        exact += walks == batches // 128
    assert exact >= 0.8 * len(runs)


def test_the_model_walks_by_the_batches_and_holds_the_whole_reads(runs):
    """Every run's whole reads within 12% (main's model: -12.4 .. -5.4%; now -10.9 .. -3.2%) and its
    table within 5%, the walks spaced 128 batches apart."""
    for name, run in runs.items():
        p, bp = mixmodel.predict(run), run["buffer_pool"]
        done = run["result"]["ops"]
        assert p["purge_walks_from"] == "run"
        assert abs(p["purge_walk_ops"] - 128 * done / bp["flush"]["purge_batches"]) <= 0.1, name
        assert um.measured_sweep_ops(run, "mysql", done) == pytest.approx(p["purge_walk_ops"], abs=0.1)
        [(table, t)] = p["tables"].items()
        measured = bp["tables"][table]["file_pages_read"]
        assert abs(t["pages_read"] - measured) <= 0.05 * measured, (name, t["pages_read"], measured)
        assert -0.12 * bp["pages_read"] <= p["pages_read"] - bp["pages_read"] <= 0.02 * bp["pages_read"], (
            name, p["pages_read"], bp["pages_read"])

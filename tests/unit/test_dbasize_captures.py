"""A captured trace at a DBA's size predicted again, against what the servers read while it was captured
(issue #22, docs/capture.md "The DBA's size with today's model"; docs/data/dbasize2/). sysbench 1.0's
oltp_read_write on two tables of 300,000 rows, 10,000 events, the general log captured and predicted
at 64M (below the tables' ~8,800 pages) and 256M (they fit), on MariaDB 10.11 and MySQL 9.7, each
series on a fresh server (keys not written before). Every run of the same events captured the same
records (the same seed), so one trace stands for all of them; each run is predicted at its own rate.

The integration tests run the capture itself (tests/integration/test_capture_ops.py); this one holds
a change to the trace model to the servers' reads offline, so a model change that moves a cell past
the issue's 5% fails in the unit suite, before any server runs."""
from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pytest

from loadgen.analysis import changebuf, tracegeometry, tracemodel

DATA = Path(__file__).resolve().parents[2] / "docs" / "data" / "dbasize2"
BOUND = 0.05
# The servers' own settings the CLI read with --dsn: the images' defaults (MariaDB 10.11's
# innodb_io_capacity 200; MySQL 8.4 and later 10,000, its flush-list batch: dirtypages.adaptive_args)
IO_CAPACITY = {"mariadb": 200, "mysql": 10_000}


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("dbasize") / "oltp_read_write-10000.optrace"
    path.write_bytes(gzip.decompress((DATA / "oltp_read_write-10000.optrace.gz").read_bytes()))
    return path


@pytest.fixture(scope="module")
def cells(trace) -> dict[tuple[str, int], list[tuple[int, dict]]]:
    """(flavour, pool MiB) -> [(the server's pages read, the pool's prediction now)]."""
    runs = json.loads(gzip.decompress((DATA / "runs.json.gz").read_bytes()))
    out: dict[tuple, list] = {}
    for run in runs:
        pred, flavor = run["prediction"], run["flavor"]
        models = tracegeometry.pools_of([run["pool_bytes"]], flavor, {"innodb_io_capacity": IO_CAPACITY[flavor]},
                                        float(pred["qps"]))
        got = tracemodel.predict(trace, pred["tables"], models, flavor,
                                 changebuf.kinds_of(flavor, pred.get("change_buffering")))
        out.setdefault((flavor, run["pool_bytes"] >> 20), []).append((run["server_read"], got["pools"][0]))
    return out


def test_every_cell_is_there(cells):
    assert sorted(cells) == [("mariadb", 64), ("mariadb", 256), ("mysql", 64), ("mysql", 256)]
    assert len(cells[("mariadb", 64)]) == 3 and len(cells[("mysql", 64)]) == 2


@pytest.mark.parametrize("cell", [("mariadb", 64), ("mariadb", 256), ("mysql", 64), ("mysql", 256)])
def test_the_prediction_is_within_five_percent_of_the_servers_mean(cells, cell):
    runs = cells[cell]
    measured = statistics.mean(r for r, _ in runs)
    predicted = statistics.mean(p["pages_read"] for _, p in runs)
    assert abs(predicted - measured) <= BOUND * measured, (cell, measured, predicted)


@pytest.mark.parametrize("cell", [("mariadb", 64), ("mariadb", 256), ("mysql", 64), ("mysql", 256)])
def test_every_run_is_inside_its_interval(cells, cell):
    for measured, p in cells[cell]:
        assert p["low"] <= measured <= p["high"], (cell, measured, p["low"], p["pages_read"], p["high"])


def test_the_tables_carry_the_reads(cells):
    """At this size the two tables are over 99% of what the model reads: the undo and system pages
    that decide the 50,000-row cells (docs/capture.md) are not what is checked here."""
    for cell, runs in cells.items():
        for _, p in runs:
            tables = sum(t["pages_read"] for t in p["tables"].values())
            assert tables >= 0.98 * p["pages_read"], cell

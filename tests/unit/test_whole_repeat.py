"""The mix model against the mean of repeated runs of one config (issue #21; docs/data/repeats/: CI's
size, `loadgen run --workload PRESET --rows 50k|300k --queries 20000 --seed 1`, each from a cold
restart of a `loadgen up` server with performance_schema on; bench/whole_repeat.py prints the table,
bench/README.md "The server's own scatter between repeats"). The server's whole reads
(Innodb_pages_read, undo and system pages included) move between runs of the same config; the issue's
5% is asked of the model against their mean, not of each run. Each run is predicted again with the
model as it is now, so a change to the model that moves a cell away from its mean fails here."""
from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pytest

from loadgen.analysis import mixmodel

RUNS = sorted((Path(__file__).resolve().parents[2] / "docs" / "data" / "repeats").glob("*/*.json.gz"))
MIN_RUNS = 3
MIN_QPS = 350  # under it the model's write side is known slow and its interval says so (intervals.slow_writes)
TABLE_BOUND = 0.05
WHOLE_BOUND = 0.05
# Cells whose measured mean the model misses by more than 5% on the whole reads: the bound is what
# the cell measured (bench/whole_repeat.py), rounded up to the next half percent, so the test holds
# the model where it is and a change that moves it further fails. (MySQL ycsb-f 16M had one at 6%,
# -5.7%, until the page cleaner's batch counted half of its last full doublewrite batch as still being
# written: -0.5%, cleaner.c still_writing.)
WHOLE_BOUND_OF: dict[tuple[str, str, str], float] = {
    # (none since session 20: MariaDB 10.11 sysbench-oltp-rw 16M was -5.2% of its mean, held to 5.5%,
    # until purge's header read followed time, not operations, and the undo reads their read-back
    # share: -4.7%; docs/workloads-lab.md, "The error follows the rate")
}


def _cells() -> dict[tuple[str, str, str], list[tuple[dict, dict]]]:
    """(server, preset, pool) -> [(the run's buffer_pool, its prediction now)], the runs of one
    config (the rows, operations and seed are one per preset in docs/data/repeats)."""
    out: dict[tuple, list] = {}
    for path in RUNS:
        run = json.loads(gzip.decompress(path.read_bytes()))
        srv, wl = run["server"], run["workload"]
        key = (path.parent.name, wl["name"].removeprefix("preset "), f"{int(srv['innodb_buffer_pool_size']) >> 20}M")
        out.setdefault(key, []).append((run, mixmodel.predict(run)))
    return out


@pytest.fixture(scope="module")
def cells():
    assert len(RUNS) >= 30, "docs/data/repeats holds the repeated runs"
    found = _cells()
    for key, runs in found.items():
        mix = [r["workload"]["mix"] for r, _ in runs]
        assert len({(m["operations"], m["seed"], json.dumps(m["tables"], sort_keys=True)) for m in mix}) == 1, key
    return found


def held(cells) -> dict:
    """The cells the bounds apply to: >= MIN_RUNS runs, every one from MIN_QPS."""
    return {k: v for k, v in cells.items()
            if len(v) >= MIN_RUNS and all(r["result"]["qps"] >= MIN_QPS for r, _ in v)}


def mean_error(runs: list, measured, predicted) -> float:
    mean = statistics.mean(measured(r) for r, _ in runs)
    return (statistics.mean(predicted(p) for _, p in runs) - mean) / mean


def whole_error(runs: list) -> float:
    return mean_error(runs, lambda r: r["buffer_pool"]["pages_read"], lambda p: p["pages_read"])


def table_error(runs: list) -> float:
    def measured(r):
        [name] = r["buffer_pool"]["tables"]
        return r["buffer_pool"]["tables"][name]["file_pages_read"]

    return mean_error(runs, measured, lambda p: next(iter(p["tables"].values()))["pages_read"])


def test_the_cells_held_cover_both_servers_and_the_write_presets(cells):
    keys = set(held(cells))
    for server in ("mysql-9.7", "mariadb-10.11"):
        for preset in ("ycsb-a", "ycsb-f", "sysbench-oltp-rw"):
            assert (server, preset, "16M") in keys, (server, preset)


def test_the_whole_reads_within_their_bound_of_the_measured_mean(cells):
    for key, runs in held(cells).items():
        err = whole_error(runs)
        assert abs(err) <= WHOLE_BOUND_OF.get(key, WHOLE_BOUND), (key, f"{err:+.2%}", len(runs))


def test_the_table_within_5pct_of_the_measured_mean(cells):
    for key, runs in held(cells).items():
        err = table_error(runs)
        assert abs(err) <= TABLE_BOUND, (key, f"{err:+.2%}", len(runs))


def test_every_run_inside_its_interval(cells):
    for key, runs in cells.items():
        for run, p in runs:
            bp = run["buffer_pool"]
            assert p["reads_low"] <= bp["pages_read"] <= p["reads_high"], (key, bp["pages_read"], p["reads_low"],
                                                                          p["reads_high"])
            [(name, t)] = p["tables"].items()
            measured = bp["tables"][name]["file_pages_read"]
            assert t["reads_low"] <= measured <= t["reads_high"], (key, name, measured, t["reads_low"], t["reads_high"])


def test_an_override_is_still_needed(cells):
    """A cell's own bound is for a cell the model misses by more than 5%: once it no longer does
    (a model change, new runs), the override goes, not stays as slack."""
    cut = held(cells)
    for key in WHOLE_BOUND_OF:
        assert key in cut and abs(whole_error(cut[key])) > WHOLE_BOUND, key

"""Scan advice (loadgen/analysis/scanadvice.py, `loadgen advise --workload`): what a scheduled full
scan costs the lookups per innodb_old_blocks_time x innodb_old_blocks_pct, as the mix model computes
it, and the setting it names."""
from __future__ import annotations

import json

import pytest

from loadgen.analysis import scanadvice as sa
from loadgen.errors import UsageError
from loadgen.workload import mix, mixfile

from ..conftest import run_loadgen

# 500k rows of chat.message (~4,080 leaves) in a 48M pool, where MariaDB's page cleaner keeps the
# LRU list above BUF_LRU_OLD_MIN_LEN (at 32M it swings across it and the old sublist dissolves, so
# no setting protects anything there: docs/innodb.md, "The page cleaner"): the
# scan is larger than the pool; the lookups' hot 20% (~816 leaves) fits in the young list.
WORKLOAD = """format = 1
seed = 7
operations = 100000
[tables.message]
schema = "chat"
rows = 500000
[[streams]]
name = "lookups"
table = "message"
op = "read"
keys = "hotspot"
hot_fraction = 0.2
hot_ops = 0.95
share = 1
[[streams]]
name = "nightly"
table = "message"
op = "scan"
at_s = 5
"""


def _spec(text: str = WORKLOAD) -> mix.MixSpec:
    return mixfile.parse(text, "<test>")


@pytest.fixture(scope="module")
def advice():
    spec = _spec()
    return sa.advise(spec, sa.offline_mix_tables(spec), 48 << 20, 5_000)


def _at(advice, time_ms: int, pct: int) -> sa.Point:
    return next(p for p in advice["points"] if (p.old_blocks_time_ms, p.old_blocks_pct) == (time_ms, pct))


def test_the_scan_goes_in_at_its_time_times_the_rate():
    spec = _spec()
    assert sa.scan_ops(spec, 5_000) == {25_000: [1]}
    assert sa.scan_ops(_spec(WORKLOAD.replace("at_s = 5", "at_op = 12345")), 5_000) == {12_345: [1]}
    every = _spec(WORKLOAD.replace("at_s = 5", "every_s = 4"))
    assert sa.scan_ops(every, 5_000) == {20_000: [1], 40_000: [1], 60_000: [1], 80_000: [1]}
    with pytest.raises(UsageError, match="after its last operation"):
        sa.scan_ops(_spec(WORKLOAD.replace("at_s = 5", "at_s = 100")), 5_000)


def test_old_blocks_time_1000_protects_the_hot_set_better_than_0(advice):
    zero, thousand = _at(advice, 0, 37), _at(advice, 1000, 37)
    # at 0 the scan's second access of each leaf makes it young: the young list (the hot set) is
    # flushed and read again; at 1000 ms the scan stays in the old sublist
    assert zero.extra_reads > 200 and zero.extra_reads > 4 * thousand.extra_reads
    assert zero.lookup_reads > thousand.lookup_reads
    assert zero.hit_ratio_loss_pct > thousand.hit_ratio_loss_pct
    # the same ops without the scan: the scan's cost is the difference, and the scan reads what
    # the pool does not hold of the table's 1,633 leaves
    assert zero.lookup_reads - zero.lookup_reads_no_scan == zero.extra_reads
    assert 1_000 < thousand.scan_reads <= 4_100


def test_the_advice_names_the_setting_the_model_ranks_first(advice):
    ranked = sa.rank(advice["points"])
    assert advice["best"] == ranked[0]
    assert all(ranked[0].lookup_reads <= p.lookup_reads for p in advice["points"])
    assert advice["best"].old_blocks_time_ms != 0  # every old_blocks_time 0 point flushes the hot set
    assert advice["current"] == _at(advice, 1000, 37)  # the servers' defaults
    best = advice["best"]
    assert advice["sentence"].startswith(f"set innodb_old_blocks_time = {best.old_blocks_time_ms} and "
                                         f"innodb_old_blocks_pct = {best.old_blocks_pct}: the scan costs the lookups")
    assert len(advice["points"]) == 12


def test_a_workload_without_a_scheduled_scan_is_refused():
    spec = _spec(WORKLOAD.split("[[streams]]\nname = \"nightly\"")[0])
    with pytest.raises(UsageError, match="no scheduled scan"):
        sa.advise(spec, sa.offline_mix_tables(spec), 48 << 20, 5_000)


def test_advise_workload_prints_the_grid_and_the_sentence(tmp_path):
    path = tmp_path / "nightly.toml"
    path.write_text(WORKLOAD)
    res = run_loadgen("advise", "--workload", str(path), "--pool", "48M", "--qps", "5000", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert len(doc["points"]) == 12 and doc["qps"] == 5000 and doc["scan_ops"] == {"25000": ["nightly"]}
    assert doc["best"]["extra_reads"] == doc["best"]["lookup_reads"] - doc["best"]["lookup_reads_no_scan"]
    res = run_loadgen("advise", "--workload", str(path), "--pool", "48M", "--qps", "5000")
    assert res.returncode == 0 and "Set innodb_old_blocks_time = " in res.stdout
    bad = run_loadgen("advise", "--workload", str(path), "--qps", "0")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--qps" in bad.stderr


def test_a_current_setting_off_the_grid_is_simulated_too():
    spec = _spec()
    got = sa.advise(spec, sa.offline_mix_tables(spec), 48 << 20, 5_000, variables={"innodb_old_blocks_time": 500},
                    times_ms=(0, 1000), pcts=(37,))
    assert [(p.old_blocks_time_ms, p.old_blocks_pct) for p in got["points"]] == [(0, 37), (500, 37), (1000, 37)]
    assert got["current"] == got["points"][1]


def test_a_mysql_write_mix_is_advised_with_its_dirty_tail(monkeypatch):
    # half the lookups become updates: on MySQL the advice's pools pass dirty pages at the LRU tail
    # and flush them in MySQL's adaptive batches, as a mixed run's prediction does (dirtypages.run_args);
    # without those rules the same grid reads differently
    text = WORKLOAD.replace('op = "read"\nkeys', 'op = "update"\nkeys').replace("operations = 100000",
                                                                                  "operations = 30000")
    spec = _spec(text)
    tables = sa.offline_mix_tables(spec)
    got = sa.advise(spec, tables, 16 << 20, 5_000, flavor="mysql", times_ms=(1000,), pcts=(37,))
    monkeypatch.setattr(sa, "run_args", lambda pool, run: (0, 0))
    plain = sa.advise(spec, tables, 16 << 20, 5_000, flavor="mysql", times_ms=(1000,), pcts=(37,))
    assert got["points"][0].lookup_reads != plain["points"][0].lookup_reads
    # MariaDB has no such rule: the same either way
    maria = sa.advise(spec, tables, 16 << 20, 5_000, times_ms=(1000,), pcts=(37,))
    monkeypatch.undo()
    assert sa.advise(spec, tables, 16 << 20, 5_000, times_ms=(1000,), pcts=(37,))["points"] == maria["points"]

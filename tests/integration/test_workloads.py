"""Mixed workloads (`loadgen run --workload`, issue #21) on real servers: every preset on a local
MariaDB 10.11, on MySQL 9.7 and on MariaDB 11.8 (Debian trixie's) in containers, the streams'
counts against their shares, what a mixed run records, a scheduled scan at its time, and the two
drivers agreeing.

Each server keeps one `loadgen up` for its presets (in a state directory of this module's own), so
a preset costs a cold restart and its run, not a server start. All pools are 16 MiB (1,024 frames,
the error table's smallest pool) against usertable 50k rows (57 MiB) and sbtest1 300k rows (71 MiB),
and each preset runs 20,000 operations: large enough that the table's predicted pages read is held
to the issue's 5% in all 24 preset x server pairs (a write run under 350 q/s to the interval its
prediction claims, which says it is slow: BOUNDS_PCT; thousands of pages read, where 2,000 operations
in a 6-8 MiB pool read a few hundred and moved by ~10% between runs), small
enough that a preset took 5-72 s at load 1-11. The module took 3.5-7.5 minutes with two servers
(4:55-8:11 with the slow stop); with 11.8, 5:11-11:59 in four runs at load 1-7.5, its 11.8 part
1:09-3:31 of that (docs/workloads-lab.md, "The presets at CI's size").
"""
from __future__ import annotations

import json
import math
import os
import textwrap

import pytest

from .. import accuracy
from ..conftest import run_loadgen

PRESETS = ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f", "sysbench-oltp-ro", "sysbench-oltp-rw"]
ROWS = {"usertable": "50k", "sbtest1": "300k"}
OPS = 20000
POOL = "16M"


def _state_env(session_dir, name: str) -> dict:
    """A state directory of the module's own: its `loadgen up` server is nobody else's (under
    the session's directory, which the `mysql` user may pass through when the tests run as root)."""
    path = session_dir / name
    path.mkdir(mode=0o711, exist_ok=True)
    os.chmod(path, 0o711)
    return {"LOADGEN_STATE_DIR": str(path)}


@pytest.fixture(scope="module")
def state_env(session_dir) -> dict:
    return _state_env(session_dir, "workload-state")


def _up(env: dict, *server_args: str):
    """The module's one server of a kind: up (16M, performance_schema) for its tests, down after."""
    res = run_loadgen("up", *server_args, "--pool", POOL, "--set", "performance_schema=ON", env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    try:
        yield env
    finally:
        down = run_loadgen("down", env=env)
        assert down.returncode == 0, down.stderr


@pytest.fixture(scope="module")
def mariadb_up(mysqld_binary, state_env):
    yield from _up(state_env, "--server", "local")


@pytest.fixture(scope="module")
def mysql_up(engine, mysql_image, session_dir):
    yield from _up(_state_env(session_dir, "workload-state-mysql"), "--server", "docker", "--image", mysql_image)


@pytest.fixture(scope="module")
def mariadb118_up(engine, mariadb_trixie_image, session_dir):
    yield from _up(_state_env(session_dir, "workload-state-mariadb118"), "--server", "docker",
                   "--image", mariadb_trixie_image)


def run_preset(env: dict, preset: str, out, *extra: str) -> tuple[dict, str]:
    table = "sbtest1" if preset.startswith("sysbench") else "usertable"
    # 20,000 operations took 11-53 s a preset at load 7-10; CI's load may make them far slower
    res = run_loadgen("run", "--workload", preset, "--rows", ROWS[table], "--queries", str(OPS), "--out", str(out),
                      *extra, env=env, timeout=1200)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "using the server from `loadgen up`" in res.stderr
    return json.loads(out.read_text()), res.stdout


def check_preset(doc: dict, stdout: str, preset: str, server: str) -> None:
    """`server` is BOUNDS_PCT's key: the flavour, and the release where a flavour has two here
    ("mariadb-11.8": its doc says "mariadb" like 10.11's)."""
    from loadgen.workload import presets

    flavor, _, release = server.partition("-")
    assert doc["complete"] and doc["server"]["flavor"] == flavor
    assert doc["server"]["version"].startswith(release), doc["server"]["version"]
    assert doc["workload"]["kind"] == "mix" and doc["workload"]["mix"]["operations"] == OPS
    spec = presets.load(preset, rows=1000)
    streams = doc["result"]["streams"]
    assert list(streams) == [s.name for s in spec.streams]
    assert sum(s["ops"] for s in streams.values()) == doc["result"]["ops"] == OPS
    for s in spec.streams:  # each stream's count follows its share (5 standard deviations)
        got, p = streams[s.name]["ops"], s.share
        assert abs(got - OPS * p) <= 5 * math.sqrt(OPS * p * (1 - p)) + 1, (s.name, got, OPS * p)
        assert streams[s.name]["errors"] == 0, streams[s.name].get("first_error")
        assert streams[s.name]["latency_us"]["p50"] > 0
    # per table: its own pages read (performance_schema), the rows it changed
    table = "chat.sbtest1" if preset.startswith("sysbench") else "chat.usertable"
    t = doc["buffer_pool"]["tables"][table]
    assert t["file_pages_read"] > 0
    # the file's reads and the pool's are read a moment apart (before the sampler's baseline,
    # after its last sample): a background read between them may land in one of the two
    assert doc["buffer_pool"]["pages_read"] >= t["file_pages_read"] - 3 - t["file_pages_read"] // 100
    writes = {s.op for s in spec.streams} - {"read", "range"}
    if "update" in writes or "read-modify-write" in writes:
        assert t["rows_updated"] > 0
    if "insert" in writes:
        assert t["rows_inserted"] == streams["insert"]["ops"]
    if writes:  # the writes dirtied pages: flushed during the run, or still dirty at its end (a
        # short MySQL ycsb-d run in CI flushed none and ended with 154 dirty pages)
        assert doc["buffer_pool"]["pages_flushed"] + (doc["buffer_pool"].get("pages_dirty") or 0) > 0
    else:
        assert t["rows_inserted"] == t["rows_updated"] == t["rows_deleted"] == 0
    # the real interleaving: per-stream counts in every sample, ending at the totals
    last = doc["samples"][-1]["streams"]
    assert last == {name: s["ops"] for name, s in streams.items()}
    assert all("pages_dirty" in p for p in doc["samples"] if not p.get("gap"))
    # the geometry the model needs, and the tables printed
    geo = doc["dataset"]["tables"][table.split(".")[1]]
    assert geo["leaf_pages"] > 0 and geo["height"] >= 2
    if preset.startswith("sysbench"):  # k_1 (300k rows, ~360 leaves) has two levels: MariaDB's measured
        # by HANDLER, whose covering SELECT costs 2 page gets more (4: the height the model once took)
        k_1 = geo["indexes"]["k_1"]
        assert (k_1["height"], k_1["height_from"]) == (2, "handler" if flavor == "mariadb" else "select"), k_1
    for s in spec.streams:
        assert s.name[:4] in stdout
    assert "pages read" in stdout and table[:6] in stdout
    # the cold restart stopped the server slowly (purge and change-buffer merge done before it
    # stopped) and the run began once the restarted server held no dirty page: a MySQL read-only
    # run merges none of the seed's buffered k_1 inserts (61-153 leaves before, in 4 of 11 runs)
    cold = doc["server"]["cold_start"]
    assert cold["shutdown"] == "slow", cold
    assert cold["pages_dirty_after_settling"] == 0, cold
    if flavor == "mysql" and not writes:
        assert doc["buffer_pool"]["flush"]["ibuf_merges"] == 0, doc["buffer_pool"]["flush"]
    check_prediction(doc, stdout, preset, server, table)


# The model's error held per preset and flavour at this size (table: its .ibd reads, the issue's
# 5% wherever the runs allow it; all: the pool's Innodb_pages_read, undo and system pages included,
# held to the worst run seen with a margin). Measured 2026-11-29 17:26-18:18 UTC on the shared
# 2-core machine at load 2-12, this module's sizes, each preset from a cold `loadgen up` server
# (MariaDB 10.11.19 local, MySQL 9.7.4 docker, both 16M): 9 runs each (the module's four included),
# plus 3 each at 10,000 operations (docs/workloads-lab.md, "The presets at CI's size"). The old size (8k / 40k
# rows, 2,000 operations, 6-8M) needed table bounds up to 45%: a few hundred pages read, which
# moved ~10% between runs, and the small pools' read-ahead area of 16.
BOUNDS_PCT = {
    # (table, all)
    # all (the pool's whole reads) with the model's undo reads held to the run's undo pages written
    # (analysis/undocap.py, branch mariaall, 2026-11-30, docs/data/mariaall: 18 runs of the test's calls
    # and the module's on 10.11 at 426-1,271 q/s, load 3-7): ycsb-a -3.7 .. +3.6% (+1.0 .. +9.8% before),
    # ycsb-f -5.6 .. +1.9% (-2.4 .. +8.5%); was 25% / 20% on ciscale's runs (+6.0 .. +15.8%, -9.6 .. +15.1%).
    # With purge's walk reading all 128 rollback segment headers (branch mariahdr, docs/data/mariahdr):
    # ycsb-a/f at 148-675 q/s, load 2-15, -0.7 .. +4.4% (main's model -10.5 .. +2.0%: -10.5% at 190 q/s)
    ("mariadb", "ycsb-a"): (5, 10),  # table +1.9 .. +3.2%
    ("mariadb", "ycsb-b"): (5, 8),  # +0.1 .. +0.5%; all -2.0 .. +0.6%
    ("mariadb", "ycsb-c"): (5, 5),  # +0.4 .. +0.6%
    # all +10.5% once (branch slowshut's module run, 21:03 UTC, load 3.4: 14,633 q/s, the fastest
    # seen; 12,468 read, ibdata1 2,434 where the model had ~3,690 undo reads); at 5,477-9,684 q/s
    # +2.1 .. +5.3% with the slow stop or without (the same server, alternated)
    ("mariadb", "ycsb-d"): (5, 12),  # -0.8 .. -2.1%; all -4.2 .. +4.3%
    ("mariadb", "ycsb-e"): (5, 5),  # -0.1 .. +0.1%; all -0.9 .. -1.8%
    ("mariadb", "ycsb-f"): (5, 10),  # -0.4 .. -3.3%
    ("mariadb", "sysbench-oltp-ro"): (5, 5),  # +1.3 .. +2.1%
    # Was 7%: the table followed the rate (-4.8 .. +2.0% at 837-3,626 q/s in branch mariarw's 22 runs,
    # -6.2%, -6.7% at ~4,100 in the module's; +7.6 .. +10.6% at 333-395 with 100k operations). With
    # MariaDB's own logs per undo page held to the forecast's and its purge lag from the run's purge
    # batches (branch oltprw5, 2026-11-30): docs/data/rwrate + rwk1's 29 runs at 781-3,626 q/s -3.4 ..
    # +2.6%, and eleven fresh ones (docs/data/rwlag, load 8.5-16.8, none used to choose the rules) -3.8
    # .. +1.8% at 311-788 q/s on both servers; 11.8's 12 at 1,304-5,023 -2.9 .. +4.1%. Under ~200 q/s
    # (two runs at load 9-17) the server read 15-26% fewer than predicted, now and before: no bound
    # here holds those (docs/workloads-lab.md, "Undo pages created again, and purge's lag from its batches").
    # Whole reads 15% -> 17%: -15.3% at 370 q/s (load 11.6; -12.6% before), -12.2% at 311: the slow
    # runs' system pages (purge's walks each second) short, which the table's excess had hidden.
    # Merged with branch mariahdr (purge's walks read all 128 headers; 2026-11-30, the lead): 39 stored
    # 10.11 runs from 300 q/s (rwrate, rwk1, rwlag, mariahdr) table -4.0 .. +5.0% (+5.0% at 311 and
    # 323 q/s; -4.0 .. +2.2% from 600), all -8.1 .. -2.4%: 7% / 12%. With MariaDB's LRU batch writing a
    # dirty page and keeping it (branch slowmaria) the 45 stored 10.11 runs from 300 q/s (mixruns'
    # 100k-operation ones too) -4.0 .. +5.9%, all -8.7 .. +3.0%; under 200 q/s +12.8%, +14.9%
    # stored, +7.6 .. +11.4% fresh at 133-175 q/s (docs/data/slowmaria: a CPU quota on the run and
    # its server), were +12.1 .. +16.7%: still over 7% there
    # Table 5% from 350 q/s (session 18, the lead): every stored 16M run of this preset from 350 q/s
    # re-predicted after session 18's merges: MariaDB 10.11 -4.0 .. +3.9% (47 runs), 11.8 -4.1 .. +3.8%
    # (17), MySQL 9.7 -3.5 .. +3.3% (33). Below 350 q/s the model has over-predicted the table by up to
    # +18.3% and says so (the prediction's `slow_writes`, its interval reaching 16% lower): such a run
    # is held to its own interval instead (check_prediction).
    ("mariadb", "sysbench-oltp-rw"): (5, 12),
    ("mysql", "ycsb-a"): (5, 12),  # +1.4 .. +2.4%; all -0.8 .. -6.4% (-4.0 .. -6.8% at 10k operations)
    ("mysql", "ycsb-b"): (5, 15),  # -2.8 .. +0.6%; all -3.9 .. -7.8% (-8.0 .. -10.9% at 10k)
    ("mysql", "ycsb-c"): (5, 5),  # -2.0 .. +1.7%, all -2.0 .. +1.7% (-0.3 .. -2.3% before the replay)
    # Was 12% / 12% (+6.0%, +7.4% at 851-889 q/s, -3.0 .. +1.5% at 3,032-5,292). The slow runs read
    # ~1,700 pages more (the page cleaner's batch each second takes the LRU list to 256 pages); what
    # the model lacked was the rollback segments' first uses (read: the restart held 128-507 pages)
    # and the batches' places after the clean start (branch ycsbd, docs/data/ycsbd: 16 runs at
    # 501-7,926 q/s, load 2.3-7.7, -4.1 .. +1.8%; all -6.9 .. +1.2%; docs/workloads.md, "MySQL
    # ycsb-d's rate"). All 10% -> 6%: the slow runs' one purge walk (384 pages), made since branch
    # ycsbdwalk where the history emptied, was their -5.2 .. -6.9% (docs/data/ycsbd now -4.1 .. +1.3%;
    # docs/data/ycsbdwalk's 11 fresh at 279-7,636 q/s -2.4 .. +0.8%, the 5 that walked -6.3 .. -6.8%
    # before; docs/workloads-lab.md, "The walks' phase")
    ("mysql", "ycsb-d"): (5, 6),
    ("mysql", "ycsb-e"): (5, 5),  # -0.7 .. +0.8%
    ("mysql", "ycsb-f"): (5, 15),  # -0.1 .. -2.2%; all -9.4 .. +0.3%
    # Was 15% / 15% (-12.0 .. +4.4% over the ciscale and ciro runs, -4.9 .. +9.4% in six more on
    # main): the seed's change-buffered k_1 inserts merged in the run's first second (61-153 leaves
    # in 4 of 11 runs) and start-up's own ~180 dirty pages (ibtmp1) written by its first LRU batch.
    # With the cold restart stopping slowly and the run waiting for a clean pool (branch slowshut,
    # 2026-11-29 20:24-21:08 UTC, load 2.9-6.6): six runs from a fresh seed each at 2,433-6,218
    # q/s and the module's two at 2,824 and 7,479 q/s, table -2.1 .. +3.3%, all -2.0 .. +3.3%, no
    # merges, no page written by an LRU batch (docs/workloads-lab.md, "No seed work left for the run")
    ("mysql", "sysbench-oltp-ro"): (5, 5),
    # +5.6% at 434 q/s, -3.3 .. +0.2% at 1,718-2,537 (-1.7 .. -5.6% at 10k): slow runs over-predict
    # the table (+7.5% at 209 q/s, +1.3% at 1,005 with 300k rows, 100k operations: docs/workloads.md);
    # all -4.5 .. -14.7% (-13.5 .. -19.3% at 10k), the undo side. With the pages MySQL's writes keep
    # (pool.mysql_write_held_pages, branch mysqlrw2, 2026-11-30): -4.8%, all -7.7% at 1,650 q/s (main's
    # model on the same run -4.9%, -8.0%): at 16M the list is at BUF_LRU_MIN_LEN, so 25% stayed.
    # The walks the model lacked (branch mysqlrw3, 2026-11-30, docs/data/mysqlrw3: MySQL 9.7.4, this
    # test's calls at 1,007-4,435 q/s, load 1.5-8.8): ibtmp1 is read 115-128 times a walk the server
    # counts, the first included, where the model had one walk fewer (spaced by the count, the last
    # on the last op) and made ibtmp1's 128 at its first: now a walk every 128 purge batches and the
    # first one reading them. 18 runs at 20,000 operations all -5.4 .. -11.0% -> -3.2 .. -10.9%
    # (-3.2 .. -8.3% in the last 5, made after the rule), 5 at 10,000 -9.6 .. -12.4% -> -6.3 ..
    # -9.6%; table -4.5 .. +2.5% -> -3.9 .. +2.1%. What is left: the undo tablespaces' headers and
    # undo log pages (the model 10-15% short of each; docs/workloads.md, "MySQL's walks by its purge
    # batches"). 25% -> 15%. A delete-insert's insert re-inserts a delete-marked key: an update of
    # that record, its log purged as a delete's (branch mysqlwhole, 2026-11-30; it was taken for a
    # plain insert, freed at commit): the 36 stored runs at 16M all -9.5 .. +4.0% -> -7.0 .. +8.7%
    # (+8.7, +7.4% the 209 and 328 q/s lab runs; from 863 q/s -7.0 .. +0.9%), tables from 863 q/s
    # -5.5 .. +3.0% -> -3.5 .. +3.3% (the two slow ones +9.4, +11.4% -> +11.3, +11.7%);
    # docs/workloads-lab.md, "MySQL's re-inserts". 15% -> 10%
    # Table 5% from 350 q/s (session 18, the lead): every stored 16M run of this preset from 350 q/s
    # re-predicted after session 18's merges: MariaDB 10.11 -4.0 .. +3.9% (47 runs), 11.8 -4.1 .. +3.8%
    # (17), MySQL 9.7 -3.5 .. +3.3% (33). Below 350 q/s the model has over-predicted the table by up to
    # +18.3% and says so (the prediction's `slow_writes`, its interval reaching 16% lower): such a run
    # is held to its own interval instead (check_prediction).
    ("mysql", "sysbench-oltp-rw"): (5, 10),
    # MariaDB 11.8.9 (docker, trixie's image), 2026-11-29 20:24-21:21 UTC at load 1-7.5 (branch ci118):
    # 10 runs each (4 of a script doing the test's calls, the module's 6: the last four whole, on
    # bounds set on the first six), docs/data/cisize/mariadb-11.8
    # all with the undo reads held to the undo pages written (branch mariaall): ci118's kept runs
    # (docs/data/cisize/mariadb-11.8, 1,077-4,797 q/s) ycsb-a -3.9 .. +5.9% (was +2.7 .. +15.2%), ycsb-f
    # -7.1 .. +6.0% (-7.1 .. +15.7%), ycsb-d -0.4 .. +7.2% (-0.2 .. +10.6%); mariaall's 20 runs at 188-1,321
    # q/s (docs/data/mariaall) ycsb-a -4.4 .. +5.6%, ycsb-f -4.4 .. +2.7% and -10.7% at 188 q/s (--driver
    # python at load 7: the rollback segments' headers, 19,688 read where the model has ~13,200, which
    # the cap does not touch; main -6.9% there): 12%, not 10, for ycsb-f. With purge's walk reading all
    # 128 headers (branch mariahdr) that run is +1.7%, mariaall's 20 -5.8 .. +3.7%, but ycsb-f at 99 and ycsb-a at
    # 125 q/s (load 12-16, --driver python beside two burners) +19.0% and +10.4% (main +4.2%, -3.4%):
    # below ~140 q/s the walks read fewer headers than the model's (docs/workloads.md, "The rollback
    # segments' headers: read by the walks"), so 12 stays. At 72-73 q/s (branch slowmaria, the
    # container at 0.03 CPU) ycsb-a/f's whole reads were +31.7%, +30.3% (tables +2.2%, +1.8%): the
    # server read 758-1,080 of its 6,197-6,444 undo pages written and ~98 headers a second, the
    # model all of both; no bound here holds such a run
    # all 10% -> 12% (session 18, branch maria118whole, docs/data/maria118whole): a fresh run of the
    # test's calls at 1,043 q/s read -11.1% (its server 5,063 rollback-segment headers more than the
    # model; the server's headers scatter by 1,100-1,300 pages rms within a cell, ~3% of the whole)
    ("mariadb-11.8", "ycsb-a"): (5, 12),  # +0.7 .. +3.4%; all -2.4 .. +17.2% before
    ("mariadb-11.8", "ycsb-b"): (5, 8),  # +0.1 .. +0.7%; all -0.4 .. +1.8%
    ("mariadb-11.8", "ycsb-c"): (5, 5),  # +0.3 .. +0.7%
    ("mariadb-11.8", "ycsb-d"): (5, 10),  # -1.0 .. +0.7%
    ("mariadb-11.8", "ycsb-e"): (5, 5),  # -0.5 .. -0.0%; all -1.0 .. -1.6%
    ("mariadb-11.8", "ycsb-f"): (5, 12),  # -2.6 .. -0.2%
    ("mariadb-11.8", "sysbench-oltp-ro"): (5, 5),  # +1.2 .. +1.9%
    # Was 10%: -5.4 .. +3.4% (branch mariarw), -4.4%, -3.1% at 5,023 and 4,585 q/s and +4.6% at 1,304.
    # Now (branch oltprw5, as 10.11's above): the 12 stored runs at 1,304-5,023 q/s -2.9 .. +4.1%, the
    # fast ones -2.3%, -2.9%; three fresh ones +1.6%, -3.8% at 347-352 q/s and +15.8% at 136 (load
    # 16.7). Whole reads 15% -> 17%: -16.0% at 352 q/s (--pipeline 8, load 13.9; -11.2% before), as the
    # table's over-prediction that hid the system pages' shortfall of slow runs is gone. Merged with
    # branch mariahdr (2026-11-30): 16 stored 11.8 runs from 300 q/s table -3.1 .. +8.1% (+8.1% at 326
    # q/s, --driver python; -3.1 .. +3.3% from 600), all -7.0 .. +3.4%: 10% / 12%. With MariaDB's
    # LRU batch writing a dirty page and keeping it (branch slowmaria): those 18 from 300 q/s -4.1 ..
    # +5.5% (the 326 q/s one +5.5%), all -7.8 .. +4.3%; fresh ones (docs/data/slowmaria, the
    # container held to a share of a CPU) +1.5% at 248 q/s: 7% as 10.11's. Under ~200 q/s still
    # over (+13.1%, +18.3% at 136 and 114 q/s stored, +16.0% fresh at 96 q/s, whole +30.0%: the
    # undo pages and headers; docs/workloads-lab.md, "Dirty pages an LRU batch writes stay in the list")
    # Table 5% from 350 q/s (session 18, the lead): every stored 16M run of this preset from 350 q/s
    # re-predicted after session 18's merges: MariaDB 10.11 -4.0 .. +3.9% (47 runs), 11.8 -4.1 .. +3.8%
    # (17), MySQL 9.7 -3.5 .. +3.3% (33). Below 350 q/s the model has over-predicted the table by up to
    # +18.3% and says so (the prediction's `slow_writes`, its interval reaching 16% lower): such a run
    # is held to its own interval instead (check_prediction).
    ("mariadb-11.8", "sysbench-oltp-rw"): (5, 12),
}


def check_prediction(doc: dict, stdout: str, preset: str, server: str, table: str) -> None:
    """The prediction is there for every preset at this size, and within its measured bound."""
    assert "no prediction" not in stdout
    p, bp = doc["prediction"], doc["buffer_pool"]
    assert p is not None and p["model"] == "innodb-lru-mix", preset
    t = p["tables"][table]
    measured = bp["tables"][table]["file_pages_read"]
    table_pct, all_pct = BOUNDS_PCT[(server, preset)]
    line = (f"{server} {preset}: table predicted {t['pages_read']:,}, measured {measured:,} ({t['error_pct']:+.1f}%, "
            f"bound {table_pct}%); all predicted {p['pages_read']:,}, measured {bp['pages_read']:,} "
            f"({p['error_pct']:+.1f}%, bound {all_pct}%); {doc['result']['qps']:,.0f} q/s"
            + ("; slow writes: the table held to its interval" if p.get("slow_writes") else ""))
    print(line)
    accuracy.note(line)
    assert t["measured_pages_read"] == measured and p["measured_pages_read"] == bp["pages_read"]
    if p.get("slow_writes"):  # a write run under intervals.SLOW_WRITES_QPS: the reach it claims
        assert t["reads_low"] <= measured <= t["reads_high"], (preset, t["error_pct"], p["slow_writes"])
    else:
        assert abs(t["pages_read"] - measured) <= table_pct / 100 * measured, (preset, t["error_pct"], table_pct)
    assert abs(p["pages_read"] - bp["pages_read"]) <= all_pct / 100 * bp["pages_read"], (preset, p["error_pct"])


@pytest.mark.mysqld
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_on_mariadb(mariadb_up, preset, tmp_path):
    doc, stdout = run_preset(mariadb_up, preset, tmp_path / f"{preset}.json")
    check_preset(doc, stdout, preset, "mariadb")
    if preset == "ycsb-d":  # inserts at the end: the new keys follow the table's rows
        assert doc["buffer_pool"]["tables"]["chat.usertable"]["rows_inserted"] > 50


@pytest.mark.docker
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_on_mysql(mysql_up, preset, tmp_path):
    doc, stdout = run_preset(mysql_up, preset, tmp_path / f"{preset}.json")
    check_preset(doc, stdout, preset, "mysql")
    # purge's batches while the restarted server settled (a few: the master thread wakes purge each
    # second while the restart's 4 logs are in the history; docs/workloads-lab.md, "The walks' phase")
    assert 0 <= doc["server"]["cold_start"]["purge_batches_while_settling"] <= 100
    if preset == "sysbench-oltp-rw":
        # MySQL counts flushing in INNODB_METRICS once loadgen enables the monitors
        flush = doc["buffer_pool"]["flush"]
        assert "note" not in flush, flush
        assert flush["lru_batch_flushed"] + flush["flush_list_flushed"] > 0
        # and the undo counters (MySQL enables buffer_page_*_undo_log only as module_buffer_page)
        assert {"pages_created", "undo_pages_read", "undo_pages_written", "purge_undo_pages"} <= set(flush), flush
        assert doc["buffer_pool"]["made_young"] is not None  # from INNODB_BUFFER_POOL_STATS


@pytest.mark.docker
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_on_mariadb118(mariadb118_up, preset, tmp_path):
    """MariaDB 11.8 (Debian trixie's, in a container): held to bounds measured on 11.8 (BOUNDS_PCT)."""
    doc, stdout = run_preset(mariadb118_up, preset, tmp_path / f"{preset}.json")
    check_preset(doc, stdout, preset, "mariadb-11.8")


@pytest.mark.mysqld
def test_the_drivers_run_the_same_ops(mariadb_up, tmp_path):
    """The python loop, the native one and the pipelined one (one connection, 8 statements in
    flight) run the same sequence: the same ops and rows per stream, writes included (a delete +
    insert changes 2 rows only when the delete found its row: the order decides)."""
    from loadgen.drivers.mixnative import available

    if not available():
        pytest.skip("the extension has no mix loop")
    runs = [("python",), ("native",), ("native", "--pipeline", "8")]
    docs = [run_preset(mariadb_up, "sysbench-oltp-rw", tmp_path / f"{'-'.join(r)}.json", "--driver", *r)[0]
            for r in runs]
    assert [d["result"]["driver"] for d in docs] == ["python", "native", "native"]
    assert [d["result"]["latency_kind"] for d in docs] == ["per_op", "per_op", "pipelined_response"]
    for name, s in docs[0]["result"]["streams"].items():
        for other in docs[1:]:
            o = other["result"]["streams"][name]
            assert (s["ops"], s["rows"], s["errors"]) == (o["ops"], o["rows"], o["errors"]), name


@pytest.mark.mysqld
def test_a_scheduled_scan_runs_at_its_time_and_is_recorded(mariadb_up, tmp_path):
    workload = tmp_path / "nightly.toml"
    workload.write_text(textwrap.dedent("""
        format = 1
        seed = 5
        operations = 20000

        [tables.usertable]
        schema = "ycsb"
        rows = "8k"

        [[streams]]
        name = "read"
        table = "usertable"
        op = "read"
        keys = "zipfian"
        share = 1

        [[streams]]
        name = "nightly"
        table = "usertable"
        op = "scan"
        at_s = 0.5
    """))
    out = tmp_path / "nightly.json"
    res = run_loadgen("run", "--workload", str(workload), "--out", str(out), "--sample-interval", "0.2",
                      env=mariadb_up)
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    nightly = doc["result"]["streams"]["nightly"]
    [execution] = nightly["executions"]
    assert 0.5 <= execution["start_s"] < 1.5, execution
    assert execution["end_s"] >= execution["start_s"]
    assert execution["rows"] == 8000  # SUM(1) over the whole table
    # 20,000 operations: 6,000 ran in 0.43-0.47 s at 13k-14k q/s on a quiet machine, before the scan was due
    assert 0 < execution["ops_before"] <= execution["ops_after"] <= 20000, execution
    assert nightly["ops"] == 1 and nightly["share"] is None
    # the scan read the table: at least its leaves beyond what the pool holds
    leaves = doc["dataset"]["tables"]["usertable"]["leaf_pages"]
    assert doc["buffer_pool"]["tables"]["chat.usertable"]["file_pages_read"] >= leaves - 400
    assert "nightly: " in " ".join(res.stdout.split())


@pytest.mark.mysqld
def test_a_users_schema_file_in_a_mix_and_a_column_it_lacks(mariadb_up, tmp_path):
    """A table from the user's own .sql file runs in a mix; a stream naming a column the file
    does not declare stops with one line (exit 2) before a server is touched."""
    schema = tmp_path / "t.sql"
    schema.write_text("CREATE TABLE t (id BIGINT NOT NULL, v INT NOT NULL, note VARCHAR(40), PRIMARY KEY (id),"
                      " KEY v_i (v));\n")
    workload = tmp_path / "w.toml"
    workload.write_text(textwrap.dedent("""
        format = 1
        operations = 400
        [tables.t]
        schema = "t.sql"
        rows = 1000
        [[streams]]
        name = "r"
        table = "t"
        op = "read-secondary"
        column = "v"
        columns = ["note"]
        share = 0.5
        [[streams]]
        name = "w"
        table = "t"
        op = "insert"
        share = 0.5
    """))
    out = tmp_path / "r.json"
    res = run_loadgen("run", "--workload", str(workload), "--out", str(out), env=mariadb_up)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["buffer_pool"]["tables"]["chat.t"]["rows_inserted"] == doc["result"]["streams"]["w"]["ops"] > 100
    assert doc["dataset"]["tables"]["t"]["indexes"]["v_i"]["columns"] == ["v"]
    workload.write_text(workload.read_text().replace('columns = ["note"]', 'columns = ["nope"]'))
    res = run_loadgen("run", "--workload", str(workload), "--out", str(tmp_path / "bad.json"), env=mariadb_up)
    assert res.returncode == 2
    assert "has no column 'nope'" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert "using the server" not in res.stderr  # refused before a server was touched


@pytest.mark.mysqld
def test_an_existing_table_through_a_dsn_is_only_read(local_server, tmp_path):
    """`existing = "db.table"` on --server dsn: a reader with SELECT only; the keys map onto the
    primary key's range (order ids from 1000) and, for a secondary lookup, onto the looked-up
    column's own values (customers 0..499); nothing is written, the password never shown."""
    server, _ = local_server
    password = "pw-" + os.urandom(6).hex()
    conn = server.connect()
    try:
        cur = conn.cursor()
        for sql in ("CREATE DATABASE IF NOT EXISTS shop_mix", "DROP TABLE IF EXISTS shop_mix.orders",
                    "CREATE TABLE shop_mix.orders (order_id BIGINT PRIMARY KEY, customer INT NOT NULL, "
                    "total DECIMAL(10,2), KEY cust (customer))",
                    "INSERT INTO shop_mix.orders SELECT seq + 1000, seq % 500, seq / 7 FROM shop_mix.seq_0_to_19999",
                    "DROP USER IF EXISTS 'mixreader'@'127.0.0.1'",
                    f"CREATE USER 'mixreader'@'127.0.0.1' IDENTIFIED BY '{password}'",
                    "GRANT SELECT ON shop_mix.* TO 'mixreader'@'127.0.0.1'"):
            cur.execute(sql)
        cur.execute("CHECKSUM TABLE shop_mix.orders")
        before = cur.fetchone()[1]
        workload = tmp_path / "dsn.toml"
        workload.write_text(textwrap.dedent("""
            format = 1
            operations = 3000
            [tables.orders]
            existing = "shop_mix.orders"
            [[streams]]
            name = "by_id"
            table = "orders"
            op = "read"
            share = 0.7
            [[streams]]
            name = "by_customer"
            table = "orders"
            op = "read-secondary"
            column = "customer"
            keys = "hotspot"
            share = 0.2
            [[streams]]
            name = "page"
            table = "orders"
            op = "range"
            length = 20
            share = 0.1
        """))
        out = tmp_path / "dsn.json"
        res = run_loadgen("run", "--server", "dsn", "--dsn", f"mysql://mixreader@127.0.0.1:{server.endpoint.port}/",
                          "--workload", str(workload), "--out", str(out), env={"LOADGEN_PASSWORD": password})
        assert res.returncode == 0, res.stderr[-2000:]
        assert password not in res.stdout + res.stderr + out.read_text()
        doc = json.loads(out.read_text())
        streams = doc["result"]["streams"]
        assert streams["by_id"]["rows"] == streams["by_id"]["ops"]  # every key 1..20000 is an order
        assert streams["by_customer"]["rows"] == 40 * streams["by_customer"]["ops"]  # 40 orders each
        assert streams["page"]["rows"] == 20 * streams["page"]["ops"]
        orders = doc["dataset"]["tables"]["orders"]
        assert orders["existing"] and orders["key_offset"] == 999
        cur.execute("CHECKSUM TABLE shop_mix.orders")
        assert cur.fetchone()[1] == before
        # a write on it is refused before anything starts
        workload.write_text(workload.read_text().replace('op = "range"', 'op = "delete"').replace("length = 20", ""))
        res = run_loadgen("run", "--server", "dsn", "--dsn", f"mysql://mixreader@127.0.0.1:{server.endpoint.port}/",
                          "--workload", str(workload), env={"LOADGEN_PASSWORD": password})
        assert res.returncode == 2 and "existing table loadgen only reads" in res.stderr
    finally:
        cur = conn.cursor()
        cur.execute("DROP DATABASE IF EXISTS shop_mix")
        cur.execute("DROP USER IF EXISTS 'mixreader'@'127.0.0.1'")
        conn.close()

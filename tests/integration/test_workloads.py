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


# The model's error held per preset and server at this size: (table, all) in %. table: the table's
# .ibd reads (performance_schema), the 5% in every pair from 350 q/s (a slower write run is
# held to the interval its prediction claims, which says it is slow). all: the pool's whole
# Innodb_pages_read, undo and system pages included, held to the worst run seen at this size with a
# margin. The server's own whole reads scatter between identical runs of a write preset (purge's
# walks of the rollback segments' headers, the undo pages its LRU batches leave): where a bound
# passes 5% its comment names the lab section that measured why. How each bound was set, with every
# run behind it: docs/workloads-lab.md, "CI's bounds for the presets".
BOUNDS_PCT = {
    # MariaDB 10.11 (local). Write presets' whole reads: purge re-walks the 128 rollback segment
    # headers within its bursts (docs/workloads-lab.md, "What the server reads that the model does not")
    # ycsb-a/f on a quiet machine (session 20, docs/data/fastrepeats: 2,300-3,300 q/s) read fewer undo
    # pages and headers than at 1,000-2,000 q/s, which the model follows since purge's header read is
    # timed (undomodel.PURGE_HEADER_LAG_S); a single run's whole reads still scatter by the server's
    # purge batches: ycsb-a 42,284 .. 56,513 in five fresh runs, -12.1 .. +3.6% (docs/data/ratevalid;
    # docs/workloads-lab.md, "CI's bounds for the presets")
    # all 15% since session 22: the stored run at -12.1% (2,450 q/s, 112 purge batches) is -14.5% once the
    # undo reads are capped by the logs purged (branch rwbias6)
    ("mariadb", "ycsb-a"): (5, 15),
    ("mariadb", "ycsb-b"): (5, 8),
    ("mariadb", "ycsb-c"): (5, 5),
    ("mariadb", "ycsb-d"): (5, 12),  # all +10.5% once at 14,633 q/s, the fastest seen
    ("mariadb", "ycsb-e"): (5, 5),
    ("mariadb", "ycsb-f"): (5, 12),
    ("mariadb", "sysbench-oltp-ro"): (5, 5),
    # table 6%: -4.95% at 4,112 q/s in session 21's CI rehearsal, and from 350 q/s the stored 16M runs
    # -3.7 .. +5.6% (67): a single run reaches 5% both ways (docs/workloads-lab.md, "CI's bounds for the presets")
    ("mariadb", "sysbench-oltp-rw"): (6, 12),  # all -8.7 .. +3.0% in 45 stored runs from 300 q/s
    # MySQL 9.7 (docker). The write presets' whole reads were 5-8% short (12-15% here) until the page
    # cleaner's batch counted half of its last full doublewrite batch as still being written (session
    # 19): 16 fresh runs of these calls (10 of them chose the rule), ycsb-a -1.6 .. +2.9%, ycsb-b
    # -2.0 .. +1.0%, ycsb-f -2.3 .. +2.7% (docs/workloads-lab.md, "The page cleaner's writes in flight")
    ("mysql", "ycsb-a"): (5, 8),
    ("mysql", "ycsb-b"): (5, 8),
    ("mysql", "ycsb-c"): (5, 5),
    ("mysql", "ycsb-d"): (5, 6),  # docs/workloads-lab.md, "The walks' phase"
    ("mysql", "ycsb-e"): (5, 5),
    ("mysql", "ycsb-f"): (5, 8),
    ("mysql", "sysbench-oltp-ro"): (5, 5),  # docs/workloads-lab.md, "No seed work left for the run"
    ("mysql", "sysbench-oltp-rw"): (5, 10),  # all -2.5 .. +6.3% from 350 q/s (40 stored runs)
    # MariaDB 11.8 (docker, Debian trixie's). Write presets' whole reads: the rollback segments'
    # headers scatter by 1,100-1,300 pages rms between runs of one cell, ~3% of the whole
    # (docs/workloads-lab.md, "The fast 11.8 runs' whole reads")
    # all -11.1% once at 1,043 q/s, -11.9% at 1,582 q/s in session 22's rehearsal: 15% as 10.11's
    ("mariadb-11.8", "ycsb-a"): (5, 15),
    ("mariadb-11.8", "ycsb-b"): (5, 8),
    ("mariadb-11.8", "ycsb-c"): (5, 5),
    ("mariadb-11.8", "ycsb-d"): (5, 10),
    ("mariadb-11.8", "ycsb-e"): (5, 5),
    ("mariadb-11.8", "ycsb-f"): (5, 12),
    ("mariadb-11.8", "sysbench-oltp-ro"): (5, 5),
    # table 6% since session 22: the headers read after purge's tree work (branch rwbias6) put the stored
    # runs from 350 q/s at -3.0 .. +5.9% (23; +5.9% a CI-size run at 1,304 q/s, the next +4.4%)
    ("mariadb-11.8", "sysbench-oltp-rw"): (6, 12),
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
        assert p["reads_low"] <= bp["pages_read"] <= p["reads_high"], (preset, p["error_pct"], p["slow_writes"])
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

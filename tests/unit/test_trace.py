"""Trace files (loadgen/workload/trace.py), trace capture from logs (loadgen/workload/capture.py) and the model from
an explicit key stream (loadgen/analysis/keymodel.py)."""
from __future__ import annotations

import itertools

import pytest

from loadgen.workload import capture, trace
from loadgen.analysis import keymodel, model
from loadgen.errors import UsageError
from loadgen.workload.orders import Workload

from ..conftest import run_loadgen


def test_binary_round_trip_and_header(tmp_path):
    keys = [5, 1, 2**40, 7] * 40_000  # more than one chunk
    p = tmp_path / "t.trace"
    assert trace.write(p, iter(keys)) == len(keys)
    raw = p.read_bytes()
    assert raw[:8] == trace.MAGIC and len(raw) == trace.HEADER.size + 8 * len(keys)
    assert trace.detect(p) == "binary"
    assert list(itertools.chain.from_iterable(trace.chunks(p))) == keys


def test_text_trace_skips_and_counts_keys_outside_the_table(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("# captured by hand\n3\n\n0\n-4\n99\n  7 \n1000\n")
    s = trace.scan(p, 1, 100)
    assert (s.format, s.total, s.keys, s.below, s.above) == ("text", 6, 3, 2, 1)
    w = Workload("trace", 100, trace=str(p))
    assert w.queries == 3 and list(w.ids()) == [3, 99, 7]
    assert w.to_dict()["trace"]["outside"] == 3
    # --threads: contiguous slices of the keys inside the table
    assert [list(w.ids(k, 2)) for k in range(2)] == [[3], [99, 7]]


@pytest.mark.parametrize("content,needle", [
    (b"\x7fELF\x02\x01\x01\x00\x00\x00garbage", "binary data"),
    (b"12\n\xff\xfe\xfa\xfb not utf8 " * 20, "not UTF-8"),
    (b"12\n13\nfourteen\n", "line 3"),
    (trace.MAGIC + b"\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00" + b"\x01" * 8, "truncated"),
])
def test_bad_traces_are_one_line_errors(tmp_path, content, needle):
    p = tmp_path / "bad"
    p.write_bytes(content)
    with pytest.raises(UsageError) as err:
        trace.scan(p, 1, 100)
    assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("line,shown", [(b"1.5", "'1.5'"), (b"-3e6", "'-3e6'"), (b"0x1f", "'0x1f'"),
                                         (b"root:$y$j9T$secret:20228:0:99999:7:::", "a line of 37 characters"),
                                         (b"fourteen", "a line of 8 characters")])
def test_a_bad_line_shows_a_number_and_never_other_text(tmp_path, line, shown):
    # a trace may be a planted symlink (/etc/shadow, a key): only a number-like line is echoed
    p = tmp_path / "keys"
    p.write_bytes(b"12\n" + line + b"\n")
    with pytest.raises(UsageError) as err:
        trace.scan(p, 1, 100)
    assert f"line 2: {shown} is not an integer key" in str(err.value)
    assert b"secret" not in str(err.value).encode() and b"fourteen" not in str(err.value).encode()


def test_cli_bad_trace_exits_2_without_traceback(tmp_path):
    p = tmp_path / "bad"
    p.write_bytes(b"\x00\x01\x02" * 100)
    cp = run_loadgen("predict", "--trace", str(p), "--rows", "200k", "--curve", "")
    assert cp.returncode == 2 and "Traceback" not in cp.stderr
    assert len(cp.stderr.strip().splitlines()) == 1


SLOW_LOG = """\
/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian 12). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time		    Id Command	Argument
# Time: 261123  5:39:22
# User@Host: app[app] @ localhost []
# Thread_id: 4  Schema: shop  QC_hit: No
# Query_time: 0.000143  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1
SET timestamp=1795412362;
SELECT * FROM orders WHERE id = 42;
# User@Host: app[app] @ localhost []
# Thread_id: 4  Schema: shop  QC_hit: No
# Query_time: 0.000143  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1
SET timestamp=1795412362;
SELECT o.total
  FROM `shop`.`orders` o
 WHERE o.`id` = '17';
# Query_time: 0.000143  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1
SELECT * FROM shop.orders WHERE id > 5 AND id < 9;
# Query_time: 0.000143  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1
SELECT * FROM shop.order_items WHERE id = 3;
# Query_time: 0.000143  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1
SELECT * FROM shop.orders WHERE customer_id = 8;
# User@Host: app[app] @ localhost []
# Thread_id: 9  Schema: other  QC_hit: No
# Query_time: 0.000143  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1
SELECT * FROM orders WHERE id = 99;
use shop;
SELECT * FROM orders WHERE id=7;
"""

# the general log separates its columns with tabs, written as \t so no editor can turn them into spaces
GENERAL_LOG = """\
/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian 12). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time\t\t    Id Command\tArgument
261123  5:40:01\t     8 Connect\tapp@localhost on shop using Socket
\t\t     8 Prepare\tSELECT * FROM orders WHERE id = ?
\t\t     8 Execute\tSELECT * FROM orders WHERE id = 11
\t\t     8 Query\tSELECT * FROM orders
 WHERE id = 12
2026-11-23T05:40:01.123456Z\t    9 Query\tSELECT * FROM shop.orders WHERE id = 13
2026-11-23T05:40:01.123456Z\t    9 Query\tSHOW GLOBAL STATUS
\t\t     8 Quit\t
"""


def test_slow_log_capture_matches_the_table_and_key_column():
    m = capture.Matcher("shop.orders", "id")
    cap = capture.Capture("slow log")
    keys = list(capture.slow_log_keys(SLOW_LOG.splitlines(True), m, cap))
    assert keys == [42, 17, 7]  # 99 was on schema `other`
    assert cap.unused == {"no_key_equality": 2, "other_statement": 2}


def test_general_log_capture_in_arrival_order():
    m = capture.Matcher("shop.orders", "id")
    cap = capture.Capture("general log")
    keys = list(capture.general_log_keys(GENERAL_LOG.splitlines(True), m, cap))
    assert keys == [11, 12, 13]
    assert cap.unused["placeholder"] == 1 and cap.unused["other_statement"] == 1


def test_capture_cli_writes_a_trace_and_refuses_an_unwritable_path(tmp_path):
    log = tmp_path / "slow.log"
    log.write_text(SLOW_LOG)
    out = tmp_path / "o.trace"
    cp = run_loadgen("trace", "capture", "--slow-log", str(log), "--table", "shop.orders", "-o", str(out))
    assert cp.returncode == 0, cp.stderr
    assert list(trace.table_keys(out, 1, 100)) == [42, 17, 7]
    assert "not used" in cp.stderr
    cp = run_loadgen("trace", "capture", "--slow-log", str(log), "--table", "shop.orders",
                     "-o", str(tmp_path / "missing-dir" / "o.trace"))
    assert cp.returncode == 1 and "Traceback" not in cp.stderr and "cannot write trace" in cp.stderr


@pytest.mark.parametrize("source", ["general", "slow"])
def test_capture_skips_and_counts_keys_out_of_range(tmp_path, source):
    """Issue #18 N5: -1 and 2^64 ended the capture with an OverflowError (no trace written),
    a key of thousands of digits with a ValueError; 2^64-1, -0 and leading zeros are keys."""
    literals = ["-1", "5", str(1 << 64), str(U64 := (1 << 64) - 1), "9" * 100_000, "-0", "0" * 5000 + "7",
                "'-3'", "-" + "0" * 30 + "1"]
    if source == "general":
        text = "".join(f"\t    5 Query\tSELECT * FROM shop.orders WHERE id = {k}\n" for k in literals)
    else:
        text = "# Schema: shop\n" + "".join(f"# Time: 1\nSELECT * FROM orders WHERE id = {k};\n" for k in literals)
    log = tmp_path / f"{source}.log"
    log.write_text(text)
    out = tmp_path / "o.trace"
    cp = run_loadgen("trace", "capture", f"--{source}-log", str(log), "--table", "shop.orders", "-o", str(out))
    assert cp.returncode == 0 and "Traceback" not in cp.stderr, cp.stderr
    assert list(itertools.chain.from_iterable(trace.chunks(out))) == [5, U64, 0, 7]
    assert "not used: 5 statements with a key out of range" in " ".join(cp.stderr.split())


def test_key_pages_in_c_equal_the_python_descent():
    g = model.Geometry(200_000, 1633, 3, fanout=900)
    # 1 and 200,000 are the table's ends (no neighbour on one side); 123 and 124 sit near the first
    # leaf's edge, which the leaves' jitter decides
    keys = [1, 2, 123, 124, 200_000, 0, 200_001, 99_999] + list(range(1, 200_001, 997))
    pages, used, outside = keymodel.page_trace(keys, g)
    expected = [p for k in keys if 1 <= k <= g.rows for p in keymodel._descent(k - 1, g)]
    assert list(pages) == expected and used == len(keys) - 2 and outside == 2
    assert max(pages) < g.n_pages
    # a random stream: about 2 keys in 122 are a leaf's first or last and read a second leaf
    keys = list(itertools.islice(Workload("random", 200_000, seed=3).ids(), 20_000))
    pages, used, _ = keymodel.page_trace(keys, g)
    assert list(pages) == [p for k in keys for p in keymodel._descent(k - 1, g)]
    steps = len(pages) - g.height * used
    assert 0.5 * 2 / 122.5 * used < steps < 1.5 * 2 / 122.5 * used
    assert list(keymodel.query_starts(pages, used, g)) == [i for i, p in enumerate(pages) if p == g.n_pages - 1]


def test_key_pages_and_an_offset_table_step_at_the_same_leaves():
    # a table whose keys start at 1,000,001 (a captured trace's --key-min): the same pages as keys from 1
    g = model.Geometry(50_000, 409, 2, fanout=900)
    keys = list(range(1, 50_001, 7))
    pages, used, _ = keymodel.page_trace(keys, g)
    shifted, used2, outside = keymodel.page_trace([k + 1_000_000 for k in keys], g, key_min=1_000_001)
    assert pages == shifted and used == used2 == len(keys) and outside == 0


def test_key_model_equals_the_workload_model_on_the_same_order():
    # Without old_blocks_time (time-free) and read-ahead, a looped order's keys through the key
    # model must miss exactly as model.py's own expansion of the looped order does, its leaf steps
    # included (a select on a leaf's first or last key reads the neighbouring leaf: the steps the
    # built-in orders take for read-ahead's trigger; 688 in these 40,000 queries)
    from loadgen import native

    g = model.estimate_geometry(200_000)
    pool = model.pool_model(8 << 20, {"innodb_old_blocks_time": 0, "innodb_lru_scan_depth": 100,
                                      "innodb_read_ahead_threshold": 0})
    w = Workload("looped", 200_000, stride=10, reps=2)
    pages, used, _ = keymodel.page_trace(w.ids(), g)
    with_steps = native.lrusim_innodb(
        None, model.workload_tuple("looped", 10, 2, g, moves=True), g.n_pages, pool.capacity_high, pool.pool_pages,
        pool.old_pct, pool.old_time_ms, 1000.0 / pool.qps, 0, pool.ra_area, True, pool.ra_rule, pool.start_pages,
        pool.start_freed, pool.cleaner_batch, *pool.tick_args(pool.phases()[0]))[:4]
    assert keymodel.simulate_pages(pages, used, g, pool) == with_steps
    refs, misses, *_ = model.simulate("looped", 10, 2, g, pool)  # the same order without its steps
    assert with_steps[0] - refs == len(pages) - g.height * used > 0


def test_predict_for_a_pattern_and_a_trace(tmp_path):
    import json

    cp = run_loadgen("predict", "--order", "zipfian", "--rows", "200k", "--queries", "50k", "--pool", "8M",
                     "--set", "innodb_lru_scan_depth=100",
                     "--curve", "8M,16M,64M", "--format", "json")
    assert cp.returncode == 0, cp.stderr
    z = json.loads(cp.stdout)
    assert z["queries"] == 50_000 and 0 < z["prediction"]["reads"] < z["prediction"]["read_requests"]
    reads = [p["reads"] for p in z["curve"]]
    assert reads[0] > reads[1] > reads[2]
    t = tmp_path / "keys.txt"
    t.write_text("\n".join(str(k) for k in range(1, 200_001, 10)) + "\n")
    cp = run_loadgen("predict", "--trace", str(t), "--rows", "200k", "--pool", "8M", "--curve", "",
                     "--format", "json")
    assert cp.returncode == 0, cp.stderr
    assert json.loads(cp.stdout)["queries"] == 20_000


def test_a_key_stream_prediction_reports_mysqls_read_ahead():
    import json

    def predict(*flavor):
        cp = run_loadgen("predict", "--order", "hotspot", "--rows", "200k", "--queries", "20k", "--pool", "8M",
                         "--curve", "8M,16M", "--format", "json", *flavor)
        assert cp.returncode == 0, cp.stderr
        return json.loads(cp.stdout)

    my, maria = predict("--flavor", "mysql"), predict()
    # MySQL reads ahead on a key stream's first access of a page (measured: 437-538 pages for this
    # hotspot at 8M, docs/mysql-lab.md); MariaDB only on a select's step to the next leaf
    assert 0 < my["prediction"]["read_ahead"] < my["prediction"]["reads"]
    assert maria["prediction"]["read_ahead"] == 0
    assert my["curve"][0]["reads"] == my["prediction"]["reads"]  # the asked pool is the same simulation


def test_paced_trace_follows_the_measured_timeline():
    g = model.estimate_geometry(200_000)
    w = Workload("uniform", 200_000, count=3000, seed=2)
    pages, used, _ = keymodel.page_trace(w.ids(), g)
    # 1,000 queries in the first second, 1,000 in the next ten, 1,000 in the last second
    samples = [{"t_s": 1.0, "queries": 1000}, {"t_s": 11.0, "queries": 1000}, {"t_s": 12.0, "queries": 1000}]
    times = keymodel.query_times_ms(samples, used)
    padded, pads, ms = keymodel.paced(pages, used, g, times)
    root = g.n_pages - 1
    assert [p for p in padded if p != root] == [p for p in pages if p != root]
    assert pads > 0 and len(padded) <= (keymodel.PAD_FACTOR + 1) * len(pages) + g.height
    # query 1500 (mid slow stretch) runs near 6 s, query 2500 near 11.5 s
    starts: list = []
    assert keymodel.paced(pages, used, g, times, starts)[0] == padded
    [starts] = starts
    assert len(starts) == used and all(padded[s] == root for s in starts)
    assert starts[1500] * ms == pytest.approx(6000, rel=0.05)
    assert starts[2500] * ms == pytest.approx(11500, rel=0.05)
    # each query's references stay together, in order, its leaf step included
    own = keymodel.query_starts(pages, used, g)
    ends = list(own[1:]) + [len(pages)]
    for q in (0, 1500, 2999, *[q for q in range(used) if ends[q] - own[q] > g.height][:5]):
        n = ends[q] - own[q]
        assert list(padded[starts[q]:starts[q] + n]) == list(pages[own[q]:own[q] + n])


def test_replay_is_streamed(tmp_path):
    import tracemalloc

    p = tmp_path / "big.trace"
    trace.write(p, Workload("uniform", 1_000_000, count=600_000).ids())
    w = Workload("trace", 1_000_000, trace=str(p))
    assert w.queries == 600_000
    tracemalloc.start()
    n = sum(1 for _ in w.ids())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert n == 600_000 and peak < 2 << 20, f"replay allocated {peak} bytes"


def test_a_trace_on_a_table_whose_keys_start_above_1(tmp_path):
    # a user table with keys 1001..1100: the trace holds the table's own keys; ids come out
    # 1-based (the driver adds the key offset back), keys outside 1001..1100 are skipped
    p = tmp_path / "t.txt"
    p.write_text("1001\n5\n1100\n1101\n1050\n")
    w = Workload("trace", 100, trace=str(p), trace_key_min=1001)
    assert list(w.ids()) == [1, 100, 50]
    s = w.to_dict()["trace"]
    assert (s["keys"], s["below"], s["above"]) == (3, 1, 1)
    assert w.to_dict()["trace_key_min"] == 1001

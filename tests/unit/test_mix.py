"""Workload files (loadgen/workload/mix.py): the checks, one line each before anything starts,
and the op stream: op i a function of (seed, i) alone, the shares kept, inserts at the end."""
from __future__ import annotations

import math
import os
import textwrap

import numpy as np
import pytest

from loadgen.errors import UsageError
from loadgen.workload import opstream, presets
from loadgen.workload.mixfile import parse, parse_file
from loadgen.workload.opstream import Generator

GOOD = """
format = 1
seed = 7
operations = 20000

[tables.usertable]
schema = "ycsb"
rows = "30k"

[tables.sbtest1]
schema = "sbtest"
rows = 5000

[[streams]]
name = "read"
table = "usertable"
op = "read"
keys = "zipfian"
share = 0.5

[[streams]]
name = "lookup"
table = "sbtest1"
op = "read-secondary"
column = "k"
keys = "hotspot"
hot_fraction = 0.1
share = 0.2

[[streams]]
name = "report"
table = "sbtest1"
op = "range"
length = "uniform:1..100"
share = 0.1

[[streams]]
name = "add"
table = "usertable"
op = "insert"
share = 0.1

[[streams]]
name = "add2"
table = "usertable"
op = "insert"
share = 0.1

[[streams]]
name = "nightly"
table = "usertable"
op = "scan"
every_s = 60
"""


def good(**edits) -> str:
    return GOOD


def test_a_good_file_parses():
    spec = parse(GOOD)
    assert [t.name for t in spec.tables] == ["usertable", "sbtest1"]
    assert spec.table("usertable").rows == 30_000
    assert [s.name for s in spec.streams] == ["read", "lookup", "report", "add", "add2", "nightly"]
    assert spec.mixed == (0, 1, 2, 3, 4) and spec.scheduled == (5,)
    assert spec.streams[2].length == (1, 100)
    assert spec.streams[1].keys.hot_fraction == 0.1
    assert math.isclose(sum(spec.streams[i].share for i in spec.mixed), 1.0)
    assert spec.to_dict()["streams"][5] == {"name": "nightly", "table": "usertable", "op": "scan", "every_s": 60}


def test_a_scan_at_an_operation_parses_and_round_trips():
    spec = parse(_with(GOOD, "every_s = 60", "at_op = 12000"))
    nightly = spec.streams[5]
    assert nightly.scheduled and nightly.at_op == 12_000 and nightly.at_s is None and nightly.every_s is None
    assert spec.to_dict()["streams"][5] == {"name": "nightly", "table": "usertable", "op": "scan", "at_op": 12000}


def _with(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


BAD = [
    # (what, the edit to GOOD, words the one-line error must hold)
    ("unknown table", ('table = "sbtest1"\nop = "range"', 'table = "orders"\nop = "range"'), "unknown table 'orders'"),
    ("unknown op", ('op = "range"', 'op = "select"'), "unknown op 'select'"),
    ("missing column", ('column = "k"', 'column = "kk"'), "has no column 'kk'"),
    ("column without an index", ('column = "k"', 'column = "pad"'), "no index of sbtest1 starts with 'pad'"),
    ("shares that do not add up", ("share = 0.5", "share = 0.4"), "add up to 0.9"),
    ("share and schedule", ("every_s = 60", "every_s = 60\nshare = 0.1"), "a share and a schedule"),
    ("schedule in the past", ("every_s = 60", "at_s = -5"), "in the past"),
    ("every_s zero", ("every_s = 60", "every_s = 0"), "every_s = 0 must be above 0"),
    ("at_op in the past", ("every_s = 60", "at_op = -1"), "at_op = -1 is in the past"),
    ("at_op not whole", ("every_s = 60", "at_op = 1.5"), "at_op = 1.5 is not a whole number"),
    ("two schedules", ("every_s = 60", "every_s = 60\nat_op = 100"), "both every_s and at_op"),
    ("share and at_op", ("every_s = 60", "at_op = 100\nshare = 0.1"), "a share and a schedule"),
    ("scheduled non-scan", ('op = "scan"\nevery_s = 60', 'op = "read"\nevery_s = 60'), "must be a scan"),
    ("unknown key", ('keys = "zipfian"', 'keys = "zipfian"\nshares = 3'), "unknown key 'shares'"),
    ("unknown distribution", ('keys = "zipfian"', 'keys = "pareto"'), "unknown keys 'pareto'"),
    ("knob of another distribution", ('keys = "zipfian"', 'keys = "zipfian"\nhot_ops = 0.5'), "hot_ops is not a knob"),
    ("unknown schema", ('schema = "sbtest"', 'schema = "tpcc"'), "not a built-in"),
    ("schema of another table", ('[tables.sbtest1]\nschema = "sbtest"', '[tables.sbtest1]\nschema = "chat"'),
     "creates message, not sbtest1"),
    ("no format", ("format = 1", ""), "no `format`"),
    ("future format", ("format = 1", "format = 2"), "format 2 is not one"),
    ("duplicate names", ('name = "add2"', 'name = "add"'), "two streams are named 'add'"),
    ("bad length", ('length = "uniform:1..100"', 'length = "uniform:100..1"'), "length"),
    ("no rows", ('rows = 5000', ''), "has no rows"),
    ("rows not a count", ('rows = 5000', 'rows = "lots"'), "'lots' is not a count"),
    ("zipf theta 1", ('keys = "zipfian"', 'keys = "zipfian"\nzipf_theta = 1.0'), "zipf_theta"),
    ("a percentage share mixed badly", ("share = 0.5", 'share = "5%"'), "add up to"),
    ("scan index missing", ("every_s = 60", 'every_s = 60\nindex = "k_9"'), "has no index 'k_9'"),
    ("update of the key", ('name = "add2"\ntable = "usertable"\nop = "insert"',
                           'name = "add2"\ntable = "usertable"\nop = "update"\ncolumn = "ycsb_key"'),
     "part of the primary key"),
]


@pytest.mark.parametrize("what,edit,words", BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_gets_one_line(what, edit, words):
    with pytest.raises(UsageError) as err:
        parse(_with(GOOD, *edit))
    message = str(err.value)
    assert words in message, message
    assert "\n" not in message
    assert err.value.exit_code == 2


def test_percentages_add_up():
    text = GOOD.replace("share = 0.5", 'share = "50%"').replace("share = 0.2", 'share = "20%"') \
        .replace("share = 0.1", 'share = "10%"')
    spec = parse(text)
    assert math.isclose(spec.streams[0].share, 0.5)


def test_not_toml():
    with pytest.raises(UsageError, match="not valid TOML"):
        parse("format = 1\n[tables.x\n")


def test_existing_tables_take_reads_only():
    text = textwrap.dedent("""
        format = 1
        operations = 10
        [tables.orders]
        existing = "shop.orders"
        [[streams]]
        name = "w"
        table = "orders"
        op = "update"
        share = 1
    """)
    with pytest.raises(UsageError, match="existing table loadgen only reads"):
        parse(text)
    spec = parse(text.replace('"update"', '"read"'))
    assert spec.table("orders").rows is None
    with pytest.raises(UsageError, match="rows are not known"):
        Generator(spec)
    assert Generator(spec.with_rows({"orders": 50})).chunk(0, 10).key.max() <= 50


def test_a_huge_file_is_refused_by_its_size_unread(tmp_path):
    big = tmp_path / "huge.toml"
    with open(big, "wb") as f:
        f.truncate(10 << 30)  # 10 GB, sparse: reading it would take minutes
    with pytest.raises(UsageError, match="over the 1,048,576-byte limit") as err:
        parse_file(big)
    assert "\n" not in str(err.value)


def test_not_a_regular_file(tmp_path):
    with pytest.raises(UsageError, match="not a regular file"):
        parse_file(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="not a regular file"):  # refused without waiting for a writer
        parse_file(fifo)
    with pytest.raises(UsageError, match="cannot read workload"):
        parse_file(tmp_path / "missing.toml")
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(UsageError, match="not text"):
        parse_file(binary)


def test_relative_paths_are_the_files(tmp_path):
    (tmp_path / "t.sql").write_text("CREATE TABLE t (id BIGINT NOT NULL, v INT NOT NULL, "
                                    "PRIMARY KEY (id), KEY v_i (v));")
    (tmp_path / "keys.txt").write_text("1\n2\n3\n")
    (tmp_path / "w.toml").write_text(textwrap.dedent("""
        format = 1
        operations = 6
        [tables.t]
        schema = "t.sql"
        rows = 10
        [[streams]]
        name = "r"
        table = "t"
        op = "read"
        keys = "trace:keys.txt"
        share = 1
    """))
    spec = parse_file(tmp_path / "w.toml")
    assert spec.table("t").schema == str(tmp_path / "t.sql")
    assert list(Generator(spec).chunk(0, 6).key) == [1, 2, 3, 1, 2, 3]  # the trace, cycled


# -- the op stream -------------------------------------------------------------------------------
def test_op_i_depends_on_seed_and_i_only():
    spec = parse(GOOD)
    whole = Generator(spec).chunk(0, 20_000)
    for start, stop in [(0, 1), (123, 4567), (19_000, 20_000), (5000, 5000)]:
        c = Generator(spec).chunk(start, stop)  # a fresh generator, straight to `start`
        assert np.array_equal(c.stream, whole.stream[start:stop])
        assert np.array_equal(c.key, whole.key[start:stop])
        assert np.array_equal(c.length, whole.length[start:stop])
        assert np.array_equal(c.counts, np.bincount(whole.stream[:start], minlength=len(spec.streams)))
    # chunk by chunk, in order or not, on one generator: the same ops
    g = Generator(spec)
    parts = [g.chunk(a, min(20_000, a + 3000)) for a in (6000, 0, 3000, 9000, 12_000, 15_000, 18_000)]
    parts.sort(key=lambda c: c.start)
    assert np.array_equal(np.concatenate([p.key for p in parts]), whole.key)
    # the Python reference (no extension) gives the same op
    for i in (0, 17, 9999):
        assert opstream.op_reference(spec, i) == (int(whole.stream[i]), int(whole.key[i]), int(whole.length[i]))
    # another seed, another mix
    other = Generator(spec.with_overrides(seed=8)).chunk(0, 20_000)
    assert not np.array_equal(other.stream, whole.stream)


def test_the_shares_are_kept():
    spec = parse(GOOD).with_overrides(operations=200_000)
    c = Generator(spec).chunk(0, 200_000)
    counts = np.bincount(c.stream, minlength=len(spec.streams))
    for i in spec.mixed:
        p = spec.streams[i].share
        expected, sd = 200_000 * p, math.sqrt(200_000 * p * (1 - p))
        assert abs(counts[i] - expected) < 5 * sd, (spec.streams[i].name, counts[i], expected)
    assert counts[5] == 0  # the scheduled scan is not in the sequence


def test_keys_stay_in_their_table_and_inserts_go_at_the_end():
    spec = parse(GOOD)
    c = Generator(spec).chunk(0, 20_000)
    names = [s.name for s in spec.streams]
    for i, s in enumerate(spec.streams):
        k = c.key[c.stream == i]
        rows = spec.table(s.table).rows
        if s.op == "insert":
            continue
        assert k.size == 0 or (k.min() >= 1 and k.max() <= rows), s.name
    # the two insert streams share usertable's counter: 30001, 30002, ... in op order, no gaps
    ins = np.isin(c.stream, [names.index("add"), names.index("add2")])
    assert np.array_equal(c.key[ins], np.arange(30_001, 30_001 + ins.sum()))
    lengths = c.length[c.stream == names.index("report")]
    assert lengths.min() >= 1 and lengths.max() <= 100 and len(set(lengths.tolist())) > 50
    assert set(c.length[c.stream == names.index("read")].tolist()) == {1}


def test_latest_reads_follow_the_inserts():
    spec = presets.load("ycsb-d", rows=10_000, operations=40_000)
    c = Generator(spec).chunk(0, 40_000)
    reads, inserts = c.stream == 0, c.stream == 1
    assert inserts.sum() > 1000
    top = 10_000 + np.cumsum(inserts)  # the newest key after each op
    assert (c.key[reads] <= top[reads]).all()
    # most reads go to the newest rows: past the original table once it has grown
    late = reads & (np.arange(40_000) > 30_000)
    assert (c.key[late] > 10_000).mean() > 0.3


def test_memory_is_one_chunk():
    import tracemalloc

    spec = presets.load("sysbench-oltp-rw", rows=1000, operations=10 ** 9)  # never all in memory
    g = Generator(spec)
    chunks = g.chunks(0, 300_000)
    sizes = {len(next(chunks)) for _ in range(3)}
    assert sizes == {opstream.CHUNK_OPS}
    # 1M ops (u16 + u64 + u32 each: 14 MB as arrays) go through in a few chunks' worth of memory
    tracemalloc.start()
    try:
        total = sum(len(c) for c in g.chunks(0, 1_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == 1_000_000
    assert peak < 8 * opstream.CHUNK_OPS * 14, peak


def test_sysbench_special_keys():
    rows = 100_000
    k = opstream.special_keys(5, 0, 200_000, rows)
    assert k.min() >= 1 and k.max() <= rows
    # 75% of the draws land in the 1% of the keys in the middle (sb_rand_special), the rest is a
    # narrow gaussian around the middle too: almost nothing far from it
    mid = (k >= rows / 2 - rows * 0.005) & (k <= rows / 2 + rows * 0.005 + 1)
    assert 0.74 < mid.mean() < 0.80
    assert (np.abs(k.astype(np.int64) - rows // 2) > rows // 4).mean() < 0.01
    assert np.array_equal(opstream.special_keys(5, 1000, 10, rows), k[1000:1010])


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_every_preset_parses_and_keeps_its_proportions(name):
    spec = presets.load(name, rows=50_000, operations=100_000)
    c = Generator(spec).chunk(0, 100_000)
    counts = np.bincount(c.stream, minlength=len(spec.streams))
    for i in spec.mixed:
        p = spec.streams[i].share
        assert abs(counts[i] - 100_000 * p) < 5 * math.sqrt(100_000 * p * (1 - p)) + 1
    assert "\n" not in spec.description


def test_presets_say_what_ycsb_and_sysbench_say():
    def shares(name):
        return {s.name: round(s.share, 4) for s in presets.load(name, rows=100).streams}

    assert shares("ycsb-a") == {"read": 0.5, "update": 0.5}
    assert shares("ycsb-b") == {"read": 0.95, "update": 0.05}
    assert shares("ycsb-c") == {"read": 1.0}
    assert shares("ycsb-d") == {"read": 0.95, "insert": 0.05}
    assert shares("ycsb-e") == {"scan": 0.95, "insert": 0.05}
    assert shares("ycsb-f") == {"read": 0.5, "read_modify_write": 0.5}
    e = presets.load("ycsb-e", rows=100)
    assert e.streams[0].length == (1, 100) and e.streams[0].keys.name == "zipfian"
    assert presets.load("ycsb-d", rows=100).streams[0].keys.name == "latest"
    ro = presets.load("sysbench-oltp-ro", rows=100)
    assert [round(s.share * 14) for s in ro.streams] == [10, 1, 1, 1, 1]
    assert [s.form for s in ro.streams[1:]] == ["simple", "sum", "order", "distinct"]
    assert all(s.keys.name == "special" and (s.op != "range" or s.length == (100, 100)) for s in ro.streams)
    rw = presets.load("sysbench-oltp-rw", rows=100)
    assert [round(s.share * 17) for s in rw.streams] == [10, 1, 1, 1, 1, 1, 1, 1]
    assert [(s.op, s.column) for s in rw.streams[5:]] == [("update", "k"), ("update", "c"), ("delete-insert", None)]


def test_overrides():
    spec = presets.resolve("ycsb-a", rows=1234, operations=99, seed=3)
    assert (spec.table("usertable").rows, spec.operations, spec.seed) == (1234, 99, 3)
    with pytest.raises(UsageError, match="unknown preset|cannot read workload"):
        presets.resolve("ycsb-z")


@pytest.mark.parametrize("ddl_text,words", [
    ("CREATE TABLE mysql.t (id INT NOT NULL PRIMARY KEY);", "makes it in database mysql"),
    ("CREATE TABLE t (id INT NOT NULL PRIMARY KEY);\nCREATE INDEX i ON other.t (id);", "makes it in database other"),
    ("CREATE TABLE t (id INT NOT NULL PRIMARY KEY) SELECT user AS id FROM mysql.user;", "has SELECT after its columns"),
    ("CREATE TABLE t (id INT NOT NULL PRIMARY KEY) DATA DIRECTORY = '/tmp/x';", "has DIRECTORY after"),
    ("-- nothing here\n", "holds no CREATE TABLE"),
])
def test_a_schema_file_cannot_reach_outside_its_table(tmp_path, ddl_text, words):
    """A hostile schema file: another database, CREATE ... SELECT from the grant tables, a
    data directory elsewhere: refused at parse time, before a server exists."""
    (tmp_path / "t.sql").write_text(ddl_text)
    (tmp_path / "w.toml").write_text(textwrap.dedent("""
        format = 1
        operations = 6
        [tables.t]
        schema = "t.sql"
        rows = 10
        [[streams]]
        name = "r"
        table = "t"
        op = "read"
        share = 1
    """))
    with pytest.raises(UsageError, match=words):
        parse_file(tmp_path / "w.toml")


def test_the_ddl_reader():
    from loadgen.seeding.dataset import schema_text
    from loadgen.workload import tabledefs

    sb = tabledefs.shape(schema_text("sbtest"), "sbtest1")
    assert list(sb.columns) == ["id", "k", "c", "pad"] and sb.primary_key == ["id"] and sb.indexes == {"k_1": ["k"]}
    idx = tabledefs.shape(schema_text("chat_idx"), "message")
    assert idx.indexes == {"channel_created": ["channel_id", "created_at"]} and idx.leading("channel_id")
    inline = tabledefs.shape("CREATE TABLE `x` (`a` BIGINT PRIMARY KEY, b VARCHAR(3) UNIQUE, c DECIMAL(10, 2),"
                       " CONSTRAINT c1 CHECK (c > 0), INDEX (c));", "x")
    assert inline.primary_key == ["a"] and inline.indexes == {"b": ["b"],
                                                              "c": ["c"]} and inline.columns["c"] == "DECIMAL"


def test_a_trace_is_read_through_before_anything_starts(tmp_path):
    (tmp_path / "keys.txt").write_text("1\n2\nroot:x:0:0\n")
    text = textwrap.dedent("""
        format = 1
        operations = 6
        [tables.usertable]
        schema = "ycsb"
        rows = 10
        [[streams]]
        name = "r"
        table = "usertable"
        op = "read"
        keys = "trace:keys.txt"
        share = 1
    """)
    (tmp_path / "w.toml").write_text(text)
    with pytest.raises(UsageError, match="line 3: .* is not an integer key"):
        parse_file(tmp_path / "w.toml")
    (tmp_path / "keys.txt").write_text("100\n200\n")
    with pytest.raises(UsageError, match="no key inside the table's 1..10"):
        parse_file(tmp_path / "w.toml")
    (tmp_path / "keys.txt").write_text("5\n200\n")
    spec = parse_file(tmp_path / "w.toml")
    with pytest.raises(UsageError, match="no key inside the table's 1..4"):
        Generator(spec.with_overrides(rows=4))  # --rows after the file was read


def test_special_keys_follow_sysbenchs_own(tmp_path):
    """sysbench 1.0's --rand-type=special, sampled by sysbench itself, against special_keys: the
    same distribution (two-sample Kolmogorov-Smirnov, alpha 0.001)."""
    import shutil
    import subprocess

    if shutil.which("sysbench") is None:
        pytest.skip("no sysbench (make deps installs it)")
    script = tmp_path / "rnd.lua"
    script.write_text("function event()\n  local t = {}\n"
                      "  for i = 1, 1000 do t[i] = sysbench.rand.default(1, 100000) end\n"
                      "  print('k' .. table.concat(t, '\\nk'))\nend\n")
    out = subprocess.run(["sysbench", "--events=100", "--threads=1", str(script), "run"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path).stdout
    theirs = np.sort(np.array([int(w[1:]) for w in out.split() if w[:1] == "k" and w[1:].isdigit()], dtype=float))
    assert theirs.size == 100_000
    ours = np.sort(opstream.special_keys(11, 0, theirs.size, 100_000).astype(float))
    grid = np.union1d(theirs, ours)
    d = np.abs(np.searchsorted(theirs, grid, side="right") - np.searchsorted(ours, grid,
                                                                             side="right")).max() / theirs.size
    assert d < 1.95 * math.sqrt(2 / theirs.size), d

"""Built-in workloads: YCSB's core workloads A-F and sysbench 1.0's OLTP scripts, as mix files.

Each preset is the text of a workload file (mix.py's format), so `--workload ycsb-a` and a file
with the same text run the same thing; `presets.text(name)` shows it (docs/workloads.md).

YCSB (core/workloads/workload[a-f] of brianfrankcooper/YCSB, CoreWorkload's defaults) on
schema/ycsb.sql's usertable: a key and 10 fields of 100 bytes.
  A  update heavy  read 0.5, update 0.5                    zipfian
  B  read mostly   read 0.95, update 0.05                  zipfian
  C  read only     read 1.0                                zipfian
  D  read latest   read 0.95 (latest), insert 0.05         latest
  E  short ranges  scan 0.95 (1..100 rows, uniform), insert 0.05   zipfian
  F  read-modify-write  read 0.5, read-modify-write 0.5    zipfian
Where loadgen differs: the key is the record number (BIGINT), not YCSB's hashed "user..." string;
inserts go at the end of the key space (YCSB's default insertorder=hashed scatters them); an
update sets field0 (YCSB picks one of the 10 fields at random: the same page either way).

sysbench 1.0 (oltp_common.lua, oltp_read_only.lua, oltp_read_write.lua) on schema/sbtest.sql's
sbtest1, per transaction: 10 point selects, one each of the simple, sum, order and distinct
ranges of 100 rows; read/write adds an index update (k = k + 1), a non-index update (c) and a
delete + insert of the same id. Keys follow sysbench 1.0's default --rand-type=special. Each
statement runs in autocommit here (sysbench wraps a transaction in BEGIN/COMMIT); the shares are
the statements' proportions in sysbench's transaction.
"""
from __future__ import annotations

import os

from ..errors import UsageError
from .mix import MixSpec
from .mixfile import parse

DEFAULT_ROWS = 300_000

_YCSB_TABLE = """format = 1
seed = 1
operations = {operations}
description = "{description}"

[tables.usertable]
schema = "ycsb"
rows = {rows}
"""

_SBTEST_TABLE = """format = 1
seed = 1
operations = {operations}
description = "{description}"

[tables.sbtest1]
schema = "sbtest"
rows = {rows}
"""


def _stream(name: str, op: str, share: str, keys: str | None, extra: str = "", table: str = "usertable") -> str:
    keys_line = f'keys = "{keys}"\n' if keys else ""
    return f'\n[[streams]]\nname = "{name}"\ntable = "{table}"\nop = "{op}"\n{keys_line}share = {share}\n{extra}'


def _sb(name: str, op: str, share: str, extra: str = "") -> str:
    return _stream(name, op, share, None if op == "insert" else "special", extra, table="sbtest1")


_SB_RO = (
    _sb("point_selects", "read", "{point}", 'columns = ["c"]\n')
    + _sb("simple_ranges", "range", "{one}", 'length = 100\nform = "simple"\ncolumns = ["c"]\n')
    + _sb("sum_ranges", "range", "{one}", 'length = 100\nform = "sum"\ncolumn = "k"\n')
    + _sb("order_ranges", "range", "{one}", 'length = 100\nform = "order"\ncolumn = "c"\n')
    + _sb("distinct_ranges", "range", "{one}", 'length = 100\nform = "distinct"\ncolumn = "c"\n')
)

PRESETS: dict[str, tuple[str, str]] = {
    "ycsb-a": ("YCSB workload A: update heavy, 50/50 read/update, zipfian",
               _YCSB_TABLE + _stream("read", "read", "0.5", "zipfian")
               + _stream("update", "update", "0.5", "zipfian", 'column = "field0"\n')),
    "ycsb-b": ("YCSB workload B: read mostly, 95/5 read/update, zipfian",
               _YCSB_TABLE + _stream("read", "read", "0.95", "zipfian")
               + _stream("update", "update", "0.05", "zipfian", 'column = "field0"\n')),
    "ycsb-c": ("YCSB workload C: read only, zipfian",
               _YCSB_TABLE + _stream("read", "read", "1.0", "zipfian")),
    "ycsb-d": ("YCSB workload D: read latest, 95/5 read/insert",
               _YCSB_TABLE + _stream("read", "read", "0.95", "latest")
               + _stream("insert", "insert", "0.05", None)),
    "ycsb-e": ("YCSB workload E: short ranges, 95/5 scan (1..100 rows)/insert, zipfian",
               _YCSB_TABLE + _stream("scan", "range", "0.95", "zipfian", 'length = "uniform:1..100"\n')
               + _stream("insert", "insert", "0.05", None)),
    "ycsb-f": ("YCSB workload F: read-modify-write, 50/50 read/read-modify-write, zipfian",
               _YCSB_TABLE + _stream("read", "read", "0.5", "zipfian")
               + _stream("read_modify_write", "read-modify-write", "0.5", "zipfian", 'column = "field0"\n')),
    "sysbench-oltp-ro": ("sysbench 1.0 oltp_read_only: 10 point selects, 4 ranges of 100 rows per transaction",
                         _SBTEST_TABLE + _SB_RO.replace("{point}", repr(10 / 14)).replace("{one}", repr(1 / 14))),
    "sysbench-oltp-rw": ("sysbench 1.0 oltp_read_write: oltp_read_only's statements, an index update, "
                         "a non-index update and a delete + insert per transaction",
                         _SBTEST_TABLE
                         + (_SB_RO + _sb("index_updates", "update", "{one}", 'column = "k"\n')
                            + _sb("non_index_updates", "update", "{one}", 'column = "c"\n')
                            + _sb("delete_inserts", "delete-insert", "{one}"))
                         .replace("{point}", repr(10 / 17)).replace("{one}", repr(1 / 17))),
}


def is_preset(name: str) -> bool:
    return name in PRESETS


def text(name: str, rows: int = DEFAULT_ROWS, operations: int | None = None) -> str:
    """The preset as a workload file; operations default to the table's rows."""
    if name not in PRESETS:
        raise UsageError(f"unknown preset {name!r}", f"choose one of: {', '.join(PRESETS)}, or give a workload file")
    description, template = PRESETS[name]
    return (template.replace("{operations}", str(operations or rows)).replace("{rows}", str(rows))
            .replace("{description}", description))


def load(name: str, rows: int | None = None, operations: int | None = None) -> MixSpec:
    """A preset's spec at `rows` (default DEFAULT_ROWS) and `operations` (default: rows)."""
    return parse(text(name, rows or DEFAULT_ROWS, operations), source=f"preset {name}")


def resolve(workload: str, rows: int | None = None, operations: int | None = None, seed: int | None = None) -> MixSpec:
    """--workload NAME|FILE with --rows, --queries and --seed over what it says."""
    from .mixfile import parse_file

    if is_preset(workload):
        spec = load(workload, rows, operations)
        return spec.with_overrides(seed=seed)
    if not os.path.lexists(workload):  # here, not in mixfile.py: the presets are this module's
        raise UsageError(f"cannot read workload {workload}: no such file, and no preset of that name",
                         f"give a workload file (TOML) or a preset: {', '.join(PRESETS)}")
    return parse_file(workload).with_overrides(seed=seed, operations=operations, rows=rows)

"""MySQL's change buffer as the mix model takes it (native/lrusim/ibuf.h; docs/workloads-lab.md,
"MySQL's change buffer").

Where `innodb_change_buffering` is on (Debian's MySQL 9.7.4 starts with `all`, 8.4 with `none`),
a change to a non-unique secondary index's leaf that is not in the pool goes to the change
buffer instead of a read of the leaf (ibuf0ibuf.cc ibuf_insert; btr_cur_search_to_nth_level asks
for the leaf BUF_GET_IF_IN_POOL): an insert of an entry (IBUF_OP_INSERT), its delete-mark
(IBUF_OP_DELETE_MARK) and purge's removal (IBUF_OP_DELETE); the setting names which
(row0row/ha_innodb's innodb_change_buffering: inserts, deletes = delete-marks, changes = both,
purges, all). The buffered changes are merged when the leaf is next read, or by the master
thread once a second (ibuf_merge_in_background, PCT_IO(5): 5% of innodb_io_capacity pages a
second). MariaDB: 10.11 starts with none and 11.x has no change buffer; the model gives it none
(its predictions unchanged to the page).
"""
from __future__ import annotations

from .dirtypages import MYSQL_IO_CAPACITY
from .mixpages import BUFFER, PURGE
from .pool import RA_RULE_MYSQL

# what each setting buffers (ha_innodb.cc innodb_change_buffering_names, ibuf_use_t)
KINDS = {"none": frozenset(), "inserts": frozenset({"insert"}), "deletes": frozenset({"delete-mark"}),
         "changes": frozenset({"insert", "delete-mark"}), "purges": frozenset({"purge"}),
         "all": frozenset({"insert", "delete-mark", "purge"})}
MERGE_IO_PCT = 5  # ibuf_merge_in_background(false): PCT_IO(5) pages a second
DEFAULT_MAX_SIZE_PCT = 25  # innodb_change_buffer_max_size
# a change buffer record of a small index (space id, marker, page number, counter/type/flags and
# the fields' type info, the entry's own fields, record header and directory): an estimate, which
# only matters where the buffer fills (at 16M it held 3 pages in sysbench-oltp-rw)
ENTRY_BYTES = 48
PAGE_BYTES = 16384


def buffered_kinds(run: dict) -> frozenset:
    """What the run's server buffered: {"insert", "delete-mark", "purge"} as its setting says;
    none on MariaDB and where the run did not record the setting."""
    srv = run.get("server") or {}
    return kinds_of(srv.get("flavor") or "mariadb", (srv.get("variables") or {}).get("innodb_change_buffering"))


def kinds_of(flavor: str, mode: str | None) -> frozenset:
    """What a server of this flavour buffers with innodb_change_buffering=mode (None: none); none on
    MariaDB (the model's rules give it no change buffer)."""
    if flavor != "mysql":
        return frozenset()
    return KINDS.get(str(mode or "none").lower(), frozenset())


def takes(kinds: frozenset, changes: tuple[str, ...]) -> bool:
    """A leaf reference standing for these changes is buffered only if each of them is (an
    update of k = k + 1 is one reference for its delete-mark and its insert beside it)."""
    return bool(kinds) and all(c in kinds for c in changes)


def flag(kinds: frozenset, unique: bool, *changes: str) -> int:
    """The kernel's flags on a leaf reference standing for these changes: BUFFER where the change
    buffer takes them all (never a UNIQUE index's: ibuf_should_try), with PURGE on purge's removal."""
    if unique or not takes(kinds, changes):
        return 0
    return BUFFER | (PURGE if "purge" in changes else 0)


def kernel_args(run: dict, pool, kinds: frozenset) -> tuple[int, int]:
    """lrusim_mix's (ibuf_max, ibuf_merge): the entries the buffer holds at most and the pages the
    master thread merges a second; (0, 0) without a change buffer."""
    return pool_args(pool, kinds, (run.get("server") or {}).get("variables") or {})


def pool_args(pool, kinds: frozenset, var: dict) -> tuple[int, int]:
    """kernel_args from the server's variables (innodb_change_buffer_max_size, innodb_io_capacity;
    the defaults where absent)."""
    if not kinds or pool.ra_rule != RA_RULE_MYSQL:
        return (0, 0)
    pct = _number(var.get("innodb_change_buffer_max_size"), DEFAULT_MAX_SIZE_PCT)
    io = _number(var.get("innodb_io_capacity") or None, MYSQL_IO_CAPACITY)  # one default with the flush list
    max_pages = max(1, int(pool.pool_pages * pct / 100))
    return (max_pages * (PAGE_BYTES // ENTRY_BYTES), max(1, int(io * MERGE_IO_PCT / 100)))


def _number(value, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(default)


def result_block(sim, kinds: frozenset) -> dict:
    """The prediction's `change_buffer` (where the run's server had one): changes the model buffered,
    the leaves they were merged into, and of those the ones the master thread's merge read."""
    if not kinds:
        return {}
    return {"change_buffer": {"buffered": int(sim.ibuf_buffered), "merged_pages": int(sim.ibuf_merged),
                              "merge_reads": int(sim.ibuf_merge_reads)}}

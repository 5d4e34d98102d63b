"""The queried table's own share of the buffer pool, beside the global counters.

Innodb_buffer_pool_reads counts every tablespace (system, undo, other tables). Where the server
offers it, a run also records:
  - reads of the table's .ibd file: performance_schema.file_summary_by_instance, a delta over
    the run (needs performance_schema=ON: MySQL's default, MariaDB's with --set performance_schema=ON);
    with O_DIRECT each page read is one read of 16 KiB, read-ahead included;
  - pages of each of its indexes resident in the pool at the end:
    information_schema.INNODB_BUFFER_PAGE. Reading it walks the whole pool (~4 us per page)
    and the manuals warn against it on production, so on a server
    loadgen does not own it is read only for pools up to BUFFER_PAGE_MAX_POOL_BYTES;
  - pages of the table in the pool right before the run (resident_pages): what decides whether
    the run starts cold (runner.verify_cold). INNODB_BUFFER_PAGE_LRU walks the LRU list only (the
    data pages, not the whole pool), so it is cheap right after a cold start; on a server loadgen
    does not own it is read only while the LRU list holds up to LRU_READ_MAX_PAGES.
Any of them may be missing; the run's result is never lost for them.
"""
from __future__ import annotations

from .. import db

BUFFER_PAGE_MAX_POOL_BYTES = 1 << 30
PAGE_BYTES = 16384
# 1 GiB of data pages: the server copies its LRU list under the pool's mutex to answer.
LRU_READ_MAX_PAGES = BUFFER_PAGE_MAX_POOL_BYTES // PAGE_BYTES


def table_name(database: str, table: str) -> str:
    """The table as INNODB_BUFFER_PAGE(_LRU) name it (both servers): `db`.`tbl`."""
    return f"`{database}`.`{table}`"


def resident_pages(conn, database: str, table: str, pages_data: int | None, owned: bool) -> dict[str, int] | None:
    """{index: pages} of the table in the pool's LRU list now ({} when none), or None when it was
    not read: no PROCESS privilege, or someone else's pool holds more than LRU_READ_MAX_PAGES."""
    if not owned and (pages_data is None or pages_data > LRU_READ_MAX_PAGES):
        return None
    try:
        rows = db.query_all(
            conn, "SELECT INDEX_NAME, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE_LRU "
            "WHERE TABLE_NAME = %s GROUP BY INDEX_NAME", (table_name(database, table),))
    except Exception:  # noqa: BLE001 - no PROCESS privilege: the caller falls back to pages_data
        return None
    return {str(_text(k)): int(v) for k, v in rows}


def _file_rows(conn, database: str, table: str) -> tuple[int, int] | None:
    """(reads, bytes read) of the table's data files, or None without performance_schema."""
    try:
        if str(db.query_value(conn, "SELECT @@performance_schema")) not in ("1", "ON"):
            return None
        rows = db.query_all(
            conn, "SELECT COALESCE(SUM(COUNT_READ), 0), COALESCE(SUM(SUM_NUMBER_OF_BYTES_READ), 0) "
            "FROM performance_schema.file_summary_by_instance "
            "WHERE FILE_NAME LIKE %s OR FILE_NAME LIKE %s OR FILE_NAME LIKE %s",
            (f"%/{database}/{table}.ibd", f"%\\\\{database}\\\\{table}.ibd", f"%/{database}/{table}#p#%.ibd"))
    except Exception:  # noqa: BLE001 - no performance_schema, or no grant on it
        return None
    return (int(rows[0][0]), int(rows[0][1])) if rows else None


class TableReads:
    """Snapshot at construction (before the run), finish() after it; the dict is in .result."""

    def __init__(self, conn, database: str, table: str):
        self.database, self.table = database, table
        self.before = _file_rows(conn, database, table)
        self.result: dict | None = None

    def finish(self, server) -> None:
        try:
            conn = server.connect()
        except Exception:  # noqa: BLE001 - the server may be gone; the run's numbers still count
            return
        out: dict = {"database": self.database, "table": self.table}
        try:
            after = _file_rows(conn, self.database, self.table) if self.before is not None else None
            if after is not None:
                reads, read_bytes = after[0] - self.before[0], after[1] - self.before[1]
                out.update(file_reads=reads, file_bytes_read=read_bytes, file_pages_read=read_bytes // PAGE_BYTES,
                           file_source="performance_schema.file_summary_by_instance")
            pool = int(db.query_value(conn, "SELECT @@innodb_buffer_pool_size") or 0)
            if getattr(server, "owned", True) or pool <= BUFFER_PAGE_MAX_POOL_BYTES:
                rows = db.query_all(
                    conn, "SELECT INDEX_NAME, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE "
                    "WHERE TABLE_NAME = %s GROUP BY INDEX_NAME", (table_name(self.database, self.table),))
                out["resident_pages_at_end"] = {str(_text(k)): int(v) for k, v in rows}
        except Exception:  # noqa: BLE001 - optional figures
            pass
        finally:
            conn.close()
        if len(out) > 2:
            self.result = out


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


# -- every table of a mixed run (#21) ------------------------------------------------------------
def _table_io(conn, database: str, table: str) -> dict[str, int] | None:
    """Rows the engine fetched/inserted/updated/deleted in the table so far (performance_schema's
    table_io_waits_summary_by_table), or None without it."""
    try:
        rows = db.query_all(
            conn, "SELECT COUNT_FETCH, COUNT_INSERT, COUNT_UPDATE, COUNT_DELETE FROM "
            "performance_schema.table_io_waits_summary_by_table WHERE OBJECT_SCHEMA = %s AND OBJECT_NAME = %s",
            (database, table))
    except Exception:  # noqa: BLE001 - no performance_schema, or no grant on it
        return None
    if not rows:
        return None
    return dict(zip(("rows_fetched", "rows_inserted", "rows_updated", "rows_deleted"), (int(v) for v in rows[0])))


class TablesReads:
    """TableReads for several tables at once: each one's .ibd reads and row counts over the run,
    and the pages of each of its indexes left in the pool (one walk of INNODB_BUFFER_PAGE).
    Snapshot at construction, finish() after the run; .result is {"db.table": {...}}."""

    def __init__(self, conn, tables: list[tuple[str, str]]):
        self.tables = tables
        self.before = {t: (_file_rows(conn, *t), _table_io(conn, *t)) for t in tables}
        self.files_before = _all_files(conn)
        self.result: dict[str, dict] = {}
        self.files: dict[str, int] = {}  # every InnoDB file's pages read over the run (undo, system, ...)

    def finish(self, server) -> None:
        try:
            conn = server.connect()
        except Exception:  # noqa: BLE001 - the server may be gone; the run's numbers still count
            return
        try:
            for (database, table), (files, io) in self.before.items():
                out: dict = {"database": database, "table": table}
                after = _file_rows(conn, database, table) if files is not None else None
                if after is not None:
                    read_bytes = after[1] - files[1]
                    out.update(file_reads=after[0] - files[0], file_bytes_read=read_bytes,
                               file_pages_read=read_bytes // PAGE_BYTES,
                               file_source="performance_schema.file_summary_by_instance")
                io_after = _table_io(conn, database, table) if io is not None else None
                if io_after is not None:
                    out.update({k: io_after[k] - io[k] for k in io_after})
                self.result[f"{database}.{table}"] = out
            after_files = _all_files(conn) if self.files_before is not None else None
            if after_files is not None:
                for path, read_bytes in after_files.items():
                    pages = (read_bytes - self.files_before.get(path, 0)) // PAGE_BYTES
                    if pages > 0:
                        self.files[path] = pages
            pool = int(db.query_value(conn, "SELECT @@innodb_buffer_pool_size") or 0)
            if getattr(server, "owned", True) or pool <= BUFFER_PAGE_MAX_POOL_BYTES:
                names = {f"`{d}`.`{t}`": f"{d}.{t}" for d, t in self.tables}
                rows = db.query_all(
                    conn, "SELECT TABLE_NAME, INDEX_NAME, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE "
                    "WHERE TABLE_NAME IN (" + ", ".join(["%s"] * len(names)) + ") GROUP BY TABLE_NAME, INDEX_NAME",
                    tuple(names))
                for name, index, count in rows:
                    key = names.get(_text(name))
                    if key is not None:
                        self.result[key].setdefault("resident_pages_at_end", {})[_text(index)] = int(count)
        except Exception:  # noqa: BLE001 - optional figures
            pass
        finally:
            conn.close()


def _all_files(conn) -> dict[str, int] | None:
    """Bytes read so far from each InnoDB data file (tables, system tablespace, undo), by the
    file's name below the datadir; None without performance_schema."""
    try:
        if str(db.query_value(conn, "SELECT @@performance_schema")) not in ("1", "ON"):
            return None
        rows = db.query_all(conn, "SELECT FILE_NAME, SUM_NUMBER_OF_BYTES_READ "
                                  "FROM performance_schema.file_summary_by_instance "
                                  "WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_data_file'")
    except Exception:  # noqa: BLE001 - no performance_schema, or no grant on it
        return None
    out: dict[str, int] = {}
    for name, read_bytes in rows:
        parts = _text(name).replace("\\", "/").split("/")
        short = "/".join(parts[-2:]) if parts[-1].endswith(".ibd") else parts[-1]
        out[short] = out.get(short, 0) + int(read_bytes or 0)
    return out

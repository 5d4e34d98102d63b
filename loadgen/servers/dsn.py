"""An existing server the user points us at: `--dsn mysql://user[:password]@host[:port]/`.

We do not own it, so we never stop it. A cold pool is made by resizing where the server allows
it (MariaDB: shrink to the minimum and grow back); otherwise the run is reported as warm.
"""
from __future__ import annotations

import os
import time
from urllib.parse import unquote, urlparse

from .. import db
from ..db import Endpoint
from ..errors import ProvisionError, UsageError
from ..units import format_bytes
from . import MIN_POOL_BYTES, ColdStart, Server, check_pool_minimum
from ..shield import Insisted, shielded


def parse_dsn(dsn: str) -> Endpoint:
    """mysql://user:pw@host:port/ -> Endpoint; the password may come from LOADGEN_PASSWORD."""
    url = urlparse(dsn)
    if url.scheme not in ("mysql", "mariadb", "mysql+mysqldb") or not url.hostname:
        raise UsageError(f"--dsn {_redact(dsn)} is not a DSN", "use mysql://user@host:port/")
    password = unquote(url.password) if url.password is not None else os.environ.get("LOADGEN_PASSWORD", "")
    try:
        port = url.port or 3306
    except ValueError:
        raise UsageError(f"--dsn {_redact(dsn)} has a bad port", "use mysql://user@host:port/") from None
    query = dict(p.split("=", 1) for p in url.query.split("&") if "=" in p)
    return Endpoint(host=url.hostname, port=port, user=unquote(url.username or "root"), password=password,
                    unix_socket=query.get("unix_socket"))


def _redact(dsn: str) -> str:
    url = urlparse(dsn)
    if url.password is None:
        return dsn
    return dsn.replace(f":{url.password}@", ":***@")


# Before a MariaDB shrink whose pages would all fit in the smaller pool (_fill): the pool it is
# grown to first, and the leaves read into it (twice the 379 pages of a 6 MiB pool).
FILL_POOL_BYTES = 64 << 20
FILL_PAGES = 760
# A filled shrink usually leaves none of the table (a dozen of the server's own pages), but not
# always: one left 97 of the table's pages at 16M and the run started warm, another 17. With more
# than SHRINK_KEPT_TABLE_PAGES of the table left (its root and an upper page may stay), the fill
# and the shrink are tried again, up to SHRINK_TRIES times in all.
SHRINK_KEPT_TABLE_PAGES = 2
SHRINK_TRIES = 3
# The one sure way to a cold pool on a server loadgen does not own.
RESTART_FIX = "restart the server right before the run (loadgen never restarts a server it does not own)"
# ... unless the server dumps its pool at shutdown and loads it back at start-up (both servers'
# default): then the restart is warm too (MySQL 9.7.4: 28-184 of a test table's pages were back
# before the first query, depending on how far the background load had got).
RELOAD_FIX = ("restart the server right before the run with innodb_buffer_pool_load_at_startup=OFF, or run "
              "SET GLOBAL innodb_buffer_pool_dump_at_shutdown=OFF before restarting it (it reloads the pages "
              "it dumped at shutdown; loadgen never restarts a server it does not own)")


class DsnServer(Server):
    provider = "dsn"
    owned = False

    def __init__(self, dsn: str, pool_bytes: int | None = None, say=None):
        self.endpoint = parse_dsn(dsn)
        self.pool_bytes = pool_bytes
        self.say = say or (lambda _msg: None)
        self.fill_scan: tuple[str, str, float] | None = None  # (database, table, rows per leaf)
        self.pool_bytes_seen: int | None = None

    def will_query(self, database: str, table: str, rows_per_leaf: float) -> None:
        self.fill_scan = (database, table, max(1.0, rows_per_leaf))

    def start(self) -> None:
        conn = db.connect(self.endpoint)
        try:
            self.flavor = db.server_flavor(conn)
            if self.pool_bytes:
                self._resize(conn, self.pool_bytes)
            self.pool_bytes_seen = _pool_size(conn)  # for the line that says which server this is
        finally:
            conn.close()

    def _resize(self, conn, pool_bytes: int) -> None:
        """Set the pool and read back what the server made of it: MySQL resizes only in whole
        chunks (innodb_buffer_pool_chunk_size x instances) and ignores a size below one chunk
        without an error, so a request it cannot honour is refused here, and a rounded one said."""
        check_pool_minimum(pool_bytes, self.flavor.name)
        current = _pool_size(conn)
        if current == pool_bytes:
            return
        unit = _resize_unit(conn, self.flavor.name)
        if unit and pool_bytes < unit:
            raise UsageError(
                f"the server resizes its pool online only in steps of {format_bytes(unit)} "
                f"(innodb_buffer_pool_chunk_size x instances); --pool {format_bytes(pool_bytes)} cannot be set, "
                f"the pool stays {format_bytes(current)}",
                f"use --pool {unit >> 20}M or a multiple of it, or restart the server with "
                f"--innodb-buffer-pool-size={pool_bytes >> 20}M and omit --pool",
            )
        try:
            got = _set_pool(conn, pool_bytes)
        except Exception as exc:  # noqa: BLE001 - any refusal is the user's server saying no: one line with the fix
            raise ProvisionError(
                f"the server's pool is {format_bytes(current)} and resizing it to {format_bytes(pool_bytes)} "
                f"failed: {db.error_text(exc)}",
                "omit --pool to use the server as it is, or restart it with the size you want",
            ) from None
        if got != pool_bytes:
            if got == current:
                raise UsageError(
                    f"the server kept its pool at {format_bytes(current)} when asked for {format_bytes(pool_bytes)}",
                    "omit --pool to use the server as it is, or restart it with the size you want")
            self.say(f"the server made the pool {format_bytes(got)}, not {format_bytes(pool_bytes)} "
                     f"(rounded to its resize step {format_bytes(unit) if unit else '?'})")

    def set_pool(self, pool_bytes: int) -> None:
        """Resize the running server (MariaDB resizes online; MySQL in chunks, also online)."""
        conn = db.connect(self.endpoint)
        try:
            self._resize(conn, pool_bytes)
        finally:
            conn.close()
        self.pool_bytes = pool_bytes

    def stop(self) -> None:
        """Not ours to stop."""

    def restart_cold(self, slow: bool = False) -> ColdStart:
        """Try to empty a pool we may not restart: shrink it to the minimum and grow it back, then
        read the sizes and pages_data back and record what was achieved. A shrink evicts only what
        does not fit in the smaller pool (MariaDB 10.11.19 here: a 165-page table stayed whole
        through 16M -> 6M -> 16M), MySQL cannot shrink below one chunk, and MariaDB can abort a
        resize: so what this returns is a claim, and the runner decides from the pool's contents
        right before the first query (runner.verify_cold)."""
        conn = db.connect(self.endpoint)
        try:
            size = _pool_size(conn)
            details = {"pool_bytes_before": size, "pages_data_before_attempt": _pages_data(conn)}
            restart_fix = _restart_fix(conn, details)
            if self.flavor.name == "mariadb" and self.flavor.version_tuple < (10, 11, 12):
                return ColdStart("none", False, f"MariaDB {self.flavor.version} resizes the pool asynchronously: "
                                 "the pool was not emptied (an existing server we do not own)", details,
                                 fix=f"{restart_fix}, or use MariaDB 10.11.12 or later, whose resize loadgen uses")
            target = MIN_POOL_BYTES.get(self.flavor.name, 6 << 20)
            error = None
            try:
                try:
                    fill = self.flavor.name == "mariadb" and (details["pages_data_before_attempt"] or 0) <= target >> 14
                    for attempt in range(1, (SHRINK_TRIES if fill and self.fill_scan else 1) + 1):
                        if fill:
                            self._fill(conn, size, details)
                        details["pool_bytes_shrunk"] = _set_pool(conn, target)
                        details["pages_data_shrunk"] = _pages_data(conn)
                        details["shrink_attempts"] = attempt
                        kept = self._fill_table_pages(conn) if fill and self.fill_scan else None
                        details["table_pages_shrunk"] = kept
                        if kept is None or kept <= SHRINK_KEPT_TABLE_PAGES:
                            break
                except Exception as exc:  # noqa: BLE001 - recorded below
                    error = db.error_text(exc)
            finally:  # also on Ctrl-C: the user's server gets its pool back
                failed = self._give_pool_back(conn, size, details)
                if failed:
                    error = (error + "; " if error else "") + f"growing back failed: {failed}"
            details["pages_data_after"] = _pages_data(conn)
            if details["pool_bytes_after"] is None:
                self.say(f"warning: loadgen could not read the server's pool back after trying to empty it; it was "
                         f"{format_bytes(size)}: check SELECT @@GLOBAL.innodb_buffer_pool_size")
            elif details["pool_bytes_after"] != size:
                self.say(f"warning: the server's pool is now {format_bytes(details['pool_bytes_after'])}, "
                         f"it was {format_bytes(size)} before loadgen tried to empty it")
            shrunk = details.get("pool_bytes_shrunk")
            if error:
                return ColdStart("resize", False, f"could not empty the pool: {error}", details,
                                 fix=f"{restart_fix}, or connect as a user with SYSTEM_VARIABLES_ADMIN (or SUPER) "
                                     "so loadgen can shrink the pool")
            if shrunk is None or shrunk >= size:
                unit = _resize_unit(conn, self.flavor.name)
                return ColdStart("resize", False, f"the server kept its pool at {format_bytes(size)} when asked to "
                                 f"shrink it to {format_bytes(target)}"
                                 + (f" (its resize step is {format_bytes(unit)}: one chunk)" if unit else "")
                                 + ": nothing was evicted", details,
                                 # measured on MySQL 9.7.4 with 8 MiB chunks: 503 of the table's pages
                                 # stayed through a shrink to 8 MiB, so more chunks are no fix
                                 fix=f"{restart_fix}; a pool of more chunks would not do, as a shrink keeps the "
                                     "most recently used pages that fit in the smaller pool")
            kept = details.get("pages_data_shrunk")
            return ColdStart("resize", True, f"pool shrunk to {format_bytes(shrunk)} and grown back to "
                             f"{format_bytes(details['pool_bytes_after'])}; {kept if kept is not None else '?'} "
                             "of the most recently used pages stayed", details,
                             fix=f"{restart_fix}: a shrink to {format_bytes(shrunk)} keeps the most recently used "
                                 "pages that fit in it")
        finally:
            conn.close()

    def _give_pool_back(self, conn, size: int, details: dict) -> str | None:
        """Set the pool back to `size` and record what it is (pool_bytes_after; None if unknown);
        returns why that failed. A Ctrl-C or SIGTERM that lands between a query and its result
        leaves `conn` out of sync (2014 on every later query): a fresh connection then does it,
        and the interrupt, not the 2014, is what the caller sees. A Ctrl-C while this runs waits
        for it (loadgen/shield.py); one insisted on stops it, and what to set by hand is said."""
        try:
            with shielded(f"giving the server its pool of {format_bytes(size)} back", self.say):
                return self._set_pool_back(conn, size, details)
        except Insisted:
            details["pool_bytes_after"] = None
            self.say(f"warning: stopped before the server's pool was given back: it may stay smaller; run "
                     f"SET GLOBAL innodb_buffer_pool_size = {size} on it ({format_bytes(size)}, as it was)")
            raise

    def _set_pool_back(self, conn, size: int, details: dict) -> str | None:
        why = None
        for fresh in (False, True):
            try:
                c = db.connect(self.endpoint) if fresh else conn
                try:
                    now = _pool_size(c)
                    details["pool_bytes_after"] = now if now == size else _set_pool(c, size)
                    return None
                finally:
                    if fresh:
                        c.close()
            except Exception as exc:  # noqa: BLE001 - said in the ColdStart note
                why = db.error_text(exc)
        details["pool_bytes_after"] = None
        return why

    def _fill(self, conn, size: int, details: dict) -> None:
        """Make a MariaDB shrink evict. MariaDB 10.11.12+ evicts on a shrink only when the LRU list
        does not fit in the smaller pool, and then all of it (measured on 10.11.19: 978 data pages
        -> 2 at 32M -> 6M, 188 -> 188 at 16M -> 6M); its page cleaner keeps the LRU list of an
        8-16 MiB pool at 256 pages or fewer, which always fit in 6 MiB's 379 pages. So before the
        shrink the pool is grown to FILL_POOL_BYTES and FILL_PAGES of the queried table's leaves
        are read (a primary-key scan of that many leaves' rows, a fraction of a second), and then
        no longer fit. Nothing is done without a table to read (the runner names it)."""
        if self.fill_scan is None:
            return
        database, table, rows_per_leaf = self.fill_scan
        if size < FILL_POOL_BYTES:
            try:
                _set_pool(conn, FILL_POOL_BYTES)
            except Exception:  # noqa: BLE001 - a server that cannot grow: read into the pool it has
                pass
        rows = int(rows_per_leaf * FILL_PAGES) + 1
        db.query_all(conn, f"SELECT COUNT(*) FROM (SELECT 1 FROM `{database}`.`{table}` FORCE INDEX (PRIMARY) "
                           f"LIMIT {rows}) AS loadgen_fill")
        details["pages_data_filled"] = _pages_data(conn)

    def _fill_table_pages(self, conn) -> int | None:
        """Pages of the fill's table in the (shrunk, small) pool's LRU list; None when they cannot be
        counted (no PROCESS privilege): then one try is all there is, and the runner judges the start."""
        database, table, _ = self.fill_scan
        try:
            return int(db.query_value(conn, "SELECT COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE_LRU "
                                            "WHERE TABLE_NAME = %s", (f"`{database}`.`{table}`",)) or 0)
        except Exception:  # noqa: BLE001 - no PROCESS privilege
            return None

    def alive(self) -> bool:
        try:
            db.connect(self.endpoint).close()
            return True
        except ProvisionError:
            return False

    def describe(self) -> dict:
        return {"provider": self.provider, "endpoint": f"{self.endpoint.host}:{self.endpoint.port}"}



def _restart_fix(conn, details: dict) -> str:
    """RESTART_FIX, or RELOAD_FIX where a restart would bring the pool back (recorded in details)."""
    try:
        variables = db.global_variables(conn, ["innodb_buffer_pool_dump_at_shutdown",
                                               "innodb_buffer_pool_load_at_startup"])
    except Exception:  # noqa: BLE001 - not knowing, the plain fix
        return RESTART_FIX
    reloads = all(str(variables.get(k, "")).upper() in ("ON", "1") for k in variables) and len(variables) == 2
    details["reloads_pool_at_restart"] = reloads
    return RELOAD_FIX if reloads else RESTART_FIX


def _pool_size(conn) -> int:
    return int(db.query_value(conn, "SELECT @@GLOBAL.innodb_buffer_pool_size"))


def _pages_data(conn) -> int | None:
    rows = db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_data'")
    return int(rows[0][1]) if rows else None


def _resize_unit(conn, flavor_name: str) -> int | None:
    """MySQL's online resize step: chunk size x instances (MariaDB 10.11.12+ resizes in 1 MiB steps)."""
    if flavor_name != "mysql":
        return None
    variables = db.global_variables(conn, ["innodb_buffer_pool_chunk_size", "innodb_buffer_pool_instances"])
    chunk = int(variables.get("innodb_buffer_pool_chunk_size") or 0)
    return chunk * int(variables.get("innodb_buffer_pool_instances") or 1) or None


def _set_pool(conn, pool_bytes: int, timeout_s: float = 120.0) -> int:
    """SET GLOBAL innodb_buffer_pool_size and wait until the resize is over (MySQL resizes in the
    background; MariaDB 10.11.12+ returns when done). Returns the size the server reports after."""
    db.query_all(conn, f"SET GLOBAL innodb_buffer_pool_size = {int(pool_bytes)}")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = dict((str(k), str(v)) for k, v in db.query_all(
            conn, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_resize_status%'"))
        code = rows.get("Innodb_buffer_pool_resize_status_code")
        # MySQL 8.0.31+: code 0 = no resize in progress; older servers only say it in words.
        if code is not None and code.strip() in ("", "0"):
            break
        if code is None:
            break  # MariaDB 10.11.12+ resizes synchronously: done when SET GLOBAL returns
        time.sleep(0.1)  # polling the server's own resize status with a deadline
    return _pool_size(conn)

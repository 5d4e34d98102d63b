"""Where the MySQL server comes from: one Server interface, one module per provider.

Providers:
  local   a mariadbd/mysqld we start in a private datadir (the embedded default)
  docker  a container (testcontainers), see docker.py
  dsn     an existing server the user points us at
A server kept alive between commands (`loadgen up`) is a local or docker server whose handle is
saved in a state file (state.py).
"""
from __future__ import annotations

import abc
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..db import Endpoint, Flavor

# Variables recorded with every run, so a result says which server it measured.
RECORDED_VARIABLES = [
    "innodb_buffer_pool_size",
    "innodb_page_size",
    "innodb_flush_method",
    "innodb_old_blocks_pct",
    "innodb_old_blocks_time",
    "innodb_lru_scan_depth",
    "innodb_read_ahead_threshold",
    "innodb_random_read_ahead",
    "innodb_adaptive_hash_index",
    "innodb_buffer_pool_instances",
    "innodb_buffer_pool_load_at_startup",
    "innodb_buffer_pool_dump_at_shutdown",
    "log_bin",
    "version",
    "version_comment",
]

# The settings every server we start gets, and why:
#  - O_DIRECT: a miss must read storage, not the OS page cache, or it costs microseconds and hides
#    the effect being measured;
#  - no dump/load of the pool: each run must start cold, not from the last run's pages;
#  - no binary log: seeding should not pay for replication we do not do;
#  - adaptive hash index off: it turns h page gets into one and would blur read_requests
#    (already the default on MariaDB >= 10.5 and MySQL 8.4);
#  - local_infile: seeding streams rows with LOAD DATA LOCAL.
SERVER_SETTINGS = {
    "innodb_flush_method": "O_DIRECT",
    "innodb_buffer_pool_dump_at_shutdown": "OFF",
    "innodb_buffer_pool_load_at_startup": "OFF",
    "innodb_adaptive_hash_index": "OFF",
    "local_infile": "ON",
}

# The pool of a server we start when --pool is not given (MySQL's and MariaDB's own default).
DEFAULT_POOL_BYTES = 128 << 20

# Smallest pools the servers accept with 16 KiB pages: MariaDB refuses to start below 6 MiB,
# MySQL below 5 MiB (docs/innodb.md, "Pool sizes").
MIN_POOL_BYTES = {"mariadb": 6 << 20, "mysql": 5 << 20}


def server_flags(pool_bytes: int, options: dict[str, str], flavor_name: str) -> list[str]:
    """The command-line flags of a server we start (local or container): SERVER_SETTINGS, the
    pool, then --set options, which win over both."""
    settings = dict(SERVER_SETTINGS)
    settings["innodb_buffer_pool_size"] = str(pool_bytes)
    # Seeding writes a lot of redo; durability of each commit does not matter for a scratch
    # dataset (an interrupted seed resumes from what is committed).
    settings.setdefault("innodb_flush_log_at_trx_commit", "2")
    settings.update(options)
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in settings.items()]
    if flavor_name == "mariadb":
        flags.append("--skip-log-bin")
    else:
        flags += ["--disable-log-bin", "--mysqlx=OFF"]  # mysqlx: one less port to collide on
    return flags


def write_secret(path: Path, secret: str) -> None:
    """A password file: created 0600 (never readable by others, not even for a moment) and
    renamed into place, so a reader sees the whole password or no file."""
    tmp = path.with_suffix(".tmp")
    # O_NOFOLLOW: a symlink planted at the temporary name must not redirect the secret.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret)
    os.replace(tmp, path)


@dataclass
class ColdStart:
    """How the pool was emptied before a run: the result file reports it."""

    method: str  # "restart" | "resize" | "none"
    cold: bool  # what the method claims; the runner decides from the pool's contents (verify_cold)
    note: str = ""
    details: dict = field(default_factory=dict)  # what an attempt achieved (dsn: sizes, pages_data)
    fix: str = ""  # what makes the next start cold when this one was not (said when it was warm)


# A cold restart of a server loadgen owns stops it slowly (innodb_fast_shutdown=0): InnoDB purges
# all history and merges the whole change buffer before it stops. A fast stop leaves that work in
# the datadir, and the restarted server does it in the run's first seconds: MySQL 9.7 merged
# 61-153 change-buffered k_1 leaves of a 300k-row seed (reads of the table no query makes, dirty
# pages its first LRU batch writes) after the seed's restart (docs/workloads.md, "No seed work
# left for the run"). The restart waits for the work instead of the run seeing it.
def ask_slow_shutdown(server: Server) -> dict:
    """Set innodb_fast_shutdown=0 on a server about to be stopped for a cold restart; what it
    had left to do then (for the run's cold_start: history_len_at_stop, ibuf_size_at_stop). A
    server that cannot be reached or refuses (no SYSTEM_VARIABLES_ADMIN) stops fast: said in
    `shutdown`, never an error (the restart itself is what matters)."""
    from ..db import query_all

    try:
        conn = server.connect()
    except Exception as exc:  # noqa: BLE001 - a dead server: the restart will say why
        return {"shutdown": f"fast (could not connect: {str(exc)[:120]})"}
    try:
        out = _pending_work(conn)
        try:
            query_all(conn, "SET GLOBAL innodb_fast_shutdown = 0")
        except Exception as exc:  # noqa: BLE001 - not allowed: a fast stop, as before
            return {**out, "shutdown": f"fast ({str(exc.args[-1] if exc.args else exc)[:120]})"}
        return {**out, "shutdown": "slow"}
    finally:
        conn.close()


def _pending_work(conn) -> dict:
    """The history list's length (INNODB_METRICS trx_rseg_history_len, on by default on both
    servers) and the change buffer's size in pages (SHOW ENGINE INNODB STATUS "Ibuf: size N";
    MariaDB 11.x has no change buffer): what a slow stop will do; absent where not readable."""
    from ..db import query_all

    out: dict = {}
    for enabled in ("ENABLED = 1", "STATUS = 'enabled'"):  # MariaDB's column, MySQL 8+'s
        try:
            rows = query_all(conn, "SELECT COUNT FROM information_schema.INNODB_METRICS WHERE "
                             f"{enabled} AND NAME = 'trx_rseg_history_len'")
        except Exception:  # noqa: BLE001 - the other flavour's column, or no PROCESS privilege
            continue
        if rows and rows[0][0] is not None:
            out["history_len_at_stop"] = int(rows[0][0])
        break
    try:
        rows = query_all(conn, "SHOW ENGINE INNODB STATUS")
    except Exception:  # noqa: BLE001 - no PROCESS privilege
        rows = []
    text = rows[0][-1] if rows else ""
    text = text.decode(errors="replace") if isinstance(text, bytes) else str(text)
    found = re.search(r"^Ibuf: size (\d+)", text, re.M)
    if found:
        out["ibuf_size_at_stop"] = int(found.group(1))
    return out


@dataclass
class ServerSpec:
    """What the user asked for on the command line."""

    provider: str = "auto"  # auto | local | docker | dsn
    pool_bytes: int | None = None  # None: keep what the server has (dsn) or 128 MiB
    mysqld: str | None = None
    dsn: str | None = None
    image: str | None = None
    port: int | None = None
    options: dict[str, str] = field(default_factory=dict)  # extra server variables (--set)


class Server(abc.ABC):
    """A running server we can connect to, and (when it is ours) restart cold.

    Every provider (local, docker, dsn) has the same members, so the core never asks which one
    it holds: pool_bytes, set_pool(), datadir, home, restart_cold().
    """

    provider: str = "?"
    endpoint: Endpoint
    flavor: Flavor | None = None
    owned: bool = True  # we started it, so we may restart and stop it
    pool_bytes: int | None = None  # innodb_buffer_pool_size asked for (dsn: None keeps the server's)
    # who keeps it up, when that is another job (state.foreign_owner): used as it is, never
    # restarted, seeded into or stopped by this command
    foreign_owner: str | None = None
    # the server's own directory on this host (a local server's: datadir, logs, password), named
    # in seeding's errors; None for a server whose files are not ours to see
    home: Path | None = None
    already_up = False  # `loadgen up` found it running and reused it (provision.up)

    @property
    def datadir(self) -> Path | None:
        """The server's datadir on this host, for free-space checks; None when not ours to see."""
        return None

    @abc.abstractmethod
    def set_pool(self, pool_bytes: int) -> None:
        """Use this pool size from the next cold start on (dsn: resize the running server now)."""

    @abc.abstractmethod
    def start(self) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    @abc.abstractmethod
    def restart_cold(self, slow: bool = False) -> ColdStart:
        """Empty the buffer pool so the next run starts cold; slow: stop a server we own slowly
        (ask_slow_shutdown), as a mix run asks."""

    def will_query(self, database: str, table: str, rows_per_leaf: float) -> None:
        """The table the runs will query (dsn: restart_cold reads some of it so a shrink evicts)."""
        # a restart empties the pool whatever it held: only dsn, which cannot restart, needs to know
        return None

    def discard(self) -> None:
        """After stop(): remove the datadir this dataset was to live in (local: its cache home;
        docker: its volume), when the dataset can never be made (errors.SchemaRefused). Never on
        a server loadgen does not own or that `loadgen up` keeps."""
        return None

    def alive(self) -> bool:
        """True while the server process/container runs (dsn: while it answers)."""
        return True

    def diagnostics(self) -> str:
        """A few lines that say why the server died, for an error message."""
        return ""

    def describe(self) -> dict:
        return {"provider": self.provider}

    def connect(self, database: str | None = None, **extra):
        """A new autocommit connection to this server."""
        from ..db import connect

        return connect(self.endpoint, database, **extra)

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


LENT_FIX = ("give this job a state directory of its own (LOADGEN_STATE_DIR) to start its own server, "
            "or run from the job that keeps it up")


def lent_start(server: Server) -> ColdStart:
    """The cold start of a server another job keeps up: none (it is never restarted by this job)."""
    return ColdStart("none", False, f"the server is kept up by another job ({server.foreign_owner}): "
                     "loadgen does not restart it", fix=LENT_FIX)


def refuse_lent_pool(server: Server, pool_bytes: int) -> None:
    """A new pool for a server another job keeps up would need a restart: refused."""
    from ..errors import UsageError
    from ..units import format_bytes

    if server.foreign_owner is not None and pool_bytes != server.pool_bytes:
        raise UsageError(f"the server from `loadgen up` is kept up by another job ({server.foreign_owner}); "
                         f"loadgen does not restart it with pool {format_bytes(pool_bytes)}", LENT_FIX)


def check_pool_minimum(pool_bytes: int, flavor_name: str) -> None:
    from ..errors import UsageError
    from ..units import format_bytes

    minimum = MIN_POOL_BYTES.get(flavor_name, 6 << 20)
    if pool_bytes < minimum:
        raise UsageError(
            f"pool {format_bytes(pool_bytes)} is below the {flavor_name} minimum of "
            f"{format_bytes(minimum)} (16 KiB pages)",
            f"use --pool {minimum >> 20}M or more",
        )


# A server variable name as mysqld takes it on its command line (after `-` -> `_`).
OPTION_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
# The variables the LRU model reads, with the range both servers accept. A value outside it is
# clamped by the server without a word (--set innodb_old_blocks_pct=500 ran as 95), so every
# command refuses it before a server starts, as predict does.
VARIABLE_RANGES = {"innodb_old_blocks_pct": (5, 95), "innodb_old_blocks_time": (0, 2**32 - 1),
                   "innodb_lru_scan_depth": (100, 2**32 - 1), "innodb_read_ahead_threshold": (0, 64)}


def check_options(options: dict[str, str]) -> None:
    """--set names become `--name=value` arguments of the server: letters, digits and _ only, so
    nothing but a variable name can reach its command line."""
    from ..errors import UsageError

    for name in options:
        if not OPTION_NAME.match(name):
            raise UsageError(f"--set {name!r}: a server variable name has only letters, digits and _",
                             "e.g. --set innodb_old_blocks_time=0")
        if name.lower() in VARIABLE_RANGES:
            low, high = VARIABLE_RANGES[name.lower()]
            value = str(options[name])
            if not value.isdigit() or not low <= int(value) <= high:
                raise UsageError(f"--set {name.lower()}={value} is out of range",
                                 f"give a whole number from {low} to {high}")

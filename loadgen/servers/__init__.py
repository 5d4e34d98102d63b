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
import re
from dataclasses import dataclass, field

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

# Smallest pools the servers accept with 16 KiB pages: MariaDB refuses to start below 6 MiB,
# MySQL below 5 MiB (see research/innodb.md section 3).
MIN_POOL_BYTES = {"mariadb": 6 << 20, "mysql": 5 << 20}


@dataclass
class ColdStart:
    """How the pool was emptied before a run: the result file reports it."""

    method: str  # "restart" | "resize" | "none"
    cold: bool
    note: str = ""


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
    """A running server we can connect to, and (when it is ours) restart cold."""

    provider: str = "?"
    endpoint: Endpoint
    flavor: Flavor | None = None
    owned: bool = True  # we started it, so we may restart and stop it

    @abc.abstractmethod
    def start(self) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    @abc.abstractmethod
    def restart_cold(self) -> ColdStart:
        """Empty the buffer pool so the next run starts cold."""

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

    def __enter__(self) -> "Server":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


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


def check_options(options: dict[str, str]) -> None:
    """--set names become `--name=value` arguments of the server: letters, digits and _ only, so
    nothing but a variable name can reach its command line."""
    from ..errors import UsageError

    for name in options:
        if not OPTION_NAME.match(name):
            raise UsageError(f"--set {name!r}: a server variable name has only letters, digits and _",
                             "e.g. --set innodb_old_blocks_time=0")

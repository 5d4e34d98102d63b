"""Connections to the server (mysqlclient), with failures turned into LoadgenErrors."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ProvisionError

# Client error codes that mean "the server is gone" rather than "the query was wrong".
CONNECTION_LOST = {2002, 2003, 2006, 2013, 2055, 4031}


@dataclass
class Endpoint:
    """Where a server listens and how to log in. The password never appears in repr or logs."""

    host: str = "127.0.0.1"
    port: int = 3306
    user: str = "root"
    password: str = field(default="", repr=False)
    unix_socket: str | None = None

    def describe(self) -> str:
        where = self.unix_socket if self.unix_socket else f"{self.host}:{self.port}"
        return f"{self.user}@{where}"

    def connect_kwargs(self, database: str | None = None, **extra: Any) -> dict:
        kw: dict[str, Any] = {"user": self.user, "passwd": self.password, "connect_timeout": 10}
        if self.unix_socket:
            kw["unix_socket"] = self.unix_socket
        else:
            kw["host"], kw["port"] = self.host, self.port
        if database:
            kw["db"] = database
        kw.update(extra)
        return kw


def connect(endpoint: Endpoint, database: str | None = None, **extra: Any):
    """Open a mysqlclient connection with autocommit on; raise ProvisionError if unreachable."""
    import MySQLdb

    try:
        conn = MySQLdb.connect(**endpoint.connect_kwargs(database, **extra))
    except MySQLdb.OperationalError as exc:
        code = exc.args[0] if exc.args else 0
        raise ProvisionError(
            f"cannot connect to {endpoint.describe()}: {error_text(exc)}",
            "check that the server is running and the DSN/credentials are right"
            if code != 1045
            else "check the user and password (LOADGEN_PASSWORD or the DSN)",
        ) from None
    conn.autocommit(True)
    return conn


def error_text(exc: BaseException) -> str:
    """The server's message without the (code, ...) tuple noise."""
    args = getattr(exc, "args", ())
    if len(args) >= 2 and isinstance(args[0], int):
        return f"{args[1]} ({args[0]})"
    return str(exc)


def is_connection_lost(exc: BaseException) -> bool:
    args = getattr(exc, "args", ())
    return bool(args) and isinstance(args[0], int) and args[0] in CONNECTION_LOST


def query_all(conn, sql: str, params: tuple | None = None) -> list[tuple]:
    cur = conn.cursor()
    try:
        cur.execute(sql, params)
        return list(cur.fetchall())
    finally:
        cur.close()


def query_value(conn, sql: str, params: tuple | None = None):
    rows = query_all(conn, sql, params)
    return rows[0][0] if rows else None


def global_variables(conn, names: list[str]) -> dict[str, str]:
    """SHOW GLOBAL VARIABLES for the given names that exist on this server."""
    quoted = ",".join("'" + n.replace("'", "") + "'" for n in names)
    rows = query_all(conn, f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({quoted})")
    return {str(k): (v.decode() if isinstance(v, bytes) else str(v)) for k, v in rows}


@dataclass(frozen=True)
class Flavor:
    name: str  # "mariadb" | "mysql"
    version: str  # "10.11.19"

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", self.version)[:3])


def parse_version(version_string: str) -> Flavor:
    """'10.11.19-MariaDB-0+deb12u1' -> Flavor('mariadb', '10.11.19'); '8.4.3' -> mysql."""
    m = re.search(r"(\d+\.\d+\.\d+)", version_string)
    number = m.group(1) if m else version_string
    name = "mariadb" if "mariadb" in version_string.lower() else "mysql"
    return Flavor(name, number)


def server_flavor(conn) -> Flavor:
    return parse_version(str(query_value(conn, "SELECT VERSION()")))

"""Connections to the server (mysqlclient), with failures turned into LoadgenErrors."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ProvisionError

# Client error codes that mean "the server is gone" rather than "the query was wrong".
CONNECTION_LOST = {2002, 2003, 2006, 2013, 2055, 4031}
OUT_OF_SYNC = 2014


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
            auth_plugin_hint(exc)
            or ("check that the server is running and the DSN/credentials are right"
                if code != 1045
                else "check the user and password (LOADGEN_PASSWORD or the DSN)"),
        ) from None
    conn.autocommit(True)
    return conn


def auth_plugin_hint(exc: BaseException) -> str | None:
    """A fix for a login that failed in the client's authentication plugin, not on the password.

    MySQL 9.x logs in with caching_sha2_password only. libmariadb loads it from its plugin
    directory and reports a missing one as error 1045 (or 2059), the code of a wrong password,
    so the message is what tells them apart.
    """
    text = str(exc.args[1] if len(getattr(exc, "args", ())) > 1 else exc).lower()
    if "could not be loaded" in text or "cannot be loaded" in text or "not loaded" in text:
        return ("the client library lacks the server's authentication plugin: apt-get install libmariadb3 "
                "(it ships caching_sha2_password.so), or set MARIADB_PLUGIN_DIR to where it is")
    if "secure connection" in text:
        return "the server wants TLS or its RSA key for this login: connect once over TLS, or use the unix socket"
    return None


def error_text(exc: BaseException) -> str:
    """The server's message without the (code, ...) tuple noise."""
    args = getattr(exc, "args", ())
    if len(args) >= 2 and isinstance(args[0], int):
        return f"{args[1]} ({args[0]})"
    return str(exc)


def is_connection_lost(exc: BaseException) -> bool:
    args = getattr(exc, "args", ())
    return bool(args) and isinstance(args[0], int) and args[0] in CONNECTION_LOST


# Server errors that end the connection rather than refuse a statement: shutdown in progress,
# connection killed (MariaDB, MySQL).
SERVER_GONE = {1053, 1927, 3169}


def refused_by_server(code: int | None) -> bool:
    """An error number the server sent about the statement itself (a syntax, privilege, data or
    secure_file_priv error), rather than one of the client (2xxx: the connection broke, a packet
    was malformed) or of a server ending the connection. None (not known) counts as lost."""
    return isinstance(code, int) and not 2000 <= code < 3000 and code not in CONNECTION_LOST | SERVER_GONE


def is_out_of_sync(exc: BaseException) -> bool:
    """CR_COMMANDS_OUT_OF_SYNC: the client's own state (a result left unread, as when Ctrl-C or
    SIGTERM lands between sending a query and reading its answer), never the server's data."""
    args = getattr(exc, "args", ())
    return bool(args) and args[0] == OUT_OF_SYNC


def interrupted(exc: BaseException | None) -> bool:
    """Whether exc is, or was raised while handling, a Ctrl-C / SIGTERM (KeyboardInterrupt):
    a cleanup query that fails after one (2014, see is_out_of_sync) must not hide it."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__context__
    return False


def query_all(conn, sql: str, params: tuple | None = None) -> list[tuple]:
    cur = conn.cursor()
    try:
        cur.execute(sql, params)
        rows = list(cur.fetchall())
    except BaseException:
        # An interrupt between the query and its answer leaves the answer unread: closing the
        # cursor then fails with 2014, which must not replace what is in flight.
        try:
            cur.close()
        except Exception:  # noqa: BLE001 - the error in flight is the one to raise
            pass
        raise
    cur.close()
    return rows


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


def parse_version(version_string: str, version_comment: str = "") -> Flavor:
    """The server's flavour and x.y.z from VERSION() (and @@version_comment when at hand).

    '10.11.19-MariaDB-0+deb12u1' -> mariadb 10.11.19; '5.5.5-10.11.19-MariaDB' (the prefix older
    MariaDB puts in the handshake) -> mariadb 10.11.19; '9.7.4-2' (Debian), '8.4.3',
    '26.10.0' (MySQL's calendar versions) -> mysql. Every MySQL-family server that is not MariaDB
    (Percona, Debian's and Oracle's builds) counts as mysql: they share InnoDB's counters.
    """
    text = version_string.strip()
    text = re.sub(r"^5\.5\.5-(?=\d+\.\d+\.\d+)", "", text)
    m = re.search(r"(\d+\.\d+\.\d+)", text)
    number = m.group(1) if m else text
    both = f"{text} {version_comment}".lower()
    name = "mariadb" if "mariadb" in both else "mysql"
    return Flavor(name, number)


def server_flavor(conn) -> Flavor:
    row = query_all(conn, "SELECT VERSION(), @@version_comment")[0]
    return parse_version(*(v.decode() if isinstance(v, bytes) else str(v or "") for v in row))

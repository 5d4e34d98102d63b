"""An existing server the user points us at: `--dsn mysql://user[:password]@host[:port]/`.

We do not own it, so we never stop it. A cold pool is made by resizing where the server allows
it (MariaDB: shrink to the minimum and grow back); otherwise the run is reported as warm.
"""
from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from .. import db
from ..db import Endpoint
from ..errors import ProvisionError, UsageError
from ..units import format_bytes
from . import MIN_POOL_BYTES, ColdStart, Server, check_pool_minimum


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


class DsnServer(Server):
    provider = "dsn"
    owned = False

    def __init__(self, dsn: str, pool_bytes: int | None = None):
        self.endpoint = parse_dsn(dsn)
        self.pool_bytes = pool_bytes

    def start(self) -> None:
        conn = db.connect(self.endpoint)
        try:
            self.flavor = db.server_flavor(conn)
            if self.pool_bytes:
                self._resize(conn, self.pool_bytes)
        finally:
            conn.close()

    def _resize(self, conn, pool_bytes: int) -> None:
        check_pool_minimum(pool_bytes, self.flavor.name)
        current = int(db.query_value(conn, "SELECT @@innodb_buffer_pool_size"))
        if current == pool_bytes:
            return
        try:
            db.query_all(conn, f"SET GLOBAL innodb_buffer_pool_size = {int(pool_bytes)}")
        except Exception as exc:  # noqa: BLE001
            raise ProvisionError(
                f"the server's pool is {format_bytes(current)} and resizing it to {format_bytes(pool_bytes)} "
                f"failed: {db.error_text(exc)}",
                "omit --pool to use the server as it is, or restart it with the size you want",
            ) from None

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

    def restart_cold(self) -> ColdStart:
        conn = db.connect(self.endpoint)
        try:
            if self.flavor.name == "mariadb" and self.flavor.version_tuple >= (10, 11, 12):
                size = int(db.query_value(conn, "SELECT @@innodb_buffer_pool_size"))
                try:
                    # Shrinking to the minimum evicts (almost) every page; 10.11.12+ resizes
                    # synchronously in 1 MiB steps (docs/innodb.md, "Pool sizes").
                    db.query_all(conn, f"SET GLOBAL innodb_buffer_pool_size = {MIN_POOL_BYTES['mariadb']}")
                    db.query_all(conn, f"SET GLOBAL innodb_buffer_pool_size = {size}")
                    return ColdStart("resize", True, "pool shrunk to 6 MiB and grown back (a few hot pages may stay)")
                except Exception as exc:  # noqa: BLE001
                    return ColdStart("none", False, f"could not resize: {db.error_text(exc)}")
            return ColdStart("none", False, "an existing server we do not own: the pool was not emptied")
        finally:
            conn.close()

    def alive(self) -> bool:
        try:
            db.connect(self.endpoint).close()
            return True
        except ProvisionError:
            return False

    def describe(self) -> dict:
        return {"provider": self.provider, "endpoint": f"{self.endpoint.host}:{self.endpoint.port}"}


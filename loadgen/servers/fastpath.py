"""How loadgen reaches a container's server without docker-proxy.

A port published on 127.0.0.1 goes through docker-proxy, a user-space process that copies every
packet: on this VM that cost ~40% of the query rate (3.5k q/s through the proxy against 5.8k
through the container's own address and 6.7k through its unix socket, issue #14). When the engine
is local and Linux, two shorter ways exist:

  unix_socket     the server's socket in a host directory bind-mounted into the container
                  (SOCKET_DIR inside); the fastest, and no network at all
  bridge          the container's address on the engine's bridge (172.17.x.x): a local,
                  host-only network; no proxy
  published_port  127.0.0.1:<port> through docker-proxy: works with any engine (remote, Docker
                  Desktop's VM, rootless), the fallback

Each is tried by logging in, in that order; the first that answers is used for every
connection of the run (driver, sampler, seeding) and recorded as server.endpoint_path. The port
stays published on 127.0.0.1 only, and the server still listens on nothing beyond this host.
LOADGEN_DOCKER_ENDPOINT=unix_socket|bridge|published_port forces one (bench/, tests).
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

from ..db import Endpoint
from ..errors import UsageError

SOCKET_DIR = "/run/loadgen-socket"  # inside the container
SOCKET_NAME = "mysqld.sock"
PATHS = ("unix_socket", "bridge", "published_port")
ENV = "LOADGEN_DOCKER_ENDPOINT"
LOGIN_TIMEOUT_S = 3
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes


def wanted() -> str | None:
    """The path forced by LOADGEN_DOCKER_ENDPOINT, or None for the fastest that answers."""
    value = os.environ.get(ENV, "").strip()
    if value in ("", "auto"):
        return None
    if value not in PATHS:
        raise UsageError(f"{ENV}={value!r} is not a docker endpoint path", f"use one of {', '.join(PATHS)} or auto")
    return value


def local_linux_engine() -> bool:
    """The engine runs on this Linux kernel (its bridge and bind mounts are ours to use)."""
    host = os.environ.get("DOCKER_HOST", "")
    return sys.platform.startswith("linux") and (host == "" or host.startswith("unix://"))


def socket_dir(home: Path, name: str) -> Path | None:
    """A host directory for the container's socket, or None where the path would be too long."""
    path = home / "sockets" / name
    if len(str(path / SOCKET_NAME)) > MAX_SOCKET_PATH:
        return None
    return path


def make_socket_dir(path: Path) -> None:
    # The parent is ours alone (0700); the directory itself must be writable by the server's user
    # inside the container, whose uid is the image's business.
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    path.mkdir(exist_ok=True)
    os.chmod(path, 0o777)


def bridge_address(container) -> str | None:
    settings = container.attrs.get("NetworkSettings") or {}
    if settings.get("IPAddress"):
        return settings["IPAddress"]
    for net in (settings.get("Networks") or {}).values():
        if net.get("IPAddress"):
            return net["IPAddress"]
    return None


def _answers(endpoint: Endpoint) -> bool:
    import MySQLdb

    try:
        conn = MySQLdb.connect(**endpoint.connect_kwargs(connect_timeout=LOGIN_TIMEOUT_S))
    except MySQLdb.Error:
        return False
    conn.close()
    return True


def choose(container, published: Endpoint, sock_dir: Path | None) -> tuple[Endpoint, str]:
    """(endpoint, path name): the first path in PATHS order that logs in (or the forced one)."""
    force = wanted()
    candidates: list[tuple[str, Endpoint]] = []
    if local_linux_engine():
        if sock_dir is not None:
            candidates.append(("unix_socket", replace(published, unix_socket=str(sock_dir / SOCKET_NAME))))
        ip = bridge_address(container)
        if ip:
            candidates.append(("bridge", replace(published, host=ip, port=3306, unix_socket=None)))
    for name, endpoint in candidates:
        if force not in (None, name):
            continue
        if _answers(endpoint):
            return endpoint, name
        if force == name:
            raise UsageError(f"{ENV}={name}: the server does not answer at {endpoint.describe()}",
                             f"unset {ENV} to use the fastest path that answers")
    if force not in (None, "published_port"):
        raise UsageError(f"{ENV}={force}: not available with this engine",
                         f"unset {ENV}; only a local Linux engine offers {force}")
    return published, "published_port"

"""The server binary of a local server: where it is, which server it is, whether a process is one
serving a given datadir, and what its error log says."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ..db import Flavor, parse_version
from ..errors import ProvisionError, UsageError

SEARCH_DIRS = ["/usr/sbin", "/usr/local/sbin", "/usr/libexec", "/usr/local/mysql/bin", "/opt/mysql/bin"]
INSTALL_HINT = (
    "install one (Debian/Ubuntu: apt-get install mariadb-server), pass --mysqld PATH, "
    "or use --server docker / --dsn mysql://user@host:port/"
)


def find_mysqld(explicit: str | None = None) -> str:
    """The server binary: --mysqld PATH, else mariadbd or mysqld on PATH or in the usual sbin dirs."""
    if explicit:
        path = shutil.which(explicit) or explicit
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise UsageError(f"--mysqld {explicit}: no such executable", INSTALL_HINT)
        return os.path.abspath(path)
    # LOADGEN_MYSQLD_SEARCH_PATH replaces the whole search path (tests use it to hide mysqld).
    search = os.environ.get("LOADGEN_MYSQLD_SEARCH_PATH") or os.pathsep.join([os.environ.get("PATH", ""), *SEARCH_DIRS])
    for name in ("mariadbd", "mysqld"):
        found = shutil.which(name, path=search)
        if found:
            return found
    raise ProvisionError("no mariadbd or mysqld found on PATH", INSTALL_HINT)


def binary_flavor(binary: str) -> Flavor:
    """Ask the binary itself: 'mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu'."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProvisionError(f"cannot run {binary} --version: {exc}", INSTALL_HINT) from None
    text = out.stdout + out.stderr
    flavor = parse_version(text.split("Ver", 1)[-1] if "Ver" in text else text)
    if "mariadb" in text.lower() or os.path.basename(binary).startswith("mariadb"):
        flavor = Flavor("mariadb", flavor.version)
    return flavor


def is_server_of(pid: int, datadir: Path) -> bool:
    """True when pid is a mariadbd/mysqld serving datadir (a pid from a state file may have been
    reused by any process since; it is signalled only when this holds)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if not argv or os.path.basename(argv[0].decode(errors="replace")) not in ("mariadbd", "mysqld"):
        return False
    return f"--datadir={datadir}".encode() in argv


_LOG_STAMP = re.compile(r"^\d{4}-\d\d-\d\d\s+\d+:\d\d:\d\d\s+\d+\s+")  # "2026-11-22  5:24:22 0 "


def error_lines(log: str, limit: int = 3) -> str:
    """The first error lines: the cause comes first, the last ones only say "Aborting"."""
    lines = [ln.strip() for ln in log.splitlines() if "[ERROR]" in ln]
    lines = lines or [ln.strip() for ln in log.splitlines() if "error" in ln.lower()]
    lines = [_LOG_STAMP.sub("", ln) for ln in lines]
    return " | ".join(lines[:limit]) or (log.strip().splitlines()[-1] if log.strip() else "no log output")

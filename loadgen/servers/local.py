"""The embedded default: a mariadbd/mysqld we start ourselves in a private datadir.

The server listens on 127.0.0.1 and a unix socket only, with a generated password kept in a
0600 file beside the datadir. It is stopped on every exit path: normal end, exception, Ctrl-C,
SIGTERM (turned into KeyboardInterrupt by __main__), and, if loadgen itself is killed, by the
kernel through PR_SET_PDEATHSIG.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from ..db import Endpoint, Flavor, parse_version
from ..errors import ProvisionError, UsageError
from . import ColdStart, Server, check_pool_minimum, server_flags, write_secret

SEARCH_DIRS = ["/usr/sbin", "/usr/local/sbin", "/usr/libexec", "/usr/local/mysql/bin", "/opt/mysql/bin"]
INSTALL_HINT = (
    "install one (Debian/Ubuntu: apt-get install mariadb-server), pass --mysqld PATH, "
    "or use --server docker / --dsn mysql://user@host:port/"
)
READY_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 120.0


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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: if loadgen is killed outright (SIGKILL, OOM), the
    # kernel sends the server SIGTERM, so no orphan mariadbd outlives us.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class LocalServer(Server):
    """mariadbd/mysqld in `home/data`, with its socket, log and password file in `home`.

    Args:
        home: directory that holds this server's datadir and files (created if missing).
        pool_bytes: innodb_buffer_pool_size to start with.
        detach: keep running after this process exits (loadgen up); otherwise tied to us.
    """

    provider = "local"

    def __init__(
        self,
        home: Path,
        pool_bytes: int,
        mysqld: str | None = None,
        port: int | None = None,
        options: dict[str, str] | None = None,
        detach: bool = False,
    ):
        self.home = Path(home)
        self.pool_bytes = pool_bytes
        self.binary = find_mysqld(mysqld)
        self.flavor = binary_flavor(self.binary)
        check_pool_minimum(pool_bytes, self.flavor.name)
        self.requested_port = port
        self.port: int | None = None
        self.options = dict(options or {})
        self.detach = detach
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None
        self.persist = False
        self.endpoint = Endpoint(host="127.0.0.1", port=0, user="root")
        if port is not None and port_in_use(port):
            raise UsageError(f"port {port} is already in use", "omit --port to let loadgen pick a free one")

    # -- paths -------------------------------------------------------------------------------
    @property
    def datadir(self) -> Path:
        return self.home / "data"

    @property
    def log_path(self) -> Path:
        return self.home / "error.log"

    @property
    def socket_path(self) -> str:
        path = str(self.home / "mysqld.sock")
        if len(path) < 100:  # sun_path holds 108 bytes
            return path
        digest = hashlib.sha1(path.encode()).hexdigest()[:12]
        return os.path.join(tempfile.gettempdir(), f"loadgen-{os.getuid()}-{digest}.sock")

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        if not (self.datadir / "mysql").is_dir():
            self._initialize()
        for attempt in range(3):
            self.port = self.requested_port or free_port()
            self._spawn()
            try:
                self._wait_ready()
                break
            except _PortRace:
                if self.requested_port or attempt == 2:
                    raise ProvisionError(
                        f"port {self.port} is already in use", "omit --port to let loadgen pick a free one"
                    ) from None
        self.endpoint = Endpoint(
            host="127.0.0.1", port=self.port, user="root", password=self._password(), unix_socket=self.socket_path
        )
        if self.persist:  # a server kept up between commands: its new pid/port must be findable
            from . import state

            state.save(self.to_state())

    def _initialize(self) -> None:
        """Create an empty datadir with a passwordless root@localhost (secured at first start)."""
        tmp = self.home / "data.init"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        user = ["--user=root"] if os.geteuid() == 0 else []
        if self.flavor.name == "mariadb":
            installer = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
            if not installer:
                raise ProvisionError("mariadb-install-db not found", "apt-get install mariadb-server")
            cmd = [installer, "--no-defaults", f"--datadir={tmp}", "--auth-root-authentication-method=normal",
                   "--skip-test-db", "--skip-name-resolve", *user]
            basedir = Path(self.binary).resolve().parent.parent
            if not str(basedir).startswith("/usr"):  # a tarball install: tell the script where it is
                cmd.append(f"--basedir={basedir}")
        else:
            cmd = [self.binary, "--no-defaults", "--initialize-insecure", f"--datadir={tmp}", *user]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            tail = " | ".join((out.stderr or out.stdout).strip().splitlines()[-3:])
            if "No space left" in tail:
                raise ProvisionError(f"no room to initialise a datadir in {self.home}", "free disk space or set LOADGEN_CACHE_DIR")
            raise ProvisionError(f"initialising the datadir failed: {tail}", "check the server install")
        tmp.rename(self.datadir)  # atomic: a half-initialised datadir never looks usable

    def _args(self) -> list[str]:
        args = [
            self.binary, "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.socket_path}",
            f"--port={self.port}", "--bind-address=127.0.0.1", f"--pid-file={self.home / 'mysqld.pid'}",
            f"--log-error={self.log_path}",
        ]
        if os.geteuid() == 0:
            args.append("--user=root")
        return args + server_flags(self.pool_bytes, self.options, self.flavor.name)

    def _spawn(self) -> None:
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        try:
            self.proc = subprocess.Popen(
                self._args(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches us, not the server: we stop it cleanly
                preexec_fn=None if self.detach else _die_with_parent,
            )
        except OSError as exc:
            raise ProvisionError(f"cannot start {self.binary}: {exc}", INSTALL_HINT) from None
        self.pid = self.proc.pid

    def _new_log(self) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                f.seek(self._log_offset)
                return f.read()
        except OSError:
            return ""

    def _wait_ready(self) -> None:
        import MySQLdb

        deadline = time.monotonic() + READY_TIMEOUT_S
        delay = 0.02
        while True:
            if not self.alive():
                self.proc = None
                log = self._new_log()
                if "Address already in use" in log or "Do you already have another" in log:
                    raise _PortRace()
                if "Unable to lock" in log:
                    raise ProvisionError(f"the datadir {self.datadir} is in use by another server",
                                         "stop it (loadgen down) or set LOADGEN_CACHE_DIR to another place")
                raise ProvisionError(f"the server exited during start-up: {_error_lines(log)}",
                                     f"see {self.log_path}")
            try:
                conn = MySQLdb.connect(unix_socket=self.socket_path, user="root", passwd=self._password(),
                                       connect_timeout=2)
            except MySQLdb.OperationalError as exc:
                if exc.args and exc.args[0] == 1045 and not (self.home / "password").exists():
                    raise ProvisionError("cannot log in to the new server", f"remove {self.home} and retry") from None
                if time.monotonic() > deadline:
                    self.stop()
                    raise ProvisionError(f"the server did not accept connections within {READY_TIMEOUT_S:.0f} s",
                                         f"see {self.log_path}") from None
                time.sleep(delay)  # polling a condition with a deadline, not a fixed wait
                delay = min(delay * 1.5, 0.25)
                continue
            try:
                self._secure(conn)
            finally:
                conn.close()
            return

    def _password(self) -> str:
        path = self.home / "password"
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            return ""

    def _secure(self, conn) -> None:
        """First start: give root a generated password (kept 0600 beside the datadir, never shown)."""
        path = self.home / "password"
        if path.exists():
            return
        password = secrets.token_urlsafe(18)
        cur = conn.cursor()
        # A slow or general log turned on with --set logs statements verbatim (MariaDB does not
        # mask IDENTIFIED BY there): keep these out of both, for this session only.
        cur.execute("SET SESSION sql_log_off = 1, long_query_time = 31536000")
        for host in ("localhost", "127.0.0.1"):
            cur.execute(f"CREATE USER IF NOT EXISTS 'root'@'{host}' IDENTIFIED BY %s", (password,))
            cur.execute(f"ALTER USER 'root'@'{host}' IDENTIFIED BY %s", (password,))
            cur.execute(f"GRANT ALL ON *.* TO 'root'@'{host}' WITH GRANT OPTION")
        cur.execute("SET SESSION sql_log_off = DEFAULT, long_query_time = DEFAULT")
        cur.close()
        write_secret(path, password)

    def stop(self) -> None:
        pid = self.pid
        if pid is None:
            return
        if _pid_alive(pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while _pid_alive(pid) and time.monotonic() < deadline:
                if self.proc is not None and self.proc.poll() is not None:
                    break
                time.sleep(0.05)
            if _pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        self.proc = None
        self.pid = None

    def restart_cold(self) -> ColdStart:
        self.stop()
        self.start()
        return ColdStart("restart", True, "server restarted with load_at_startup=OFF")

    def set_pool(self, pool_bytes: int) -> None:
        check_pool_minimum(pool_bytes, self.flavor.name)
        self.pool_bytes = pool_bytes

    def to_state(self) -> dict:
        return {
            "provider": self.provider, "pid": self.pid, "port": self.port, "socket": self.socket_path,
            "home": str(self.home), "pool_bytes": self.pool_bytes, "binary": self.binary,
            "flavor": self.flavor.name, "version": self.flavor.version, "options": self.options,
        }

    @classmethod
    def from_state(cls, st: dict) -> "LocalServer":
        """Re-attach to a server started by `loadgen up` in another process."""
        self = cls.__new__(cls)
        self.home = Path(st["home"])
        self.pool_bytes = int(st["pool_bytes"])
        self.binary = st["binary"]
        self.flavor = Flavor(st["flavor"], st["version"])
        self.requested_port = None
        self.port = int(st["port"])
        self.options = dict(st.get("options") or {})
        self.detach = True
        self.persist = True
        self.proc = None
        self.pid = int(st["pid"])
        self.endpoint = Endpoint(host="127.0.0.1", port=self.port, user="root", password=self._password(),
                                 unix_socket=st["socket"])
        return self

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        return self.pid is not None and _pid_alive(self.pid)

    def diagnostics(self) -> str:
        return _error_lines(self._new_log() if hasattr(self, "_log_offset") else "")

    def describe(self) -> dict:
        return {"provider": self.provider, "binary": self.binary, "datadir": str(self.datadir)}



class _PortRace(Exception):
    """Another process took the port between our probe and the server's bind."""


def _error_lines(log: str, limit: int = 3) -> str:
    lines = [ln.strip() for ln in log.splitlines() if "[ERROR]" in ln or "error" in ln.lower()]
    return " | ".join(lines[-limit:]) or (log.strip().splitlines()[-1] if log.strip() else "no log output")

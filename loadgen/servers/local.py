"""The embedded default: a mariadbd/mysqld we start ourselves in a private datadir.

The server listens on 127.0.0.1 and a unix socket only, with a generated password kept in a
0600 file beside the datadir. It is stopped on every exit path: normal end, exception, Ctrl-C,
SIGTERM (turned into KeyboardInterrupt by __main__), and, if loadgen itself is killed, by the
kernel through PR_SET_PDEATHSIG.

Beside this module: mysqld.py (the binary), runas.py (the user it runs as, its directories),
accounts.py (the datadir's logins), host.py (ports, processes, memory).
"""
from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

from ..db import Endpoint, Flavor
from ..errors import ProvisionError, UsageError
from . import (ColdStart, Server, ask_slow_shutdown, check_options, check_pool_minimum, lent_start, refuse_lent_pool,
               server_flags, write_secret)
from .accounts import bootstrap_sql, enforce_accounts, mysql_init_sql
from .host import check_pool_fits, die_with_parent, free_port, pid_alive, port_in_use
from .lock import FileLock
from .mysqld import INSTALL_HINT, binary_flavor, error_lines, find_mysqld, is_server_of
from .runas import RunAs, as_user, check_reachable, chown_tree, make_path, server_user

READY_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 120.0


class LocalServer(Server):
    """mariadbd/mysqld in `home/data`; socket and pid file in `home/run`, log and password in `home`.

    Layout and ownership (the server runs as `mysql` when loadgen runs as root):
      home/          0700 (0711 as root, so the server user can pass through), loadgen's
      home/password  0600, loadgen's: the generated root password
      home/lock      flock held while a server uses this datadir
      home/data/     0700, the server user's
      home/run/      0700, the server user's: socket, pid file and tmpdir, unreachable for others
      home/files/    0700, the server user's: the only place secure_file_priv lets SQL read/write
      home/error.log 0600, the server user's
      home/tmp/      0700, loadgen's: seeding's chunk files (chunks.py)

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
        self.home = Path(home).absolute()  # the pid check matches it in the server's command line
        self.pool_bytes = pool_bytes
        self.binary = find_mysqld(mysqld)
        self.flavor = binary_flavor(self.binary)
        check_pool_minimum(pool_bytes, self.flavor.name)
        check_pool_fits(pool_bytes)
        self.requested_port = port
        self.port: int | None = None
        self.options = dict(options or {})
        check_options(self.options)
        self.detach = detach
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None
        self.persist = False
        self.say = _quiet
        self._lock = FileLock(self.home / "lock", f"the datadir in {self.home}")
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
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def files_dir(self) -> Path:
        return self.home / "files"

    @property
    def socket_path(self) -> str:
        path = str(self.run_dir / "mysqld.sock")
        if len(path.encode()) < 100:  # sun_path holds 108 bytes
            return path
        # A long home: a private 0700 directory in /tmp instead (checked to be ours before use);
        # /tmp rather than $TMPDIR, which the server user may not be able to enter.
        digest = hashlib.sha1(str(self.home).encode()).hexdigest()[:12]
        user = server_user()
        return os.path.join("/tmp", f"loadgen-{user.uid if user else os.getuid()}-{digest}", "mysqld.sock")

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        user = server_user()
        make_path(self.home, 0o711 if user else 0o700)
        self._lock.acquire(self.say)
        self._make_dirs(user)  # under the lock: a stopping server of this home removes its socket dir
        if (self.datadir / "mysql").is_dir() and not (self.home / "password").exists():
            # Initialised by an older loadgen that never got to set a password: it may hold
            # anything a local user planted meanwhile, so it is not reused.
            self.say(f"the datadir in {self.home} has no password file; initialising a new one")
            shutil.rmtree(self.datadir)
        if not (self.datadir / "mysql").is_dir():
            if self.datadir.is_dir() and any(self.datadir.iterdir()):
                # Tables without the system schema (a `DROP DATABASE mysql`, a half-copied
                # datadir): nothing to start, and initialising cannot replace a full directory.
                raise ProvisionError(f"the datadir in {self.home} has no mysql/ system schema: it is damaged",
                                     f"remove {self.home} and re-run")
            self._initialize(user)
        elif user is not None and self.datadir.stat().st_uid != user.uid:
            chown_tree(self.datadir, user)  # a datadir from a loadgen that ran the server as root
        os.chmod(self.datadir, 0o700)
        for attempt in range(3):
            self.port = self.requested_port or free_port()
            self._spawn(user)
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

    def _make_dirs(self, user: RunAs | None) -> None:
        os.chmod(self.home, 0o711 if user else 0o700)
        if user is not None:
            check_reachable(self.home, user)
        for d in (self.run_dir, self.files_dir, Path(self.socket_path).parent):
            try:
                d.mkdir(mode=0o700)
            except FileExistsError:
                pass
            st = os.lstat(d)
            mine = {os.getuid()} | ({user.uid} if user else set())
            if not stat.S_ISDIR(st.st_mode) or st.st_uid not in mine:
                raise ProvisionError(f"{d} exists but is not a directory of loadgen's", f"remove {d}")
            if user is not None:
                os.chown(d, user.uid, user.gid)
            os.chmod(d, 0o700)
        fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        try:
            os.fchmod(fd, 0o600)
            if user is not None:
                os.fchown(fd, user.uid, user.gid)
        finally:
            os.close(fd)

    def _initialize(self, user: RunAs | None) -> None:
        """Create a datadir whose only logins are root@localhost and root@127.0.0.1 with a fresh
        generated password, set before the server ever listens (no window without one).

        MariaDB: `mariadbd --bootstrap` fed the system tables SQL that mariadb-install-db feeds
        (that script splits paths with spaces), then our accounts. MySQL: --initialize-insecure
        with an --init-file that sets the password, also before any listener exists.
        """
        tmp = self.home / "data.init"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(mode=0o700)
        if user is not None:
            os.chown(tmp, user.uid, user.gid)
        password = secrets.token_urlsafe(18)
        init_file = None
        if self.flavor.name == "mariadb":
            cmd = [self.binary, "--no-defaults", "--bootstrap", f"--datadir={tmp}", "--log-warnings=0",
                   "--enforce-storage-engine=", "--max-allowed-packet=8M", "--net-buffer-length=16K",
                   "--skip-networking", "--skip-log-bin", "--lc-messages=en_US", f"--tmpdir={self.run_dir}"]
            basedir = Path(self.binary).resolve().parent.parent
            if not str(basedir).startswith("/usr"):  # a tarball install: tell the server where it is
                cmd.append(f"--basedir={basedir}")
            stdin = bootstrap_sql(self.binary, password).encode()
        else:
            init_file = self.run_dir / "init.sql"
            fd = os.open(init_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(mysql_init_sql(password))
            if user is not None:
                os.chown(init_file, user.uid, user.gid)
            cmd = [self.binary, "--no-defaults", "--initialize-insecure", f"--datadir={tmp}",
                   f"--init-file={init_file}"]
            stdin = b""
        try:
            out = subprocess.run(cmd, input=stdin, capture_output=True, timeout=900, **as_user(user))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ProvisionError(f"initialising the datadir failed: {exc}", "check the server install") from None
        finally:
            if init_file is not None:
                init_file.unlink(missing_ok=True)
        text = (out.stderr or out.stdout).decode(errors="replace").replace(password, "***")
        if out.returncode != 0 or not (tmp / "mysql").is_dir():
            if "No space left" in text:
                raise ProvisionError(f"no room to initialise a datadir in {self.home}",
                                     "free disk space or set LOADGEN_CACHE_DIR")
            raise ProvisionError(f"initialising the datadir failed: {error_lines(text)}", "check the server install")
        if self.flavor.name == "mariadb":
            (tmp / "mysql_upgrade_info").write_text(self.flavor.version + "-MariaDB")
        write_secret(self.home / "password", password)
        try:
            tmp.rename(self.datadir)  # atomic: a half-initialised datadir never looks usable
        except OSError as exc:
            raise ProvisionError(f"cannot put the new datadir in place in {self.home}: {exc.strerror}",
                                 f"remove {self.home} and re-run") from None

    def _args(self) -> list[str]:
        # SQL may read and write files only in home/files (never anywhere the server user can), and
        # the server keeps its temporary files in a directory of its own, not $TMPDIR (which it may
        # not reach); --set may override neither by accident, so they come before the options.
        options = {"secure_file_priv": str(self.files_dir), "tmpdir": str(self.run_dir), **self.options}
        return [
            self.binary, "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.socket_path}",
            f"--port={self.port}", "--bind-address=127.0.0.1", f"--pid-file={self.run_dir / 'mysqld.pid'}",
            f"--log-error={self.log_path}",
            "--skip-name-resolve",  # accounts match addresses, never what a host name resolves to
            *server_flags(self.pool_bytes, options, self.flavor.name),
        ]

    def _spawn(self, user: RunAs | None) -> None:
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        lock_fd = self._lock.fd
        try:
            self.proc = subprocess.Popen(
                self._args(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches us, not the server: we stop it cleanly
                # the server holds the datadir lock too, for as long as it runs (loadgen up)
                pass_fds=(lock_fd,) if lock_fd is not None else (),
                # privileges are dropped before preexec_fn runs, so the parent-death signal set
                # there survives (a setuid inside mariadbd would clear it)
                preexec_fn=None if self.detach else die_with_parent,
                **as_user(user),
            )
        except OSError as exc:
            raise ProvisionError(f"cannot start {self.binary}: {exc}", INSTALL_HINT) from None
        self.pid = self.proc.pid
        self._lock.note(f"pid {os.getpid()} (server pid {self.pid})")

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
                if "Address already in use" in log or "already have another server running on port" in log:
                    raise _PortRace()
                if "Unable to lock" in log:
                    raise ProvisionError(f"the datadir {self.datadir} is in use by another server",
                                         "stop it (loadgen down) or set LOADGEN_CACHE_DIR to another place")
                raise ProvisionError(f"the server exited during start-up: {error_lines(log)}",
                                     f"see {self.log_path}")
            try:
                conn = MySQLdb.connect(unix_socket=self.socket_path, user="root", passwd=self._password(),
                                       connect_timeout=2)
            except MySQLdb.OperationalError as exc:
                if exc.args and exc.args[0] == 1045:
                    # The server answered and refused our password: waiting will not change that.
                    self._halt()
                    if (self.home / "password").exists():
                        raise ProvisionError(f"the password file in {self.home} does not match this datadir",
                                             f"remove {self.home} and re-run") from None
                    raise ProvisionError("cannot log in to the new server", f"remove {self.home} and retry") from None
                if time.monotonic() > deadline:
                    self._halt()
                    raise ProvisionError(f"the server did not accept connections within {READY_TIMEOUT_S:.0f} s",
                                         f"see {self.log_path}") from None
                time.sleep(delay)  # polling a condition with a deadline, not a fixed wait
                delay = min(delay * 1.5, 0.25)
                continue
            try:
                self._check_identity(conn)
                enforce_accounts(conn, self._password())
            finally:
                conn.close()
            return

    def _check_identity(self, conn) -> None:
        """The server that answered on our socket must be the one we started."""
        cur = conn.cursor()
        cur.execute("SELECT @@port, @@datadir")
        port, datadir = cur.fetchone()
        cur.close()
        if int(port) != self.port or os.path.realpath(str(datadir)) != os.path.realpath(self.datadir):
            self._halt()
            raise ProvisionError(f"another server (port {port}, datadir {datadir}) answered on {self.socket_path}",
                                 f"stop it, or remove {self.home}")

    def _password(self) -> str:
        path = self.home / "password"
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            return ""

    def _halt(self) -> None:
        """Stop the server process (only ever one we started or verified as ours)."""
        pid = self.pid
        if pid is None:
            return
        ours = self.proc is not None or is_server_of(pid, self.datadir)
        if ours and pid_alive(pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while pid_alive(pid) and time.monotonic() < deadline:
                if self.proc is not None and self.proc.poll() is not None:
                    break
                time.sleep(0.05)
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        self.proc = None
        self.pid = None

    def stop(self) -> None:
        self._halt()
        # the datadir lock: ours, or (a server attached from `loadgen up`'s state: `loadgen down`) the
        # one its process held, free now that it is gone; taken by another server of this home: kept
        try:
            held = self._lock.held or self._lock.try_acquire()
        except OSError:  # the home itself is gone
            held = False
        if held and not str(self.socket_path).startswith(str(self.run_dir)):
            try:  # the private /tmp directory of a long home's socket, empty once the server is gone
                os.rmdir(os.path.dirname(self.socket_path))
            except OSError:
                pass
        self._lock.release()

    def discard(self) -> None:
        if self.persist or self.detach or self.foreign_owner is not None or self.proc is not None:
            return
        shutil.rmtree(self.home, ignore_errors=True)

    def restart_cold(self, slow: bool = False) -> ColdStart:
        if self.foreign_owner is not None:
            return lent_start(self)
        details = ask_slow_shutdown(self) if slow else {"shutdown": "fast"}
        started = time.monotonic()
        self._halt()  # the datadir lock stays ours across the restart
        details["stop_s"] = round(time.monotonic() - started, 3)
        self.start()
        return ColdStart("restart", True, "server restarted with load_at_startup=OFF", details)

    def set_pool(self, pool_bytes: int) -> None:
        refuse_lent_pool(self, pool_bytes)
        check_pool_minimum(pool_bytes, self.flavor.name)
        check_pool_fits(pool_bytes)
        self.pool_bytes = pool_bytes

    def to_state(self) -> dict:
        return {
            "provider": self.provider, "pid": self.pid, "port": self.port, "socket": self.socket_path,
            "home": str(self.home), "pool_bytes": self.pool_bytes, "binary": self.binary,
            "flavor": self.flavor.name, "version": self.flavor.version, "options": self.options,
            "requested_port": self.requested_port,
        }

    @classmethod
    def from_state(cls, st: dict) -> LocalServer:
        """Re-attach to a server started by `loadgen up` in another process."""
        self = cls.__new__(cls)
        self.home = Path(st["home"])
        self.pool_bytes = int(st["pool_bytes"])
        self.binary = st["binary"]
        self.flavor = Flavor(st["flavor"], st["version"])
        self.requested_port = st.get("requested_port")
        self.port = int(st["port"])
        self.options = dict(st.get("options") or {})
        self.detach = True
        self.persist = True
        self.proc = None
        self.pid = int(st["pid"])
        self.say = _quiet
        self._lock = FileLock(self.home / "lock", f"the datadir in {self.home}")
        self.endpoint = Endpoint(host="127.0.0.1", port=self.port, user="root", password=self._password(),
                                 unix_socket=st["socket"])
        return self

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        # a pid from a state file counts only while it is still our server
        return self.pid is not None and pid_alive(self.pid) and is_server_of(self.pid, self.datadir)

    def diagnostics(self) -> str:
        return error_lines(self._new_log() if hasattr(self, "_log_offset") else "")

    def describe(self) -> dict:
        return {"provider": self.provider, "binary": self.binary, "datadir": str(self.datadir)}


def _quiet(_: str) -> None:
    pass


class _PortRace(Exception):
    """Another process took the port between our probe and the server's bind."""

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
import pwd
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

from ..db import Endpoint, Flavor, parse_version
from ..errors import ProvisionError, UsageError
from . import ColdStart, Server, check_options, check_pool_minimum, server_flags, write_secret
from .lock import FileLock

SEARCH_DIRS = ["/usr/sbin", "/usr/local/sbin", "/usr/libexec", "/usr/local/mysql/bin", "/opt/mysql/bin"]
INSTALL_HINT = (
    "install one (Debian/Ubuntu: apt-get install mariadb-server), pass --mysqld PATH, "
    "or use --server docker / --dsn mysql://user@host:port/"
)
READY_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 120.0
# Who the server runs as when loadgen runs as root (Debian creates it with mariadb-server).
SERVER_USER = "mysql"


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


class RunAs(NamedTuple):
    """The unprivileged account the server runs as when loadgen itself runs as root."""

    name: str
    uid: int
    gid: int


def server_user() -> RunAs | None:
    """None: the server runs as whoever runs loadgen. As root: the Debian `mysql` user, because a
    server running as root turns any SQL login (SELECT ... INTO OUTFILE) into root's file access."""
    if os.geteuid() != 0:
        return None
    try:
        pw = pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise ProvisionError(f"loadgen runs as root but there is no {SERVER_USER!r} user to run the server as",
                             "install mariadb-server (it creates that user) or run loadgen as an ordinary user") from None
    if pw.pw_uid == 0:
        raise ProvisionError(f"the {SERVER_USER!r} user is root", "the server must run as an unprivileged user")
    return RunAs(pw.pw_name, pw.pw_uid, pw.pw_gid)


def _check_reachable(path: Path, user: RunAs) -> None:
    """Every ancestor of path must be enterable by the server user (it opens its datadir by path)."""
    for d in [path, *path.parents]:
        try:
            st = os.stat(d)
        except FileNotFoundError:
            continue
        if st.st_uid == user.uid:
            ok = st.st_mode & stat.S_IXUSR
        elif st.st_gid == user.gid:
            ok = st.st_mode & stat.S_IXGRP
        else:
            ok = st.st_mode & stat.S_IXOTH
        if not ok:
            raise ProvisionError(
                f"the server runs as user {user.name}, which cannot enter {d} (mode {stat.S_IMODE(st.st_mode):o})",
                f"chmod o+x {d}, or point LOADGEN_CACHE_DIR/LOADGEN_STATE_DIR at a directory it can reach "
                "(as root the defaults are /var/cache/loadgen and /var/lib/loadgen)",
            )


def _native_password_hash(password: str) -> str:
    # mysql_native_password's stored form: the server never needs to see the password itself.
    return "*" + hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest().upper()


def _is_server_of(pid: int, datadir: Path) -> bool:
    """True when pid is a mariadbd/mysqld serving datadir (a pid from a state file may have been
    reused by any process since; it is signalled only when this holds)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if not argv or os.path.basename(argv[0].decode(errors="replace")) not in ("mariadbd", "mysqld"):
        return False
    return f"--datadir={datadir}".encode() in argv


def memory_available_bytes() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_pool_fits(pool_bytes: int) -> None:
    avail = memory_available_bytes()
    if avail is not None and pool_bytes > avail:
        from ..units import format_bytes

        raise UsageError(f"pool {format_bytes(pool_bytes)} is more than this machine's free memory "
                         f"({format_bytes(avail)} MemAvailable); the server would fail to start or swap",
                         "use a smaller --pool")


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
      home/tmp/      0700, loadgen's: seeding's chunk files (dataset.py)

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
        _make_path(self.home, 0o711 if user else 0o700)
        self._lock.acquire(self.say)
        self._make_dirs(user)  # under the lock: a stopping server of this home removes its socket dir
        if (self.datadir / "mysql").is_dir() and not (self.home / "password").exists():
            # Initialised by an older loadgen that never got to set a password: it may hold
            # anything a local user planted meanwhile, so it is not reused.
            self.say(f"the datadir in {self.home} has no password file; initialising a new one")
            shutil.rmtree(self.datadir)
        if not (self.datadir / "mysql").is_dir():
            self._initialize(user)
        elif user is not None and self.datadir.stat().st_uid != user.uid:
            _chown_tree(self.datadir, user)  # a datadir from a loadgen that ran the server as root
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
            _check_reachable(self.home, user)
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
            stdin = self._bootstrap_sql(password).encode()
        else:
            init_file = self.run_dir / "init.sql"
            fd = os.open(init_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(_mysql_init_sql(password))
            if user is not None:
                os.chown(init_file, user.uid, user.gid)
            cmd = [self.binary, "--no-defaults", "--initialize-insecure", f"--datadir={tmp}",
                   f"--init-file={init_file}"]
            stdin = b""
        try:
            out = subprocess.run(cmd, input=stdin, capture_output=True, timeout=900, **_as_user(user))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ProvisionError(f"initialising the datadir failed: {exc}", "check the server install") from None
        finally:
            if init_file is not None:
                init_file.unlink(missing_ok=True)
        text = (out.stderr or out.stdout).decode(errors="replace").replace(password, "***")
        if out.returncode != 0 or not (tmp / "mysql").is_dir():
            if "No space left" in text:
                raise ProvisionError(f"no room to initialise a datadir in {self.home}", "free disk space or set LOADGEN_CACHE_DIR")
            raise ProvisionError(f"initialising the datadir failed: {_error_lines(text)}", "check the server install")
        if self.flavor.name == "mariadb":
            (tmp / "mysql_upgrade_info").write_text(self.flavor.version + "-MariaDB")
        write_secret(self.home / "password", password)
        tmp.rename(self.datadir)  # atomic: a half-initialised datadir never looks usable

    def _bootstrap_sql(self, password: str) -> str:
        share = _share_dir(self.binary)
        parts = ["CREATE DATABASE IF NOT EXISTS mysql;", "USE mysql;", "SET @auth_root_socket=NULL;"]
        for name in BOOTSTRAP_FILES:
            parts.append((share / name).read_text())
        digest = _native_password_hash(password)
        unusable = _native_password_hash(secrets.token_urlsafe(32))  # for the locked definer account
        parts.append(f"""
-- loadgen: the only logins are root from localhost and 127.0.0.1, with the generated password.
DELETE FROM mysql.global_priv WHERE NOT ((User = 'root' AND Host IN ('localhost', '127.0.0.1'))
                                       OR (User = 'mariadb.sys' AND Host = 'localhost'));
DELETE FROM mysql.proxies_priv WHERE NOT (User = 'root' AND Host IN ('localhost', '127.0.0.1'));
DELETE FROM mysql.db WHERE User NOT IN ('root', 'mariadb.sys');
DELETE FROM mysql.tables_priv WHERE User NOT IN ('root', 'mariadb.sys');
DELETE FROM mysql.roles_mapping;
UPDATE mysql.global_priv SET Priv = JSON_SET(Priv, '$.plugin', 'mysql_native_password',
    '$.authentication_string', '{digest}', '$.password_last_changed', UNIX_TIMESTAMP()) WHERE User = 'root';
UPDATE mysql.global_priv SET Priv = JSON_SET(Priv, '$.authentication_string', '{unusable}')
    WHERE User = 'mariadb.sys';
""")
        return "\n".join(parts)

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
                preexec_fn=None if self.detach else _die_with_parent,
                **_as_user(user),
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
                raise ProvisionError(f"the server exited during start-up: {_error_lines(log)}",
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
                self._enforce_accounts(conn)
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

    def _enforce_accounts(self, conn) -> None:
        """Drop any login but ours and give ours the password, whatever made the datadir (an older
        loadgen left root@<hostname> and root@::1 without one)."""
        password = self._password()
        cur = conn.cursor()
        # A slow or general log turned on with --set logs statements verbatim (MariaDB does not
        # mask IDENTIFIED BY in the slow log): keep this session's out of both.
        cur.execute("SET SESSION sql_log_off = 1, long_query_time = 31536000")
        cur.execute("SELECT User, Host, authentication_string FROM mysql.user")
        accounts = [(str(u), str(h), a) for u, h, a in cur.fetchall()]
        for user, host, auth in accounts:
            if (user, host) in SYSTEM_ACCOUNTS:
                if not auth:  # locked already; a password nobody knows on top
                    cur.execute("ALTER USER %s@%s IDENTIFIED BY %s", (user, host, secrets.token_urlsafe(32)))
                continue
            if user == "root" and host in ROOT_HOSTS:
                if not auth:
                    cur.execute("ALTER USER %s@%s IDENTIFIED BY %s", (user, host, password))
                continue
            cur.execute("DROP USER %s@%s", (user, host))
        if ("root", "127.0.0.1") not in {(u, h) for u, h, _ in accounts}:
            cur.execute("CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY %s", (password,))
            cur.execute("GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
        cur.execute("SET SESSION sql_log_off = DEFAULT, long_query_time = DEFAULT")
        cur.close()

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
        ours = self.proc is not None or _is_server_of(pid, self.datadir)
        if ours and _pid_alive(pid):
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

    def stop(self) -> None:
        self._halt()
        if self._lock.held and not str(self.socket_path).startswith(str(self.run_dir)):
            try:  # the private /tmp directory of a long home's socket, empty once the server is gone
                os.rmdir(os.path.dirname(self.socket_path))
            except OSError:
                pass
        self._lock.release()

    def restart_cold(self) -> ColdStart:
        self._halt()  # the datadir lock stays ours across the restart
        self.start()
        return ColdStart("restart", True, "server restarted with load_at_startup=OFF")

    def set_pool(self, pool_bytes: int) -> None:
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
    def from_state(cls, st: dict) -> "LocalServer":
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
        return self.pid is not None and _pid_alive(self.pid) and _is_server_of(self.pid, self.datadir)

    def diagnostics(self) -> str:
        return _error_lines(self._new_log() if hasattr(self, "_log_offset") else "")

    def describe(self) -> dict:
        return {"provider": self.provider, "binary": self.binary, "datadir": str(self.datadir)}


# Accounts MariaDB/MySQL create for their own views and internals: locked, no login.
SYSTEM_ACCOUNTS = {("mariadb.sys", "localhost"), ("mysql.sys", "localhost"), ("mysql.session", "localhost"),
                   ("mysql.infoschema", "localhost")}
ROOT_HOSTS = ("localhost", "127.0.0.1")
# What mariadb-install-db feeds `mariadbd --bootstrap`, in its order (without the test db).
BOOTSTRAP_FILES = ["mysql_system_tables.sql", "mysql_performance_tables.sql", "mysql_system_tables_data.sql",
                   "fill_help_tables.sql", "maria_add_gis_sp_bootstrap.sql", "mysql_sys_schema.sql"]


def _share_dir(binary: str) -> Path:
    base = Path(binary).resolve().parent.parent
    for d in (base / "share" / "mysql", base / "share" / "mariadb", base / "share",
              Path("/usr/share/mysql"), Path("/usr/share/mariadb")):
        if (d / "mysql_system_tables.sql").is_file():
            return d
    raise ProvisionError("cannot find mysql_system_tables.sql to initialise a datadir",
                         "install mariadb-server (Debian/Ubuntu) or pass --mysqld from a complete install")


def _mysql_init_sql(password: str) -> str:
    # token_urlsafe passwords hold no quote or backslash
    return (f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{password}';\n"
            f"CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '{password}';\n"
            "GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n")


def _as_user(user: RunAs | None) -> dict:
    """Popen arguments that run the child as the server user (no supplementary groups)."""
    if user is None:
        return {}
    return {"user": user.uid, "group": user.gid, "extra_groups": []}


def _make_path(path: Path, mode: int) -> None:
    """mkdir -p, with `mode` on every directory it creates whatever the umask (a root umask of
    077 would otherwise lock the server user out of the cache directory loadgen itself made)."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            continue
        os.chmod(d, mode)


def _chown_tree(root: Path, user: RunAs) -> None:
    os.chown(root, user.uid, user.gid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), user.uid, user.gid)


def _quiet(_: str) -> None:
    pass


class _PortRace(Exception):
    """Another process took the port between our probe and the server's bind."""


_LOG_STAMP = re.compile(r"^\d{4}-\d\d-\d\d\s+\d+:\d\d:\d\d\s+\d+\s+")  # "2026-11-22  5:24:22 0 "


def _error_lines(log: str, limit: int = 3) -> str:
    """The first error lines: the cause comes first, the last ones only say "Aborting"."""
    lines = [ln.strip() for ln in log.splitlines() if "[ERROR]" in ln]
    lines = lines or [ln.strip() for ln in log.splitlines() if "error" in ln.lower()]
    lines = [_LOG_STAMP.sub("", ln) for ln in lines]
    return " | ".join(lines[:limit]) or (log.strip().splitlines()[-1] if log.strip() else "no log output")

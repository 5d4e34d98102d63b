"""The red-team's server-side security findings (issue #11: D1, D2, D5, D12, D14, D16), each
reproduced against a real mariadbd started by loadgen."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ..conftest import our_server_pids, run_loadgen

pytestmark = pytest.mark.mysqld


def _fresh_home(session_dir: Path, name: str) -> Path:
    home = session_dir / "security" / name
    assert not home.exists(), "each test needs a datadir nobody initialised yet"
    return home


def _accounts(conn) -> list[tuple[str, str, str, bool]]:
    """(user, host, authentication string, locked) for every account the server knows."""
    cur = conn.cursor()
    cur.execute("SELECT User, Host, JSON_VALUE(Priv, '$.authentication_string'), "
                "IFNULL(JSON_EXTRACT(Priv, '$.account_locked'), 'false') FROM mysql.global_priv")
    out = [(u, h, a or "", locked == "true") for u, h, a, locked in cur.fetchall()]
    cur.close()
    return out


def test_d1_only_loadgens_accounts_exist_and_each_has_a_password(mysqld_binary, session_dir):
    import MySQLdb

    from loadgen.servers.local import LocalServer

    server = LocalServer(_fresh_home(session_dir, "d1"), 8 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        conn = server.connect()
        accounts = _accounts(conn)
        cur = conn.cursor()
        cur.execute("SELECT @@skip_name_resolve, @@secure_file_priv")
        skip_name_resolve, secure_file_priv = cur.fetchone()
        cur.close()
        conn.close()
        # root from localhost and 127.0.0.1 (what loadgen logs in as), plus MariaDB's locked
        # definer account for the sys views; nothing from another host, nobody without a password.
        logins = {(u, h) for u, h, _, locked in accounts if not locked}
        assert logins == {("root", "localhost"), ("root", "127.0.0.1")}, accounts
        assert {(u, h) for u, h, _, locked in accounts if locked} <= {("mariadb.sys", "localhost")}, accounts
        assert all(auth for _, _, auth, _ in accounts), accounts
        assert skip_name_resolve == 1
        assert secure_file_priv and Path(secure_file_priv).is_dir()
        with pytest.raises(MySQLdb.OperationalError) as denied:
            MySQLdb.connect(host="127.0.0.1", port=server.port, user="root", passwd="", connect_timeout=5)
        assert denied.value.args[0] == 1045
        if os.geteuid() == 0:  # never a server running as root
            uid = os.stat(f"/proc/{server.pid}").st_uid
            assert uid != 0
    finally:
        server.stop()


def test_d1_accounts_planted_in_a_cached_datadir_are_gone_at_the_next_start(mysqld_binary, session_dir):
    # what an older loadgen left (root@<hostname>, root@::1 without a password) or an attacker planted
    from loadgen.servers.local import LocalServer

    home = _fresh_home(session_dir, "d1-planted")
    server = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        cur = server.connect().cursor()
        for account in ("'root'@'vm'", "'root'@'::1'", "'backdoor'@'%'"):
            cur.execute(f"CREATE USER {account}")
            cur.execute(f"GRANT ALL ON *.* TO {account} WITH GRANT OPTION")
        cur.execute("ALTER USER 'mariadb.sys'@'localhost' IDENTIFIED VIA mysql_native_password USING ''")
    finally:
        server.stop()
    again = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    again.start()
    try:
        accounts = _accounts(again.connect())
    finally:
        again.stop()
    assert {(u, h) for u, h, _, _ in accounts} <= {("root", "localhost"), ("root", "127.0.0.1"),
                                                   ("mariadb.sys", "localhost")}, accounts
    assert all(auth for _, _, auth, _ in accounts), accounts


def test_d2_a_poller_with_an_empty_password_never_gets_in_during_initialisation(mysqld_binary, session_dir):
    import MySQLdb

    from loadgen.servers.local import LocalServer

    server = LocalServer(_fresh_home(session_dir, "d2"), 8 << 20, mysqld=mysqld_binary)
    sockets = {server.socket_path, str(server.home / "mysqld.sock")}
    got_in: list[str] = []
    attempts = [0]
    done = threading.Event()

    def attacker() -> None:
        while not done.is_set():
            for sock in sockets:
                attempts[0] += 1
                try:
                    c = MySQLdb.connect(unix_socket=sock, user="root", passwd="", connect_timeout=1)
                except MySQLdb.OperationalError:
                    continue
                cur = c.cursor()
                cur.execute("SELECT CURRENT_USER()")
                got_in.append(cur.fetchone()[0])
                c.close()
            time.sleep(0.001)

    thread = threading.Thread(target=attacker, daemon=True)
    thread.start()
    try:
        server.start()
        time.sleep(0.5)  # and a little while after loadgen logged in
    finally:
        done.set()
        thread.join(timeout=10)
        server.stop()
    assert attempts[0] > 10
    assert got_in == []


def test_d14_a_cache_path_with_spaces_and_unicode_works(mysqld_binary, session_dir):
    from loadgen.servers.local import LocalServer

    server = LocalServer(_fresh_home(session_dir, "ca ché/日本 x"), 8 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        conn = server.connect()
        cur = conn.cursor()
        cur.execute("SELECT @@datadir")
        assert cur.fetchone()[0].rstrip("/") == str(server.datadir)
        conn.close()
    finally:
        server.stop()
    assert not (server.home / "data.init").exists()


def test_d12_a_wrong_password_file_fails_at_once_naming_it(mysqld_binary, session_dir, monkeypatch):
    from loadgen.errors import ProvisionError
    from loadgen.servers import local
    from loadgen.servers.local import LocalServer

    home = _fresh_home(session_dir, "d12")
    server = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    server.start()
    server.stop()
    (home / "password").write_text("wrong")
    monkeypatch.setattr(local, "READY_TIMEOUT_S", 30.0)  # the old code waited this long, then blamed the log
    again = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    with pytest.raises(ProvisionError) as err:
        again.start()
    again.stop()
    assert "password file" in str(err.value) and str(home) in str(err.value)
    assert not our_server_pids()


def _fake_state(session_dir: Path, mysqld_binary: str, pid: int) -> dict:
    return {"provider": "local", "pid": pid, "port": 1, "socket": str(session_dir / "nowhere.sock"),
            "home": str(session_dir / "security" / "d5"), "pool_bytes": 8 << 20, "binary": mysqld_binary,
            "flavor": "mariadb", "version": "10.11.19", "options": {}}


def test_d5_a_stale_pid_in_the_up_state_is_never_signalled(mysqld_binary, session_dir):
    state_dir = session_dir / "state-d5"
    state_dir.mkdir()
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        (state_dir / "server.json").write_text(json.dumps(_fake_state(session_dir, mysqld_binary, sleeper.pid)))
        env = {"LOADGEN_STATE_DIR": str(state_dir)}
        status = run_loadgen("status", env=env)
        assert status.returncode == 1, status.stdout
        down = run_loadgen("down", env=env)
        assert down.returncode == 0, down.stderr
        time.sleep(0.3)
        assert sleeper.poll() is None, "loadgen down signalled a process that is not its server"
    finally:
        sleeper.send_signal(signal.SIGKILL)
        sleeper.wait()


@pytest.mark.parametrize("args,needles", [
    (["--set", "=5"], ["--set", "VAR"]),
    (["--set", "innodb_buffer_pool_size;DROP=1"], ["--set", "innodb_buffer_pool_size;DROP"]),
])
def test_d16_set_names_are_checked(args, needles):
    res = run_loadgen("run", "--server", "local", "--rows", "1000", *args)
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    for needle in needles:
        assert needle in lines[0]


def test_d16_a_pool_larger_than_memory_is_refused_before_starting(mysqld_binary):
    res = run_loadgen("run", "--server", "local", "--rows", "1000", "--pool", "64T")
    assert res.returncode != 0
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1 and "memory" in lines[0].lower() and "MemAvailable" in lines[0], res.stderr
    assert not our_server_pids()


def test_d16_the_causal_error_line_is_shown(mysqld_binary):
    # the server refuses a 1 MiB pool: the first [ERROR] names it, the last ones only say "Aborting"
    res = run_loadgen("run", "--server", "local", "--rows", "1000", "--pool", "8M",
                      "--set", "innodb_buffer_pool_size=1M")
    assert res.returncode == 1
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1 and "innodb_buffer_pool_size" in lines[0], res.stderr
    assert not our_server_pids()


def test_as_root_a_cache_dir_the_server_user_cannot_enter_is_one_line_naming_the_fix(mysqld_binary, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root runs the server as another user")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    res = run_loadgen("run", "--server", "local", "--rows", "1000", "--pool", "8M",
                      env={"LOADGEN_CACHE_DIR": str(private / "cache")})
    assert res.returncode == 1
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "cannot enter" in lines[0] and "chmod o+x" in lines[0], lines[0]
    assert not our_server_pids()


# -- issue #18 N1: a schema file runs nothing but CREATE TABLE (and indexes) in --database ---------
@pytest.mark.parametrize("name,text,line,needle", [
    ("drop.sql", "CREATE TABLE message (id INT PRIMARY KEY, v VARCHAR(20));\nDROP DATABASE mysql;\n", 2,
     '"DROP DATABASE mysql"'),
    ("grant.sql", "CREATE TABLE message (id INT PRIMARY KEY, v VARCHAR(20)) ; CREATE USER 'evil'@'%' "
     "IDENTIFIED BY 'evilpw'; GRANT ALL ON *.* TO 'evil'@'%' WITH GRANT OPTION;\n", 1, '"CREATE USER'),
    ("comment.sql", "CREATE TABLE message (id INT PRIMARY KEY, v VARCHAR(20));\n"
     "CREATE TABLE IF NOT EXISTS `mysql`.`evilt` (id INT PRIMARY KEY);\n", 2, "outside --database chat"),
])
def test_n1_a_hostile_schema_file_is_refused_before_any_server_starts(session_dir, tmp_path, name, text, line,
                                                                     needle):
    """The red team's three files: each ran as root on 37e8410 (the mysql schema dropped, an
    account with a password the file chose, a table in mysql). Now: exit 2 at once, one line
    naming the file, the line and the statement, no datadir made and no result written."""
    schema = tmp_path / name
    schema.write_text(text)
    out = tmp_path / "o.json"
    cache = session_dir / "security" / f"n1-cache-{name}"  # a place the server user can reach
    res = run_loadgen("run", "--server", "local", "--order", "random", "--pool", "8M", "--rows", "20k",
                      "--schema", str(schema), "--out", str(out), timeout=300,
                      env={"LOADGEN_CACHE_DIR": str(cache), "LOADGEN_STATE_DIR": str(cache / "state")})
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{schema} line {line}: " in err and needle in err and "evilpw" not in err, err
    assert not out.exists()
    assert not list(cache.rglob("mysql")), "a datadir was made: a server started"


def test_n1_a_datadir_without_the_mysql_schema_is_one_line_naming_the_fix(mysqld_binary, session_dir):
    """What `DROP DATABASE mysql` in a schema file left on 37e8410: every later start died with
    "OSError: [Errno 39] Directory not empty: data.init -> data"."""
    from loadgen.errors import ProvisionError
    from loadgen.servers.local import LocalServer

    home = _fresh_home(session_dir, "n1-no-mysql")
    server = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    server.start()
    try:
        conn = server.connect()
        conn.cursor().execute("DROP DATABASE mysql")
        conn.close()
    finally:
        server.stop()
    again = LocalServer(home, 8 << 20, mysqld=mysqld_binary)
    with pytest.raises(ProvisionError) as err:
        again.start()
    again.stop()
    assert f"remove {home}" in str(err.value) and "\n" not in str(err.value)
    assert not (home / "data.init").exists() and not our_server_pids()

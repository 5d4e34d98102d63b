"""The logins of a datadir a local server uses: root at localhost and 127.0.0.1 with loadgen's
generated password, the servers' own locked system accounts, and nothing else. They are set when
the datadir is made (bootstrap_sql for MariaDB, mysql_init_sql for MySQL), before the server ever
listens, and checked again at every start (enforce_accounts), whatever made the datadir."""
from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from ..errors import ProvisionError

# Accounts MariaDB/MySQL create for their own views and internals: locked, no login.
SYSTEM_ACCOUNTS = {("mariadb.sys", "localhost"), ("mysql.sys", "localhost"), ("mysql.session", "localhost"),
                   ("mysql.infoschema", "localhost")}
ROOT_HOSTS = ("localhost", "127.0.0.1")
# What mariadb-install-db feeds `mariadbd --bootstrap`, in its order (without the test db).
BOOTSTRAP_FILES = ["mysql_system_tables.sql", "mysql_performance_tables.sql", "mysql_system_tables_data.sql",
                   "fill_help_tables.sql", "maria_add_gis_sp_bootstrap.sql", "mysql_sys_schema.sql"]


def native_password_hash(password: str) -> str:
    # mysql_native_password's stored form: the server never needs to see the password itself.
    return "*" + hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest().upper()


def share_dir(binary: str) -> Path:
    base = Path(binary).resolve().parent.parent
    for d in (base / "share" / "mysql", base / "share" / "mariadb", base / "share",
              Path("/usr/share/mysql"), Path("/usr/share/mariadb")):
        if (d / "mysql_system_tables.sql").is_file():
            return d
    raise ProvisionError("cannot find mysql_system_tables.sql to initialise a datadir",
                         "install mariadb-server (Debian/Ubuntu) or pass --mysqld from a complete install")


def bootstrap_sql(binary: str, password: str) -> str:
    """What `mariadbd --bootstrap` is fed for a new datadir: the system tables as mariadb-install-db
    makes them, then logins for root at localhost and 127.0.0.1 alone, with the password."""
    share = share_dir(binary)
    parts = ["CREATE DATABASE IF NOT EXISTS mysql;", "USE mysql;", "SET @auth_root_socket=NULL;"]
    for name in BOOTSTRAP_FILES:
        parts.append((share / name).read_text())
    digest = native_password_hash(password)
    unusable = native_password_hash(secrets.token_urlsafe(32))  # for the locked definer account
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


def mysql_init_sql(password: str) -> str:
    # token_urlsafe passwords hold no quote or backslash
    return (f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{password}';\n"
            f"CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '{password}';\n"
            "GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n")


def enforce_accounts(conn, password: str) -> None:
    """Drop any login but ours and give ours the password, whatever made the datadir (an older
    loadgen left root@<hostname> and root@::1 without one)."""
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

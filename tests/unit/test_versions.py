"""Server versions: flavour and x.y.z from what the server says, for every release scheme."""
from __future__ import annotations

import pytest

from loadgen.db import Flavor, auth_plugin_hint, parse_version


@pytest.mark.parametrize("version, comment, expected", [
    ("9.7.4", "MySQL Community Server - GPL", Flavor("mysql", "9.7.4")),
    ("9.7.4-2", "(Debian)", Flavor("mysql", "9.7.4")),  # Debian's package: its revision follows
    ("8.4.6", "MySQL Community Server - GPL", Flavor("mysql", "8.4.6")),
    ("8.4.3-3", "Percona Server (GPL), Release 3", Flavor("mysql", "8.4.3")),
    ("26.10.0", "MySQL Community Server - GPL", Flavor("mysql", "26.10.0")),  # calendar versions
    ("10.11.19-MariaDB-0+deb12u1", "Debian 12", Flavor("mariadb", "10.11.19")),
    ("10.11.19-MariaDB", "", Flavor("mariadb", "10.11.19")),
    ("5.5.5-10.11.19-MariaDB", "", Flavor("mariadb", "10.11.19")),  # the old handshake prefix
    ("11.8.2-MariaDB-ubu2404", "mariadb.org binary distribution", Flavor("mariadb", "11.8.2")),
    # A build whose version string hides the name: the comment still tells.
    ("10.11.19", "mariadb.org binary distribution", Flavor("mariadb", "10.11.19")),
])
def test_parse_version(version, comment, expected):
    assert parse_version(version, comment) == expected


def test_version_tuples_order_calendar_releases_after_the_old_scheme():
    versions = ["26.10.0", "8.4.6", "9.7.4", "10.11.19"]
    ordered = sorted(versions, key=lambda v: parse_version(v).version_tuple)
    assert ordered == ["8.4.6", "9.7.4", "10.11.19", "26.10.0"]
    assert parse_version("26.10.0").version_tuple == (26, 10, 0)


def test_a_missing_auth_plugin_is_not_called_a_wrong_password():
    # What libmariadb says (as error 1045) when caching_sha2_password.so is not where it looks.
    missing = Exception(1045, "Plugin caching_sha2_password could not be loaded: /x/caching_sha2_password.so: "
                              "cannot open shared object file: No such file or directory")
    hint = auth_plugin_hint(missing)
    assert hint is not None and "libmariadb3" in hint and "MARIADB_PLUGIN_DIR" in hint
    assert auth_plugin_hint(Exception(1045, "Access denied for user 'root'@'172.17.0.1' (using password: YES)")) is None

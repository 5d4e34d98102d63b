"""`loadgen image build` takes its apt sources from the host: which entries it keeps."""
from __future__ import annotations

import pytest

from loadgen.errors import ProvisionError
from loadgen.servers.image import apt_sources, host_release


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_keeps_the_release_suites_of_both_formats_and_drops_the_rest(tmp_path):
    write(tmp_path / "sources.list", """\
deb http://mirror.example/debian bookworm main
deb-src http://mirror.example/debian bookworm main
# deb http://commented.example/debian bookworm main
deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm-updates main
""")
    write(tmp_path / "sources.list.d" / "debian.sources", """\
Types: deb
# http://snapshot.debian.org/archive/debian-security/20250520T000000Z
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no
""")
    write(tmp_path / "sources.list.d" / "nodesource.sources",
          "Types: deb\nURIs: https://deb.nodesource.com/node_20.x\nSuites: nodistro\nComponents: main\n")
    write(tmp_path / "sources.list.d" / "cloud.list", "deb https://packages.example/apt cloud-sdk-bookworm main\n")
    write(tmp_path / "sources.list.d" / "old.list.disabled", "deb http://off.example/debian bookworm main\n")

    one_line, deb822 = apt_sources("bookworm", tmp_path)

    assert one_line == [
        "deb http://mirror.example/debian bookworm main",
        "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm-updates main",
    ]
    assert len(deb822) == 1
    assert "security.example" in deb822[0] and "Signed-By:" in deb822[0] and "snapshot" not in deb822[0]


def test_no_source_for_the_release_is_an_error_naming_the_fix(tmp_path):
    write(tmp_path / "sources.list", "deb http://mirror.example/ubuntu noble main\n")
    with pytest.raises(ProvisionError, match="no apt source for bookworm"):
        apt_sources("bookworm", tmp_path)


def test_host_release_reads_the_codename(tmp_path):
    write(tmp_path / "os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n')
    assert host_release(tmp_path / "os-release") == "bookworm"
    write(tmp_path / "other", 'NAME="Something"\n')
    with pytest.raises(ProvisionError, match="release"):
        host_release(tmp_path / "other")


def test_mysql_flavor_takes_sid_from_the_main_archive_only(tmp_path):
    from loadgen.servers.image import retarget_sources

    write(tmp_path / "sources.list", "deb [signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib\n"
                                     "deb http://mirror.example/debian bookworm-updates main\n")
    write(tmp_path / "sources.list.d" / "debian.sources", """\
Types: deb
URIs: http://deb.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.example/debian-security
Suites: bookworm-security
Components: main
""")
    one_line, deb822 = retarget_sources(*apt_sources("bookworm", tmp_path), "bookworm", "sid")
    assert one_line == ["deb [signed-by=/k.gpg] http://mirror.example/debian sid main contrib"]
    assert len(deb822) == 1
    assert "Suites: sid\n" in deb822[0] and "URIs: http://deb.example/debian\n" in deb822[0]
    assert "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" in deb822[0]


def test_mysql_flavor_without_a_main_archive_is_an_error(tmp_path):
    from loadgen.servers.image import retarget_sources

    write(tmp_path / "sources.list", "deb http://mirror.example/debian-security bookworm-security main\n")
    with pytest.raises(ProvisionError, match="no apt source for bookworm itself"):
        retarget_sources(*apt_sources("bookworm", tmp_path), "bookworm", "sid")


def test_mysql_tags_name_the_release_series():
    from loadgen.errors import UsageError
    from loadgen.servers.image import default_tag

    assert default_tag("mysql", "9.7.4") == "loadgen/mysql:9.7"
    assert default_tag("mysql", "26.10.0") == "loadgen/mysql:26.10"
    assert default_tag("mariadb", "10.11.19") == "loadgen/mariadb:10.11"
    with pytest.raises(UsageError, match="--flavor 'percona'"):
        default_tag("percona", "8.0.1")

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


def test_another_release_takes_its_fix_pockets_from_the_same_mirrors(tmp_path):
    """--release trixie on a bookworm host: the main archive, -updates and -security pointed at
    trixie (its security fixes arrive there), backports left out (opt-in on the host)."""
    from loadgen.servers.image import retarget_sources

    write(tmp_path / "sources.list", "deb [signed-by=/k.gpg] http://mirror.example/debian bookworm main\n"
                                     "deb http://mirror.example/debian bookworm-updates main\n"
                                     "deb http://mirror.example/debian bookworm-backports main\n")
    write(tmp_path / "sources.list.d" / "debian.sources", """\
Types: deb
URIs: http://deb.example/debian
Suites: bookworm bookworm-updates bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
""")
    one_line, deb822 = retarget_sources(*apt_sources("bookworm", tmp_path), "bookworm", "trixie")
    assert one_line == ["deb [signed-by=/k.gpg] http://mirror.example/debian trixie main",
                        "deb http://mirror.example/debian trixie-updates main"]
    assert len(deb822) == 2
    assert "Suites: trixie trixie-updates\n" in deb822[0] and "URIs: http://deb.example/debian\n" in deb822[0]
    assert "Suites: trixie-security\n" in deb822[1] and "debian-security" in deb822[1]
    assert all("bookworm" not in s for s in one_line + deb822)
    # the old spelling of the security pocket (Debian 10 and older) maps to the new one
    lines, _ = retarget_sources(["deb http://security.example/debian-security buster/updates main",
                                 "deb http://mirror.example/debian buster main"], [], "buster", "trixie")
    assert lines == ["deb http://security.example/debian-security trixie-security main",
                     "deb http://mirror.example/debian trixie main"]


def test_a_release_is_a_codename_before_anything_is_built():
    from loadgen.errors import UsageError
    from loadgen.servers.image import RECIPES, _release

    assert _release(RECIPES["mariadb"], "trixie") == "trixie"
    assert _release(RECIPES["mysql"], None) == "sid"
    for bad in ("tr;x", "../sid", "trixie main", "Trixie"):
        with pytest.raises(UsageError, match="codename"):
            _release(RECIPES["mariadb"], bad)


class _Image:
    def __init__(self, labels):
        self.labels, self.id, self.attrs = labels, "sha256:x", {"Size": 1}


def test_an_image_says_its_release_from_its_labels():
    from loadgen.servers.image import _built_image

    labels = {"org.loadgen.flavor": "mariadb", "org.loadgen.version": "11.8.9", "org.loadgen.release": "trixie",
              "org.loadgen.built-from": "trixie (host apt sources)"}
    assert _built_image("loadgen/mariadb:11.8", _Image(labels)).release == "trixie"
    # built before the release label: the suite named in built-from
    old = {"org.loadgen.flavor": "mysql", "org.loadgen.built-from": "sid (host apt sources)"}
    assert _built_image("loadgen/mysql:9.7", _Image(old)).release == "sid"
    assert _built_image("mariadb:11.8", _Image({})).release == "?"  # not ours: unknown


def test_a_bad_release_is_a_one_line_usage_error_from_the_cli():
    import os
    import subprocess
    import sys

    # refused before an engine is asked for: none answers here
    res = subprocess.run([sys.executable, "-m", "loadgen", "image", "build", "--release", "trixie;rm"],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "DOCKER_HOST": "unix:///nonexistent.sock"})
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == ["loadgen: error: --release 'trixie;rm' is not a release codename; "
                                               "e.g. --release trixie"]


def test_a_missing_image_names_the_build_that_makes_it():
    from loadgen.servers.engine import build_hint

    assert "--release trixie" in build_hint("loadgen/mariadb:11.8")
    assert "`loadgen image build` and pass --image loadgen/mariadb:10.11" in build_hint("loadgen/mariadb:10.11")
    assert "--flavor mysql" in build_hint("loadgen/mysql:9.7")

"""`loadgen image build`: a MariaDB or MySQL image made from Debian's own packages.

For hosts with Docker but no registry (CI here): mmdebstrap assembles a minimal root filesystem
(the essential set plus the server's and client's -core packages) from the apt sources the host
already uses, and `docker import` turns it into an image whose small entrypoint initialises the
datadir and passes flags through to the server, as the official images do. No mirror is
hard-coded: the sources are copied from /etc/apt.

  mariadb  the host's own release (bookworm: MariaDB 10.11), tag loadgen/mariadb:10.11; with
           release="trixie" Debian 13's MariaDB (11.8) from the host's mirror, tagged
           loadgen/mariadb:<major.minor> of the version it got
  mysql    Oracle MySQL from Debian's `sid` suite on the host's mirror (9.7 today; it needs a
           newer glibc than bookworm, so it runs in a container, not on the host), tagged
           loadgen/mysql:<major.minor> of the version it got

Another release's packages come from the host's own mirrors: its main archive (and, for a
release that has them, its -updates and -security pockets) pointed at that release, with the
same keys. Every image is labelled with the release it came from, so an image of one release is
never reused for another.
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

from ..errors import ProvisionError, UsageError
from .engine import LABEL

DEFAULT_TAG = "loadgen/mariadb:10.11"
PACKAGES = ["mariadb-server-core", "mariadb-client-core"]
FLAVORS = ("mariadb", "mysql")
APT_DIR = Path("/etc/apt")
ENTRYPOINT = "/usr/local/bin/loadgen-entrypoint"
# What both flavours' entrypoints source: root's password and accounts (imagefiles/).
ENTRYPOINT_COMMON = ("entrypoint-common.sh", "/usr/local/lib/loadgen/entrypoint-common.sh")
# The official images run mariadbd as uid/gid 999 too, so a volume moves between them.
MYSQL_USER_LINE = "mysql:x:999:999:MariaDB Server:/nonexistent:/usr/sbin/nologin"
MYSQL_GROUP_LINE = "mysql:x:999:"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Recipe:
    """How one flavour's image is made."""

    flavor: str
    packages: tuple[str, ...]
    suite: str | None  # the release when none is asked for; None: the host's own
    entrypoint: str  # file in imagefiles/
    cnf: str  # file in imagefiles/
    cnf_path: str  # where the server reads it in the image
    server: str  # the binary CMD runs
    version_env: str  # what the official image calls its version variable
    repository: str  # tag without the version


RECIPES = {
    "mariadb": Recipe("mariadb", tuple(PACKAGES), None, "entrypoint.sh", "loadgen.cnf",
                      "/etc/mysql/mariadb.conf.d/99-loadgen.cnf", "mariadbd", "MARIADB_VERSION", "loadgen/mariadb"),
    # /etc/my.cnf: mysql-server-core ships no /etc/mysql/my.cnf, and mysqld reads /etc/my.cnf first.
    "mysql": Recipe("mysql", ("mysql-server-core", "mysql-client-core"), "sid", "entrypoint-mysql.sh",
                    "mysql.cnf", "/etc/my.cnf", "mysqld", "MYSQL_VERSION", "loadgen/mysql"),
}


@dataclass
class BuiltImage:
    tag: str
    image_id: str
    flavor: str
    version: str  # server version, e.g. "10.11.19"
    package_version: str  # Debian version, e.g. "1:10.11.19-0+deb12u1"
    size_bytes: int
    build_s: float | None  # None when an existing image was reused
    reused: bool
    release: str = "?"  # the Debian/Ubuntu release its packages came from ("?": not labelled)

    def to_dict(self) -> dict:
        return asdict(self)


# -- apt sources ---------------------------------------------------------------------------------
def host_release(os_release: Path = Path("/etc/os-release")) -> str:
    """The host's release codename (bookworm, noble, ...)."""
    try:
        text = os_release.read_text()
    except OSError:
        text = ""
    m = re.search(r'^VERSION_CODENAME="?([a-z]+)"?', text, re.M)
    if not m:
        raise ProvisionError("cannot tell the host's Debian/Ubuntu release from /etc/os-release",
                             "`loadgen image build` needs a Debian or Ubuntu host")
    return m.group(1)


def _suite_matches(suite: str, codename: str) -> bool:
    # bookworm, bookworm-updates, bookworm-security, and the old bookworm/updates spelling.
    return suite == codename or suite.startswith((codename + "-", codename + "/"))


def _one_line_entries(text: str, codename: str) -> list[str]:
    kept = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line.startswith("deb "):
            continue  # deb-src and comments: binary packages are all we need
        fields = re.sub(r"\[[^\]]*\]", " ", line).split()
        if len(fields) >= 3 and _suite_matches(fields[2], codename):
            kept.append(line)
    return kept


def _deb822_stanzas(text: str, codename: str) -> list[str]:
    kept = []
    for stanza in re.split(r"\n\s*\n", text):
        body = "\n".join(ln for ln in stanza.splitlines() if not ln.lstrip().startswith("#"))
        fields = {}
        for m in re.finditer(r"^([A-Za-z-]+):[ \t]*(.*)$", body, re.M):
            fields[m.group(1).lower()] = m.group(2).strip()
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        if any(_suite_matches(s, codename) for s in fields.get("suites", "").split()):
            kept.append(body.strip())
    return kept


def apt_sources(codename: str, apt_dir: Path = APT_DIR) -> tuple[list[str], list[str]]:
    """(one-line entries, deb822 stanzas) of the host's enabled sources for its own release.

    Third-party repositories for other suites (nodesource's "nodistro", cloud SDKs) are left out:
    the image needs the distribution's packages only.
    """
    one_line: list[str] = []
    deb822: list[str] = []
    files = [apt_dir / "sources.list"] + sorted((apt_dir / "sources.list.d").glob("*"))
    for path in files:
        if not path.is_file():
            continue
        try:
            text = path.read_text()
        except OSError:
            continue
        if path.suffix == ".list":
            one_line += _one_line_entries(text, codename)
        elif path.suffix == ".sources":
            deb822 += _deb822_stanzas(text, codename)
    if not one_line and not deb822:
        raise ProvisionError(f"no apt source for {codename} in {apt_dir}/sources.list or sources.list.d",
                             "configure apt so that `apt-get install mariadb-server-core` works on this host")
    return one_line, deb822


# Suites whose fixes arrive in the suite itself: no -updates or -security pocket to point at.
POCKETLESS_SUITES = ("sid", "unstable", "experimental")
# The pockets of a stable release that carry its fixes (security ones among them); backports and
# proposed updates are opt-in on the host and stay out.
FIX_POCKETS = ("updates", "security")


def _retarget_suite(name: str, codename: str, suite: str) -> str | None:
    """The host's suite `name` pointed at `suite`: bookworm -> trixie, bookworm-security ->
    trixie-security (and the old bookworm/updates spelling too); None to leave it out."""
    if name == codename:
        return suite
    if suite in POCKETLESS_SUITES:
        return None
    pocket = name[len(codename) + 1:] if _suite_matches(name, codename) else ""
    if name == f"{codename}/updates":  # Debian 10 and older named the security pocket so
        pocket = "security"
    return f"{suite}-{pocket}" if pocket in FIX_POCKETS else None


def retarget_sources(one_line: list[str], deb822: list[str], codename: str,
                     suite: str) -> tuple[list[str], list[str]]:
    """The host's entries for its own release pointed at `suite` on the same mirrors with the same
    keys: the main archive always, its -updates and -security pockets too unless `suite` has none
    (sid). The main archive (suite == codename exactly) must be among them."""
    lines: list[str] = []
    main_archive = False
    for line in one_line:
        m = re.match(r"^(deb\s+(?:\[[^\]]*\]\s+)?\S+\s+)(\S+)(.*)$", line)
        target = _retarget_suite(m.group(2), codename, suite) if m else None
        if target is None:
            continue
        main_archive |= m.group(2) == codename
        new = m.group(1) + target + m.group(3)
        if new not in lines:
            lines.append(new)
    stanzas: list[str] = []
    for stanza in deb822:
        m = re.search(r"^Suites:[ \t]*(.*)$", stanza, re.M | re.I)
        if not m:
            continue
        names = m.group(1).split()
        targets = [t for t in (_retarget_suite(n, codename, suite) for n in names) if t is not None]
        if not targets:
            continue
        main_archive |= codename in names
        new = stanza[:m.start()] + f"Suites: {' '.join(dict.fromkeys(targets))}" + stanza[m.end():]
        if new not in stanzas:
            stanzas.append(new)
    if not main_archive:
        raise ProvisionError(f"no apt source for {codename} itself to take the mirror for {suite} from",
                             "add the distribution's main archive to /etc/apt/sources.list(.d)")
    return lines, stanzas


# -- the build -----------------------------------------------------------------------------------
def _client():
    from .engine import engine

    try:
        return engine()
    except ProvisionError as exc:
        raise ProvisionError(exc.message, "start Docker: the image is imported into its engine") from None


def _built_image(tag: str, obj) -> BuiltImage:
    labels = obj.labels or {}
    # Images built before the release label had only built-from ("sid (host apt sources)").
    release = labels.get(f"{LABEL}.release") or (labels.get(f"{LABEL}.built-from") or "?").split(" ")[0]
    return BuiltImage(tag=tag, image_id=obj.id, flavor=labels.get(f"{LABEL}.flavor", "?"),
                      version=labels.get(f"{LABEL}.version", "?"),
                      package_version=labels.get(f"{LABEL}.package-version", "?"),
                      size_bytes=int(obj.attrs.get("Size") or 0), build_s=None, reused=True, release=release)


def find_image(tag: str) -> BuiltImage | None:
    """The image already tagged `tag`, if any."""
    import docker as docker_sdk

    client = _client()
    try:
        obj = client.images.get(tag)
    except docker_sdk.errors.ImageNotFound:
        return None
    finally:
        client.close()
    return _built_image(tag, obj)


def find_flavor_image(flavor: str, release: str | None = None) -> BuiltImage | None:
    """The newest image `loadgen image build --flavor FLAVOR [--release RELEASE]` made (tagged in
    its repository, from that release's packages; None: the flavour's default release)."""
    recipe = _recipe(flavor)
    suite = _release(recipe, release)
    client = _client()
    try:
        found = []
        for obj in client.images.list(filters={"label": f"{LABEL}.flavor={flavor}"}):
            for tag in obj.tags:
                built = _built_image(tag, obj)
                if tag.rpartition(":")[0] == recipe.repository and built.release == suite:
                    found.append(built)
    finally:
        client.close()
    # Newest server version first; a tag that is not a version sorts last.
    found.sort(key=lambda b: tuple(int(x) for x in re.findall(r"\d+", b.version)[:3]), reverse=True)
    return found[0] if found else None


def _recipe(flavor: str) -> Recipe:
    try:
        return RECIPES[flavor]
    except KeyError:
        raise UsageError(f"--flavor {flavor!r} is not one of {', '.join(FLAVORS)}",
                         "use --flavor mysql or mariadb") from None


def _release(recipe: Recipe, release: str | None) -> str:
    """The release whose packages a build takes: the one asked for, the recipe's, or the host's."""
    if release is not None and not re.fullmatch(r"[a-z][a-z0-9]*", release):
        raise UsageError(f"--release {release!r} is not a release codename", "e.g. --release trixie")
    return release or recipe.suite or host_release()


def default_tag(flavor: str, version: str) -> str:
    """loadgen/mysql:9.7 for 9.7.4: one tag per release series, as the official images have."""
    major_minor = ".".join(re.findall(r"\d+", version)[:2])
    return f"{_recipe(flavor).repository}:{major_minor}"


def _file(name: str) -> Path:
    try:
        return Path(str(resources.files("loadgen.imagefiles") / name))
    except (ModuleNotFoundError, TypeError):  # a checkout without install
        return Path(__file__).resolve().parent / "imagefiles" / name


def _check_tag(tag: str, example: str) -> None:
    if ":" not in tag.rsplit("/", 1)[-1] or not re.fullmatch(r"[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9_.-]*", tag):
        raise UsageError(f"--tag {tag!r} is not an image name:tag", f"e.g. --tag {example}")


def build(tag: str | None = None, force: bool = False, progress: Progress | None = None,
          flavor: str = "mariadb", release: str | None = None) -> BuiltImage:
    """Build the offline image, or return the one already there unless force.

    Args:
        tag: image name:tag to create; None: <repository>:<major.minor> of the version the build
            gets (loadgen/mariadb:10.11 from bookworm, loadgen/mariadb:11.8 from trixie,
            loadgen/mysql:9.7 from sid); an image of the same flavour and release is reused.
        force: rebuild even when the tag (or, without a tag, an image of the release) exists.
        progress: called with mmdebstrap's progress lines.
        flavor: "mariadb" (the host release's packages) or "mysql" (Debian sid's).
        release: the Debian/Ubuntu release to take the packages from, on the host's mirrors
            (e.g. "trixie" for MariaDB 11.8); None: the host's own for mariadb, sid for mysql.
    """
    recipe = _recipe(flavor)
    suite = _release(recipe, release)
    if tag is not None:
        _check_tag(tag, DEFAULT_TAG if flavor == "mariadb" else "loadgen/mysql:9.7")
    if not force:
        existing = find_image(tag) if tag is not None else find_flavor_image(flavor, suite)
        if existing is not None:
            if existing.flavor not in ("?", flavor):
                raise UsageError(f"{tag} holds {existing.flavor}, not {flavor}",
                                 "pass another --tag, or --force to replace it")
            if existing.release not in ("?", suite):
                raise UsageError(f"{tag} holds {existing.flavor} {existing.version} from {existing.release}, "
                                 f"not from {suite}", "pass another --tag, or --force to replace it")
            return existing
    mmdebstrap = shutil.which("mmdebstrap")
    if not mmdebstrap:
        raise ProvisionError("mmdebstrap is not installed", "apt-get install mmdebstrap (or run `make deps`)")
    client = _client()  # fail on a missing engine before spending a minute on the root fs
    codename = host_release()
    one_line, deb822 = apt_sources(codename)
    if suite != codename:
        one_line, deb822 = retarget_sources(one_line, deb822, codename, suite)
    packages = list(recipe.packages)
    if progress:
        progress(f"building {tag or recipe.repository + ':<version>'} from the {suite} packages "
                 f"(mmdebstrap {', '.join(packages)})")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="loadgen-image-") as tmp_name:
        tmp = Path(tmp_name)
        mirrors = []
        if one_line:
            (tmp / "host.list").write_text("\n".join(one_line) + "\n")
            mirrors.append(str(tmp / "host.list"))
        if deb822:
            (tmp / "host.sources").write_text("\n\n".join(deb822) + "\n")
            mirrors.append(str(tmp / "host.sources"))
        version_file = tmp / "package-version"
        rootfs = tmp / "rootfs.tar"
        apt_options = []
        if suite in POCKETLESS_SUITES:
            # A mirror's (or snapshot's) sid Release file can be past its Valid-Until date; apt
            # then refuses it. This build only: the host's apt keeps checking.
            apt_options.append("--aptopt=Acquire::Check-Valid-Until \"false\"")
        cmd = [
            mmdebstrap, "--variant=essential", f"--include={','.join(packages)}", *apt_options,
            # Documentation and translations are a third of the size and nothing reads them.
            "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
            "--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/info/*",
            # The full server packages (not -core) would create the mysql user; we skip their
            # init scripts.
            f"--customize-hook=echo {shlex.quote(MYSQL_USER_LINE)} >> \"$1/etc/passwd\"; "
            f"echo {shlex.quote(MYSQL_GROUP_LINE)} >> \"$1/etc/group\"",
            f"--customize-hook=upload {_file(recipe.entrypoint)} {ENTRYPOINT}",
            f"--customize-hook=chmod 755 \"$1{ENTRYPOINT}\"",
            f"--customize-hook=mkdir -p \"$1{Path(ENTRYPOINT_COMMON[1]).parent}\"",
            f"--customize-hook=upload {_file(ENTRYPOINT_COMMON[0])} {ENTRYPOINT_COMMON[1]}",
            f"--customize-hook=mkdir -p \"$1{Path(recipe.cnf_path).parent}\"",
            f"--customize-hook=upload {_file(recipe.cnf)} {recipe.cnf_path}",
            f"--customize-hook=chroot \"$1\" dpkg-query -W -f='${{Version}}' {packages[0]} "
            f"> {shlex.quote(str(version_file))}",
            suite, str(rootfs), *mirrors,
        ]
        _run_mmdebstrap(cmd, progress)
        package_version = version_file.read_text().strip()
        m = re.search(r"\d+\.\d+\.\d+", package_version)
        version = m.group(0) if m else package_version
        if tag is None:
            tag = default_tag(flavor, version)
        changes = [
            f'ENTRYPOINT ["{ENTRYPOINT}"]',
            f'CMD ["{recipe.server}"]',
            "EXPOSE 3306",
            f"ENV {recipe.version_env}={package_version}",
            f'LABEL {LABEL}.flavor="{flavor}" {LABEL}.version="{version}" '
            f'{LABEL}.package-version="{package_version}" {LABEL}.release="{suite}" '
            f'{LABEL}.built-from="{suite} (host apt sources)"',
        ]
        if progress:
            progress(f"importing {rootfs.stat().st_size >> 20} MiB into {tag}")
        repository, _, image_tag = tag.rpartition(":")
        try:
            client.api.import_image_from_file(str(rootfs), repository=repository, tag=image_tag, changes=changes)
        except Exception as exc:  # noqa: BLE001 - docker-py and the engine raise many kinds: any is one line
            raise ProvisionError(f"docker import failed: {exc}", "check `docker info`") from None
        finally:
            client.close()
    built = find_image(tag)
    if built is None:
        raise ProvisionError(f"docker import reported success but {tag} is missing", "check `docker images`")
    built.build_s = round(time.monotonic() - started, 1)
    built.reused = False
    return built


def _run_mmdebstrap(cmd: list[str], progress: Progress | None) -> None:
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, errors="replace")
    tail: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            line = line.rstrip()
            tail = (tail + [line])[-5:]
            if progress and line.startswith("I: ") and "hook" not in line:
                progress(line[3:])
        rc = proc.wait()
    except BaseException:
        # Ctrl-C reaches mmdebstrap too (same process group); give it time to remove its tempdir.
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise
    if rc != 0:
        errors = [ln for ln in tail if ln.startswith("E: ")] or tail
        raise ProvisionError(f"mmdebstrap failed: {' | '.join(errors[-2:])}",
                             "check that apt works on this host (`apt-get update`), and that you are root "
                             "or user namespaces are enabled")

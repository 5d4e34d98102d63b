"""The Docker engine as loadgen uses it: the client, the images (present, pullable, which server
they hold), the labels that mark loadgen's containers and volumes, and the sweep of those a killed
loadgen left behind. The server in a container is docker.py; `loadgen image build` is image.py.
"""
from __future__ import annotations

import os
import re
import socket

from ..db import Flavor, parse_version
from ..errors import ProvisionError
from ..paths import cache_dir
from .host import pid_alive

DEFAULT_IMAGE = "mysql:8.4"
ENGINE_TIMEOUT_S = 120  # docker API calls; a graceful stop waits up to docker.STOP_TIMEOUT_S inside one
LABEL = "org.loadgen"
NO_ENGINE_HINT = "start Docker, or use --server local"


def engine(timeout: int = ENGINE_TIMEOUT_S):
    """A docker-py client that has answered a ping; ProvisionError when there is none."""
    try:
        import docker as docker_sdk
    except ImportError:
        raise ProvisionError("--server docker needs the testcontainers package",
                             "pip install 'loadgen[docker]', or use --server local") from None
    where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    try:
        client = docker_sdk.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure here means "no usable engine"
        if "Permission denied" in str(exc) or "PermissionError" in str(exc):
            raise ProvisionError(f"no permission to use the Docker engine at {where}",
                                 "add yourself to the docker group, or use --server local") from None
        raise ProvisionError(f"no Docker engine answers at {where}", NO_ENGINE_HINT) from None
    return client


def image_status(client, image: str) -> tuple[bool, str]:
    """(usable, why): present locally, or pullable according to its registry."""
    import docker as docker_sdk

    try:
        client.images.get(image)
        return True, f"image {image} is present"
    except docker_sdk.errors.ImageNotFound:
        pass
    except docker_sdk.errors.APIError as exc:
        return False, f"cannot inspect image {image}: {short_error(exc)}"
    try:
        # Asks the registry for the manifest only: cheap, and fails fast when there is no registry.
        client.api.inspect_distribution(image)
        return True, f"image {image} can be pulled"
    except Exception as exc:  # noqa: BLE001 - any failure means not pullable: the reason is said
        return False, f"image {image} is neither present nor pullable ({short_error(exc)})"


def auto_choice(image: str | None) -> tuple[str | None, Flavor | None, str]:
    """For --server auto: (image, the server it holds, why) when docker is to be used, else
    (None, None, why not). Never raises.

    Without --image, an image already here wins over one to pull: DEFAULT_IMAGE if present, else
    the newest `loadgen image build` image (MySQL first, the flavour DEFAULT_IMAGE holds, then
    MariaDB), else DEFAULT_IMAGE if its registry answers."""
    try:
        import testcontainers  # noqa: F401 - only whether it is installed
    except ImportError:
        return None, None, "testcontainers is not installed"
    try:
        client = engine(timeout=5)
    except ProvisionError as exc:
        return None, None, exc.message
    try:
        candidates = [image] if image else [DEFAULT_IMAGE, *_built_images(client)]
        for name in candidates:
            if _present(client, name):
                return name, image_flavor(client, name), "present here"
        wanted = image or DEFAULT_IMAGE
        ok, why = image_status(client, wanted)
        if ok:
            return wanted, _pulled_flavor(wanted), why
        return None, None, why.split(" (")[0]
    except Exception as exc:  # noqa: BLE001 - any engine trouble means "not docker"
        return None, None, f"the Docker engine failed: {short_error(exc)}"
    finally:
        client.close()


def _present(client, image: str) -> bool:
    import docker as docker_sdk

    try:
        client.images.get(image)
        return True
    except (docker_sdk.errors.ImageNotFound, docker_sdk.errors.APIError):
        return False


def _built_images(client) -> list[str]:
    """Tags of `loadgen image build` images here, MySQL first, the newest series first."""
    out = []
    for flavor in ("mysql", "mariadb"):
        tags = [t for obj in client.images.list(filters={"label": f"{LABEL}.flavor={flavor}"})
                for t in obj.tags if t.startswith(f"loadgen/{flavor}:")]
        tags.sort(key=lambda t: tuple(int(x) for x in re.findall(r"\d+", t.rpartition(":")[2])[:3]), reverse=True)
        out += tags
    return out


def _pulled_flavor(image: str) -> Flavor:
    """What an image to be pulled holds, from its name (it is inspected once pulled)."""
    name, _, tag = image.rpartition("/")[2].partition(":")
    return Flavor("mariadb" if "mariadb" in name else "mysql", tag or "latest")


def image_flavor(client, image: str) -> Flavor:
    """Which server an image holds, before starting it: from our labels, the official images'
    *_VERSION variables, or as a last resort the binary's own --version."""
    obj = client.images.get(image)
    labels = obj.labels or {}
    if labels.get(f"{LABEL}.flavor") and labels.get(f"{LABEL}.version"):
        return Flavor(labels[f"{LABEL}.flavor"], labels[f"{LABEL}.version"])
    env = dict(e.split("=", 1) for e in (obj.attrs.get("Config") or {}).get("Env") or [] if "=" in e)
    for var, name in (("MARIADB_VERSION", "mariadb"), ("MYSQL_VERSION", "mysql")):
        m = re.search(r"\d+\.\d+\.\d+", env.get(var, ""))
        if m:
            return Flavor(name, m.group(0))
    out = client.containers.run(
        image, entrypoint=["sh", "-c", "mariadbd --version 2>/dev/null || mysqld --version"], remove=True,
        labels=owner_labels(keep=False), network_disabled=True,
    ).decode(errors="replace")
    flavor = parse_version(out.split("Ver", 1)[-1])
    if "mariadb" in out.lower():
        flavor = Flavor("mariadb", flavor.version)
    return flavor


def build_hint(image: str) -> str:
    """How to get an image without a registry: the offline build of the flavour asked for."""
    name = image.rsplit("/", 1)[-1].split(":")[0]
    if name == "mysql" or name.startswith("mysql-"):
        return ("build the offline MySQL image with `loadgen image build --flavor mysql` and pass "
                "--image loadgen/mysql:<major.minor> (it prints the tag), or pass another --image")
    if image.startswith("loadgen/mariadb:") and image != "loadgen/mariadb:10.11":
        # a series other than the host's: another release's packages (11.8 is Debian trixie's)
        return ("build it from another Debian release's packages, e.g. `loadgen image build --flavor mariadb "
                "--release trixie` for loadgen/mariadb:11.8 (it prints the tag), or pass another --image")
    return ("build the offline image with `loadgen image build` and pass "
            "--image loadgen/mariadb:10.11, or pass another --image")


def short_error(exc: BaseException) -> str:
    text = str(getattr(exc, "explanation", None) or exc).strip().splitlines()
    text = text[0] if text else type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


# -- ownership and orphans -----------------------------------------------------------------------
def owner_labels(keep: bool) -> dict[str, str]:
    """What marks a container or volume as ours: the host and pid that own it (the orphan sweep
    reads them), whether `loadgen up` keeps it, and the cache directory of the loadgen that made
    it, so loadgens with different cache directories on one engine (a user's and a test suite's,
    two suites) can each find their own and leave the others' alone."""
    return {LABEL: "1", f"{LABEL}.host": socket.gethostname(), f"{LABEL}.pid": str(os.getpid()),
            f"{LABEL}.keep": "1" if keep else "0", f"{LABEL}.cache-dir": str(cache_dir().resolve())}


def sweep_orphans(client) -> int:
    """Remove containers (and scratch volumes) whose loadgen process is gone.

    Without Ryuk nothing else reaps a container when loadgen is killed outright (SIGKILL, OOM);
    Ctrl-C and errors never need this. Containers kept by `loadgen up` are left alone.
    """
    host = socket.gethostname()
    removed = 0
    # ignore_removed: another loadgen may remove its own container between the list and the inspect
    mine = {"label": [f"{LABEL}.host={host}", f"{LABEL}.keep=0"]}
    for c in client.containers.list(all=True, filters=mine, ignore_removed=True):
        pid = int(c.labels.get(f"{LABEL}.pid", "0") or 0)
        if pid and not pid_alive(pid):
            try:
                c.remove(force=True, v=True)
                removed += 1
            except Exception:  # noqa: BLE001 - another loadgen may be sweeping it right now
                pass
    for v in client.volumes.list(filters={"label": [f"{LABEL}.host={host}", f"{LABEL}.scratch=1"]}):
        pid = int((v.attrs.get("Labels") or {}).get(f"{LABEL}.pid", "0") or 0)
        if pid and not pid_alive(pid):
            try:
                v.remove()
            except Exception:  # noqa: BLE001 - still mounted by a container being removed
                pass
    return removed

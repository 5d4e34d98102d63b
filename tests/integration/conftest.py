"""The docker tests' fixtures (test_docker*.py, test_model_accuracy_mysql.py): the engine, the
offline images (MariaDB 10.11, MariaDB 11.8 and MySQL), and the check
that a test leaves none of its containers behind.

Other suites and users may run loadgen containers on the same engine at the same time, so "ours"
must never mean "labelled org.loadgen": removing those would kill their runs. Every container and
volume loadgen makes carries the cache directory of the loadgen that made it
(org.loadgen.cache-dir, servers/engine.py), and this session has a cache directory of its own
(tests/conftest.py): these fixtures count and remove only what carries it.
"""
from __future__ import annotations

import contextlib
import os
import time

import pytest

from ..conftest import require

LABEL = "org.loadgen"
IMAGE = os.environ.get("LOADGEN_TEST_IMAGE", "loadgen/mariadb:10.11")
# MariaDB from Debian trixie (11.8): found by its labels, or named by this variable.
TRIXIE_IMAGE_ENV = "LOADGEN_TEST_MARIADB_TRIXIE_IMAGE"


def session_filter() -> str:
    """The label filter that picks this session's containers and volumes out of everyone's."""
    from loadgen.paths import cache_dir

    return f"{LABEL}.cache-dir={cache_dir().resolve()}"


def session_labels() -> dict[str, str]:
    """Labels for a container a test starts by hand, so the checks count it as this session's."""
    from loadgen.servers.engine import owner_labels

    return owner_labels(keep=False)


def session_containers(client) -> list:
    return client.containers.list(all=True, filters={"label": session_filter()}, ignore_removed=True)


@contextlib.contextmanager
def leaves_no_container(client):
    """Fails (AssertionError) when the block leaves one of this session's containers behind,
    after removing it; another loadgen's containers are neither counted nor touched."""
    before = {c.id for c in session_containers(client)}
    yield
    left = [c for c in session_containers(client) if c.id not in before]
    for c in left:
        c.remove(force=True, v=True)
    assert not left, f"containers left behind: {[c.name for c in left]}"


@pytest.fixture(scope="module")
def engine():
    """A docker client for the module; at its end, this session's datadir volumes are removed
    and no container of the session may remain."""
    from loadgen.errors import LoadgenError
    from loadgen.servers.engine import engine as docker_engine

    try:
        client = docker_engine(timeout=60)
    except LoadgenError as exc:
        require("LOADGEN_REQUIRE_DOCKER", "no Docker engine", str(exc))
    try:
        with leaves_no_container(client):
            yield client
    finally:
        for v in client.volumes.list(filters={"label": session_filter()}):
            try:
                v.remove(force=True)
            except Exception:  # noqa: BLE001 - still in use by a container being removed
                pass
        client.close()


@pytest.fixture(scope="module")
def image(engine) -> str:
    """The offline image: reused when present (make image), else built here once."""
    from loadgen.errors import LoadgenError
    from loadgen.servers.image import build

    try:
        build(IMAGE)
    except LoadgenError as exc:
        require("LOADGEN_REQUIRE_DOCKER", f"no image {IMAGE} and it cannot be built", str(exc))
    return IMAGE


@pytest.fixture(scope="module")
def mariadb_trixie_image(engine) -> str:
    """MariaDB 11.8, the image `loadgen image build --flavor mariadb --release trixie` makes: the
    newest one of trixie's (make image), or the one LOADGEN_TEST_MARIADB_TRIXIE_IMAGE names, or
    built here once (about a minute). With LOADGEN_REQUIRE_DOCKER=1 one that cannot be had fails."""
    from loadgen.errors import LoadgenError
    from loadgen.servers.image import build, find_flavor_image

    wanted = os.environ.get(TRIXIE_IMAGE_ENV)
    try:
        if wanted:
            built = build(wanted, flavor="mariadb", release="trixie")
        else:
            built = find_flavor_image("mariadb", "trixie") or build(flavor="mariadb", release="trixie")
    except LoadgenError as exc:
        require("LOADGEN_REQUIRE_DOCKER", "no MariaDB image from trixie and it cannot be built", str(exc))
    assert built.flavor == "mariadb" and built.release in ("trixie", "?"), built
    return built.tag


@pytest.fixture(scope="module")
def mysql_image(engine) -> str:
    """MySQL, the image `loadgen image build --flavor mysql` makes: the newest one found by its
    labels, or the one LOADGEN_TEST_MYSQL_IMAGE names, or built here once (about a minute). With
    LOADGEN_REQUIRE_DOCKER=1 one that cannot be had fails."""
    from loadgen.errors import LoadgenError
    from loadgen.servers.image import build, find_flavor_image

    wanted = os.environ.get("LOADGEN_TEST_MYSQL_IMAGE")
    try:
        if wanted:
            built = build(wanted, flavor="mysql")
        else:
            built = find_flavor_image("mysql") or build(flavor="mysql")
    except LoadgenError as exc:
        require("LOADGEN_REQUIRE_DOCKER", "no MySQL image and it cannot be built", str(exc))
    assert built.flavor == "mysql", built
    return built.tag


@pytest.fixture
def no_new_containers(engine):
    """Fails the test if it leaves a container of this session behind (and removes it)."""
    with leaves_no_container(engine):
        yield


def login(port: int, password: str, timeout_s: float = 120, **extra):
    """A root connection to a container started by hand (tests/integration/test_docker_*.py),
    retried while its server starts up."""
    import MySQLdb

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            conn = MySQLdb.connect(host="127.0.0.1", port=port, user="root", passwd=password, connect_timeout=2,
                                   **extra)
            conn.autocommit(True)
            return conn
        except MySQLdb.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)

"""Shared fixtures. Servers are real mariadbd processes started here and stopped at the end.

When CI sets LOADGEN_REQUIRE_MYSQLD=1, a missing server binary fails the suite instead of
skipping the tests that need it: a green run must mean the server tests ran.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# A suite started in the background by a non-interactive shell (`make test &`, a CI runner's
# script) inherits SIGINT ignored, and so does every loadgen it starts: an ignored signal stays
# ignored across exec, and Python installs its Ctrl-C handler only where SIGINT is not ignored. The
# tests that press Ctrl-C would then see it ignored and the run finish (a run here: 8 such failures).
# A handler of our own is reset to the default in each child, so the children get Ctrl-C again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
# Every test (and every loadgen subprocess a test starts) caches datasets and keeps `up` state in
# one temporary place, so the suite never touches the user's ~/.cache and leaves nothing behind.
_SESSION_DIR = Path(tempfile.mkdtemp(prefix="loadgen-tests-"))
# mkdtemp makes it 0700; as root the servers run as `mysql`, which must pass through (not list) it.
os.chmod(_SESSION_DIR, 0o711)
os.environ["LOADGEN_CACHE_DIR"] = str(_SESSION_DIR / "cache")
os.environ["LOADGEN_STATE_DIR"] = str(_SESSION_DIR / "state")

TEST_ROWS = 200_000
TEST_POOL = 8 << 20


def require(env: str, what: str, reason: str):
    if os.environ.get(env) == "1":
        pytest.fail(f"{env}=1 but {what}: {reason}")
    pytest.skip(f"{what}: {reason}")


@pytest.fixture(scope="session")
def mysqld_binary() -> str:
    from loadgen.errors import LoadgenError
    from loadgen.servers.local import find_mysqld

    try:
        return find_mysqld()
    except LoadgenError as exc:
        require("LOADGEN_REQUIRE_MYSQLD", "no mariadbd/mysqld", str(exc))


@pytest.fixture(scope="session")
def session_dir() -> Path:
    return _SESSION_DIR


@pytest.fixture(scope="session")
def local_server(mysqld_binary, session_dir):
    """One real mariadbd (8 MiB pool) holding the 200k-row dataset, for the whole session."""
    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.runner.single import QuietReporter, prepare_dataset
    from loadgen.servers.local import LocalServer

    server = LocalServer(session_dir / "shared-server", TEST_POOL, mysqld=mysqld_binary)
    server.start()
    try:
        info = prepare_dataset(server, DatasetSpec(rows=TEST_ROWS), QuietReporter())
        yield server, info
    finally:
        server.stop()


def loadgen_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "loadgen", *args]


def run_loadgen(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(loadgen_cmd(*args), capture_output=True, text=True, env=full_env, timeout=timeout,
                          cwd=ROOT)


def our_server_pids(include_shared: bool = False, include_bootstrap: bool = False) -> list[int]:
    """mariadbd/mysqld processes whose datadir is under the test session's directory (by
    default without the session-wide `local_server`, which lives until the end, and without
    a `mariadbd --bootstrap` initialising a datadir, which is not a server yet)."""
    out = subprocess.run(["pgrep", "-f", str(_SESSION_DIR)], capture_output=True, text=True)
    pids = []
    for pid in out.stdout.split():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if not include_shared and any("shared-server" in a for a in argv):
            continue
        if not include_bootstrap and "--bootstrap" in argv:
            continue
        if os.path.basename(argv[0]) in ("mariadbd", "mysqld"):
            pids.append(int(pid))
    return pids


def pytest_terminal_summary(terminalreporter):
    """Every model-accuracy point the run held (tests/accuracy.py LEDGER), passed or failed."""
    from .accuracy import LEDGER

    if LEDGER:
        terminalreporter.section(f"accuracy: {len(LEDGER)} points held")
        for line in LEDGER:
            terminalreporter.write_line(line)


def pytest_sessionfinish(session, exitstatus):
    # Stop anything a test left behind, then fail the run if there was something to stop:
    # an orphan server is a bug in loadgen or in a test.
    leftovers = our_server_pids(include_shared=True, include_bootstrap=True)
    for pid in leftovers:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    if leftovers:
        print(f"\nERROR: {len(leftovers)} mariadbd process(es) were left running: {leftovers}", file=sys.stderr)
        session.exitstatus = 1
    # The session's datadirs and caches (1-3 GiB a run): nothing of the suite stays on the disk,
    # the docker volumes its cache dir holds seeded datasets in included (labelled with that dir;
    # 2-3 were left a run before this, none of them reaped by anything)
    import shutil

    _remove_session_volumes()
    shutil.rmtree(_SESSION_DIR, ignore_errors=True)


def _remove_session_volumes() -> None:
    try:
        import docker

        client = docker.from_env(timeout=30)
    except Exception:  # noqa: BLE001 - no engine: no volumes of ours either
        return
    try:
        for volume in client.volumes.list(filters={"label": "org.loadgen.cache-dir"}):
            if (volume.attrs.get("Labels") or {}).get("org.loadgen.cache-dir", "").startswith(str(_SESSION_DIR)):
                try:
                    volume.remove(force=True)
                except Exception:  # noqa: BLE001 - still in use by a container a test left: that fails elsewhere
                    pass
    except Exception as exc:  # noqa: BLE001 - the engine went away: say so, do not fail the suite for it
        print(f"\nwarning: the session's docker volumes were not removed: {exc}", file=sys.stderr)
    finally:
        client.close()

"""Fixtures for the native-module tests: real page faults, real cgroups, real zram.

A test that needs root, a memory cgroup and zram (or swap) skips with the reason when they are
missing, and FAILS instead when LOADGEN_REQUIRE_NATIVE_SWAP=1 (CI on a root host with zram), so a
green CI run means the swap tests ran.

Every test in this directory is checked for leftovers: no swap (file or zram device), loadgen
cgroup or owner record that this test's loadgen made may exist afterwards (see _state).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from loadgen.experiments import memcg, osmem, owner, zram

ROOT = Path(__file__).resolve().parents[2]
PAGE = os.sysconf("SC_PAGE_SIZE")
MiB = 1 << 20

# Under ASan the memset interceptor scans the shadow of the whole range first: the first pass
# over a fresh buffer also takes read faults on 1/8 of its size in shadow pages.
SANITIZED = bool(os.environ.get("LOADGEN_NATIVE_SO"))


def about(actual: float, expected: float, rel: float = 0.03, slack: int = 8,
          shadow: bool = False) -> bool:
    """actual is within rel (plus a few faults of process noise) of expected; with shadow, an
    ASan build may add expected/8 on a first touch."""
    upper = expected * (1 + rel) + slack + (expected / 8 if shadow and SANITIZED else 0)
    return expected * (1 - rel) - slack <= actual <= upper


def require_swap_env(reason: str):
    if os.environ.get("LOADGEN_REQUIRE_NATIVE_SWAP") == "1":
        pytest.fail(f"LOADGEN_REQUIRE_NATIVE_SWAP=1 but {reason}")
    pytest.skip(reason)


def swap_sandbox_missing() -> str | None:
    """Why a memory-limited pagez cannot run here, or None."""
    if os.geteuid() != 0:
        return "not root: memory cgroups and zram swap need root"
    try:
        memcg.find_hierarchy()
    except Exception as exc:  # noqa: BLE001 - the reason is what we report
        return f"no memory cgroup: {exc}"
    if not (zram.CONTROL / "hot_add").exists() and osmem.swap_free() == 0 and \
            swap_file_missing():
        return "no zram (/sys/class/zram-control), no existing swap, no place for a swap file"
    for tool in ("mkswap", "swapon", "swapoff"):
        if not (shutil.which(tool) or os.path.exists(f"/usr/sbin/{tool}")
                or os.path.exists(f"/sbin/{tool}")):
            return f"{tool} not installed (util-linux)"
    return None


def swap_file_missing(size: int = 2 << 30) -> str | None:
    """Why loadgen cannot make a swap file of `size` here, or None."""
    from loadgen.experiments import swapfile

    reasons = [swapfile.unusable_reason(d, size) for d in swapfile.candidate_dirs()]
    return None if any(r is None for r in reasons) else "; ".join(reasons)


@pytest.fixture
def swap_file_place():
    """A swap file can be made here (root, a disk-backed directory with room), else skip/fail."""
    reason = swap_sandbox_missing() or swap_file_missing()
    if reason:
        require_swap_env(reason)


@pytest.fixture
def swap_sandbox():
    reason = swap_sandbox_missing()
    if reason:
        require_swap_env(reason)


def _leak(pid: int, start: int | None = None) -> bool:
    """An object owned by this test process, or by one that is gone, is left behind. One whose
    owner still runs is a run in progress: maybe another suite's on the same host."""
    if pid == os.getpid():
        return True
    return not (owner.Owner(pid, start).alive() if start is not None else _running(pid))


def _running(pid: int) -> bool:
    return owner.start_time(pid) is not None


def _state() -> dict:
    """What loadgen made and nobody owns any more. Every swap loadgen turns on carries the label
    loadgen-<pid>, every cgroup and record its owner's mark: objects without (another checkout's
    older loadgen, running its own suite at the same time) are not this test's to count."""
    from loadgen.experiments.orphans import swap_label

    try:
        cgroups = memcg.leftovers()
    except Exception:  # noqa: BLE001 - no cgroup hierarchy at all: nothing can be left
        cgroups = []
    swaps = []
    for e in osmem.swaps():
        label = swap_label(e["name"]) or ""
        pid = label.removeprefix("loadgen-")
        if label.startswith("loadgen-") and pid.isdigit() and _leak(int(pid)):
            swaps.append(e["name"])
    marked = [(p, o) for p in cgroups if (o := owner.parse_token(p.name)) is not None]
    return {"swaps": sorted(swaps),
            "cgroups": sorted(str(p) for p, o in marked if _leak(o.pid, o.start)),
            "owner_records": sorted(p.name for p, r in owner.records()
                                    if _leak(r["pid"], r["start"])),
            "nr_hugepages": osmem.NR_HUGEPAGES.read_text().strip()}


@pytest.fixture(autouse=True)
def nothing_left_behind():
    before = _state()
    yield
    after = _state()
    # Only what appeared during the test is its leftover: an orphan already there (a suite killed
    # on this host earlier) that a run swept meanwhile is not this test's doing.
    new = {k: sorted(set(after[k]) - set(before[k])) for k in ("swaps", "cgroups", "owner_records")}
    assert not any(new.values()) and after["nr_hugepages"] == before["nr_hugepages"], \
        f"left behind: {new}, nr_hugepages {before['nr_hugepages']} -> {after['nr_hugepages']}"


@pytest.fixture
def hugepages():
    """Reserve N huge pages for one test and restore nr_hugepages afterwards."""
    saved = osmem.NR_HUGEPAGES.read_text().strip()

    def reserve(n: int) -> int:
        if os.geteuid() != 0:
            pytest.skip("reserving hugetlb pages needs root")
        total = osmem.meminfo()["HugePages_Total"]
        osmem.NR_HUGEPAGES.write_text(str(total + n))
        free = osmem.meminfo()["HugePages_Free"]
        if free < n:
            pytest.skip(f"asked the kernel for {n} huge pages, got {free} free (fragmented)")
        return free

    yield reserve
    osmem.NR_HUGEPAGES.write_text(saved)


def swaps_of(pid: int, before: set[str]) -> set[str]:
    """Swaps turned on since `before` by the loadgen process `pid` (by the label mkswap wrote),
    so a concurrent run elsewhere on the host does not count."""
    from loadgen.experiments.orphans import swap_label

    return {e["name"] for e in osmem.swaps()
            if e["name"] not in before and swap_label(e["name"]) == f"loadgen-{pid}"[:16]}


def cgroups_of(pid: int) -> set[Path]:
    return {p for p in memcg.leftovers() if (o := owner.parse_token(p.name)) and o.pid == pid}


def run_cli(*args: str, timeout: float = 120, env: dict | None = None,
            prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """`python -m loadgen native ...` as a user would run it."""
    return subprocess.run([*prefix, sys.executable, "-m", "loadgen", "native", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.strip()
    assert "Traceback" not in proc.stderr, proc.stderr
    assert len(err.splitlines()) == 1, f"expected one line on stderr, got:\n{proc.stderr}"
    return err

"""The seed's pagez effect on its own terms: swap on disk (a swap file loadgen makes), and the
sweep of what a SIGKILLed `loadgen native` leaves behind (cgroup, swap file, zram device).

Root, a memory cgroup and a disk-backed directory are needed; without them these tests skip, and
fail instead under LOADGEN_REQUIRE_NATIVE_SWAP=1.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loadgen.errors import LoadgenError
from loadgen.experiments import memcg, orphans, osmem, owner, swapfile, zram
from loadgen.experiments.pagez import RAM_IN_CHUNKS

from .conftest import ROOT, cgroups_of, one_line_error, run_cli, swaps_of

pytestmark = pytest.mark.native

MOUNTINFO = """\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw
41 22 0:40 / /var/lib/docker/overlay2/x/merged rw,relatime - overlay overlay rw,lowerdir=/a
42 22 254:1 / /data\\040disk rw,relatime - xfs /dev/vdb rw
"""


def test_filesystem_of_picks_the_innermost_mount():
    assert swapfile.filesystem_of(Path("/"), MOUNTINFO) == ("ext4", "/")
    assert swapfile.filesystem_of(Path("/dev/shm/x/y"), MOUNTINFO) == ("tmpfs", "/dev/shm")
    assert swapfile.filesystem_of(Path("/var/lib/docker/overlay2/x/merged/tmp"),
                                  MOUNTINFO)[0] == "overlay"


def test_swap_names_with_spaces_are_read_back_as_paths():
    text = ("Filename\tType\tSize\tUsed\tPriority\n"
            "/var/cache/my\\040cache/loadgen-swap-p1-s2-1.swap file\t1024\t0\t32000\n"
            "/dev/zram0                              partition\t4096\t8\t100\n")
    got = osmem.swaps(text)
    assert got[0]["name"] == "/var/cache/my cache/loadgen-swap-p1-s2-1.swap"
    assert got[0]["size"] == 1 << 20 and got[0]["priority"] == 32000
    assert got[1] == {"name": "/dev/zram0", "type": "partition", "size": 4096 << 10,
                      "used": 8 << 10, "priority": 100}


def test_tmpfs_and_overlay_are_refused_before_any_file_is_made():
    why = swapfile.unusable_reason(Path("/dev/shm"), 1 << 20)
    assert why is not None and "tmpfs" in why and "swapon refuses files" in why
    with pytest.raises(LoadgenError, match="no place for a swap file: /dev/shm is on tmpfs"):
        swapfile.SwapFile.create(1 << 20, dirs=[Path("/dev/shm")])
    assert not list(Path("/dev/shm").glob(f"{swapfile.NAME_PREFIX}*"))


def test_a_disk_too_small_for_the_file_is_refused():
    why = swapfile.unusable_reason(Path("/var/tmp"), 1 << 60)
    assert why is not None and "free" in why and "margin" in why


def test_owner_marks_survive_pid_reuse():
    me = owner.me()
    assert me.alive() and owner.parse_token(f"loadgen-swap-{me.token}-3.swap") == me
    assert owner.parse_token(f"{memcg.NAME_PREFIX}{me.token}-1") == me
    assert not owner.Owner(me.pid, me.start + 1).alive()  # same pid, another process
    assert owner.parse_token("loadgen-native-123-456") is None  # no mark: never ours to sweep


def test_compare_with_defaults_is_slower_for_b_with_major_faults_from_disk(swap_file_place,
                                                                          tmp_path):
    """The defaults (1:64, memory limit 256 MiB, swap file): B re-reads its pages from the disk.
    One round, to keep it short; the direction, never the absolute times."""
    out = tmp_path / "cmp.json"
    proc = run_cli("pagez-compare", "--repeat", "1", "--out", str(out), timeout=300,
                   env={"LOADGEN_CACHE_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    sandbox = doc["sandbox"]
    assert sandbox["swap_kind"] == "file" and sandbox["notes"] == []
    made = Path(sandbox["swap_file"]["path"])
    assert made.parent == tmp_path and made.name.startswith(swapfile.NAME_PREFIX)
    assert sandbox["swap_file"]["filesystem"] in swapfile.SWAP_FILESYSTEMS
    assert doc["params"]["scale"] == 64 and doc["params"]["memory_limit"] == 256 << 20
    by = {v["name"]: v for v in doc["variants"]}
    chunk_pages = doc["params"]["chunk_size"] // osmem.PAGE_SIZE
    revisits = 3 * 20 * chunk_pages  # B's 20 chunks > the 16 that fit: every re-visit swaps in
    # Swap readahead brings up to 2^page-cluster pages per major fault, so count pages by the
    # cgroup's swap-ins and faults with the readahead factor.
    cluster = 1 << int(Path("/proc/sys/vm/page-cluster").read_text())
    assert by["B"]["major_faults_median"] >= 0.8 * revisits / cluster, by["B"]
    assert by["B"]["swap_ins_median"] >= 0.9 * revisits, by["B"]
    assert by["A"]["major_faults_median"] < 0.05 * revisits / cluster, by["A"]
    assert by["A"]["swap_ins_median"] < 0.05 * revisits, by["A"]
    assert doc["passes"][0]["swap_ins_source"].startswith("cgroup v")
    assert doc["ratio_b_a"] > 1, (by["A"]["seconds_median"], by["B"]["seconds_median"])
    assert "B/A =" in proc.stdout and "swap-ins: cgroup v" in proc.stdout
    # Removed after success: not on, not on disk, no owner record.
    assert not made.exists() and not swapfile.is_active(made)
    assert RAM_IN_CHUNKS * doc["params"]["chunk_size"] == doc["params"]["memory_limit"]


def test_swap_file_where_none_can_be_made_is_one_line(swap_sandbox):
    proc = run_cli("pagez", "--chunks", "8", "--chunk-size", "4M", "--memory-limit", "16M",
                   "--swap", "file", "--out", os.devnull, env={"LOADGEN_SWAP_DIR": "/dev/shm"})
    assert proc.returncode == 1
    err = one_line_error(proc)
    assert "tmpfs" in err and "LOADGEN_SWAP_DIR" in err and "--swap zram" in err


def test_auto_falls_back_to_zram_and_says_why(swap_sandbox, tmp_path):
    if not (zram.CONTROL / "hot_add").exists():
        pytest.skip("no zram here to fall back to")
    out = tmp_path / "r.json"
    proc = run_cli("pagez", "--chunks", "8", "--chunk-size", "4M", "--memory-limit", "16M",
                   "--out", str(out), env={"LOADGEN_SWAP_DIR": "/dev/shm"})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["sandbox"]["swap_kind"] == "zram"
    assert any("zram instead" in w for w in doc["warnings"])
    assert "zram instead" in " ".join(proc.stderr.split())  # warnings go to stderr


def _killed_run(swap: str, env: dict) -> tuple[set, set, list]:
    """Start a long pagez, SIGKILL loadgen once its cgroup and swap are up. Returns the swaps
    and cgroups it left, and its owner records."""
    swaps_before = {e["name"] for e in osmem.swaps()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "loadgen", "native", "pagez", "--chunks", "40", "--iters", "40",
         "--chunk-size", "4M", "--memory-limit", "64M", "--swap", swap, "--out", os.devnull],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            swaps, cgroups = swaps_of(proc.pid, swaps_before), cgroups_of(proc.pid)
            if swaps and cgroups:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        else:
            pytest.fail(f"the cgroup and the {swap} swap never appeared")
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    records = [r for _, r in owner.records() if r["pid"] == proc.pid]
    return swaps, cgroups, records


def _sweeping_run(env: dict, out: Path) -> str:
    """A small run; its warnings (what it swept), joined."""
    proc = run_cli("pagez", "--chunks", "4", "--chunk-size", "4M", "--memory-limit", "32M",
                   "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "warning: removed orphaned" in proc.stderr  # warnings go to stderr
    return "\n".join(json.loads(out.read_text())["warnings"])


def test_a_sigkilled_runs_swap_file_and_cgroup_are_swept_by_the_next_run(swap_file_place,
                                                                        tmp_path):
    env = {"LOADGEN_CACHE_DIR": str(tmp_path)}
    swaps, cgroups, records = _killed_run("file", env)
    (left,) = swaps
    assert Path(left).parent == tmp_path and Path(left).exists()
    assert {r["kind"] for r in records} == {"cgroup", "swapfile"}
    # The child died with loadgen (PR_SET_PDEATHSIG): nothing is left running in the cgroup.
    deadline = time.monotonic() + 5
    while any(memcg.MemoryCgroup(None, c).pids() for c in cgroups):
        assert time.monotonic() < deadline, "the experiment child outlived a SIGKILLed loadgen"
        time.sleep(0.05)
    # The next run, from another cache dir: the registry, not the directory, finds the file.
    swept = _sweeping_run({"LOADGEN_CACHE_DIR": str(tmp_path / "other")}, tmp_path / "r.json")
    assert f"removed orphaned swap file {left}" in swept
    assert all(f"removed orphaned cgroup {c}" in swept for c in cgroups)
    assert not Path(left).exists() and not swapfile.is_active(Path(left))
    assert not any(c.exists() for c in cgroups)


def test_a_sigkilled_runs_zram_device_is_swept_by_the_next_run(swap_sandbox, tmp_path):
    if not (zram.CONTROL / "hot_add").exists():
        pytest.skip("no zram on this host")
    env = {"LOADGEN_CACHE_DIR": str(tmp_path)}
    swaps, cgroups, records = _killed_run("zram", env)
    (left,) = swaps
    assert left.startswith("/dev/zram") and {r["kind"] for r in records} == {"cgroup", "zram"}
    assert orphans.swap_label(left) == next(r["label"] for r in records if r["kind"] == "zram")
    swept = _sweeping_run(env, tmp_path / "r.json")
    assert f"removed orphaned zram device {left}" in swept
    assert Path(left).name not in zram.zram_devices() and not any(c.exists() for c in cgroups)


def test_the_objects_of_a_live_owner_are_never_swept(swap_sandbox, tmp_path):
    """A cgroup and a swap file marked with a live process (a sleep standing in for a running
    loadgen) stay; once that process is gone, the sweep removes both."""
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        who = owner.Owner(sleeper.pid, owner.start_time(sleeper.pid))
        h = memcg.find_hierarchy()
        cg_path = h.own_dir / f"{memcg.NAME_PREFIX}{who.token}-1"
        cg_path.mkdir()
        sf_path = tmp_path / f"{swapfile.NAME_PREFIX}{who.token}-1.swap"
        sf_path.write_bytes(b"")
        rec = owner.registry_dir() / f"swapfile-{sf_path.name}.json"
        rec.write_text(json.dumps({"kind": "swapfile", "pid": who.pid, "start": who.start,
                                   "path": str(sf_path)}))
        swept = orphans.sweep()
        assert not any(str(cg_path) in m or str(sf_path) in m for m in swept), swept
        assert cg_path.exists() and sf_path.exists() and rec.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    swept = orphans.sweep()
    assert f"removed orphaned swap file {sf_path}" in swept
    assert f"removed orphaned cgroup {cg_path}" in swept
    assert not cg_path.exists() and not sf_path.exists() and not rec.exists()


def test_a_run_out_of_swap_is_not_retried(swap_file_place, tmp_path, monkeypatch):
    """An OOM kill with the allowed swap full is a real out-of-memory: reported at once, never
    rerun as if the disk had been too slow (those retries are for OOM kills with swap to spare)."""
    from loadgen.experiments.sandbox import OomKilled, Sandbox

    monkeypatch.setenv("LOADGEN_CACHE_DIR", str(tmp_path))
    call = {"fn": "pagez", "kwargs": {"chunks": 16, "iters": 1, "chunk_size": 4 << 20}}
    with Sandbox(16 << 20, "file", swap_need=8 << 20) as sb:  # 64 MiB into 16 + 8 MiB
        assert sb.swap_kind == "file"
        with pytest.raises(OomKilled) as caught:
            sb.run([call])
        assert sb.cgroup.swap_was_full() and sb.cgroup.oom_kills() == 1
    assert "times" not in str(caught.value)

"""pagez under a real memory cgroup with real swap, a zram device or a swap file (root). Small
scale: a 64 MiB limit and 4 MiB chunks, i.e. the seed at 1:256 (RAM = 16 chunks)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from loadgen.errors import LoadgenError
from loadgen.experiments import osmem
from loadgen.results.documents import FORMAT_VERSION
from loadgen.experiments.pagez import run_pagez

from .conftest import MiB, ROOT, cgroups_of, one_line_error, run_cli, swaps_of

pytestmark = pytest.mark.native

LIMIT = 64 * MiB
CHUNK = 4 * MiB
PAGES = CHUNK // 4096


def test_b_takes_major_faults_and_swap_ins_that_a_does_not(swap_sandbox):
    a = run_pagez(80, 1, CHUNK, memory_limit=LIMIT, swap="zram")
    b = run_pagez(20, 4, CHUNK, memory_limit=LIMIT, swap="zram")
    revisits = 3 * 20 * PAGES  # B's working set (80 MiB) > limit: every re-visit swaps back in
    assert a["result"]["pswpout"] > 0 and b["result"]["pswpout"] > 0  # both did swap out
    assert b["totals"]["major_faults"] >= 0.9 * revisits, b["totals"]
    assert a["totals"]["major_faults"] < 0.05 * revisits, a["totals"]
    # Swap-ins as the child's cgroup counts them: a run elsewhere on the host does not add to them.
    assert b["result"]["swap_ins_source"].startswith("cgroup v"), b["result"]
    assert b["result"]["swap_ins"] >= 0.9 * revisits, b["result"]
    assert a["result"]["swap_ins"] < 0.05 * revisits, a["result"]
    assert a["sandbox"]["cgroup_version"] in (1, 2) and a["sandbox"]["swap"].startswith("/dev/zram")
    assert a["sandbox"]["zram"]["disksize"] > 0


def test_compare_reports_all_three_and_the_ratio(swap_sandbox, tmp_path):
    out = tmp_path / "cmp.json"
    proc = run_cli("pagez-compare", "--scale", "256", "--repeat", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "B/A =" in proc.stdout and "seed 1.38" in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["kind"] == "native.pagez-compare" and doc["format_version"] == FORMAT_VERSION
    by = {v["name"]: v for v in doc["variants"]}
    assert doc["params"]["memory_limit"] == LIMIT and doc["params"]["chunk_size"] == CHUNK
    assert by["B"]["major_faults_median"] > 10 * max(by["A"]["major_faults_median"], 100)
    assert by["C"]["major_faults_median"] < 100  # 2 chunks fit: no swapping at all
    assert doc["ratio_b_a"] > 0
    assert [p["variant"] for p in doc["passes"]] == ["A", "B", "C"]
    assert {"seconds", "minor_faults", "major_faults"} <= set(doc["passes"][0])
    assert doc["totals"]["passes"] == 3


def test_without_swap_the_child_is_oom_killed_and_loadgen_is_not(swap_sandbox):
    with pytest.raises(LoadgenError, match="OOM-killed inside its memory cgroup"):
        run_pagez(20, 1, CHUNK, memory_limit=32 * MiB, swap="none", force=True)


def test_refuses_a_run_that_cannot_fit_without_force(swap_sandbox):
    proc = run_cli("pagez", "--chunks", "20", "--chunk-size", "4M", "--memory-limit", "32M",
                   "--swap", "none")
    assert proc.returncode == 2
    assert "OOM-killed" in one_line_error(proc) and "--swap file" in proc.stderr


@pytest.mark.parametrize("swap", ["file", "zram"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_mid_run_removes_cgroup_and_swap(swap_sandbox, sig, swap, tmp_path):
    swaps_before = {e["name"] for e in osmem.swaps()}
    # Long enough to still be running when the signal comes: ~800 re-visits that all swap.
    proc = subprocess.Popen(
        [sys.executable, "-m", "loadgen", "native", "pagez", "--chunks", "40", "--iters", "40",
         "--chunk-size", "4M", "--memory-limit", "64M", "--swap", swap, "--out", os.devnull],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "LOADGEN_CACHE_DIR": str(tmp_path)})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            new = swaps_of(proc.pid, swaps_before)
            if cgroups_of(proc.pid) and new:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        else:
            pytest.fail(f"the cgroup and the {swap} swap never appeared")
        (made,) = new
        assert made.startswith("/dev/zram" if swap == "zram" else str(tmp_path)), made
        time.sleep(0.3)  # let the child start touching memory
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not os.path.exists(made)  # the swap file itself (a zram node goes with hot_remove)
    # nothing_left_behind (conftest) checks zram, /proc/swaps, the cgroups and owner records.


def test_without_cap_sys_admin_swapon_fails_with_one_line_and_nothing_left(swap_sandbox):
    setpriv = "/usr/bin/setpriv"
    if not os.path.exists(setpriv):
        pytest.skip("setpriv (util-linux) not installed")
    probe = subprocess.run([setpriv, "--bounding-set=-all", "--inh-caps=-all", "true"])
    if probe.returncode != 0:
        pytest.skip("cannot drop capabilities here")
    proc = run_cli("pagez", "--chunks", "8", "--chunk-size", "4M", "--memory-limit", "16M",
                   "--swap", "zram", prefix=(setpriv, "--bounding-set=-all", "--inh-caps=-all"))
    assert proc.returncode == 1
    err = one_line_error(proc)
    assert "swap" in err and "root" in err, err

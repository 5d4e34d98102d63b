"""`loadgen native ...` end to end: result files, tables, and one-line errors on bad input."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loadgen.errors import UsageError
from loadgen.experiments import osmem
from loadgen.results.documents import FORMAT_VERSION

from .conftest import PAGE, MiB, about, one_line_error, run_cli

pytestmark = pytest.mark.native


def _doc(tmp_path, *args):
    out = tmp_path / "r.json"
    proc = run_cli(*args, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    # where the file went is said on stderr, as every command says it; stdout holds the tables alone
    assert f"wrote {out}" in proc.stderr.replace("\n", "") and "wrote" not in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["format_version"] == FORMAT_VERSION and doc["kind"].startswith("native.")
    for p in doc["passes"]:
        assert {"seconds", "minor_faults", "major_faults"} <= set(p)
    assert doc["totals"]["minor_faults"] == sum(p["minor_faults"] for p in doc["passes"])
    assert doc["totals"]["passes"] == len(doc["passes"])
    assert not list(tmp_path.glob(".r.json.*"))  # no temp file left by the atomic write
    return proc, doc


def test_memset_writes_passes_and_prints_the_table(tmp_path):
    proc, doc = _doc(tmp_path, "memset", "--size", "256M", "--passes", "3", "--repeat", "2")
    assert "pass 1" in proc.stdout and "minor" in proc.stdout
    firsts = [p for p in doc["passes"] if p["pass"] == 1]
    assert len(firsts) == 2 and len(doc["passes"]) == 6
    assert all(about(p["minor_faults"], 256 * MiB // PAGE, shadow=True) for p in firsts)
    assert all(p["minor_faults"] < 64 for p in doc["passes"] if p["pass"] > 1)
    assert doc["tlb"]["supported"] or "perf_event_open" in doc["tlb"]["reason"]


def test_memset_populate_result(tmp_path):
    _, doc = _doc(tmp_path, "memset", "--size", "64M", "--populate", "--repeat", "1")
    assert about(doc["map_steps"][0]["minor_faults"], 64 * MiB // PAGE)
    assert doc["summary"][0]["step"] == "map+populate"


def test_lazymap_result(tmp_path):
    proc, doc = _doc(tmp_path, "lazymap", "--sizes", "4K,16K,256K,1M", "--runs", "2",
                     "--reps", "20", "--malloc")
    assert len(doc["passes"]) == 2 * 4 * 3
    for p in doc["passes"]:
        if p["kind"] == "fresh":
            assert about(p["write_faults_per_rep"], p["size"] // PAGE, slack=1), p
        if p["kind"] == "reused":
            assert p["minor_faults"] <= 2, p
    assert "fresh" in proc.stdout and "reused" in proc.stdout


def test_alloc_result(tmp_path):
    pages = "4k,thp" if osmem.thp_mode() not in (None, "never") else "4k"
    _, doc = _doc(tmp_path, "alloc", "--size", "128M", "--reps", "3", "--pages", pages)
    touch4k = [p for p in doc["passes"] if p["pages"] == "4k" and p["op"] == "alloc_touch"]
    assert all(about(p["minor_faults"], 128 * MiB // PAGE, shadow=True) for p in touch4k)
    assert {r["op"] for r in doc["summary"]} == {"alloc_touch", "memset"}


def test_pagez_without_limit_result(tmp_path):
    _, doc = _doc(tmp_path, "pagez", "--chunks", "4", "--iters", "2", "--chunk-size", "4M")
    assert len(doc["passes"]) == 8 and doc["params"]["memory_limit"] is None
    assert doc["totals"]["major_faults"] == 0


@pytest.mark.parametrize("args, words", [
    (("memset", "--size", "abc"), ["is not a size"]),
    (("memset", "--size", "0"), ["greater than zero"]),
    (("memset", "--passes", "0", "--size", "4M"), ["--passes"]),
    (("pagez", "--chunks", "0"), ["--chunks"]),
    (("pagez", "--chunk-size", "zero"), ["is not a size"]),
    (("pagez", "--chunks", "80"), ["--force", "--memory-limit"]),  # 80 GiB does not fit
    (("lazymap", "--sizes", "4K,0"), ["greater than zero"]),
    (("alloc", "--pages", "4k,hugetlb"), ["--pages 4k,thp"]),
    (("pagez-compare", "--scale", "0"), ["--scale"]),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    proc = run_cli(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    err = one_line_error(proc)
    for word in words:
        assert word in err, err


def test_hugetlb_without_reserved_pages_says_how_to_reserve():
    if osmem.meminfo().get("HugePages_Free", 0) >= 128:
        pytest.skip("huge pages are already reserved on this host")
    proc = run_cli("memset", "--size", "256M", "--pages", "hugetlb")
    assert proc.returncode == 2
    assert "echo " in one_line_error(proc) and "/proc/sys/vm/nr_hugepages" in proc.stderr


def test_thp_disabled_is_refused_with_the_fix():
    # loadgen never flips the global knob, so the 'never' case is checked on the file's text.
    with pytest.raises(UsageError, match="echo madvise >"):
        osmem.require_thp("always madvise [never]")
    assert osmem.require_thp("always [madvise] never") == "madvise"


def test_hugetlb_check_counts_reserved_pages():
    info = {"Hugepagesize": 2 << 20, "HugePages_Total": 10, "HugePages_Free": 10,
            "HugePages_Rsvd": 4}
    with pytest.raises(UsageError, match="echo 12 > /proc/sys/vm/nr_hugepages"):
        osmem.require_hugetlb(16 << 20, info)
    assert osmem.require_hugetlb(12 << 20, info) == 6


@pytest.mark.parametrize("decoy", ["planted", "checkout-parent"])
def test_the_experiment_child_never_imports_loadgen_from_the_cwd(tmp_path, decoy):
    """Issue #18 N2: the child started as `python -m`, so a loadgen/ in the current directory
    ran in it (as root for --memory-limit); from the directory above a checkout named loadgen,
    every experiment failed. Run as users do: the installed `loadgen` script, from that cwd."""
    from .conftest import ROOT

    marker = tmp_path / "PWNED"
    if decoy == "planted":
        (tmp_path / "loadgen").mkdir()
        for name in ("__init__.py", "native.py"):
            (tmp_path / "loadgen" / name).write_text(
                f"open({str(marker)!r}, 'w').write('imported')\n")
    else:
        (tmp_path / "loadgen").symlink_to(ROOT, target_is_directory=True)
    script = Path(sys.executable).with_name("loadgen")
    assert script.exists(), f"no console script beside {sys.executable}: is loadgen installed?"
    out = tmp_path / "r.json"
    proc = subprocess.run([str(script), "native", "pagez", "--chunks", "2", "--iters", "1",
                           "--chunk-size", "4M", "--out", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "the child imported the decoy loadgen from its cwd"
    assert json.loads(out.read_text())["kind"] == "native.pagez"

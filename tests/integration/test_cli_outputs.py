"""Issue #18, the first hour, against a real mariadbd: what `make demo`'s live compare gives a CI
job. --format json is honoured live (6), the markdown report explains A and B (11), the host's
load is in every result file (8), a log without a terminal shows progress (13), and the result
files and the report can be read by others (15)."""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess

import pytest

from ..conftest import ROOT, loadgen_cmd

pytestmark = pytest.mark.mysqld


def test_a_live_compare_as_ci_sees_it(mysqld_binary, tmp_path):
    runs, report = tmp_path / "runs", tmp_path / "demo.md"
    res = subprocess.run(loadgen_cmd("compare", "--server", "local", "--mysqld", mysqld_binary, "--pool", "8M",
                                     "--rows", "200k", "--out-dir", str(runs), "--report", str(report),
                                     "--format", "json"),
                         capture_output=True, text=True, timeout=900, cwd=ROOT, preexec_fn=lambda: os.umask(0o022))
    assert res.returncode == 0, res.stderr

    # 6: the live comparison as JSON on stdout, its columns naming the result files
    doc = json.loads(res.stdout)
    files = sorted(runs.glob("compare-*.json"))
    assert [c["file"] for c in doc["columns"]] == [f.name for f in files]
    assert [c["key"] for c in doc["columns"]] == ["A", "B"]
    pages = next(r for r in doc["rows"] if r["metric"] == "pages_read")
    assert 1.8 < pages["ratios"][0] < 2.2, pages  # B reads about twice A's pages

    # 13: no terminal here, so each run ends with a plain line (and longer ones print one every 10 s)
    for label in ("A (interleaved)", "B (looped)"):
        assert re.search(re.escape(label) + r": 40,000 of 40,000 queries in [\d.,]+ s, [\d.,]+ queries/s",
                         res.stderr), \
            res.stderr

    # 8: the host around each run, measured
    for f in files:
        host = json.loads(f.read_text())["host"]
        assert host["cpus"] == os.cpu_count() and isinstance(host["busy"], bool)
        for when in ("before", "after"):
            assert host[when]["load_1m"] >= 0 and host[when]["running"] >= 1
        assert 0 < host["cpu_busy_fraction"] <= 1 and 0 <= host["steal_fraction"] < 1
        if host["busy"]:  # and a busy host was said as the run ended
            assert "warning: the host was busy during this run" in res.stderr

    # 15: shared as CI artifacts: readable by others
    for f in [*files, report]:
        assert stat.S_IMODE(f.stat().st_mode) == 0o644, f

    # 11: the report says what A and B are and why B reads about twice as many pages
    text = " ".join(report.read_text().split())
    assert "A (interleaved) looks each id up 2 times in a row" in text and "does not fit the pool" in text
    assert "How to read the table" in text

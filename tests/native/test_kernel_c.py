"""The simulator's kernel driven from C, without Python in between (tests/c/check_kernel.c, built and
run by `make check-c`): its exact counts against the figures it gave before it was split into
native/lrusim/."""
from __future__ import annotations

import os
import subprocess

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.native


def test_kernel_checks_from_c(tmp_path):
    # a build directory of its own (parallel sessions), and none of a sanitizer run's preloads:
    # `make sanitize` runs the checks itself, built with ASan/UBSan
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    proc = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "check-c", f"CHECK_DIR={tmp_path}"],
                          capture_output=True, text=True, timeout=300, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "FAIL" not in out
    summary = [line for line in out.splitlines() if line.endswith(" failed")]
    assert summary and summary[-1].endswith(" 0 failed") and int(summary[-1].split()[0]) >= 50, out[-2000:]

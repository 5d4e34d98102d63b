"""The CI example in examples/ci runs as documented: a schema change that widens rows fails the
gate (exit 3), an unchanged schema passes it (exit 0)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT, our_server_pids

pytestmark = pytest.mark.mysqld
SCRIPT = ROOT / "examples" / "ci" / "schema-gate.sh"


def gate(tmp_path: Path, new_schema: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOADGEN": f"{sys.executable} -m loadgen", "BASE_SCHEMA": "chat",
           "NEW_SCHEMA": new_schema, "ROWS": "200k", "POOL": "16M", "OUT": str(tmp_path / new_schema)}
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


def test_a_wider_row_fails_the_gate_with_a_markdown_summary(mysqld_binary, tmp_path):
    res = gate(tmp_path, "chat_wide")
    assert res.returncode == 3, res.stderr
    comment = (tmp_path / "chat_wide" / "comment.md").read_text()
    assert "| A | pages_read |" in comment and "| B | pages_read |" in comment and "REGRESSION" in comment
    for side in ("base", "new"):
        for variation in ("A", "B"):
            assert (tmp_path / "chat_wide" / side / f"{variation}.json").exists()
    assert not our_server_pids()


def test_an_unchanged_schema_passes_the_gate(mysqld_binary, tmp_path):
    res = gate(tmp_path, "chat")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "REGRESSION" not in (tmp_path / "chat" / "comment.md").read_text()

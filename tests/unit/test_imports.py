"""Every module imports on its own, in a fresh interpreter: an import loop (a module that needs a
half-initialised one) shows up here, whatever order the rest of the suite imported things in."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import loadgen

PACKAGE_DIR = Path(loadgen.__file__).parent


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def test_the_package_has_the_layout_the_readme_describes():
    names = set(_modules())
    for expected in ("loadgen.cli", "loadgen.cli.options", "loadgen.drivers", "loadgen.analysis.model",
                     "loadgen.results.documents", "loadgen.servers.image", "loadgen.render.plots",
                     "loadgen.render.report"):
        assert expected in names


@pytest.mark.parametrize("module", _modules())
def test_module_imports_alone(module):
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"import {module} failed:\n{proc.stderr[-2000:]}"

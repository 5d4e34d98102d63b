"""The sdist must carry every .c and .h under native/: build it (sdist, then a wheel from it) the way
CI and PyPI would, not only `pip install -e`."""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.native


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """sdist and wheel from `python -m build` (isolated: the build backend pyproject.toml asks
    for, as pip and CI get it), and what the build printed."""
    if os.environ.get("LOADGEN_NATIVE_SO"):
        pytest.skip("sanitizer run: the packaging check runs in make test")
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out, proc.stdout + proc.stderr


def test_sdist_is_complete_and_builds_the_extension(built):
    tmp_path, _ = built
    (sdist,) = tmp_path.glob("loadgen-*.tar.gz")
    with tarfile.open(sdist) as tar:
        shipped = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "native").rglob("*") if p.suffix in (".c", ".h")}
    assert "native/lrusim/kernel.h" in sources  # the simulator's kernel, in a directory of its own
    assert sources and not sources - shipped, f"missing from the sdist: {sources - shipped}"

    (wheel,) = tmp_path.glob("loadgen-*.whl")  # built from the sdist by `python -m build`
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("loadgen/_native") and n.endswith(".so") for n in names), names
    assert "loadgen/experiments/child.py" in names


def test_the_licence_metadata_builds_without_warnings(built):
    """Issue #18 (16): `license = { text = "MIT" }` made setuptools print a deprecation warning
    (twice) on every install; the SPDX string form is what the metadata now carries."""
    tmp_path, output = built
    warned = [line for line in output.splitlines()
              if "license" in line.lower() and ("warn" in line.lower() or "deprecat" in line.lower())]
    assert not warned, warned
    (wheel,) = tmp_path.glob("loadgen-*.whl")
    with zipfile.ZipFile(wheel) as whl:
        meta = whl.read(next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta.splitlines(), meta[:600]


def test_the_wheel_carries_the_one_version(built):
    """The version is written once, as loadgen.__version__; pyproject.toml reads it (dynamic)."""
    import loadgen

    tmp_path, _ = built
    (wheel,) = tmp_path.glob("loadgen-*.whl")
    assert wheel.name.startswith(f"loadgen-{loadgen.__version__}-"), wheel.name
    with zipfile.ZipFile(wheel) as whl:
        meta = whl.read(next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {loadgen.__version__}" in meta.splitlines(), meta[:600]
    assert "version =" not in (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.dynamic]")[0]

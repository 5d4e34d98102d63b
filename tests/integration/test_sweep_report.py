"""A real small sweep (three pools, both orders) against the model, then its HTML report opened
in headless Chromium. Read-ahead is off and innodb_lru_scan_depth=100, as in the lab table: the
model predicts demand misses, and at the default scan depth the page cleaner's reserve varies
from run to run (docs/innodb.md, "Measurements")."""
import os
import re
import shutil
import subprocess

import pytest

from loadgen.analysis import sweep
from loadgen.seeding.dataset import DatasetSpec
from loadgen.servers import ServerSpec
from loadgen.workload.orders import parse_variations

from ..accuracy import check, sweep_points

pytestmark = pytest.mark.mysqld
POOLS = [8 << 20, 16 << 20, 32 << 20]


@pytest.fixture(scope="module")
def small_sweep(mysqld_binary, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("sweep")
    spec = ServerSpec(provider="local", pool_bytes=POOLS[0], mysqld=mysqld_binary,
                      options={"innodb_read_ahead_threshold": "0", "innodb_lru_scan_depth": "100"})
    result = sweep.run(spec, DatasetSpec(rows=200_000), POOLS, parse_variations("A,B"),
                       {"stride": 10, "reps": 2, "seed": 1}, out_dir / "runs", out_dir / "sweep.json", 5.0)
    return result, out_dir


def test_sweep_measures_every_point_within_3_percent_of_the_prediction(small_sweep):
    result, out_dir = small_sweep
    assert (out_dir / "sweep.json").is_file()
    assert len(result["points"]) == 6
    for p in result["points"]:
        assert p["reads"] and p["predicted_reads"]
    # within 3% and the interval, the misses a 95% interval makes allowed within 2x (tests/accuracy.py)
    check(sweep_points(result["points"], 0.03))
    b = {p["pool_bytes"]: p["reads"] for p in result["points"] if p["variation"] == "B"}
    assert b[POOLS[0]] > b[POOLS[1]] > b[POOLS[2]]  # the looped order gains from memory
    assert result["recommendation"]["A"]["pool_bytes"] == POOLS[0]  # interleaved: flat curve
    assert "within 5%" in result["recommendation"]["B"]["reason"]


def test_html_report_renders_with_its_images_in_chromium(small_sweep):
    _, out_dir = small_sweep
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("LOADGEN_REQUIRE_BROWSER") == "1":
            pytest.fail("LOADGEN_REQUIRE_BROWSER=1 but chromium is not installed (apt-get install chromium)")
        pytest.skip("needs chromium")
    page = out_dir / "report.html"
    from loadgen.__main__ import main

    assert main(["report", str(out_dir / "sweep.json"), "--html", str(page), "--plots", str(out_dir / "plots")]) == 0
    assert {p.name for p in (out_dir / "plots").iterdir()} >= {"curve.png", "curve.svg", "timeseries.png"}
    text = page.read_text()
    assert "src=\"http" not in text and text.count("data:image/png;base64,") == 3  # self-contained
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert re.search(r'<body[^>]*data-images-loaded="all"', dom), dom[:300]
    assert 'data-images="3"' in dom
    # issue #18 (7): the page carries the numbers, and no test marker shows on it
    assert "images loaded" not in dom
    result, _ = small_sweep
    for p in result["points"]:  # every run's pages read, as the tables write them
        assert f"<td>{p['pages_read']:,}</td>" in dom, p
    assert "mariadb 10.11" in dom and "chat.message: 200,000 rows" in dom and "per_query" in dom

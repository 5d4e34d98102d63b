"""Issue #18, the first hour: compare side by side names its columns and never divides across
servers (5), honours --format for every comparison (6), explains A, B and the table (11); report
prints the numbers and its HTML page carries them (7). Real result files (tests/data: a 200k-row A
and B on MariaDB 10.11.19, 8 MiB pool), the real CLI."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
A, B = DATA / "run_A_mariadb.json", DATA / "run_B_mariadb.json"


def loadgen(*args, columns=250):
    # wide enough that no cell of the tables wraps: the tests read whole phrases out of them
    return subprocess.run([sys.executable, "-m", "loadgen", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": str(columns)})


def on_mysql(src: Path, dst: Path, pages_read: int) -> Path:
    """The same run as if measured on MySQL 9.7.4 in docker (another server), reading pages_read."""
    doc = json.loads(src.read_text())
    doc["server"].update(provider="docker", flavor="mysql", version="9.7.4", image="loadgen/mysql:9.7")
    doc["buffer_pool"]["pages_read"] = pages_read
    dst.write_text(json.dumps(doc))
    return dst


def four(tmp_path):
    return [A, B, on_mysql(A, tmp_path / "a-mysql.json", 1_700), on_mysql(B, tmp_path / "b-mysql.json", 3_500)]


# -- 5: columns named by file and server; ratios within a server only ---------------------------------
def test_side_by_side_across_servers_names_each_column_and_divides_within_each_server(tmp_path):
    res = loadgen("compare", *four(tmp_path), "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [(c["key"], c["file"]) for c in doc["columns"]] == [
        ("A", A.name), ("B", B.name), ("A", "a-mysql.json"), ("B", "b-mysql.json")]
    assert [c["server"].split(",")[0] for c in doc["columns"]] == ["mariadb 10.11.19", "mariadb 10.11.19",
                                                                   "mysql 9.7.4", "mysql 9.7.4"]
    # one B/A per server: B over A of the same server, never B on MySQL over A on MariaDB
    assert [(r["label"], r["first"], r["last"]) for r in doc["ratios"]] == [("B/A", 0, 1), ("B/A", 2, 3)]
    pages = next(r for r in doc["rows"] if r["metric"] == "pages_read")
    assert pages["ratios"] == [3292 / 1646, 3500 / 1700]
    assert any("2 servers" in n and "never across servers" in n for n in doc["notes"])
    assert "never across servers" in res.stderr  # said as a warning too

    table = loadgen("compare", *four(tmp_path))
    assert table.returncode == 0, table.stderr
    head = table.stdout.split("┡")[0]
    for name in (A.name, B.name, "a-mysql.json", "b-mysql.json", "mariadb 10.11.19", "mysql 9.7.4"):
        assert name in head, name  # the header says which file and which server each column is
    narrow = loadgen("compare", *four(tmp_path), columns=100)
    assert narrow.returncode == 0 and "…" not in narrow.stdout  # a narrow log folds the headers, never cuts them
    assert "3,500" in table.stdout and "2.06x" in table.stdout and "2.00x" in table.stdout


def test_one_run_per_server_gets_no_ratio_at_all(tmp_path):
    res = loadgen("compare", A, on_mysql(B, tmp_path / "b-mysql.json", 3_500), "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["ratios"] == [] and all(r["ratios"] == [] for r in doc["rows"])
    table = loadgen("compare", A, tmp_path / "b-mysql.json")
    assert "x" not in "".join(re.findall(r"\d\.\d\dx", table.stdout))  # no ratio printed anywhere
    assert "no ratio column" in table.stdout


# -- 6: --format for A-vs-B files --------------------------------------------------------------------
def test_format_markdown_and_json_are_honoured_for_a_vs_b_files(tmp_path):
    js = loadgen("compare", A, B, "--format", "json")
    assert js.returncode == 0, js.stderr
    doc = json.loads(js.stdout)  # JSON, not a rich table
    assert doc["kind"] == "side_by_side" and [c["key"] for c in doc["columns"]] == ["A", "B"]
    assert next(r for r in doc["rows"] if r["metric"] == "pages_read")["values"] == [1646, 3292]
    md = loadgen("compare", A, B, "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# loadgen compare") and "┃" not in md.stdout
    assert "| pages read into the pool (misses) | 1,646 | 3,292 | 2.00x |" in md.stdout
    # the BASE NEW comparison keeps its formats
    assert json.loads(loadgen("compare", A, A, "--format", "json").stdout)["regressed"] is False


# -- 11: what A and B are, why B reads 2x, and how to read the table ------------------------------------
def test_the_comparison_explains_a_b_and_the_table(tmp_path):
    report = tmp_path / "demo.md"
    res = loadgen("compare", A, B, "--report", report)
    assert res.returncode == 0, res.stderr
    text = " ".join(report.read_text().split())
    assert "A (interleaved) looks each id up 2 times in a row" in text
    assert "B (looped) makes 2 full passes" in text
    assert "does not fit the pool (507 pages)" in text and "2.00x the pages A read here" in text
    assert "How to read the table: pages read into the pool are the misses" in text
    # before the table, so a reader meets it first
    assert text.index("A (interleaved)") < text.index("| metric |")
    assert "A (interleaved) looks each id up" in " ".join(res.stdout.split())  # the terminal says it too


# -- 7: report prints the table; the HTML page carries the numbers ---------------------------------------
RUN_NUMBERS = ["1,646", "3,292", "98.64%", "97.27%", "per_query", "mariadb 10.11.19", "chat.message: 200,000 rows",
               "interleaved (variation A), stride 10, reps 2", "looped (variation B)"]


def test_report_without_html_or_plots_prints_the_run_table():
    res = loadgen("report", A, B)
    assert res.returncode == 0, res.stderr
    out = " ".join(res.stdout.split())
    for needle in RUN_NUMBERS:
        assert needle in out, needle
    for header in ("pages read", "predicted", "error", "hit ratio", "q/s", "p50 µs", "p99 µs", "latency kind"):
        assert header in res.stdout, header
    a = json.loads(A.read_text())
    assert f"{a['prediction']['reads']:,}" in out and f"{a['prediction']['error_pct']:+.2f}%" in out
    assert "BUSY" in out  # the golden runs ran on a busy host: the table says so


def test_the_html_page_carries_the_numbers_and_no_test_marker(tmp_path):
    page = tmp_path / "r.html"
    res = loadgen("report", A, B, "--html", page)
    assert res.returncode == 0, res.stderr
    text = page.read_text()
    visible = re.sub(r"<script>.*?</script>|<[^>]+>", " ", text, flags=re.S)
    assert "images loaded" not in visible and "loading" not in visible
    for needle in RUN_NUMBERS:
        assert needle in " ".join(visible.split()), needle
    assert "<td>1,646</td>" in text and "<td>98.64%</td>" in text
    assert text.count("data:image/png;base64,") == 2  # the plots are still there
    assert "ran on a busy host" in visible


def test_directories_with_no_order_in_common_show_every_file_not_the_first_of_each(tmp_path):
    """compare base/ new/ where the sides share no order: every run of both sides, each named by its
    file (issue #19, B10: only the first file of each directory was shown, the rest dropped unsaid)."""
    base, new = tmp_path / "base", tmp_path / "new"
    base.mkdir(), new.mkdir()
    (base / "a.json").write_text(A.read_text())
    (new / "b.json").write_text(B.read_text())
    doc = json.loads(B.read_text())
    doc["workload"].update(order="sequential", variation=None)
    (new / "s.json").write_text(json.dumps(doc))
    res = loadgen("compare", base, new, "--format", "json")
    assert res.returncode == 0, res.stderr
    assert [(c["key"], c["file"]) for c in json.loads(res.stdout)["columns"]] == [
        ("A", "a.json"), ("B", "b.json"), ("sequential", "s.json")]

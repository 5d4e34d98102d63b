"""The red-team's CLI and result-file findings (issue #11: D4, D10, D11, D13, D18, D21), each
reproduced with the real CLI or the core function it reaches; no server is needed here."""
import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from loadgen.results.documents import FORMAT_VERSION
from loadgen.results.files import default_path, write_json_atomic


def result(variation="A", reads=1000, rows=200_000, pool=8 << 20, stride=10, reps=2, complete=True, **over):
    order = {"A": "interleaved", "B": "looped"}[variation]
    doc = {
        "format_version": FORMAT_VERSION, "kind": "run", "complete": complete,
        "incomplete_reason": None if complete else "interrupted",
        "server": {"innodb_buffer_pool_size": pool, "flavor": "mariadb", "version": "10.11.19"},
        "dataset": {"rows": rows, "schema": "chat", "schema_hash": "chat", "seed": 1},
        "workload": {"variation": variation, "order": order, "stride": stride, "reps": reps},
        "result": {"qps": 10000.0, "latency_us": {"p50": 50.0, "p99": 200.0}},
        "buffer_pool": {"reads": reads, "read_requests": 120_000, "hit_ratio": 1 - reads / 120_000},
    }
    doc.update(over)
    return doc


def write(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path


def loadgen(*args, env=None):
    return subprocess.run([sys.executable, "-m", "loadgen", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def one_line(res, code, *needles):
    assert res.returncode == code, (res.returncode, res.stderr)
    err = res.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err


# -- D4: the gate refuses what it cannot judge ----------------------------------------------------
def test_gate_refuses_an_interrupted_result_naming_it(tmp_path):
    base = write(tmp_path / "base.json", result(reads=2468))
    partial = write(tmp_path / "partial.json", result(reads=360, complete=False))
    one_line(loadgen("compare", base, partial, "--max-regression", "reads=10%"), 2, "partial.json", "incomplete",
             "--allow-incomplete", "cannot judge: ")  # the replay read "cannot judge partial.json is incomplete"
    # asked for explicitly, the partial result is compared (and -85% reads is no regression), with a note
    allowed = loadgen("compare", base, partial, "--max-regression", "reads=10%", "--allow-incomplete")
    assert allowed.returncode == 0 and "partial.json is incomplete" in " ".join(allowed.stderr.split())


def test_gate_refuses_files_without_data(tmp_path):
    minimal = write(tmp_path / "minimal.json", {"format_version": FORMAT_VERSION})
    one_line(loadgen("compare", minimal, minimal, "--max-regression", "10%"), 2, "minimal.json")


def test_gate_refuses_a_result_missing_the_gated_metric(tmp_path):
    base = write(tmp_path / "base.json", result())
    no_reads = result()
    del no_reads["buffer_pool"]["reads"]  # and no pages_read: nothing to count pages read from
    new = write(tmp_path / "new.json", no_reads)
    one_line(loadgen("compare", base, new, "--max-regression", "reads=10%"), 2, "new.json", "pages_read")
    # a metric the gate does not look at may be missing
    assert loadgen("compare", base, new, "--max-regression", "qps=10%").returncode == 0


def test_gate_refuses_another_format_version_with_exit_2(tmp_path):
    base = write(tmp_path / "base.json", result())
    newer = write(tmp_path / "newer.json", result(format_version=FORMAT_VERSION + 1))
    one_line(loadgen("compare", base, newer, "--max-regression", "10%"), 2, "newer.json", "format_version")


def test_gate_refuses_an_incomplete_file_inside_a_directory(tmp_path):
    for side in ("base", "new"):
        (tmp_path / side).mkdir()
        write(tmp_path / side / "1.json", result())
    write(tmp_path / "new" / "2.json", result(complete=False))
    one_line(loadgen("compare", tmp_path / "base", tmp_path / "new", "--max-regression", "10%"), 2, "2.json")


# -- D10: default names are unique under concurrency ------------------------------------------------
def test_default_paths_claimed_at_once_are_all_different(tmp_path):
    paths, barrier = [], threading.Barrier(8)

    def claim():
        barrier.wait()
        paths.append(default_path(tmp_path, "run-A"))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(paths)) == 8
    assert all(p.exists() for p in paths)  # claimed on disk, so another process skips them too


def test_default_paths_in_two_processes_differ(tmp_path):
    code = ("import sys; from loadgen.results.files import default_path; "
            f"print(default_path({str(tmp_path)!r}, 'run-A'))")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(4)]
    names = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert len(names) == 4


# -- D11: --sample-interval finite and sane; JSON never holds NaN -----------------------------------
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0.001", "1e9"])
def test_sample_interval_out_of_range_is_a_usage_error(value, tmp_path):
    # a server binary that does not exist: the option must be refused before one is looked for
    one_line(loadgen("run", "--server", "local", "--mysqld", tmp_path / "none", "--sample-interval", value,
                     "--rows", "1000"), 2, "--sample-interval")


def test_result_json_is_strict(tmp_path):
    path = write_json_atomic(tmp_path / "r.json", {"result": {"qps": math.nan, "max": math.inf, "ok": [1.5]}})
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    # strict parsing, as jq or JavaScript would: a bare NaN raises here
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert data == {"result": {"qps": None, "max": None, "ok": [1.5]}}


# -- D13: side by side refuses different datasets -----------------------------------------------
def test_side_by_side_refuses_different_datasets(tmp_path):
    a = write(tmp_path / "a.json", result("A", rows=100_000, pool=8 << 20))
    b = write(tmp_path / "b.json", result("B", rows=300_000, pool=16 << 20))
    one_line(loadgen("compare", a, b), 1, "dataset.rows", "innodb_buffer_pool_size")
    same = write(tmp_path / "same.json", result("B"))
    ok = loadgen("compare", write(tmp_path / "a2.json", result("A")), same)
    assert ok.returncode == 0 and "B/A" in ok.stdout, ok.stderr


# -- D18: one-line errors instead of tracebacks ---------------------------------------------------
@pytest.mark.parametrize("name", ["a`b", "", "x" * 65, "a b", "chat;"])
def test_database_names_are_checked(name):
    one_line(loadgen("seed", "--server", "local", "--database", name, "--rows", "1000"), 2, "--database")


def test_a_cache_dir_that_is_a_file(tmp_path):
    f = tmp_path / "cache"
    f.write_text("not a dir")
    one_line(loadgen("seed", "--server", "local", "--rows", "1000", env={"LOADGEN_CACHE_DIR": str(f)}), 1,
             "LOADGEN_CACHE_DIR", "not a directory")


def test_binary_garbage_result_files(tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 8)
    good = write(tmp_path / "good.json", result())
    one_line(loadgen("compare", garbage, good), 1, "garbage.bin", "not a loadgen result")
    one_line(loadgen("report", garbage, "--html", tmp_path / "r.html"), 1, "garbage.bin")


@pytest.mark.parametrize("args,needle", [
    (["--height", "16"], "--height"),
    (["--set", "innodb_old_blocks_pct=500"], "innodb_old_blocks_pct"),
])
def test_predict_bad_model_input(args, needle):
    one_line(loadgen("predict", "--variation", "B", "--pool", "8M", "--rows", "300k", "--curve", "", *args), 2,
             needle)


# -- D21: smaller validation gaps ---------------------------------------------------------------
def test_format_version_true_is_refused(tmp_path):
    good = write(tmp_path / "good.json", result())
    bool_version = write(tmp_path / "bool.json", result(format_version=True))
    one_line(loadgen("compare", bool_version, good), 1, "bool.json", "format_version")


def test_report_refuses_files_without_data(tmp_path):
    minimal = write(tmp_path / "minimal.json", {"format_version": FORMAT_VERSION})
    html = tmp_path / "r.html"
    one_line(loadgen("report", minimal, "--html", html), 1, "minimal.json", "no data")
    assert not html.exists()


@pytest.mark.parametrize("args,needle", [
    (["--height", "0"], "--height"),
    (["--rows-per-leaf", "0"], "--rows-per-leaf"),
    (["--rows-per-leaf", "-3"], "--rows-per-leaf"),
    (["--qps", "nan"], "--qps"),
    (["--qps", "inf"], "--qps"),
    (["--curve", "8M,abc"], "--curve"),
])
def test_predict_validation_gaps(args, needle):
    one_line(loadgen("predict", "--variation", "B", "--pool", "8M", "--rows", "300k", *args), 2, needle)


# -- D6: the --out destination is checked before anything starts ---------------------------------
@pytest.mark.parametrize("where", ["parent-file", "proc"])
def test_an_unwritable_out_is_refused_before_the_run(tmp_path, where):
    a_file = write(tmp_path / "base-A.json", result())
    out = {"parent-file": a_file / "x.json", "proc": Path("/proc/loadgen-x.json")}[where]
    # --server local with a binary that does not exist: had the check come after provisioning,
    # the error would be about the missing server instead
    res = loadgen("run", "--server", "local", "--mysqld", tmp_path / "no-such-mysqld", "--rows", "1000",
                  "--out", out)
    one_line(res, 2, "--out")


def test_sweep_and_compare_check_their_directories(tmp_path):
    a_file = write(tmp_path / "f", result())
    no_server = ["--server", "local", "--mysqld", tmp_path / "no-such-mysqld", "--rows", "1000"]
    one_line(loadgen("compare", "--out-dir", a_file / "d", *no_server), 2, "--out-dir")
    one_line(loadgen("sweep", "--pools", "8M", "--variations", "A", "--out-dir", a_file / "d", *no_server), 2,
             "--out-dir")


def test_a_failed_command_leaves_no_empty_claimed_file(tmp_path):
    res = subprocess.run([sys.executable, "-m", "loadgen", "run", "--server", "local", "--mysqld",
                          str(tmp_path / "no-such-mysqld"), "--rows", "1000"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert res.returncode != 0 and "no-such-mysqld" in res.stderr
    assert (tmp_path / "reports").is_dir()  # the default name was claimed in it ...
    assert not list((tmp_path / "reports").iterdir())  # ... and released when the run failed


def test_native_out_is_checked_before_the_experiment(tmp_path):
    a_file = write(tmp_path / "f.json", result())
    one_line(loadgen("native", "memset", "--size", "1M", "--passes", "1", "--out", a_file / "x.json"), 2, "--out")


def test_out_dev_null_passes_the_check(tmp_path):
    from loadgen.results.files import check_destination

    assert check_destination(Path("/dev/null")) == Path("/dev/null")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert check_destination(fifo) == fifo  # returns at once: a FIFO is never opened to probe it


def test_a_server_variable_the_server_would_clamp_is_refused_before_it_starts():
    """Replayed on the merged main (D16/D21): `predict --set innodb_old_blocks_pct=500` was refused,
    but `run --set innodb_old_blocks_pct=500` ran: the server clamped it to 95 without a word and
    the user believed they had measured 500."""
    for cmd in (["run", "--server", "local", "--rows", "20k", "--variation", "A"], ["up", "--server", "local"]):
        one_line(loadgen(*cmd, "--set", "innodb_old_blocks_pct=500"), 2,
                 "--set innodb_old_blocks_pct=500 is out of range", "from 5 to 95")
        one_line(loadgen(*cmd, "--set", "innodb-read-ahead-threshold=65"), 2, "from 0 to 64")

"""Red team 3's findings on what a user hands loadgen (issue #18: N3 the gate's values, N4 files
without a size limit, N1's --database, N6's early SIGTERM), each reproduced with the real CLI; no
server is needed here."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from loadgen.errors import ResultError
from loadgen.inputs import read_capped
from loadgen.results.documents import FORMAT_VERSION


def result(pages_read=818, **over) -> dict:
    doc = {
        "format_version": FORMAT_VERSION, "kind": "run", "complete": True,
        "server": {"innodb_buffer_pool_size": 8 << 20, "flavor": "mariadb", "version": "10.11.19"},
        "dataset": {"rows": 100_000, "schema": "chat", "schema_hash": "chat", "seed": 1},
        "workload": {"variation": "A", "order": "interleaved", "stride": 10, "reps": 2},
        "result": {"qps": 10000.0, "elapsed_s": 2.0, "latency_us": {"p50": 50.0, "p99": 200.0}},
        "buffer_pool": {"pages_read": pages_read, "read_requests": 120_000, "hit_ratio": 0.99},
    }
    for path, value in over.items():
        *parents, last = path.split("__")
        node = doc
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value
    return doc


def write(path, doc) -> str:
    path.write_text(json.dumps(doc))  # allow_nan: the red team's files hold bare NaN
    return str(path)


def loadgen(*args, prefix=(), **kw):
    return subprocess.run([*prefix, sys.executable, "-m", "loadgen", *map(str, args)], capture_output=True,
                          text=True, timeout=120, **kw)


def one_line(res, code, *needles) -> str:
    assert res.returncode == code, (res.returncode, res.stderr[-3000:])
    err = res.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err
    return err


# -- N3: a gated or derived counter that is not a finite number >= 0 is refused -------------------
@pytest.mark.parametrize("key,value,shown", [
    ("buffer_pool__pages_read", float("nan"), "is nan"),
    ("buffer_pool__pages_read", -5000, "is -5000"),
    ("buffer_pool__pages_read", "821", "is '821'"),
    ("buffer_pool__pages_read", float("inf"), "is inf"),
    ("buffer_pool__pages_read", True, "is True"),
    ("buffer_pool__read_requests", -1, "is -1"),
    ("buffer_pool__hit_ratio", 1.124, "is 1.124, not a ratio from 0 to 1"),
    ("result__qps", float("-inf"), "is -inf"),
    ("result__latency_us__p99", [200], "is [200]"),
    ("result__latency_us", "fast", "is 'fast', not an object"),
    ("workload__variation", {"x": 1}, "is {'x': 1}, not a string"),
    # above any 64-bit counter: it printed 301 digits and passed as a regression (issue #18)
    ("buffer_pool__pages_read", 1e300, "is 1e+300, not a finite number from 0 to 2^64"),
    ("result__qps", 2.0 ** 64 + 2.0 ** 20, "is 1.84467440737106e+19"),
    # the settings the model takes from a run: outside the servers' ranges was a traceback
    ("server__variables__innodb_old_blocks_pct", "nan", "is 'nan', not an integer from 5 to 95"),
    ("server__variables__innodb_old_blocks_pct", 200, "is 200"),
    ("server__variables__innodb_old_blocks_time", -1, "is -1"),
    ("server__variables__innodb_read_ahead_threshold", 1.5, "is 1.5"),
])
def test_a_counter_that_is_not_a_finite_number_is_refused_when_read(tmp_path, key, value, shown):
    """load_sides, which every `compare BASE NEW` goes through, before the gate reads a value."""
    from loadgen.errors import EXIT_USAGE, BadValueError
    from loadgen.results.documents import load_sides

    good = write(tmp_path / "base-A.json", result())
    bad = write(tmp_path / "bad.json", result(**{key: value}))
    for sides in ((good, bad), (bad, good)):
        with pytest.raises(BadValueError) as err:
            load_sides(sides)
        assert err.value.exit_code == EXIT_USAGE
        assert f"{bad}: {key.replace('__', '.')} {shown}" in str(err.value)


@pytest.mark.parametrize("value,shown,side,gate", [
    (float("nan"), "is nan", "new", ("--max-regression", "pages_read=10%")),  # passed with +nan% on 37e8410
    (-5000, "is -5000", "base", ("--max-regression", "10%")),
    ("821", "is '821'", "new", ("--allow-incomplete", "--max-regression", "10%")),  # was a traceback
    ("821", "is '821'", "new", ()),
])
def test_compare_refuses_such_a_counter_on_either_side_gated_or_not(tmp_path, value, shown, side, gate):
    _refused(tmp_path, "buffer_pool__pages_read", value, shown, side, gate)


def _refused(tmp_path, key, value, shown, side, gate):
    good = write(tmp_path / "base-A.json", result())
    bad = write(tmp_path / "bad.json", result(**{key: value}))
    files = (good, bad) if side == "new" else (bad, good)
    dotted = key.replace("__", ".")
    one_line(loadgen("compare", *files, *gate), 2, f"{bad}: {dotted} {shown}", "edited")


def test_side_by_side_refuses_a_negative_counter_too(tmp_path):
    a = write(tmp_path / "a.json", result())
    b = write(tmp_path / "b.json", result(workload__variation="B", workload__order="looped",
                                          buffer_pool__pages_read=-3))
    one_line(loadgen("compare", a, b), 2, "b.json: buffer_pool.pages_read is -3")


def test_null_counters_still_compare(tmp_path):
    """What loadgen itself writes for a value it could not measure is null: not refused."""
    base = write(tmp_path / "base.json", result(result__qps=None))
    new = write(tmp_path / "new.json", result(pages_read=820, result__qps=None))
    res = loadgen("compare", base, new, "--max-regression", "pages_read=10%")
    assert res.returncode == 0, res.stderr


# -- N4: result and schema files are read with a cap, devices are refused ------------------------
def _prlimit():
    tool = shutil.which("prlimit")
    if tool is None:
        pytest.skip("prlimit (util-linux) is not installed")
    return (tool, f"--as={2 << 30}")  # 2 GiB of address space: reading /dev/zero dies, not the host


@pytest.mark.parametrize("args", [
    ("compare", "{base}", "/dev/zero", "--max-regression", "10%"),
    ("compare", "{base}", "/dev/urandom"),
    ("compare", "{dir}", "{dir}", "--max-regression", "10%"),  # holds z.json -> /dev/zero
    ("report", "/dev/zero", "--html", "{tmp}/r.html"),
    ("run", "--server", "local", "--rows", "20k", "--schema", "/dev/zero"),
])
def test_a_device_is_refused_at_once_without_reading_it(tmp_path, args):
    """compare x.json /dev/zero grew to 23 GB on 37e8410 until the OOM killer ended it."""
    base = write(tmp_path / "base-A.json", result())
    d = tmp_path / "dir"
    d.mkdir()
    shutil.copy(base, d / "a.json")
    (d / "z.json").symlink_to("/dev/zero")
    argv = [a.format(base=base, dir=d, tmp=tmp_path) for a in args]
    res = loadgen(*argv, prefix=_prlimit())
    code = 2 if args[0] == "run" else 1
    one_line(res, code, "is a device, not a")


def test_a_pipe_is_read_once_and_capped(tmp_path):
    """A FIFO or <(...) is a legitimate result file: it is read, up to the cap."""
    base = write(tmp_path / "base-A.json", result())
    res = subprocess.run(["bash", "-c", f'"$0" -m loadgen compare {base} <(cat {base}) --max-regression 10%',
                          sys.executable], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "wb") as f:
            try:
                f.write(b" " * 5000)
            except BrokenPipeError:
                pass

    t = threading.Thread(target=writer)
    t.start()
    with pytest.raises(ResultError, match="holds more than 4 KiB"):
        read_capped(fifo, 4096, "result file", pipes=True, error=ResultError)
    t.join(timeout=10)


def test_a_fifo_in_a_results_directory_is_refused_not_waited_for(tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    write(d / "a.json", result())
    os.mkfifo(d / "planted.json")
    one_line(loadgen("compare", d, d, "--max-regression", "10%"), 1, "planted.json is a pipe, not a result file")


def test_json_nested_too_deeply_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    one_line(loadgen("compare", write(tmp_path / "a.json", result()), deep), 1, "nested too deeply")


def test_a_regular_file_over_the_cap_is_refused_by_its_size(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((1 << 30) + 1)  # sparse: no disk, no memory
    one_line(loadgen("compare", write(tmp_path / "a.json", result()), big, prefix=_prlimit()), 1,
             "is 1.0 GiB, more than a result file may be (1 GiB)")


# -- N1's neighbour: --database names loadgen's own database, never the server's -----------------
@pytest.mark.parametrize("name", ["mysql", "MySQL", "performance_schema", "information_schema", "sys"])
def test_a_system_database_is_refused_as_loadgens_database(tmp_path, name):
    """loadgen creates loadgen_meta and the file's tables in --database, drops and refills them,
    and an error may advise dropping it: on 37e8410 `--database mysql` seeded into the mysql
    schema as root."""
    schema = tmp_path / "t.sql"
    schema.write_text("CREATE TABLE t (id INT PRIMARY KEY);\n")
    one_line(loadgen("seed", "--server", "local", "--database", name, "--schema", schema, "--rows", "1000"), 2,
             f"--database {name} is the server's own")


# -- N6: a SIGTERM is an interruption from the first moment ---------------------------------------
def test_a_sigterm_while_loadgen_still_imports_is_an_interruption():
    """The red team's SIGTERM 0.55-0.75 s into a run: on a busy host loadgen is still importing its
    modules then, and on 37e8410 the handler came after them (the process died of the signal, exit
    -15/143). The signal is sent from inside the import of loadgen.cli, so it lands there."""
    code = ("import builtins, os, signal, sys\n"
            "real = builtins.__import__\n"
            "def hook(name, *args, **kw):\n"
            "    if name == 'cli' and args[3:4] == (1,):\n"
            "        os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(name, *args, **kw)\n"
            "builtins.__import__ = hook\n"
            "from loadgen.__main__ import main\n"
            "sys.exit(main(['--help']))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 130, (res.returncode, res.stderr)
    assert res.stderr.strip() == "loadgen: interrupted" and "Traceback" not in res.stderr


def test_an_interruption_claims_no_server_it_did_not_stop(tmp_path):
    """Replayed on the merged main: every interrupted command said "servers stopped", also a
    `--server dsn` run (someone else's server, which loadgen never stops) and a `compare` that
    started none; a DBA reading it on their production server's run would think it was stopped.
    Here `compare` waits on a FIFO that nobody writes, and gets a SIGTERM."""
    fifo = tmp_path / "new.json"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "loadgen", "compare", str(fifo), str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)  # loadgen has started and blocks opening the FIFO; the exact moment does not matter
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().startswith("loadgen: interrupted") and "Traceback" not in err
    assert "servers stopped" not in err


def test_root_will_not_write_default_results_where_another_user_pointed(tmp_path):
    """A red-team replay of #18: a `reports` symlink planted in the working directory was followed,
    so root wrote its result file into a directory another user chose. As root, a default result
    directory that is a symlink or another user's is refused; root's own is used, and one the
    user named (--out-dir) is theirs to choose."""
    from loadgen.errors import UsageError
    from loadgen.results.files import default_path, drop_empty_claims

    if os.geteuid() != 0:
        pytest.skip("the check is for root: a user's writes are kept by the kernel's permissions")
    elsewhere = tmp_path / "chosen-by-someone"
    elsewhere.mkdir()
    link = tmp_path / "reports"
    link.symlink_to(elsewhere)
    with pytest.raises(UsageError, match="is a symlink"):
        default_path(link, "run-B", picked=True)
    planted = tmp_path / "planted"
    planted.mkdir()
    os.chown(planted, 65534, 65534)
    with pytest.raises(UsageError, match="owned by uid 65534"):
        default_path(planted, "run-B", picked=True)
    assert list(elsewhere.iterdir()) == [] and list(planted.iterdir()) == []
    named = default_path(link, "run-B")  # --out-dir given: the user's choice
    assert named.parent == link
    own = default_path(tmp_path / "own", "run-B", picked=True)
    assert own.parent == tmp_path / "own" and own.exists()
    drop_empty_claims()
    assert not own.exists()


def test_report_writes_a_huge_value_with_an_exponent_not_300_digits(tmp_path):
    """Issue #18: `report` of a file with pages_read 1e300 printed 301 digits (a table row 40 lines
    high); numfmt writes it as 1.00e+300. (compare refuses such a file, above.)"""
    f = write(tmp_path / "huge.json", result(buffer_pool__pages_read=1e300, result__qps=1e300))
    res = loadgen("report", f, env={**os.environ, "COLUMNS": "200"})
    assert res.returncode == 0, res.stderr
    assert "1.00e+300" in res.stdout and not re.search(r"\d{20}", res.stdout.replace(",", ""))


def test_advise_from_a_run_with_a_setting_no_server_has_says_so_in_one_line(tmp_path):
    """advise --result hands the run's settings to the model: one it could not hold (a hand-edited
    innodb_old_blocks_pct of 200) is one line and exit 2, not the simulator's ValueError."""
    bad = write(tmp_path / "bad.json", result(server__variables__innodb_old_blocks_pct=200))
    one_line(loadgen("advise", "--result", bad), 2, "innodb_old_blocks_pct is 200, not an integer from 5 to 95")

"""Issue #18 (15): result files, reports and plots are CI artifacts, meant to be read by others:
0644 under the usual umask 022 (they were 0600, mkstemp's mode). The `up` server's state file
stays private; the password file and datadirs are the servers' own (test_server_security.py)."""
import json
import os
import stat
import subprocess
import sys

from loadgen.results.documents import FORMAT_VERSION
from loadgen.results.files import PRIVATE, write_json_atomic, write_text_atomic

RUN = {
    "format_version": FORMAT_VERSION, "kind": "run", "complete": True,
    "server": {"provider": "local", "innodb_buffer_pool_size": 8 << 20, "flavor": "mariadb", "version": "10.11.19"},
    "dataset": {"rows": 200_000, "schema": "chat", "database": "chat", "table": "message"},
    "workload": {"variation": "A", "order": "interleaved", "stride": 10, "reps": 2, "queries": 40_000},
    "result": {"queries": 40_000, "elapsed_s": 2.5, "qps": 16_000.0,
               "latency_us": {"mean": 60.0, "p50": 50.0, "p95": 90.0, "p99": 200.0, "p999": 400.0, "max": 900.0}},
    "buffer_pool": {"pages_read": 1640, "read_requests": 120_000},
    "samples": [{"t_s": 1.0, "pages_read": 800, "hit_ratio": 0.98}, {"t_s": 2.0, "pages_read": 840, "hit_ratio": 0.98}],
}


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def with_umask(umask: int, *args):
    return subprocess.run([sys.executable, "-m", "loadgen", *map(str, args)], capture_output=True, text=True,
                          timeout=120, preexec_fn=lambda: os.umask(umask))


def test_results_and_reports_are_readable_by_others(tmp_path):
    old = os.umask(0o022)
    try:
        run = write_json_atomic(tmp_path / "run.json", RUN)
        text = write_text_atomic(tmp_path / "r.md", "# x\n")
    finally:
        os.umask(old)
    assert mode(run) == 0o644 and mode(text) == 0o644
    other = tmp_path / "b.json"
    other.write_text(json.dumps({**RUN, "workload": {**RUN["workload"], "variation": "B", "order": "looped"}}))
    res = with_umask(0o022, "report", run, "--html", tmp_path / "page.html")
    assert res.returncode == 0, res.stderr
    res = with_umask(0o022, "compare", run, other, "--report", tmp_path / "cmp.md")
    assert res.returncode == 0, res.stderr
    assert mode(tmp_path / "page.html") == 0o644 and mode(tmp_path / "cmp.md") == 0o644


def test_a_stricter_umask_is_respected_and_private_files_stay_private(tmp_path):
    res = with_umask(0o077, "report", write_json_atomic(tmp_path / "run.json", RUN), "--html", tmp_path / "p.html")
    assert res.returncode == 0, res.stderr
    assert mode(tmp_path / "p.html") == 0o600  # the user asked for private files
    old = os.umask(0o022)
    try:
        assert mode(write_json_atomic(tmp_path / "state.json", {"pid": 1}, PRIVATE)) == 0o600
    finally:
        os.umask(old)


def test_the_up_servers_state_file_stays_private(tmp_path, monkeypatch):
    from loadgen.servers import state

    monkeypatch.setenv("LOADGEN_STATE_DIR", str(tmp_path / "state"))
    old = os.umask(0o022)
    try:
        state.save({"pid": 1, "port": 3306})
    finally:
        os.umask(old)
    assert mode(state.state_file()) == 0o600

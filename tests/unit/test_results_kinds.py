"""results.load(): the kind and format_version checks every reader relies on, and the JSON keys
kept as they are when a document is read and written again."""
import json

import pytest

from loadgen.errors import ResultError
from loadgen.results.documents import FORMAT_VERSION, RunResult, SweepResult, load, load_sides
from loadgen.results.files import write_json_atomic

RUN = {
    "format_version": FORMAT_VERSION, "loadgen_version": "0.1.0", "started_at": "t0", "finished_at": "t1",
    "complete": True, "incomplete_reason": None,
    "server": {"provider": "local", "innodb_buffer_pool_size": 8 << 20},
    "dataset": {"rows": 1000}, "workload": {"variation": "A", "order": "interleaved", "stride": 10, "reps": 2},
    "result": {"qps": 100.0}, "buffer_pool": {"reads": 7}, "samples": [], "host": {"cpus": 2},
    "prediction": {"model": "innodb-lru", "reads": 8, "error_pct": 14.3, "capacity_pages": 300},
}
SWEEP = {"format_version": FORMAT_VERSION, "kind": "sweep", "pools": [8 << 20], "points": [], "curves": {},
         "recommendation": {}}


def _write(path, obj):
    path.write_text(json.dumps(obj))
    return path


def test_a_sweep_file_is_refused_where_a_run_is_expected(tmp_path):
    sweep = _write(tmp_path / "sweep.json", SWEEP)
    with pytest.raises(ResultError, match="is a sweep file, not a run result"):
        load(sweep, kind="run")
    assert isinstance(load(sweep), SweepResult)
    with pytest.raises(ResultError, match="not a run result"):
        load_sides([sweep, sweep])


def test_a_newer_format_version_is_refused_in_one_line(tmp_path):
    newer = _write(tmp_path / "newer.json", {**RUN, "format_version": FORMAT_VERSION + 1})
    with pytest.raises(ResultError) as err:
        load(newer)
    assert f"format_version {FORMAT_VERSION + 1}, newer than" in str(err.value) and "\n" not in str(err.value)


def test_a_file_without_kind_is_a_run_and_keeps_its_keys(tmp_path):
    old = _write(tmp_path / "old.json", RUN)
    run = load(old, kind="run")
    assert isinstance(run, RunResult) and run.key == "A" and run.pool_bytes == 8 << 20
    assert run.prediction.reads == 8 and run["buffer_pool"]["reads"] == 7
    again = tmp_path / "again.json"
    write_json_atomic(again, run)
    data = json.loads(again.read_text())
    assert data == {**RUN, "kind": "run"}  # every key as it was, plus the kind


def test_a_directory_side_passes_over_sweeps_but_not_an_empty_one(tmp_path):
    side = tmp_path / "side"
    side.mkdir()
    _write(side / "a.json", RUN)
    _write(side / "sweep.json", SWEEP)
    [[run]] = load_sides([side])
    assert run.key == "A"
    (side / "a.json").unlink()
    with pytest.raises(ResultError, match="holds no run result files"):
        load_sides([side])


def test_writing_to_a_fifo_keeps_the_fifo(tmp_path):
    """--out naming a device or pipe (/dev/null, /dev/stdout) is written in place: the atomic
    rename used for files would replace it with a regular file (as root, /dev/null itself)."""
    import os
    import stat
    import threading

    from loadgen.results.files import write_json_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    write_json_atomic(fifo, {"format_version": 1, "kind": "run"})
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and '"kind": "run"' in got[0]


def test_a_run_file_round_trips_byte_identical_through_its_typed_blocks(tmp_path):
    """The blocks are types (run.server.flavor, run.buffer_pool.pages_read) over the file's own
    keys: a file read and written again is the same file, prediction block included."""
    from pathlib import Path

    from loadgen.results.documents import BufferPoolBlock, Prediction, ServerBlock

    for name in ("run_A_mariadb.json", "run_B_mariadb.json"):
        src = Path(__file__).resolve().parents[1] / "data" / name
        run = load(src, kind="run")
        assert isinstance(run.server, ServerBlock) and isinstance(run.buffer_pool, BufferPoolBlock)
        assert isinstance(run.prediction, Prediction)
        assert run.server.flavor == "mariadb" and run.server.pool_bytes == 8 << 20
        assert run.buffer_pool.pages_read == run["buffer_pool"]["pages_read"] == run.headline()[0]
        assert run.workload.order in ("interleaved", "looped") and run.dataset.leaf_pages == 1633
        # the file as loadgen writes it (the test data is indented by hand), then read and written again
        written = write_json_atomic(tmp_path / f"as-written-{name}", json.loads(src.read_text()))
        again = write_json_atomic(tmp_path / name, load(written, kind="run"))
        assert again.read_bytes() == written.read_bytes()


def test_where_a_document_came_from_is_its_own_not_its_class_and_never_in_the_json(tmp_path):
    """Document.source was a ClassVar set per instance (issue #19, B6): dataclasses.replace() and
    a copy dropped it. It is a field now, left out of the JSON; a file's own "source" key is data."""
    import dataclasses
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "data" / "run_A_mariadb.json"
    run = load(src, kind="run")
    assert run.source == src and "source" not in run.to_dict()
    assert dataclasses.replace(run, complete=False).source == src
    assert RunResult().source is None
    doc = json.loads(src.read_text())
    doc["source"] = "kept as data"
    path = tmp_path / "with-source.json"
    path.write_text(json.dumps(doc))
    again = load(path, kind="run")
    assert again.source == path and again.to_dict()["source"] == "kept as data"

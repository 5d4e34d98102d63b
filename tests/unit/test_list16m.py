"""bench/list16m.py replays the model's small MariaDB list in Python to split what the kernel does
not report (the rollback segment headers read by purge's walks and by the writes, the list's length
and dirty pages; docs/workloads-lab.md "How long a walk's headers stay"). Its split means something
only while the replay is the kernel's list: on a stored sysbench-oltp-rw run at 16M (no read-ahead,
no undo cap) it must read the same pages, and the same headers, as the kernel (native/lrusim), so a
change to the kernel's batch (cleaner.c make_room / mariadb_batch) that the replay does not follow
fails here."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import numpy as np

from loadgen.analysis import mixmodel

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "docs" / "data" / "mariarwwhole" / "mariadb-10.11-sysbench-oltp-rw-16M-perf-3.json.gz"


def _bench():
    spec = importlib.util.spec_from_file_location("list16m", ROOT / "bench" / "list16m.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _kernel(run: dict) -> tuple[int, int]:
    """The kernel's reads and rollback segment header reads for the run (predict's first simulation)."""
    seen = []
    real = mixmodel.simulate

    def spy(trace, space, *args, **kwargs):
        sim = real(trace, space, *args, **kwargs)
        seen.append((sim, space))
        return sim

    mixmodel.simulate = spy
    try:
        mixmodel.predict(run)
    finally:
        mixmodel.simulate = real
    sim, space = seen[0]
    reads = np.frombuffer(sim.reads, dtype=np.uint32)  # the kernel's per-page reads
    base = space.system_base
    return int(reads.sum()), int(reads[base : base + space.rollback_segments].sum())


def test_the_replay_reads_what_the_kernel_reads_at_16m():
    run = json.loads(gzip.decompress(RUN.read_bytes()))
    bench = _bench()
    got = bench.replay(*bench.model_trace(run), keep_written=False, bounds=bench.list_bounds(run))
    reads, headers = _kernel(run)
    assert got["reads"] == reads
    assert got["headers"]["walk"] + got["headers"]["other"] == headers
    # the split itself: the model's once-a-second walks read a third of its headers at most here
    assert 0 < got["headers"]["walk"] < headers / 3


def test_keeping_the_written_pages_changes_the_list():
    # the batch's last step (evicting written pages down to the floor) is what --keep-written leaves
    # out: without it the list's shortest 5% are twice as long (53 -> 100 pages on this run)
    run = json.loads(gzip.decompress(RUN.read_bytes()))
    bench = _bench()
    trace = bench.model_trace(run)
    kernel = bench.replay(*trace, keep_written=False)
    kept = bench.replay(*trace, keep_written=True)
    low = sorted(kernel["lengths"])[len(kernel["lengths"]) // 20]
    low_kept = sorted(kept["lengths"])[len(kept["lengths"]) // 20]
    assert low_kept > 1.5 * low

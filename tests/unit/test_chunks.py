"""Seeding's chunk pipeline (loadgen/seeding/chunks.py): what both seeders rely on."""
from __future__ import annotations

import os
import threading
import time

import pytest

from loadgen.seeding.chunks import FILE_PREFIX, chunk_dir, chunk_file, generated_ahead


def _threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_every_chunk_arrives_in_order():
    with generated_ahead(((i, bytes([i])) for i in range(50)), "chunks-test-order") as chunks:
        got = list(chunks)
    assert got == [(i, bytes([i])) for i in range(50)]
    assert not _threads("chunks-test-order")


def test_a_generator_error_is_raised_in_the_loader_after_the_chunks_before_it():
    def gen():
        yield 1
        yield 2
        raise ValueError("bad column")

    got = []
    with pytest.raises(ValueError, match="bad column"):
        with generated_ahead(gen(), "chunks-test-error") as chunks:
            for item in chunks:
                got.append(item)
    assert got == [1, 2]


def test_leaving_early_stops_the_generator():
    made = []

    def endless():
        i = 0
        while True:
            made.append(i)
            yield i
            i += 1

    with generated_ahead(endless(), "chunks-test-stop") as chunks:
        assert next(chunks) == 0
    assert not _threads("chunks-test-stop")  # joined on the way out, not left spinning
    count = len(made)
    time.sleep(0.3)  # longer than the producer's 0.2 s put timeout: it would have made more
    assert len(made) == count
    assert count <= 4  # one taken, at most two queued, one in hand


def test_the_chunk_file_is_ours_and_gone_after(tmp_path):
    with chunk_file(tmp_path) as path:
        assert os.path.basename(path).startswith(f"{FILE_PREFIX}{os.getpid()}-")
        assert os.stat(path).st_mode & 0o077 == 0  # mkstemp: 0600, rows are not for other users
    assert not os.path.exists(path)


def test_chunk_dir_sweeps_a_dead_process_file_and_keeps_a_live_one(tmp_path):
    home = tmp_path / "home"
    (home / "tmp").mkdir(parents=True)
    dead = home / "tmp" / f"{FILE_PREFIX}999999999-x.tsv"  # above pid_max: no such process
    live = home / "tmp" / f"{FILE_PREFIX}{os.getpid()}-y.tsv"
    dead.write_bytes(b"1\n")
    live.write_bytes(b"2\n")
    assert chunk_dir(home) == home / "tmp"
    assert not dead.exists() and live.exists()

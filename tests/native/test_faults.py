"""Real page faults from the C extension, counted by getrusage; times are never asserted."""
from __future__ import annotations

import threading

import pytest

from loadgen import native
from loadgen.experiments import osmem

from .conftest import PAGE, SANITIZED, MiB, about

pytestmark = pytest.mark.native

SIZE = 256 * MiB
HUGE = 2 * MiB


def test_fresh_memset_faults_once_per_page_then_never():
    run = native.memset(SIZE, passes=3, pages="4k")
    first, *later = run.passes
    assert about(first.minor_faults, SIZE // PAGE, shadow=True), first  # ~65,536
    assert all(p.minor_faults < 64 for p in later), later
    assert all(p.major_faults == 0 for p in run.passes)
    assert run.anon_huge_kb == 0  # 4k really means small pages


def test_map_populate_moves_the_faults_into_mmap():
    run = native.memset(SIZE, passes=3, pages="4k", populate=True)
    assert about(run.map_step.minor_faults, SIZE // PAGE), run.map_step
    # The first pass now costs what the later ones do, fault-wise (ASan reads its shadow once).
    limit = SIZE // PAGE // 8 + 64 if SANITIZED else 64
    assert run.passes[0].minor_faults < limit, run.passes
    assert all(p.minor_faults < 64 for p in run.passes[1:])


@pytest.mark.skipif(osmem.thp_mode() in (None, "never"), reason="THP disabled on this host")
def test_thp_first_pass_faults_once_per_2mib():
    run = native.memset(SIZE, passes=2, pages="thp")
    assert run.anon_huge_kb is not None and run.anon_huge_kb * 1024 >= SIZE * 0.9, run
    assert about(run.passes[0].minor_faults, SIZE // HUGE, rel=0.1, shadow=False) or (
        SANITIZED and run.passes[0].minor_faults <= SIZE // HUGE + SIZE // 8 // PAGE + 64)
    assert run.passes[1].minor_faults < 64


def test_thp_with_populate_leaves_passes_fault_free():
    if osmem.thp_mode() in (None, "never"):
        pytest.skip("THP disabled on this host")
    run = native.memset(64 * MiB, passes=2, pages="thp", populate=True)
    assert run.map_step.minor_faults <= 64 * MiB // HUGE + 16
    assert run.passes[1].minor_faults < 64


def test_hugetlb_first_pass_faults_once_per_huge_page(hugepages):
    size = 64 * MiB
    hp = osmem.hugetlb_page_size()
    hugepages(size // hp)
    run = native.memset(size, passes=2, pages="hugetlb")
    assert about(run.passes[0].minor_faults, size // hp, rel=0.1, shadow=False) or (
        SANITIZED and run.passes[0].minor_faults <= size // hp + size // 8 // PAGE + 64)
    assert run.passes[1].minor_faults < 64


@pytest.mark.parametrize("size", [4096, 16384, 256 * 1024, 1024 * 1024])
def test_lazymap_fresh_mapping_faults_once_per_page_reused_never(size):
    reps = 50
    fresh = native.lazymap(size, reps, "fresh")
    reused = native.lazymap(size, reps, "reused")
    assert about(fresh.write_minor_faults / reps, size // PAGE, slack=1), fresh
    assert reused.write_minor_faults + reused.read_minor_faults <= 2, reused
    assert fresh.read_minor_faults <= 2  # the writes mapped everything


def test_alloc_touch_faults_per_page_mode():
    size = 128 * MiB
    small = native.alloc_touch(size, "4k")
    assert about(small.touch.minor_faults, size // PAGE, shadow=True), small
    assert small.fill.minor_faults < 64
    if osmem.thp_mode() not in (None, "never"):
        huge = native.alloc_touch(size, "thp")
        assert huge.touch.minor_faults <= size // HUGE * 1.1 + 8, huge
        assert huge.anon_huge_kb * 1024 >= size * 0.9


def test_pagez_first_visit_faults_revisits_do_not():
    chunk = 4 * MiB
    run = native.pagez(4, 2, chunk)
    pages = chunk // PAGE
    first, again = run.passes[:4], run.passes[4:]
    # ++ reads before it writes: a zero-page read fault, then the copy-on-write fault.
    shadow = pages // 8 if SANITIZED else 0
    assert all(pages <= p.minor_faults <= 2 * pages + shadow + 8 for p in first), first
    assert all(p.minor_faults < 16 and p.major_faults == 0 for p in again), again
    assert len(run.passes) == 8 and run.alloc.minor_faults < 16


def test_tlb_is_measured_or_says_why_not():
    run = native.memset(4 * MiB, passes=1)
    if run.tlb is None:
        assert run.passes[0].tlb_misses is not None
    else:
        assert "perf_event_open" in run.tlb and run.passes[0].tlb_misses is None


def test_the_gil_is_released_during_a_measurement():
    done = threading.Event()
    spins = 0

    def work():
        native.memset(SIZE, passes=4)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        spins += 1
    t.join()
    # With the GIL held for the whole call this loop could not run at all while it lasted.
    assert spins > 10_000


def test_bad_arguments_raise_not_crash():
    with pytest.raises(ValueError):
        native.extension().memset(0, 1, 0, False)
    with pytest.raises(ValueError):
        native.extension().pagez(0, 1, 4096)
    with pytest.raises(ValueError):
        native.extension().memset(4096, 1, 7, False)


def test_sanitizer_build_is_the_one_loaded_when_asked():
    import os

    so = os.environ.get("LOADGEN_NATIVE_SO")
    if not so:
        pytest.skip("not a sanitizer run (make sanitize sets LOADGEN_NATIVE_SO)")
    assert native.extension_path() == so
    maps = open("/proc/self/maps").read()
    assert "libasan" in maps and "libubsan" in maps

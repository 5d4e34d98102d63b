"""First-touch experiments: memset passes, lazy mapping, allocate-and-touch.

Each function validates its input, runs the measurement in a child process and returns the
result document (see common.py). Faults are exact and reproducible; times on a shared VM are
not, so repetitions happen inside one child and summaries use medians.
"""
from __future__ import annotations

from ..errors import UsageError
from ..native import PAGE_MODES
from . import osmem
from .common import document, gib_per_s, median, warm
from .sandbox import run_child

# The articles' figures, printed beside ours.
MEMSET_REFERENCE = {
    "source": "seed 002 (Liangxu Linux), 1 GiB buffer, 3 memsets",
    "4k": {"first_pass_seconds": 0.66, "later_pass_seconds": 0.16, "faults": 262199},
    "hugetlb": {"first_pass_seconds": 0.24, "faults": 568, "dtlb_load_misses": 27000},
    "4k_dtlb_load_misses": 2570000,
    "populate": "all three passes equally fast, ~55 faults (process start-up only)",
}
LAZYMAP_REFERENCE = {
    "source": "seed 001 (lazy page mapping), malloc per test, first run",
    "fresh_write_faults": {"4096": 1, "16384": 3, "262144": 65, "1048576": 257},
    "fresh_total_ms": {"4096": 0.007, "16384": 0.019, "262144": 0.321, "1048576": 1.275},
    "reused_total_ms": {"4096": 0.005, "16384": 0.012, "262144": 0.222, "1048576": 0.665},
    "second_run": "0 faults for fresh buffers too: malloc reused the freed pages",
}
ALLOC_REFERENCE = {
    "source": "seed 003 (Lemire 2020-01-17), 512 MB; README of his alloc.cpp in parentheses",
    "alloc_touch_4k_gib_per_s": 3.9, "alloc_touch_thp_gib_per_s": 20.0, "memset_gib_per_s": 30.0,
    "readme": {"4k": 3.79, "thp": 19.6, "memset": 30.7},
}


def _positive(value: int, name: str) -> int:
    if value is None or value < 1:
        raise UsageError(f"{name} must be at least 1, got {value}")
    return value


def _check_pages(pages: str, size: int, force: bool) -> None:
    if pages not in PAGE_MODES:
        raise UsageError(f"unknown page mode {pages!r}", f"use one of {', '.join(PAGE_MODES)}")
    if pages == "thp":
        osmem.require_thp()
    if pages == "hugetlb":
        osmem.require_hugetlb(size)  # the hugetlb pool, not general memory, holds it
    else:
        osmem.check_fits(size, force=force, what=f"a {pages} mapping")


def run_memset(size: int, passes: int = 3, pages: str = "4k", populate: bool = False,
               repeat: int = 3, force: bool = False) -> dict:
    """Map `size` bytes fresh, memset them `passes` times; all of it `repeat` times."""
    _positive(passes, "--passes")
    _positive(repeat, "--repeat")
    _check_pages(pages, size, force)
    calls = [{"fn": "memset", "kwargs": {"size": size, "passes": passes, "pages": pages,
                                         "populate": populate}}] * repeat
    runs, counters = run_child(calls)

    flat, maps = [], []
    for r, run in enumerate(runs, 1):
        maps.append({"repeat": r, **run["map_step"]})
        for i, p in enumerate(run["passes"], 1):
            flat.append({"repeat": r, "pass": i, **p, "gib_per_s": gib_per_s(size, p["seconds"])})

    def row(step: str, items: list[dict]) -> dict:
        kept = warm(items)
        secs = median(p["seconds"] for p in kept)
        return {"step": step, "seconds_median": secs, "seconds_min": min(p["seconds"] for p in items),
                "minor_faults": median(p["minor_faults"] for p in kept),
                "major_faults": median(p["major_faults"] for p in kept),
                "tlb_misses": median(p["tlb_misses"] for p in kept),
                "gib_per_s": gib_per_s(size, secs) if step != "map" else None}

    summary = [row("map+populate" if populate else "map", maps)]
    for i in range(1, passes + 1):
        summary.append(row(f"pass {i}", [p for p in flat if p["pass"] == i]))

    huge = [run["anon_huge_kb"] for run in runs]
    warnings = []
    confirmed = None
    if pages == "thp":
        got = max((h or 0) for h in huge) * 1024
        confirmed = got >= size // 2
        if not confirmed:
            warnings.append(f"THP was requested but AnonHugePages grew by only {got} bytes; the "
                            "kernel could not find free 2 MiB blocks (fragmentation or defrag=never)")
    return document(
        "memset",
        {"size": size, "passes": passes, "pages": pages, "populate": populate, "repeat": repeat},
        flat, "one memset over the whole buffer; `repeat` fresh mappings of `passes` each",
        tlb=runs[0]["tlb"], map_steps=maps, summary=summary,
        huge_pages={"anon_huge_kb": huge, "confirmed": confirmed},
        child=counters, warnings=warnings, reference=MEMSET_REFERENCE)


def run_lazymap(sizes: list[int], runs: int = 2, reps: int = 100, with_malloc: bool = False,
                force: bool = False) -> dict:
    """Fresh mapping against a reused buffer: write and read every byte, `reps` times per size."""
    if not sizes:
        raise UsageError("--sizes is empty", "use e.g. --sizes 4K,16K,256K,1M")
    _positive(runs, "--runs")
    _positive(reps, "--reps")
    osmem.check_fits(2 * max(sizes), force=force, what="lazymap")
    kinds = ["fresh", "reused"] + (["malloc"] if with_malloc else [])
    order = [(run, size, kind) for run in range(1, runs + 1) for size in sizes for kind in kinds]
    calls = [{"fn": "lazymap", "kwargs": {"size": s, "reps": reps, "kind": k}} for _, s, k in order]
    results, counters = run_child(calls)

    flat = []
    for (run, size, kind), res in zip(order, results):
        minor = res["write_minor_faults"] + res["read_minor_faults"]
        flat.append({
            "run": run, "size": size, "kind": kind, "reps": reps,
            "seconds": res["write_seconds"] + res["read_seconds"],
            "minor_faults": minor,
            "major_faults": res["write_major_faults"] + res["read_major_faults"],
            "write_seconds": res["write_seconds"], "read_seconds": res["read_seconds"],
            "map_seconds": res["map_seconds"],
            "tlb_misses": (None if res["write_tlb_misses"] is None
                           else res["write_tlb_misses"] + (res["read_tlb_misses"] or 0)),
            "write_faults_per_rep": res["write_minor_faults"] / reps,
            "read_faults_per_rep": res["read_minor_faults"] / reps,
            "write_ms_per_rep": res["write_seconds"] * 1e3 / reps,
            "read_ms_per_rep": res["read_seconds"] * 1e3 / reps,
            "expected_fresh_faults": -(-size // osmem.PAGE_SIZE),
        })
    return document(
        "lazymap", {"sizes": sizes, "runs": runs, "reps": reps, "kinds": kinds},
        flat, "one (run, size, kind): totals over `reps` write-then-read rounds",
        tlb=results[0]["tlb"], child=counters, reference=LAZYMAP_REFERENCE)


def run_alloc(size: int, reps: int = 5, pages: tuple[str, ...] = ("4k", "thp"),
              force: bool = False) -> dict:
    """Allocate-and-touch GiB/s per page mode, beside memset GiB/s on the same memory."""
    _positive(reps, "--reps")
    if not pages:
        raise UsageError("no page mode given", "use --pages 4k,thp")
    for mode in pages:
        if mode == "hugetlb":
            raise UsageError("alloc compares 4k and thp pages", "use --pages 4k,thp")
        _check_pages(mode, size, force)
    order = [(rep, mode) for rep in range(1, reps + 1) for mode in pages]  # interleaved
    calls = [{"fn": "alloc_touch", "kwargs": {"size": size, "pages": m}} for _, m in order]
    results, counters = run_child(calls)

    flat, summary = [], []
    for (rep, mode), res in zip(order, results):
        for op, key in (("alloc_touch", "touch"), ("memset", "fill")):
            p = res[key]
            flat.append({"rep": rep, "pages": mode, "op": op, **p,
                         "gib_per_s": gib_per_s(size, p["seconds"]),
                         "anon_huge_kb": res["anon_huge_kb"]})
    for mode in pages:
        for op in ("alloc_touch", "memset"):
            items = [p for p in flat if p["pages"] == mode and p["op"] == op]
            kept = warm(items)
            summary.append({
                "pages": mode, "op": op,
                "gib_per_s_median": median(p["gib_per_s"] for p in kept),
                "gib_per_s_best": max(p["gib_per_s"] or 0 for p in items),
                "minor_faults": median(p["minor_faults"] for p in kept),
                "anon_huge_kb": median(p["anon_huge_kb"] for p in kept),
            })
    return document(
        "alloc", {"size": size, "reps": reps, "pages": list(pages)},
        flat, "one timed step: alloc_touch (mmap + a write per 4 KiB) or memset of the same memory",
        tlb=results[0]["tlb"], summary=summary, child=counters,
        reference=ALLOC_REFERENCE,
        note="GiB/s = 2^30 bytes per second, the unit of Lemire's alloc.cpp; medians skip rep 1 "
             "when reps >= 3")

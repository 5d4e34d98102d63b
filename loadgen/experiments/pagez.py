"""The seed's pagez(chunks, iters), alone or as A/B/C side by side, optionally under a memory limit.

pagez(80, 1) and pagez(20, 4) write the same number of pages; B is slower only when its working
set (20 chunks) exceeds the RAM it may use, so that every re-visit swaps pages back in. The seed
ran on 16 GiB of RAM with 1 GiB chunks (RAM = 16 chunks). Scaled 1:N, the chunk is 1 GiB/N and
the memory cgroup limit 16 chunks; swap comes from a temporary swap file on disk (or a zram
device, sandbox.py). The seed's B is slower because its swap-ins read the disk; on zram they
decompress in RAM, and B/A follows the CPU load instead.
"""
from __future__ import annotations

from ..errors import UsageError
from ..units import format_bytes
from . import osmem
from .common import document, median
from .sandbox import Sandbox, run_child

GIB = 1 << 30
RAM_IN_CHUNKS = 16
VARIANTS = (("A", 80, 1), ("B", 20, 4), ("C", 2, 200))
MAX_PASSES = 1 << 24

SEED = {
    "source": "seed 004, M3 MacBook Pro, 16 GiB RAM, 1 GiB chunks, `time` of the whole program",
    "seconds": {"A": 10.228, "B": 14.081, "C": 0.516},
    "ratio_b_a": 1.38,
}
# What the defaults (1:64, a swap file on disk) reproduce: the research run of issue #11.
RESEARCH = {
    "source": "research run on the CI VM (issue #11): memcg 256M + a swap file on ext4, chunk 16M",
    "seconds": {"A": 3.75, "B": 7.53, "C": None},
    "ratio_b_a": 2.01,
    "major_faults_b": 30728,
}
# The same seed on zram (--swap zram): swap-ins cost about a first touch there.
RESEARCH_ZRAM = {
    "source": "research run on the CI VM (2026-11-22): memcg 512M + zram, chunk 32M, median of 3",
    "seconds": {"A": 4.91, "B": 7.08, "C": 0.07},
    "ratio_b_a": 1.44,
    "major_faults_b": 491575,
    "pswpin_b": 483384,
}
DEFAULT_SCALE = 64


def swap_needed(touched: int, limit: int) -> int:
    """Swap for everything over the limit, plus room for the child's own pages and slack."""
    return max(0, touched - limit) + (64 << 20) + touched // 16


def _validate(chunks: int, iters: int, chunk_size: int) -> None:
    if chunks is None or chunks < 1:
        raise UsageError(f"--chunks must be at least 1, got {chunks}")
    if iters is None or iters < 1:
        raise UsageError(f"--iters must be at least 1, got {iters}")
    if chunks * iters > MAX_PASSES:
        raise UsageError(f"chunks*iters = {chunks * iters} passes is more than {MAX_PASSES}")
    if chunk_size < osmem.PAGE_SIZE:
        raise UsageError(f"--chunk-size {chunk_size} is smaller than a page "
                         f"({osmem.PAGE_SIZE} bytes)", "use e.g. --chunk-size 32M")


def _check_limited(touched: int, limit: int, swap: str, zram_mem_limit: int, force: bool) -> int:
    """Swap bytes the sandbox must provide; refuses runs that cannot fit."""
    if swap == "none":
        if touched > limit and not force:
            raise UsageError(
                f"pagez touches {format_bytes(touched)} but --memory-limit is "
                f"{format_bytes(limit)} and --swap none: the child would be OOM-killed",
                "use --swap file (or zram, auto), or --force to watch the OOM kill")
        return 0
    need = swap_needed(touched, limit)
    osmem.check_fits(touched, limit=limit, swap=need, force=force, what="pagez")
    # The host must hold the limit, plus what zram keeps compressed in RAM when it is zram.
    osmem.check_fits(limit + (zram_mem_limit if swap == "zram" else 0), force=force,
                     what="the memory cgroup" + (" plus the zram pool" if swap == "zram" else ""))
    return need


def _pagez_call(chunks: int, iters: int, chunk_size: int) -> dict:
    return {"fn": "pagez", "kwargs": {"chunks": chunks, "iters": iters, "chunk_size": chunk_size}}


def _run_entry(res: dict, counters: dict) -> dict:
    passes = res["passes"]
    return {
        "seconds": sum(p["seconds"] for p in passes),
        "minor_faults": sum(p["minor_faults"] for p in passes),
        "major_faults": sum(p["major_faults"] for p in passes),
        "alloc_seconds": res["alloc"]["seconds"],
        "pswpin": counters["pswpin"],  # host-wide /proc/vmstat deltas
        "pswpout": counters["pswpout"],
        "swap_ins": counters.get("swap_ins", counters["pswpin"]),
        "swap_ins_source": counters.get("swap_ins_source", "host /proc/vmstat pswpin"),
        "cgroup_swap": counters.get("cgroup_swap"),
        "wall_seconds": counters["wall_seconds"],
        "oom_retries": counters.get("oom_retries", 0),
    }


def run_pagez(chunks: int = 80, iters: int = 1, chunk_size: int = GIB,
              memory_limit: int | None = None, swap: str = "auto",
              zram_mem_limit: int = 512 << 20, force: bool = False) -> dict:
    """pagez(chunks, iters) in a child process; under a memory cgroup with swap if memory_limit."""
    _validate(chunks, iters, chunk_size)
    touched = chunks * chunk_size
    call = [_pagez_call(chunks, iters, chunk_size)]
    sandbox = None
    if memory_limit is None:
        osmem.check_fits(touched, force=force, what=f"pagez({chunks}, {iters})")
        (res,), counters = run_child(call)
    else:
        need = _check_limited(touched, memory_limit, swap, zram_mem_limit, force)
        with Sandbox(memory_limit, swap, need, zram_mem_limit) as sb:
            (res,), counters = sb.run(call)
            sandbox = sb.describe()
    passes = [{"visit": i + 1, "chunk": i % chunks, **p} for i, p in enumerate(res["passes"])]
    return document(
        "pagez",
        {"chunks": chunks, "iters": iters, "chunk_size": chunk_size, "touched": touched,
         "memory_limit": memory_limit, "swap": swap if memory_limit else None},
        passes, "one visit: one byte written (incremented) in every 4 KiB page of one chunk",
        tlb=res["tlb"], alloc=res["alloc"], result=_run_entry(res, counters),
        child=counters, sandbox=sandbox, seed=SEED,
        warnings=_sandbox_warnings(sandbox, [counters.get("oom_retries", 0)]))


def run_compare(scale: int = DEFAULT_SCALE, memory_limit: int | None = None,
                chunk_size: int | None = None,
                repeat: int = 3, swap: str = "auto", zram_mem_limit: int = 512 << 20,
                force: bool = False) -> dict:
    """The seed's A=(80,1), B=(20,4), C=(2,200), scaled 1:scale, interleaved `repeat` times."""
    if scale is None or scale < 1:
        raise UsageError(f"--scale must be at least 1, got {scale}")
    if repeat is None or repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {repeat}")
    chunk = chunk_size or GIB // scale
    limit = memory_limit or RAM_IN_CHUNKS * chunk
    for _, c, i in VARIANTS:
        _validate(c, i, chunk)
    touched = max(c for _, c, _ in VARIANTS) * chunk
    need = _check_limited(touched, limit, swap, zram_mem_limit, force)

    runs = []
    with Sandbox(limit, swap, need, zram_mem_limit) as sb:
        for rep in range(1, repeat + 1):
            for name, c, i in VARIANTS:
                (res,), counters = sb.run([_pagez_call(c, i, chunk)])
                runs.append({"variant": name, "chunks": c, "iters": i, "repeat": rep,
                             **_run_entry(res, counters)})
        sandbox = sb.describe()
        cgroup = sb.cgroup.stats() if sb.cgroup else None

    research = RESEARCH_ZRAM if sandbox["swap_kind"] == "zram" else RESEARCH
    variants = []
    for name, c, i in VARIANTS:
        mine = [r for r in runs if r["variant"] == name]
        variants.append({
            "name": name, "chunks": c, "iters": i, "working_set": c * chunk,
            "seconds_median": median(r["seconds"] for r in mine),
            "major_faults_median": median(r["major_faults"] for r in mine),
            "minor_faults_median": median(r["minor_faults"] for r in mine),
            "pswpin_median": median(r["pswpin"] for r in mine),
            "swap_ins_median": median(r["swap_ins"] for r in mine),
            "pswpout_median": median(r["pswpout"] for r in mine),
            "seed_seconds": SEED["seconds"][name],
            "research_seconds": research["seconds"][name],
        })
    by = {v["name"]: v for v in variants}
    ratio = (by["B"]["seconds_median"] / by["A"]["seconds_median"]
             if by["A"]["seconds_median"] else None)
    return document(
        "pagez-compare",
        {"scale": scale, "chunk_size": chunk, "memory_limit": limit, "repeat": repeat,
         "swap": swap, "variants": [list(v) for v in VARIANTS]},
        runs, "one whole pagez run (sum of its visits); variants interleaved A, B, C per repeat",
        tlb="not measured in this experiment", variants=variants, ratio_b_a=ratio,
        sandbox=sandbox, cgroup=cgroup, seed=SEED, research=research,
        warnings=_sandbox_warnings(sandbox, [r["oom_retries"] for r in runs]))


def _sandbox_warnings(sandbox: dict | None, oom_retries: list[int]) -> list[str]:
    """What the user should see beside the table: a fallback to zram, orphans swept, runs
    retried after an OOM kill."""
    out = [*sandbox["notes"], *sandbox["swept"]] if sandbox else []
    if sum(oom_retries):
        out.append(f"{sum(1 for n in oom_retries if n)} run(s) were OOM-killed in the cgroup "
                   "while swap had room (swap-out slower than the run) and were run again")
    return out

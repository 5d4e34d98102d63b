"""`loadgen native ...`: the OS-level companion experiments.

Thin click layer: parse options, call one function of loadgen.experiments, write its document,
render it as a rich table. The tables are built from the document only, so what is printed is
what was saved.
"""
from __future__ import annotations

from pathlib import Path

import click

from ..units import format_bytes, parse_size

PAGES = click.Choice(["4k", "thp", "hugetlb"])
SWAP = click.Choice(["auto", "file", "zram", "existing", "none"])


def _out_option(f):
    def checked(ctx, param, value):  # click's signature
        from ..results.files import check_destination

        return check_destination(value) if value is not None else None  # before the experiment runs

    return click.option(
        "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, callback=checked,
        help="Result file (versioned JSON). Default: reports/native-<experiment>-<UTC time>.json",
    )(f)


def _force_option(f):
    return click.option("--force", is_flag=True,
                        help="Run even if memory (plus swap) looks too small to hold it.")(f)


def _finish(doc: dict, out: Path | None, render) -> None:
    from rich.console import Console

    from ..results.files import default_path, write_json_atomic

    path = out or default_path("reports", doc["kind"].replace(".", "-"), picked=True)
    write_json_atomic(path, doc)
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # a log or a pipe: do not squeeze the tables to 80 columns
    render(console, doc)
    chatter = Console(stderr=True)  # warnings and where the file went: stderr, as every command says them
    for warning in doc.get("warnings", []):
        chatter.print(f"[yellow]warning:[/] {warning}")
    tlb = doc.get("tlb", {})
    if not tlb.get("supported", True):
        chatter.print(f"TLB misses: {tlb.get('reason')}")
    chatter.print(f"wrote {path}")


def _table(title: str, *columns: str):
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    return table


# the tables' numbers as every table writes them (numfmt.py): seconds and rates to three
# significant digits, counts whole with thousands separators
def _s(x: float | None) -> str:
    from ..numfmt import number

    return number(x)


def _n(x: float | None) -> str:
    from ..numfmt import count

    return count(x)


_g = _s


@click.group()
def native() -> None:
    """OS-level experiments: pagez, first-touch memset, lazy mapping, allocate-and-touch.

    Each runs in a child process, prints a table and writes a result file.
    """


# ---- pagez ----------------------------------------------------------------------------------


@native.command()
@click.option("--chunks", type=int, default=80, show_default=True, help="Chunks to allocate.")
@click.option("--iters", type=int, default=1, show_default=True,
              help="Passes over every chunk (chunks*iters visits in all).")
@click.option("--chunk-size", default="1G", show_default=True, help="Bytes per chunk (32M, 1G).")
@click.option("--memory-limit", default=None,
              help="Run inside a memory cgroup with this limit, with swap (needs root).")
@click.option("--swap", type=SWAP, default="auto", show_default=True,
              help="With --memory-limit: a swap file loadgen makes on disk (auto: file where it "
                   "works, else zram), a zram device, swap already on, or none.")
@click.option("--zram-mem-limit", default="512M", show_default=True,
              help="RAM the zram device may use for compressed pages.")
@_force_option
@_out_option
def pagez(chunks, iters, chunk_size, memory_limit, swap, zram_mem_limit, force, out):
    """The seed's pagez: allocate CHUNKS chunks, then write one byte per page of one chunk per
    visit, CHUNKS*ITERS visits cycling over the chunks."""
    from ..experiments.pagez import run_pagez

    doc = run_pagez(chunks, iters, parse_size(chunk_size, "--chunk-size"),
                    parse_size(memory_limit, "--memory-limit") if memory_limit else None,
                    swap, parse_size(zram_mem_limit, "--zram-mem-limit"), force)
    _finish(doc, out, _render_pagez)


def _render_pagez(console, doc):
    p, r = doc["params"], doc["result"]
    where = (f"memory limit {format_bytes(p['memory_limit'])}, swap {doc['sandbox']['swap']}"
             if p["memory_limit"] else "no memory limit")
    table = _table(f"pagez({p['chunks']}, {p['iters']}), chunk {format_bytes(p['chunk_size'])}, "
                   f"{where}", "", "seconds", "minor faults", "major faults", "swap-ins", "pswpout")
    table.add_row("allocate", _s(doc["alloc"]["seconds"]), _n(doc["alloc"]["minor_faults"]),
                  _n(doc["alloc"]["major_faults"]), "", "")
    table.add_row(f"{len(doc['passes'])} visits", _s(r["seconds"]), _n(r["minor_faults"]),
                  _n(r["major_faults"]), _n(r["swap_ins"]), _n(r["pswpout"]))
    console.print(table)
    console.print(f"swap-ins: {r['swap_ins_source']}; pswpout: host /proc/vmstat delta.")


@native.command("pagez-compare")
@click.option("--scale", type=int, default=64, show_default=True,
              help="1:N scale of the seed (chunk 1G/N, memory limit 16 chunks).")
@click.option("--memory-limit", default=None, help="Override the scaled memory limit.")
@click.option("--chunk-size", default=None, help="Override the scaled chunk size.")
@click.option("--repeat", type=int, default=3, show_default=True,
              help="Interleaved A,B,C rounds; the table shows medians.")
@click.option("--swap", type=SWAP, default="auto", show_default=True,
              help="auto: a swap file on disk where one works (the seed's effect), else zram.")
@click.option("--zram-mem-limit", default="512M", show_default=True,
              help="With --swap zram: RAM the zram device may use for compressed pages.")
@_force_option
@_out_option
def pagez_compare(scale, memory_limit, chunk_size, repeat, swap, zram_mem_limit, force, out):
    """The seed's A=(80,1), B=(20,4), C=(2,200) under a memory limit, side by side (root)."""
    from ..experiments.pagez import run_compare

    doc = run_compare(scale,
                      parse_size(memory_limit, "--memory-limit") if memory_limit else None,
                      parse_size(chunk_size, "--chunk-size") if chunk_size else None,
                      repeat, swap, parse_size(zram_mem_limit, "--zram-mem-limit"), force)
    _finish(doc, out, _render_compare)


def _render_compare(console, doc):
    p = doc["params"]
    table = _table(
        f"pagez 1:{p['scale']}: chunk {format_bytes(p['chunk_size'])}, memory limit "
        f"{format_bytes(p['memory_limit'])}, swap {doc['sandbox']['swap']}, "
        f"median of {p['repeat']}",
        "variant", "working set", "seconds", "major faults", "swap-ins", "pswpout",
        "seed s (1:1)", "research s")
    for v in doc["variants"]:
        table.add_row(f"{v['name']}=({v['chunks']},{v['iters']})", format_bytes(v["working_set"]),
                      _s(v["seconds_median"]), _n(v["major_faults_median"]),
                      _n(v["swap_ins_median"]), _n(v["pswpout_median"]),
                      _s(v["seed_seconds"]), _s(v["research_seconds"]))
    console.print(table)
    ratio = doc["ratio_b_a"]
    console.print(f"B/A = {_g(ratio)} (seed {doc['seed']['ratio_b_a']}, "
                  f"research {doc['research']['ratio_b_a']})")
    console.print(f"swap-ins: {doc['passes'][0]['swap_ins_source']}; pswpout: host /proc/vmstat.")


# ---- memset ---------------------------------------------------------------------------------


@native.command("memset")
@click.option("--size", default="1G", show_default=True, help="Buffer size.")
@click.option("--passes", type=int, default=3, show_default=True, help="memsets per mapping.")
@click.option("--pages", type=PAGES, default="4k", show_default=True,
              help="4k (MADV_NOHUGEPAGE), thp (MADV_HUGEPAGE) or hugetlb (MAP_HUGETLB).")
@click.option("--populate", is_flag=True, help="Prefault at map time (MAP_POPULATE).")
@click.option("--repeat", type=int, default=3, show_default=True,
              help="Fresh mappings; the table shows medians (skipping the first if >= 3).")
@_force_option
@_out_option
def memset_cmd(size, passes, pages, populate, repeat, force, out):
    """Time each memset pass over a fresh buffer: the first pass pays the page faults."""
    from ..experiments.firsttouch import run_memset

    doc = run_memset(parse_size(size, "--size"), passes, pages, populate, repeat, force)
    _finish(doc, out, _render_memset)


def _render_memset(console, doc):
    p = doc["params"]
    table = _table(f"memset {format_bytes(p['size'])}, {p['pages']} pages"
                   f"{', MAP_POPULATE' if p['populate'] else ''}, {p['repeat']} mappings",
                   "step", "seconds (median)", "seconds (min)", "GiB/s", "minor faults",
                   "major faults", "TLB misses")
    for row in doc["summary"]:
        table.add_row(row["step"], _s(row["seconds_median"]), _s(row["seconds_min"]),
                      _g(row["gib_per_s"]), _n(row["minor_faults"]), _n(row["major_faults"]),
                      _n(row["tlb_misses"]) if doc["tlb"]["supported"] else "n/s")
    console.print(table)
    huge = doc["huge_pages"]["anon_huge_kb"]
    if any(h for h in huge if h):
        console.print(f"AnonHugePages grew by {', '.join(format_bytes(h * 1024) for h in huge)}")
    console.print("seed (1 GiB, 4k): first 0.66 s, later 0.16 s, 262,199 faults; "
                  "hugetlb first 0.24 s, 568 faults")


# ---- lazymap --------------------------------------------------------------------------------


@native.command()
@click.option("--sizes", default="4K,16K,256K,1M", show_default=True, help="Comma-separated.")
@click.option("--runs", type=int, default=2, show_default=True, help="Times the suite runs.")
@click.option("--reps", type=int, default=100, show_default=True,
              help="Write-then-read rounds per size and run (the table shows per-round means).")
@click.option("--malloc", "with_malloc", is_flag=True,
              help="Also time malloc/free buffers, which glibc recycles (hides the faults).")
@_force_option
@_out_option
def lazymap(sizes, runs, reps, with_malloc, force, out):
    """A fresh mmap per round against one reused buffer: write time, read time, faults."""
    from ..experiments.firsttouch import run_lazymap

    parsed = [parse_size(s.strip(), "--sizes entry") for s in sizes.split(",") if s.strip()]
    doc = run_lazymap(parsed, runs, reps, with_malloc, force)
    _finish(doc, out, _render_lazymap)


def _render_lazymap(console, doc):
    table = _table(f"lazy mapping, {doc['params']['reps']} rounds per row (means per round)",
                   "run", "size", "buffer", "write faults", "write ms", "read ms", "total ms",
                   "speedup")
    fresh_total = {}
    for p in doc["passes"]:
        total = p["write_ms_per_rep"] + p["read_ms_per_rep"]
        key = (p["run"], p["size"])
        if p["kind"] == "fresh":
            fresh_total[key] = total
        from ..numfmt import MISSING, times

        speedup = (times(fresh_total[key] / total)
                   if p["kind"] != "fresh" and key in fresh_total and total else MISSING)
        table.add_row(str(p["run"]), format_bytes(p["size"]), p["kind"],
                      _s(p["write_faults_per_rep"]), _s(p["write_ms_per_rep"]),
                      _s(p["read_ms_per_rep"]), _s(total), speedup)
    console.print(table)
    console.print("seed (malloc, first run): fresh write faults 1 / 3 / 65 / 257 for "
                  "4K / 16K / 256K / 1M; 0 on the second run")


# ---- alloc ----------------------------------------------------------------------------------


@native.command()
@click.option("--size", default="512M", show_default=True, help="Memory to allocate and touch per repetition.")
@click.option("--reps", type=int, default=5, show_default=True,
              help="Interleaved repetitions per page mode.")
@click.option("--pages", default="4k,thp", show_default=True, help="Page modes to compare.")
@_force_option
@_out_option
def alloc(size, reps, pages, force, out):
    """Allocate-and-touch GiB/s with 4 KiB pages and with THP, beside memset GiB/s."""
    from ..experiments.firsttouch import run_alloc

    modes = tuple(m.strip() for m in pages.split(",") if m.strip())
    doc = run_alloc(parse_size(size, "--size"), reps, modes, force)
    _finish(doc, out, _render_alloc)


def _render_alloc(console, doc):
    ref = doc["reference"]
    seed = {("4k", "alloc_touch"): ref["alloc_touch_4k_gib_per_s"],
            ("thp", "alloc_touch"): ref["alloc_touch_thp_gib_per_s"],
            ("4k", "memset"): ref["memset_gib_per_s"], ("thp", "memset"): ref["memset_gib_per_s"]}
    table = _table(f"allocate-and-touch {format_bytes(doc['params']['size'])}, "
                   f"{doc['params']['reps']} reps", "pages", "operation", "GiB/s (median)",
                   "GiB/s (best)", "minor faults", "AnonHugePages", "seed GiB/s")
    for row in doc["summary"]:
        huge = row["anon_huge_kb"]
        table.add_row(row["pages"], row["op"], _g(row["gib_per_s_median"]),
                      _g(row["gib_per_s_best"]), _n(row["minor_faults"]),
                      format_bytes(huge * 1024) if huge else "0",
                      _g(seed.get((row["pages"], row["op"]))))
    console.print(table)

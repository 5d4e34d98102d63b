"""The result document every ``loadgen native`` experiment writes, and small statistics.

Keys CI can rely on, in every document:
  format_version, kind ("native.<experiment>"), created, host, params,
  passes: [{seconds, minor_faults, major_faults, ...}], totals: {seconds, minor_faults,
  major_faults, passes}, tlb: {supported, reason}.
What one pass is depends on the experiment and is stated in ``passes_are``.
"""
from __future__ import annotations

import statistics

from .. import __version__
from ..results.documents import FORMAT_VERSION, now_iso
from . import osmem


def totals(passes: list[dict]) -> dict:
    return {
        "passes": len(passes),
        "seconds": sum(p["seconds"] for p in passes),
        "minor_faults": sum(p["minor_faults"] for p in passes),
        "major_faults": sum(p["major_faults"] for p in passes),
    }


def tlb_section(reason: str | None) -> dict:
    return {"supported": reason is None, "reason": reason}


def document(kind: str, params: dict, passes: list[dict], passes_are: str,
             tlb: str | None = None, **sections) -> dict:
    return {
        "format_version": FORMAT_VERSION,
        "kind": f"native.{kind}",
        "created": now_iso(),
        "loadgen_version": __version__,
        "host": osmem.host_facts(),
        "params": params,
        "passes_are": passes_are,
        "passes": passes,
        "totals": totals(passes),
        "tlb": tlb_section(tlb),
        **sections,
    }


def median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def warm(values: list, skip_first: bool = True) -> list:
    """Drop the first repetition when there are three or more. On a VM with virtio-balloon free
    page reporting, 2 MiB blocks freed a few seconds earlier are handed back to the hypervisor,
    and touching them again costs a host-side fault: the first run in a process is the noisy one."""
    return values[1:] if skip_first and len(values) >= 3 else values


def gib_per_s(size: int, seconds: float) -> float | None:
    return size / (1 << 30) / seconds if seconds > 0 else None

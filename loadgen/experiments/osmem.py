"""What the kernel says about memory: /proc/meminfo, THP, hugetlb, swap, vmstat.

Readers take the text of the file as an optional argument so their parsing can be tested on
fixed input; by default they read the live file.
"""
from __future__ import annotations

import os
import platform
import re
from pathlib import Path

from ..errors import LoadgenError, UsageError
from ..units import format_bytes

THP_ENABLED = Path("/sys/kernel/mm/transparent_hugepage/enabled")
NR_HUGEPAGES = Path("/proc/sys/vm/nr_hugepages")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _read(path: str | Path) -> str:
    return Path(path).read_text()


def meminfo(text: str | None = None) -> dict[str, int]:
    """/proc/meminfo as bytes ("kB" lines multiplied out; HugePages_* stay counts)."""
    text = _read("/proc/meminfo") if text is None else text
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if not parts:
            continue
        value = int(parts[0])
        out[key.strip()] = value * 1024 if len(parts) > 1 and parts[1] == "kB" else value
    return out


def vmstat(text: str | None = None) -> dict[str, int]:
    """/proc/vmstat counters (pswpin, pswpout, pgmajfault, ...)."""
    text = _read("/proc/vmstat") if text is None else text
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            out[key] = int(value)
    return out


def thp_mode(text: str | None = None) -> str | None:
    """The bracketed word of transparent_hugepage/enabled ('always', 'madvise', 'never'), or
    None on a kernel built without THP."""
    if text is None:
        try:
            text = _read(THP_ENABLED)
        except OSError:
            return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return None


def require_thp(text: str | None = None) -> str:
    """Refuse (one line, with the fix) when THP cannot be asked for with madvise."""
    mode = thp_mode(text)
    if mode is None:
        raise UsageError("transparent huge pages are not available (this kernel has no "
                         f"{THP_ENABLED})", "use --pages 4k or hugetlb")
    if mode == "never":
        raise UsageError(
            f"transparent huge pages are disabled ({THP_ENABLED} is 'never'); loadgen does not "
            "change global THP settings",
            f"ask an admin to run: echo madvise > {THP_ENABLED} (or use --pages 4k)")
    return mode


def hugetlb_page_size(info: dict[str, int] | None = None) -> int:
    info = meminfo() if info is None else info
    return info.get("Hugepagesize", 2 << 20)


def require_hugetlb(size: int, info: dict[str, int] | None = None) -> int:
    """Refuse unless enough hugetlb pages are free for `size`; returns the pages needed."""
    info = meminfo() if info is None else info
    hp = hugetlb_page_size(info)
    need = -(-size // hp)
    free = info.get("HugePages_Free", 0) - info.get("HugePages_Rsvd", 0)
    if free < need:
        total = info.get("HugePages_Total", 0)
        raise UsageError(
            f"--pages hugetlb needs {need} free huge pages of {format_bytes(hp)} for "
            f"{format_bytes(size)}, but {max(free, 0)} are free",
            f"reserve with: echo {total + need - max(free, 0)} > {NR_HUGEPAGES}")
    return need


def _unescape(name: str) -> str:
    # The kernel writes space, tab, newline and backslash in a path as \ooo octal escapes.
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), name)


def swaps(text: str | None = None) -> list[dict]:
    """/proc/swaps as [{'name', 'type', 'size', 'used', 'priority'}], sizes in bytes."""
    text = _read("/proc/swaps") if text is None else text
    out = []
    for line in text.splitlines()[1:]:
        parts = line.rsplit(None, 4)  # the name is escaped, but take it as the rest anyway
        if len(parts) == 5:
            out.append({"name": _unescape(parts[0]), "type": parts[1], "size": int(parts[2]) * 1024,
                        "used": int(parts[3]) * 1024, "priority": int(parts[4])})
    return out


def swap_free(entries: list[dict] | None = None) -> int:
    entries = swaps() if entries is None else entries
    return sum(e["size"] - e["used"] for e in entries)


def host_facts() -> dict:
    """What a reader of a result file needs to judge the numbers."""
    info = meminfo()
    return {
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "page_size": PAGE_SIZE,
        "mem_total": info.get("MemTotal"),
        "mem_available": info.get("MemAvailable"),
        "swap_total": info.get("SwapTotal"),
        "thp_enabled": thp_mode(),
        "hugetlb_page_size": info.get("Hugepagesize"),
        "hugepages_free": info.get("HugePages_Free"),
    }


def check_fits(need: int, *, limit: int | None = None, swap: int | None = None,
               force: bool = False, what: str = "the experiment") -> None:
    """Refuse to touch more than memory (plus swap), or the cgroup limit plus swap, can hold.

    limit: the memory cgroup limit the experiment runs under (None: none of ours).
    swap: swap bytes the experiment may use (None: the host's free swap).
    """
    if force:
        return
    info = meminfo()
    swap = swap_free() if swap is None else swap
    room = info.get("MemAvailable", info.get("MemFree", 0))
    where = f"{format_bytes(room)} of available memory"
    if limit is not None and limit < room:
        room, where = limit, f"the {format_bytes(limit)} memory limit"
    if need > room + swap:
        raise UsageError(
            f"{what} would touch {format_bytes(need)}, but {where} plus "
            f"{format_bytes(swap)} of swap cannot hold it",
            "use a smaller size (or --memory-limit with --chunk-size for pagez), or --force")


def require_root(action: str) -> None:
    if os.geteuid() != 0:
        raise LoadgenError(f"{action} needs root (you are uid {os.geteuid()})",
                           "run loadgen with sudo, or leave out --memory-limit")

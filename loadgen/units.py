"""Sizes and counts as people type them ("128M", "1G", "4M rows") <-> integers."""
from __future__ import annotations

import re

from .errors import UsageError

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}


def parse_size(text: str | int, what: str = "size") -> int:
    """Parse a byte size: 134217728, 128M, 128MiB, 1G, 1.5G. Suffixes are binary (as in my.cnf).

    Returns:
        bytes, always > 0.
    """
    if isinstance(text, int):
        value = text
    else:
        m = _SIZE_RE.match(str(text))
        if not m:
            raise UsageError(f"{what} {text!r} is not a size", "use e.g. 128M, 1G or 134217728")
        number, suffix = m.group(1), m.group(2).lower()
        value = int(float(number) * (1024 ** _POW[suffix]))
    if value <= 0:
        raise UsageError(f"{what} {text!r} must be greater than zero", "use e.g. 128M")
    return value


_COUNT_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)\s*$", re.IGNORECASE)
_DEC = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}


def parse_count(text: str | int, what: str = "count", minimum: int = 1) -> int:
    """Parse a count of things: 200000, 200k, 4M, 1.5M. Suffixes are decimal (rows, queries)."""
    if isinstance(text, int):
        value = text
    else:
        m = _COUNT_RE.match(str(text))
        if not m:
            raise UsageError(f"{what} {text!r} is not a count", "use e.g. 200000, 200k or 4M")
        value = int(float(m.group(1)) * _DEC[m.group(2).lower()])
    if value < minimum:
        raise UsageError(f"{what} {text!r} must be at least {minimum}")
    return value


def format_bytes(n: float) -> str:
    """128 MiB, 1.5 GiB, 512 B."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{int(n)} B"


def format_count(n: float) -> str:
    """1,234,567 -> '1.23M'; small numbers as they are."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.0f}"


def parse_pools(text: str, option: str = "--pools") -> list[int]:
    """'8M,16M,32M' -> sorted distinct byte counts; a bad item is a one-line usage error naming
    option (--pools, --curve)."""
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    if not items:
        raise UsageError(f"{option} is empty", f"e.g. {option} 8M,16M,32M")
    return sorted({parse_size(t, option) for t in items})


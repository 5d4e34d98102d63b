"""The one way numbers are written in every table loadgen shows: the terminal, markdown, HTML.

Rules (tests/unit/test_numfmt.py holds every table to them):
  counts      whole numbers with thousands separators: 32,906
  numbers     measured values (q/s, latency, seconds, GiB/s): whole above 100 (15,234), else three
              significant digits (52.3, 1.23, 0.0123)
  percentages of a fraction (hit ratio): two decimals, 99.12%; a share that is not zero never
              reads 0.00% (<0.01%), one short of all never 100.00% (>99.99%)
  changes     signed percentages, two decimals: +3.24%, -49.63%
  ratios      two decimals and an x: 2.00x
  sizes       binary units (units.format_bytes): 128 MiB, 1.1 GiB
  missing     an en dash: –
  huge        from 10^15 on (no counter of a run gets there; a hand-edited file may hold 1e300),
              three significant digits and an exponent: 1.00e+300, +6.08e+299%, 2.71e+20x

Functions return strings and never raise on None, NaN or infinity (a result file's value may be
null): those print as missing.
"""
from __future__ import annotations

import math

from .units import format_bytes

MISSING = "–"


def _ok(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# From here on a number is written with an exponent: 1e300 pages read printed 301 digits with
# thousands separators, one table row 40 lines high (issue #18).
HUGE = 1e15


def _huge(value) -> str:
    return f"{value:.2e}"


def count(value) -> str:
    """32906 -> '32,906' (a float is rounded to the nearest whole number)."""
    if not _ok(value):
        return MISSING
    return _huge(value) if abs(value) >= HUGE else f"{round(value):,}"


def number(value) -> str:
    """A measured value: whole above 100, else three significant digits; no exponent below HUGE."""
    if not _ok(value):
        return MISSING
    if abs(value) >= HUGE:
        return _huge(value)
    if value == 0:
        return "0"
    if abs(value) >= 99.95:
        return f"{value:,.0f}"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}"
    # 9.996 rounds to 10.00: one decimal too many for three significant digits
    if len(text.lstrip("-").replace(".", "").lstrip("0")) > 3 and decimals > 0:
        text = f"{value:.{decimals - 1}f}"
    return text


def pct(fraction) -> str:
    """A fraction (0..1) as a percentage with two decimals: 0.9912 -> '99.12%'."""
    if not _ok(fraction):
        return MISSING
    p = fraction * 100
    if abs(p) >= HUGE:
        return _huge(p) + "%"
    if 0 < abs(p) < 0.005:
        return "<0.01%"
    if 99.995 <= p < 100:
        return ">99.99%"
    return f"{p:.2f}%"


def change(percent) -> str:
    """A change already in percent, signed: 3.237 -> '+3.24%'."""
    if not _ok(percent):
        return MISSING
    return f"{percent:+.2e}%" if abs(percent) >= HUGE else f"{percent:+.2f}%"


def times(ratio) -> str:
    """A ratio of two values: 2.0 -> '2.00x'."""
    if not _ok(ratio):
        return MISSING
    return f"{_huge(ratio)}x" if abs(ratio) >= HUGE else f"{ratio:.2f}x"


def seconds(value) -> str:
    return f"{number(value)} s" if _ok(value) else MISSING


def size(n_bytes) -> str:
    return format_bytes(n_bytes) if _ok(n_bytes) else MISSING


def plus_minus(value, se) -> str:
    """An estimate with its standard error: '64,853 ± 773' (no ± when it is exact)."""
    return f"{count(value)} ± {count(se)}" if _ok(se) and round(se) else count(value)


def interval(value, low, high) -> str:
    """An estimate with how far it can be off: '2,846 (2,772 .. 3,372)' (the bare count without both ends)."""
    if not (_ok(low) and _ok(high)):
        return count(value)
    return f"{count(value)} ({count(low)} .. {count(high)})"


def span(low, high) -> str:
    """An interval alone: '2,772 .. 3,372' (missing without both ends)."""
    return f"{count(low)} .. {count(high)}" if _ok(low) and _ok(high) else MISSING


def value(v, key: str = "") -> str:
    """A value of a result file by what its key says it is: a ratio ('hit_ratio') as a
    percentage, a '_pct' as a signed change, whole numbers as counts, others as numbers."""
    if v is None or isinstance(v, bool):
        return MISSING if v is None else str(v)
    if not isinstance(v, (int, float)):
        return str(v)
    if "ratio" in key:
        return pct(v)
    if key.endswith("_pct"):
        return change(v)
    if isinstance(v, int):
        return count(v)
    return number(v)

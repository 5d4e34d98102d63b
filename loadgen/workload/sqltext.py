"""The text of one SQL statement: literals masked, its shape (digest), its literal values as keys.

Untrusted text (a log line): nothing here executes or evaluates it; string literals are lifted out
before anything reads the statement's words, so keywords inside strings do not count.
"""
from __future__ import annotations

import hashlib
import re

from . import optrace as ot

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
MAX_KEYS_PER_STATEMENT = 100_000  # an IN list or multi-row INSERT past it is counted, not held
_STRING = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"", re.S)
_COMMENT = re.compile(r"/\*.*?\*/|(?:--|#)[^\n]*", re.S)

def unquote(name: str) -> str:
    return name[1:-1] if name.startswith("`") else name


def mask(sql: str) -> tuple[str, list[str]]:
    """(the statement with comments dropped and each string literal as \\x01N\\x01, the literals)."""
    strings: list[str] = []

    def keep(m) -> str:
        strings.append(m.group(0)[1:-1])
        return f"\x01{len(strings) - 1}\x01"

    out = _STRING.sub(keep, sql)
    out = _COMMENT.sub(" ", out)
    return " ".join(out.split()).rstrip(";").strip(), strings


def digest(masked: str) -> str:
    """The statement's shape: literals as ?, at most 160 characters."""
    d = re.sub(r"\x01\d+\x01", "?", masked)
    d = re.sub(r"(?<![\w$])[-+]?\d+(?:\.\d+)?(?![\w$])", "?", d)
    d = re.sub(r"\(\s*\?(?:\s*,\s*\?)+\s*\)", "(?, ...)", d)
    d = re.sub(r"(?:\(\?, \.\.\.\)\s*,\s*)+\(\?, \.\.\.\)", "(?, ...), ...", d)
    return d[:160]


def key_hash(text: str) -> int:
    """A non-integer key as a signed 63-bit integer (its place in the table is not known)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).digest(), "little") >> 1


def key_tuple(keys: list[int]) -> int:
    """A composite key's values as one 63-bit key (a hash: the row's place is not known)."""
    return key_hash(",".join(str(k) for k in keys))


def literal(val: str, strings: list[str]) -> tuple[str, int | None, int]:
    """('int'|'hash'|'placeholder'|'null'|'range', key, flags) of a literal."""
    if val == "?":
        return "placeholder", None, 0
    if val.upper() in ("NULL", "TRUE", "FALSE"):
        return ("null", None, 0) if val.upper() == "NULL" else ("int", int(val.upper() == "TRUE"), 0)
    if val.startswith("\x01"):
        text = strings[int(val.strip("\x01"))]
        if re.fullmatch(r"\s*[-+]?\d{1,19}\s*", text):
            val = text.strip()
        else:
            return "hash", key_hash(text), ot.HASHED
    if not re.fullmatch(r"[-+]?\d+", val):
        return "hash", key_hash(val), ot.HASHED  # a decimal: its place is as unknown as a string's
    digits = val.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 19:
        return "range", None, 0
    k = int(val)
    return ("int", k, 0) if I64_MIN <= k <= I64_MAX else ("range", None, 0)


def split_top(text: str) -> list[str]:
    """Comma-separated items, commas inside parentheses left alone (strings are masked)."""
    items, depth, buf = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
    if buf:
        items.append("".join(buf).strip())
    return items


def tuples(text: str) -> list[list[str]] | None:
    """The value tuples of `(..), (..)` (up to ON DUPLICATE KEY / AS alias), or None past the limit."""
    out, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start is not None:
                out.append(split_top(text[start:i]))
                if len(out) > MAX_KEYS_PER_STATEMENT:
                    return None
                start = None
        elif depth == 0 and ch.isalpha():
            break  # ON DUPLICATE KEY UPDATE ..., AS new
    return out

"""chat.message's rows: deterministic in (seed, chunk start), generated a chunk at a time.

GENERATOR_VERSION is part of a seeded table's identity (dataset.py's cache key): a change to
the rows these functions write must raise it, so that no table seeded before is reused.
"""
from __future__ import annotations

import random

GENERATOR_VERSION = 1
CHUNK_ROWS = 50_000
BASE_EPOCH_S = 1_700_000_000  # 2023-11-14: created_at grows ~3 s per id from here
_LETTERS = bytes((97 + b % 26) for b in range(256))
_TEXT = bytes((32 if b % 6 == 0 else 97 + b % 26) for b in range(256))  # letters and spaces


def chunk_lines(seed: int, first_id: int, last_id: int, native: bool = True) -> bytes:
    """Tab-separated rows for ids first_id..last_id, deterministic in (seed, chunk start).

    Columns: id, channel_id, author_id, alias, body, created_at as unix seconds (the LOAD DATA
    statement converts it in UTC, so the table does not depend on the server's time zone).
    The per-row loop runs in C (native/rowgen.c, the same bytes ~7x faster) when the extension
    has it and `native` is true; the Python loop below is the reference and the fallback.
    """
    rng = random.Random(f"loadgen:{GENERATOR_VERSION}:{seed}:{first_id}")
    letters = rng.randbytes(4200).translate(_LETTERS)
    text = rng.randbytes(8300).translate(_TEXT)
    rowgen = native_rowgen() if native else None
    if rowgen is not None:
        return rowgen(rng.getstate()[1], letters, text, first_id, last_id, BASE_EPOCH_S)
    letters, text = letters.decode("ascii"), text.decode("ascii")
    bits = rng.getrandbits
    out = []
    append = out.append
    for i in range(first_id, last_id + 1):
        r = bits(64)
        alias_at = (r >> 32) & 0xFFF
        body_at = (r >> 44) & 0x1FFF
        append(
            f"{i}\t{(r & 0x3FF) + 1}\t{((r >> 10) & 0xFFFFF) + 1}\t"
            f"{letters[alias_at:alias_at + 8 + ((r >> 30) & 3) * 2 + ((r >> 57) & 1)]}\t"
            f"{text[body_at:body_at + 60 + ((r >> 58) % 25)]}\t{BASE_EPOCH_S + 3 * i + ((r >> 62) & 3)}\n"
        )
    return "".join(out).encode("ascii")


def native_rowgen():
    """The C version of this loop, or None without the extension."""
    from .. import native

    return native.rowgen_lines()


def chunk_ranges(start_id: int, rows: int):
    """(first, last) id ranges aligned on CHUNK_ROWS, starting with the chunk holding start_id."""
    first = ((start_id - 1) // CHUNK_ROWS) * CHUNK_ROWS + 1
    while first <= rows:
        yield first, min(first + CHUNK_ROWS - 1, rows)
        first += CHUNK_ROWS

"""native/mixref.c under `make sanitize` (ASan/UBSan): the reference-building loops on trees of every
height, keys outside the table, walks of no step, ops of no reference, and the inputs they refuse.
tests/unit/test_mixref.py holds the same loops to numpy's on whole traces."""
from __future__ import annotations

import numpy as np
import pytest

from loadgen import native
from loadgen.analysis import mixpages as mp


@pytest.mark.parametrize("height", [1, 2, 3, 5])
def test_loops_match_numpy_on_every_height(monkeypatch, height):
    tree = mp.Tree("t", "PRIMARY", 200_000, 3_000, height, grown=40, base=777, fanout=11)
    rng = np.random.default_rng(height)
    keys = np.concatenate([rng.integers(-10, 200_000 + 3_000, 5_000), [0, 1, 200_000, 200_001, 1 << 40]])
    last = keys + rng.integers(-3, 300, len(keys))
    widths = rng.integers(0, 5, len(keys))
    refs = mp.Refs(rng.integers(0, 1 << 20, int(widths.sum())), np.ones(int(widths.sum()), np.uint8), widths)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(mp, "NATIVE", on)
        leaf = tree.leaf_of_key(keys)
        w = mp.walks(tree, *tree.span(keys, last), first=True)
        pages, flags = np.zeros(int(widths.sum()), np.uint32), np.zeros(int(widths.sum()), np.uint8)
        cursor = mp.exclusive_cumsum(widths)
        mp.put(pages, flags, cursor, refs)
        got[on] = (leaf, tree.path(leaf), w.pages, w.flags, w.widths, pages, flags, cursor)
    assert all((a == b).all() for a, b in zip(got[True], got[False]))


def test_refusals_write_nothing_out_of_bounds():
    one = np.ones(1, np.int64)
    with pytest.raises(ValueError):
        native.mixref_scatter(np.zeros(2, np.uint32), np.zeros(2, np.uint8), np.array([1], np.int64),
                              np.arange(2, dtype=np.int64), np.zeros(2, np.uint8), np.array([2], np.int64),
                              np.zeros(0, np.int64))
    with pytest.raises(ValueError):  # a negative width
        native.mixref_scatter(np.zeros(2, np.int64), np.zeros(2, np.uint8), np.zeros(1, np.int64),
                              np.arange(2, dtype=np.int64), np.zeros(2, np.uint8), np.array([-1], np.int64),
                              np.zeros(0, np.int64))
    with pytest.raises(ValueError):
        native.mixref_walks(one, one * 9, np.zeros(4, np.int64), np.zeros(4, np.uint8), 0, 1, 0, 10, 4,
                            np.ones(1, np.int64))
    with pytest.raises(ValueError):
        native.mixref_leaves(one, one, np.zeros(2, np.int64), 10, 1, 1, 10.0)

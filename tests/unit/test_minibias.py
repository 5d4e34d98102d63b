"""A miniature's scale is taken on the leaves its tables start with (branch minibias, bench/README.md):
the leaves an insert appends are written once and never read again, and the few extents of them a
sample happened to keep moved the first table's realised rate, and the miniature's capacity with it,
by up to 11% of itself on the bench's trace."""

from __future__ import annotations

import numpy as np

from loadgen import native
from loadgen.analysis import mixpages as mp
from loadgen.analysis import tracesample


def _space(grown: tuple[int, int] = (300_000, 60_000)):
    """Two tables (t with a secondary index), grown by these many rows each over the trace."""
    tables = {
        "db.t": {
            "rows": 2_560_000,
            "leaf_pages": 25_600,
            "height": 3,
            "indexes": {"k": {"leaf_pages": 6_400, "height": 3}},
        },
        "db.u": {"rows": 640_000, "leaf_pages": 6_400, "height": 3},
    }
    return mp.Space.of(tables, {"db.t": grown[0], "db.u": grown[1]}, ["db.t", "db.u"])


def test_the_scale_is_the_start_leaves_sampled_share():
    """The first table's scale counts its start's leaves only; every other tree samples its start's
    units and its appended units each at that scale."""
    space = _space()
    t1 = space.tree_of("db.t", None)
    assert t1.grown > 0
    for salt in (0, 1 << 20, 2 << 20):
        sample = tracesample.plan(space, ("db.t", mp.PRIMARY), 0.1, salt=salt)
        on = sample.map_[t1.base : t1.base + t1.all_leaves] >= 0
        assert sample.scale_leaves == t1.leaf_pages
        assert sample.scale == on[: t1.leaf_pages].sum() / t1.leaf_pages
        for key, _, _, n_units, unit_on in sample.strata[1:]:
            tree = space.trees[key]
            n_start = -(-tree.leaf_pages // tracesample.UNIT_LEAVES)
            assert unit_on[:n_start].sum() == round(sample.scale * n_start)
            assert unit_on.sum() == round(sample.scale * n_units)


def test_the_kernel_takes_the_scale_on_the_leaves_it_is_given():
    """scale_leaves 0 or past the leaves is the old scale (every count the same); the start's leaves
    give the kernel the plan's scale, whose pool differs where the appended extents' share does."""
    space = _space()
    t1 = space.tree_of("db.t", None)
    sample = tracesample.plan(space, ("db.t", mp.PRIMARY), 0.1)
    rng = np.random.default_rng(3)
    n = 200_000
    pages = rng.integers(0, t1.leaf_pages, n).astype(np.uint32)  # the start's leaves only
    flags = np.full(n, mp.OP, np.uint8)

    def run(scale_leaves: int):
        mini = (sample.map_, sample.rate, sample.salt, sample.more_ones, np.zeros(0, np.uint8), 0.0, scale_leaves)
        s = native.MixStream(sample.n_pages, t1.all_leaves, 4_000, 4_096, 37.0, 0.0, 0.5, mini=mini)
        s.feed(pages, flags)
        return s.close()[0]

    assert run(0) == run(t1.all_leaves)
    on = sample.map_[t1.base : t1.base + t1.all_leaves] >= 0
    whole, start = on.sum() / t1.all_leaves, sample.scale
    got, old = run(t1.leaf_pages).misses, run(0).misses
    if start < whole:  # a smaller pool on the start's leaves: more reads
        assert got > old
    elif start > whole:
        assert got < old

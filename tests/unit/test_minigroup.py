"""The miniatures of one map fed a piece together (native/lrusim/squeeze.h, MixStream.feed_with:
the piece looked up once, the reads of pages every pool has pinned dropped and counted) count what
each fed alone counts (mix_feed_mapped), to the page, on random traces."""
from __future__ import annotations

import numpy as np
import pytest

from loadgen import native
from loadgen.analysis import mixpages as mp
from loadgen.analysis import tracesample


def _case(seed: int, n: int):
    """Two tables (the first at page 0, sampled at rate 1/4), references random: half on the pages
    above the leaves and the system pages (pinned where the pool allows), operations of 1-4
    references, writes, leaf steps and new pages among the flags."""
    space = mp.Space.of({"db.t": {"rows": 2_560_000, "leaf_pages": 25_600, "height": 3},
                         "db.u": {"rows": 640_000, "leaf_pages": 6_400, "height": 3}}, {}, ["db.t", "db.u"])
    sample = tracesample.plan(space, ("db.t", mp.PRIMARY), 0.25)
    rng = np.random.default_rng(seed)
    upper = np.flatnonzero(tracesample.pinnable(space))
    hot = upper[rng.integers(0, len(upper), 40)]  # a few hot pinnable pages: pinned in every pool
    pages = np.where(rng.random(n) < 0.5, hot[rng.integers(0, len(hot), n)],
                     np.where(rng.random(n) < 0.2, upper[rng.integers(0, len(upper), n)],
                              rng.integers(0, space.n_pages, n))).astype(np.uint32)
    flags = rng.choice(np.array([0, mp.MOVE, mp.WRITE, mp.NEW, mp.MOVE | mp.WRITE], np.uint8), n,
                       p=[0.6, 0.2, 0.1, 0.05, 0.05])
    flags[rng.random(n) < 0.35] |= mp.OP
    return space, sample, pages, flags


def _open(space, sample, capacity: int, ticks: tuple = (0, 0.0, 1000.0, 1), pin: bool = True):
    leaf_pages = space.tree_of("db.t", None).all_leaves
    mini = (sample.map_, sample.rate, sample.salt, sample.more_ones) + ((sample.pin, 0.25) if pin else ())
    return native.MixStream(sample.n_pages, leaf_pages, capacity, capacity + 96, 37.0, 0.0, 0.5, 56, 64, 0, 100,
                            50, 32 if ticks[0] else 0, *ticks, mini=mini)


@pytest.mark.parametrize("seed,ticks", [(1, (0, 0.0, 1000.0, 1)), (2, (0, 0.0, 1000.0, 1)),
                                        (3, (8, 250.0, 1000.0, 0))])
def test_miniatures_fed_together_count_what_each_counts_alone(seed, ticks):
    """Three pools of one map (the last with MySQL's timed cleaner where ticks say: then nothing is
    dropped), fed in uneven pieces, together and alone: the same counts and reads per page, with
    many references dropped."""
    space, sample, pages, flags = _case(seed, 300_000)
    caps = (800, 2_000, 5_000)
    alone = [_open(space, sample, c, ticks if c == 5_000 else (0, 0.0, 1000.0, 1)) for c in caps]
    together = [_open(space, sample, c, ticks if c == 5_000 else (0, 0.0, 1000.0, 1)) for c in caps]
    dropped = 0
    for a, b in ((0, 1), (1, 77_777), (77_777, 77_777), (77_777, 200_001), (200_001, len(pages))):
        for s in alone:
            s.feed(pages[a:b], flags[a:b])
        dropped += together[0].feed_with(together[1:], pages[a:b], flags[a:b])
    want, got = [s.close() for s in alone], [s.close() for s in together]
    assert got == want
    assert all(w[0].misses > 1_000 and w[0].refs > 0 for w in want)
    assert dropped > 10_000 if not ticks[0] else dropped == 0  # a timed cleaner runs on a pinned page's reference


def test_a_group_is_one_map():
    """Miniatures of two samples or two rates of queries, or one twice, are not a group."""
    space, sample, pages, flags = _case(4, 1_000)
    other = tracesample.plan(space, ("db.t", mp.PRIMARY), 0.25, salt=9)
    a, b = _open(space, sample, 800), _open(space, other, 800)
    if not np.array_equal(sample.map_, other.map_):
        with pytest.raises(ValueError, match="share one map"):
            a.feed_with([b], pages, flags)
    with pytest.raises(ValueError, match="one clock"):  # another rate of queries
        a.feed_with([native.MixStream(sample.n_pages, space.tree_of("db.t", None).all_leaves, 800, 896, 37.0, 0.0,
                                      0.25, mini=(sample.map_, sample.rate, sample.salt, sample.more_ones))],
                    pages, flags)
    with pytest.raises(ValueError, match="twice"):
        a.feed_with([a], pages, flags)
    with pytest.raises(ValueError, match="below n_pages"):
        a.feed_with([], np.array([len(sample.map_)], np.uint32), np.zeros(1, np.uint8))

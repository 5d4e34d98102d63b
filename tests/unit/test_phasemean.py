"""MySQL's cleaner phases taken as one (analysis/phasemean.py): the pages' reads are the mean of the
phases' with the fractions shared out whole, so the total is the phases' mean total."""
from __future__ import annotations

import numpy as np

from loadgen import native
from loadgen.analysis.phasemean import mean_sim


def _sim(reads: np.ndarray) -> native.MixSim:
    counters = [int(reads.sum())] * (len(native.MixSim._fields) - 1)
    return native.MixSim(*counters, reads.astype(np.uint32).tobytes())


def _reads(sim: native.MixSim) -> np.ndarray:
    return np.frombuffer(sim.reads, dtype=np.uint32)


def test_pages_read_by_one_phase_in_four_still_count():
    """Each page read by one phase of four: its mean 0.25 rounds to 0, and rounded page by page the
    pool would read nothing (the old mean_sim); the total is the phases' mean, 250 of 1,000 pages."""
    runs = [np.zeros(1000, dtype=np.uint32) for _ in range(4)]
    for i in range(1000):
        runs[i % 4][i] = 1
    got = _reads(mean_sim([_sim(r) for r in runs]))
    assert got.sum() == 250
    assert set(np.unique(got)) == {0, 1}
    # the pages given the fractions are spread over the space, not the first 250 by number
    assert 200 <= np.flatnonzero(got).mean() <= 800


def test_every_page_lies_between_its_mean_floor_and_ceiling_and_the_total_is_the_mean():
    rng = np.random.default_rng(7)
    runs = [rng.poisson(0.6, 5000).astype(np.uint32) for _ in range(4)]
    got = _reads(mean_sim([_sim(r) for r in runs])).astype(np.int64)
    mean = np.mean(runs, axis=0)
    assert (got >= np.floor(mean)).all() and (got <= np.ceil(mean)).all()
    assert got.sum() == round(sum(int(r.sum()) for r in runs) / 4)


def test_one_run_is_itself_and_the_result_is_the_same_each_time():
    r = np.arange(10, dtype=np.uint32)
    assert mean_sim([_sim(r)]) == _sim(r)
    runs = [_sim(np.random.default_rng(s).integers(0, 3, 100).astype(np.uint32)) for s in range(3)]
    assert mean_sim(runs) == mean_sim(runs)

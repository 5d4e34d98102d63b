"""Every sampling salt is its own draw (branch mysqlminion): the salt is spread over 64 bits
(curve.salt_key) before the miniatures hash with it. Used as it was, salts below 16 only permuted
the extents inside aligned blocks of 16 (u ^ s), so they kept the same number of extents in every
block: one draw, shifted (branch minibias). Salt 0, the default, keeps its sample."""

from __future__ import annotations

import numpy as np

from loadgen.analysis import curve
from loadgen.analysis import mixpages as mp
from loadgen.analysis import tracesample

from .test_minibias import _space

M64 = (1 << 64) - 1
RATE = 0.1


def _splitmix(x: int) -> int:
    """splitmix64's finalizer, written out (native/lrusim's mix64, mixpages.mix64)."""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def _kept(space, salt: int) -> np.ndarray:
    """The first table's extents the plan (and so the kernel: Sample.salt is what it hashes with) keeps."""
    sample = tracesample.plan(space, ("db.t", mp.PRIMARY), RATE, salt=salt)
    _, _, rank, n_units, on = sample.strata[0]
    units = np.unique(tracesample.leaf_units(space.trees[("db.t", mp.PRIMARY)].all_leaves))
    assert len(units) == n_units
    return units[on]


def test_salt_key_is_one_to_one_and_keeps_zero():
    assert curve.salt_key(0) == 0
    keys = {curve.salt_key(s) for s in range(1, 1000)}
    assert len(keys) == 999 and 0 not in keys
    assert all(k >> 32 for k in keys)  # spread into the high bits: another block of hashed values


def test_salt_zero_is_todays_sample():
    """Salt 0 keeps the extents u with splitmix64(u) under the rate, as before the key."""
    space = _space(grown=(0, 0))
    units = np.unique(tracesample.leaf_units(space.trees[("db.t", mp.PRIMARY)].all_leaves))
    thr = int(RATE * 2.0**64)
    want = [int(u) for u in units if _splitmix(int(u)) < thr]
    assert 10 < len(want) < 80  # ~10% of 401 extents
    assert _kept(space, 0).tolist() == want
    sample = tracesample.plan(space, ("db.t", mp.PRIMARY), RATE)
    assert sample.salt == 0  # the kernel hashes u ^ 0, as it did


def test_salts_one_to_eight_are_distinct_draws():
    """Salts 1..8 keep distinct extent sets, and not one set shifted inside blocks of 16: their
    counts per aligned block differ. The raw salts (before the key) had one count vector."""
    space = _space(grown=(0, 0))
    units = np.unique(tracesample.leaf_units(space.trees[("db.t", mp.PRIMARY)].all_leaves))
    thr = int(RATE * 2.0**64)
    # the aligned blocks of 16 whose extents all have leaves (not the XDES extent's, not the last)
    n_blocks = int(units.max()) // 16 + 1
    whole = np.bincount(units // 16, minlength=n_blocks) == 16
    assert whole.sum() >= 20

    def blocks(kept) -> tuple:
        return tuple(np.bincount(np.asarray(kept, dtype=np.int64) // 16, minlength=n_blocks)[whole])

    raw = {blocks([u for u in units.tolist() if _splitmix(u ^ s) < thr]) for s in range(0, 9)}
    assert len(raw) == 1  # the old hashing: salts 0..8 one draw in every block
    kept = {s: _kept(space, s) for s in range(1, 9)}
    assert len({tuple(k.tolist()) for k in kept.values()}) == 8
    assert len({blocks(k) for k in kept.values()}) == 8
    for s, k in kept.items():  # each is the keyed hash's set
        key = curve.salt_key(s)
        assert k.tolist() == [u for u in units.tolist() if _splitmix(u ^ key) < thr]
        assert tracesample.plan(space, ("db.t", mp.PRIMARY), RATE, salt=s).salt == key


def test_purged_writes_per_txn_counts_the_distinct_transactions():
    """The bitmap over dense_txns' numbers (tracemodel._purged_writes_per_txn) counts what np.unique did."""
    from loadgen.analysis import tracemodel as tm
    from loadgen.analysis.traceplace import Spec, Stream

    spec = Spec((Stream("u", "db.t", "update"), Stream("r", "db.t", "read"), Stream("d", "db.t", "delete")), ())
    rng = np.random.default_rng(5)
    chunks = []
    for at in range(0, 40_000, 10_000):
        stream = rng.integers(0, 3, 10_000)
        txn = np.sort(rng.integers(at // 3, at // 3 + 4_000, 10_000))
        chunks.append((stream, np.zeros(10_000, np.int64), np.ones(10_000, np.int64), txn))
    on = [c[3][np.isin(c[0], (0, 2))] for c in chunks]
    want = sum(len(t) for t in on) / len(np.unique(np.concatenate(on)))
    assert tm._purged_writes_per_txn(chunks, spec) == want
    far = [(s, k, ln, t * 10**9) for s, k, ln, t in chunks]  # not dense: np.unique, the same answer
    assert tm._purged_writes_per_txn(far, spec) == want

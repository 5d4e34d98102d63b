"""MySQL's pool simulated at each phase of its timed page cleaner, taken as one (model.mean_over_phases,
pool.MYSQL_CLEANER_PHASES_MS): the prediction is the mean over the phases, page by page."""
from __future__ import annotations

import numpy as np

from .. import native

GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier: a page's tie-break order


def mean_sim(runs: list) -> native.MixSim:
    """The runs as one: each counter's mean, rounded, and each page's reads their mean with the
    fractions shared out whole, so the pages' sum is the mean of the runs' sums; one run as it is."""
    if len(runs) == 1:
        return runs[0]
    n = len(runs)
    total = np.sum([np.frombuffer(r.reads, dtype=np.uint32) for r in runs], axis=0, dtype=np.uint64)
    reads, rest = np.divmod(total, np.uint64(n))
    # Each page's mean rounded alone loses the fractions: most pages are read by some phases and not
    # others (0, 0, 0, 1 rounds to 0), so the sum fell ~0.3% under the phases' mean (branch mysqlmini,
    # docs/data/mysqlmini). The fractions are shared out whole instead (largest remainder), a tie going
    # by a hash of the page rather than its number, so that no table's pages (numbered in a block) are
    # favoured.
    extra = round(int(total.sum()) / n) - int(reads.sum())  # the runs' mean total, rounded as the counters are
    if extra:
        with np.errstate(over="ignore"):
            tie = np.arange(len(rest), dtype=np.uint64) * GOLDEN
        order = np.lexsort((tie, -rest.astype(np.int64)))
        reads[order[:extra]] += np.uint64(1)
    fields = [round(sum(getattr(r, f) for r in runs) / n) for f in native.MixSim._fields[:-1]]
    return native.MixSim(*fields, reads.astype(np.uint32).tobytes())

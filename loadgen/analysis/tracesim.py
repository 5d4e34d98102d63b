"""The pools of a captured trace's prediction (tracemodel.predict) fed its references chunk by
chunk while the next chunk is built: one native.MixStream a pool and cleaner phase, run one after
the other on one thread beside the building (the kernel runs without the GIL). The whole trace is
never held (it was 5 bytes a reference, mixpages.MAX_REFS); the counts are lrusim_mix's over the
whole trace (test_tracespeed.py). One thread, not one a core: two simulations at once took more
CPU than one after the other (likely each evicting the other's pages from the shared cache; 8M operations
at 4 pools, bench/predict_speed.py: 7.1-7.9 s of CPU and 8.0 s with one, 9.3-10.7 s and 11-13 s
with two)."""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from .. import native
from .mixpages import Space, mean_sim


class PoolFeed:
    """Each pool's simulations (pool.PoolModel: one a cleaner phase), fed the same chunks in order."""

    def __init__(self, space: Space, pools: list, leaf_pages: int):
        self.runs = [[native.MixStream(space.n_pages, leaf_pages, p.capacity_high, p.pool_pages, p.old_pct,
                                       p.old_time_ms, 1000.0 / p.qps, p.ra_threshold, p.ra_area, p.ra_rule,
                                       p.start_pages, p.start_freed, p.cleaner_batch, *p.tick_args(ph))
                      for ph in p.phases()] for p in pools]
        self.pool = ThreadPoolExecutor(1)
        self.busy: list[Future] = []

    def __enter__(self) -> PoolFeed:
        return self

    def __exit__(self, *exc) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def feed(self, pages, flags) -> None:
        """The next chunk: every simulation is done with the one before it first (in order, and two
        chunks in memory at most)."""
        self._wait()
        self.busy = [self.pool.submit(run.feed, pages, flags) for runs in self.runs for run in runs]

    def _wait(self) -> None:
        busy, self.busy = self.busy, []
        for f in busy:
            f.result()

    def close(self) -> list[native.MixSim]:
        """Each pool's result (its phases' mean, mixmodel.simulate's)."""
        self._wait()
        return [mean_sim([run.close() for run in runs]) for runs in self.runs]

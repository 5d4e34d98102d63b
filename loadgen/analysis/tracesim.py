"""The pools of a captured trace's prediction (tracemodel.predict) fed its references chunk by
chunk while the next chunk is built: one native.MixStream a pool and cleaner phase, run one after
the other on one thread beside the building (the kernel runs without the GIL); the building's
thread, done with its chunk, runs those not started yet instead of waiting (PoolFeed._wait). The
whole trace is never held (it was 5 bytes a reference, mixpages.MAX_REFS); the counts are
lrusim_mix's over the whole trace (test_tracespeed.py). One simulations' thread, not one a core:
two simulations at once took more CPU than one after the other (likely each evicting the other's
pages from the shared cache; 8M operations at 4 pools, bench/predict_speed.py: 7.1-7.9 s of CPU
and 8.0 s with one, 9.3-10.7 s and 11-13 s with two); the building's thread simulates only where
it would otherwise wait.

The pools of a curve (several asked for) are miniatures where curve.rate_for says so
(tracesample.py): each drops the references to pages outside its sample in the kernel, so its
simulation costs a fraction of an exact one; one pool asked for is simulated exactly, to the page.
A curve's MySQL pool of a long trace under writes is fed at one cleaner phase instead of four
(tracesample.one_phase: tracemodel fixes the pool's cleaner_phase_ms), as a miniature too
(tracesample.MYSQL_MINI: on since branch mysqlminion); where it is exact (the switch off, a
write-heavy trace) its held-spread twins are fed the trace's first chunks only (heldspread.TWIN_SHARE:
PoolFeed's cut)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from .. import native
from . import changebuf, heldspread
from . import tracesample as ts
from .dirtypages import adaptive_args
from .mixpages import Space
from .phasemean import mean_sim


class PoolFeed:
    """Each pool's simulations (pool.PoolModel: one a cleaner phase), fed the same chunks in order."""

    def __init__(self, space: Space, pools: list, leaf_pages: int, first: tuple | None = None,
                 write_share: float = 0.0, ops: int | None = None, buffers: frozenset = frozenset(),
                 exact_from: int | None = None, cut: dict | None = None, cut_chunks: int = 0):
        """exact_from: the pools from this one on are simulated exactly and are no curve's (heldspread.py's
        shifted pools); the ones before it are a curve where there are several (miniatures where
        tracesample says so). cut: {pool: (its twin with fewer pages held, with more)} whose twins
        stop after cut_chunks chunks (heldspread.TWIN_SHARE; each of the three one phase, exact):
        self.marks[pool] (heldspread.Marks) has the three's counts where the pool filled and there."""
        self.buffers = buffers  # MySQL's change buffer (changebuf.kinds_of): its kernel args a pool
        self.space, self.first = space, first or ts.first_key(space)
        n = len(pools) if exact_from is None else exact_from
        self.rates = [ts.pool_rate(p, n > 1, write_share, ops, bool(buffers)) if i < n else 1.0
                      for i, p in enumerate(pools)]
        samples: dict[float, ts.Sample | None] = {}
        for r in self.rates:
            if r < 1 and r not in samples:
                samples[r] = ts.plan(space, self.first, r)
        self.samples = [samples.get(r) for r in self.rates]
        self.runs = [[self._open(p, s, leaf_pages, ph) for ph in p.phases()] for p, s in zip(pools, self.samples)]
        self.pools = pools
        # the miniatures of one map and one clock (MariaDB's: one phase each), fed a chunk together
        by_map: dict[tuple, list] = {}
        for runs, sample, p in zip(self.runs, self.samples, pools):
            if sample is not None:
                by_map.setdefault((id(sample), p.qps), []).append(runs[0])
        self.groups = list(by_map.values())
        self.seen = bytearray(space.n_pages) if any(self.samples) else None
        self.refs = 0
        self.cut, self.cut_chunks, self.fed = cut or {}, cut_chunks, 0
        self.marks: dict[int, heldspread.Marks] = {b: heldspread.Marks() for b in self.cut}
        self.pool = ThreadPoolExecutor(1)
        self.busy: list[tuple[Future, object, tuple]] = []  # (future, job, its arguments)

    def _open(self, p, sample, leaf_pages: int, ph) -> native.MixStream:
        mini = (sample.map_, sample.rate, sample.salt, sample.more_ones) if sample else ()
        if sample:  # the scale taken on the first table's leaves at the start (tracesample.plan)
            pin = (sample.pin, ts.PIN_SHARE) if ts.PIN_SHARE > 0 else (np.zeros(0, np.uint8), 0.0)
            mini += (*pin, sample.scale_leaves)
        # the buffer's size and the master thread's merge: innodb_io_capacity as the pool has it (--dsn's),
        # else the default the flush list takes too (dirtypages.MYSQL_IO_CAPACITY)
        ibuf = changebuf.pool_args(p, self.buffers, {"innodb_io_capacity": p.io_capacity})
        return native.MixStream(sample.n_pages if sample else self.space.n_pages, leaf_pages, p.capacity_high,
                                p.pool_pages, p.old_pct, p.old_time_ms, 1000.0 / p.qps, p.ra_threshold, p.ra_area,
                                p.ra_rule, p.start_pages, p.start_freed, p.cleaner_batch, *p.tick_args(ph),
                                **adaptive_args(p), ibuf_max=ibuf[0], ibuf_merge=ibuf[1], mini=mini)

    def __enter__(self) -> PoolFeed:
        return self

    def __exit__(self, *exc) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def feed(self, pages, flags) -> None:
        """The next chunk: every simulation is done with the one before it first (in order, and two
        chunks in memory at most)."""
        self._wait()
        self._mark()
        self.fed += 1
        self.refs += len(pages)
        jobs = [(run.feed, (pages, flags)) for runs, s in zip(self.runs, self.samples) if s is None for run in runs]
        for group in self.groups:  # the miniatures of one map: the piece looked up once (native/lrusim/squeeze.h)
            jobs.append((group[0].feed_with, (group[1:], pages, flags)))
        if self.seen is not None:  # the distinct pages a miniature's estimate counts exactly
            jobs.append((native.mix_mark, (self.seen, pages)))
        self.busy = [(self.pool.submit(job, *args), job, args) for job, args in jobs]

    def _wait(self) -> None:
        """The chunk's jobs done: those the simulations' thread has not started yet are run here,
        from the last one back (it takes them from the first), so the building's thread, done with
        the next chunk, simulates beside it instead of waiting. Each simulation is still fed by one
        thread at a time, its chunks in order (a chunk's jobs are all done before the next's start)."""
        busy, self.busy = self.busy, []
        for f, job, args in reversed(busy):
            if f.cancel():
                job(*args)
        for f, _, _ in busy:
            if not f.cancelled():
                f.result()

    def _exact(self, sim) -> ts.Result:
        out = ts.exact(sim, self.space, self.first)
        out.change_buffer = changebuf.result_block(sim, self.buffers).get("change_buffer")
        return out

    def _mark(self) -> None:
        """The cut twins (self.cut), the chunks fed so far done: where the pool has first re-read a page
        (filled), the three's counts; once cut_chunks are fed, and at least as many after that
        point as before it, the three's counts again and the twins closed (fed no more)."""
        for b, (f, m) in self.cut.items():
            mark = self.marks[b]
            if mark.cut_rereads is not None:
                continue
            if mark.warm_rereads is None:
                sim = self.runs[b][0].peek()
                rr = heldspread.rereads(sim.reads)
                if rr > 0:
                    mark.warm_at, mark.warm_rereads = self.fed, rr
                    mark.warm = [self._exact(sim)] + [self._exact(self.runs[t][0].peek()) for t in (f, m)]
            elif self.fed >= max(self.cut_chunks, 2 * mark.warm_at):
                sim = self.runs[b][0].peek()
                mark.cut_at, mark.cut_rereads = self.fed, heldspread.rereads(sim.reads)
                mark.cut = [self._exact(sim)] + [self._exact(self.runs[t][0].close()) for t in (f, m)]
                self.runs[f], self.runs[m] = [], []

    def close(self) -> list[ts.Result]:
        """Each pool's reads per tree (its phases' mean, mixmodel.simulate's; a miniature's estimate);
        a cut twin's are its counts where it stopped (self.marks)."""
        self._wait()
        self._mark()
        seen = np.frombuffer(self.seen, dtype=np.uint8) if self.seen is not None else None
        out = []
        for i, (runs, sample, pool) in enumerate(zip(self.runs, self.samples, self.pools)):
            if not runs:  # a twin cut short: its pool's marks have it
                b, side = next((b, fm.index(i)) for b, fm in self.cut.items() if i in fm)
                out.append(self.marks[b].cut[1 + side])
                continue
            if sample is None:
                sim = mean_sim([run.close() for run in runs])
                if i in self.marks:
                    self.marks[i].end_rereads = heldspread.rereads(sim.reads)
                out.append(self._exact(sim))
                continue
            sim, evicted = runs[0].close()  # one phase (MariaDB's; MySQL's one_phase)
            out.append(ts.estimate(sim, evicted, sample, self.space, seen, self.refs, pool))
        return out

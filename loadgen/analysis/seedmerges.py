"""A MySQL read-only mix's change-buffer merges of changes buffered before its first query, as the
mix model reads them (mixmodel.predict; docs/workloads-lab.md, "The presets at CI's size": sysbench-
oltp-ro's misses). changebuf.py is the change buffer of the run's own writes (the kernel's)."""
from __future__ import annotations

import numpy as np

from .mixpages import OP, PRIMARY, WRITE, Space, Trace


def count(run: dict, writes: bool, seen: tuple | None) -> tuple[int, int, int] | None:
    """A MySQL read-only mix's merges of changes buffered before its first query: (leaves, first op,
    end op), the leaves read (dirty) spread over ops first .. end - 1; None where there were none.

    The seed's inserts into a non-unique secondary index (sysbench's k_1) go to the change buffer
    at 16M; a restart keeps them (ibdata1), and the master thread merges them in its once-a-second
    background task (ibuf_merge_in_background), reading each leaf (into the table's .ibd) and
    dirtying it. The model cannot know what the buffer held at the run's start, so a run's own
    prediction takes its count (INNODB_METRICS ibuf_merges: one per leaf merged). They come before
    the page cleaner's first LRU batch, which writes them out (the batch's lru_batch_flushed was at
    least the merges in every run measured): the merges are spread over the ops before the first
    recorded batch (`seen`, cleaner.replay_schedule), else over the first sample's queries.
    sysbench-oltp-ro, 300k rows, 16M, 20,000 ops (docs/workloads-lab.md, "The presets at CI's size"):
    three runs with 61-150 merges read 264-406 pages more than the model (-9.0 .. -12.0%); with
    them -4.8 .. -2.3%. A write run is left as it was: its own buffered changes are the kernel's."""
    if writes or (run.get("server") or {}).get("flavor") != "mysql":
        return None
    bp = run.get("buffer_pool") or {}
    merges = (bp.get("flush") or {}).get("ibuf_merges")
    # a result file is the user's: a count that is not a whole number is ignored
    if isinstance(merges, bool) or not isinstance(merges, int) or merges <= 0:
        return None
    end = seen[0][0] if seen else None
    if end is None:
        samples = run.get("samples") or []
        first = samples[0].get("queries") if samples and isinstance(samples[0], dict) else None
        end = first if isinstance(first, int) and not isinstance(first, bool) else None
    if end is None:
        end = int((run.get("result") or {}).get("ops") or 0)
    return merges, 0, max(1, int(end))


def put_in(trace: Trace, space: Space, merges: tuple[int, int, int] | None) -> Trace:
    """The trace with a read-only run's change-buffer merges (count: leaves, first op, end
    op) put in: that many leaves of the non-unique secondary indexes (shared by their leaf
    counts, evenly spaced in each), each read and dirtied (WRITE, not an op of its own) before ops
    first .. end - 1 in turn; the trace itself where there are none or no such index."""
    trees = [t for (_, idx), t in space.trees.items() if idx != PRIMARY and not t.unique and t.leaf_pages]
    if not merges or not trees:
        return trace
    n, lo, hi = merges
    total = sum(t.leaf_pages for t in trees)
    leaves = []
    for i, t in enumerate(trees):
        k = n - sum(len(x) for x in leaves) if i == len(trees) - 1 else n * t.leaf_pages // total
        k = min(max(k, 0), t.leaf_pages)
        leaves.append(t.base + (np.arange(k, dtype=np.int64) * t.leaf_pages) // max(k, 1))
    got = np.concatenate(leaves).astype(np.uint32)
    if not len(got):
        return trace
    pages, flags = trace.arrays()
    op_at = np.nonzero(flags & OP)[0]
    if not len(op_at):
        return trace
    hi = min(max(hi, lo + 1), len(op_at))
    lo = min(lo, hi - 1)
    before = op_at[lo + (np.arange(len(got), dtype=np.int64) * (hi - lo)) // len(got)]
    out = Trace()
    out.add(np.insert(pages, before, got), np.insert(flags, before, np.full(len(got), WRITE, np.uint8)))
    return out


def read_in(trace: Trace, space: Space, run: dict, writes: bool, seen: tuple | None) -> Trace:
    """mixmodel.predict's trace with the run's merges put in (count, put_in)."""
    return put_in(trace, space, count(run, writes, seen))

# tracemodel._purged_writes_per_txn as it was before this branch (np.unique's hash a chunk, then of all)
import numpy as np
from loadgen.analysis import tracemodel as _tm


def _old_purged(chunks, spec):
    purged = np.array([s.op in ("update", "delete", _tm.REINSERT_AT) for s in spec.streams], dtype=bool)
    writes, txns = 0, []
    for stream, _, _, txn in chunks:
        on = purged[stream]
        writes += int(on.sum())
        txns.append(np.unique(txn[on]))
    n = len(np.unique(np.concatenate(txns))) if txns else 0
    return writes / n if n else 0.0


_tm._purged_writes_per_txn = _old_purged

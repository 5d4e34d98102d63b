from loadgen.analysis import mixmodel as _mm
import numpy as _np
def _empty(space, txn, *a, **k):
    return _mm.Refs(_np.zeros(0, _np.uint32), _np.zeros(0, _np.uint8), _np.zeros(len(txn), _np.int64))
_mm.undo_refs = _empty
_mm.undo_purge_refs = _empty

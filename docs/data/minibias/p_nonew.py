from loadgen.analysis import mixmodel as _mm
_pr = _mm.point_refs
def _point_refs(*a, **k):
    k.pop("new", None)
    return _pr(*a, **k)
_mm.point_refs = _point_refs

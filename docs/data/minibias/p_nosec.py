from loadgen.analysis import mixmodel as _mm, mixpages as _mp
_orig = _mm.Mapper.op_refs
_sec = _mp.Space.secondaries
def _op_refs(self, stream, key, length):
    if self.spec.streams[stream].op == "insert":
        _mp.Space.secondaries = lambda sp, table: []
        try:
            return _orig(self, stream, key, length)
        finally:
            _mp.Space.secondaries = _sec
    return _orig(self, stream, key, length)
_mm.Mapper.op_refs = _op_refs

from loadgen.analysis import mixmodel as _mm
_orig = _mm.Mapper.op_refs
_hcat = _mm.hcat
def _op_refs(self, stream, key, length):
    if self.spec.streams[stream].op == "insert":
        _mm.hcat = lambda *parts: _hcat(*parts[1:])
        try:
            return _orig(self, stream, key, length)
        finally:
            _mm.hcat = _hcat
    return _orig(self, stream, key, length)
_mm.Mapper.op_refs = _op_refs

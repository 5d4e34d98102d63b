"""Where the model's rollback-segment reads come from, for the runs given: the model as it is, without
purge's own header read per log (Sweeps.before_walk -> None: purge_refs gets no header), and without the
once-a-second walks too (Sweeps.due -> None). By monkeypatching purgewalks.Sweeps, no code change.
From the checkout root: PYTHONPATH=$PWD python docs/data/ycsbwhole300k/parts.py FILE..."""

import gzip
import json
import sys
from pathlib import Path

import numpy as np

from loadgen.analysis import mixmodel, purgewalks


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if p.endswith(".gz") else raw)


def rseg_undo(doc):
    seen = []
    real = mixmodel.simulate

    def spy(trace, space, *a, **k):
        sim = real(trace, space, *a, **k)
        seen.append((sim, space))
        return sim

    mixmodel.simulate = spy
    try:
        p = mixmodel.predict(doc)
    finally:
        mixmodel.simulate = real
    sim, space = seen[0]
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    return (
        int(reads[space.system_base : space.undo_base].sum()),
        int(reads[space.undo_base : space.temp_base].sum()),
        p["pages_read"],
    )


S = purgewalks.Sweeps
real_before, real_due = S.before_walk, S.due
for path in sys.argv[1:]:
    doc = load(path)
    fl = doc["buffer_pool"]["flush"]
    w = doc["result"]["ops"] / 2
    out = [rseg_undo(doc)]
    S.before_walk = lambda self, at, lag: None
    try:
        out.append(rseg_undo(doc))
        S.due = lambda self, *a: None
        out.append(rseg_undo(doc))
    finally:
        S.before_walk, S.due = real_before, real_due
    print(
        f"{Path(path).name}: server rseg {fl['system_pages_read']} ({fl['system_pages_read'] / w:.2f}/write), whole "
        f"{doc['buffer_pool']['pages_read']}; model rseg / undo (uncapped) / whole: as is {out[0]}, "
        f"no purge header {out[1]}, no purge header nor walks {out[2]}"
    )

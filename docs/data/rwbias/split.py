"""Model's rollback-segment header reads split by toggles: main; purge's own header read
(before_walk) off; walks off too. Prints per run."""
import sys, gzip, json
sys.path.insert(0, 'bench')
import whole_repeat as wr
from loadgen.analysis import mixmodel, undomodel
real_sweep, real_lag = mixmodel.sweep_ops_of, mixmodel.header_lag_ops
def run(r, walks=True, own=True):
    mixmodel.sweep_ops_of = real_sweep if walks else (lambda *a, **k: 0.0)
    mixmodel.header_lag_ops = real_lag if own else (lambda w: 1e15)
    try:
        return wr.parts(r)[1]['rseg headers']
    finally:
        mixmodel.sweep_ops_of, mixmodel.header_lag_ops = real_sweep, real_lag
for f in sys.argv[1:]:
    r = json.load(gzip.open(f))
    bp = r.get('buffer_pool') or {}
    fl = bp.get('flush') or {}
    a, b, c = run(r), run(r, own=False), run(r, walks=False, own=False)
    print(f"{f.split('/')[-1][:60]:60s} qps {round(r['result'].get('qps') or 0):5d} batches {fl.get('purge_batches')} "
          f"model hdr {a}  no-own {b}  no-walks-no-own {c}  (walks+own ~{a-c}, own ~{a-b})")

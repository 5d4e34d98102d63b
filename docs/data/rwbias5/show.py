"""rwbias5: probe.py's rows by server, preset and q/s band: the server's counters against the model's parts
for each probe file given (label=path)."""
import json, sys, statistics as st
BANDS = [(350, 1000), (1000, 2000), (2000, 1e9)]
sets = [a.split('=', 1) for a in sys.argv[1:]]
data = {lab: {r['path']: r for r in json.load(open(p))} for lab, p in sets}
base = data[sets[0][0]]
keys = sorted({(r['server'], r['preset']) for r in base.values()})
m = lambda xs: st.mean(xs) if xs else float('nan')
for srv, pre in keys:
    for lo, hi in BANDS:
        paths = [p for p, r in base.items() if r['server'] == srv and r['preset'] == pre and lo <= r['qps'] < hi]
        if not paths: continue
        rs = [base[p] for p in paths]
        print(f"## {srv} {pre} {lo}-{hi if hi < 1e9 else '+'} q/s, {len(rs)} runs: server whole {m([r['whole'] for r in rs]):,.0f} "
              f"table {m([r['table'] for r in rs]):,.0f} undo {m([r['s_undo'] or 0 for r in rs]):,.0f} sys {m([r['s_sys'] or 0 for r in rs]):,.0f} "
              f"undo written {m([r['s_undo_w'] or 0 for r in rs]):,.0f} logs {m([r['s_logs'] or 0 for r in rs]):,.0f} batches {m([r['s_batches'] or 0 for r in rs]):,.0f}")
        for lab, _ in sets:
            d = [data[lab][p] for p in paths if p in data[lab]]
            w = m([(r['pred'] - r['whole']) / r['whole'] for r in d]) * 100
            print(f"  {lab:8s} whole {w:+5.1f}%  table {m([r['table_pred'] for r in d]):8,.0f} ({m([(r['table_pred']-r['table'])/r['whole'] for r in d])*100:+.1f}% of whole)"
                  f"  hdr {m([r['hdr'] for r in d]):6,.0f}  undo raw {m([r['undo_raw'] for r in d]):6,.0f} cap {m([r['cap'] or 0 for r in d]):6,.0f} cut {m([r['cut'] or 0 for r in d]):5,.0f}"
                  f"  skip {m([r['skip'] for r in d]):.3f} dirty_ev {m([r['dirty_ev'] for r in d]):7,.0f}")

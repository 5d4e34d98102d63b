"""rwbias5: the table's reads per frame of LRU length (heldspread's pool 16 pages shorter and longer), the
first 6 runs of each cell in probe-off; run from the checkout's root with model.patch applied."""
import gzip, json, sys, statistics as st
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, '.')
from loadgen.analysis import mixmodel, heldspread
def one(path):
    doc = json.loads(gzip.decompress(Path(path).read_bytes()))
    got = {}
    real = heldspread.by_part
    def spy(parts_list):
        got['parts'] = parts_list
        return real(parts_list)
    heldspread.by_part = spy
    try:
        p = mixmodel.predict(doc)
    finally:
        heldspread.by_part = real
    if p is None or 'parts' not in got: return None
    t = list(p['tables'])[0]
    (fa, fs), (ma, ms) = got['parts']
    return (p['tables'][t]['pages_read'], fa[t]['pages_read'], ma[t]['pages_read'], fs, ms, p['system_pages_read'])
if __name__ == '__main__':
    rows = json.loads(gzip.decompress(Path('docs/data/rwbias5/probe-off.json.gz').read_bytes()))
    sel = {}
    for r in rows:
        k = (r['server'], r['preset'])
        sel.setdefault(k, []).append(r['path'])
    paths = [p for k, v in sel.items() for p in v[:6]]
    with ProcessPoolExecutor(2) as ex:
        res = list(ex.map(one, paths))
    out = {}
    for p, r in zip(paths, res):
        if r is None: continue
        k = next(k for k, v in sel.items() if p in v)
        out.setdefault(k, []).append(r)
    for k, v in sorted(out.items()):
        per = st.mean((a[1] - a[2]) / 32 for a in v)
        sysper = st.mean((a[3] - a[4]) / 32 for a in v)
        print(k, len(v), f"table reads per frame {per:.2f}, system {sysper:.2f}")

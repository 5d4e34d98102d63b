"""rwbias5: MariaDB 16M ycsb-a/f and sysbench-oltp-rw runs at 20,000 operations: the model's parts
(table, rseg headers, undo pages raw and after the cap) against the server's page-type counters,
under the current environment (experiments.patch: RWB5_ROW, RWB5_OFF, RWB5_HELD)."""
import gzip, json, sys
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
import numpy as np
sys.path.insert(0, '.')
from loadgen.analysis import mixmodel, undocap

def one(path):
    doc = json.loads(gzip.decompress(Path(path).read_bytes()))
    got = {}
    real = undocap.settle
    def spy(traced, space, cap):
        passes = []
        def t(skip):
            r = traced(skip); passes.append(skip); return r
        out = real(t, space, cap)
        reads = np.frombuffer(out[1].reads, dtype=np.uint32)
        tot = lambda a, b: int(reads[a:b].sum(dtype=np.uint64))
        got.update(hdr=tot(space.system_base, space.undo_base), undo_raw=tot(space.undo_base, space.temp_base),
                   skip=passes[-1], passes=len(passes), dirty_ev=int(out[1].dirty_evicted))
        return out
    undocap.settle = spy
    try:
        p = mixmodel.predict(doc)
    except Exception as e:
        return None
    finally:
        undocap.settle = real
    if p is None: return None
    srv, bp, wl = doc['server'], doc['buffer_pool'], doc['workload']
    fl = bp.get('flush') or {}
    tname = list(p['tables'])[0]
    return dict(path=path, server='.'.join(srv['version'].split('.')[:2]), preset=str(wl.get('name')).removeprefix('preset '),
                qps=doc['result']['qps'], whole=bp['pages_read'], pred=p['pages_read'],
                table=bp['tables'][tname]['file_pages_read'], table_pred=p['tables'][tname]['pages_read'],
                s_undo=fl.get('undo_pages_read'), s_sys=fl.get('system_pages_read'),
                s_leaf=fl.get('leaf_pages_read'), s_nonleaf=fl.get('nonleaf_pages_read'),
                s_undo_w=fl.get('undo_pages_written'), s_logs=fl.get('purge_undo_pages'),
                s_batches=fl.get('purge_batches'), files=bp.get('files'),
                cap=p.get('undo_reads_cap'), cut=p.get('undo_reads_cut'), **got)

if __name__ == '__main__':
    paths = []
    for f in sorted(Path('docs/data').rglob('*.json.gz')):
        if 'all-runs' in f.name: continue
        try: doc = json.loads(gzip.decompress(f.read_bytes()))
        except Exception: continue
        if not isinstance(doc, dict) or not isinstance(doc.get('workload'), dict): continue
        s = doc.get('server') or {}
        name = str(doc['workload'].get('name'))
        if s.get('flavor') != 'mariadb' or not any(k in name for k in ('sysbench-oltp-rw', 'ycsb-a', 'ycsb-f')): continue
        if int(s.get('innodb_buffer_pool_size', 0)) >> 20 != 16: continue
        if (doc['workload'].get('mix') or {}).get('operations') != 20000: continue
        if (doc.get('result') or {}).get('qps', 0) < 350: continue
        paths.append(str(f))
    with ProcessPoolExecutor(2) as ex:
        rows = [r for r in ex.map(one, paths) if r]
    json.dump(rows, open(sys.argv[1], 'w'))
    print(len(rows))

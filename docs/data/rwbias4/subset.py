"""Quick: MariaDB sysbench-oltp-rw 16M runs: whole, table, headers errors (rwbias4 iteration harness)."""
import gzip, json, sys, statistics
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, 'bench'); sys.path.insert(0, '.')
import whole_repeat

def one(path):
    doc = json.loads(gzip.decompress(Path(path).read_bytes()))
    srv, bp, wl = doc['server'], doc['buffer_pool'], doc['workload']
    try:
        p, parts = whole_repeat.parts(doc)
    except Exception as e:
        return None
    t = bp.get('tables', {}).get('chat.sbtest1', {}).get('file_pages_read')
    pt = (p.get('tables') or {}).get('chat.sbtest1', {}).get('pages_read')
    return dict(path=path, server='.'.join(srv['version'].split('.')[:2]), qps=doc['result']['qps'],
                ops=(wl.get('mix') or {}).get('operations'), whole=bp['pages_read'], pred=p['pages_read'],
                table=t, table_pred=pt, hdr=bp['flush'].get('system_pages_read'), hdr_pred=parts.get('rseg headers'),
                batches=bp['flush'].get('purge_batches'))

if __name__ == '__main__':
    paths = []
    for f in sorted(Path('docs/data').rglob('*.json.gz')):
        if 'all-runs' in f.name: continue
        try: doc = json.loads(gzip.decompress(f.read_bytes()))
        except Exception: continue
        if not isinstance(doc, dict) or not isinstance(doc.get('workload'), dict): continue
        s = doc.get('server') or {}
        if s.get('flavor') != 'mariadb' or 'sysbench-oltp-rw' not in str(doc['workload'].get('name')): continue
        if int(s.get('innodb_buffer_pool_size', 0)) >> 20 != 16: continue
        if (doc['workload'].get('mix') or {}).get('operations') != 20000: continue
        paths.append(str(f))
    with ProcessPoolExecutor(2) as ex:
        rows = [r for r in ex.map(one, paths) if r]
    json.dump(rows, open(sys.argv[1], 'w'))

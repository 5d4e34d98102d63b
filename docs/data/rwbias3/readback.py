"""The servers' undo counters (undo_pages_read, undo_pages_written, purge_undo_pages) over the stored
MariaDB 16M runs: what the read-back share follows, and the cap's two terms fitted (branch rwbias3)."""
import gzip,json,numpy as np
rows=json.loads(gzip.decompress(open('docs/data/rwbias2/rule-all-runs.json.gz','rb').read()))
X=[]
for r in rows:
    if 'error' in r or not r['server'].startswith('mariadb') or r['pool_mb']!=16 or r['qps']<350: continue
    if r['preset'] not in ('ycsb-a','ycsb-f','sysbench-oltp-rw'): continue
    d=json.loads(gzip.decompress(open(r['path'],'rb').read()))
    f=d['buffer_pool']['flush']
    if not f.get('undo_pages_written') or not f.get('purge_undo_pages'): continue
    X.append((r,f,d))
print(len(X), 'runs: MariaDB 16M ycsb-a, ycsb-f, sysbench-oltp-rw from 350 q/s')
def feats(r,f,d):
    bp=d['buffer_pool']; w=f['undo_pages_written']; p=f['purge_undo_pages']
    return {'w/p':w/p,'hmax/p':(bp.get('history_len_max') or 0)/p*100,'hend/p':(bp.get('history_len') or 0)/p*100,'batches/p':f['purge_batches']/p*100,
            'created/w':f['pages_created']/w,'lruflush/w':f['lru_batch_flushed']/w,'qps/1k':r['qps']/1000,'evict/flush':f['lru_batch_evicted']/max(1,f['lru_batch_flushed']),
            'whole/w':bp['pages_read']/w, 'is_rw':float(r['preset']=='sysbench-oltp-rw'),'is118':float(r['server']=='mariadb-11.8'),'ops100k':float(r['ops']==100000)}
y=np.array([f['undo_pages_read']/f['undo_pages_written'] for r,f,d in X])
F=[feats(*x) for x in X]; names=list(F[0])
M=np.array([[ff[n] for n in names] for ff in F])
for i,n in enumerate(names):
    c=np.corrcoef(M[:,i],y)[0,1]; print('%-12s r=%+.2f'%(n,c))
import itertools
def fit(cols):
    A=np.column_stack([M[:,names.index(c)] for c in cols]+[np.ones(len(y))]); c,*_=np.linalg.lstsq(A,y,rcond=None); res=y-A@c
    return np.sqrt((res**2).mean()),c,res
best=[]
for k in (1,2):
  for cols in itertools.combinations([n for n in names if n not in ('is_rw','is118','ops100k')],k):
    best.append((fit(cols)[0],cols))
best.sort(); print(best[:8]); print('is_rw',fit(['is_rw'])[0],'is_rw+is118',fit(['is_rw','is118'])[0],'none',y.std())
print()
for sel,name in ((lambda r:True,'all'),(lambda r:r['ops']==20000,'20k'),(lambda r:r['ops']==20000 and r['preset']!='sysbench-oltp-rw','ycsb20k'),(lambda r:r['preset']!='sysbench-oltp-rw','ycsb')):
    xs=[(r,f) for r,f,d in X if sel(r)]
    y=np.array([f['undo_pages_read'] for r,f in xs],float); A=np.array([[f['purge_undo_pages'],f['undo_pages_written']-f['purge_undo_pages']] for r,f in xs],float)
    c,*_=np.linalg.lstsq(A,y,rcond=None); print(name,len(xs),'a(p)=%.3f b(w-p)=%.3f'%tuple(c))

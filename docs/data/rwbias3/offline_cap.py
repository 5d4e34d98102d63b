import gzip,json,statistics as st,sys,collections
rows=json.loads(gzip.decompress(open('docs/data/rwbias2/rule-all-runs.json.gz','rb').read()))
fl={}
for r in rows:
    if 'error' in r or not r['server'].startswith('mariadb') or r.get('undo_pred') is None: continue
    d=json.loads(gzip.decompress(open(r['path'],'rb').read())) if r['path'].endswith('.gz') else json.load(open(r['path']))
    fl[r['path']]=d['buffer_pool'].get('flush') or {}
def newpred(r,K):
    f=fl.get(r['path']); pred=r['pred']
    if f and K and f.get('purge_undo_pages') is not None and f.get('undo_pages_written'):
        w=f['undo_pages_written']; p=f['purge_undo_pages']; a,b=K
        cap=min(int(0.9*w), int(a*p+b*max(0,w-p)))
        pred-=max(0,r['undo_pred']-cap)
    return pred
for K in [tuple(map(float,x.split(','))) for x in sys.argv[1:]]:
    g=collections.defaultdict(list)
    for r in rows:
        if 'error' in r: continue
        g[(r['server'],r['preset'],r['pool_mb'])].append((100*(r['pred']-r['whole'])/r['whole'],100*(newpred(r,K)-r['whole'])/r['whole']))
    print('K',K)
    for c,v in sorted(g.items()):
        if any(a!=b for a,b in v):
            rb=st.fmean(a*a for a,b in v)**.5; ra=st.fmean(b*b for a,b in v)**.5
            print('   %-45s %3d rms %.2f -> %.2f  mean %+.2f -> %+.2f'%(c,len(v),rb,ra,st.fmean(a for a,b in v),st.fmean(b for a,b in v)))

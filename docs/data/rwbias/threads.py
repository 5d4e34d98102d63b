import sys, collections
sys.path.insert(0, 'bench')
from pathlib import Path
import ibdata_walks as iw
for f in sys.argv[1:]:
    rows = iw.rows_of(Path(f))
    walks = iw.walks_of(rows)
    wt = collections.Counter(w.get('thread') for w in walks)
    print(f, 'walk threads', wt.most_common(5), 'keys', list(walks[0].keys()))
    c = collections.defaultdict(collections.Counter)
    for r in rows:
        kind = r['file'] + ':' + ('SYS' if r['file']=='ibdata1' and int(r['type'])==6 else ('undo' if r['file']=='ibdata1' and int(r['type'])==2 else (r['index'] or r['type'])))
        c[r['thread']][kind]+=1
    for t, cc in sorted(c.items(), key=lambda x:-sum(x[1].values()))[:10]:
        print(' ', t, sum(cc.values()), dict(cc.most_common(6)))

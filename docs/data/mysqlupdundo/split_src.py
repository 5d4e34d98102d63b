"""The model's misses on the undo files' pages by source (writes, purge, walks), from the per-reference miss
log of a debug kernel (branch mysqlupdundo, docs/workloads-lab.md "Updates alone: the walks after the LRU
batches"): apply debug-kernel.patch, rebuild (setup.py build_ext --inplace), then

    PYTHONPATH=. python docs/data/mysqlupdundo/split_src.py RESULT.json[.gz] ...

The patch also reads LRUSIM_DBLWR (still_writing's divisor; 0: every write in flight). Revert it after."""
import gzip, json, os, sys, glob, tempfile
from pathlib import Path
import numpy as np
from loadgen.analysis import mixmodel
cap = {}
LOG_DIR = tempfile.mkdtemp(prefix='lrusim-miss-')
_sim = mixmodel.simulate
def simulate(trace, space, pool, *a, **k):
    if not cap:
        os.environ['LRUSIM_MISSLOG'] = os.path.join(LOG_DIR, 'miss')
        for f in glob.glob(os.path.join(LOG_DIR, 'miss.*')): os.remove(f)
        sim = _sim(trace, space, pool, *a, **k)
        del os.environ['LRUSIM_MISSLOG']
        p, f = trace.arrays()
        cap.update(pages=p.copy(), flags=f.copy(), space=space,
                   miss=[np.fromfile(x, np.uint8) for x in sorted(glob.glob(os.path.join(LOG_DIR, 'miss.*')))])
        return sim
    return _sim(trace, space, pool, *a, **k)
mixmodel.simulate = simulate
for path in sys.argv[1:]:
    b = Path(path).read_bytes()
    r = json.loads(gzip.decompress(b) if path.endswith('.gz') else b)
    cap.clear(); pr = mixmodel.predict(r)
    p = cap['pages'].astype(np.int64); f = cap['flags']; sp = cap['space']
    miss = np.mean([m for m in cap['miss'] if len(m) == len(p)], axis=0)  # phases' mean
    nph = sum(len(m) == len(p) for m in cap['miss'])
    OP = 4
    op_id = np.cumsum((f & OP) != 0)
    is_hdr = (p >= sp.system_base) & (p < sp.undo_base)
    is_undo = (p >= sp.undo_base) & (p < sp.temp_base)
    is_tmp = (p >= sp.temp_base) & (p < sp.file_base)
    hdr_per_op = np.bincount(op_id, weights=is_hdr)
    walk = hdr_per_op[op_id] > 100
    rs = np.where(is_hdr, p - sp.system_base, np.where(is_undo, (p - sp.undo_base) % sp.rollback_segments, -1))
    nxt_hdr_same = np.zeros(len(p), bool)
    nxt_hdr_same[:-1] = is_undo[:-1] & is_hdr[1:] & (rs[:-1] == rs[1:])
    write_undo = is_undo & ~walk & nxt_hdr_same
    write_hdr = is_hdr & ~walk
    purge_undo = is_undo & ~walk & ~nxt_hdr_same
    out = {}
    for name, m in [('write undo', write_undo), ('write hdr', write_hdr), ('purge undo', purge_undo),
                    ('walk hdr', is_hdr & walk), ('walk undo', is_undo & walk), ('walk tmp', is_tmp & walk)]:
        out[name] = (int(m.sum()), round(float(miss[m].sum())))
    bp = r['buffer_pool']
    print(Path(path).name, 'phases', nph, 'walks', int(len(np.unique(op_id[walk]))), 'txns', int(write_hdr.sum()),
          {k: f"{v[1]}/{v[0]}" for k, v in out.items()},
          'srv undo', bp['flush']['undo_pages_read'], 'undo files', sum(v for k, v in bp['files'].items() if 'undo' in k))
    wops = np.unique(op_id[walk])
    per = [(int(w), round(float(miss[(op_id == w) & (is_hdr | is_undo)].sum())), int(((op_id == w) & is_undo).sum())) for w in wops]
    opn = np.cumsum(np.bincount(op_id) > 0)  # not exact op numbers; print ref-op ids
    print('model per walk (undo-file misses, logs read):', [(m, n) for _, m, n in per])
    sp1 = (rs % 2) == 0
    for name, m in [('write', (write_undo | write_hdr)), ('walk', walk & (is_hdr | is_undo)), ('purge', purge_undo)]:
        print(f"  {name}: undo_001 {round(float(miss[m & sp1].sum()))} undo_002 {round(float(miss[m & ~sp1].sum()))}")
    # walk misses by position in the walk (first/second half of each file's rsegs)
    from loadgen.analysis.purgewalks import walk_order
    order = walk_order(sp); pos = np.empty_like(order); pos[order] = np.arange(len(order))
    wp = np.where(rs >= 0, pos[np.maximum(rs, 0)], -1)
    for q in range(4):
        m = walk & is_hdr & (wp // 64 == q)
        mu = walk & is_undo & (wp // 64 == q)
        print(f"  walk quarter {q}: hdr miss {miss[m].sum()/max(m.sum(),1):.2f} undo miss {miss[mu].sum()/max(mu.sum(),1):.2f}")

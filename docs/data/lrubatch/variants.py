"""bench/rate_bands.py with a batch variant (branch lrubatch), from the checkout root, PYTHONPATH=$PWD:
    LRB_H=249 LRB_F=0.75 LRB_R0=800 LRB_R1=1200 python docs/data/lrubatch/variants.py docs/data --json X.json --jobs 2
pool.write_batch is turned off underneath (main's pool_of), then the variant's batch is put in:
LRB_H: pages a batch evicts + writes (batch = min(225, H / (1 + K * lru_batch_flushed / lru_batch_evicted));
0 = main); LRB_K: the written pages' weight (1); LRB_F: the list's mean, 0 = main's (ycsba300k2's variant B)
.. 1 = held to 256 (ycsba300k2's candidate A); LRB_R0/LRB_R1: main's batch at R0 q/s and under, the rule's
at R1 and over, linear between (unset: no gate); LRB_UL/LRB_UR: undocap.UNDO_READS_PER_LOG / _PER_REWRITE.
Each row gets the tables' reads (server "table", model "table_pred") besides rate_bands' own."""
import dataclasses, json, os, sys
from pathlib import Path
sys.path.insert(0, str(Path.cwd() / "bench"))
import rate_bands, whole_repeat
from loadgen.analysis import mixmodel, undocap

H = float(os.environ.get("LRB_H", "0"))
F = float(os.environ.get("LRB_F", "1"))
K = float(os.environ.get("LRB_K", "1"))  # weight of the written pages
if "LRB_UL" in os.environ:
    undocap.UNDO_READS_PER_LOG = float(os.environ["LRB_UL"])
if "LRB_UR" in os.environ:
    undocap.UNDO_READS_PER_REWRITE = float(os.environ["LRB_UR"])
mixmodel.write_batch = lambda pool, *a: pool  # main's pool_of underneath, whatever the worktree holds
real = mixmodel.pool_of


def pool_of(run, writes=False):
    p = real(run, writes)
    if not H or not writes or p.cleaner_batch != 225 or p.capacity_high != 256:
        return p
    fl = (run.get("buffer_pool") or {}).get("flush") or {}
    e, w = fl.get("lru_batch_evicted"), fl.get("lru_batch_flushed")
    if not isinstance(e, int) or not isinstance(w, int) or not e:
        return p
    b = min(225, round(H / (1 + K * w / e)))
    r0, r1 = float(os.environ.get("LRB_R0", "0")), float(os.environ.get("LRB_R1", "0"))
    q = float((run.get("result") or {}).get("qps") or 0)
    if r1 > r0:  # the batch from the rule at r1 q/s and over, main's 225 at r0 and under
        t = min(1.0, max(0.0, (q - r0) / (r1 - r0)))
        b = round(225 + t * (b - 225))
    if b >= 225:
        return p
    cap_a, cap_b = 256 - b // 2, p.capacity_pages
    return dataclasses.replace(p, cleaner_batch=b, capacity_pages=round(cap_b + F * (cap_a - cap_b)))


mixmodel.pool_of = pool_of
real_parts = whole_repeat.parts
real_one = rate_bands.one
box = {}


def parts(run):
    p, pt = real_parts(run)
    box["t"] = pt["table"]
    box["st"] = sum(t["file_pages_read"] for t in run["buffer_pool"]["tables"].values())
    return p, pt


whole_repeat.parts = parts


def one(path):
    box.clear()
    r = real_one(path)
    if r and "error" not in r and "t" in box:
        r["table"], r["table_pred"] = box["st"], box["t"]
    return r


rate_bands.one = one
sys.exit(rate_bands.main())

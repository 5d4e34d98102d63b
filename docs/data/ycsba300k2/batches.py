import json, sys, gzip

for f in sys.argv[1:]:
    d = json.loads(gzip.decompress(open(f, "rb").read()) if f.endswith("gz") else open(f).read())
    c = d["buffer_pool"].get("cleaner_batches")
    fl = d["buffer_pool"]["flush"]
    b = c["batches"] if c else []
    n = sum(x["batches"] for x in b)
    pages = sum(x["pages"] for x in b)
    print(
        f"{f.split('/')[-1]}: {d['workload']['order']} q/s {d['result']['qps']} polls {c and c['polls']} complete {c and c['complete']} "
        f"batches {n} evicted {pages} (flush block {fl['lru_batch_evicted']}, written {fl['lru_batch_flushed']}) mean batch {pages / max(n, 1):.1f} "
        f"batches/s {n / d['result']['elapsed_s']:.1f} single-batch polls {sum(1 for x in b if x['batches'] == 1)}"
    )

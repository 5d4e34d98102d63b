"""Each pool's error (%) against the exact one-phase reads, per salt, and the mean and spread over
salts, from mini_check.py outputs. Usage: errs.py EXACT_FILE MINI_FILE..."""

import statistics
import sys


def reads(path):
    out, salt = {}, None
    rows = []
    for line in open(path):
        f = line.split()
        if f and f[0] in ("mini", "exact") and len(f) > 3 and f[2] == "reads":
            rows.append((f[1], int(f[3])))
        elif line.startswith("#"):
            salt = f[f.index("salt") + 1].rstrip(":") if "salt" in f else None
            out[salt] = dict(rows)
            rows = []
    return out


exact = next(iter(reads(sys.argv[1]).values()))
for path in sys.argv[2:]:
    runs = reads(path)
    print(path)
    for pool, want in exact.items():
        e = [100.0 * (r[pool] - want) / want for r in runs.values() if pool in r]
        sd = statistics.stdev(e) if len(e) > 1 else 0.0
        print(
            f"  {pool:>6} exact {want:>10,}  "
            + " ".join(f"{x:+.2f}" for x in e)
            + f"  mean {statistics.mean(e):+.2f} sd {sd:.2f} worst {max(e, key=abs):+.2f}"
        )

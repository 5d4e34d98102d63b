"""twin_prefix.py's lines -> for each share of the chunks, each pool's reach on that prefix scaled
to the whole trace by the base's re-reads (whole / prefix), against the whole trace's reach, and the
gate (max(0.1% of the reads, 20% of the exact reach), each side). Usage: prefix_gate.py FILE [SHARES [WARM]]

WARM (default 0): the reach at the chunk WARM after the base's first re-read (the pool full) is
kept as it is, and only what it gained after that is scaled (by the re-reads after that chunk).
0: the whole prefix's reach scaled by the re-reads."""

import math
import re
import sys
from collections import defaultdict

LINE = re.compile(r"(\d+M) chunk (\d+)/(\d+) reads (\d+) rereads (\d+) reach (-?\d+) (-?\d+)")


def main() -> None:
    rows = defaultdict(dict)
    for line in open(sys.argv[1]):
        m = LINE.match(line)
        if m:
            pool, c, n, reads, rr, f, mo = m.group(1), *map(int, m.groups()[1:])
            rows[pool][c] = (n, reads, rr, f, mo)
    shares = [float(x) for x in (sys.argv[2].split(",") if len(sys.argv) > 2 else "0.1,0.2,0.25,0.34,0.5".split(","))]
    worst = defaultdict(float)
    for pool, by_c in rows.items():
        n = max(by_c)
        _, reads, rr, f, mo = by_c[n]
        for s in shares:
            c = min(n, max(1, math.ceil(s * n)))
            _, _, rr_c, f_c, mo_c = by_c[c]
            warm = int(sys.argv[3]) if len(sys.argv) > 3 else 0
            w = min([d for d in by_c if by_c[d][2] > 0] or [n]) + warm - 1 if warm else 0
            _, _, rr_w, f_w, mo_w = by_c[w] if 0 < w < c else (0, 0, 0, 0, 0)
            k = (rr - rr_w) / (rr_c - rr_w) if rr_c > rr_w else 1.0
            got = [round(f_w + (f_c - f_w) * k), round(mo_w + (mo_c - mo_w) * k)]
            off = [g - e for g, e in zip(got, (f, mo))]
            gate = [max(0.001 * reads, 0.2 * abs(e)) for e in (f, mo)]
            ratio = max(abs(o) / g for o, g in zip(off, gate))
            worst[s] = max(worst[s], ratio)
            print(
                f"{pool} share {s} chunks {c}/{n} reach exact ({f}, {mo}) scaled ({got[0]}, {got[1]}) "
                f"off ({off[0]}, {off[1]}) = ({100 * off[0] / reads:+.4f}%, {100 * off[1] / reads:+.4f}%) "
                f"of the reads; off/gate {ratio:.2f}"
            )
    for s in shares:
        print(f"# share {s}: worst off/gate {worst[s]:.2f} ({'holds' if worst[s] <= 1 else 'FAILS'})")


if __name__ == "__main__":
    main()

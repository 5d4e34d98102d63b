"""rwbias5: MariaDB ycsb-a/f and sysbench-oltp-rw 16M band means from rate_bands --compare outputs:
bandtable.py LABEL=compare.txt ... (the first's 'before' side is printed as main)."""
import re, sys


def parse(path):
    """Each server's band line appears twice in a --compare output: before, then after."""
    sides, seen, cur, srv = [{}, {}], set(), 0, None
    for line in open(path).read().splitlines():
        m = re.match(r'(mariadb-[\d.]+|mysql-[\d.]+) 16M, 20,000 ops', line)
        if m:
            srv = m.group(1)
            cur = 1 if srv in seen else 0
            seen.add(srv)
            continue
        m = re.match(r'(ycsb-a|ycsb-f|sysbench-oltp-rw)\s+350-1000:\s+([+-][\d.]+)%.*1000-2000:\s+([+-][\d.]+)%.*2000-:\s+([+-][\d.]+)%', line)
        if m and srv and srv.startswith('mariadb'):
            sides[cur][(srv, m.group(1))] = [float(m.group(i)) for i in (2, 3, 4)]
    return sides


args = [a.split('=', 1) for a in sys.argv[1:]]
cols = [('main', parse(args[0][1])[0])] + [(lab, parse(p)[1]) for lab, p in args]
print('| cell (350-1,000 / 1,000-2,000 / 2,000+ q/s) | ' + ' | '.join(c for c, _ in cols) + ' |')
print('|---' * (len(cols) + 1) + '|')
for k in sorted(cols[0][1]):
    print(f"| {k[0].removeprefix('mariadb-')} {k[1]} | " + ' | '.join(' / '.join(f'{x:+.1f}' for x in d.get(k, [])) for _, d in cols) + ' |')

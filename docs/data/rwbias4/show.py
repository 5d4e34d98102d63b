import json, sys, statistics
rows = json.load(open(sys.argv[1]))
def e(a, b): return 100 * (a - b) / b
for srv in ('10.11', '11.8'):
    rs = [r for r in rows if r['server'] == srv]
    for lo, hi in ((350, 700), (700, 1000), (1000, 1500), (1500, 2000), (2000, 3000), (3000, 1e9), (350, 1000), (1000, 2000), (2000, 1e9)):
        b = [r for r in rs if lo <= r['qps'] < hi]
        if not b: continue
        print(srv, f'{lo}-{hi}', len(b), 'whole %+.1f' % statistics.fmean(e(r['pred'], r['whole']) for r in b),
              'table %+.1f' % statistics.fmean(e(r['table_pred'], r['table']) for r in b if r['table']),
              'hdr srv %.0f model %.0f' % (statistics.fmean(r['hdr'] for r in b), statistics.fmean(r['hdr_pred'] for r in b)))
for r in rows:
    if any(k in r['path'] for k in ('rwk1/mariadb-10.11-sysbench-oltp-rw-16M-v1-5', 'slowmaria/mariadb-10.11-sysbench-oltp-rw-16M-slow-1.')):
        print(r['path'], 'table %+.2f' % e(r['table_pred'], r['table']), r['table_pred'], r['table'], 'hdr', r['hdr_pred'], r['hdr'])
# guards: rwk1 all within 4%, rwrate within 5%, rwlag >=600 5%, >=300 7%
for d, bound, lo in (('rwk1/', 4, 0), ('rwrate/', 5, 0), ('rwlag/', 5, 600), ('rwlag/', 7, 300)):
    rs = [r for r in rows if d in r['path'] and r['qps'] >= lo and r['table']]
    w = max(rs, key=lambda r: abs(e(r['table_pred'], r['table'])))
    print('guard', d, bound, lo, len(rs), 'worst %+.2f' % e(w['table_pred'], w['table']), w['path'].split('/')[-1])

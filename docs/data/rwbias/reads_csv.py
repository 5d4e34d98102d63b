"""A traced run's 16 KiB reads as CSV (s, tid, who, file, page): who is conn (a client connection:
the thread called recvfrom) or innodb (the server's own threads). From trace_rec.sh's files.
    reads_csv.py OUT/NAME > NAME-reads.csv"""
import csv, sys
from split_trace import LINE

base = sys.argv[1]
pid = open(base + ".pid").read().strip()
ours = {ln.split()[1] for ln in open(base + ".threads") if ln.split()[0] == pid}
fds = {p[0]: p[1].rsplit("/", 1)[-1] for p in (ln.split() for ln in open(base + ".fds")) if len(p) == 2}
rows, conn = [], set()
for ln in open(base + ".perf"):
    m = LINE.match(ln)
    if not m or m.group(2) not in ours:
        continue
    t, tid, call, fd, count, pos = m.groups()
    if call == "recvfrom":
        conn.add(tid)
    elif count == "16384":
        rows.append((t, tid, fds.get(fd, fd), int(pos) // 16384))
w = csv.writer(sys.stdout)
w.writerow(["s", "tid", "who", "file", "page"])
t0 = float(rows[0][0]) if rows else 0.0
for t, tid, f, page in rows:
    w.writerow([f"{float(t) - t0:.6f}", tid, "conn" if tid in conn else "innodb", f, page])

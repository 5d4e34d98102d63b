"""A perf-traced run's header reads (ibdata1's rollback segment header pages) split by who read
them: the client connections (the threads that called recvfrom: the writes) or InnoDB's own
threads (purge's batches and walks); and the same for undo (other ibdata1) and table pages.
    split_trace.py OUT/NAME   (NAME.perf, NAME.threads, NAME.fds, NAME.json from trace.sh)"""
import collections, gzip, json, re, sys

# the 128 rollback segment header pages of a 10.11 ibdata1 (FIL_PAGE_TYPE_SYS in
# docs/data/mariarwwhole/strace-1-reads.csv.gz: 6, 45-63, 192-242, 244-300)
HDR = {6, *range(45, 64), *range(192, 243), *range(244, 301)}
LINE = re.compile(r"^\s*([\d.]+) \(.*?\): mariadbd/(\d+) (pread64|recvfrom)\(fd: (\d+)(?:.*?count: (\d+), pos: (\d+))?")


def split(base: str) -> dict:
    tasks = collections.defaultdict(set)
    for ln in open(base + ".threads"):
        pid, tid = ln.split()
        tasks[pid].add(tid)
    pid = open(base + ".pid").read().strip()
    ours = tasks[pid]
    fds = {}
    for ln in open(base + ".fds"):
        parts = ln.split()
        if len(parts) == 2:
            fds[parts[0]] = parts[1].rsplit("/", 1)[-1]
    conn, reads = set(), []
    for ln in open(base + ".perf"):
        m = LINE.match(ln)
        if not m or m.group(2) not in ours:
            continue
        t, tid, call, fd, count, pos = m.groups()
        if call == "recvfrom":
            conn.add(tid)
        elif count == "16384":
            reads.append((float(t), tid, fds.get(fd, fd), int(pos) // 16384))
    c = collections.Counter()
    for t, tid, f, page in reads:
        who = "conn" if tid in conn else "innodb"
        kind = ("hdr" if page in HDR else "undo/other") if f == "ibdata1" else ("table" if f.endswith(".ibd") else f)
        c[who, kind] += 1
    r = json.load(open(base + ".json"))
    bp = r["buffer_pool"]
    fl = bp["flush"]
    return {"qps": r["result"]["qps"], "batches": fl["purge_batches"], "system_pages_read": fl["system_pages_read"],
            "pages_read": bp["pages_read"], "connections": len(conn), "split": {f"{a} {b}": v for (a, b), v in sorted(c.items())}}


if __name__ == "__main__":
    for b in sys.argv[1:]:
        print(b.rsplit("/", 1)[-1], json.dumps(split(b)))

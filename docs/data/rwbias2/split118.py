"""A perf-traced MariaDB 11.8 run (trace118.sh) split as docs/data/rwbias/split_trace.py splits 10.11's:
each 16 KiB read by who made it (a connection: a thread that called recvfrom; else InnoDB's own) and
what it read: the table (.ibd), or a page of undo001..003 / ibdata1 typed by its FIL_PAGE_TYPE in the
copy taken after the run (6 SYS: a rollback segment header; 2 UNDO_LOG; 0 ALLOCATED: freed; else
fsp/inode/xdes). Also the undo pages read twice or more (per page number), and by whom.
    split118.py OUT/NAME ...   (NAME.perf, .threads, .fds, .pid, .json, NAME.undo/)"""
import collections, json, re, sys
from pathlib import Path

LINE = re.compile(r"^\s*([\d.]+) \(.*?\): mariadbd/(\d+) (pread64|recvfrom)\(fd: (\d+)(?:.*?count: (\d+), pos: (\d+))?")
TYPES = {6: "hdr", 2: "undo", 0: "freed", 3: "inode", 8: "fsp", 9: "xdes", 5: "ibuf/bitmap", 7: "trx_sys"}


def page_type(copies: Path, f: str, page: int, cache: dict) -> str:
    if f not in cache:
        p = copies / f
        cache[f] = p.read_bytes() if p.exists() else b""
    b = cache[f]
    off = page * 16384 + 24
    if off + 2 > len(b):
        return "beyond"
    return TYPES.get(int.from_bytes(b[off:off + 2], "big"), "other")


def split(base: str) -> dict:
    pid = open(base + ".pid").read().strip()
    ours = {ln.split()[1] for ln in open(base + ".threads") if ln.split()[0] == pid}
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
    r = json.load(open(base + ".json"))
    t0 = r.get("started_at")
    c, cache, seen = collections.Counter(), {}, collections.Counter()
    for t, tid, f, page in reads:
        who = "conn" if tid in conn else "innodb"
        kind = "table" if f.endswith(".ibd") else f"{f[:4]} {page_type(Path(base + '.undo'), f, page, cache)}"
        c[who, kind] += 1
        if kind.endswith("undo"):
            seen[f, page] += 1
    bp = r["buffer_pool"]
    fl = bp["flush"]
    return {"qps": r["result"]["qps"], "batches": fl["purge_batches"], "undo_pages_read": fl["undo_pages_read"],
            "undo_pages_written": fl["undo_pages_written"], "system_pages_read": fl["system_pages_read"],
            "pages_read": bp["pages_read"], "traced_reads": len(reads), "connections": len(conn),
            "undo_pages_distinct": len(seen), "undo_reads_of_pages_read_twice+": sum(v for v in seen.values() if v > 1),
            "split": {f"{a} {b}": v for (a, b), v in sorted(c.items())}}


if __name__ == "__main__":
    for b in sys.argv[1:]:
        print(b.rsplit("/", 1)[-1], json.dumps(split(b)))

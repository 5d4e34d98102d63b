"""Task 2: one `loadgen up` MariaDB 10.11 (16M, performance_schema ON), ycsb usertable seeded, ycsb-a-like
traffic (50/50 read/update, zipfian) captured from the general log, then the trace replayed N times in a row
through --dsn; predicted vs measured per file each time."""
import json, os, random, subprocess, sys, time
from pathlib import Path
import MySQLdb

HERE = Path("/work/scratch/varchar/t2")
WT = "/work/wt/varchar"
PY = "/work/main/.venv/bin/python"
ENV = {**os.environ, "PYTHONPATH": WT, "LOADGEN_CACHE_DIR": str(HERE / "cache"), "LOADGEN_STATE_DIR": str(HERE / "state")}
st = json.loads((HERE / "state/server.json").read_text())
pw = (Path(st["home"]) / "password").read_text().strip()
ENV["LOADGEN_PASSWORD"] = pw
DSN = f"mysql://root@127.0.0.1:{st['port']}/"
ROWS = int(os.environ.get("ROWS", 100_000))
OPS = int(os.environ.get("OPS", 20_000))
REPEATS = int(os.environ.get("REPEATS", 3))


def lg(*args, check=True):
    t = time.time()
    r = subprocess.run([PY, "-m", "loadgen", *args], env=ENV, capture_output=True, text=True, cwd=WT)
    print(f"$ loadgen {' '.join(args)}  ({time.time()-t:.0f}s rc={r.returncode})", flush=True)
    if check and r.returncode:
        print(r.stdout[-3000:], r.stderr[-3000:]); sys.exit(1)
    return r


def conn():
    c = MySQLdb.connect(host="127.0.0.1", port=st["port"], user="root", passwd=pw)
    c.autocommit(True)
    return c


def q(c, sql):
    cur = c.cursor(); cur.execute(sql); return cur.fetchall() if cur.description else None


def status(c):
    return {k: int(v) for k, v in q(c, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_pages_read',"
                                      "'Innodb_history_list_length','Innodb_purge_trx_id_age')")}


def files(c):
    return {r[0]: int(r[1]) for r in q(c, "SELECT FILE_NAME, COUNT_READ FROM performance_schema.file_summary_by_instance "
                                        "WHERE FILE_NAME LIKE '%ibdata%' OR FILE_NAME LIKE '%.ibd' OR FILE_NAME LIKE '%undo%'")}


phase = sys.argv[1]
if phase == "seed":
    lg("seed", "--schema", "ycsb", "--rows", str(ROWS))
    c = conn(); print(q(c, "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_NAME='usertable'"))
elif phase == "traffic":
    c = conn()
    db = q(c, "SELECT TABLE_SCHEMA FROM information_schema.TABLES WHERE TABLE_NAME='usertable'")[0][0]
    log = str(HERE / "state/server/files/general.log")
    if os.path.exists(log): os.unlink(log)
    q(c, f"SET GLOBAL general_log_file='{log}'"); q(c, "SET GLOBAL general_log=ON")
    t = conn(); cur = t.cursor(); cur.execute(f"USE {db}")
    rnd = random.Random(1)
    # zipfian-ish: keys = rows * u^3 scrambled by a multiplicative hash (hot keys spread over the table)
    t0 = time.time()
    for i in range(OPS):
        k = int(ROWS * rnd.random() ** 3)
        k = (k * 2654435761) % ROWS + 1
        if rnd.random() < 0.5:
            cur.execute(f"SELECT * FROM usertable WHERE ycsb_key = {k}"); cur.fetchall()
        else:
            cur.execute(f"UPDATE usertable SET field0 = '{'x%06d' % i}' WHERE ycsb_key = {k}")
    print(f"traffic {OPS} ops in {time.time()-t0:.1f}s")
    q(c, "SET GLOBAL general_log=OFF")
    lg("trace", "capture", "--general-log", log, "--dsn", DSN, "-o", str(HERE / "ycsba.optrace"))
elif phase == "replay":
    tag = sys.argv[2]
    c = conn()
    before_s, before_f = status(c), files(c)
    print("before:", before_s, {Path(k).name: v for k, v in before_f.items()})
    out = HERE / f"replay-{tag}.json"
    if out.exists(): out.unlink()
    r = lg("run", "--server", "dsn", "--dsn", DSN, "--trace", str(HERE / "ycsba.optrace"), "--allow-writes", "--out", str(out))
    print(r.stderr[-1500:])
    c = conn()
    after_s = status(c)
    print("after:", after_s)
    d = json.loads(out.read_text())
    p = d["prediction"]; bp = d["buffer_pool"]
    print(f"[{tag}] measured {bp['pages_read']:,} predicted {p['pages_read']:,} ({p['reads_low']:,}..{p['reads_high']:,}) "
          f"system pred {p['system_pages_read']:,} qps {p['qps']}")
    for name, t in bp["tables"].items():
        print("  table", name, t.get("file_pages_read"), "pred", p["tables"].get(name, {}).get("pages_read"), "rows_updated", t.get("rows_updated"), "salt", p["replay"].get("update_salt"))
    for k in ("files", "file_reads", "system_files"):
        if k in bp: print("  ", k, bp[k])
    print("  bp keys", list(bp.keys()))

"""ibdata1 reads after the first N autocommit updates on a freshly restarted MariaDB (performance_schema)."""
import json, random
from pathlib import Path
import MySQLdb
st = json.loads(Path("/work/scratch/varchar/t2/state/server.json").read_text())
pw = (Path(st["home"]) / "password").read_text().strip()
c = MySQLdb.connect(host="127.0.0.1", port=st["port"], user="root", passwd=pw); c.autocommit(True)
cur = c.cursor()
def reads():
    cur.execute("SELECT FILE_NAME, SUM_NUMBER_OF_BYTES_READ DIV 16384 FROM performance_schema.file_summary_by_instance "
                "WHERE FILE_NAME LIKE '%ibdata1' OR FILE_NAME LIKE '%usertable.ibd'")
    return {Path(f).name: int(n) for f, n in cur.fetchall()}
base = reads(); print("after start", base)
rnd = random.Random(3); done = 0
for n in (1, 2, 5, 10, 50, 100, 200, 500, 1000):
    while done < n:
        cur.execute(f"UPDATE chat.usertable SET field0 = 'w{rnd.random()}' WHERE ycsb_key = {rnd.randrange(1, 90000)}")
        done += 1
    r = reads(); print(n, {k: r[k] - base.get(k, 0) for k in r})

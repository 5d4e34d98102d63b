#!/bin/bash
# docs/data/rwbias/trace_rec.sh for MariaDB 11.8 in docker: perf record (16 KiB pread64 and recvfrom,
# system-wide), every mariadbd's thread ids polled from /proc every 0.1 s (the container's server
# is a host process; its pid is taken after the run from `docker top`), its open files, and the
# undo tablespaces copied out after the run so each page read can be typed (FIL_PAGE_TYPE).
# usage: trace118.sh PRESET ROWS TAG [plain]   (after `loadgen up --server docker --image loadgen/mariadb:11.8 --pool 16M`)
set -u
p=$1; rows=$2; tag=$3; plain=${4:-}
W=/work/scratch/rwbias2; O=$W/out; n=mariadb-11.8-$p-16M-$tag
export LOADGEN_CACHE_DIR=$W/cache LOADGEN_STATE_DIR=$W/state PYTHONPATH=/work/wt/rwbias2
echo "$n $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt
if [ -z "$plain" ]; then
  ( while :; do for P in $(pgrep -x mariadbd); do ls /proc/$P/task 2>/dev/null | sed "s/^/$P /"; done; sleep 0.1; done ) > $O/$n.threads &
  POLL=$!
  perf record -q -a -o $O/$n.data -e syscalls:sys_enter_pread64 --filter 'count == 16384' -e syscalls:sys_enter_recvfrom 2>/dev/null &
  PERF=$!
  sleep 1
fi
/work/main/.venv/bin/python -m loadgen run --workload $p --rows $rows --queries 20000 --seed 1 --pool 16M \
  --server docker --image loadgen/mariadb:11.8 --out $O/$n.json > $O/$n.log 2>&1 || echo "FAIL $n" >> $O/loads.txt
echo "  after $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt
[ -n "$plain" ] && exit 0
kill -INT $PERF; wait $PERF 2>/dev/null
kill $POLL; wait $POLL 2>/dev/null
C=$(python3 -c "import json,sys; print(json.load(open('$O/$n.json'))['server']['container'])")
PID=$(for P in $(pgrep -x mariadbd); do grep -q "$(docker inspect -f '{{.Id}}' $C)" /proc/$P/cgroup 2>/dev/null && echo $P; done | head -1)
[ -z "$PID" ] && PID=$(docker top $C -eo pid,comm | awk '$2=="mariadbd"{print $1}' | head -1)
ls -l /proc/$PID/fd 2>/dev/null | awk '{print $(NF-2), $NF}' > $O/$n.fds
echo "$PID" > $O/$n.pid
mkdir -p $O/$n.undo
for f in undo001 undo002 undo003 ibdata1; do docker cp -q $C:/var/lib/mysql/$f $O/$n.undo/$f 2>/dev/null || docker exec $C sh -c "cat \$(find / -name $f 2>/dev/null | head -1)" > $O/$n.undo/$f; done
# no comm filter: 11.x names its threads (perf's comm is the thread's name); the thread ids decide
perf script -i $O/$n.data -F tid,time,event,trace 2>/dev/null | awk '
  {tid=$1; t=$2; sub(":","",t); ev=$3;
    if (ev ~ /recvfrom/) { printf "%s (x): mariadbd/%s recvfrom(fd: 0)\n", t, tid }
    else { fd=""; c=""; pos="";
      for (i=4;i<=NF;i++) { if ($i=="fd:") fd=$(i+1); if ($i=="count:") c=$(i+1); if ($i=="pos:") pos=$(i+1) }
      gsub(",","",fd); gsub(",","",c); gsub(",","",pos);
      printf "%s (x): mariadbd/%s pread64(fd: %d, count: %d, pos: %d)\n", t, tid, strtonum(fd), strtonum(c), strtonum(pos) } }' > $O/$n.perf
rm -f $O/$n.data

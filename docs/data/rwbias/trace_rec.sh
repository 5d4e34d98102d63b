#!/bin/bash
# As trace.sh, with perf record's in-kernel filter (16 KiB preads only) instead of perf trace, to slow
# the run less: syscalls:sys_enter_pread64 (count 16384) and sys_enter_recvfrom, system-wide; the
# server's thread ids polled from /proc every 0.1 s. perf script then writes NAME.perf in the form
# split_trace.py reads.
# usage: trace_rec.sh PRESET ROWS TAG   (after `loadgen up --server local --pool 16M`)
set -u
p=$1; rows=$2; tag=$3
W=/work/scratch/rwbias; O=$W/out; n=$p-16M-$tag
export LOADGEN_CACHE_DIR=$W/cache LOADGEN_STATE_DIR=$W/state PYTHONPATH=/work/wt/rwbias
SOCK=$W/state/server/run/mysqld.sock
echo "$n $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt
( while :; do P=$(pgrep -f "socket=$SOCK" | head -1); [ -n "$P" ] && ls /proc/$P/task 2>/dev/null | sed "s/^/$P /"; sleep 0.1; done ) > $O/$n.threads &
POLL=$!
perf record -q -a -o $O/$n.data -e syscalls:sys_enter_pread64 --filter 'count == 16384' -e syscalls:sys_enter_recvfrom 2>/dev/null &
PERF=$!
sleep 1
/work/main/.venv/bin/python -m loadgen run --workload $p --rows $rows --queries 20000 --seed 1 --pool 16M --out $O/$n.json > $O/$n.log 2>&1 || echo "FAIL $n" >> $O/loads.txt
kill -INT $PERF; wait $PERF 2>/dev/null
kill $POLL; wait $POLL 2>/dev/null
PID=$(pgrep -f "socket=$SOCK" | head -1)
ls -l /proc/$PID/fd 2>/dev/null | awk '{print $(NF-2), $NF}' > $O/$n.fds
echo "$PID" > $O/$n.pid
echo "  after $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt
# to perf trace's line form: "T (x): mariadbd/TID call(fd: F, count: C, pos: P)"
perf script -i $O/$n.data -F comm,tid,time,event,trace 2>/dev/null | awk '
  $1=="mariadbd" {tid=$2; t=$3; sub(":","",t); ev=$4;
    if (ev ~ /recvfrom/) { printf "%s (x): mariadbd/%s recvfrom(fd: 0)\n", t, tid }
    else { fd=""; c=""; pos="";
      for (i=5;i<=NF;i++) { if ($i=="fd:") fd=$(i+1); if ($i=="count:") c=$(i+1); if ($i=="pos:") pos=$(i+1) }
      gsub(",","",fd); gsub(",","",c); gsub(",","",pos);
      printf "%s (x): mariadbd/%s pread64(fd: %d, count: %d, pos: %d)\n", t, tid, strtonum(fd), strtonum(c), strtonum(pos) } }' > $O/$n.perf
rm -f $O/$n.data

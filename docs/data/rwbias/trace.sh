#!/bin/bash
# One run traced: every pread64 of the server (perf trace -a), and the server's connection threads'
# ids: the threads that called recvfrom (the client connections; InnoDB's own threads never do), so
# header reads split by who made them: the connections (the writes) or InnoDB's own threads (purge
# and its walks). The server's thread ids are polled from /proc every 0.1 s (perf trace -a sees
# every process; another server may run beside it).
# usage: trace.sh PRESET ROWS TAG   (after `loadgen up --server local --pool 16M`)
set -u
p=$1; rows=$2; tag=$3
W=/work/scratch/rwbias; O=$W/out; n=$p-16M-$tag
export LOADGEN_CACHE_DIR=$W/cache LOADGEN_STATE_DIR=$W/state PYTHONPATH=/work/wt/rwbias
SOCK=$W/state/server/run/mysqld.sock
echo "$n $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt
( while :; do P=$(pgrep -f "socket=$SOCK" | head -1); [ -n "$P" ] && ls /proc/$P/task 2>/dev/null | sed "s/^/$P /"; sleep 0.1; done ) > $O/$n.threads &
POLL=$!
perf trace -a -e pread64,recvfrom -o $O/$n.perf 2>/dev/null &
PERF=$!
sleep 1
/work/main/.venv/bin/python -m loadgen run --workload $p --rows $rows --queries 20000 --seed 1 --pool 16M --out $O/$n.json > $O/$n.log 2>&1 || echo "FAIL $n" >> $O/loads.txt
kill -INT $PERF; wait $PERF 2>/dev/null
kill $POLL; wait $POLL 2>/dev/null
PID=$(pgrep -f "socket=$SOCK" | head -1)
ls -l /proc/$PID/fd 2>/dev/null | awk '{print $(NF-2), $NF}' > $O/$n.fds
echo "$PID" > $O/$n.pid
echo "  after $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt

#!/bin/bash
# As trace.sh, but perf traces only the server's own process: attached (-p) to the new server as soon
# as loadgen's cold restart starts it (its threads made later are followed), so the run is slowed
# less than by perf trace -a. Reads before the first recvfrom (the restart's own) are not counted by
# split_trace.py --from-first-recv.
# usage: trace_pid.sh PRESET ROWS TAG   (after `loadgen up --server local --pool 16M`)
set -u
p=$1; rows=$2; tag=$3
W=/work/scratch/rwbias; O=$W/out; n=$p-16M-$tag
export LOADGEN_CACHE_DIR=$W/cache LOADGEN_STATE_DIR=$W/state PYTHONPATH=/work/wt/rwbias
SOCK=$W/state/server/run/mysqld.sock
OLD=$(pgrep -f "socket=$SOCK" | head -1)
echo "$n $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt
/work/main/.venv/bin/python -m loadgen run --workload $p --rows $rows --queries 20000 --seed 1 --pool 16M --out $O/$n.json > $O/$n.log 2>&1 &
RUN=$!
NEW=""
for i in $(seq 1 3000); do
  NEW=$(pgrep -f "socket=$SOCK" | head -1)
  [ -n "$NEW" ] && [ "$NEW" != "$OLD" ] && break
  sleep 0.01
done
perf trace -p $NEW -e pread64,recvfrom -o $O/$n.perf 2>/dev/null &
PERF=$!
( while :; do ls /proc/$NEW/task 2>/dev/null | sed "s/^/$NEW /"; sleep 0.1; done ) > $O/$n.threads &
POLL=$!
wait $RUN || echo "FAIL $n" >> $O/loads.txt
kill -INT $PERF; wait $PERF 2>/dev/null
kill $POLL; wait $POLL 2>/dev/null
ls -l /proc/$NEW/fd 2>/dev/null | awk '{print $(NF-2), $NF}' > $O/$n.fds
echo "$NEW" > $O/$n.pid
echo "  after $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $O/loads.txt

#!/bin/bash
# fresh MariaDB 10.11 runs at CI's size after adopting the rule (session 20): plain, --driver python, python + 2 CPU burners
WORK=/work/scratch/val20
cd /work/main
export LOADGEN_CACHE_DIR=$WORK/cache LOADGEN_STATE_DIR=$WORK/state PYTHONPATH=/work/main
LG=".venv/bin/python -m loadgen"
OUT=$WORK/out
rows() { case $1 in sysbench*) echo 300k;; *) echo 50k;; esac; }
$LG up --server local --pool 16M --set performance_schema=ON > $OUT/up.log 2>&1 || { echo "FAIL up" >> $OUT/loads.txt; exit 1; }
one() { # preset tag extra-args...
  p=$1; tag=$2; shift 2
  n=$p-16M-$tag
  echo "$n $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $OUT/loads.txt
  $LG run --workload $p --rows $(rows $p) --queries 20000 --seed 1 --pool 16M "$@" --out $OUT/$n.json > $OUT/$n.log 2>&1 || echo "FAIL $n" >> $OUT/loads.txt
  echo "  after $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $OUT/loads.txt
}
for r in 1 2; do for p in ycsb-a ycsb-f sysbench-oltp-rw; do one $p plain-$r; done; done
for r in 1 2; do for p in ycsb-a ycsb-f sysbench-oltp-rw; do one $p python-$r --driver python; done; done
( nice -n 19 sh -c 'while :; do :; done' & echo $! > $WORK/b1; nice -n 19 sh -c 'while :; do :; done' & echo $! > $WORK/b2; wait ) &
sleep 1
for p in ycsb-a ycsb-f sysbench-oltp-rw; do one $p burn-1 --driver python; done
kill $(cat $WORK/b1) $(cat $WORK/b2) 2>/dev/null
$LG down >> $OUT/up.log 2>&1
echo done >> $OUT/loads.txt

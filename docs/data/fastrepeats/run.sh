#!/bin/bash
# fresh MariaDB 10.11 runs at CI's size (session 20): sysbench-oltp-rw x6, ycsb-a x3, ycsb-f x3 at 16M, interleaved
WORK=/work/scratch/rep20
cd /work/main
export LOADGEN_CACHE_DIR=$WORK/cache LOADGEN_STATE_DIR=$WORK/state PYTHONPATH=/work/main
LG=".venv/bin/python -m loadgen"
OUT=$WORK/out
rows() { case $1 in sysbench*) echo 300k;; *) echo 50k;; esac; }
$LG up --server local --pool 16M --set performance_schema=ON > $OUT/up.log 2>&1 || { echo "FAIL up" >> $OUT/loads.txt; exit 1; }
for r in 1 2 3; do for p in sysbench-oltp-rw ycsb-a sysbench-oltp-rw ycsb-f; do
  n=$p-16M-$r; [ -e $OUT/$n.json ] && n=$p-16M-$r-b
  echo "$n $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $OUT/loads.txt
  $LG run --workload $p --rows $(rows $p) --queries 20000 --seed 1 --pool 16M --out $OUT/$n.json > $OUT/$n.log 2>&1 || echo "FAIL $n" >> $OUT/loads.txt
  echo "  after $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $OUT/loads.txt
done; done
$LG down >> $OUT/up.log 2>&1
echo done >> $OUT/loads.txt

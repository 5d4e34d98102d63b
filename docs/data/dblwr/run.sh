#!/bin/bash
# fresh MySQL 9.7 runs at CI's size, to validate a model change on runs not used to choose it
# WORK: a scratch directory of the run's own (cache, state, out); run from the checkout
export LOADGEN_CACHE_DIR=$WORK/cache LOADGEN_STATE_DIR=$WORK/state PYTHONPATH=.
LG=".venv/bin/python -m loadgen"
OUT=$WORK/out
rows() { case $1 in sysbench*) echo 300k;; *) echo 50k;; esac; }
$LG up --server docker --image loadgen/mysql:9.7 --pool 16M --set performance_schema=ON || exit 1
for r in 1 2; do for p in ycsb-a ycsb-b ycsb-c ycsb-d ycsb-e ycsb-f sysbench-oltp-ro sysbench-oltp-rw; do
  echo "$p-16M-$r $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> $OUT/loads.txt
  $LG run --workload $p --rows $(rows $p) --queries 20000 --seed 1 --pool 16M --out $OUT/$p-16M-$r.json > $OUT/$p-16M-$r.log 2>&1 || echo "FAIL $p $r" >> $OUT/loads.txt
done; done
for p in ycsb-b ycsb-d ycsb-f ycsb-e; do
  $LG run --workload $p --rows 50k --queries 20000 --seed 1 --pool 128M --out $OUT/$p-128M-1.json > $OUT/$p-128M-1.log 2>&1 || echo "FAIL $p 128M" >> $OUT/loads.txt
done
$LG run --workload sysbench-oltp-ro --rows 300k --queries 20000 --seed 1 --pool 64M --out $OUT/sysbench-oltp-ro-64M-1.json > $OUT/ro64.log 2>&1
$LG down
echo done >> $OUT/loads.txt

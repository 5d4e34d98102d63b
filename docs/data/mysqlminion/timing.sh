#!/bin/sh
# The bench's own runs (bench/predict_speed.py, 30M operations, 4 pools), this branch and main
# alternating, then in-process pairs (cov.py, salt 0) with and without the _purged_writes_per_txn fix.
# Run from the branch's worktree: sh docs/data/mysqlminion/timing.sh > docs/data/mysqlminion/timing.txt
PY=/work/main/.venv/bin/python
PB=/tmp/lg-mysqlminion/pb
D=docs/data/mysqlminion
for round in 1 2; do
  for side in branch main; do
    for fl in mysql mariadb; do
      [ $side = main ] && [ $round = 2 ] && [ $fl = mysql ] && continue  # main's exact MySQL: once
      root=$PWD; [ $side = main ] && root=/work/main
      echo "## $(date -u +%H:%M:%S) $side $fl load $(cut -d' ' -f1 /proc/loadavg)"
      $PY $root/bench/predict_speed.py --ops 30000000 --dir $PB --keep --flavor $fl
    done
  done
done
for round in 1 2; do
  for patch in "" $D/p_unique.py; do
    echo "## $(date -u +%H:%M:%S) in-process mysql PATCH=$patch load $(cut -d' ' -f1 /proc/loadavg)"
    PATCH=$patch FLAVOR=mysql EXACT=40264189,36677007,28822297,7426154 /usr/bin/time -f "%e s wall %U user %S sys %M KiB" $PY $D/cov.py . $PB 30000000 0 2>&1 | cut -c1-110
  done
  echo "## $(date -u +%H:%M:%S) in-process mariadb load $(cut -d' ' -f1 /proc/loadavg)"
  FLAVOR=mariadb EXACT=39549485,36689819,28649270,7645278 /usr/bin/time -f "%e s wall %U user %S sys %M KiB" $PY $D/cov.py . $PB 30000000 0 2>&1 | cut -c1-110
done

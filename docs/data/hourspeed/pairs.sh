#!/bin/sh
# Alternating pairs of bench/predict_speed.py --flavor both (MariaDB then MySQL) on the same 30M trace:
# pairs.sh N FIRST SECOND (trees; each runs its own bench copy and loadgen). Load at start and end.
n=$1; a=$2; b=$3
export LOADGEN_CACHE_DIR=/tmp/lg-hourspeed/cache LOADGEN_STATE_DIR=/tmp/lg-hourspeed/state
for i in $(seq 1 "$n"); do
  for t in "$a" "$b"; do
    echo "== pair $i tree $t $(git -C "$t" rev-parse --short HEAD) $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    (cd "$t" && /work/main/.venv/bin/python bench/predict_speed.py --ops 30000000 --rows 10000000 \
       --dir /tmp/lg-mysqlminion/pb --keep --flavor both 2>&1)
    echo "== end $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done

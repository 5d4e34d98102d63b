#!/bin/bash
# alternating before/now runs of bench/predict_speed.py on the same trace; load at start and end
export LOADGEN_CACHE_DIR=/work/scratch/simspeed/cache LOADGEN_STATE_DIR=/work/scratch/simspeed/state
N=${1:-4}; OPS=${2:-30000000}; DIR=/work/scratch/simspeed/pb$((OPS/1000000)); START=${3:-1}
for p in $(seq $START $((START + N - 1))); do
  if [ $((p % 2)) = 1 ]; then order="now before"; else order="before now"; fi
  for v in $order; do
    if [ $v = now ]; then T=/work/wt/simspeed; else T=/work/scratch/simspeed/before; fi
    l0=$(cut -d' ' -f1 /proc/loadavg)
    out=$(cd $T && /work/main/.venv/bin/python bench/predict_speed.py --ops $OPS --rows 10000000 --dir $DIR --keep 2>&1)
    l1=$(cut -d' ' -f1 /proc/loadavg)
    echo "pair $p $v load $l0-$l1 $(date +%H:%M:%S)"; echo "$out"
  done
done

#!/bin/sh
# The pinned reads' fast path (mix.c mix_feed_squeezed) against the tree before it (BASE: HEAD before,
# built in place), in-process cov.py at 30M, salt 0, alternating; the same pages expected.
PY=/work/main/.venv/bin/python
PB=/tmp/lg-mysqlminion/pb
BASE=${BASE:-/tmp/lg-mysqlminion/base}
for round in 1 2 3; do
  for fl in mysql mariadb; do
    for tree in $BASE .; do
      echo "## $(date -u +%H:%M:%S) $tree $fl load $(cut -d' ' -f1 /proc/loadavg)"
      FLAVOR=$fl EXACT=1,1,1,1 /usr/bin/time -f "%e s wall %U user %S sys %M KiB" $PY $tree/docs/data/mysqlminion/cov.py $tree $PB 30000000 0 2>&1 | cut -c1-400 | grep -v "^#"
    done
  done
done

#!/usr/bin/env bash
# Gate a schema change on what it does to the buffer pool under both access orders.
#
# Runs the interleaved (A) and looped (B) orders on the base schema and on the changed one, each
# from a cold pool, then compares them; exits 3 when a gated metric got worse by more than
# MAX_REGRESSION, and leaves a markdown summary a CI job can post as a comment.
# Reads (misses) are gated by default: unlike latency they do not depend on how busy the CI
# machine is.
set -uo pipefail

LOADGEN=${LOADGEN:-loadgen}
BASE_SCHEMA=${BASE_SCHEMA:-chat}
NEW_SCHEMA=${NEW_SCHEMA:-chat_wide}
ROWS=${ROWS:-200k}
POOL=${POOL:-8M}
SERVER=${SERVER:-local}
MAX_REGRESSION=${MAX_REGRESSION:-pages_read=10%}
OUT=${OUT:-loadgen-gate}

mkdir -p "$OUT/base" "$OUT/new"
for variation in A B; do
  for side in base new; do
    schema=$BASE_SCHEMA
    [ "$side" = new ] && schema=$NEW_SCHEMA
    $LOADGEN run --server "$SERVER" --schema "$schema" --variation "$variation" --pool "$POOL" \
      --rows "$ROWS" --out "$OUT/$side/$variation.json" >/dev/null || exit $?
  done
done

$LOADGEN compare "$OUT/base" "$OUT/new" --max-regression "$MAX_REGRESSION" --format markdown >"$OUT/comment.md"
status=$?
cat "$OUT/comment.md"
exit $status

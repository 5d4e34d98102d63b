#!/bin/sh
# Branch rwbias5 (2026-12-01): undocap.settle applied to every capped run, with a skipped read-back
# leaving out only the log's undo page (the segment header and freed-page refs in the same row kept).
# From the checkout's root with model.patch applied (git apply docs/data/rwbias5/model.patch on main
# of 1 December 2026), the lead's venv. No server was started: the runs are the stored ones.
set -e
PY=${PY:-/work/main/.venv/bin/python}
OUT=${OUT:-/tmp/rwbias5}
D=docs/data/rwbias5
mkdir -p "$OUT"
PYTHONPATH=$PWD $PY bench/rate_bands.py docs/data --json "$OUT/new-all-runs.json" > "$OUT/bands-new.txt"
zcat docs/data/rwbias2/main-all-runs.json.gz > "$OUT/main.json"
zcat docs/data/rwbias4/new-all-runs.json.gz > "$OUT/rwbias4.json"
$PY bench/rate_bands.py --compare "$OUT/main.json" "$OUT/new-all-runs.json" > "$OUT/compare-main.txt"
$PY bench/rate_bands.py --compare "$OUT/rwbias4.json" "$OUT/new-all-runs.json" > "$OUT/compare-rwbias4.txt"
$PY bench/rate_bands.py --compare "$OUT/main.json" "$OUT/rwbias4.json" > "$OUT/compare-main-rwbias4.txt"
# the MariaDB 16M ycsb-a/f and sysbench-oltp-rw runs at 20,000 operations from 350 q/s (207): the model's
# parts (table, rseg headers, undo raw / cap / cut, skip share) beside the server's page-type counters
PYTHONPATH=$PWD $PY $D/probe.py "$OUT/probe-new.json"
# experiments (experiments.patch on top of model.patch: environment switches, not for use)
#   RWB5_OFF=1   no second simulation (rwbias4's (1) and the cap after the simulation only): probe-off
#   RWB5_HELD=1  settle only the over-cap reads within the server's undo writes: probe-held, and
#                rate_bands --json held-all-runs.json, compare-main-held.txt
# probe-rwbias4 / probe-rwbias4-everywhere: docs/data/rwbias4/model.patch as it is, and the same with
# undocap.settle's tree_work argument forced True (every capped run; the probe's spy then took the
# rwbias4 signature settle(traced, space, cap, tree_work)).
$PY $D/show.py off=$OUT/probe-off.json rwbias4=$OUT/probe-rwbias4.json \
    rwb4-everywhere=$OUT/probe-rwbias4-everywhere.json new=$OUT/probe-new.json held=$OUT/probe-held.json > "$OUT/parts.txt"
$PY $D/bandtable.py rwbias4="$OUT/compare-main-rwbias4.txt" new="$OUT/compare-main.txt" \
    held="$OUT/compare-main-held.txt" > "$OUT/bandtable.txt"
PYTHONPATH=$PWD $PY $D/heldframes.py > "$OUT/heldframes.txt"  # the table's reads per frame of LRU length, 6 runs a cell

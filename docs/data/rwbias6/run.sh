#!/bin/sh
# Branch rwbias6 (2026-12-01): rwbias4's header rule after the wake's first batch and rwbias3's undo cap,
# without a second simulation (the chosen candidate), against main and against the "held" candidate.
# From the branch's checkout root, the lead's venv. No server was started: the runs are the stored ones.
# MAIN: a checkout of main (5ada26b) with its extension built, for the main-*.txt files.
set -e
PY=${PY:-/work/main/.venv/bin/python}
OUT=${OUT:-/tmp/rwbias6}
MAIN=${MAIN:-/work/wt/rwbias6-main}
D=$PWD/docs/data/rwbias6
mkdir -p "$OUT"
# every stored run predicted: this branch, main, and the held candidate (experiments.patch, RWB6=held)
PYTHONPATH=$PWD $PY bench/rate_bands.py docs/data --json "$OUT/new-all-runs.json" --jobs 2 > "$OUT/bands-new.txt"
(cd "$MAIN" && PYTHONPATH=$PWD $PY bench/rate_bands.py docs/data --json "$OUT/main-all-runs.json" --jobs 2 > "$OUT/bands-main.txt")
zcat docs/data/rwbias2/main-all-runs.json.gz > "$OUT/old-main.json"
$PY bench/rate_bands.py --compare "$OUT/old-main.json" "$OUT/main-all-runs.json"   # "No cell moved"
$PY bench/rate_bands.py --compare "$OUT/main-all-runs.json" "$OUT/new-all-runs.json" > "$OUT/compare-main-new.txt"
# the slow-run table guards and the repeat cells (one line a run), and the table's split by index and level
PYTHONPATH=$PWD $PY $D/guards.py > "$OUT/guards-new.txt"
(cd "$MAIN" && PYTHONPATH=$PWD $PY $D/guards.py > "$OUT/guards-main.txt")
R=$PWD/docs/data/rwk1/mariadb-10.11-sysbench-oltp-rw-16M; S=$PWD/docs/data/slowmaria/mariadb-10.11-sysbench-oltp-rw-16M
RUNS="$R-v1-5.json.gz $R-v2-4.json.gz $R-v1-6.json.gz $R-v2-3.json.gz $R-v1-1.json.gz $R-v4-1.json.gz $S-slow-1.json.gz $S-slow3-6.json.gz"
PYTHONPATH=$PWD $PY $D/split.py $RUNS > "$OUT/split-new.txt"
(cd "$MAIN" && PYTHONPATH=$PWD $PY $D/split.py $RUNS > "$OUT/split-main.txt")
# against the means of repeated runs: docs/data/repeats, and the sixteen 10.11 runs of ratevalid, fastrepeats, rwbias
A="docs/data/ratevalid/mariadb-10.11 docs/data/fastrepeats/mariadb-10.11 docs/data/rwbias/runs"
PYTHONPATH=$PWD $PY bench/whole_repeat.py > "$OUT/repeat-new.txt"
PYTHONPATH=$PWD $PY bench/whole_repeat.py $A --minq 350 > "$OUT/sixteen-new.txt"
(cd "$MAIN" && PYTHONPATH=$PWD $PY bench/whole_repeat.py > "$OUT/repeat-main.txt")
(cd "$MAIN" && PYTHONPATH=$PWD $PY bench/whole_repeat.py $(for a in $A; do echo "$OLDPWD/$a"; done) --minq 350 > "$OUT/sixteen-main.txt")
# the held candidate: settle (rwbias5's second simulation, without the read-backs over the cap) only up
# to the server's undo pages written. git apply docs/data/rwbias6/experiments.patch, then
#   RWB6=held  bench/rate_bands.py ... held-all-runs.json (bands-held.txt), guards.py (guards-held.txt)
#   RWB6=off   the same as this branch (checked: "No cell moved")
# $PY bench/rate_bands.py --compare "$OUT/main-all-runs.json" "$OUT/held-all-runs.json" > "$OUT/compare-main-held.txt"

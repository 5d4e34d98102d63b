#!/bin/sh
# Branch rwbias4 (2026-12-01): the header rule's walks after the wake's later batches only
# (purgewalks.Sweeps.after_trees) and the undo cap inside the simulation where purge works in a
# secondary index (undocap.settle), against every stored run. From the checkout's root, with the lead's
# venv. No server was started: the runs are the stored ones.
set -e
PY=${PY:-/work/main/.venv/bin/python}
OUT=${OUT:-/tmp/rwbias4}
mkdir -p "$OUT"
PYTHONPATH=$PWD $PY bench/rate_bands.py docs/data --json "$OUT/new-all-runs.json" > "$OUT/bands-new.txt"
zcat docs/data/rwbias2/main-all-runs.json.gz > "$OUT/main.json"
zcat docs/data/rwbias3/new-all-runs.json.gz > "$OUT/rwbias3.json"
$PY bench/rate_bands.py --compare "$OUT/main.json" "$OUT/new-all-runs.json" > "$OUT/compare-main.txt"
$PY bench/rate_bands.py --compare "$OUT/rwbias3.json" "$OUT/new-all-runs.json" > "$OUT/compare-rwbias3.txt"
# the MariaDB sysbench-oltp-rw 16M runs at 20,000 operations: bands by q/s, the table, the headers,
# and the guarded runs (subset.py predicts them, show.py prints subset-*.txt)
PYTHONPATH=$PWD $PY docs/data/rwbias4/subset.py "$OUT/subset.json"
$PY docs/data/rwbias4/show.py "$OUT/subset.json" > "$OUT/subset-new.txt"
# The other subset-*.txt came from rwbias3's code with experiments.patch applied (environment switches,
# for the experiment only): RWB4=op (rwbias3 as it is: subset-rwbias3.txt), RWB4_NOWALK=1 RWB4=op (no
# once-a-second walk where purge does tree work: subset-nowalk.txt), RWB4=thin (this branch's header
# change alone: subset-thin-only.txt), RWB4=op RWB4_2PASS=3 (the cap in the simulation alone:
# subset-settle-only.txt); also RWB4=all / bend / time, RWB4_S=0.3..1.0 (docs/workloads-lab.md).

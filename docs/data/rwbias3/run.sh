#!/bin/sh
# Branch rwbias3 (2026-12-01): the header rule (docs/data/rwbias2/tree-header.patch, applied) and the
# undo cap's bound by the logs purge went through (loadgen/analysis/undocap.py), against every stored run.
# From the checkout's root, with the lead's venv. No server was started: the runs are the stored ones.
set -e
PY=${PY:-/work/main/.venv/bin/python}
OUT=${OUT:-/tmp/rwbias3}
mkdir -p "$OUT"
PYTHONPATH=$PWD $PY bench/rate_bands.py docs/data --json "$OUT/new-all-runs.json" > "$OUT/bands-new.txt"
zcat docs/data/rwbias2/main-all-runs.json.gz > "$OUT/main.json"
zcat docs/data/rwbias2/rule-all-runs.json.gz > "$OUT/rule.json"
$PY bench/rate_bands.py --compare "$OUT/main.json" "$OUT/new-all-runs.json" > "$OUT/compare-main.txt"
$PY bench/rate_bands.py --compare "$OUT/rule.json" "$OUT/new-all-runs.json" > "$OUT/compare-rule.txt"
# the servers' undo counters a log and the fit of the cap's two terms (stored runs only)
$PY docs/data/rwbias3/readback.py > "$OUT/readback.txt"
# the cap's terms tried on the rule's stored predictions without the model (offline: pred less what
# the new cap cuts): 1,0.5  1,0.57  1.03,0.5
$PY docs/data/rwbias3/offline_cap.py 1,0.5 1,0.57 1.03,0.5 > "$OUT/offline.txt"

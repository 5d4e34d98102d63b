#!/usr/bin/env python3
"""Issue #11: the seed's pagez effect on its own terms, B=(20,4) slower than A=(80,1) because B
reads its pages back from a swap file on disk (root).

Runs `loadgen native pagez-compare` (the defaults: 1:64, memory limit 256 MiB, a swap file loadgen
makes) --runs times, and summarises result files: one line per round (A and B of one round run
back to back in one sandbox), then, last, the median B/A with its spread. Existing result files
can be summarised instead of running: `pagez_disk_swap.py --from r1.json r2.json`.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, say, spread


def rounds(doc: dict) -> list[dict]:
    """Per round: A and B seconds and B's major faults and swap-ins."""
    by_round: dict[int, dict] = {}
    for run in doc["passes"]:
        by_round.setdefault(run["repeat"], {})[run["variant"]] = run
    return [r for _, r in sorted(by_round.items()) if "A" in r and "B" in r]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="pagez-compare invocations")
    ap.add_argument("--swap", default="auto", help="--swap of pagez-compare (auto: a file)")
    ap.add_argument("--from", dest="files", nargs="*", type=Path, help="summarise these instead")
    args = ap.parse_args()

    files = args.files or []
    if not files:
        out_dir = Path(tempfile.mkdtemp(prefix="loadgen-bench-pagez-"))
        for i in range(1, args.runs + 1):
            out = out_dir / f"cmp{i}.json"
            proc = subprocess.run([sys.executable, "-m", "loadgen", "native", "pagez-compare",
                                   "--swap", args.swap, "--out", str(out)], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"pagez-compare failed: {proc.stderr.strip()}")
            files.append(out)

    ratios, a_s, b_s = [], [], []
    for f in files:
        doc = json.loads(f.read_text())
        say(f"{f.name}: swap {doc['sandbox']['swap_kind']}, limit "
            f"{doc['params']['memory_limit'] >> 20} MiB, chunk {doc['params']['chunk_size'] >> 20} "
            f"MiB, warnings: {doc.get('warnings') or 'none'}")
        for r in rounds(doc):
            a, b = r["A"], r["B"]
            ratios.append(b["seconds"] / a["seconds"])
            a_s.append(a["seconds"])
            b_s.append(b["seconds"])
            say(f"  round {a['repeat']}: A {a['seconds']:.2f} s, B {b['seconds']:.2f} s, "
                f"B/A {ratios[-1]:.2f}; B major faults {b['major_faults']:,}, swap-ins "
                f"{b['swap_ins']:,} ({b['swap_ins_source']}); A major faults {a['major_faults']:,}")
    say(f"A seconds: {spread(a_s)}")
    say(f"B seconds: {spread(b_s)}")
    say(f"B/A: {spread(ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""buildprof with PlacedWalks off (argv[3] == 'off': the walks built as before, then put)."""
import sys
sys.path.insert(0, "/work/wt/tracespeed7")
from loadgen.analysis import tracemodel, mixpages as mp
if sys.argv[3] == "off":
    tracemodel.PlacedWalks.of = classmethod(lambda cls, tree, lo, hi: mp.walks(tree, lo, hi))
sys.argv = sys.argv[:3]
exec(open("/work/scratch/tracespeed7/buildprof.py").read())

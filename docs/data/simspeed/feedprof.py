"""Thread CPU of each group's feed_with at 30M (the bench's trace), and the references dropped."""
import sys, time, json
from loadgen import native
from loadgen.analysis import tracesim
stats = {}
orig = getattr(native.MixStream, "feed_with", None)
def timed(self, others, pages, flags):
    t0 = time.thread_time()
    d = orig(self, others, pages, flags)
    k = len(others) + 1
    s = stats.setdefault(k, [0.0, 0, 0])
    s[0] += time.thread_time() - t0; s[1] += d; s[2] += len(pages)
    return d
native.MixStream.feed_with = timed
origfeed = native.MixStream.feed
def tfeed(self, pages, flags):
    t0 = time.thread_time(); origfeed(self, pages, flags)
    s = stats.setdefault('exact', [0.0, 0, 0]); s[0] += time.thread_time() - t0; s[2] += len(pages)
native.MixStream.feed = tfeed
from loadgen.__main__ import main
sys.argv = ["loadgen", "predict", "--trace", sys.argv[1], "--schema", sys.argv[2], "--rows", "10000000",
            "--pool", "64M,256M,1G,4G", "--format", "json"]
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print({k: (round(v[0], 2), v[1], v[2]) for k, v in stats.items()}, file=sys.stderr)

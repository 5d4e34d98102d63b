# The thread CPU time of the miniatures' group feeds (native.MixStream.feed_with), printed at exit:
# the kernel's share, measured in the thread that ran it (other processes' load does not count).
import atexit
import threading
import time

from loadgen import native as _native

_spent = [0.0]
_lock = threading.Lock()
_orig = _native.MixStream.feed_with


def _timed(self, others, pages, flags):
    t0 = time.thread_time()
    got = _orig(self, others, pages, flags)
    with _lock:
        _spent[0] += time.thread_time() - t0
    return got


_native.MixStream.feed_with = _timed
atexit.register(lambda: print(f"# feed_with thread CPU {_spent[0]:.2f} s", flush=True))

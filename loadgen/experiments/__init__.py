"""OS-level memory experiments behind ``loadgen native``: first-touch memset, lazy mapping,
allocate-and-touch (firsttouch.py) and the seed's pagez with and without a memory limit
(pagez.py). Measurements run in a child process (sandbox.py), under a memory cgroup (memcg.py)
with zram swap (zram.py) when asked. Nothing here imports click or rich.
"""

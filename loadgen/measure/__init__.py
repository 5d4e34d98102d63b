"""What is read from the server and the host while a run goes on.

  histogram.py   latencies in bounded memory
  sampler.py     SHOW GLOBAL STATUS deltas: the buffer pool's counters over time
  tablestats.py  the queried table's own reads (performance_schema)
  hostload.py    the host's load and CPU steal around a run
  cleaner.py     MySQL's page-cleaner LRU batches as they happen
  coldstart.py   whether a run starts cold, from the pool's contents
"""

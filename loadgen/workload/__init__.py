"""What is queried, in which order: the keys a run sends, as lazy streams.

  orders.py    Workload: the access order (interleaved, looped, sequential, random, the key
               distributions, a trace) and its ids
  patterns.py  zipfian, hotspot, latest, uniform key streams (YCSB)
  trace.py     trace files: the keys to query, in their order
  capture.py   a trace from what a server logged (slow log, general log, performance_schema)
"""

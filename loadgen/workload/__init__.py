"""What is queried, in which order: the keys a run sends, as lazy streams, and mixes of them.

  orders.py    Workload: the access order (interleaved, looped, sequential, random, the key
               distributions, a trace) and its ids
  patterns.py  zipfian, hotspot, latest, uniform key streams (YCSB)
  trace.py     trace files: the keys to query, in their order
  capture.py   a trace from what a server logged (slow log, general log, performance_schema)
  mix.py       a workload file: streams of operations over several tables, checked; opstream.py
               the op stream it makes (op i a function of seed and i); presets.py the built-in
               ones (YCSB A-F, sysbench OLTP); statements.py each stream's SQL; tabledefs.py a schema
               file's columns and indexes before a server exists
"""

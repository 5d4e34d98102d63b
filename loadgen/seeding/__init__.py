"""The table a run queries, made or found: what a server holds before the first query.

  dataset.py    chat.message, the seed's own table: schema/, the cache key, seeding and resuming
  chatrows.py   chat.message's deterministic rows, a chunk at a time
  schemas.py    a user's schema file: its statements, its tables, what the server made of them
  ddl.py        which statements a schema file may hold, judged before any server starts
  tablegen.py   deterministic rows for any table, from its column types
  chunks.py     the seeding pipeline: the next chunk generated while the server loads one
  usertable.py  your own table: a schema file's table seeded, an existing one inspected
  userquery.py  --query and --key-column: the statement each access runs, checked; its index
  tableinfo.py  what is read of the queried table before a run: key range, leaves, stale statistics
  height.py     a B-tree's height, measured as page gets per warm select, and its plausible bounds
  mixseed.py    a mix's tables (run --workload): seeded, reused or seeded again, their geometry
"""

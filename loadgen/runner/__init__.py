"""A run end to end: provision, seed (or reuse), start cold, drive, sample, write the result.

  single.py   one access order per workload on one table (run, compare and sweep share its
              run_pools, the one run loop)
  mix.py      a --workload mix of streams over several tables
  mixseed.py  a mix's tables: seeded, reused or seeded again, their geometry (the seeding
              package's pieces, put together for a workload's spec)
"""

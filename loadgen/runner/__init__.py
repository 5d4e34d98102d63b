"""A run end to end: provision, seed (or reuse), start cold, drive, sample, write the result.

single.py runs one access order per workload on one table (run, compare and sweep share its
run_pools); mix.py runs a --workload mix of streams over several tables (its tables: seeding/mixseed.py).
"""

"""What loadgen makes of measurements: the InnoDB LRU model (model.py, over geometry.py, pool.py,
predictions.py and lru_reference.py), the comparison of result files (compare.py) and the
pool-size sweep (sweep.py). Nothing here renders: report.py and plots.py do."""

"""What loadgen makes of measurements: the InnoDB LRU model (model.py, over geometry.py, pool.py,
predictions.py and lru_reference.py) and the pool-size sweep (sweep.py). The comparison of result
files is results/compare.py's; nothing here renders: render/ does."""

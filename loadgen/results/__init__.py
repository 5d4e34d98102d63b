"""The result files: what they hold, how they are written and read, how two of them compare.

  documents.py  RunResult, SweepResult, NativeResult, Prediction; load() by kind; the headline
  blocks.py     a run's blocks as types (ServerBlock, BufferPoolBlock, ...) over the file's own keys
  files.py      writing them: atomically, shared or private, under names that never overwrite
  compare.py    comparisons between runs as data: A/B, BASE/NEW and the CI gate's thresholds
"""

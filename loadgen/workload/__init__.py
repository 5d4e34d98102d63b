"""What is run: mixes of streams over several tables (mix.py) and the built-in ones (presets.py)."""

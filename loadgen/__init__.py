"""loadgen: drive explicit access orders against an InnoDB buffer pool and measure it."""

# the one place the version is written: pyproject.toml reads it from here (dynamic)
__version__ = "0.1.0"

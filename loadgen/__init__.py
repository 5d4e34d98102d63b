"""loadgen: drive explicit access orders against an InnoDB buffer pool and measure it."""

__version__ = "0.1.0"

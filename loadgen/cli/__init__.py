"""The click layer: parse options, call one core function, render what it returns.

Core modules never import click or rich; everything the user sees is decided here. This module
holds the group and registers the command families, one module each: run.py (run, compare, seed,
up, status, down), analysis.py (predict, sweep, report), native.py, image.py. options.py holds
what they share; nothing in cli/ imports this module back.
"""
from __future__ import annotations

import click

from .. import __version__
from .analysis import advise, predict, report, sweep
from .image import image
from .native import native
from .run import compare, down, run, seed, status, up
from .trace import trace


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="loadgen")
def cli() -> None:
    """Provision a MySQL/MariaDB server with a chosen buffer pool, drive an access order against
    it, sample the buffer pool while it runs, and report hits, misses and latency.

    Exit codes: 0 ok, 1 error, 2 usage error, 3 regression threshold exceeded, 130 interrupted.
    """


for _command in (run, compare, seed, up, status, down, predict, advise, sweep, report, native, image, trace):
    cli.add_command(_command)

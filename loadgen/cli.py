"""The click layer: parse options, call one core function, render what it returns."""
from __future__ import annotations

import click

from . import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="loadgen")
def cli() -> None:
    """Provision a MySQL/MariaDB server with a chosen buffer pool, drive an access order against
    it, sample the buffer pool while it runs, and report hits, misses and latency.

    Exit codes: 0 ok, 1 error, 2 usage error, 3 regression threshold exceeded, 130 interrupted.
    """


def _register_subgroups() -> None:
    # Sub-groups live in their own modules so each topic stays small.
    from .cli_native import native

    cli.add_command(native)


_register_subgroups()

"""`loadgen native ...`: the OS-level companion experiments (owned by the native-module work)."""
from __future__ import annotations

import click


@click.group()
def native() -> None:
    """OS-level experiments: pagez, first-touch memset, lazy mapping, allocate-and-touch."""

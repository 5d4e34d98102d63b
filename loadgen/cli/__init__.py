"""The click layer: parse options, call one core function, render what it returns.

Core modules never import click or rich; everything the user sees is decided here. This module
holds the group and registers the command families, one module each: run.py (run, compare, seed,
up, status, down), analysis.py (predict, sweep, report), native.py, image.py, shape.py (clone-shape). options.py holds
what they share; nothing in cli/ imports this module back.
"""
from __future__ import annotations

import click

from .. import __version__
from .analysis import advise, predict, report, sweep
from .image import image
from .native import native
from .run import compare, down, run, seed, status, up
from .shape import clone_shape
from .trace import trace


# Every environment variable loadgen reads (tests/unit/test_help.py greps the code for them and
# fails on one missing here), shown at the end of `loadgen --help`.
ENVIRONMENT = [
    ("LOADGEN_CACHE_DIR", "Seeded datasets, their servers' datadirs and password files, results that could "
                          "not be written where asked. [default: ~/.cache/loadgen; as root /var/cache/loadgen]"),
    ("LOADGEN_STATE_DIR", "The server kept up by `loadgen up` belongs to this directory; a run uses that "
                          "server only when it shares the directory. [default: under LOADGEN_CACHE_DIR when "
                          "only that is set; else ~/.local/state/loadgen; as root /var/lib/loadgen]"),
    ("LOADGEN_PASSWORD", "The password of the --dsn user when the URL has none (never printed)."),
    ("LOADGEN_LOCK_WAIT_S", "Seconds to wait for a datadir or the up server another command holds. [default: 1800]"),
    ("LOADGEN_DOCKER_ENDPOINT", "unix_socket, bridge or published_port: how to reach a container. "
                                "[default: the fastest that answers]"),
    ("LOADGEN_MYSQLD_SEARCH_PATH", "Where to look for mariadbd/mysqld instead of PATH and the sbin directories."),
    ("LOADGEN_SWAP_DIR", "`native --swap file`: the one directory to make the swap file in. "
                         "[default: the cache directory, else /var/tmp]"),
    ("LOADGEN_NATIVE_SO", "Load the C extension from this file (e.g. a sanitizer build, `make sanitize`)."),
    ("LOADGEN_NATIVE_DEBUG", "Set: the C extension prints debug lines on stderr."),
    ("XDG_CACHE_HOME, XDG_STATE_HOME",
     "Where the cache and state directories go when the variables above are not set."),
    ("DOCKER_HOST", "The docker engine for --server docker and `image build`, as for the docker CLI."),
]


def _epilog() -> str:
    # \b keeps click from re-wrapping the list into one paragraph
    lines = ["\b", "Environment:"]
    for name, text in ENVIRONMENT:
        lines.append(f"  {name}")
        words, line = text.split(), "      "
        for word in words:
            if len(line) + len(word) > 96:
                lines.append(line.rstrip())
                line = "      "
            line += word + " "
        lines.append(line.rstrip())
    return "\n".join(lines)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}, epilog=_epilog())
@click.version_option(__version__, prog_name="loadgen")
def cli() -> None:
    """Provision a MySQL/MariaDB server with a chosen buffer pool, drive an access order against
    it, sample the buffer pool while it runs, and report hits, misses and latency.

    Exit codes: 0 ok, 1 error, 2 usage error, 3 regression threshold exceeded, 130 interrupted.
    """


for _command in (run, compare, seed, up, status, down, predict, advise, sweep, report, native, image, trace,
                 clone_shape):
    cli.add_command(_command)

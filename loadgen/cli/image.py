"""`loadgen image build`: the offline MariaDB/MySQL images for hosts with Docker but no registry.

Thin click layer over loadgen.servers.image: progress on stderr, one summary line on stdout.
"""
from __future__ import annotations

import click

from ..servers.image import DEFAULT_TAG


@click.group()
def image() -> None:
    """Container images for --server docker."""


@image.command()
@click.option("--flavor", type=click.Choice(["mariadb", "mysql"]), default="mariadb", show_default=True,
              help="mariadb: the host release's MariaDB; mysql: Oracle MySQL from Debian sid.")
@click.option("--tag", default=None,
              help=f"Name:tag of the image to build. [default: {DEFAULT_TAG}, or loadgen/mysql:<major.minor>]")
@click.option("--force", is_flag=True, help="Rebuild even if the tag exists already.")
def build(flavor: str, tag: str | None, force: bool) -> None:
    """Build a MariaDB or MySQL image from Debian packages (mmdebstrap + docker import).

    Uses the host's apt sources (for mysql: the same mirrors, suite sid), so it works where no
    image registry is reachable. An existing image with the same tag is reused unless --force.
    Use it with `loadgen run --server docker --image TAG`.
    """
    from rich.console import Console

    from ..servers.image import build as build_image
    from ..units import format_bytes

    console = Console(stderr=True)
    built = build_image(tag, force=force, flavor=flavor,
                        progress=lambda line: console.print(f"[dim]{line}[/]", highlight=False))
    how = "already present, reused" if built.reused else f"built in {built.build_s:.1f} s"
    click.echo(f"{built.tag}: {built.flavor} {built.version} ({built.package_version}), "
               f"{format_bytes(built.size_bytes)}, {how}")

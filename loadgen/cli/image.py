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
@click.option("--release", default=None, metavar="CODENAME",
              help="Debian/Ubuntu release to take the packages from, on the host's mirrors "
                   "(trixie: MariaDB 11.8). [default: the host's own for mariadb, sid for mysql]")
@click.option("--tag", default=None,
              help=f"Name:tag of the image to build. [default: <repository>:<major.minor> of the version "
                   f"the build gets, e.g. {DEFAULT_TAG}, loadgen/mariadb:11.8, loadgen/mysql:9.7]")
@click.option("--force", is_flag=True, help="Rebuild even if the image exists already.")
def build(flavor: str, release: str | None, tag: str | None, force: bool) -> None:
    """Build a MariaDB or MySQL image from Debian packages (mmdebstrap + docker import).

    Uses the host's apt sources (for another release, e.g. mysql's sid or --release trixie: the
    same mirrors and keys, pointed at that release), so it works where no image registry is
    reachable. An existing image with the same tag (without --tag: of the same flavour and
    release) is reused unless --force. Use it with `loadgen run --server docker --image TAG`.
    """
    from rich.console import Console

    from ..servers.image import build as build_image
    from ..units import format_bytes

    console = Console(stderr=True)
    built = build_image(tag, force=force, flavor=flavor, release=release,
                        progress=lambda line: console.print(f"[dim]{line}[/]", highlight=False))
    how = "already present, reused" if built.reused else f"built in {built.build_s:.1f} s"
    click.echo(f"{built.tag}: {built.flavor} {built.version} ({built.package_version}, {built.release}), "
               f"{format_bytes(built.size_bytes)}, {how}")

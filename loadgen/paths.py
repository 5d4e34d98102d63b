"""Where loadgen keeps cached datasets and the state of a server kept up between commands."""
from __future__ import annotations

import os
from pathlib import Path


# As root, the server runs as the unprivileged `mysql` user, which cannot enter /root (0700):
# root's defaults are system directories it can reach.
ROOT_CACHE_DIR = Path("/var/cache/loadgen")
ROOT_STATE_DIR = Path("/var/lib/loadgen")


def cache_dir() -> Path:
    """$LOADGEN_CACHE_DIR, else $XDG_CACHE_HOME/loadgen, else ~/.cache/loadgen (root:
    /var/cache/loadgen)."""
    if os.environ.get("LOADGEN_CACHE_DIR"):
        return _directory(Path(os.environ["LOADGEN_CACHE_DIR"]), "LOADGEN_CACHE_DIR")
    if os.geteuid() == 0 and not os.environ.get("XDG_CACHE_HOME"):
        return _directory(ROOT_CACHE_DIR, "the cache directory")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return _directory(Path(base) / "loadgen", "the cache directory")


def state_dir() -> Path:
    """$LOADGEN_STATE_DIR, else $LOADGEN_CACHE_DIR/state, else $XDG_STATE_HOME/loadgen, else
    ~/.local/state/loadgen (root: /var/lib/loadgen).

    The server `loadgen up` keeps belongs to this directory: a job that sets only its own
    LOADGEN_CACHE_DIR gets a state of its own too, and never finds (and restarts, or seeds into)
    the up server of another job on the machine (issue #18: as root both used /var/lib/loadgen).
    """
    if os.environ.get("LOADGEN_STATE_DIR"):
        return _directory(Path(os.environ["LOADGEN_STATE_DIR"]), "LOADGEN_STATE_DIR")
    if os.environ.get("LOADGEN_CACHE_DIR"):
        return _directory(Path(os.environ["LOADGEN_CACHE_DIR"]) / "state", "LOADGEN_CACHE_DIR")
    if os.geteuid() == 0 and not os.environ.get("XDG_STATE_HOME"):
        return _directory(ROOT_STATE_DIR, "the state directory")
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return _directory(Path(base) / "loadgen", "the state directory")


def _directory(path: Path, what: str) -> Path:
    """path, unless it (or the nearest existing parent) is something other than a directory:
    then one line naming the setting, instead of a NotADirectoryError deep in a server start."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        from .errors import ProvisionError

        raise ProvisionError(f"{what} {path} is not a directory ({existing} is a file)",
                             "point it at a directory, or remove the file")
    return path


def free_bytes(path: Path) -> int:
    """Free space for an unprivileged writer on the filesystem holding path (or its parent)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    st = os.statvfs(p)
    return st.f_bavail * st.f_frsize

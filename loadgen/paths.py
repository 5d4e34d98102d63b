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
        return Path(os.environ["LOADGEN_CACHE_DIR"])
    if os.geteuid() == 0 and not os.environ.get("XDG_CACHE_HOME"):
        return ROOT_CACHE_DIR
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "loadgen"


def state_dir() -> Path:
    """$LOADGEN_STATE_DIR, else $XDG_STATE_HOME/loadgen, else ~/.local/state/loadgen (root:
    /var/lib/loadgen)."""
    if os.environ.get("LOADGEN_STATE_DIR"):
        return Path(os.environ["LOADGEN_STATE_DIR"])
    if os.geteuid() == 0 and not os.environ.get("XDG_STATE_HOME"):
        return ROOT_STATE_DIR
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "loadgen"


def free_bytes(path: Path) -> int:
    """Free space for an unprivileged writer on the filesystem holding path (or its parent)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    st = os.statvfs(p)
    return st.f_bavail * st.f_frsize

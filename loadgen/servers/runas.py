"""Who a local server runs as, and the directories it must reach: as root, loadgen runs the server
as the unprivileged `mysql` user and hands it its directories; otherwise both are one user."""
from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path
from typing import NamedTuple

from ..errors import ProvisionError

# Who the server runs as when loadgen runs as root (Debian creates it with mariadb-server).
SERVER_USER = "mysql"


class RunAs(NamedTuple):
    """The unprivileged account the server runs as when loadgen itself runs as root."""

    name: str
    uid: int
    gid: int


def server_user() -> RunAs | None:
    """None: the server runs as whoever runs loadgen. As root: the Debian `mysql` user, because a
    server running as root turns any SQL login (SELECT ... INTO OUTFILE) into root's file access."""
    if os.geteuid() != 0:
        return None
    try:
        pw = pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise ProvisionError(f"loadgen runs as root but there is no {SERVER_USER!r} user to run the server as",
                             "install mariadb-server (it creates that user) "
                             "or run loadgen as an ordinary user") from None
    if pw.pw_uid == 0:
        raise ProvisionError(f"the {SERVER_USER!r} user is root", "the server must run as an unprivileged user")
    return RunAs(pw.pw_name, pw.pw_uid, pw.pw_gid)


def check_reachable(path: Path, user: RunAs) -> None:
    """Every ancestor of path must be enterable by the server user (it opens its datadir by path)."""
    for d in [path, *path.parents]:
        try:
            st = os.stat(d)
        except FileNotFoundError:
            continue
        if st.st_uid == user.uid:
            ok = st.st_mode & stat.S_IXUSR
        elif st.st_gid == user.gid:
            ok = st.st_mode & stat.S_IXGRP
        else:
            ok = st.st_mode & stat.S_IXOTH
        if not ok:
            raise ProvisionError(
                f"the server runs as user {user.name}, which cannot enter {d} (mode {stat.S_IMODE(st.st_mode):o})",
                f"chmod o+x {d}, or point LOADGEN_CACHE_DIR/LOADGEN_STATE_DIR at a directory it can reach "
                "(as root the defaults are /var/cache/loadgen and /var/lib/loadgen)",
            )


def as_user(user: RunAs | None) -> dict:
    """Popen arguments that run the child as the server user (no supplementary groups)."""
    if user is None:
        return {}
    return {"user": user.uid, "group": user.gid, "extra_groups": []}


def make_path(path: Path, mode: int) -> None:
    """mkdir -p, with `mode` on every directory it creates whatever the umask (a root umask of
    077 would otherwise lock the server user out of the cache directory loadgen itself made)."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            continue
        os.chmod(d, mode)


def chown_tree(root: Path, user: RunAs) -> None:
    os.chown(root, user.uid, user.gid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), user.uid, user.gid)

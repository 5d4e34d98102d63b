"""A temporary swap file on a disk-backed filesystem: allocate, mkswap, swapon; and the reverse.

This is what makes the seed's B=(20,4) slower than A=(80,1): every re-visit reads its pages back
from the disk. (zram keeps them compressed in RAM, where a swap-in costs about a first touch.)

swapon works on a file only where the filesystem can map the file's blocks for the kernel: ext2/3/4,
xfs, btrfs (a NOCOW file) and f2fs. It fails on tmpfs, overlayfs, fuse and network filesystems, and
a swap file on tmpfs would be RAM anyway. So the directory is chosen by filesystem type and free
space among the cache directory and /var/tmp (or only $LOADGEN_SWAP_DIR when set); the first that
passes and takes swapon is used.

The file is named loadgen-swap-p<pid>-s<start>.swap (its owner, see owner.py) and recorded in the
owner registry before it is created, so a SIGKILLed loadgen's file is found and removed by the
next run (orphans.py).
"""
from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
from pathlib import Path

from .. import paths
from ..errors import LoadgenError
from ..units import format_bytes
from . import osmem, owner
from .zram import run_tool

NAME_PREFIX = "loadgen-swap-"
# Filesystems where swapon accepts a regular file (the kernel's swap_activate / iomap support).
SWAP_FILESYSTEMS = ("ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs")
# Leave this much free on the filesystem after the file is allocated, so a swap file never fills a
# disk other programs (the MariaDB datadirs in the cache) are writing to.
FREE_MARGIN = 1 << 30
FS_NOCOW_FL = 0x00800000
FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
_SEQ = itertools.count(1)


def candidate_dirs() -> list[Path]:
    if os.environ.get("LOADGEN_SWAP_DIR"):
        return [Path(os.environ["LOADGEN_SWAP_DIR"])]
    return list(dict.fromkeys([paths.cache_dir(), Path("/var/tmp")]))


def known_dirs() -> list[Path]:
    """Every directory a swap file of ours may be in: where the sweep looks for orphans."""
    out = [paths.cache_dir(), Path("/var/tmp")]
    if os.environ.get("LOADGEN_SWAP_DIR"):
        out.insert(0, Path(os.environ["LOADGEN_SWAP_DIR"]))
    return list(dict.fromkeys(out))


def filesystem_of(path: Path, mountinfo: str | None = None) -> tuple[str, str]:
    """(fstype, mount point) of the filesystem holding path, from /proc/self/mountinfo."""
    mountinfo = Path("/proc/self/mountinfo").read_text() if mountinfo is None else mountinfo
    # Symlinks resolved in the part that exists; a directory not made yet is where it would be.
    p, rest = Path(os.path.abspath(path)), []
    while not p.exists() and p != p.parent:
        p, rest = p.parent, [p.name, *rest]
    target = os.path.join(os.path.realpath(p), *rest)
    best, best_type = "", "unknown"
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):  # the last, longest match is the one on top
            best, best_type = mount, right.split()[0]
    return best_type, best


def unusable_reason(directory: Path, size: int, mountinfo: str | None = None) -> str | None:
    """Why a swap file of `size` bytes cannot go in `directory`, or None if it can."""
    fstype, mount = filesystem_of(directory, mountinfo)
    if fstype not in SWAP_FILESYSTEMS:
        return f"{directory} is on {fstype} ({mount}), where swapon refuses files"
    free = paths.free_bytes(directory)
    if free < size + FREE_MARGIN:
        return (f"{directory} has {format_bytes(free)} free, a {format_bytes(size)} swap file "
                f"needs {format_bytes(size + FREE_MARGIN)} (with a {format_bytes(FREE_MARGIN)} "
                "margin)")
    return None


class SwapFile:
    """One swap file of ours, swapped on; `remove()` is idempotent."""

    def __init__(self, path: Path, size: int, priority: int):
        self.path = path
        self.size = size
        self.priority = priority
        self.fstype = filesystem_of(path.parent)[0]
        self.mark: Path | None = None
        self.removed = False

    @property
    def device(self) -> str:
        return str(self.path)

    @classmethod
    def create(cls, size: int, priority: int = 100, dirs: list[Path] | None = None) -> SwapFile:
        """Try each candidate directory in turn; one line naming every reason if none works."""
        size = -(-size // osmem.PAGE_SIZE) * osmem.PAGE_SIZE
        reasons = []
        for d in candidate_dirs() if dirs is None else dirs:
            why = unusable_reason(d, size)
            if why:
                reasons.append(why)
                continue
            name = f"{NAME_PREFIX}{owner.me().token}-{next(_SEQ)}.swap"
            sf = cls(Path(d) / name, size, priority)
            try:
                sf._setup()
                return sf
            except LoadgenError as exc:
                sf.remove()
                reasons.append(f"{d}: {exc.message}")
            except BaseException:
                sf.remove()
                raise
        raise LoadgenError(f"no place for a swap file: {'; '.join(reasons)}",
                           "set LOADGEN_SWAP_DIR to a directory on ext4/xfs with room, "
                           "or use --swap zram")

    def _setup(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LoadgenError(f"cannot create {self.path.parent}: {exc.strerror}") from None
        # The mark first: a SIGKILL from here on leaves a record the next run sweeps.
        self.mark = owner.record("swapfile", self.path.name, path=str(self.path), size=self.size)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as exc:
            raise LoadgenError(f"cannot create {self.path}: {exc.strerror}") from None
        try:
            if self.fstype == "btrfs":
                _set_nocow(fd)  # btrfs swaps only on NOCOW files, set while still empty
            os.posix_fallocate(fd, 0, self.size)  # no holes: swapon refuses sparse files
        except OSError as exc:
            raise LoadgenError(f"cannot allocate {format_bytes(self.size)} for {self.path}: "
                               f"{exc.strerror}") from None
        finally:
            os.close(fd)
        label = f"loadgen-{os.getpid()}"[:16]
        run_tool(["mkswap", "-L", label, str(self.path)], f"format {self.path} as swap")
        run_tool(["swapon", "-p", str(self.priority), str(self.path)],
             f"enable swap on {self.path}")

    def is_swap_on(self) -> bool:
        return is_active(self.path)

    def stats(self) -> dict:
        used = next((e["used"] for e in osmem.swaps() if e["name"] == str(self.path)), None)
        return {"path": str(self.path), "size": self.size, "priority": self.priority,
                "filesystem": self.fstype, "used_now": used}

    def remove(self) -> None:
        """swapoff (if on), unlink, forget the mark; each step runs even if one before failed."""
        if self.removed:
            return
        errors = remove_file(self.path)
        if not errors:
            owner.forget(self.mark)
        self.removed = True
        if errors:
            raise LoadgenError(f"cleanup of swap file {self.path} incomplete: {'; '.join(errors)}",
                               f"remove it by hand: swapoff {self.path}; rm {self.path}")


def is_active(path: Path) -> bool:
    return any(e["name"] == str(path) for e in osmem.swaps())


def remove_file(path: Path) -> list[str]:
    """swapoff and unlink one swap file; the list of what failed (empty when all went well)."""
    errors = []
    if is_active(path):
        try:
            run_tool(["swapoff", str(path)], f"disable swap on {path}")
        except LoadgenError as exc:
            errors.append(exc.message)
    if not errors:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            errors.append(f"cannot remove {path}: {exc.strerror}")
    return errors


def _set_nocow(fd: int) -> None:
    import array

    flags = array.array("i", [0])
    with contextlib.suppress(OSError):
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        flags[0] |= FS_NOCOW_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags, True)

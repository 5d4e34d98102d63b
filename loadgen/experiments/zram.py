"""A temporary zram swap device: hot_add, size, mkswap, swapon; and the reverse, always.

zram keeps swapped pages compressed in RAM, which makes it the closest Linux analogue of the
compressed memory the seed's Mac used, and it needs no disk. mem_limit bounds the RAM it may use.
Devices that existed before (zram0 on the CI host) are never touched: we only remove the id that
hot_add gave us.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from ..errors import LoadgenError
from . import osmem, owner

CONTROL = Path("/sys/class/zram-control")


def _helper_env() -> dict:
    # mkswap/swapon are not built with the sanitizer; do not preload libasan into them.
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def run_tool(argv: list[str], what: str) -> None:
    tool = shutil.which(argv[0]) or next(
        (p for p in (f"/usr/sbin/{argv[0]}", f"/sbin/{argv[0]}") if os.path.exists(p)), None)
    if tool is None:
        raise LoadgenError(f"{argv[0]} not found, needed to {what}",
                           "install util-linux (apt install util-linux)")
    proc = subprocess.run([tool, *argv[1:]], capture_output=True, text=True, env=_helper_env())
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        detail = detail[-1] if detail else f"exit status {proc.returncode}"
        hint = ("this needs root with CAP_SYS_ADMIN: run loadgen with sudo, outside a "
                "capability-restricted container" if os.geteuid() != 0 or "permitted" in detail
                else None)
        raise LoadgenError(f"cannot {what}: {detail}", hint)


def _write(path: Path, value: str, what: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError as exc:
        hint = "run loadgen as root (sudo)" if exc.errno in (1, 13) else None
        raise LoadgenError(f"cannot {what} ({path}: {exc.strerror})", hint) from None


class ZramSwap:
    """One zram device of ours, used as swap; `remove()` is idempotent and never raises for a
    step that is already undone."""

    def __init__(self, device_id: int):
        self.id = device_id
        self.device = f"/dev/zram{device_id}"
        self.sysfs = Path(f"/sys/block/zram{device_id}")
        self.disksize = 0
        self.mem_limit = 0
        self.algorithm: str | None = None
        self.removed = False
        self.mark: Path | None = None

    @property
    def label(self) -> str:
        """The swap label mkswap writes: says whose device this is to `swapon --show=LABEL`."""
        return f"loadgen-{os.getpid()}"[:16]

    @classmethod
    def create(cls, disksize: int, mem_limit: int, priority: int = 100) -> ZramSwap:
        if not (CONTROL / "hot_add").exists():
            raise LoadgenError(
                "zram is not available (no /sys/class/zram-control/hot_add)",
                "load it with: modprobe zram, or pass --swap existing with swap already on")
        try:
            device_id = int((CONTROL / "hot_add").read_text().strip())
        except OSError as exc:
            raise LoadgenError(f"cannot create a zram device ({CONTROL}/hot_add: {exc.strerror})",
                               "run loadgen as root (sudo), or pass --swap existing") from None
        dev = cls(device_id)
        try:
            # The mark right after hot_add: a SIGKILL from here on leaves a record to sweep.
            dev.mark = owner.record("zram", f"zram{device_id}", id=device_id,
                                    label=dev.label)
            dev._setup(disksize, mem_limit, priority)
        except BaseException:
            dev.remove()
            raise
        return dev

    def _setup(self, disksize: int, mem_limit: int, priority: int) -> None:
        algos = (self.sysfs / "comp_algorithm").read_text().split()
        chosen = [a[1:-1] for a in algos if a.startswith("[")]
        if not chosen and algos:
            # Some kernels leave no default selected: pick the first one offered.
            _write(self.sysfs / "comp_algorithm", algos[0], "set the zram algorithm")
            chosen = [algos[0]]
        self.algorithm = chosen[0] if chosen else None
        _write(self.sysfs / "mem_limit", str(mem_limit), "set the zram mem_limit")
        _write(self.sysfs / "disksize", str(disksize), "set the zram disksize")
        self.disksize, self.mem_limit = disksize, mem_limit
        deadline = time.monotonic() + 5
        while not os.path.exists(self.device):  # devtmpfs creates the node; udev may lag
            if time.monotonic() > deadline:
                raise LoadgenError(f"{self.device} did not appear after hot_add",
                                   "is devtmpfs mounted on /dev?")
            time.sleep(0.02)
        run_tool(["mkswap", "-L", self.label, self.device], f"format {self.device} as swap")
        run_tool(["swapon", "-p", str(priority), self.device], f"enable swap on {self.device}")

    def is_swap_on(self) -> bool:
        return any(e["name"] == self.device for e in osmem.swaps())

    def stats(self) -> dict:
        """mm_stat: orig_data_size compr_data_size mem_used_total mem_limit mem_used_max ..."""
        out = {"device": self.device, "disksize": self.disksize, "mem_limit": self.mem_limit,
               "algorithm": self.algorithm}
        try:
            fields = (self.sysfs / "mm_stat").read_text().split()
            names = ("orig_data_size", "compr_data_size", "mem_used_total", "mem_limit_now",
                     "mem_used_max", "same_pages")
            out.update({k: int(v) for k, v in zip(names, fields)})
        except (OSError, ValueError):
            pass
        return out

    def remove(self) -> None:
        """swapoff, reset, hot_remove: each step runs even if an earlier one failed."""
        if self.removed:
            return
        errors = []
        if self.is_swap_on():
            try:
                run_tool(["swapoff", self.device], f"disable swap on {self.device}")
            except LoadgenError as exc:
                errors.append(str(exc))
        if self.sysfs.exists():
            for attempt in range(50):
                try:
                    _write(self.sysfs / "reset", "1", f"reset {self.device}")
                    break
                except LoadgenError as exc:
                    if attempt == 49:
                        errors.append(str(exc))
                    time.sleep(0.05)  # EBUSY while the last opener lets go
            try:
                _write(CONTROL / "hot_remove", str(self.id), f"remove {self.device}")
            except LoadgenError as exc:
                errors.append(str(exc))
        self.removed = True
        if not errors:
            owner.forget(self.mark)
        if errors:
            raise LoadgenError(f"cleanup of {self.device} incomplete: {'; '.join(errors)}",
                               f"remove it by hand: swapoff {self.device}; "
                               f"echo {self.id} > {CONTROL}/hot_remove")


def zram_devices() -> set[str]:
    """Names of the zram block devices present now (zram0, ...)."""
    return {p.name for p in Path("/sys/block").glob("zram*")}

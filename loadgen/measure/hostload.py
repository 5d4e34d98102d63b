"""The host around a run: load average and CPU time (steal included) before and after it, and
whether the host was busy.

q/s and latency measure the client, the server and the host they share. On a host where other
work holds the CPUs (CI runners, a shared VM: several test suites on 2 CPUs here) the same run
swung 2x in q/s while its pages read did not move, and nothing in the result said why. The
result file's `host` block records what the host was doing, and the run warns when it was busy:

  - the 1-minute load average before the run exceeds the CPUs the run leaves to others
    (CPUs - threads, at least one): other work already held the CPUs the run needed;
  - the 1-minute load average after it exceeds CPUs + threads + 1 (the run's client threads and
    the server's): work beyond the run's own competed with it;
  - steal, the time a hypervisor gave this VM's CPUs to others, was BUSY_STEAL of the CPU time
    during the run or more.

Read from /proc/loadavg and /proc/stat (Linux); elsewhere the block says it could not tell.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import numfmt as nf

BUSY_STEAL = 0.05  # of all CPU time during the run
# /proc/stat's cpu line, in order (proc(5)); guest time is already inside user and nice
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


@dataclass
class HostSample:
    t_s: float  # time.monotonic()
    load_1m: float
    load_5m: float
    load_15m: float
    running: int  # runnable tasks at that moment (/proc/loadavg's 4th field, before the slash)
    cpu_ticks: dict = field(default_factory=dict)  # CPU_FIELDS -> clock ticks summed over the CPUs

    def to_dict(self) -> dict:
        return {"load_1m": self.load_1m, "load_5m": self.load_5m, "load_15m": self.load_15m,
                "running": self.running, "steal_ticks": self.cpu_ticks.get("steal"),
                "total_ticks": sum(self.cpu_ticks.values()) if self.cpu_ticks else None}


def sample(proc: Path = Path("/proc")) -> HostSample | None:
    """The load averages and the CPU time counters now; None where /proc does not have them."""
    try:
        load = (proc / "loadavg").read_text().split()
        with open(proc / "stat") as f:
            cpu = f.readline().split()
        ticks = {name: int(v) for name, v in zip(CPU_FIELDS, cpu[1:])} if cpu and cpu[0] == "cpu" else {}
        return HostSample(time.monotonic(), float(load[0]), float(load[1]), float(load[2]),
                          int(load[3].partition("/")[0]), ticks)
    except (OSError, ValueError, IndexError):
        return None


def assess(before: HostSample | None, after: HostSample | None, cpus: int | None = None,
           threads: int = 1) -> dict:
    """The result file's host load: before, after, the CPU time shares between them, and busy
    with its reasons (see the module docstring)."""
    cpus = cpus or os.cpu_count() or 1
    out: dict = {"cpus": cpus, "before": before.to_dict() if before else None,
                 "after": after.to_dict() if after else None, "busy": None, "busy_reasons": []}
    if before is None or after is None:
        out["busy_reasons"] = ["no /proc/loadavg or /proc/stat here: not known"]
        return out
    delta = {k: after.cpu_ticks.get(k, 0) - before.cpu_ticks.get(k, 0) for k in CPU_FIELDS}
    total = sum(delta.values())
    if total > 0 and min(delta.values()) >= 0:
        out["cpu_busy_fraction"] = round(1 - (delta["idle"] + delta["iowait"]) / total, 4)
        out["steal_fraction"] = round(delta["steal"] / total, 4)
        out["iowait_fraction"] = round(delta["iowait"] / total, 4)
    reasons = []
    # the CPUs the run leaves to other work: all but its client threads (at least one, or a run
    # with as many threads as CPUs would call every host busy)
    left = max(cpus - threads, 1)
    if before.load_1m > left:
        reasons.append(f"load average {nf.number(before.load_1m)} before the run on {cpus} CPUs: other work held "
                       f"more than the {left} the run leaves")
    if after.load_1m > cpus + threads + 1:
        reasons.append(f"load average {nf.number(after.load_1m)} after the run, more than the {cpus} CPUs "
                       f"and the run's own {threads + 1}")
    if out.get("steal_fraction", 0) >= BUSY_STEAL:
        reasons.append(f"the hypervisor took {nf.pct(out['steal_fraction'])} of the CPU time (steal)")
    out["busy"] = bool(reasons)
    out["busy_reasons"] = reasons
    return out

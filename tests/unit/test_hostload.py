"""Issue #18 (8): the host around a run. Parsing and the busy verdict on canned /proc files (a
quiet host, a loaded one, a VM losing its CPUs to steal), then the live /proc of this machine."""
from pathlib import Path

from loadgen.measure import hostload


def proc(tmp_path: Path, name: str, load: str, cpu: str) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "loadavg").write_text(f"{load} 2/303 20149\n")
    (d / "stat").write_text(f"cpu  {cpu} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nprocs_running 2\n")
    return d


def test_a_quiet_host(tmp_path):
    before = hostload.sample(proc(tmp_path, "b", "0.10 0.20 0.30", "1000 0 500 90000 100 0 10 0"))
    after = hostload.sample(proc(tmp_path, "a", "0.90 0.40 0.35", "2000 0 900 92000 100 0 20 0"))
    assert (before.load_1m, before.load_5m, before.load_15m, before.running) == (0.10, 0.20, 0.30, 2)
    block = hostload.assess(before, after, cpus=2, threads=1)
    assert block["busy"] is False and block["busy_reasons"] == []
    assert block["before"]["load_1m"] == 0.10 and block["after"]["load_1m"] == 0.90
    assert block["before"]["steal_ticks"] == 0 and block["after"]["total_ticks"] == 95020
    assert block["cpu_busy_fraction"] == round(1410 / 3410, 4) and block["steal_fraction"] == 0.0


def test_other_work_before_or_during_the_run_makes_it_busy(tmp_path):
    cpu0, cpu1 = "1000 0 500 90000 100 0 10 0", "3000 0 900 90400 100 0 20 0"
    loaded = hostload.assess(hostload.sample(proc(tmp_path, "b", "7.40 5.10 2.92", cpu0)),
                             hostload.sample(proc(tmp_path, "a", "8.10 5.50 3.00", cpu1)), cpus=2, threads=1)
    assert loaded["busy"] is True
    assert any("7.40 before the run on 2 CPUs" in r for r in loaded["busy_reasons"])
    assert any("8.10 after the run" in r for r in loaded["busy_reasons"])
    # the same load on 16 CPUs leaves the run room: not busy
    roomy = hostload.assess(hostload.sample(tmp_path / "b"), hostload.sample(tmp_path / "a"), cpus=16, threads=1)
    assert roomy["busy"] is False


def test_steal_makes_a_vm_busy(tmp_path):
    before = hostload.sample(proc(tmp_path, "b", "0.10 0.10 0.10", "1000 0 500 90000 100 0 10 1000"))
    after = hostload.sample(proc(tmp_path, "a", "0.50 0.20 0.10", "1500 0 600 90700 100 0 10 1300"))
    block = hostload.assess(before, after, cpus=2, threads=1)
    assert block["steal_fraction"] == round(300 / 1600, 4) and block["busy"] is True
    assert block["busy_reasons"] == ["the hypervisor took 18.75% of the CPU time (steal)"]


def test_no_proc_says_it_cannot_tell(tmp_path):
    assert hostload.sample(tmp_path / "nothing") is None
    block = hostload.assess(None, None, cpus=2)
    assert block["busy"] is None and "not known" in block["busy_reasons"][0]


def test_this_machines_proc_reads():
    s = hostload.sample()
    assert s is not None and s.load_1m >= 0 and s.cpu_ticks["idle"] > 0 and set(s.cpu_ticks) == set(hostload.CPU_FIELDS)

"""Where the up server's state lives and whose it is (issue #18, item 1)."""
from __future__ import annotations

from loadgen import paths
from loadgen.servers import state


def test_the_state_lives_under_the_cache_dir_when_only_that_is_set(monkeypatch, tmp_path):
    monkeypatch.delenv("LOADGEN_STATE_DIR", raising=False)
    monkeypatch.setenv("LOADGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert paths.state_dir() == tmp_path / "cache" / "state"
    monkeypatch.setenv("LOADGEN_STATE_DIR", str(tmp_path / "state"))
    assert paths.state_dir() == tmp_path / "state"


def test_the_state_names_the_job_that_kept_the_server_up_and_a_restart_keeps_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LOADGEN_STATE_DIR", str(tmp_path / "shared"))
    monkeypatch.setenv("LOADGEN_CACHE_DIR", str(tmp_path / "a"))
    state.save({"provider": "local", "home": "/srv/up", "pid": 1})
    assert state.foreign_owner(state.load()) is None  # the job that kept it up
    monkeypatch.setenv("LOADGEN_CACHE_DIR", str(tmp_path / "b"))
    other = state.foreign_owner(state.load())
    assert other is not None and str(tmp_path / "a") in other
    monkeypatch.setenv("LOADGEN_CACHE_DIR", str(tmp_path / "a"))
    state.save({"provider": "local", "home": "/srv/up", "pid": 2})  # its restart: a new pid, the same owner
    monkeypatch.setenv("LOADGEN_CACHE_DIR", str(tmp_path / "b"))
    assert str(tmp_path / "a") in state.foreign_owner(state.load())
    assert state.foreign_owner({"provider": "local"}) is None  # a state file from before owners

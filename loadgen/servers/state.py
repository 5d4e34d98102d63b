"""A server kept running between commands (`loadgen up` / `status` / `down`).

The state file holds how to reach and stop it (pid or container id, port, socket, home); the
password stays in the server's own 0600 file and never enters the state file.

The server belongs to its state directory (paths.state_dir) and to the job that kept it up: the
state file records that job's owner (uid and cache directory). A command of another owner that
finds it (a state directory two jobs share) may use it as it is, but never restarts it, seeds into
it or stops it (provision.py).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..paths import cache_dir, state_dir
from ..results.files import PRIVATE, write_json_atomic


def state_file() -> Path:
    return state_dir() / "server.json"


def load() -> dict | None:
    try:
        return json.loads(state_file().read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def save(state: dict) -> None:
    """Write the state; the owner stays the job that kept the server up (a restart by that job
    saves the new pid or port, not a new owner)."""
    if "owner" not in state:
        old = load() or {}
        where = "home" if state.get("provider") == "local" else "volume"  # the server's own datadir
        same = old.get("provider") == state.get("provider") and old.get(where) == state.get(where)
        state = {**state, "owner": old["owner"] if same and old.get("owner") else current_owner()}
    write_json_atomic(state_file(), state, PRIVATE)
    os.chmod(state_file(), 0o600)


def clear() -> None:
    try:
        state_file().unlink()
    except FileNotFoundError:
        pass


def current_owner() -> dict:
    """Who this command runs for: the user and the cache directory (a job's own, when it sets
    LOADGEN_CACHE_DIR)."""
    return {"uid": os.getuid(), "cache_dir": str(cache_dir().resolve())}


def foreign_owner(st: dict) -> str | None:
    """None when the server of state `st` is this command's own (or the state predates owners);
    else who keeps it up, in words."""
    owner = st.get("owner")
    if not isinstance(owner, dict) or owner == current_owner():
        return None
    uid = owner.get("uid")
    try:
        import pwd

        user = pwd.getpwuid(int(uid)).pw_name
    except (KeyError, TypeError, ValueError):
        user = f"uid {uid}"
    return f"{user}, cache directory {owner.get('cache_dir')}"

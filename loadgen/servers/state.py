"""A server kept running between commands (`loadgen up` / `status` / `down`).

The state file holds how to reach and stop it (pid or container id, port, socket, home); the
password stays in the server's own 0600 file and never enters the state file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..paths import state_dir
from ..results import PRIVATE, write_json_atomic


def state_file() -> Path:
    return state_dir() / "server.json"


def load() -> dict | None:
    try:
        return json.loads(state_file().read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def save(state: dict) -> None:
    write_json_atomic(state_file(), state, PRIVATE)
    os.chmod(state_file(), 0o600)


def clear() -> None:
    try:
        state_file().unlink()
    except FileNotFoundError:
        pass

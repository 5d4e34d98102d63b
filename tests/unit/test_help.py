"""Issue #18 (14): every option of every command says what it does, and `loadgen --help` lists
every environment variable loadgen reads (found by reading the code, so a new one cannot be
left out)."""
import re
import subprocess
import sys
from pathlib import Path

import click

from loadgen.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def commands(cmd: click.Command, path: tuple = ("loadgen",)):
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name, sub in sorted(cmd.commands.items()):
            yield from commands(sub, (*path, name))


def test_every_option_of_every_command_has_help():
    missing = []
    for path, cmd in commands(cli):
        if not (cmd.help or cmd.short_help):
            missing.append(f"{' '.join(path)} (the command itself)")
        for param in cmd.params:
            if isinstance(param, click.Option) and not (param.help or "").strip():
                missing.append(f"{' '.join(path)} {'/'.join(param.opts)}")
    assert len(list(commands(cli))) > 20  # the walk reached the groups' commands (native, image, trace)
    assert not missing, "options without help: " + ", ".join(missing)


def variables_read() -> set[str]:
    """LOADGEN_* names the package and the C extension read from the environment."""
    found = set()
    pattern = re.compile(r"""(?:environ(?:\.get)?[(\[]\s*|getenv\(\s*|\bENV\s*=\s*)["'](LOADGEN_[A-Z_]+)["']""")
    for path in [*(ROOT / "loadgen").rglob("*.py"), *(ROOT / "native").glob("*.c")]:
        found |= set(pattern.findall(path.read_text(errors="replace")))
    return found


def test_loadgen_help_lists_every_environment_variable_read():
    names = variables_read()
    # the ones the README and the issue name: the grep must find them, or it finds nothing
    assert {"LOADGEN_CACHE_DIR", "LOADGEN_STATE_DIR", "LOADGEN_PASSWORD", "LOADGEN_LOCK_WAIT_S",
            "LOADGEN_SWAP_DIR", "LOADGEN_NATIVE_SO"} <= names, names
    out = subprocess.run([sys.executable, "-m", "loadgen", "--help"], capture_output=True, text=True,
                         timeout=60).stdout
    listed = set(re.findall(r"LOADGEN_[A-Z_]+", out.partition("Environment:")[2]))
    assert not names - listed, f"read but not in `loadgen --help`: {sorted(names - listed)}"
    # and what it says of the state directory: where it goes when only the cache dir is set
    assert "only that is set" in out

"""What every bench script needs: a scratch server, a password-less bench user, paired runs.

Each script starts its own mariadbd in a temporary directory (stopped and removed at the end,
also on Ctrl-C), so it measures nothing else's state. Figures are ratios of paired runs taken
in alternating order, because this machine is shared and noisy: the median of the pairs is the
figure, min..max its spread.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BENCH_USER = "bench"  # no password, localhost only: nothing secret ever reaches argv or output


@contextlib.contextmanager
def scratch_server(pool_bytes: int, files_dir: bool = False):
    """A LocalServer in a temporary home, stopped and deleted afterwards. With files_dir, the
    server may read files (LOAD DATA INFILE) from server.home / "files"."""
    from loadgen.servers.local import LocalServer

    home = Path(tempfile.mkdtemp(prefix="loadgen-bench-"))
    os.chmod(home, 0o711)  # as root the server runs as `mysql`, which must pass through it
    os.environ.setdefault("LOADGEN_CACHE_DIR", str(home / "cache"))
    os.environ.setdefault("LOADGEN_STATE_DIR", str(home / "state"))
    options = {}
    if files_dir:
        (home / "server" / "files").mkdir(parents=True)
        options["secure_file_priv"] = str(home / "server" / "files")
    server = LocalServer(home / "server", pool_bytes, options=options)
    try:
        server.start()
        _create_bench_user(server)
        yield server
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(home, ignore_errors=True)


def _create_bench_user(server) -> None:
    conn = server.connect()
    try:
        cur = conn.cursor()
        for host in ("localhost", "127.0.0.1"):
            cur.execute(f"CREATE USER IF NOT EXISTS '{BENCH_USER}'@'{host}'")
            cur.execute(f"GRANT ALL ON *.* TO '{BENCH_USER}'@'{host}'")
        cur.close()
    finally:
        conn.close()


def bench_endpoint(server, tcp: bool = False):
    """The bench user's endpoint: the server's unix socket, or 127.0.0.1 TCP with tcp=True."""
    from loadgen.db import Endpoint

    ep = server.endpoint
    return Endpoint(host="127.0.0.1", port=ep.port, user=BENCH_USER, password="",
                    unix_socket=None if tcp else ep.unix_socket)


@contextlib.contextmanager
def reference_file(conn):
    """(path, local) for the seeding benches' reference rows: in the server's secure_file_priv
    directory, so one LOAD DATA INFILE reads it server-side; local=True where the server reads no
    files at all (secure_file_priv NULL) and the reference is LOAD DATA LOCAL. Removed after."""
    from loadgen import db

    priv = db.query_value(conn, "SELECT @@secure_file_priv")
    tmp = None if priv else tempfile.mkdtemp(prefix="loadgen-bench-rows-")
    path = Path(priv or tmp) / "rows.tsv"
    try:
        yield path, priv is None
    finally:
        path.unlink(missing_ok=True)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def load_data_rate(conn, sql: str, path: Path, rows: int) -> float:
    """rows/s of one LOAD DATA of the reference file (sql: one %s, the path), timed from the
    statement alone; the server must keep every row, or the rate would flatter the reference."""
    cur = conn.cursor()
    try:
        cur.execute("SET time_zone = '+00:00'")
        started = time.monotonic()
        cur.execute(sql, (str(path),))
        elapsed = time.monotonic() - started
        kept = cur.rowcount
    finally:
        cur.close()
    assert kept == rows, f"the reference LOAD DATA kept {kept:,} of {rows:,} rows"
    return rows / elapsed


def seed_rounds(conn, rounds: int, loadgen_rate, reference_rate) -> list[float]:
    """The seeding benches' paired rounds: loadgen_rate(db) and reference_rate(db) each fill a
    fresh database (dropped after it), in alternating order so neither always runs on the warmer
    server; one ratio loadgen/reference per round."""
    from loadgen import db

    ratios = []
    for r in range(rounds):
        sides = [("loadgen", loadgen_rate), ("reference", reference_rate)]
        if r % 2:
            sides.reverse()
        got = {}
        for name, fn in sides:
            got[name] = fn(f"seedbench_{name}")
            db.query_all(conn, f"DROP DATABASE `seedbench_{name}`")
        ratios.append(got["loadgen"] / got["reference"])
        say(f"round {r + 1}: " + ", ".join(f"{n} {got[n]:,.0f} rows/s" for n, _ in sides)
            + f"; loadgen/reference {ratios[-1]:.3f}")
    return ratios


def paired_rounds(reference: str, drivers: list[str], rounds: int, run_one, unit: str = "q/s",
                  cpu_unit: str = "us CPU/q") -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Rounds of the reference and each driver, the order reversed every other round (so neither
    side always runs on the warmer machine); run_one(contender, round) returns (rate, CPU us each).
    Returns each driver's rate / the reference's per round, and each contender's CPU per round."""
    ratios: dict[str, list[float]] = {d: [] for d in drivers}
    cpu_us: dict[str, list[float]] = {c: [] for c in [reference, *drivers]}
    for r in range(rounds):
        contenders = [reference, *drivers]
        if r % 2:
            contenders.reverse()
        rate, cpu = {}, {}
        for c in contenders:
            rate[c], cpu[c] = run_one(c, r)
            cpu_us[c].append(cpu[c])
        for d in drivers:
            ratios[d].append(rate[d] / rate[reference])
        say(f"round {r + 1}: " + ", ".join(f"{c} {rate[c]:,.0f} {unit} ({cpu[c]:.1f} {cpu_unit})" for c in contenders)
            + "; " + ", ".join(f"{d}/{reference} {ratios[d][-1]:.3f}" for d in drivers))
    return ratios, cpu_us


def spread(values: list[float]) -> str:
    return (f"median {statistics.median(values):.3f} (min {min(values):.3f}, max {max(values):.3f}, "
            f"n={len(values)})")


def say(*parts) -> None:
    print(*parts, flush=True)

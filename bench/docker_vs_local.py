#!/usr/bin/env python3
"""Issue #14: point-select q/s against a container (--server docker) vs a local mariadbd.

Both servers hold the same dataset (chat.message, --rows, seeded by loadgen's own code), fully
cached (pool 256 MiB, a warm-up pass first). Each round runs the native driver for --seconds over
the same random ids on: the local server (unix socket), the container through the path loadgen
picks (servers/fastpath.py: its socket in a bind-mounted directory on a local Linux engine), and
the container through the published 127.0.0.1 port (docker-proxy), in alternating order. The last
lines are the ratios docker/local; goal >= 0.8 for the path loadgen uses.

Also printed: each server's CPU time per query (utime+stime of its mariadbd from /proc, which
the engine shows on the host). On a shared machine the container's rate also depends on CPU
scheduling: every container sits in the engine's one cpu cgroup (/docker, weight 1024), which
competes as a single entity with each busy host process, so under load the container gets a
smaller CPU share than a local server in the root cgroup; CPU per query does not move with that.
"""
from __future__ import annotations

import argparse
import random
import threading
from array import array
from dataclasses import replace

from _common import say, scratch_server, spread

POOL_BYTES = 256 << 20


def cpu_s(pid: int) -> float:
    import os

    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_native(endpoint, database: str, ids: array, seconds: float, pipeline: int = 1) -> tuple[float, int]:
    from loadgen.drivers.native import NativeQueries, run_queries_native
    from loadgen.drivers.python import DriverState

    stop = threading.Event()
    state = DriverState()
    timer = threading.Timer(seconds, stop.set)
    with NativeQueries(endpoint, database, pipeline=pipeline) as q:
        timer.start()
        run_queries_native(q, iter(ids), state, stop=stop)
    timer.cancel()
    if state.error or state.rows != state.queries:
        raise SystemExit(f"{endpoint.describe()}: {state.error or 'missing rows'}")
    return state.queries / state.elapsed_s, state.queries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--image", default="loadgen/mariadb:10.11")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pipeline", type=int, default=1, help="queries in flight (1: one at a time)")
    args = ap.parse_args()

    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.runner.single import QuietReporter, prepare_dataset
    from loadgen.servers import ServerSpec
    from loadgen.servers.docker import DockerServer

    spec = DatasetSpec(rows=args.rows)
    rng = random.Random(1)
    ids = list(range(1, args.rows + 1))
    pool = array("Q")
    for _ in range(20):
        rng.shuffle(ids)
        pool.extend(ids)
    with scratch_server(POOL_BYTES) as local:
        docker = DockerServer(ServerSpec(provider="docker", image=args.image, pool_bytes=POOL_BYTES))
        try:
            docker.start()
            info_local = prepare_dataset(local, spec, QuietReporter())
            info_docker = prepare_dataset(docker, spec, QuietReporter())
            docker_pid = docker.container.attrs["State"]["Pid"]
            sides = {
                "local": (local.endpoint, info_local.database, local.pid),
                f"docker {docker.endpoint_path}": (docker.endpoint, info_docker.database, docker_pid),
                "docker published_port": (replace(docker.endpoint, host="127.0.0.1", port=docker.port,
                                                  unix_socket=None), info_docker.database, docker_pid),
            }
            say(f"local {local.flavor.name} {local.flavor.version}, docker {args.image}, {args.rows:,} rows "
                f"cached, {args.seconds:g} s runs, pipeline {args.pipeline}; "
                f"docker path chosen: {docker.endpoint_path}")
            for ep, db, _ in sides.values():  # warm-up: every page into the pool, every path once
                run_native(ep, db, pool[:args.rows], 60, args.pipeline)
            names = list(sides)
            ratios: dict[str, list[float]] = {n: [] for n in names[1:]}
            cpu_us: dict[str, list[float]] = {n: [] for n in names}
            for r in range(args.rounds):
                order = names if r % 2 == 0 else names[::-1]
                start = r * args.rows
                qps = {}
                for n in order:
                    ep, db, pid = sides[n]
                    c0 = cpu_s(pid)
                    qps[n], done = run_native(ep, db, pool[start % len(pool):], args.seconds, args.pipeline)
                    cpu_us[n].append((cpu_s(pid) - c0) / done * 1e6)
                for n in names[1:]:
                    ratios[n].append(qps[n] / qps["local"])
                say(f"round {r + 1}: " + ", ".join(f"{n} {qps[n]:,.0f} q/s ({cpu_us[n][-1]:.1f} us server CPU/q)"
                                                   for n in order) + "; "
                    + ", ".join(f"{n}/local {ratios[n][-1]:.3f}" for n in names[1:]))
        finally:
            docker.stop()
    for n in names:
        say(f"server CPU per query, {n}: {spread(cpu_us[n])} us")
    for n in reversed(names[1:]):
        say(f"{n} / local q/s: {spread(ratios[n])}")


if __name__ == "__main__":
    main()

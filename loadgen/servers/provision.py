"""Pick a provider for what the user asked, start it, and stop it on every exit path."""
from __future__ import annotations

import contextlib
import dataclasses
from typing import Callable
from collections.abc import Iterator

from ..seeding.dataset import DatasetSpec
from ..errors import ProvisionError, SchemaRefused, UsageError
from ..paths import cache_dir, state_dir
from ..units import format_bytes
from . import DEFAULT_POOL_BYTES, Server, ServerSpec, state
from .lock import FileLock

PROVIDERS = ("auto", "local", "docker", "dsn")

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def choose_provider(spec: ServerSpec, say: Say = _quiet) -> str:
    """The provider for spec; for --server auto also the image it picked (spec.image is set)."""
    if spec.provider not in PROVIDERS:
        raise UsageError(f"unknown --server {spec.provider!r}", f"choose one of: {', '.join(PROVIDERS)}")
    if spec.dsn and spec.provider not in ("auto", "dsn"):
        raise UsageError(f"--dsn goes with --server dsn, not --server {spec.provider}")
    if spec.provider == "dsn" and not spec.dsn:
        raise UsageError("--server dsn needs --dsn mysql://user@host:port/")
    if spec.dsn:
        return "dsn"
    if spec.provider != "auto":
        return spec.provider
    from .engine import auto_choice

    if spec.mysqld:  # a binary was named: the local server it is
        return "local"

    image, flavor, reason = auto_choice(spec.image)
    if image is not None:
        spec.image = image
        say(f"--server auto: using docker, {flavor.name} {flavor.version} in image {image} ({reason})")
        return "docker"
    from .mysqld import binary_flavor, find_mysqld

    try:
        binary = find_mysqld(spec.mysqld)
    except ProvisionError as exc:
        raise ProvisionError(f"--server auto found no server: {reason}, and {exc.message}", exc.hint) from None
    local = binary_flavor(binary)
    say(f"--server auto: using a local {local.name} {local.version} ({binary}), not docker ({reason})")
    return "local"


def make_server(spec: ServerSpec, dataset: DatasetSpec | None, say: Say = _quiet, persist: bool = False) -> Server:
    """A not-yet-started server for spec. Local servers holding a dataset live in the dataset
    cache (keyed by flavour, version, schema and rows), so a later run starts in seconds."""
    spec = dataclasses.replace(spec)  # --server auto fills in the image it picked
    provider = choose_provider(spec, say)
    pool = spec.pool_bytes or DEFAULT_POOL_BYTES
    if provider == "dsn":
        from .dsn import DsnServer

        return DsnServer(spec.dsn, spec.pool_bytes, say=say)
    if provider == "docker":
        from .docker import DockerServer

        return DockerServer(spec, dataset, persist=persist, say=say)
    from .local import LocalServer
    from .mysqld import binary_flavor, find_mysqld

    binary = find_mysqld(spec.mysqld)
    if persist:
        home = state_dir() / "server"
    elif dataset is not None:
        home = cache_dir() / "datasets" / dataset.cache_key(binary_flavor(binary))
    else:
        home = cache_dir() / "scratch"
    if dataset is not None and not (home / "data").exists():
        _check_room(home, dataset)
    server = LocalServer(home, pool, mysqld=binary, port=spec.port, options=spec.options, detach=persist)
    server.persist = persist
    server.say = say  # "waiting for the datadir held by pid N"
    return server


# A fresh datadir holds the system tablespace, undo and the redo log (96 MiB by default on
# MariaDB 10.11) before any row arrives.
EMPTY_DATADIR_BYTES = 160 << 20


def _check_room(home, dataset: DatasetSpec) -> None:
    from ..seeding.dataset import EST_BYTES_PER_ROW
    from ..paths import free_bytes

    need = EMPTY_DATADIR_BYTES + dataset.rows * EST_BYTES_PER_ROW
    room = free_bytes(home)
    if need > room:
        raise ProvisionError(
            f"a {dataset.rows:,}-row dataset needs about {format_bytes(need)} in {home.parent}, "
            f"only {format_bytes(room)} free",
            "use fewer --rows, free disk space, or set LOADGEN_CACHE_DIR to a larger disk",
        )


def up_lock() -> FileLock:
    """Held by whoever restarts, runs against or stops the `loadgen up` server, so two commands
    never see it half-restarted (and take it for dead) or restart it under each other's run."""
    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return FileLock(directory / "server.lock", "the server from `loadgen up`")


def attach_running(spec: ServerSpec, say: Say = _quiet, lock: FileLock | None = None) -> Server | None:
    """The server `loadgen up` left running, when the user did not ask for another one.

    A state file whose server is gone is cleared only by a caller holding the up lock (else the
    server may just be restarting for another command).
    """
    st = state.load()
    if st is None or spec.dsn or spec.provider not in ("auto", st.get("provider")):
        return None
    if st.get("provider") == "docker":
        from .docker import DockerServer

        server = DockerServer.from_state(st)
    else:
        from .local import LocalServer

        server = LocalServer.from_state(st)
        server.say = say
    if not server.alive():
        probe = lock if lock is not None else up_lock()
        if lock is not None or probe.try_acquire():
            say("the server from `loadgen up` is no longer running; starting a fresh one")
            state.clear()
            if lock is None:
                probe.release()
        return None
    server.foreign_owner = state.foreign_owner(st)
    return server


def summary(server: Server) -> str:
    """Which server a command uses, in one line: flavour, version, where it runs, pool."""
    flavor = getattr(server, "flavor", None)
    what = f"{server.provider} {flavor.name} {flavor.version}" if flavor is not None else server.provider
    if server.provider == "local":
        where = f"binary {getattr(server, 'binary', '?')}"
    elif server.provider == "docker":
        where = f"image {getattr(server, 'image', '?')}"
    else:
        where = f"at {server.endpoint.host}:{server.endpoint.port}, not loadgen's (never restarted)"
    pool = server.pool_bytes or getattr(server, "pool_bytes_seen", None)
    return f"{what}, {where}" + (f", pool {format_bytes(pool)}" if pool else "")


def _adapt(server: Server, spec: ServerSpec, say: Say) -> None:
    """Make the up server what this command asked for (pool, --set, --port), or refuse what
    cannot be changed (another --mysqld): a setting must never be silently ignored."""
    import os

    if server.foreign_owner is not None:
        _refuse_changes(server, spec)
        return
    changes = []
    if spec.mysqld:
        from .mysqld import find_mysqld

        binary = getattr(server, "binary", None)
        if binary is None or os.path.realpath(find_mysqld(spec.mysqld)) != os.path.realpath(binary):
            raise UsageError(f"the server from `loadgen up` does not run {spec.mysqld}",
                             "run `loadgen down` first, or leave out --mysqld")
    if spec.options:
        from . import check_options

        wanted = {**server.options, **spec.options}
        if wanted != server.options:
            check_options(wanted)
            changes.append(", ".join(f"{k}={v}" for k, v in spec.options.items()))
            server.options = wanted
    if spec.port and spec.port != server.endpoint.port:
        if server.provider != "local":
            raise UsageError(f"--port cannot move the {server.provider} server from `loadgen up`",
                             "run `loadgen down` first, or leave out --port")
        changes.append(f"port {spec.port}")
        server.requested_port = spec.port
    if spec.pool_bytes and spec.pool_bytes != server.pool_bytes:
        changes.append(f"pool {format_bytes(spec.pool_bytes)}")
        server.set_pool(spec.pool_bytes)
    if changes:
        say(f"restarting it with {'; '.join(changes)}")
        server.restart_cold()


def _refuse_changes(server: Server, spec: ServerSpec) -> None:
    """Another job keeps this server up: it is used as it is. A --pool (or --set, --port,
    --mysqld) it does not have would restart it under that job's runs, so it is refused."""
    wanted = []
    if spec.pool_bytes and spec.pool_bytes != server.pool_bytes:
        wanted.append(f"--pool {format_bytes(spec.pool_bytes)} (it has {format_bytes(server.pool_bytes)})")
    if spec.options and {**server.options, **spec.options} != server.options:
        wanted.append("--set " + " ".join(f"{k}={v}" for k, v in spec.options.items()))
    if spec.port and spec.port != server.endpoint.port:
        wanted.append(f"--port {spec.port}")
    if spec.mysqld:
        wanted.append(f"--mysqld {spec.mysqld}")
    if wanted:
        raise UsageError(f"the server from `loadgen up` in {state_dir()} is kept up by another job "
                         f"({server.foreign_owner}); loadgen does not restart it for {', '.join(wanted)}",
                         "leave those out to use it as it is, or give this job a state directory of its own "
                         "(LOADGEN_STATE_DIR) to start its own server")


@contextlib.contextmanager
def provisioned(spec: ServerSpec, dataset: DatasetSpec | None, say: Say = _quiet) -> Iterator[Server]:
    """A started server; stopped afterwards unless it is the one `loadgen up` keeps."""
    if state.load() is not None and not spec.dsn:
        lock = up_lock()
        lock.acquire(say)
        try:
            server = attach_running(spec, say, lock)
            if server is not None:
                _adapt(server, spec, say)
                owner = f", kept up by another job ({server.foreign_owner})" if server.foreign_owner else ""
                say(f"using the server from `loadgen up` ({summary(server)}{owner})")
                yield server  # the lock is held for the whole run: nobody restarts it meanwhile
                return
        finally:
            lock.release()
    server = make_server(spec, dataset, say)
    refused = False
    try:
        server.start()
        say(f"using {summary(server)}")
        yield server
    except SchemaRefused:
        refused = True  # the schema file's table can never be made: its datadir is left behind
        raise
    finally:
        server.stop()
        if refused:
            server.discard()


def up(spec: ServerSpec, say: Say = _quiet) -> Server:
    """Start the server `loadgen up` keeps. One already up is returned as it is (its
    `already_up` set) when it is what spec asks for, so a second `up` never starts another; one
    that differs is refused with what differs and how to stop it."""
    lock = up_lock()
    lock.acquire(say)
    try:
        if state.load() is not None:
            existing = attach_running(ServerSpec(provider="auto"), lock=lock)
            if existing is not None:
                differs = _differences(existing, spec)
                if differs:
                    raise ProvisionError(
                        f"a server is already up ({summary(existing)}), not with {', '.join(differs)}",
                        "use it as it is (leave those out), or run `loadgen down` first to start another")
                existing.already_up = True
                return existing
        server = make_server(spec, None, say, persist=True)
        try:
            server.start()
        except BaseException:
            server.stop()
            state.clear()
            raise
        return server
    finally:
        lock.release()


def _differences(server: Server, spec: ServerSpec) -> list[str]:
    """What spec asks for that the up server does not have, as the options that asked for it."""
    out = []
    if spec.provider not in ("auto", server.provider):
        out.append(f"--server {spec.provider}")
    if spec.pool_bytes and spec.pool_bytes != server.pool_bytes:
        out.append(f"--pool {format_bytes(spec.pool_bytes)}")
    options = getattr(server, "options", {}) or {}
    if spec.options and {**options, **spec.options} != options:
        out.append("--set " + " ".join(f"{k}={v}" for k, v in spec.options.items()))
    if spec.port and spec.port != server.endpoint.port:
        out.append(f"--port {spec.port}")
    if spec.image and spec.image != getattr(server, "image", None):
        out.append(f"--image {spec.image}")
    if spec.mysqld:
        import os

        from .mysqld import find_mysqld

        binary = getattr(server, "binary", None)
        if binary is None or os.path.realpath(find_mysqld(spec.mysqld)) != os.path.realpath(binary):
            out.append(f"--mysqld {spec.mysqld}")
    return out


def down(say: Say = _quiet) -> dict | None:
    st = state.load()
    if st is None:
        return None
    lock = up_lock()
    lock.acquire(say)
    try:
        st = state.load()
        if st is None:
            return None
        server = attach_running(ServerSpec(provider=st.get("provider", "auto")), lock=lock)
        if server is not None and server.foreign_owner is not None:
            raise UsageError(f"the server from `loadgen up` in {state_dir()} is kept up by another job "
                             f"({server.foreign_owner}); loadgen does not stop it",
                             "stop it from that job (or with its LOADGEN_CACHE_DIR), or give this job a state "
                             "directory of its own (LOADGEN_STATE_DIR)")
        if server is not None:
            server.stop()
        state.clear()
        return st
    finally:
        lock.release()

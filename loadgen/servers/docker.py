"""A MySQL/MariaDB server in a container, started with testcontainers.

The container gets the same settings as a local server (pool from --pool, O_DIRECT, no pool
dump/load, no binary log), publishes 3306 on 127.0.0.1 only, and its root password is generated,
kept in a 0600 file on the host and handed to the image as a *_FILE secret, so it shows neither in
our output nor in `docker inspect`. Readiness is a successful login, not a log line: the
testcontainers default waits for "ready for connections" twice, which never comes from an image
whose entrypoint starts the server once (ours, or any datadir that is already initialised).

The datadir lives in a named volume. A seeded dataset's volume is kept and named after the same
key as the local dataset cache, so a later run reuses it; a scratch volume is removed with the
container. Cleanup is ours on every exit path (end, error, Ctrl-C); the testcontainers reaper
(Ryuk) is used only when its image is already present, and containers orphaned by a killed
loadgen are swept by the next one (they are labelled with the pid that owns them: engine.py).
"""
from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Callable

from ..db import Endpoint, Flavor, auth_plugin_hint, error_text, parse_version
from ..errors import ProvisionError, UsageError
from ..paths import cache_dir, state_dir
from ..units import format_bytes
from . import (DEFAULT_POOL_BYTES, ColdStart, Server, ServerSpec, ask_slow_shutdown, check_pool_minimum, fastpath,
               lent_start, refuse_lent_pool, server_flags, write_secret)
from .engine import DEFAULT_IMAGE, LABEL, build_hint, engine, image_flavor, image_status, short_error, sweep_orphans
# Looked up here at each use, so a lab script can swap the labels of the containers it starts.
from .engine import owner_labels as _owner_labels

DATADIR = "/var/lib/mysql"
SECRET_PATH = "/run/loadgen/root-password"
READY_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60
# What the server needs beside its pool (connections, dictionary, log buffer), for the check that
# a pool fits in the memory the engine can give a container.
SERVER_OVERHEAD_BYTES = 256 << 20

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def _container_class():
    # testcontainers 4.15 moved the MySQL module; the old path still works there but warns.
    try:
        from testcontainers.community.mysql import MySqlContainer
    except ImportError:
        try:
            from testcontainers.mysql import MySqlContainer
        except ImportError:
            raise ProvisionError("--server docker needs the testcontainers package",
                                 "pip install 'loadgen[docker]', or use --server local") from None

    class LoadgenContainer(MySqlContainer):
        """MySqlContainer with the password as a file secret and no log-line wait."""

        secret_as_file = hasattr(MySqlContainer, "with_copy_into_container")

        def _configure(self) -> None:
            # Both official images (and ours) read *_FILE; MySqlContainer would put the password
            # itself into the environment, where `docker inspect` shows it. Older testcontainers
            # releases cannot copy a file in before the start, so there the environment it is.
            # No MYSQL_DATABASE either: the dataset code creates its own database.
            if self.secret_as_file:
                self.with_env("MYSQL_ROOT_PASSWORD_FILE", SECRET_PATH)
            else:
                self.with_env("MYSQL_ROOT_PASSWORD", self.root_password)

        def _connect(self) -> None:
            # Readiness is checked by DockerServer logging in; see the module docstring.
            pass

    return LoadgenContainer


# -- the server ----------------------------------------------------------------------------------
class DockerServer(Server):
    """A container running `image` with its datadir in a named volume.

    Args:
        spec: what the user asked for (image, pool, port, extra variables).
        dataset: the dataset the server will hold; its volume is cached under the dataset key.
        persist: `loadgen up`: the container outlives this process and its state is saved.
    """

    provider = "docker"

    def __init__(self, spec: ServerSpec, dataset=None, persist: bool = False, say: Say = _quiet):
        if spec.mysqld:
            raise UsageError("--mysqld goes with --server local, not --server docker", "use --image instead")
        self.image = spec.image or DEFAULT_IMAGE
        self.pool_bytes = spec.pool_bytes or DEFAULT_POOL_BYTES
        self.requested_port = spec.port
        self.options = dict(spec.options)
        self.persist = persist
        self.say = say
        self.client = engine()
        try:
            self._init_image(dataset)
        except BaseException:
            self.client.close()
            raise
        self.container = None
        self.container_name: str | None = None
        self.port: int | None = None
        self.endpoint = Endpoint(host="127.0.0.1", port=0, user="root")
        self.endpoint_path = "published_port"  # how we reach it: see servers/fastpath.py
        self.sock_dir: Path | None = None

    def _init_image(self, dataset) -> None:
        ok, why = image_status(self.client, self.image)
        if not ok:
            raise ProvisionError(why, build_hint(self.image))
        if "present" not in why:
            self.say(f"pulling {self.image}")
            try:
                self.client.images.pull(self.image)
            except Exception as exc:  # noqa: BLE001 - a registry or engine failure of any kind is one line
                raise ProvisionError(f"pulling {self.image} failed: {short_error(exc)}",
                                     build_hint(self.image)) from None
        self.image_id = self.client.images.get(self.image).id
        self.flavor = image_flavor(self.client, self.image)
        check_pool_minimum(self.pool_bytes, self.flavor.name)
        self._check_memory()
        if self.persist:
            key = f"up-{self.flavor.name}-{self.flavor.version}"
            home = state_dir() / "docker"
        elif dataset is not None:
            key = dataset.cache_key(self.flavor)
            home = cache_dir() / "docker"
        else:
            key = f"scratch-{os.getpid()}-{secrets.token_hex(3)}"
            home = None
        # The volume name carries a digest of the directory holding its password, so loadgens with
        # different cache dirs (tests, other users) never share a datadir they cannot log in to.
        where = str((home or cache_dir()).resolve())
        self.volume = f"loadgen-{hashlib.sha1(where.encode()).hexdigest()[:8]}-{key}"
        self.scratch = home is None
        self.secret_dir = (home / self.volume) if home is not None else None
        self._password = self._load_password()

    def _check_memory(self) -> None:
        total = int(self.client.info().get("MemTotal") or 0)
        if total and self.pool_bytes + SERVER_OVERHEAD_BYTES > total:
            most = max(0, total - SERVER_OVERHEAD_BYTES) >> 20
            raise UsageError(
                f"pool {format_bytes(self.pool_bytes)} is larger than a container may use "
                f"(the Docker engine has {format_bytes(total)} of memory)",
                f"use --pool {most}M or less",
            )

    # -- password ------------------------------------------------------------------------------
    def _load_password(self) -> str:
        if self.secret_dir is not None:
            try:
                return (self.secret_dir / "password").read_text().strip()
            except FileNotFoundError:
                pass
        return secrets.token_urlsafe(18)

    def _save_password(self) -> None:
        if self.secret_dir is None:
            return
        self.secret_dir.mkdir(parents=True, exist_ok=True)
        path = self.secret_dir / "password"
        if path.exists():
            return
        write_secret(path, self._password)

    @property
    def _ready_marker(self) -> Path | None:
        return self.secret_dir / "initialised" if self.secret_dir is not None else None

    # -- volume --------------------------------------------------------------------------------
    def _prepare_volume(self) -> None:
        import docker as docker_sdk

        try:
            vol = self.client.volumes.get(self.volume)
        except docker_sdk.errors.NotFound:
            vol = None
        if vol is not None:
            users = self.client.containers.list(all=True, filters={"volume": self.volume}, ignore_removed=True)
            if users:
                raise ProvisionError(
                    f"the volume {self.volume} is in use by container {users[0].name} (another loadgen?)",
                    f"wait for it to finish, or remove it: docker rm -f {users[0].name}",
                )
            marker = self._ready_marker
            if marker is None or not marker.exists():
                # An initialisation that never finished (interrupted), or a password we no longer
                # have: the datadir is unusable, so start it over.
                vol.remove()
                vol = None
        if vol is None:
            labels = _owner_labels(keep=self.persist)
            labels[f"{LABEL}.scratch"] = "1" if self.scratch else "0"
            labels[f"{LABEL}.cache"] = str(self.secret_dir.parent) if self.secret_dir else ""
            self.client.volumes.create(self.volume, labels=labels)
            if self._ready_marker is not None:
                try:
                    self._ready_marker.unlink()
                except FileNotFoundError:
                    pass
        self._save_password()

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        sweep_orphans(self.client)
        self._prepare_volume()
        self._launch()

    def _command(self) -> list[str]:
        flags = server_flags(self.pool_bytes, self.options, self.flavor.name)
        if self.sock_dir is not None:
            flags.append(f"--socket={fastpath.SOCKET_DIR}/{fastpath.SOCKET_NAME}")
        return flags

    def _use_ryuk(self) -> bool:
        """Ryuk only when its image is here already: an offline host cannot pull it, and a
        container kept by `loadgen up` must outlive this process, which Ryuk would not allow."""
        from testcontainers.core.config import testcontainers_config as tc_config

        if tc_config.ryuk_disabled:
            return False
        present = False
        if not self.persist:
            try:
                self.client.images.get(tc_config.ryuk_image)
                present = True
            except Exception:  # noqa: BLE001 - any failure means Ryuk's image is not here
                present = False
        if not present:
            tc_config.ryuk_disabled = True
        return present

    def _launch(self) -> None:
        import docker as docker_sdk

        container_cls = _container_class()
        self.ryuk = self._use_ryuk()
        self.container_name = f"loadgen-{'up' if self.persist else os.getpid()}-{secrets.token_hex(3)}"
        tc = container_cls(self.image, username="root", password=self._password, dbname="mysql",
                           labels=_owner_labels(keep=self.persist))
        tc.with_name(self.container_name)
        self.sock_dir = None
        if fastpath.local_linux_engine() and fastpath.wanted() in (None, "unix_socket"):
            self.sock_dir = fastpath.socket_dir(cache_dir() / "docker", self.container_name)
        if self.sock_dir is not None:
            fastpath.make_socket_dir(self.sock_dir)
            tc.with_volume_mapping(str(self.sock_dir), fastpath.SOCKET_DIR, "rw")
        tc.with_command(self._command())
        tc.with_volume_mapping(self.volume, DATADIR, "rw")
        # 127.0.0.1 only: docker-py reads a 1-tuple as "this host address, any free port".
        tc.ports = {"3306/tcp": ("127.0.0.1", self.requested_port) if self.requested_port else ("127.0.0.1",)}
        if tc.secret_as_file:
            # 0444: the official entrypoints re-read it after dropping to the mysql user.
            tc.with_copy_into_container(self._password.encode(), SECRET_PATH, 0o444)
        self._tc = tc
        self._log_since = int(time.time())
        try:
            tc.start()
        except docker_sdk.errors.APIError as exc:
            self._remove_container(graceful=False)
            text, full = short_error(exc), str(exc)
            if "port is already allocated" in full or "address already in use" in full:
                raise ProvisionError(f"port {self.requested_port} is already in use",
                                     "omit --port to let Docker pick a free one") from None
            raise ProvisionError(f"the container did not start: {text}", "check `docker info`") from None
        self.container = tc.get_wrapped_container()
        self.container.reload()
        self.port = self._host_port()
        self.endpoint = Endpoint(host="127.0.0.1", port=self.port, user="root", password=self._password)
        self.endpoint_path = "published_port"
        self._wait_ready()
        # Past docker-proxy where the engine allows it (servers/fastpath.py).
        self.endpoint, self.endpoint_path = fastpath.choose(self.container, self.endpoint, self.sock_dir)
        if self._ready_marker is not None:
            self._ready_marker.touch()
        if self.persist:  # a server kept up between commands: its container and port must be findable
            from . import state

            state.save(self.to_state())

    def _host_port(self) -> int:
        bindings = (self.container.attrs["NetworkSettings"]["Ports"] or {}).get("3306/tcp") or []
        for b in bindings:
            if b.get("HostIp") == "127.0.0.1":
                return int(b["HostPort"])
        raise ProvisionError("the container has no port on 127.0.0.1",
                             "check `docker port " + self.container_name + "`")

    def _wait_ready(self) -> None:
        import MySQLdb

        deadline = time.monotonic() + READY_TIMEOUT_S
        delay = 0.05
        while True:
            if not self.alive():
                why = self.diagnostics()
                raise ProvisionError(f"the container exited during start-up: {why}",
                                     f"run `docker run --rm {self.image} {' '.join(self._command())}` to see why")
            try:
                conn = MySQLdb.connect(host="127.0.0.1", port=self.port, user="root", passwd=self._password,
                                       connect_timeout=2)
            except MySQLdb.OperationalError as exc:
                plugin_hint = auth_plugin_hint(exc)
                if plugin_hint:
                    raise ProvisionError(f"cannot log in to the container's server: {error_text(exc)}",
                                         plugin_hint) from None
                if exc.args and exc.args[0] == 1045:
                    raise ProvisionError(
                        f"cannot log in to the server in volume {self.volume} (its password is lost)",
                        f"remove the volume: docker volume rm {self.volume}",
                    ) from None
                # Refused or reset by docker-proxy while the entrypoint is still initialising.
                if time.monotonic() > deadline:
                    raise ProvisionError(
                        f"the container did not accept connections within {READY_TIMEOUT_S:.0f} s: "
                        f"{self.diagnostics()}",
                        f"see `docker logs {self.container_name}`",
                    ) from None
                time.sleep(delay)  # polling a condition with a deadline, not a fixed wait
                delay = min(delay * 1.5, 0.5)
                continue
            try:
                cur = conn.cursor()
                cur.execute("SELECT VERSION(), @@version_comment")
                self.flavor = parse_version(*(str(v) for v in cur.fetchone()))
                cur.close()
            finally:
                conn.close()
            return

    def stop(self) -> None:
        self._remove_container(graceful=True)
        if self.scratch:
            try:
                self.client.volumes.get(self.volume).remove(force=True)
            except Exception:  # noqa: BLE001 - never created, or already gone
                pass

    def discard(self) -> None:
        if self.persist or self.scratch or self.foreign_owner is not None:
            return  # a scratch volume went with stop()
        try:
            self.client.volumes.get(self.volume).remove(force=True)
        except Exception:  # noqa: BLE001 - never created, or already gone
            pass
        if self.secret_dir is not None:
            shutil.rmtree(self.secret_dir, ignore_errors=True)

    def _remove_container(self, graceful: bool) -> None:
        """Stop (cleanly, so a cached datadir needs no crash recovery) and remove; idempotent."""
        import docker as docker_sdk

        container = self.container
        if container is None and self.container_name:
            # Interrupted between create and our handle: find it by the name we gave it.
            try:
                container = self.client.containers.get(self.container_name)
            except docker_sdk.errors.NotFound:
                container = None
            except docker_sdk.errors.APIError:
                container = None
        if container is not None:
            try:
                if graceful:
                    container.stop(timeout=STOP_TIMEOUT_S)
            except KeyboardInterrupt:
                container.remove(force=True, v=True)
                raise
            except docker_sdk.errors.APIError:
                pass  # already stopped or gone: remove below
            try:
                container.remove(force=True, v=True)
            except docker_sdk.errors.NotFound:
                pass
            except docker_sdk.errors.APIError as exc:
                if "already in progress" not in str(exc):
                    raise ProvisionError(f"could not remove container {self.container_name}: {short_error(exc)}",
                                         f"remove it yourself: docker rm -f {self.container_name}") from None
        self.container = None
        self._tc = None
        self.port = None
        if self.sock_dir is not None:
            import shutil

            shutil.rmtree(self.sock_dir, ignore_errors=True)

    def restart_cold(self, slow: bool = False) -> ColdStart:
        # A new container on the same volume: the pool starts empty (load_at_startup=OFF), and a
        # changed --pool takes effect, which `docker restart` could not do.
        if self.foreign_owner is not None:
            return lent_start(self)
        details = ask_slow_shutdown(self) if slow else {"shutdown": "fast"}
        started = time.monotonic()
        self._remove_container(graceful=True)
        details["stop_s"] = round(time.monotonic() - started, 3)
        self._launch()
        return ColdStart("restart", True, "container recreated on the same datadir with load_at_startup=OFF", details)

    def set_pool(self, pool_bytes: int) -> None:
        refuse_lent_pool(self, pool_bytes)
        check_pool_minimum(pool_bytes, self.flavor.name)
        self.pool_bytes = pool_bytes
        self._check_memory()

    # -- state for `loadgen up` ----------------------------------------------------------------
    def to_state(self) -> dict:
        return {
            "provider": self.provider, "container": self.container.id if self.container else None,
            "name": self.container_name, "port": self.port, "image": self.image, "volume": self.volume,
            "secret_dir": str(self.secret_dir), "pool_bytes": self.pool_bytes, "flavor": self.flavor.name,
            "version": self.flavor.version, "options": self.options, "endpoint_path": self.endpoint_path,
            "endpoint_host": self.endpoint.host, "endpoint_port": self.endpoint.port,
            "unix_socket": self.endpoint.unix_socket, "sock_dir": str(self.sock_dir) if self.sock_dir else None,
        }

    @classmethod
    def from_state(cls, st: dict) -> DockerServer:
        """Re-attach to a container started by `loadgen up` in another process."""
        import docker as docker_sdk

        self = cls.__new__(cls)
        self.image = st["image"]
        self.pool_bytes = int(st["pool_bytes"])
        self.requested_port = None
        self.options = dict(st.get("options") or {})
        self.persist = True
        self.say = _quiet
        self.scratch = False
        self.volume = st["volume"]
        self.secret_dir = Path(st["secret_dir"])
        self.flavor = Flavor(st["flavor"], st["version"])
        self.container_name = st.get("name")
        self.port = st.get("port")
        self.ryuk = False
        self._tc = None
        self.client = engine()
        self.image_id = None
        self._password = self._load_password()
        try:
            self.container = self.client.containers.get(st["container"])
        except (docker_sdk.errors.NotFound, docker_sdk.errors.NullResource):
            self.container = None
        self.endpoint = Endpoint(host=st.get("endpoint_host") or "127.0.0.1",
                                 port=int(st.get("endpoint_port") or self.port or 0), user="root",
                                 password=self._password, unix_socket=st.get("unix_socket"))
        self.endpoint_path = st.get("endpoint_path") or "published_port"
        self.sock_dir = Path(st["sock_dir"]) if st.get("sock_dir") else None
        return self

    # -- health --------------------------------------------------------------------------------
    def alive(self) -> bool:
        if self.container is None:
            return False
        try:
            self.container.reload()
        except Exception:  # noqa: BLE001 - removed, or the engine is gone
            return False
        return self.container.status == "running"

    def diagnostics(self) -> str:
        """Exit status and the container's last error lines, for an error message."""
        if self.container is None:
            return "the container is gone"
        try:
            self.container.reload()
            st = self.container.attrs.get("State") or {}
            logs = self.container.logs(tail=40).decode(errors="replace")
        except Exception as exc:  # noqa: BLE001 - for an error message: never fail while explaining one
            return f"cannot read the container's state: {short_error(exc)}"
        parts = []
        if st.get("OOMKilled"):
            parts.append("killed for lack of memory (OOM)")
        elif st.get("Status") in ("exited", "dead"):
            code = st.get("ExitCode")
            parts.append(f"exit code {code}" + {137: " (killed)", 143: " (terminated)"}.get(code, ""))
        lines = [ln.strip() for ln in logs.splitlines() if ln.strip()]
        errors = [ln for ln in lines if "[ERROR]" in ln or "error" in ln.lower()]
        parts.append(" | ".join((errors or lines)[-3:]) or "no log output")
        return "; ".join(parts)

    def describe(self) -> dict:
        return {"provider": self.provider, "image": self.image, "image_id": (self.image_id or "")[7:19] or None,
                "container": self.container_name, "volume": self.volume, "volume_kept": not self.scratch,
                "endpoint_path": self.endpoint_path}

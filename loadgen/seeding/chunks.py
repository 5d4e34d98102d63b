"""Seeding's chunk pipeline, shared by the seed's own table (dataset.py) and a schema file's table
(usertable.py): the next chunk of rows is generated in a thread while the server ingests the
current one, every chunk reaches the server through one private file (LOAD DATA LOCAL), and a
driver error while seeding becomes one line.

The row generators are C and release the GIL, and mysqlclient releases it while the server
ingests, so the two overlap; the queue holds at most two chunks, so memory stays flat whatever
the row count.
"""
from __future__ import annotations

import contextlib
import os
import queue
import tempfile
import threading
from pathlib import Path
from typing import Callable, TypeVar
from collections.abc import Iterable, Iterator

from .. import db
from ..errors import LoadgenError, SeedError, WorkloadError

T = TypeVar("T")
# Chunk files carry loadgen's pid in their name, so a later seed can tell a dead process's file.
FILE_PREFIX = "loadgen-seed-"
AHEAD = 2  # chunks the generator may run ahead of the loader


class _Failed:
    """The producer's exception, carried across the queue to be raised in the consumer."""

    def __init__(self, exc: BaseException):
        self.exc = exc


_END = object()


@contextlib.contextmanager
def generated_ahead(chunks: Iterable[T], name: str) -> Iterator[Iterator[T]]:
    """Iterate `chunks`, computed in a thread called `name` up to AHEAD items before they are
    taken. An exception of the generator is raised in the consumer; leaving the block (done,
    error or Ctrl-C) stops the generator within 0.2 s."""
    items: queue.Queue = queue.Queue(maxsize=AHEAD)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():  # a timed put: a consumer that left must not block us forever
            try:
                items.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in chunks:
                if not put(item):
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the loading thread
            put(_Failed(exc))
            return
        put(_END)

    def consume() -> Iterator[T]:
        while True:
            item = items.get()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.exc
            yield item

    producer = threading.Thread(target=produce, name=name, daemon=True)
    producer.start()
    try:
        yield consume()
    finally:
        stop.set()
        producer.join(timeout=5)


@contextlib.contextmanager
def chunk_file(directory: Path | None) -> Iterator[str]:
    """The one file every chunk is written to before LOAD DATA LOCAL reads it (in directory, from
    chunk_dir; None: the system temp directory); removed after."""
    fd, path = tempfile.mkstemp(prefix=f"{FILE_PREFIX}{os.getpid()}-", suffix=".tsv", dir=directory)
    os.close(fd)
    try:
        yield path
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def chunk_dir(home: Path | None) -> Path:
    """Where seeding's chunk files go: the dataset's home (never the system temp directory,
    where a killed seed left 5.6 MB per run), with files of dead processes swept first."""
    if home is None:
        from ..paths import cache_dir

        directory = cache_dir() / "tmp"
    else:
        directory = Path(home) / "tmp"
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    for stale in directory.glob(f"{FILE_PREFIX}*.tsv"):
        try:
            pid = int(stale.name[len(FILE_PREFIX):].split("-")[0])
            os.kill(pid, 0)
            continue  # its process still runs (another seed through a dsn server)
        except ProcessLookupError:
            pass
        except (ValueError, IndexError, PermissionError):
            continue
        stale.unlink(missing_ok=True)
    return directory


def load_local(cur, sql: str, path: str, data: bytes) -> bool:
    """Write a chunk to the chunk file and LOAD DATA LOCAL it (sql: one %s, the path). False when
    LOAD DATA LOCAL is refused, for the caller to seed another way; any other error is raised as
    seed_error's one line."""
    with open(path, "wb") as f:
        f.write(data)
    try:
        cur.execute(sql, (path,))
    except Exception as exc:  # noqa: BLE001 - classified here
        if not local_infile_refused(exc):
            raise seed_error(exc) from None
        return False
    return True


def local_infile_refused(exc: BaseException) -> bool:
    """The server (local_infile=OFF) or the client refused LOAD DATA LOCAL: the seed can go on
    another way, unlike any other error."""
    args = getattr(exc, "args", ())
    code = args[0] if args and isinstance(args[0], int) else 0
    # 4166: MariaDB 10.6+ when the client did not enable it (ER_LOAD_INFILE_CAPABILITY_DISABLED).
    return code in (1148, 2068, 3948, 1229, 4166) or "local_infile" in str(exc).lower()


def seed_error(exc: BaseException) -> Exception:
    """A driver error while seeding as one line: a full disk, a lost server, or what it said."""
    text = db.error_text(exc)
    args = getattr(exc, "args", ())
    code = args[0] if args and isinstance(args[0], int) else 0
    if code in (1114, 1021, 3) or "full" in text.lower() or "space" in text.lower():
        return SeedError(f"the server ran out of disk space while seeding: {text}",
                         "free disk space or use fewer --rows; committed rows are kept and seeding resumes")
    if db.is_connection_lost(exc):
        return WorkloadError(f"lost the server while seeding: {text}", "check the server; re-run to resume")
    return SeedError(f"seeding failed: {text}")


def is_driver_error(exc: BaseException) -> bool:
    """An error of the MySQL driver (the server's or the connection's), not loadgen's own."""
    try:
        import MySQLdb
    except ImportError:
        return False
    return isinstance(exc, MySQLdb.Error)


def raise_if_not_the_table(exc: BaseException, doing: str, unharmed: str) -> None:
    """The driver errors that say nothing about a table, as one line: an interruption (Ctrl-C,
    SIGTERM: KeyboardInterrupt), a lost server, a connection out of step (error 2014 after an
    interrupted statement: never damage, issue #18 N6). Returns for any other error, which the
    caller words for its table. doing: "while ..." text; unharmed: what the re-run advice adds."""
    if db.interrupted(exc):
        raise KeyboardInterrupt from None
    text = db.error_text(exc)
    if db.is_connection_lost(exc):
        raise WorkloadError(f"lost the server while {doing}: {text}", "check the server; re-run to resume") from None
    if db.is_out_of_sync(exc):
        raise WorkloadError(f"the connection got out of step while {doing}: {text}", f"re-run; {unharmed}") from None


def in_one_line(prepare: Callable[[], T], doing: str, unharmed: str, word: Callable[[str], LoadgenError]) -> T:
    """prepare() (a table made ready: seeded, resumed or inspected) with the server's errors as
    one line: an interruption stays one (a cleanup's error after Ctrl-C/SIGTERM too), the errors
    that say nothing about the table are raise_if_not_the_table's, and any other driver error is
    word(the server's text). loadgen's own errors pass as they are."""
    try:
        return prepare()
    except LoadgenError as exc:
        if db.interrupted(exc):
            raise KeyboardInterrupt from None
        raise
    except Exception as exc:  # only the driver's errors become one line
        if not is_driver_error(exc):
            raise
        raise_if_not_the_table(exc, doing, unharmed)
        raise word(db.error_text(exc)) from None

"""loadgen run with the page cleaner's LRU batch watch on MariaDB too (branch ycsba300k2's experiment):
measure/cleaner.py's CleanerWatch, its query taking MariaDB's ENABLED column; nothing else changed."""

import sys
from loadgen.measure import cleaner
from loadgen.runner import mix as runner_mix


def read_metrics(conn):
    cur = conn.cursor()
    try:
        cur.execute(
            "SELECT NAME, COUNT, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME IN (%s, %s)", cleaner.METRICS
        )
        rows = cur.fetchall()
    except Exception as exc:
        sys.stderr.write(f"watch: {exc!r}\n")
        return {}
    finally:
        cur.close()
    if not getattr(read_metrics, "shown", False):
        read_metrics.shown = True
        sys.stderr.write(f"watch rows: {rows!r}\n")
    out = {}
    for name, count, enabled in rows:
        name = name.decode() if isinstance(name, bytes) else str(name)
        out[name.lower()] = (int(count or 0), bool(int(enabled)))
    return out


def watch_cleaner(server, flavor, queries_done):
    try:
        conn = server.connect()
    except Exception:
        return None
    return cleaner.CleanerWatch(conn, queries_done, owned=bool(server.owned))


cleaner.BATCHES_METRIC = "buffer_LRU_batch_num_scan"  # MariaDB has no buffer_LRU_batches_evict
cleaner.METRICS = (cleaner.PAGES_METRIC, cleaner.BATCHES_METRIC)
cleaner.read_metrics = read_metrics
runner_mix.watch_cleaner = watch_cleaner
_stop = cleaner.CleanerWatch.stop


def stop(self):
    """The record, with the LRU batches' scanned pages and the flush counters at the end (totals since start)."""
    extra = {}
    try:
        cur = self.conn.cursor()
        cur.execute("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME LIKE 'buffer_LRU_batch%'")
        extra = {str(n.decode() if isinstance(n, bytes) else n): int(c or 0) for n, c in cur.fetchall()}
        cur.close()
    except Exception as exc:  # noqa: BLE001 - the record goes on without them
        extra = {"error": repr(exc)}
    rec = _stop(self)
    if rec is not None:
        rec["lru_batch_metrics_at_end"] = extra
    return rec


cleaner.CleanerWatch.stop = stop

from loadgen.__main__ import main  # noqa: E402

sys.exit(main())

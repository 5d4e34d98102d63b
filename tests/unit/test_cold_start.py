"""Whether a run started cold is decided from what the pool held right before it, never from the
start method's claim; a warm run gets no error figure unless what it held was too little to matter."""
from __future__ import annotations

from loadgen.analysis import sweep
from loadgen.measure.coldstart import verify_cold
from loadgen.servers import ColdStart
from loadgen.analysis.predict import predict
from loadgen.results.documents import RunResult


def predicted(result: dict) -> dict | None:
    """The door's prediction block for a result given as its JSON."""
    p = predict(RunResult.from_dict(result))
    return None if p is None else p.to_dict()


MYSQL_AFTER_RESTART = {"pages_data": 968, "pages_free": 0, "pages_total": 1024}
KEPT = ColdStart("resize", False, "the server kept its pool at 16 MiB when asked to shrink it to 5 MiB",
                 fix="restart the server right before the run")


def test_a_pool_that_holds_none_of_the_table_is_cold_whatever_the_method_claimed():
    # --dsn on MySQL right after a restart: one chunk cannot shrink, yet the pool is a fresh one
    v = verify_cold(KEPT, MYSQL_AFTER_RESTART, "mysql", {"PRIMARY": 1}, height=3)
    assert v["cold"] is True and v["verified_by"] == "table_pages" and v["table_pages_before"] == 1
    assert "it starts cold" in v["note"] and "fix" not in v


def test_without_the_tables_pages_a_pool_in_its_start_up_state_is_cold():
    v = verify_cold(KEPT, {"pages_data": 968, "pages_free": 7224, "pages_total": 8192}, "mysql", None,
                    most_data_pages=8192)
    assert v["cold"] is True and v["verified_by"] == "pages_data"
    warm = verify_cold(KEPT, {"pages_data": 5000, "pages_total": 8192}, "mysql", None, most_data_pages=8192)
    assert warm["cold"] is False and warm["verified_by"] == "pages_data"


def test_without_the_tables_pages_a_pool_too_small_to_tell_is_not_judged():
    """Issue #18: a SELECT-only --dsn user at 8M was always told "cold": 512 frames can never hold
    more than the ~960 pages a fresh MySQL keeps, warm or not. Now the start is not judged."""
    full = {"pages_data": 500, "pages_free": 0, "pages_total": 512}
    v = verify_cold(KEPT, full, "mysql", None, most_data_pages=512)
    assert v["cold"] is None and v["verified"] is False and v["verified_by"] is None
    assert "cannot be judged" in v["note"] and "PROCESS" in v["fix"]
    # MariaDB at 16M: its page cleaner keeps the LRU list at 256 pages or fewer (analysis/pool.py)
    small = verify_cold(KEPT, {"pages_data": 200, "pages_total": 1014}, "mariadb", None, most_data_pages=256)
    assert small["cold"] is None
    # the table's own pages, when they can be read, decide as before
    assert verify_cold(KEPT, full, "mysql", {"PRIMARY": 1}, height=3, most_data_pages=512)["cold"] is True


def test_a_pool_holding_the_table_is_warm_whatever_the_method_claimed_and_names_the_fix():
    # MariaDB's shrink to 6 MiB kept a 165-page table whole, with pages_data under the start-up allowance
    shrunk = ColdStart("resize", True, "pool shrunk to 6 MiB and grown back to 16 MiB",
                       fix="restart the server right before the run")
    v = verify_cold(shrunk, {"pages_data": 236, "pages_total": 1014}, "mariadb", {"PRIMARY": 165}, height=2)
    assert v["cold"] is False and v["table_pages_before"] == 165
    assert "165 of the table's pages" in v["note"] and v["fix"] == "restart the server right before the run"


def test_the_cold_allowance_covers_the_descents_that_read_the_key_range():
    assert verify_cold(KEPT, MYSQL_AFTER_RESTART, "mysql", {"PRIMARY": 8}, height=3)["cold"] is True
    assert verify_cold(KEPT, MYSQL_AFTER_RESTART, "mysql", {"PRIMARY": 9}, height=3)["cold"] is False


def _result(cold: dict, pages_read: int) -> dict:
    return {
        "workload": {"order": "looped", "stride": 10, "reps": 2},
        "dataset": {"rows": 20_000, "leaf_pages": 164, "height": 2},
        "server": {"innodb_buffer_pool_size": 8 << 20, "flavor": "mariadb", "variables": {}, "cold_start": cold},
        "buffer_pool": {"pages_read": pages_read, "read_requests": 8_000, "pages_total": 507},
        "result": {"qps": 5_000},
    }


def test_a_warm_run_gets_its_prediction_without_an_error_figure():
    pred = predicted(_result({"cold": False, "table_pages_before": 165}, pages_read=5))
    assert pred["reads"] > 100  # the model's cold-start reads stay visible
    assert pred["error_pct"] is None and pred["plain_lru_error_pct"] is None
    assert "165 of the table's pages" in pred["no_error_reason"]


def test_a_warm_run_with_a_negligible_residue_keeps_its_error_and_says_so():
    pred = predicted(_result({"cold": False, "table_pages_before": 2}, pages_read=330))
    assert pred["error_pct"] is not None and pred["no_error_reason"] is None
    assert "2 of the table's pages" in pred["warm_start"]


def test_a_cold_run_keeps_its_error():
    pred = predicted(_result({"cold": True, "table_pages_before": 0}, pages_read=330))
    assert pred["error_pct"] is not None and pred["warm_start"] is None


def test_a_sweep_recommends_from_cold_points_only():
    points = [
        {"variation": "A", "pool_bytes": 8 << 20, "miss_ratio": 0.05, "started_cold": True},
        # a dsn point whose shrink kept the whole table: 0 pages read, and no division by it
        {"variation": "A", "pool_bytes": 16 << 20, "miss_ratio": 0.0, "started_cold": False},
    ]
    rec = sweep.recommend(points, 5.0)["A"]
    assert rec["pool_bytes"] == 8 << 20
    assert "16 MiB" in rec["reason"] and "warm" in rec["reason"]


class _Said:
    """The reporter's say(), kept."""

    def __init__(self):
        self.lines: list[str] = []

    def say(self, line: str) -> None:
        self.lines.append(line)


def _fits_warnings(leaf_pages: int, status: dict, flavor: str) -> list[str]:
    from types import SimpleNamespace

    from loadgen.runner.single import _warn_if_fits

    said = _Said()
    _warn_if_fits(SimpleNamespace(leaf_pages=leaf_pages, table_bytes=leaf_pages * 16384), status, said,
                  flavor, {"innodb_lru_scan_depth": 1536})
    return [line for line in said.lines if "fits in the pool" in line]


def test_a_table_the_mariadb_page_cleaner_keeps_out_of_a_small_pool_is_not_said_to_fit():
    """Replayed on the merged main: `run --server local --pool 16M --rows 100k --order random` said
    "the table (817 leaf pages) fits in the pool's 984 usable pages: every order misses each page
    only once", then read 16,627 pages (predicted 16,679); at 8 MiB a 164-page table "fit in 376
    usable pages" and 246 were read. MariaDB's page cleaner keeps the LRU list of such pools
    between 32 and 256 pages (analysis/pool.py), which the warning did not count."""
    assert _fits_warnings(817, {"pages_total": 1014, "pages_data": 30}, "mariadb") == []
    assert _fits_warnings(164, {"pages_total": 507, "pages_data": 131}, "mariadb") == []
    # 64 MiB: 4,056 frames less the ~1,152 the cleaner keeps free; 817 pages were read, each once
    assert _fits_warnings(817, {"pages_total": 4056, "pages_data": 130}, "mariadb")
    # 32 MiB: 2,028 frames, about 0.75 x 1,536 kept free by the cleaner
    assert _fits_warnings(1500, {"pages_total": 2028, "pages_data": 130}, "mariadb") == []
    # MySQL keeps no standing free reserve: what the server does not hold is the table's
    assert _fits_warnings(1500, {"pages_total": 2048, "pages_data": 400}, "mysql")

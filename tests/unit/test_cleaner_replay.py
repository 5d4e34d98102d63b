"""MySQL's page-cleaner LRU batches as a run recorded them, replayed by the kernel
(native/lrusim/cleaner.c cleaner_replay), and the bounds a prediction without a record gives
(model.simulate_bounded)."""
from array import array

import pytest

from loadgen import native
from loadgen.analysis import model
from loadgen.measure.cleaner import replay_schedule
from loadgen.analysis.predict import predict
from loadgen.results.documents import RunResult


def predicted(result: dict) -> dict | None:
    """The door's prediction block for a result given as its JSON."""
    p = predict(RunResult.from_dict(result))
    return None if p is None else p.to_dict()


# A bare trace of 600 pages read twice, a pool of 1,000: nothing is evicted without a batch, so
# every batch's evictions show in the second pass's misses page for page. The clock (0.01 ms a
# reference) keeps every page old (innodb_old_blocks_time 1000 ms), so the tail is the first pass's
# oldest pages.
TRACE = array("I", list(range(600)) * 2)


def kernel(seen, capacity=1000):
    return native.lrusim_innodb(TRACE, None, 600, capacity, capacity, 37, 1000, 0.01, 0, 64, True,
                                model.RA_RULE_MYSQL, 0, 0, 0, 0, 0.0, 1000.0, 1, 0, seen)


def test_a_batch_at_query_q_evicts_n_tail_pages_that_the_rest_reads_again():
    assert kernel(None)[1] == 600  # no batch: the cold misses only
    assert kernel(())[1] == 600  # a record of no batch is the same
    # 100 pages evicted before reference 600: pages 0..99, read again right after
    assert kernel(((600, 100),))[1] == 700
    # two batches: the first evicts 0..49 (read again at once); the second, at reference 900, the
    # tail's 50..99, whose second reads came before it: it costs no read
    assert kernel(((600, 50), (900, 50)))[1] == 650


def test_a_batch_stops_at_buf_lru_min_len_and_one_after_the_run_changes_nothing():
    # 500 asked of a 600-page list: it stops at BUF_LRU_MIN_LEN (256) pages, 344 evicted
    assert kernel(((600, 500),))[1] == 600 + 600 - model.LRU_MIN_LEN
    assert kernel(((5000, 100),))[1] == 600  # seen after the last query
    assert kernel(((0, 100),))[1] == 600  # at the start: the list was empty


def test_a_record_out_of_order_is_refused():
    with pytest.raises(ValueError, match="sorted"):
        kernel(((700, 1), (600, 1)))


def test_replay_schedule_places_each_batch_between_its_polls():
    rec = {"batches": [{"queries_before": 12136, "queries_after": 12264, "pages": 662},
                       {"queries_before": 1178, "queries_after": 1501, "pages": 767}]}
    assert replay_schedule(rec) == ((1339, 767), (12200, 662))
    assert replay_schedule({"batches": []}) == ()  # recorded: none came
    assert replay_schedule(None) is None  # not recorded (MariaDB, older files)
    assert replay_schedule({**rec, "complete": False}) is None  # cut short: the model's mean instead


def mysql_result(batches=None) -> dict:
    """A MySQL run's result as far as the model reads it: 200k rows, B at 16M."""
    bp = {"pages_total": 1024, "pages_data_before": 970, "pages_read": 3400}
    if batches is not None:
        bp["cleaner_batches"] = {"method": "test", "batches": batches}
    return {"workload": {"order": "looped", "stride": 10, "reps": 2},
            "dataset": {"rows": 200_000, "leaf_pages": 1633, "height": 3},
            "server": {"flavor": "mysql", "innodb_buffer_pool_size": 16 << 20, "variables": {}},
            "result": {"qps": 20_000}, "buffer_pool": bp}


def test_a_runs_record_replaces_the_four_phase_mean_and_moves_the_prediction():
    without = predicted(mysql_result())
    late = predicted(mysql_result([{"queries_before": 20000, "queries_after": 20000, "pages": 900}]))
    early = predicted(mysql_result([{"queries_before": 5000, "queries_after": 5000, "pages": 800}]))
    assert "mean over 4 phases" in without["cleaner"] and "replayed" in late["cleaner"]
    # a batch at the loop's turn (query 20,000) evicts what the second pass reads: B at 16M reads
    # hundreds of pages more than with the batch early in the first pass (lab: 2,770..3,449)
    assert late["reads"] - early["reads"] > 300
    # without a record the prediction says how far the batch's timing can move it
    assert without["cleaner_low"] <= without["reads"] <= without["cleaner_high"]
    assert without["cleaner_high"] - without["cleaner_low"] > 300
    assert late["cleaner_low"] is None and late["cleaner_high"] is None
    # every prediction has an interval (analysis/intervals.py); a replayed record's is the narrower
    for p in (without, late, early):
        assert p["reads_low"] <= p["reads"] <= p["reads_high"]
    assert late["reads_high"] - late["reads_low"] < without["reads_high"] - without["reads_low"]


def test_mariadb_keeps_its_model_and_gives_no_cleaner_bounds():
    r = mysql_result([{"queries_before": 20000, "queries_after": 20000, "pages": 900}])
    r["server"]["flavor"] = "mariadb"
    r["buffer_pool"]["pages_total"] = 1014
    p = predicted(r)
    assert p["cleaner"] is None and p["cleaner_low"] is None
    assert p["reads_low"] <= p["reads"] <= p["reads_high"]  # the interval without a cleaner range
    pool = model.pool_model(16 << 20, {}, "mariadb")
    assert model.simulate_bounded("looped", 10, 2, model.geometry_of(r["dataset"]), pool)[1] is None


def key_result(batches=None) -> dict:
    """A MySQL zipfian run at 16M as the door reads it (no samples: paced at the qps)."""
    r = mysql_result(batches)
    r["workload"] = {"order": "zipfian", "stride": 10, "reps": 2, "seed": 5, "count": 20_000}
    r["result"]["queries"] = 20_000
    return r


def test_a_key_streams_record_is_replayed_too_and_narrows_its_interval():
    """Issue #20 item 2: key streams replay the run's recorded batches (keymodel.replay_at_refs) as
    the built-in orders do: no cleaner range, so the interval is the narrower one."""
    without = predicted(key_result())
    none_came = predicted(key_result([]))
    early = predicted(key_result([{"queries_before": 1000, "queries_after": 1000, "pages": 900}]))
    late = predicted(key_result([{"queries_before": 15000, "queries_after": 15000, "pages": 900}]))
    assert "mean over" in without["cleaner"] and without["cleaner_low"] is not None
    for p in (none_came, early, late):
        assert "replayed" in p["cleaner"] and p["cleaner_low"] is None
        assert p["reads_low"] <= p["reads"] <= p["reads_high"]
        assert p["reads_high"] - p["reads_low"] < without["reads_high"] - without["reads_low"]
    # the batch frees the frames MySQL's start-up pages hold (970 of 1,024 here), which the stream
    # then uses: the earlier it lands, the fewer reads (12,767 with none, 11,513 late, 7,238 early;
    # the model's range without a record 7,485 .. 12,767)
    assert early["reads"] < late["reads"] < none_came["reads"]


def test_replay_at_refs_maps_queries_to_their_first_reference():
    from loadgen.analysis import keymodel

    assert keymodel.replay_at_refs(((10, 5), (99, 7)), None, 100, 300) == ((30, 5), (297, 7))
    assert keymodel.replay_at_refs(((10, 5), (500, 7)), [0, 4, 8] + list(range(12, 400, 4)), 100, 400) == \
        ((40, 5), (396, 7))


def test_a_refill_batch_is_the_timed_batch_placed_where_it_was_seen():
    from loadgen.measure.cleaner import SEEN_REFILL

    # at reference 600 the list holds 600 pages, 400 frames free: a refill to 1,000 free frames
    # stops at BUF_LRU_MIN_LEN (344 evicted, read again), as the timed batch at 6 ms (0.01 ms a
    # reference) does; a refill to 300 finds them free already
    timed = native.lrusim_innodb(TRACE, None, 600, 1000, 1000, 37, 1000, 0.01, 0, 64, True, model.RA_RULE_MYSQL,
                                 0, 0, 0, 1000, 6.0, 1000.0, 1, 0, None)
    assert kernel(((600, SEEN_REFILL | 1000),))[1] == timed[1] == 600 + 600 - model.LRU_MIN_LEN
    assert kernel(((600, SEEN_REFILL | 300),))[1] == 600
    rec = {"batches": [{"queries_before": 10, "queries_after": 20, "pages": 5}]}
    assert replay_schedule(rec, refill_depth=1024) == ((15, SEEN_REFILL | 1024),)

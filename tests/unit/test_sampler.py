from pathlib import Path

import pytest

from loadgen.measure.sampler import Snapshot, delta, hit_ratio, parse_status, totals

DATA = Path(__file__).resolve().parent.parent / "data"


def rows(name):
    return [tuple(line.split("\t", 1)) for line in (DATA / name).read_text().splitlines() if line]


def test_parse_mariadb_status_keeps_counters_and_gauges():
    s = parse_status(rows("status_mariadb_10.11.txt"))
    assert s["read_requests"] == 35663
    assert s["reads"] == 803
    assert s["pages_read"] == 801
    assert s["read_ahead"] == 80
    assert s["pages_total"] == 507
    assert s["made_young"] == 3  # MariaDB exposes it as a status variable
    assert "load_status" not in s


def test_parse_mysql_status_has_no_made_young():
    s = parse_status([(k.encode(), v.encode()) for k, v in rows("status_mysql_8.4.txt")])
    assert s["reads"] == 4122
    assert s["read_ahead"] == 12800
    assert "made_young" not in s and "pages_old" not in s


def test_hit_ratio_is_one_minus_misses_over_requests():
    assert hit_ratio(1000, 10) == pytest.approx(0.99)
    assert hit_ratio(0, 0) is None


def _snap(t, q, **status):
    return Snapshot(t, q, status)


def test_delta_is_per_interval_with_gauges_at_the_end():
    a = _snap(10.0, 0, read_requests=1000, reads=10, pages_free=400, pages_data=100)
    b = _snap(11.0, 5000, read_requests=16000, reads=160, pages_free=250, pages_data=250)
    p = delta(a, b, t0_s=10.0, flavor="mariadb")  # no Innodb_pages_read: MariaDB's reads are the headline
    assert p["t_s"] == 1.0 and p["queries"] == 5000 and p["qps"] == 5000.0
    assert p["read_requests"] == 15000 and p["reads"] == 150
    assert p["hit_ratio"] == pytest.approx(0.99)
    assert p["pages_free"] == 250 and p["pages_data"] == 250


def test_a_counter_going_down_is_a_gap_not_a_negative_rate():
    a = _snap(1.0, 0, read_requests=1000, reads=10)
    b = _snap(2.0, 10, read_requests=20, reads=1)  # the server restarted
    p = delta(a, b, t0_s=0.0)
    assert p["gap"] is True
    assert "reads" not in p


def test_totals_over_the_run():
    a = _snap(0.0, 0, read_requests=1000, reads=10, pages_read=12, pages_total=507)
    b = _snap(9.0, 100, read_requests=4000, reads=40, pages_read=42, pages_total=507)
    t = totals(a, b)
    assert t["read_requests"] == 3000 and t["reads"] == 30 and t["pages_read"] == 30
    assert t["miss_ratio"] == pytest.approx(0.01)
    assert t["pages_total"] == 507


@pytest.mark.parametrize("before,after", [
    (4_294_967_000, 300),  # a 32-bit counter wrapped
    (900_000, 10),  # the server restarted and counts from zero again
])
def test_a_counter_that_wraps_or_resets_mid_run_is_a_gap_in_the_totals(before, after):
    base = _snap(0.0, 0, read_requests=before - 5000, reads=before - 500)
    s1 = _snap(1.0, 100, read_requests=before, reads=before)  # +5000 requests, +500 reads
    s2 = _snap(2.0, 250, read_requests=after, reads=after)  # went down: a gap
    s3 = _snap(3.0, 400, read_requests=after + 2000, reads=after + 20)
    samples = [delta(base, s1, 0.0), delta(s1, s2, 0.0), delta(s2, s3, 0.0)]
    assert samples[1]["gap"] is True and "reads" not in samples[1]
    t = totals(base, s3, samples, flavor="mariadb")  # no Innodb_pages_read here: MariaDB's reads are the headline
    assert t["read_requests"] == 7000 and t["reads"] == 520  # the intervals either side, never negative
    assert t["gaps"] == 1 and t["gap_queries"] == 150
    assert t["hit_ratio"] == pytest.approx(1 - 520 / 7000)
    without_samples = totals(base, s3, flavor="mariadb")
    assert without_samples["reads"] is None or without_samples["reads"] >= 0
    assert without_samples["hit_ratio"] is None or 0 <= without_samples["hit_ratio"] <= 1


def test_totals_without_a_gap_are_unchanged_by_the_samples():
    a = _snap(0.0, 0, read_requests=1000, reads=10)
    b = _snap(1.0, 50, read_requests=2500, reads=25)
    c = _snap(2.0, 100, read_requests=4000, reads=40)
    t = totals(a, c, [delta(a, b, 0.0), delta(b, c, 0.0)])
    assert t["read_requests"] == 3000 and t["reads"] == 30 and "gaps" not in t


def test_the_purge_lag_is_a_gauge_per_sample_with_its_start_and_longest_in_the_totals():
    # MariaDB's status variable is read as the gauge; the Sampler puts INNODB_METRICS'
    # trx_rseg_history_len in its place on either server (take_snapshot(history=True))
    assert parse_status([("Innodb_history_list_length", "37")])["history_len"] == 37
    a = _snap(0.0, 0, reads=0, history_len=4)
    b = _snap(1.0, 100, reads=5, history_len=250)
    c = _snap(2.0, 200, reads=9, history_len=30)
    samples = [delta(a, b, 0.0), delta(b, c, 0.0)]
    assert [p["history_len"] for p in samples] == [250, 30]  # at each sample's time, not a delta
    t = totals(a, c, samples)
    assert (t["history_len_before"], t["history_len_max"], t["history_len"]) == (4, 250, 30)
    # a server where it could not be read: none of it
    d, e = _snap(0.0, 0, reads=0), _snap(1.0, 9, reads=1)
    t = totals(d, e, [delta(d, e, 0.0)])
    assert not any(k.startswith("history_len") for k in t)

"""Issue #10's accuracy target on a real MySQL 9.7 (the `loadgen/mysql:9.7` image, `--server
docker`, server defaults: linear read-ahead on at threshold 56, innodb_lru_scan_depth 1024): the
model's pages read within 3% (5% for A at 32M, 8% for B at 16M and 32M) of the measured
Innodb_pages_read, demand reads and read-ahead together, for both orders at 8M, 16M, 32M and
64M on 200k rows (1,633 leaf pages, 1,700 pages:
8M holds a quarter of the table, 16M 60%, 32M all of it but not beside the ~960 pages MySQL keeps
from start-up, 64M all of it beside them).

Measured in the lab (docs/mysql-lab.md, three series): A 1,694-1,719 / 1,702 and B 2,751-2,793 /
2,722-2,728 pages read at 16M / 32M; the model says A 1,694-1,697 / 1,699 and B 2,759-2,766 /
2,719-2,723. Read-ahead is 77-99% of MySQL's reads here: a model without MySQL's own trigger rule
missed B at 16M by +17% and at 32M by -9%.

B at 16M and 32M move with timing. Once fewer than innodb_lru_scan_depth (1024) frames are
free, MySQL's page cleaner evicts a batch from the LRU tail, the start-up pages among them, on
its ~1 s tick, and only while the server sees activity: one batch (sometimes two) in the first
seconds of a read-only run (docs/innodb.md, "The page cleaner"). A model that averaged one batch
over four moments of the first second was -15.2% off at 16M on a fresh clone (issue #20): the
run now records the batches the server ran (buffer_pool.cleaner_batches, INNODB_METRICS polled
every 20 ms) and its prediction replays them, with the run's own start-up pages: all eight points
within 0.9% in this test's run; B at 16M within 4.0% in five runs of the CLI on a busy host (8 of
10 A/B runs within 3%; docs/innodb.md has the table), but B at -4.6% (16M) and +5.6% (32M) in
CI runs beside other work. Issue #20's 3% at 16M: five CLI runs of each order on a shared host
(docs/data/intervals-mysql-defaults.json, 200k rows, 16M, batches replayed) came out A -1.68% ..
+0.00%, B -1.50% .. +0.04%, every one inside its interval, so A at 16M is held to 3% like 8M and
64M; B at 16M is not yet: this test's sweep once predicted it +10.9% (3,062 against 2,762 read)
where the CLI runs' prediction was 2,758-2,786, so it keeps 8%; 32M (not re-measured) keeps 5%
for A (2.95% seen) and 8% for B.

Needs the docker engine and the MySQL image (found or built by test_docker_mysql's fixture); with
LOADGEN_REQUIRE_DOCKER=1 either missing fails these tests.
"""
import json
from pathlib import Path

import pytest

from loadgen.analysis import sweep
from loadgen.seeding.dataset import DatasetSpec
from loadgen.servers import ServerSpec
from loadgen.workload.orders import parse_variations

from ..accuracy import check, result_point


pytestmark = pytest.mark.docker
POOLS = [8 << 20, 16 << 20, 32 << 20, 64 << 20]


@pytest.fixture(scope="module")
def mysql_sweep(mysql_image, tmp_path_factory):
    import loadgen.servers.docker as docker_server

    out_dir = tmp_path_factory.mktemp("accuracy-mysql")
    spec = ServerSpec(provider="docker", image=mysql_image, pool_bytes=POOLS[0])
    # A loadgen on this host that cannot see this process (another PID namespace: a parallel CI
    # job, another sandbox on the same engine) takes a keep=0 container for an orphan and removes
    # it mid-run (seen here). keep=1 only keeps other loadgens' orphan sweeps away: this run still
    # removes its containers when it ends, and the engine fixture checks that none is left.
    owner_labels = docker_server._owner_labels
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(docker_server, "_owner_labels", lambda keep: owner_labels(True))
        done = sweep.run(spec, DatasetSpec(rows=200_000), POOLS, parse_variations("A,B"),
                         {"stride": 10, "reps": 2, "seed": 1}, out_dir / "runs", out_dir / "sweep.json", 5.0)
    return [json.loads(Path(p["result_file"]).read_text()) for p in done["points"]]


def test_mysql_prediction_within_its_bound_and_interval(mysql_sweep):
    assert len(mysql_sweep) == 8
    points = []
    for r in mysql_sweep:
        bp, pred = r["buffer_pool"], r["prediction"]
        assert r["server"]["flavor"] == "mysql"
        assert pred["measured_reads"] == bp["pages_read"]  # held to pages read, not Innodb_buffer_pool_reads
        v, mib = r["workload"]["variation"], r["server"]["innodb_buffer_pool_size"] >> 20
        # 3% at 8M and 64M, both orders, and A at 16M (five CLI runs within 1.7%, and 0.00% in this
        # test's sweep; docs/data/intervals-mysql-defaults.json). B at 16M: five CLI runs within
        # 1.5% with the batches replayed, but this test's sweep once predicted 3,062 against 2,762
        # read (+10.9%; the CLI runs' prediction was 2,758-2,786, with ~259 start-up pages held;
        # the prediction grows with them, the reads do not: docs/mysql-lab.md): held to 8% as
        # before, short of issue #20's 3%. At 32M the page cleaner's batches decide what the
        # second pass finds: B +5.6% in a CI run, 8%; A 5% (2.95% at most seen).
        bound = 0.03 if mib in (8, 64) or (mib, v) == (16, "A") else 0.05 if v == "A" else 0.08
        # The interval (replayed batches: no cleaner range, so only the calibrated margin) is known
        # to be too narrow for B at 16M/32M beside other work (the +10.9% and +5.6% above):
        # widened there by 2% of the estimate.
        widen = 0.02 if v == "B" and mib in (16, 32) else 0.0
        points.append(result_point(r, f"{v} at {mib}M", bound, widen))
    # with the misses a 95% interval makes (tests/accuracy.py): MySQL scans were covered 92-96%
    # on the validation grid
    check(points)


def test_mysql_read_ahead_is_most_of_the_reads_in_model_and_server(mysql_sweep):
    for r in mysql_sweep:
        bp, pred = r["buffer_pool"], r["prediction"]
        # 77-99% in the lab; 69.6% once (B at 32M, 1,768 of 2,542: the page cleaner's timing). The
        # prediction replays the run's own batches, so it follows: 69.3% once (1,762 of 2,541, a CI
        # run with a second MySQL container busy beside it). A model without read-ahead is near 0.
        assert bp["read_ahead"] > 0.6 * bp["pages_read"]
        assert pred["read_ahead"] > 0.6 * pred["reads"]
        if r["workload"]["order"] == "interleaved":
            # one pass: the same areas are read ahead (1,631 at 8M/16M, 1,600 at 32M/64M; once
            # 1,599 at 16M: an area read on demand instead). B's second pass reads ahead what its
            # first left behind, which moves with timing (1,982-2,176 at 32M) while the pages read
            # stay within 3%.
            # (5%: once 1,536 read ahead against 1,600, with a second MySQL container busy beside it)
            assert abs(pred["read_ahead"] - bp["read_ahead"]) <= 0.05 * bp["read_ahead"]


def test_mysql_run_records_its_page_cleaner_batches_and_replays_them(mysql_sweep):
    """The run's own LRU batches (INNODB_METRICS, measure/cleaner.py) are in its result and its
    prediction replays them: B at 16M, where a batch's timing moved the four-phase model by 15%."""
    for r in mysql_sweep:
        rec = r["buffer_pool"]["cleaner_batches"]
        assert "buffer_LRU_batch_evict_total_pages" in rec["method"]
        # loadgen owns the server: the monitors were off (MySQL's default), on for the run, off after
        assert "disabled after it" in (rec["note"] or ""), rec["note"]
        assert rec["polls"] > 10
        for b in rec["batches"]:
            assert b["pages"] > 0 and 0 <= b["queries_before"] <= b["queries_after"]
        assert "replayed" in r["prediction"]["cleaner"]
        assert r["prediction"]["cleaner_low"] is None  # the batches are known: no cleaner bounds
    [b16] = [r for r in mysql_sweep
             if r["workload"]["variation"] == "B" and r["server"]["innodb_buffer_pool_size"] == 16 << 20]
    # a cold 16M pool fills in the first pass: the page cleaner's batch came in every run seen (1-3)
    assert b16["buffer_pool"]["cleaner_batches"]["batches"], b16["buffer_pool"]["cleaner_batches"]
    # its error is held with the other points' (test_mysql_prediction_within_its_bound_and_interval)

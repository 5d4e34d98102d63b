"""Issue #18 (13): without a terminal (a CI log) there are no progress bars, so a plain line every
~10 s says how far a seed or a run is, at what rate, and when it should end; a run's last line
says what it did. A clock the test moves stands in for the seconds."""
import io

from rich.console import Console

from loadgen.cli.options import PLAIN_PROGRESS_S, RichReporter


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def reporter(terminal: bool):
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=terminal, width=200, soft_wrap=True)
    clock = Clock()
    return RichReporter(console=console, clock=clock), clock, buf


def test_a_run_without_a_terminal_prints_a_line_every_ten_seconds_with_rate_and_eta():
    rep, clock, buf = reporter(terminal=False)
    assert rep.plain and PLAIN_PROGRESS_S == 10.0
    rep.run_started("B (looped)", 400_000)
    for second in range(1, 26):  # 25 s at 4,000 queries/s, progress called several times a second
        for part in range(4):
            clock.t += 0.25
            rep.run_progress(second * 4_000 - 3_000 + part * 1_000, 0.9727)
    rep.run_finished()
    lines = buf.getvalue().splitlines()
    assert len(lines) == 3, lines  # at 10 s, at 20 s, and the end
    assert lines[0] == "B (looped): 40,000 of 400,000 queries (10.00%), 4,000 queries/s, ETA 90 s, hit ratio 97.27%"
    assert lines[1].startswith("B (looped): 80,000 of 400,000 queries (20.00%), 4,000 queries/s, ETA 80 s")
    assert lines[2] == "B (looped): 100,000 of 400,000 queries in 25.0 s, 4,000 queries/s"


def test_seeding_without_a_terminal_reports_rows_rate_and_eta():
    rep, clock, buf = reporter(terminal=False)
    rep.seed_progress(0, 2_000_000)
    for step in range(1, 8):
        clock.t += 5
        rep.seed_progress(step * 200_000, 2_000_000)
    assert buf.getvalue().splitlines() == [
        "seeding: 400,000 of 2,000,000 rows (20.00%), 40,000 rows/s, ETA 40 s",
        "seeding: 800,000 of 2,000,000 rows (40.00%), 40,000 rows/s, ETA 30 s",
        "seeding: 1,200,000 of 2,000,000 rows (60.00%), 40,000 rows/s, ETA 20 s",
    ]


def test_a_terminal_gets_the_bars_and_no_plain_lines():
    rep, clock, buf = reporter(terminal=True)
    assert not rep.plain
    rep.run_started("A (interleaved)", 1000)
    clock.t += 30
    rep.run_progress(500, None)
    rep.run_finished()
    assert "ETA" not in buf.getvalue() and "of 1,000 queries" not in buf.getvalue()

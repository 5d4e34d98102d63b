"""Issue #18 (12): one number formatter (loadgen/numfmt.py) behind every table, in the terminal,
markdown and HTML. The tables are built from two real result files (tests/data, a 200k-row A and
B on MariaDB 10.11 at 8 MiB) and the model's own output, and every number in every cell is held
to the rules: percentages with two decimals, ratios as 2.00x, counts with thousands separators,
measured values to three significant digits."""
import json
import math
import re
from pathlib import Path

import pytest

from loadgen import numfmt as nf
from loadgen.results.documents import RunResult, SweepResult

DATA = Path(__file__).resolve().parents[1] / "data"


def runs() -> list[RunResult]:
    out = []
    for name in ("run_A_mariadb.json", "run_B_mariadb.json"):
        r = RunResult.from_dict(json.loads((DATA / name).read_text()))
        r.source = DATA / name
        out.append(r)
    return out


# -- the rules ----------------------------------------------------------------------------------
@pytest.mark.parametrize("value,text", [(0.98636, "98.64%"), (0.0136, "1.36%"), (0.00001, "<0.01%"),
                                        (0.99999, ">99.99%"), (1.0, "100.00%"), (0.0, "0.00%"), (None, "–"),
                                        (math.nan, "–")])
def test_percentages_have_two_decimals(value, text):
    assert nf.pct(value) == text


@pytest.mark.parametrize("value,text", [(3692.6, "3,693"), (88.83, "88.8"), (8.683, "8.68"), (0.12345, "0.123"),
                                        (0.0012345, "0.00123"), (9.996, "10.0"), (99.96, "100"), (0, "0"),
                                        (-12.34, "-12.3"), (math.inf, "–")])
def test_measured_values_have_three_significant_digits(value, text):
    assert nf.number(value) == text


def test_counts_changes_and_ratios():
    assert nf.count(32906) == "32,906" and nf.count(1646.4) == "1,646" and nf.count(None) == "–"
    assert nf.change(3.237) == "+3.24%" and nf.change(-49.63) == "-49.63%" and nf.change(0) == "+0.00%"
    assert nf.times(2.0) == "2.00x" and nf.times(284.96) == "284.96x"
    assert nf.plus_minus(64853, 773.4) == "64,853 ± 773" and nf.plus_minus(64896, 0.0) == "64,896"
    assert nf.value(0.9863, "hit_ratio") == "98.63%" and nf.value(0.18, "error_pct") == "+0.18%"
    assert nf.value(120664, "read_requests") == "120,664" and nf.value(True) == "True"


# -- every table holds to them --------------------------------------------------------------------
# A number standing alone in a cell: not part of a word, a version (10.11.19), a name or a size
# (sizes are units.format_bytes': 1.1 GiB).
NUMBER = re.compile(r"(?<![\w.,/-])[+-]?\d+(?:,\d{3})*(?:\.\d+)?(?:%|x(?!\w))?(?![\w.%/]|,\d| ?[KMGT]iB| B\b)")


def check_number(token: str) -> str | None:
    """Why token breaks the rules, or None."""
    body = token.lstrip("+-")
    if body.endswith("%"):
        return None if re.fullmatch(r"\d{1,3}(,\d{3})*\.\d\d%", body) else "a percentage without two decimals"
    if body.endswith("x"):
        return None if re.fullmatch(r"\d{1,3}(,\d{3})*\.\d\dx", body) else "a ratio not as 2.00x"
    if "." not in body:
        return None if re.fullmatch(r"\d{1,3}(,\d{3})*", body) else "a count without thousands separators"
    whole, frac = body.split(".")
    if not re.fullmatch(r"\d{1,3}(,\d{3})*", whole):
        return "a number without thousands separators"
    v = float(body.replace(",", ""))
    if v >= 100:
        return "decimals on a number above 100"
    sig = len((whole + frac).lstrip("0"))
    return None if sig == 3 else f"{sig} significant digits, not 3"


def cells_of_every_table() -> dict[str, list[str]]:
    """table name -> its cells, as the terminal, markdown and HTML render them (the same rows)."""
    from loadgen.analysis import advise, forecast, model
    from loadgen.results import compare
    from loadgen.results.compare import side_by_side
    from loadgen.render.report import (advice_cells, comparison_cells, context_cells, curve_cells, forecast_rows,
                                       run_cells, run_rows, side_by_side_cells, sweep_cells)

    a, b = runs()
    g = model.geometry_of(b.dataset)
    fc = forecast.forecast("looped", 10, 2, g, 8 << 20, curve_pools=[16 << 20, 32 << 20])
    adv = advise.advise("looped", 10, 2, g, 8 << 20, ram_bytes=1 << 30)
    sweep = SweepResult.from_dict({"format_version": 2, "kind": "sweep", "points": [
        {"variation": r.key, "pool_bytes": r.pool_bytes, "pages_read": r.headline()[0], "demand_reads": 1310,
         "read_ahead": 336, "predicted_reads": r.prediction.reads, "error_pct": r.prediction.error_pct,
         "plain_lru_reads": 3300, "miss_ratio": 1 - r.headline_hit_ratio(), "qps": r.result["qps"]} for r in (a, b)]})
    worse = RunResult.from_dict({**a.to_dict(), "buffer_pool": {**a.buffer_pool, "pages_read": 1975}})
    tables = {
        "run": [v for _, v in run_rows(a)],
        "report context": sum(context_cells([a, b]), []),
        "report runs": sum(run_cells([a, b]), []),
        "side by side": sum(side_by_side_cells(side_by_side([a, b])), []),
        "compare base new": sum(comparison_cells(compare.compare_files([a], [worse])), []),
        "predict": [v for _, v in forecast_rows(fc, 8 << 20)] + sum(curve_cells(fc), []),
        "advise": sum(advice_cells(adv), []),
        "sweep": sum(sweep_cells(sweep), []),
    }
    return tables


def test_every_number_in_every_table_follows_the_rules():
    bad = []
    for name, cells in cells_of_every_table().items():
        assert cells, name
        for cell in cells:
            for m in NUMBER.finditer(str(cell)):
                why = check_number(m.group())
                if why:
                    bad.append(f"{name}: {m.group()!r} in {cell!r}: {why}")
    assert not bad, "\n".join(bad)


def test_the_same_value_reads_the_same_in_the_terminal_markdown_and_html(tmp_path):
    from loadgen.render.plots import html_page
    from loadgen.results.compare import side_by_side
    from loadgen.render.report import side_by_side_markdown

    a, b = runs()
    hit, qps = nf.pct(a.headline_hit_ratio()), nf.number(a.result["qps"])
    md = side_by_side_markdown(side_by_side([a, b]), [a, b])
    page = html_page([a, b])
    for text in (md, page):
        assert hit in text and qps in text and nf.count(a.headline()[0]) in text
    assert f"<td>{hit}</td>" in page  # a cell of its own, as in the terminal table


def test_counts_compared_base_to_new_are_whole_and_the_gates_line_has_two_decimals(tmp_path):
    """Replayed on the merged main: `compare base new --max-regression 10%` printed 98 demand reads
    as "98.0" (a count as a measured value) and the regression line "+30.8%" beside the table's
    "+30.77%"."""
    from loadgen.__main__ import main
    from loadgen.results import compare
    from loadgen.render.report import comparison_cells

    a, _ = runs()
    fewer = RunResult.from_dict({**a.to_dict(), "buffer_pool": {**a.buffer_pool, "demand_reads": 98}})
    worse = RunResult.from_dict({**a.to_dict(), "result": {**a.result, "qps": a.result["qps"] * 0.6923}})
    cells = {row[1]: row for row in comparison_cells(compare.compare_files([a], [fewer]))}
    assert cells["demand_reads"][3] == "98"
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(a.to_dict()))
    new.write_text(json.dumps(worse.to_dict()))
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["compare", str(base), str(new), "--max-regression", "qps=10%"]) == 3
    line = [ln for ln in err.getvalue().splitlines() if ln.startswith("loadgen: regression:")]
    assert line and re.search(r"qps \+30\.77% \(limit 10%\)", line[0]), err.getvalue()


@pytest.mark.parametrize("fn,value,text", [
    (nf.count, 1e300, "1.00e+300"), (nf.count, 999_999_999_999_999, "999,999,999,999,999"),
    (nf.count, 2 ** 64, "1.84e+19"), (nf.number, 1e300, "1.00e+300"), (nf.number, -3e20, "-3.00e+20"),
    (nf.change, 6.075e301, "+6.08e+301%"), (nf.change, -2e16, "-2.00e+16%"), (nf.times, 6.1e299, "6.10e+299x"),
    (nf.pct, 1e298, "1.00e+300%"),
])
def test_huge_values_have_an_exponent_not_hundreds_of_digits(fn, value, text):
    """Issue #18: a counter of 1e300 in a result file printed 301 digits in `report` and `compare`."""
    assert fn(value) == text


def test_a_table_that_fits_is_read_once_only_where_the_runs_say_so():
    """compare said "both orders read each page once" beside B at 1.21x A (MySQL, 8M, 50k rows: the
    leaves fit the frames, not beside the server's start-up pages); it says so only near 1.00x now."""
    from loadgen.render.report import explain_orders
    from loadgen.results.compare import side_by_side

    def pair(a_read: int, b_read: int) -> list[RunResult]:
        a, b = runs()
        out = []
        for r, read in ((a, a_read), (b, b_read)):
            d = r.to_dict()
            d["dataset"] = {**d["dataset"], "leaf_pages": 300}
            d["buffer_pool"] = {**d["buffer_pool"], "pages_read": read, "pages_total": 512}
            out.append(RunResult.from_dict(d))
        return out

    near = " ".join(explain_orders(side_by_side(pair(431, 520)), pair(431, 520)))
    assert "read each page once" not in near and "1.21x" in near and "server's own" in near
    once = " ".join(explain_orders(side_by_side(pair(431, 433)), pair(431, 433)))
    assert "read each page once" in once

"""The layers the code is read by: each fact in one place, no module reaching up a floor."""
from __future__ import annotations

import ast
from pathlib import Path

LOADGEN = Path(__file__).resolve().parents[2] / "loadgen"


def imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = (node.module or "").lstrip(".")
            out.add(module)
            out.update(f"{module}.{a.name}".lstrip(".") for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def calls(path: Path) -> set[str]:
    return {n.func.attr for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def test_seeding_and_the_runner_never_import_analysis():
    """seeding/ hands the model what it needs (seeding/indexmap.py) and never reaches up into
    analysis/ (usertable.py once imported analysis/secondary.py to predict); the runner takes the
    model injected (`predict`, single and mix alike) and reads the LRU list its "the table fits"
    warning needs from servers/lrulist.py, below both."""
    for path in [*(LOADGEN / "seeding").glob("*.py"), *(LOADGEN / "runner").glob("*.py")]:
        bad = {m for m in imports(path) if "analysis" in m}
        assert not bad, f"{path.name} imports {bad}"


def test_the_sweep_has_no_run_loop_of_its_own():
    """One run loop (runner.run_pools) for run, compare and sweep: the sweep's copy had drifted
    (it dropped the warning that the pool was not emptied, issue #19 B2), and it made analysis/
    reach for the servers."""
    sweep = LOADGEN / "analysis" / "sweep.py"
    spec = {"servers", "servers.ServerSpec"}  # the spec it hands on is a plain type
    assert not {m for m in imports(sweep) if m.startswith("servers")} - spec
    assert not calls(sweep) & {"restart_cold", "measure", "set_pool", "prepare_dataset"}, calls(sweep)


def test_variations_and_pools_are_parsed_in_one_place_each():
    """--variations (run's compare, sweep, advise) and --pools/--curve: one parser each."""
    from loadgen.workload.orders import parse_variations
    from loadgen.units import parse_pools

    assert parse_variations("A, looped,zipfian") == [("interleaved", "A"), ("looped", "B"), ("zipfian", None)]
    assert parse_pools("16M,8M,16M") == [8 << 20, 16 << 20]
    for path in LOADGEN.rglob("*.py"):
        text = path.read_text()
        if path.name not in ("orders.py", "units.py"):
            assert "variations.split(" not in text and "def parse_pools" not in text, path


def test_every_exit_goes_through_the_exit_code_map_and_no_member_is_guessed():
    """`status` left through sys.exit(1), outside __main__'s map (B11); the core read
    `getattr(server, "home", None)`, a member the Server interface did not declare (B13)."""
    from loadgen.servers import Server

    assert Server.home is None
    for path in (LOADGEN / "cli").glob("*.py"):
        assert "sys.exit(" not in path.read_text(), path
    for path in (LOADGEN / "runner" / "single.py", LOADGEN / "runner" / "mix.py"):
        assert 'getattr(server, "home"' not in path.read_text(), path


def test_the_advice_declares_the_histogram_predict_reuses_and_leaves_it_out_of_the_json():
    """Advice.plain_lru_hist was set as an undeclared attribute and read with getattr by the CLI
    (B7): a rename would have silently made `predict --advise` compute the histogram twice."""
    import dataclasses

    from loadgen.analysis import advise, model
    from loadgen.render.report import advice_dict

    assert "plain_lru_hist" in {f.name for f in dataclasses.fields(advise.Advice)}
    g = model.Geometry(20_000, 165, 2)
    adv = advise.advise("looped", 10, 2, g, 8 << 20, ram_bytes=1 << 30, exact=True)
    assert list(adv.plain_lru_hist) == list(model.stack_histogram("looped", 10, 2, g))
    assert "plain_lru_hist" not in advice_dict(adv) and "estimates" not in advice_dict(adv)

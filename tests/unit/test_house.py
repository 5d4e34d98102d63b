"""The house's rules, read from the code's AST so that they stay true (issue #19; docs/layout.md,
"Floors"): no import cycle between modules, no import from a lower floor up to a higher one, no
private name used across modules, no Python module over 500 lines and no C file over 700.

Every import counts, the ones inside a function too: a lazy import is still a dependency (only
`if TYPE_CHECKING:` blocks, which never run, are left out)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "loadgen"

# docs/layout.md, "Floors": a module may import from a lower floor, and from its own package;
# two packages on one floor only where listed (SAME_FLOOR). The package face (loadgen/__init__.py,
# __version__) is the ground.
FLOORS = {
    "loadgen": 0, "errors": 0,
    "units": 1, "paths": 1, "shield": 1,
    "numfmt": 2, "inputs": 2, "db": 2, "native": 2,
    "results": 3,
    "seeding": 4,
    "workload": 5, "servers": 5,
    "measure": 6,
    "drivers": 7,
    "runner": 8,
    "analysis": 9, "experiments": 9,
    "render": 10,
    "cli": 11,
    "__main__": 12,
}
# Packages of one floor that may import each other (none today: a module cycle would still fail).
SAME_FLOOR: set[tuple[str, str]] = set()
MAX_PY_LINES, MAX_C_LINES = 500, 700


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _room(module: str) -> str:
    """The top-level package or module of loadgen that holds `module`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "loadgen"


def _runs(tree: ast.AST):
    """Every node that can run: `if TYPE_CHECKING:` bodies left out."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _target(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom names (before its imported names)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _module_of(name: str) -> str | None:
    """The loadgen module `name` is, or is inside (a name imported from it)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> dict[str, set[str]]:
    """{loadgen module imported: the names taken from it} for every import of `module`."""
    path = MODULES[module]
    out: dict[str, set[str]] = {}
    for node in _runs(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                target = _module_of(a.name)
                if target:
                    out.setdefault(target, set())
        elif isinstance(node, ast.ImportFrom):
            base = _target(module, path, node)
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in MODULES:  # `from . import native`: the module itself
                    out.setdefault(sub, set())
                elif _module_of(base):
                    out.setdefault(_module_of(base), set()).add(a.name)
    return out


GRAPH = {m: _imports(m) for m in MODULES}


def test_no_import_goes_up_a_floor():
    unknown = {_room(m) for m in MODULES} - set(FLOORS)
    assert not unknown, f"rooms without a floor (add them to FLOORS and docs/layout.md): {unknown}"
    up = []
    for module, targets in GRAPH.items():
        a = _room(module)
        for target in targets:
            b = _room(target)
            if a == b or FLOORS[b] < FLOORS[a] or (FLOORS[a] == FLOORS[b] and (a, b) in SAME_FLOOR):
                continue
            up.append(f"{module} (floor {FLOORS[a]}) imports {target} (floor {FLOORS[b]})")
    assert not up, "\n".join(up)


def test_no_import_cycle():
    """Tarjan's strongly connected components over every import."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w == v:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    # a package's __init__ that imports its own modules is a face, not a loop
    cycles = [c for c in cycles if not all(m == c[0] or m.startswith(c[0] + ".") for m in c)]
    assert not cycles, cycles


def test_no_private_name_crosses_a_module():
    """`_name` is a module's own; the C extension (loadgen._native, built from native/) is the one
    private name imported, and only by native.py, its one face."""
    crossing = []
    for module, targets in GRAPH.items():
        for target, names in targets.items():
            crossing += [f"{module} imports {target}.{n}" for n in names
                         if n.startswith("_") and not n.startswith("__") and target != module
                         and (module, target, n) != ("loadgen.native", "loadgen", "_native")]
        path = MODULES[module]
        aliases = {}
        for node in _runs(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = _target(module, path, node)
                for a in node.names:
                    if f"{base}.{a.name}" in MODULES:
                        aliases[a.asname or a.name] = f"{base}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in MODULES and a.asname:
                        aliases[a.asname] = a.name
        for node in _runs(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")
                    and aliases[node.value.id] != module):
                crossing.append(f"{module}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    assert not crossing, "\n".join(sorted(set(crossing)))


def test_no_module_is_too_long():
    long_py = [f"{p.relative_to(ROOT)}: {n}" for p in PACKAGE.rglob("*.py")
               if (n := len(p.read_text().splitlines())) > MAX_PY_LINES]
    long_c = [f"{p.relative_to(ROOT)}: {n}" for p in (ROOT / "native").rglob("*.[ch]")
              if (n := len(p.read_text().splitlines())) > MAX_C_LINES]
    assert not long_py, f"Python modules over {MAX_PY_LINES} lines: {long_py}"
    assert not long_c, f"C files over {MAX_C_LINES} lines: {long_c}"


def test_the_rules_see_what_they_check():
    """The reader is not blind: it finds known imports, so a pass above means something."""
    assert "loadgen.servers.lrulist" in GRAPH["loadgen.runner.single"]
    assert "loadgen.analysis.mixmodel" in GRAPH["loadgen.cli.mix"]  # a lazy import, inside a function
    assert {"choose_driver"} <= GRAPH["loadgen.runner.single"]["loadgen.drivers.drive"]
    assert FLOORS[_room("loadgen.render.plots")] > FLOORS[_room("loadgen.analysis.advise")]

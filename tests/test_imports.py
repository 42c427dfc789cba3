"""The package's import graph: no cycles, and every dependency points one way.

    errors, cards, stopping  <-  games  <-  engine  <-  evaluate  <-  present, solve  <-  the CLI modules
                        io (files: arrays and fields only)  <-  evaluate, solve
                        engine  <-  distributed (the only place, with the CLI, that imports ray)  <-  solve

Imports are read from the source (module level and inside functions; blocks under
``if TYPE_CHECKING:`` are annotations, not imports). Importing ``a.b.c`` runs the packages
``a.b`` and ``a`` first, so those count as dependencies too, except the ``distcfr`` facade,
which loads its names lazily and which no module of the package may import."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "distcfr"
BASE = {"errors", "cards", "stopping"}  # importable from every layer
ALLOWED = {  # package -> packages it may import (besides itself)
    "errors": set(),
    "stopping": set(),
    "cards": {"errors"},
    "games": {"stopping", "errors", "cards"},
    "io": {"stopping", "errors"},
    "engine": {"stopping", "errors", "cards", "games"},
    "evaluate": {"stopping", "errors", "cards", "games", "engine", "io"},
    "present": {"stopping", "errors", "cards", "games", "engine", "io", "evaluate"},
    "solve": {"stopping", "errors", "cards", "games", "engine", "io", "evaluate", "distributed"},
    "distributed": {"stopping", "errors", "games", "engine"},
}
RAY_ALLOWED = {"distributed", "cli"}


def module_name(path: Path) -> str:
    parts = ["distcfr", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def package_of(module: str) -> str:
    """games, engine, ... for subpackages; errors and cards by name; every other top-level
    module (train, show, seeds, cli, progress, ...) is part of the command-line layer."""
    parts = module.split(".")
    if len(parts) == 1:
        return "facade"
    if (ROOT / parts[1]).is_dir():
        return parts[1]
    return parts[1] if parts[1] in BASE else "cli"


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def imported(module: str, type_checking: bool = False) -> set[str]:
    """Every module ``module`` imports (absolute names, relative imports resolved); with
    ``type_checking``, those imported for annotations only too."""
    tree = ast.parse(MODULES[module].read_text())
    found: set[str] = set()
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]

    def visit(node):
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parents + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def dependencies(module: str, type_checking: bool = False) -> set[str]:
    """Modules of distcfr that importing ``module``'s imports runs (parent packages included)."""
    out = set()
    for name in imported(module, type_checking):
        parts = name.split(".")
        for k in range(2, len(parts) + 1):
            candidate = ".".join(parts[:k])
            if candidate in MODULES and candidate != module:
                out.add(candidate)
    return out


GRAPH = {m: dependencies(m) for m in MODULES}
# annotations count for cycles: a type checker (and a reader) follows them too
FULL_GRAPH = {m: dependencies(m, type_checking=True) for m in MODULES}


def test_the_graph_was_read():
    assert "distcfr.solve.solver" in GRAPH and "distcfr.engine.layout" in GRAPH["distcfr.solve.solver"]
    assert "distcfr.games" in GRAPH["distcfr.games.kuhn"]  # a parent package counts


def test_no_import_cycles():
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(FULL_GRAPH[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(FULL_GRAPH):
        if module not in state:
            visit(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_dependencies_point_one_way(module):
    package = package_of(module)
    for dep in GRAPH[module]:
        target = package_of(dep)
        assert target != "facade", f"{module} imports the distcfr facade; import from {dep}'s real module"
        if package in ALLOWED and target != package:
            assert target in ALLOWED[package], f"{module} ({package}) may not import {dep} ({target})"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_dist_and_the_cli_import_ray(module):
    if package_of(module) in RAY_ALLOWED:
        return
    ray_imports = {name for name in imported(module) if name == "ray" or name.startswith("ray.")}
    assert not ray_imports, f"{module} imports {sorted(ray_imports)}"

"""The package's import graph: no cycles between its modules (counting imports inside
functions too), and no module takes names from the package's ``__init__``, which re-exports
``hosim.api`` (``hosim`` <-> ``hosim.api`` was one such cycle, ``runner`` <-> ``cluster`` another)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import hosim

PACKAGE = Path(hosim.__file__).parent


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports. ``from hosim.x import y`` is an import of
    ``hosim.x.y`` if that is a module, else of ``hosim.x``; the compiled ``hosim._native`` is
    not a Python module, so ``from hosim import _native`` counts as an import of ``hosim``."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    graph[name].add(sub if sub in modules else node.module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_package_has_no_import_cycle():
    assert cycles(import_graph(_modules())) == []


def test_no_module_imports_from_the_package_init():
    graph = import_graph(_modules())
    assert sorted(name for name, targets in graph.items() if "hosim" in targets and name != "hosim") == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib")
def test_architecture_md_says_what_mypy_checks():
    import tomllib

    root = Path(__file__).resolve().parents[1]
    files = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["files"]
    doc = " ".join((root / "docs" / "architecture.md").read_text(encoding="utf-8").split())
    assert files == ["python/hosim", "python/_hosim_entry"]
    assert ("(strict on the whole package, `python/hosim`, and the console script's entry module "
            "`python/_hosim_entry`)") in doc

"""hosim.models holds pure functions: no module of it imports hosim.reproduce."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import hosim.models

MODELS_DIR = Path(hosim.models.__file__).parent
MODULES = sorted(MODELS_DIR.glob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """Every module named by an import anywhere in the file (also inside functions), with
    relative imports resolved against hosim.models."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = "hosim.models".rsplit(".", node.level - 1)[0]
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_the_import_scan_sees_imports_inside_functions(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from hosim.reproduce.fcp import x\n    from ..reproduce import lte_x2\n")
    assert {"hosim.reproduce.fcp", "hosim.reproduce.lte_x2"} <= imported_modules(sample)


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_model_module_imports_nothing_from_reproduce(path):
    offending = sorted(n for n in imported_modules(path) if n == "hosim.reproduce" or n.startswith("hosim.reproduce."))
    assert offending == [], f"{path.name} imports {offending}"


def test_importing_every_model_loads_no_reproduction():
    modules = ", ".join(f"hosim.models.{p.stem}" for p in MODULES if p.stem != "__init__")
    code = f"import sys, {modules}; print(sorted(m for m in sys.modules if m.startswith('hosim.reproduce')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

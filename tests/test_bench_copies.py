"""bench/paired.py's module copies (`--copies`): each copy is a whole package that a process
imports instead of the installed one, and runs the same simulation."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"

PROBE = """
import json, hosim
r = hosim.run('dumbbell', seed=3, overrides={'duration_s': 0.5, 'dumbbell.flows': 2}, traces=False)
print(json.dumps({'file': hosim.__file__, 'goodput': r.summary['aggregate_goodput_bps']}))
"""


def load_paired():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("paired", BENCH / "paired.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


def probe(pythonpath: str | None) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_each_copy_is_imported_in_place_of_the_installed_package_and_runs_the_same(tmp_path: Path) -> None:
    paired = load_paired()
    assert paired.module_copies(0, tmp_path) == [None]
    copies = paired.module_copies(2, tmp_path)
    assert len(copies) == 2 and len(set(copies)) == 2
    installed = probe(None)
    for path in copies:
        got = probe(path)
        assert Path(got["file"]).resolve() == (Path(path) / "hosim" / "__init__.py").resolve()
        assert got["goodput"] == installed["goodput"]
    assert not Path(installed["file"]).resolve().is_relative_to(tmp_path.resolve())

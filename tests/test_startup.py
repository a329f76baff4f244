"""Start-up cost: `hosim run --json`, `hosim.run(..., traces=False)` and sweep workers import
the native module and the standard library only, never numpy, pandas, pyarrow, matplotlib or
rich; DataFrames are built when first asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from startup_probe import HEAVY

pytestmark = pytest.mark.native

PROBE = f"import sys; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]), file=sys.stderr)"


def heavy_after(code: str) -> tuple[list[str], str]:
    proc = subprocess.run([sys.executable, "-c", f"import json\n{code}\n{PROBE}"], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "HOSIM_DEBUG"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.splitlines()[-1]), proc.stdout


def test_run_json_imports_no_heavy_module():
    heavy, stdout = heavy_after("from hosim.cli import main\nmain(['run', 'dumbbell', '--set', 'duration_s=1', "
                                "'--json'])")
    assert heavy == []
    assert json.loads(stdout)["scenario"] == "dumbbell"


def test_python_run_without_traces_imports_no_heavy_module_until_a_frame_is_asked_for():
    heavy, _ = heavy_after("import hosim\nr = hosim.run('dumbbell', overrides={'duration_s': 1}, traces=False)\n"
                           "assert r.summary['flows'] and repr(r)")
    assert heavy == []
    heavy, _ = heavy_after("import hosim\nr = hosim.run('dumbbell', overrides={'duration_s': 1})\n"
                           "assert len(r.cwnd) > 0")
    assert "pandas" in heavy  # the probe can see pandas when it is there


def test_sweep_workers_import_no_heavy_module():
    from hosim.runner import InterruptibleExecutor, ProcessExecutor, make_task
    from startup_probe import run_then_list_heavy

    task = make_task("dumbbell", 1, {"duration_s": 1})
    for executor in (ProcessExecutor(1), InterruptibleExecutor(1)):
        with executor:
            [(_, heavy)] = list(executor.map(run_then_list_heavy, [task]))
        assert heavy == []

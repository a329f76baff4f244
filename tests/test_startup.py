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


def test_run_json_loads_no_process_pool_hashing_or_plotting_code():
    # A fifth of a `hosim run --json` start-up went to modules only sweeps and `hosim plot` use
    # (bench/decisions.md); they are imported where they are used.
    code = ("import sys\nfrom hosim.cli import main\n"
            "main(['run', 'dumbbell', '--set', 'duration_s=1', '--json'])\n"
            "lazy = ['multiprocessing', 'concurrent.futures', 'hashlib', 'hosim.cli.plot', 'traceback']\n"
            "print(json.dumps([m for m in lazy if m in sys.modules]), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", f"import json\n{code}"], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "HOSIM_DEBUG"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stderr.splitlines()[-1]) == []
    assert json.loads(proc.stdout)["scenario"] == "dumbbell"


def test_python_run_without_traces_imports_no_heavy_module_until_a_frame_is_asked_for():
    heavy, _ = heavy_after("import hosim\nr = hosim.run('dumbbell', overrides={'duration_s': 1}, traces=False)\n"
                           "assert r.summary['flows'] and repr(r)")
    assert heavy == []
    heavy, _ = heavy_after("import hosim\nr = hosim.run('dumbbell', overrides={'duration_s': 1})\n"
                           "assert len(r.cwnd) > 0")
    assert "pandas" in heavy  # the probe can see pandas when it is there


def test_sweep_workers_import_no_heavy_module(monkeypatch):
    # Started by a fork server from this process, which has pandas loaded (`pytest` run as a
    # script would make the executor fork instead, as it does for a user's script).
    import hosim.runner
    from hosim.runner import ProcessExecutor, make_task
    from startup_probe import run_then_list_heavy

    monkeypatch.setattr(hosim.runner, "_main_is_a_script", lambda: False)

    task = make_task("dumbbell", 1, {"duration_s": 1})
    with ProcessExecutor(1) as executor:
        [(_, heavy)] = list(executor.map(run_then_list_heavy, [task]))
    assert heavy == []


def test_sweep_workers_forked_before_the_table_modules_load_have_none_of_them_and_fork_needs_one_thread():
    # hosim sweep forks its workers before it imports pandas (on a thread, during the runs).
    code = ("from hosim.runner import InterruptibleExecutor, make_task\n"
            "task = make_task('dumbbell', 1, {'duration_s': 1})\n"
            "from startup_probe import run_then_list_heavy\n"
            "with InterruptibleExecutor(1).start() as executor:\n"
            "    assert executor.start_method == 'fork'\n"
            "    import pandas\n"
            "    [(_, heavy)] = list(executor.map(run_then_list_heavy, [task]))\n"
            "import threading, time\n"
            "threading.Thread(target=time.sleep, args=(1,)).start()\n"
            "with InterruptibleExecutor(1).start() as executor:  # not forked with another thread alive\n"
            "    assert executor.start_method != 'fork'\n"
            "print(json.dumps(heavy))")
    proc = subprocess.run([sys.executable, "-c", f"import json\n{code}"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []

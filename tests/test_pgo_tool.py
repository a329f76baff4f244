"""tools/pgo_install.py without its two builds: a bad llvm-profdata is refused before anything
is built, and the training run's summary is the one the final check compares against."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "pgo_install.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("pgo_install", TOOL)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_missing_llvm_profdata_is_one_line_and_exit_2_before_any_build(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-llvm-profdata"
    proc = subprocess.run([sys.executable, str(TOOL), "--llvm-profdata", str(missing)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(missing) in lines[0] and "rustup component add llvm-tools" in lines[0]
    assert "instrumented build" not in proc.stderr


def test_an_unknown_option_is_one_line_and_exit_2() -> None:
    proc = subprocess.run([sys.executable, str(TOOL), "--no-such-option"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["pgo_install: unrecognized arguments: --no-such-option (see --help)"]


def test_the_training_run_covers_every_preset_and_matches_the_final_check() -> None:
    tool = load_tool()

    def run(code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)

    trained, check = run(tool.TRAIN), run(tool.CHECK)
    want = json.loads(trained.stdout.strip().splitlines()[-1])
    got = json.loads(check.stdout.strip().splitlines()[-1])
    assert got == want
    assert want["wall_time_s"] is None and want["events"] > 0
    # The training loop names every preset: a preset added later is trained on too.
    assert "hosim.presets()" in tool.TRAIN

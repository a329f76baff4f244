"""A short slice of bench/fuzz_outdir.py (output directories and signals, issue 39; the long run
is in bench/, its table in docs/reliability.md), and checks that its own checks catch what they
are for."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_fuzzer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_outdir", BENCH / "fuzz_outdir.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_outdir"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.native
def test_a_slice_of_interrupted_runs_leaves_every_directory_intact_or_complete() -> None:
    proc = subprocess.run([sys.executable, str(BENCH / "fuzz_outdir.py"), "--count", "12", "--seed", "39"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "failures: 0" in proc.stdout


def test_a_lock_left_behind_or_new_files_beside_an_old_manifest_are_failures(tmp_path: Path) -> None:
    fuzz = load_fuzzer()
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text('{"files": ["summary.json"]}')
    (out / "summary.json").write_text("{}")
    before = fuzz.snapshot(out)
    (out / "hosim.lock").write_text("123\n")
    assert "directory changed" in fuzz.check(130, "hosim: error: interrupted\n", before, fuzz.snapshot(out), out,
                                             set())
    (out / "hosim.lock").unlink()
    (out / "capture.pcapng").write_bytes(b"\x0a\x0d\x0d\x0a")
    assert "directory changed" in fuzz.check(130, "hosim: error: interrupted\n", before, fuzz.snapshot(out), out,
                                             set())
    assert fuzz.check(130, "hosim: error: interrupted\n", before, before, out, set()) is None


def test_only_tracebacks_before_hosim_runs_count_as_python_start_up() -> None:
    fuzz = load_fuzzer()
    site = "Fatal Python error: init_import_site: Failed to import the site module\nKeyboardInterrupt\n"
    assert fuzz.outcome(1, site) == fuzz.STARTUP
    finding = ('Traceback (most recent call last):\n  File "/v/bin/hosim", line 3, in <module>\n'
               '  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load\nKeyboardInterrupt\n')
    assert fuzz.outcome(-2, finding) == fuzz.STARTUP
    inside = ('Traceback (most recent call last):\n  File "/v/bin/hosim", line 3, in <module>\n'
              '  File "/v/site-packages/hosim/__init__.py", line 19, in <module>\nKeyboardInterrupt\n')
    assert fuzz.outcome(-2, inside) == "-2"
    assert fuzz.check(-2, inside, None, None, Path("/nonexistent"), set()) is not None

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


#: What CPython printed in the 11,000-case run (seed 532, case 236) when SIGINT landed in its
#: import system's module-lock callback before `_hosim_entry` ran, and then went on.
_LOST = ("Exception ignored in: <function _get_module_lock.<locals>.cb at 0x7f3a2c1b0d60>\n"
         "Traceback (most recent call last):\n"
         '  File "<frozen importlib._bootstrap>", line 445, in cb\n'
         "KeyboardInterrupt: \n")


def test_a_signal_lost_in_pythons_start_up_is_its_own_class_and_the_run_is_still_checked(tmp_path: Path) -> None:
    fuzz = load_fuzzer()
    assert fuzz.outcome(0, _LOST) == fuzz.LOST
    # The run went on to its end: exit 0 needs its complete output, as for any case.
    assert fuzz.check(0, _LOST, None, None, tmp_path / "none", set()) == "exit 0 and no directory"
    # Other stderr after the report is checked as usual: one error line for exit 2.
    two = _LOST + "hosim: error: one\nhosim: error: two\n"
    assert "2 error lines" in fuzz.check(2, two, None, None, tmp_path / "none", set())
    assert fuzz.check(2, _LOST + "hosim: error: DIR is not empty\n", None, None, tmp_path / "none", set()) is None
    # A frame of hosim's own code in the report means hosim's hook missed it: a failure.
    ours = _LOST.replace('  File "<frozen importlib._bootstrap>"', '  File "/v/site-packages/hosim/api.py"')
    assert fuzz.outcome(0, ours) == "0"
    assert "traceback" in fuzz.check(0, ours, None, None, tmp_path / "none", set())


def test_a_signal_lost_while_python_checks_the_script_for_a_zip_archive_is_that_class_too(tmp_path: Path) -> None:
    # Round five and six (seed 633 case 782, seed 704 case 119): CPython's `pymain_get_importer`
    # prints this, then runs the script as if no signal had come.
    fuzz = load_fuzzer()
    lost = ("Failed checking if argv[0] is an import path entry\n"
            "Traceback (most recent call last):\n"
            '  File "<frozen zipimport>", line 94, in __init__\n'
            "zipimport.ZipImportError: not a Zip file: '/v/bin/hosim'\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            "Traceback (most recent call last):\n"
            '  File "<frozen zipimport>", line 64, in __init__\n'
            "KeyboardInterrupt\n")
    assert fuzz.outcome(0, lost) == fuzz.LOST
    assert fuzz.check(2, lost + "hosim: error: DIR is not empty\n", None, None, tmp_path / "none", set()) is None
    assert fuzz.check(0, lost, None, None, tmp_path / "none", set()) == "exit 0 and no directory"

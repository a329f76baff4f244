"""A short slice of bench/fuzz_user.py, the user-level fuzzer of issue 39 (the long run is in
bench/), and checks that its own checks catch what they are for."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

pytestmark = pytest.mark.native


def load_fuzzer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_user", BENCH / "fuzz_user.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_user"] = mod
    spec.loader.exec_module(mod)
    return mod


def hosim_command() -> str:
    beside = Path(sys.executable).parent / "hosim"
    return str(beside) if beside.exists() else (shutil.which("hosim") or "hosim")


def test_a_slice_of_user_level_cases_ends_in_success_or_one_line_input_errors() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "fuzz_user.py"), "--count", "40", "--seed", "39", "--timeout", "30",
         "--hosim", hosim_command()],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "| py | ok |" in proc.stdout and "| py | input |" in proc.stdout, proc.stdout


def test_the_fuzzers_checks_catch_a_wrapped_start_a_goodput_above_the_link_and_two_line_errors() -> None:
    fz = load_fuzzer()
    case = fz.Case(0, "py", "graph", text="duration_s = 2.0\n", max_rate_bps=1e6, starts=[20.0])
    flow = {"name": "f", "goodput_bps": 5e5, "bytes_delivered": 1000, "segments_sent": 1, "mss_bytes": 1460,
            "start_s": 20.0, "completion_time_s": None}
    inv = {"ok": True, "violations": [], "packets_created": 5, "packets_consumed": 3, "packets_dropped": 1,
           "packets_in_flight": 1}
    good = {"sim_time_s": 2.0, "invariants": inv, "flows": [flow], "queues": [], "handovers": []}
    assert fz.implausible(case, good) is None
    assert "starts at" in fz.implausible(case, {**good, "flows": [{**flow, "start_s": 0.005}]})
    assert "goodput" in fz.implausible(case, {**good, "flows": [{**flow, "goodput_bps": 2e6}]})
    assert "delivered" in fz.implausible(case, {**good, "flows": [{**flow, "bytes_delivered": 1461}]})
    assert "sim_time_s" in fz.implausible(case, {**good, "sim_time_s": 3.0})
    assert "conserved" in fz.implausible(case, {**good, "invariants": {**inv, "packets_dropped": 0}})
    # A duration read as the core reads it (hex), so a run of 16 s is not "longer than 2 s".
    hexed = fz.Case(0, "cli", "preset:hsdpa", sets=[("duration_s", "2"), ("duration_s", "0x10")])
    assert fz.case_duration(hexed) == 16.0
    assert fz.error_line_ok("x.toml: key `a.b`: must be > 0, got -1")
    assert not fz.error_line_ok("x.toml: key `a`\nTraceback (most recent call last):")
    assert not fz.error_line_ok("")

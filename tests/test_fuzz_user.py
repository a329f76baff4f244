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
         "--pcap-share", "0.3", "--hosim", hosim_command()],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for row in ("| py | ok |", "| py | input |", "| pcap | ok |"):
        assert row in proc.stdout, proc.stdout


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


def test_the_capture_check_catches_a_shared_file_a_cut_file_and_a_wrong_count(tmp_path: Path) -> None:
    fz = load_fuzzer()
    header = bytes.fromhex("d4c3b2a1") + bytes(20)
    record = (0).to_bytes(8, "little") + (4).to_bytes(4, "little") * 2 + b"abcd"
    (tmp_path / "a.pcap").write_bytes(header + record * 2)
    (tmp_path / "b.pcap").write_bytes(header + record + record[:10])
    links = [{"name": "a", "file": "a.pcap", "packets": 2}]
    assert fz.capture_problem(tmp_path, {"capture": {"links": links}}) is None
    shared = links + [{"name": "a2", "file": "a.pcap", "packets": 2}]
    assert "share" in fz.capture_problem(tmp_path, {"capture": {"links": shared}})
    cut = [{"name": "b", "file": "b.pcap", "packets": 2}]
    assert "cut short" in fz.capture_problem(tmp_path, {"capture": {"links": cut}})
    assert "records" in fz.capture_problem(tmp_path, {"capture": {"links": [{**links[0], "packets": 3}]}})

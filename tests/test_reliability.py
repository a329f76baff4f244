"""Reliability of `hosim run`: Ctrl-C ends a long run at once, traces stream to --out, and the
in-memory trace limit of the Python API."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest


def _start(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop("HOSIM_DEBUG", None)
    return subprocess.Popen(
        [sys.executable, "-m", "hosim.cli", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


@pytest.mark.native
def test_ctrl_c_ends_a_long_run_within_a_second_with_exit_130_and_one_line(tmp_path: Path) -> None:
    proc = _start("run", "dumbbell", "--set", "duration_s=1e6", "--json")
    time.sleep(5)
    assert proc.poll() is None, "the run should still be going"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("hosim: error: interrupted at t = "), err
    assert took < 1.0, f"took {took:.2f} s after SIGINT"


@pytest.mark.native
def test_run_out_streams_every_trace_to_parquet(tmp_path: Path) -> None:
    from hosim.api import run_raw, run_to_dir

    result, written = run_to_dir("dumbbell", tmp_path, seed=3, overrides=[("duration_s", "20")])
    names = {p.name for p in written}
    assert {"summary.json", "cwnd.parquet", "goodput.parquet", "queue.parquet"} <= names
    memory = run_raw("dumbbell", seed=3, overrides=[("duration_s", "20")])
    for name in ("cwnd", "goodput", "queue"):
        streamed = pd.read_parquet(tmp_path / f"{name}.parquet")
        expected = memory.traces[name]
        assert list(streamed.columns) == list(expected.columns)
        key = list(expected.columns)
        pd.testing.assert_frame_equal(
            streamed.sort_values(key).reset_index(drop=True), expected.sort_values(key).reset_index(drop=True),
            check_dtype=False,
        )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["flows"] == result.summary["flows"]


@pytest.mark.native
def test_cli_run_out_writes_the_streamed_traces(tmp_path: Path, hosim_cli) -> None:
    proc = hosim_cli("run", "dumbbell", "--set", "duration_s=5", "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert len(pd.read_parquet(tmp_path / "o" / "cwnd.parquet")) > 0

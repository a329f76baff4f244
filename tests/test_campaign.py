"""`hosim sweep --out DIR` as a campaign: runs kept as they finish, resume, refusal of another
sweep or a concurrent writer, grid validation before running, Ctrl-C, the seed warning."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from hosim.outdir import LOCK

pytestmark = pytest.mark.native

GRID = ("--grid", "dumbbell.loss=0.01,0.02")
FAST = ("--set", "duration_s=1", "--seeds", "2", "--quiet")


def tables(out):
    return {name: pd.read_csv(out / f"{name}.csv").drop(columns="wall_time_s", errors="ignore")
            for name in ("flows", "queues", "handovers", "runs")}


def test_sweep_keeps_every_run_and_a_manifest(hosim_cli, tmp_path):
    out = tmp_path / "c"
    proc = hosim_cli("sweep", "dumbbell", *GRID, *FAST, "--jobs", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert len(list((out / "runs").glob("*.json"))) == 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"] == "sweep" and manifest["grid"] == {"dumbbell.loss": ["0.01", "0.02"]}
    assert manifest["fixed"] == {"duration_s": "1"} and manifest["seeds"] == 2 and manifest["scenario_sha256"]
    assert not (out / LOCK).exists()
    flows = pd.read_csv(out / "flows.csv")
    assert (flows["scenario"] == "preset dumbbell").all() and (flows["duration_s"] == 1).all()


def test_resumed_sweep_runs_only_the_missing_runs_and_gives_the_same_tables(hosim_cli, tmp_path):
    whole, part = tmp_path / "whole", tmp_path / "part"
    args = ("sweep", "dumbbell", *GRID, *FAST, "--jobs", "1", "--no-cache")
    assert hosim_cli(*args, "--out", str(whole)).returncode == 0
    assert hosim_cli(*args, "--out", str(part)).returncode == 0
    removed = sorted((part / "runs").glob("*.json"))[:3]
    for run_file in removed:
        run_file.unlink()
    (part / "flows.csv").unlink()
    resumed = hosim_cli(*args, "--out", str(part))
    assert resumed.returncode == 0, resumed.stderr
    assert "1 resumed" in resumed.stdout and "3 run now" in resumed.stdout
    for name, frame in tables(whole).items():
        pd.testing.assert_frame_equal(frame, tables(part)[name])


def test_a_different_sweep_into_the_same_directory_is_refused_unless_forced(hosim_cli, tmp_path):
    out = tmp_path / "c"
    assert hosim_cli("sweep", "dumbbell", *GRID, *FAST, "--jobs", "1", "--out", str(out)).returncode == 0
    other = hosim_cli("sweep", "dumbbell", "--grid", "dumbbell.loss=0.03", *FAST, "--jobs", "1", "--out", str(out))
    assert other.returncode == 2 and len(other.stderr.splitlines()) == 1
    assert "grid" in other.stderr and "--force" in other.stderr
    forced = hosim_cli("sweep", "dumbbell", "--grid", "dumbbell.loss=0.03", *FAST, "--jobs", "1", "--out",
                       str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(list((out / "runs").glob("*.json"))) == 2


def test_sweep_refuses_a_directory_locked_by_a_live_process(hosim_cli, tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        out = tmp_path / "c"
        out.mkdir()
        (out / LOCK).write_text(f"{child.pid}\n")
        proc = hosim_cli("sweep", "dumbbell", *GRID, *FAST, "--out", str(out))
        assert proc.returncode == 2 and f"pid {child.pid}" in proc.stderr, proc.stderr
        assert not (out / "runs").exists()
    finally:
        child.kill()
        child.wait()


def test_invalid_grid_value_is_reported_before_any_run(hosim_cli, tmp_path):
    out = tmp_path / "c"
    # The valid point is listed first: with validation nothing runs, so runs/ stays absent.
    proc = hosim_cli("sweep", "lte-x2", "--grid", "lte_x2.handover_at_s=2.0,9.0", "--seeds", "1", "--out", str(out))
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "handover_at_s" in lines[0] and "handover_at_s=9.0" in lines[0]
    assert not out.exists()


def test_seed_warning_when_the_scenario_has_no_random_element(hosim_cli, tmp_path):
    # Without its start jitter and loss, the dumbbell has nothing random left.
    deterministic = hosim_cli("sweep", "dumbbell", "--grid", "dumbbell.loss=0", "--set", "dumbbell.start_jitter_s=0",
                              *FAST, "--out", str(tmp_path / "a"))
    assert deterministic.returncode == 0
    assert [line for line in deterministic.stderr.splitlines() if "no random element" in line]
    random = hosim_cli("sweep", "dumbbell", "--grid", "dumbbell.loss=0.01", *FAST, "--out", str(tmp_path / "b"))
    assert random.returncode == 0 and "no random element" not in random.stderr


def test_ctrl_c_stops_within_a_second_keeps_finished_runs_and_resumes(tmp_path):
    out = tmp_path / "c"
    # 12 runs of 400 simulated seconds (about 0.5 s each) on one worker: long enough to interrupt after a few.
    args = [sys.executable, "-m", "hosim.cli", "sweep", "dumbbell", "--grid", "dumbbell.loss=0.01,0.02,0.03",
            "--seeds", "4", "--set", "duration_s=400", "--jobs", "1", "--no-cache", "--quiet", "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "HOSIM_DEBUG"}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while len(list((out / "runs").glob("*.json"))) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep ended before it could be interrupted"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 1.0
    assert proc.returncode == 130
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hosim: interrupted: ") and "resume" in lines[0], err
    kept = len(list((out / "runs").glob("*.json")))
    assert 2 <= kept < 12 and f"{kept} of 12 runs" in lines[0]
    assert not (out / LOCK).exists()
    again = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{kept} resumed" in again.stdout and f"{12 - kept} run now" in again.stdout

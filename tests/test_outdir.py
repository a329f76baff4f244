"""Output directories: whose they are, writable before running, atomic files, the campaign lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import SHORT
from hosim.outdir import (
    LOCK,
    DirectoryLock,
    OutputError,
    atomic_write,
    atomic_write_text,
    prepare_output,
    write_manifest,
)


def test_prepare_output_accepts_new_empty_and_own_directories(tmp_path):
    assert prepare_output(tmp_path / "new" / "dir", "run") is None
    assert (tmp_path / "new" / "dir").is_dir()
    write_manifest(tmp_path / "new" / "dir", {"command": "run"})
    (tmp_path / "new" / "dir" / "summary.json").write_text("{}")
    assert prepare_output(tmp_path / "new" / "dir", "run") == {"command": "run"}


def test_prepare_output_refuses_a_foreign_non_empty_directory_unless_forced(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="--force") as info:
        prepare_output(tmp_path, "run")
    assert "new directory" in str(info.value) and "\n" not in str(info.value)
    write_manifest(tmp_path, {"command": "sweep"})  # another command's output is foreign too
    with pytest.raises(OutputError):
        prepare_output(tmp_path, "run")
    assert prepare_output(tmp_path, "run", force=True) == {"command": "sweep"}


def test_prepare_output_refuses_an_unwritable_place(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="cannot write"):
        prepare_output(blocker / "out", "run")
    with pytest.raises(OutputError, match="not a directory"):
        prepare_output(blocker, "run")


def test_atomic_write_leaves_the_old_file_and_no_temporary_on_error(tmp_path):
    target = atomic_write_text(tmp_path / "a.json", "old")

    def fail(tmp):
        tmp.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, fail)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_lock_refuses_a_live_writer_and_takes_over_a_dead_ones_lock(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / LOCK).write_text(f"{child.pid}\n")
        with pytest.raises(OutputError, match=f"pid {child.pid}"):
            DirectoryLock(tmp_path).acquire()
    finally:
        child.kill()
        child.wait()
    with DirectoryLock(tmp_path):  # the pid is dead now: stale lock taken over
        assert (tmp_path / LOCK).read_text().strip() == str(os.getpid())
    assert not (tmp_path / LOCK).exists()


# --- hosim run --out --------------------------------------------------------------------------


@pytest.mark.native
def test_run_out_refuses_a_foreign_directory_before_running(hosim_cli, tmp_path):
    (tmp_path / "data.csv").write_text("precious")
    proc = hosim_cli("run", "dumbbell", *SHORT, "--out", str(tmp_path))
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "--force" in lines[0] and "new directory" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]
    forced = hosim_cli("run", "dumbbell", *SHORT, "--out", str(tmp_path), "--force", "--no-traces")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "data.csv").read_text() == "precious"


@pytest.mark.native
def test_run_out_refuses_the_directory_of_another_scenarios_run_naming_both(hosim_cli, tmp_path):
    out = tmp_path / "o"
    three_s = ("--set", "duration_s=3", "--no-traces", "--out", str(out))
    assert hosim_cli("run", "lte-x2", *three_s).returncode == 0
    earlier = (out / "summary.json").read_text()
    proc = hosim_cli("run", "fcp", *three_s)
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert "preset lte-x2" in line and "preset fcp" in line and "--force" in line
    assert (out / "summary.json").read_text() == earlier
    forced = hosim_cli("run", "fcp", *three_s, "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((out / "manifest.json").read_text())["scenario"] == "preset fcp"
    assert hosim_cli("run", "fcp", *three_s, "--set", "fcp.handovers=false").returncode == 0  # same scenario


@pytest.mark.native
def test_run_out_unwritable_exits_2_without_running(hosim_cli, tmp_path):
    (tmp_path / "file").write_text("x")
    proc = hosim_cli("run", "dumbbell", "--out", str(tmp_path / "file" / "out"))  # a 60 s run if it started
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and "cannot write" in proc.stderr


@pytest.mark.native
def test_run_out_rewrites_its_own_directory_and_drops_stale_traces(hosim_cli, tmp_path):
    out = tmp_path / "o"
    assert hosim_cli("run", "dumbbell", *SHORT, "--out", str(out)).returncode == 0
    assert (out / "cwnd.parquet").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"] == "run" and manifest["scenario"] == "preset dumbbell"
    assert manifest["command_line"][:3] == ["hosim", "run", "dumbbell"]
    again = hosim_cli("run", "dumbbell", *SHORT, "--out", str(out), "--no-traces")
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "summary.json"]


@pytest.mark.native
def test_run_out_leaves_no_empty_directory_behind_on_an_input_error(hosim_cli, tmp_path):
    out = tmp_path / "new" / "out"
    proc = hosim_cli("run", "dumbbell", *SHORT, "--set", "dumbbell.flows=0", "--out", str(out))
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and "dumbbell.flows" in proc.stderr
    assert not (tmp_path / "new").exists(), list(tmp_path.rglob("*"))
    # An existing empty directory is the user's: it stays.
    (tmp_path / "mine").mkdir()
    proc = hosim_cli("run", "dumbbell", *SHORT, "--set", "dumbbell.flows=0", "--out", str(tmp_path / "mine"))
    assert proc.returncode == 2 and (tmp_path / "mine").is_dir()

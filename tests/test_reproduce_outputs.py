"""`hosim reproduce PAPER`: output directory, report, --seeds 0, and --check against the numbers
committed in docs/reproductions (quick versions only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hosim.cli import main
from hosim.reproduce import REPRODUCTIONS
from hosim.reproduce.common import Comparison, default_out

# --- output directory ------------------------------------------------------------------------


def test_default_out_is_a_new_numbered_directory_under_the_current_one(tmp_path):
    assert default_out("hsdpa", tmp_path) == tmp_path / "hosim-reproduce-hsdpa-1"
    (tmp_path / "hosim-reproduce-hsdpa-1").mkdir()
    assert default_out("hsdpa", tmp_path) == tmp_path / "hosim-reproduce-hsdpa-2"


@pytest.mark.parametrize("paper", sorted(REPRODUCTIONS))
def test_zero_seeds_is_refused_with_one_line(paper, capsys):
    assert main(["reproduce", paper, "--seeds", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--seeds" in err[0]


@pytest.mark.parametrize("paper", sorted(REPRODUCTIONS))
def test_reproduce_refuses_a_foreign_directory_before_running(paper, tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("x")
    assert main(["reproduce", paper, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--force" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


@pytest.mark.native
def test_hsdpa_reproduction_writes_report_and_manifest_into_a_new_directory(hosim_cli, tmp_path):
    proc = hosim_cli("reproduce", "hsdpa", "--seeds", "1", "--jobs", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [out] = list(tmp_path.iterdir())
    assert out.name == "hosim-reproduce-hsdpa-1"
    names = {p.name for p in out.iterdir()}
    assert {"report.md", "manifest.json", "hsdpa-results.json", "hsdpa-fig3.png"} <= names
    assert not any(name.endswith(".tmp") for name in names)
    report = (out / "report.md").read_text()
    assert "| TCP throughput (kb/s) | 190.4 |" in report and "![hsdpa-fig3](hsdpa-fig3.png)" in report
    # The paper's claims with their verdicts from this run's numbers (issue 38), linked to the document.
    assert report.index("## Claims and verdicts") < report.index("## Fig. 3")
    assert "| 4. Table I: the proxy keeps the link at least 90 % utilized for every T | **reproduced** |" in report
    assert "(docs/reproductions/hsdpa-proxy.md#table-i)" in report
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"] == "reproduce hsdpa"
    # The command line comes from the click Context of this invocation.
    assert manifest["command_line"] == ["hosim", "reproduce", "hsdpa", "--seeds", "1", "--jobs", "1"]


# --- --check ---------------------------------------------------------------------------------


def test_comparison_flags_a_changed_number_and_exits_1(capsys):
    comparison = Comparison("committed.json")
    comparison.add("a", 1.0, 1.0)
    comparison.compare_fields("b", {"x": 2, "y": "halving"}, {"x": 3, "y": "halving"})
    assert [name for name, *_ in comparison.differences] == ["b.x"]
    assert comparison.report() == 1
    captured = capsys.readouterr()
    assert "| b.x | 2 | 3 | DIFFERS |" in captured.out
    assert captured.err.splitlines() == ["hosim: check failed: 1 of 3 numbers differ from committed.json (b.x)"]


#: The repository's committed reproductions. The tests sit in the repository, so these are found
#: whether the package runs from the source tree or from an installed copy (as in CI).
DOCS = Path(__file__).resolve().parents[1] / "docs" / "reproductions"
needs_docs = pytest.mark.skipif(not (DOCS / "data").is_dir(), reason="docs/reproductions not beside the tests")


@needs_docs
def test_the_package_ships_the_committed_numbers_equal_to_docs_reproductions():
    import hosim
    from hosim.reproduce.common import COMMITTED, COMMITTED_FILES

    assert Path(hosim.__file__).resolve().parent in COMMITTED.parents  # package data, not the checkout's
    for relative in COMMITTED_FILES:
        assert (COMMITTED / relative).read_bytes() == (DOCS / relative).read_bytes(), (
            f"copy docs/reproductions/{relative} to python/hosim/reproduce/committed/{relative}")


@pytest.mark.native
def test_check_works_from_a_copy_of_the_package_outside_the_checkout(tmp_path):
    # An installed package has no docs/ beside it: the committed numbers must come with it.
    import shutil

    import hosim

    site = tmp_path / "site"
    shutil.copytree(Path(hosim.__file__).resolve().parent, site / "hosim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("HOSIM_DEBUG", "PYTHONPATH")}
    work = tmp_path / "elsewhere"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-m", "hosim.cli", "reproduce", "inter-rat", "--check"],
                          capture_output=True, text=True, cwd=work, env={**env, "PYTHONPATH": str(site)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "all " in proc.stdout and str(site / "hosim" / "reproduce" / "committed") in proc.stdout


@pytest.mark.native
@needs_docs
def test_committed_hsdpa_numbers_match_a_quick_recomputation():
    from hosim.reproduce import hsdpa

    comparison = hsdpa.check_committed(DOCS)
    assert len(comparison.rows) > 20 and comparison.differences == []


@pytest.mark.native
@needs_docs
def test_committed_drop_or_forward_numbers_match_a_quick_recomputation():
    from hosim.reproduce import fcp

    points = [("100M", "newreno", "drop", None), ("100M", "newreno", "drop", 20), ("100M", "newreno", "forward", 20)]
    comparison = fcp.check_committed(DOCS, points=points)
    assert len(comparison.rows) == 12 and comparison.differences == []


@pytest.mark.native
@needs_docs
def test_committed_lte_per_seed_runs_match_a_quick_recomputation():
    from hosim.reproduce import lte_x2

    comparison = lte_x2.check_committed(DOCS, seeds=(1,), parts=("runs", "traces"))
    assert len(comparison.rows) > 50 and comparison.differences == []


@pytest.mark.native
@needs_docs
def test_committed_lte_fig12_numbers_match_a_recomputation():
    from hosim.reproduce import lte_x2

    comparison = lte_x2.check_committed(DOCS, parts=("fig12",))
    assert comparison.differences == []


def test_check_without_committed_numbers_is_one_line(tmp_path, capsys):
    assert main(["reproduce", "hsdpa", "--check", "--against", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--against" in err[0] and str(Path(tmp_path)) in err[0]


def test_progress_adds_up_the_batches_of_a_reproduction():
    from hosim.reproduce.common import BatchTotals

    totals = BatchTotals()
    reports = [(1, 3), (2, 3), (3, 3), (2, 2), (1, 4), (4, 4)]  # a batch of 3, of 2 (cache hits), of 4
    assert [totals.update(*r) for r in reports] == [(1, 3), (2, 3), (3, 3), (5, 5), (6, 9), (9, 9)]


# --- --set, --unset, --profile and what report.md says was run --------------------------------


@pytest.mark.parametrize("paper", sorted(REPRODUCTIONS))
def test_every_reproduction_takes_set_unset_and_profile(paper, capsys):
    assert main(["reproduce", paper, "--help"]) == 0
    out = capsys.readouterr().out
    assert "--set KEY=VALUE" in out and "--unset KEY" in out and "--profile" in out


@pytest.fixture
def recorded_tasks(monkeypatch):
    """The tasks every runner of the command was given (the runs still happen)."""
    from hosim.reproduce import common
    from hosim.runner import Runner

    tasks = []
    original = Runner.summaries

    def record(self, batch, *args, **kwargs):
        tasks.extend(batch)
        return original(self, batch, *args, **kwargs)

    monkeypatch.setattr(Runner, "summaries", record)
    yield tasks
    for state in (common.SET_OVERRIDES, common.PROFILE_OVERRIDES, common.CONTESTED):
        state.clear()
    common.UNSET_KEYS.clear()


@pytest.mark.native
def test_set_and_unset_reach_every_run_and_the_report_and_manifest_say_so(tmp_path, recorded_tasks, capsys):
    import tomllib

    out = tmp_path / "v"
    args = ["reproduce", "vertical-handoff", "--quick", "--out", str(out), "--set", "tcp.min_rto_s=0.5",
            "--unset", "vertical.mode"]
    assert main(args) == 0, capsys.readouterr().err
    assert len(recorded_tasks) >= 4
    for task in recorded_tasks:
        assert ("tcp.min_rto_s", "0.5") in task.overrides
        assert "mode" not in tomllib.loads(task.scenario)["vertical"]
    report = (out / "report.md").read_text()
    head = report.split("## ")[0]
    assert "- overrides (--set): `tcp.min_rto_s = 0.5`" in head and "- keys removed (--unset): `vertical.mode`" in head
    assert "- TCP profile: the preset's" in head and "- seeds: 1-3 per point" in head and "- version: hosim " in head
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["overrides"] == {"tcp.min_rto_s": 0.5} and manifest["unset"] == ["vertical.mode"]
    assert manifest["profile"] is None


@pytest.mark.native
def test_a_set_key_the_experiment_varies_keeps_its_values_and_is_reported(tmp_path, recorded_tasks, capsys):
    out = tmp_path / "v"
    args = ["reproduce", "vertical-handoff", "--quick", "--out", str(out), "--set", "vertical.adaptation=clah"]
    assert main(args) == 0
    adaptations = {dict(t.overrides)["vertical.adaptation"] for t in recorded_tasks}
    assert {'"none"', '"clah"', '"freeze"'} <= adaptations  # the experiment's variable, not the --set value
    err = capsys.readouterr().err
    assert "hosim: warning: --set vertical.adaptation: some runs of the experiment set" in err
    assert "kept by the experiment where it varies them: `vertical.adaptation`" in (out / "report.md").read_text()


@pytest.mark.parametrize("option", [["--set", "tcp.cc=cubic"], ["--unset", "tcp.cc"]])
def test_check_refuses_set_and_unset_with_one_line(option, capsys):
    assert main(["reproduce", "lte-x2", "--check", *option]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("hosim: error: --check compares with the committed numbers")

"""The `hosim` command line: exit codes, one-line errors, --json, --out, presets, demo."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from conftest import SHORT
from hosim import InvariantError, ScenarioError
from hosim.api import TRACE_COLUMNS
from hosim.cli import cli, main
from hosim.models import MODEL_COMMANDS
from hosim.reproduce import REPRODUCTIONS

# --- error reporting -------------------------------------------------------------------------


def assert_one_line_error(proc, *needles: str, code: int = 2, kind: str = "error") -> None:
    lines = proc.stderr.splitlines()
    assert proc.returncode == code, proc.stderr
    assert len(lines) == 1, f"expected one stderr line, got:\n{proc.stderr}"
    assert lines[0].startswith(f"hosim: {kind}: "), lines[0]
    for needle in needles:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
    assert proc.stdout == ""


@pytest.mark.native
@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["run", "dumbbell", *SHORT, "--set", "dumbbell.no_such_knob=1"], ["no_such_knob"]),
        (["run", "dumbbell", *SHORT, "--set", "dumbbell.bottleneck_bps=-5"], ["bottleneck_bps"]),
        (["run", "dumbbell", *SHORT, "--set", "dumbbell.flows=lots"], ["flows"]),
        (["run", "dumbbell", *SHORT, "--set", "tcp.delayed_ack=3"], ["delayed_ack"]),
        (["run", "no-such-preset"], ["no-such-preset", "dumbbell"]),
        (["run", "dumbbell", "--set", "duration_s"], ["--set", "duration_s"]),
        (["run", "dumbbell", "--seed", "minus-one"], ["--seed"]),
        (["run", "dumbbell", "--no-such-option"], ["--no-such-option"]),
        (["presets", "--show", "no-such-preset"], ["no-such-preset"]),
        (["no-such-command"], ["no-such-command"]),
    ],
    ids=["unknown-key", "negative-rate", "wrong-type", "wrong-type-bool", "unknown-preset", "set-without-equals",
         "bad-seed", "unknown-option", "show-unknown-preset", "unknown-command"],
)
def test_invalid_input_exits_2_with_one_line_naming_the_problem(hosim_cli, args, needles):
    assert_one_line_error(hosim_cli(*args), *needles)


def test_missing_scenario_file_exits_2_naming_the_file(hosim_cli, tmp_path):
    missing = tmp_path / "nowhere" / "missing.toml"
    assert_one_line_error(hosim_cli("run", str(missing)), str(missing))


@pytest.mark.native
def test_malformed_toml_file_exits_2_naming_the_file(hosim_cli, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("duration_s = \n[tcp\nrecovery = 'sack'\n")
    assert_one_line_error(hosim_cli("run", str(path)), "broken.toml")


@pytest.mark.native
def test_unknown_key_in_file_exits_2_naming_file_and_key(hosim_cli, tmp_path, dumbbell_toml):
    path = tmp_path / "extra.toml"
    path.write_text("surprise_knob = 1\n" + dumbbell_toml)
    assert_one_line_error(hosim_cli("run", str(path), *SHORT), "extra.toml", "surprise_knob")


@pytest.mark.native
@pytest.mark.parametrize(("setting", "key"), [
    ("tcp.bbr.gain=2", "`tcp.bbr`"),                 # no such controller table
    ("tcp.cubic.betta=0.5", "`tcp.cubic.betta`"),    # no such key in it
    ("tcp.cubic.beta=1.5", "`tcp.cubic.beta`"),      # out of range
])
def test_a_bad_controller_table_key_exits_2_naming_it(hosim_cli, setting, key):
    assert_one_line_error(hosim_cli("run", "dumbbell", "--set", setting), key)


def test_set_without_equals_is_rejected_before_anything_runs(capsys):
    assert main(["run", "whatever", "--set", "tcp.recovery"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "tcp.recovery" in err[0] and "KEY=VALUE" in err[0]


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyError("k"), InvariantError("sent != delivered + dropped")])
def test_internal_errors_exit_1_with_one_line_and_no_traceback(monkeypatch, capsys, exc):
    import hosim.api

    def explode(*_args, **_kwargs):
        raise exc

    monkeypatch.delenv("HOSIM_DEBUG", raising=False)
    monkeypatch.setattr(hosim.api, "run_raw", explode)
    assert main(["run", "dumbbell"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hosim: internal error: ") and "Traceback" not in err


def test_hosim_debug_adds_the_traceback(monkeypatch, capsys):
    import hosim.api

    def explode(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setenv("HOSIM_DEBUG", "1")
    monkeypatch.setattr(hosim.api, "run_raw", explode)
    assert main(["run", "dumbbell"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.splitlines()[-1] == "hosim: internal error: RuntimeError: boom"


def test_scenario_errors_from_python_exit_2(monkeypatch, capsys):
    import hosim.api

    def reject(*_args, **_kwargs):
        raise ScenarioError("x.toml: tcp.mss_bytes: must be positive\n(extra detail)")

    monkeypatch.setattr(hosim.api, "run_raw", reject)
    assert main(["run", "x.toml"]) == 2
    assert capsys.readouterr().err == "hosim: error: x.toml: tcp.mss_bytes: must be positive; (extra detail)\n"


# --- help ------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["--help"], ["run", "--help"], ["sweep", "--help"], ["demo", "--help"],
                                  ["presets", "--help"]])
def test_help_exits_0_at_every_level(args, capsys):
    assert main([*args]) == 0
    assert "Usage: hosim" in capsys.readouterr().out


def test_help_documents_the_defaults():
    def help_text(*args: str) -> str:
        return " ".join(CliRunner().invoke(cli, [*args, "--help"]).output.split())

    assert "the scenario's seed, else 1" in help_text("run")
    assert "all cores" in help_text("sweep") and "First seed S. [default: 1" in help_text("sweep")
    assert "./hosim-demo" in help_text("demo")


def test_model_group_lists_every_model_subcommand():
    result = CliRunner().invoke(cli, ["--help"])
    assert "model" in result.output
    assert set(MODEL_COMMANDS) == {"pacifico", "cohen-levin", "hsdpa-stability"}


@pytest.mark.parametrize("name", sorted(MODEL_COMMANDS))
def test_each_model_module_provides_a_click_command(name):
    import click

    module_name, _, attribute = MODEL_COMMANDS[name].partition(":")
    module = pytest.importorskip(module_name)
    assert isinstance(getattr(module, attribute), click.Command)
    result = CliRunner().invoke(cli, ["model", name, "--help"])
    assert result.exit_code == 0, result.output


# --- run -------------------------------------------------------------------------------------


@pytest.mark.native
def test_run_json_prints_exactly_one_json_object(hosim_cli):
    proc = hosim_cli("run", "dumbbell", *SHORT, "--seed", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    assert summary["seed"] == 4 and summary["flows"]


@pytest.mark.native
def test_run_prints_flow_and_queue_tables(hosim_cli):
    proc = hosim_cli("run", "dumbbell", *SHORT)
    assert proc.returncode == 0, proc.stderr
    assert "Flows" in proc.stdout and "Queues" in proc.stdout and "goodput" in proc.stdout


@pytest.mark.native
def test_run_out_writes_summary_and_parquet_traces(hosim_cli, tmp_path):
    out = tmp_path / "run1"
    proc = hosim_cli("run", "dumbbell", *SHORT, "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    saved = json.loads((out / "summary.json").read_text())
    assert saved == printed
    tables = {p.stem: pd.read_parquet(p) for p in out.glob("*.parquet")}
    assert {"cwnd", "goodput"} <= tables.keys()
    for name, frame in tables.items():
        assert len(frame) > 0
        if name in TRACE_COLUMNS:
            assert list(frame.columns[: len(TRACE_COLUMNS[name])]) == list(TRACE_COLUMNS[name])


@pytest.mark.native
def test_run_out_with_no_traces_writes_only_the_summary(hosim_cli, tmp_path):
    out = tmp_path / "run2"
    proc = hosim_cli("run", "dumbbell", *SHORT, "--out", str(out), "--no-traces")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "summary.json"]


@pytest.mark.native
def test_run_twice_with_the_same_seed_prints_the_same_summary(hosim_cli):
    runs = [json.loads(hosim_cli("run", "dumbbell", *SHORT, "--set", "dumbbell.loss=0.01", "--seed", "9",
                                 "--json").stdout) for _ in range(2)]
    for summary in runs:
        summary.pop("wall_time_s")
    assert runs[0] == runs[1]


# --- presets and demo ------------------------------------------------------------------------


@pytest.mark.native
def test_presets_lists_name_and_description_one_per_line():
    from hosim.api import presets

    result = CliRunner().invoke(cli, ["presets"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert len(lines) == len(presets())
    assert any(line.split()[0] == "dumbbell" and len(line.split()) > 1 for line in lines)


@pytest.mark.native
def test_presets_show_prints_parseable_toml():
    import tomllib

    result = CliRunner().invoke(cli, ["presets", "--show", "dumbbell"])
    assert result.exit_code == 0
    assert "dumbbell" in tomllib.loads(result.output)


@pytest.mark.native
def test_demo_writes_plots_and_a_summary_per_variant(hosim_cli, tmp_path):
    out = tmp_path / "demo"
    proc = hosim_cli("demo", "--out", str(out), "--duration", "1")
    assert proc.returncode == 0, proc.stderr
    for name in ("cwnd.png", "goodput.png", "summary.csv"):
        assert (out / name).stat().st_size > 0
    summary = pd.read_csv(out / "summary.csv")
    recovery = summary[summary["section"] == "tcp-recovery"]
    assert list(recovery["variant"]) == ["reno", "newreno", "sack"]
    assert {"goodput_bps", "retransmits", "timeouts", "fast_recoveries", "rtt_mean_s"} <= set(summary.columns)
    assert "sack" in proc.stdout
    lte = summary[summary["section"] == "lte-x2"]
    assert list(lte["variant"]) == ["standard", "fast", "predicted", "predicted+RED/ECN"]
    assert set(lte["outcome"]) <= {"timeout", "halving", "optimal"}
    assert lte.set_index("variant").loc["predicted", "forwarded_packets"] == 0
    for name in ("lte-x2-cwnd.png", "lte-x2-goodput.png"):
        assert (out / name).stat().st_size > 0


def test_out_pointing_at_a_file_exits_2(capsys, tmp_path):
    target = tmp_path / "a-file"
    target.write_text("")
    assert main(["run", "dumbbell", "--out", str(target)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "a-file" in err[0]


def test_reproduce_rejects_an_unknown_paper_with_one_line(hosim_cli):
    assert_one_line_error(hosim_cli("reproduce", "no-such-paper"), "no-such-paper", "lte-x2")


@pytest.mark.parametrize("paper", ["lte-x2", "hsdpa"])
def test_reproduce_passes_help_to_the_papers_driver(hosim_cli, paper):
    proc = hosim_cli("reproduce", paper, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--seeds" in proc.stdout


def _command_paths(group: Any = None, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and group of the CLI, as argument lists (lazy groups included)."""
    import click

    group = cli if group is None else group
    paths = [prefix]
    if isinstance(group, click.Group):
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            paths += _command_paths(group.get_command(ctx, name), (*prefix, name))
    return paths


COMMAND_PATHS = _command_paths()


def test_the_command_walk_finds_every_reproduction_and_model():
    assert {("reproduce", p) for p in REPRODUCTIONS} <= set(COMMAND_PATHS)
    assert {("model", m) for m in MODEL_COMMANDS} <= set(COMMAND_PATHS)


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("path", COMMAND_PATHS, ids=[" ".join(p) or "hosim" for p in COMMAND_PATHS])
def test_every_command_answers_h_and_help(path, flag, capsys):
    assert main([*path, flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Usage: {' '.join(['hosim', *path])} ")


@pytest.mark.parametrize("paper", sorted(REPRODUCTIONS))
def test_reproduce_bad_option_is_one_line_exit_2(paper, capsys):
    assert main(["reproduce", paper, "--seeds", "none"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("hosim: error: ") and "--seeds" in err[0]


def test_reproduce_module_entry_point_is_the_hosim_command(capsys):
    from hosim.reproduce import fcp

    assert fcp.main(["-h"]) == 0
    assert capsys.readouterr().out.startswith("Usage: hosim reproduce drop-or-forward ")


def test_the_invocation_sits_on_the_click_context():
    import click

    from hosim.cli.invocation import Invocation, command_line

    @click.command()
    def probe() -> None:
        click.echo(" ".join(command_line()))

    assert CliRunner().invoke(probe, [], obj=Invocation(("probe", "--x"))).output == "hosim probe --x\n"
    assert CliRunner().invoke(probe, []).output == "hosim\n"  # not started through hosim.cli.main

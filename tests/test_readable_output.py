"""Readable output: tables that fit 80 columns without cutting a value, --csv, one-line click
errors, integer counts in CSV files, warnings for implausible values and empty flows, --unset,
and the demo plots' colours and handover panels."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from rich.console import Console

from conftest import SHORT
from hosim.checks import empty_flow_warnings, implausible, scenario_warnings
from hosim.cli import main, one_line
from hosim.cli.run import print_result

# --- tables ----------------------------------------------------------------------------------


def render(result, width: int = 80) -> str:
    buffer = io.StringIO()
    print_result(Console(file=buffer, width=width, highlight=False, soft_wrap=False), result)
    return buffer.getvalue()


def test_one_line_joins_click_choice_lists_readably():
    message = "Invalid value for '--recovery': 'foo'.\nChoose from:\n\treno,\n\tnewreno,\n\tsack"
    assert one_line(message) == "Invalid value for '--recovery': 'foo'. Choose from: reno, newreno, sack"
    assert one_line("x.toml: bad\n(extra detail)") == "x.toml: bad; (extra detail)"


@pytest.mark.native
def test_lte_handover_table_fits_80_columns_and_shows_every_value_in_full():
    import hosim

    result = hosim.run("lte-x2", overrides={"duration_s": 3}, traces=False)
    text = render(result, 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    handover = result.summary["handovers"][0]
    for key, value in handover.items():
        assert key in text, key
        if isinstance(value, str):
            assert value in text, value
        elif isinstance(value, int) and not isinstance(value, bool):
            assert f"{value:,}" in text, (key, value)
        elif isinstance(value, float):
            assert f"{value:,.3f}" in text, (key, value)
    for flow in result.summary["flows"]:
        assert f"{flow['goodput_bps'] / 1e6:,.3f}" in text and f"{flow['retransmits']:,}" in text


def test_a_table_that_fits_stays_one_table():
    from hosim.api import Result

    summary = {"scenario": "s", "seed": 1, "flows": [{"name": "f", "goodput_bps": 1e6, "retransmits": 3}],
               "handovers": [{"ue": "u", "scheme": "x2", "start_s": 1.0, "end_s": 1.5}]}
    text = render(Result(summary), 80)
    assert "Handovers (1 of 1)" not in text and "Handovers" in text and "1.500" in text


@pytest.mark.native
def test_run_csv_prints_every_flow_queue_and_handover_field(hosim_cli):
    proc = hosim_cli("run", "lte-x2", "--set", "duration_s=3", "--csv")
    assert proc.returncode == 0, proc.stderr
    blocks = {block.splitlines()[0]: block.splitlines()[1:] for block in proc.stdout.split("\n\n")}
    assert set(blocks) == {"# flows", "# queues", "# handovers"}
    frame = pd.read_csv(io.StringIO("\n".join(blocks["# handovers"])))
    summary = json.loads(hosim_cli("run", "lte-x2", "--set", "duration_s=3", "--json").stdout)
    assert list(frame.columns) == list(summary["handovers"][0])
    assert frame.loc[0, "forwarded_packets"] == summary["handovers"][0]["forwarded_packets"]


# --- integer columns -------------------------------------------------------------------------


def test_counts_missing_in_some_rows_stay_integers_in_sweep_tables():
    from hosim.sweeps import _element_table

    summaries = [{"handovers": [{"ue": "a", "forwarded_packets": 3}]},
                 {"handovers": [{"ue": "b", "forwarded_packets": None, "start_s": 1.0}]}]
    labels = [{"seed": 1}, {"seed": 2}]
    table = _element_table("handovers", [], labels, summaries, {})
    frame = table.to_frame()
    assert str(frame["forwarded_packets"].dtype) == "Int64" and frame["start_s"].dtype.kind == "f"
    assert table.csv_text().splitlines()[1].split(",")[3] == "3"


@pytest.mark.native
def test_sweep_csv_writes_counts_as_integers(hosim_cli, tmp_path):
    proc = hosim_cli("sweep", "lte-x2", "--grid", "lte_x2.path_switch=standard,predicted", "--seeds", "1",
                     "--set", "duration_s=2.5", "--out", str(tmp_path / "s"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    handovers = (tmp_path / "s" / "handovers.csv").read_text().splitlines()
    columns = handovers[0].split(",")
    for line in handovers[1:]:
        assert "." not in line.split(",")[columns.index("forwarded_packets")]
    flows = (tmp_path / "s" / "flows.csv").read_text().splitlines()
    assert "." not in flows[1].split(",")[flows[0].split(",").index("retransmits")]


# --- warnings --------------------------------------------------------------------------------


def test_implausible_values_by_unit():
    assert implausible("dumbbell.bottleneck_delay_s", 20) == (
        "dumbbell.bottleneck_delay_s=20: 20 s delay: did you mean 0.020?")
    assert "Mbit/s" in implausible("dumbbell.access_bps", 10)
    assert implausible("dumbbell.bottleneck_delay_s", 0.02) is None
    assert implausible("duration_s", 600) is None and implausible("dumbbell.bottleneck_bps", 1e7) is None
    assert scenario_warnings({"dumbbell": {"bottleneck_delay_s": 30}}, [("dumbbell.bottleneck_delay_s", 0.03)]) == []
    grid = [("dumbbell.bottleneck_delay_s", 20), ("dumbbell.bottleneck_delay_s", 0.02)]  # a grid's values
    assert len(scenario_warnings({}, grid)) == 1


def test_empty_flow_warning_names_the_flow():
    summary = {"flows": [{"name": "a", "bytes_delivered": 0}, {"name": "b", "bytes_delivered": 10}]}
    [warning] = empty_flow_warnings(summary)
    assert "flow a delivered no data" in warning


def test_flows_held_back_by_the_receive_window_most_of_their_time_are_one_warning():
    from hosim.checks import rwnd_limited_warnings

    flows = [{"name": "ref", "start_s": 0.0, "rwnd_limited_s": 55.8, "goodput_bps": 8.4e6, "completion_time_s": None},
             {"name": "bg", "start_s": 0.0, "rwnd_limited_s": 20.0, "goodput_bps": 3e6, "completion_time_s": None},
             {"name": "done", "start_s": 0.0, "rwnd_limited_s": 4.0, "completion_time_s": 5.0, "goodput_bps": 1e6},
             {"name": "free", "start_s": 0.0, "goodput_bps": 40e6, "completion_time_s": None}]
    [warning] = rwnd_limited_warnings({"sim_time_s": 60.0, "flows": flows})
    assert warning.startswith("2 of 4 flows were limited by the receiver's window for most of their time "
                              "(ref 93% (8.4 Mbit/s), done 80% (1 Mbit/s);")
    assert "raise tcp.rwnd_bytes" in warning
    assert rwnd_limited_warnings({"sim_time_s": 60.0, "flows": flows[1:2] + flows[3:]}) == []


def test_many_empty_flows_are_one_warning_with_their_number_and_first_names():
    flows = [{"name": f"f{i}", "bytes_delivered": 0 if i % 2 else 5} for i in range(20)]
    assert len(empty_flow_warnings({"flows": flows[:7]})) == 3  # three empty: a line each
    [warning] = empty_flow_warnings({"flows": flows}, "seed 4")
    assert warning.startswith("10 of 20 flows delivered no data (seed 4) (f1, f3, f5 and 7 more;")


@pytest.mark.native
def test_run_warns_on_stderr_without_changing_the_exit_code(hosim_cli):
    proc = hosim_cli("run", "dumbbell", *SHORT, "--set", "dumbbell.bottleneck_delay_s=20", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["scenario"] == "dumbbell"
    lines = proc.stderr.splitlines()
    assert "hosim: warning: dumbbell.bottleneck_delay_s=20: 20 s delay: did you mean 0.020?" in lines
    assert any("delivered no data" in line for line in lines)  # 40 s RTT in a 2 s run
    quiet = hosim_cli("run", "dumbbell", *SHORT, "--json")
    assert quiet.stderr == ""


@pytest.mark.native
def test_a_flow_capped_by_its_receive_window_is_one_warning_line(hosim_cli):
    # Issue 38: rwnd_bytes = 65535 capped a flow at 8.4 Mb/s on a 50 Mb/s path, without a sign.
    proc = hosim_cli("run", "dumbbell", "--set", "duration_s=5", "--set", "dumbbell.flows=1", "--set",
                     "dumbbell.bottleneck_bps=50e6", "--set", "tcp.rwnd_bytes=65535", "--json")
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("hosim: warning: 1 of 1 flows were limited by the receiver's window for most of their "
                           "time (flow0 9"), line


@pytest.mark.native
@pytest.mark.parametrize("command", [("run", "dumbbell", *SHORT),
                                     ("sweep", "dumbbell", *SHORT, "--seeds", "1", "--out", "{tmp}")])
def test_a_rejected_implausible_value_gets_its_error_line_only(hosim_cli, tmp_path, command):
    args = [a.replace("{tmp}", str(tmp_path / "s")) for a in command]
    key = "--grid" if command[0] == "sweep" else "--set"
    proc = hosim_cli(*args, key, "dumbbell.bottleneck_delay_s=1.9e10")
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert line.startswith("hosim: error: ") and "dumbbell.bottleneck_delay_s" in line


# --- --unset ---------------------------------------------------------------------------------


@pytest.mark.native
def test_unset_lets_a_conflicting_key_replace_the_presets(hosim_cli):
    args = ("run", "lte-x2", "--set", "duration_s=2.5", "--set", "lte_x2.enb_queue_bytes=60000", "--json")
    clash = hosim_cli(*args)
    assert clash.returncode == 2 and "enb_queue" in clash.stderr
    proc = hosim_cli(*args, "--unset", "lte_x2.enb_queue_packets")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scenario"] == "lte-x2"


def test_unset_of_a_key_that_is_not_there_is_one_line(capsys):
    assert main(["run", "duration_s = 1\n", "--unset", "tcp.recovery"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--unset tcp.recovery" in err[0] and "does not set" in err[0]


def test_remove_keys_keeps_every_other_value():
    import tomllib

    from hosim.api import remove_keys

    text = 'duration_s = 5.0\n[lte_x2]\nenb_queue_packets = 200 # Table I\nue = "x"\n'
    assert tomllib.loads(remove_keys(text, ["lte_x2.enb_queue_packets"])) == {"duration_s": 5.0, "lte_x2": {"ue": "x"}}


# --- demo plots ------------------------------------------------------------------------------


def test_demo_plots_keep_flow_colours_and_zoom_on_the_handover():
    from hosim.api import Result
    from hosim.plots import handover_window, plot_cwnd

    def result(flows, handovers):
        columns = {"cwnd": {"time_s": [0.0, 1.0] * len(flows), "flow": [f for f in flows for _ in (0, 1)],
                            "cwnd_bytes": [1000.0, 2000.0] * len(flows),
                            "effective_window_bytes": [1000.0, 2000.0] * len(flows)}}
        return Result.from_columns({"handovers": handovers}, columns)

    runs = {"a": result(["x", "y"], [{"start_s": 1.0, "end_s": 1.2}]), "b": result(["y"], [])}
    figure = plot_cwnd(runs)
    full_a, zoom_a, full_b = figure.axes[0], figure.axes[1], figure.axes[2]
    colour = {line.get_label(): line.get_color() for line in full_a.get_lines() if not line.get_label().startswith("_")}
    [line_b] = [line for line in full_b.get_lines() if line.get_label() == "y"]
    assert line_b.get_color() == colour["y"] != colour["x"]
    assert zoom_a.get_xlim() == pytest.approx(handover_window(runs["a"]))
    marks = [line.get_xdata()[0] for line in full_a.get_lines() if line.get_label().startswith("_")]
    assert 1.0 in marks and 1.2 in marks


@pytest.mark.native
def test_demo_summary_csv_keeps_counts_integer_across_sections(tmp_path):
    from hosim.demo import SECTIONS, DemoSection, run_demo

    sections = [DemoSection(s.name, s.title, s.variants[:1], s.file_prefix, s.metrics, s.min_duration_s)
                for s in SECTIONS]
    run_demo(tmp_path, duration_s=1, sections=sections)
    frame = pd.read_csv(tmp_path / "summary.csv", dtype=str, keep_default_na=False)
    assert set(frame["section"]) == {s.name for s in SECTIONS}
    for column in ("retransmits", "timeouts", "forwarded_packets", "delivered_bytes_window"):
        assert all("." not in value for value in frame[column]), (column, list(frame[column]))

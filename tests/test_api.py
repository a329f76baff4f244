"""hosim.run, Result, scenario resolution and the Python -> TOML value conversion."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import hosim
from hosim.api import TRACE_COLUMNS, Result, load_scenario, override_pairs, parse_toml_value, toml_literal

FLOW_FIELDS = {"name", "cc", "recovery", "recovery_rate", "loss_detection", "frto", "bytes_delivered",
               "goodput_bps", "retransmits", "timeouts",
               "spurious_timeouts", "fast_recoveries", "rtt_mean_s"}
QUEUE_FIELDS = {"name", "enqueued", "dropped", "marked", "mean_len_pkts", "max_len_pkts"}
SUMMARY_FIELDS = {
    "scenario", "seed", "sim_time_s", "events", "wall_time_s", "flows", "queues", "handovers", "invariants",
}
SHORT = {"duration_s": 2}


def without_wall_time(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_time_s"}


# --- pure Python -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (0.01, "0.01"),
        (1e-7, "1e-07"),
        (10e6, "10000000.0"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        ("sack", '"sack"'),
        ('a "quoted" \\ path\n', '"a \\"quoted\\" \\\\ path\\n"'),
        ("\x01", '"\\u0001"'),
        ([1, 2.5, "x"], '[1, 2.5, "x"]'),
        ({"rate_bps": 1, "odd key": True}, '{ rate_bps = 1, "odd key" = true }'),
        ({}, "{}"),
    ],
)
def test_toml_literal_writes_each_python_type_as_its_toml_literal(value, literal):
    assert toml_literal(value) == literal


def test_toml_literal_round_trips_through_the_toml_parser():
    import tomllib

    values = [True, 0, -7, 2**62, 0.1, 1e300, 5e-324, "ünïcode \t \"q\" \x7f", [[1], {"a": "b"}]]
    for value in values:
        assert tomllib.loads(f"v = {toml_literal(value)}")["v"] == value


def test_toml_literal_nan_is_toml_nan():
    import tomllib

    assert math.isnan(tomllib.loads(f"v = {toml_literal(float('nan'))}")["v"])


def test_toml_literal_accepts_numpy_scalars_and_arrays():
    np = pytest.importorskip("numpy")
    assert toml_literal(np.int64(5)) == "5"
    assert toml_literal(np.float64(0.5)) == "0.5"
    assert toml_literal(np.bool_(True)) == "true"
    assert toml_literal(np.array([1, 2])) == "[1, 2]"


def test_toml_literal_rejects_none():
    with pytest.raises(TypeError):
        toml_literal(None)


@pytest.mark.parametrize(("raw", "value"), [("0.01", 0.01), ("3", 3), ("true", True), ("reno", "reno"),
                                             ('"reno"', "reno"), ("[1, 2]", [1, 2]), ("1.0.0", "1.0.0")])
def test_parse_toml_value_reads_toml_or_falls_back_to_the_raw_string(raw, value):
    assert parse_toml_value(raw) == value


def test_override_pairs_converts_values_to_toml_literals():
    assert override_pairs({"tcp.recovery": "sack", "dumbbell.loss": 0.01, "tcp.delayed_ack": False}) == [
        ("tcp.recovery", '"sack"'), ("dumbbell.loss", "0.01"), ("tcp.delayed_ack", "false")]
    assert override_pairs(None) == []


def test_override_without_a_toml_value_is_a_scenario_error():
    with pytest.raises(hosim.ScenarioError, match="tcp.mss_bytes"):
        override_pairs({"tcp.mss_bytes": None})


def test_scenario_error_is_a_value_error_and_invariant_error_a_runtime_error():
    assert issubclass(hosim.ScenarioError, ValueError)
    assert issubclass(hosim.InvariantError, RuntimeError)


def test_text_with_a_newline_is_taken_as_toml():
    assert load_scenario("duration_s = 1\n") == ("duration_s = 1\n", "<string>")


def test_missing_file_is_a_one_line_scenario_error_naming_it(tmp_path):
    missing = tmp_path / "missing.toml"
    for scenario in (missing, str(missing)):
        with pytest.raises(hosim.ScenarioError) as info:
            load_scenario(scenario)
        assert str(missing) in str(info.value)
        assert "\n" not in str(info.value)


def test_directory_is_a_scenario_error(tmp_path):
    with pytest.raises(hosim.ScenarioError, match="directory"):
        load_scenario(tmp_path)


def test_file_that_is_not_utf8_is_a_scenario_error(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"name = '\xe9'\n")
    with pytest.raises(hosim.ScenarioError, match="UTF-8"):
        load_scenario(path)


def test_seed_outside_u64_is_a_scenario_error():
    with pytest.raises(hosim.ScenarioError, match="seed"):
        hosim.run("duration_s = 1\n", seed=-1)
    with pytest.raises(hosim.ScenarioError, match="seed"):
        hosim.run("duration_s = 1\n", seed=2**64)


def test_importing_hosim_does_not_import_pandas_or_the_api():
    import subprocess
    import sys

    code = "import sys, hosim, hosim.models; print('pandas' in sys.modules, 'hosim.api' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_result_fills_in_every_documented_trace_table_even_when_empty():
    result = Result({"flows": [{"name": "f"}]}, {})
    for name, columns in TRACE_COLUMNS.items():
        assert list(getattr(result, name).columns) == list(columns)
        assert result.traces[name].empty
    assert list(result.flows["flow"]) == ["f"]  # the traces' and the sweep tables' name for it
    with pytest.raises(AttributeError):
        result.no_such_table  # noqa: B018


# --- against the simulator -------------------------------------------------------------------


@pytest.mark.native
def test_run_returns_the_documented_summary_fields():
    result = hosim.run("dumbbell", seed=3, overrides=SHORT)
    assert isinstance(result, hosim.Result)
    assert SUMMARY_FIELDS <= result.summary.keys()
    assert result.summary["seed"] == 3
    assert result.summary["flows"], "the dumbbell has flows"
    for flow in result.summary["flows"]:
        assert FLOW_FIELDS <= flow.keys()
    for queue in result.summary["queues"]:
        assert QUEUE_FIELDS <= queue.keys()
    assert FLOW_FIELDS - {"name"} | {"flow"} <= set(result.flows.columns)
    assert "name" not in result.flows.columns and "queue" in result.queues.columns
    assert len(result.flows) == len(result.summary["flows"])


@pytest.mark.native
@pytest.mark.parametrize("preset", [p.name for p in hosim.presets()])
def test_summary_dict_is_the_dict_json_loads_makes_of_the_summary_text(preset):
    # hosim.run takes the summary as a dict built in the native module, not as JSON text:
    # the same keys in the same order, and the same values of the same types (an int stays
    # an int, a whole float a float).
    from hosim.api import native

    toml = next(p.toml for p in hosim.presets() if p.name == preset)
    text, _ = native().run(toml, preset, 5, [], False)
    built, _ = native().run(toml, preset, 5, [], False, summary_dict=True)
    from_text = without_wall_time(json.loads(text))
    built = without_wall_time(built)
    assert built == from_text
    assert json.dumps(built) == json.dumps(from_text), "key order and int/float types"
    assert without_wall_time(hosim.run(toml, seed=5, traces=False).summary) == from_text


@pytest.mark.native
def test_run_returns_traces_as_dataframes_with_the_documented_columns():
    result = hosim.run("dumbbell", overrides=SHORT)
    for name, columns in TRACE_COLUMNS.items():
        frame = result.traces[name]
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns[: len(columns)]) == list(columns)
        assert getattr(result, name) is frame
    assert len(result.cwnd) > 0
    assert len(result.goodput) > 0
    assert result.cwnd["time_s"].is_monotonic_increasing or result.cwnd.groupby("flow")["time_s"].apply(
        lambda t: t.is_monotonic_increasing).all()
    assert (result.cwnd["time_s"] <= result.summary["sim_time_s"] + 1e-9).all()


@pytest.mark.native
def test_run_without_traces_returns_empty_tables():
    result = hosim.run("dumbbell", overrides=SHORT, traces=False)
    assert all(frame.empty for frame in result.traces.values())


@pytest.mark.native
def test_same_scenario_and_seed_give_the_same_summary_and_traces():
    first = hosim.run("dumbbell", seed=11, overrides={**SHORT, "dumbbell.loss": 0.01})
    second = hosim.run("dumbbell", seed=11, overrides={**SHORT, "dumbbell.loss": 0.01})
    assert without_wall_time(first.summary) == without_wall_time(second.summary)
    assert first.traces.keys() == second.traces.keys()
    for name in first.traces:
        pd.testing.assert_frame_equal(first.traces[name], second.traces[name])


@pytest.mark.native
def test_different_seeds_give_different_runs_when_there_is_random_loss():
    overrides = {**SHORT, "dumbbell.loss": 0.02}
    a = hosim.run("dumbbell", seed=1, overrides=overrides, traces=False)
    b = hosim.run("dumbbell", seed=2, overrides=overrides, traces=False)
    assert [f["bytes_delivered"] for f in a.summary["flows"]] != [f["bytes_delivered"] for f in b.summary["flows"]]


@pytest.mark.native
def test_overrides_reach_the_scenario():
    result = hosim.run("dumbbell", overrides={**SHORT, "tcp.recovery": "sack", "dumbbell.flows": 3}, traces=False)
    assert [f["recovery"] for f in result.summary["flows"]] == ["sack"] * 3
    assert result.summary["sim_time_s"] == pytest.approx(2)


@pytest.mark.native
def test_overrides_reach_a_controllers_table():
    cubic = {**SHORT, "tcp.cc": "cubic", "dumbbell.flows": 1}
    default = hosim.run("dumbbell", overrides=cubic, traces=False).summary["flows"][0]
    gentle = hosim.run("dumbbell", overrides={**cubic, "tcp.cubic.beta": 0.9}, traces=False).summary["flows"][0]
    assert gentle["cc"] == default["cc"] == "cubic"
    assert gentle["fast_recoveries"] > 0 and gentle["bytes_delivered"] != default["bytes_delivered"]
    with pytest.raises(hosim.ScenarioError, match=r"`tcp\.cubic\.beta`"):
        hosim.run("dumbbell", overrides={**cubic, "tcp.cubic.beta": 1.5}, traces=False)


@pytest.mark.native
def test_preset_name_text_and_file_give_the_same_run(tmp_path, dumbbell_toml):
    path = tmp_path / "dumbbell.toml"
    path.write_text(dumbbell_toml)
    runs = [hosim.run(s, overrides=SHORT, traces=False) for s in ("dumbbell", dumbbell_toml, path, str(path))]
    reference = without_wall_time(runs[0].summary)
    reference.pop("scenario")
    for result in runs[1:]:
        summary = without_wall_time(result.summary)
        summary.pop("scenario")
        assert summary == reference


@pytest.mark.native
def test_seed_defaults_to_the_scenarios_seed_else_1(tmp_path, dumbbell_toml):
    assert hosim.run("dumbbell", overrides=SHORT, traces=False).summary["seed"] == 1
    path = tmp_path / "seeded.toml"
    path.write_text("seed = 42\n" + dumbbell_toml)
    assert hosim.run(path, overrides=SHORT, traces=False).summary["seed"] == 42
    assert hosim.run(path, seed=5, overrides=SHORT, traces=False).summary["seed"] == 5


@pytest.mark.native
def test_unknown_preset_is_a_one_line_scenario_error_listing_the_presets():
    with pytest.raises(hosim.ScenarioError) as info:
        hosim.run("no-such-preset")
    message = str(info.value)
    assert "no-such-preset" in message and "dumbbell" in message and "\n" not in message


@pytest.mark.native
def test_scenario_error_is_the_native_class():
    from hosim import _native

    assert hosim.ScenarioError is _native.ScenarioError
    assert hosim.InvariantError is _native.InvariantError
    with pytest.raises(_native.ScenarioError):
        hosim.run("dumbbell", overrides={"dumbbell.no_such_knob": 1})


@pytest.mark.native
def test_write_saves_summary_json_and_non_empty_traces_as_parquet(tmp_path):
    result = hosim.run("dumbbell", overrides=SHORT)
    written = result.write(tmp_path / "out")
    names = {p.name for p in written}
    assert "summary.json" in names
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == result.summary
    for name, frame in result.traces.items():
        path = tmp_path / "out" / f"{name}.parquet"
        assert path.exists() == (len(frame) > 0)
        if path.exists():
            pd.testing.assert_frame_equal(pd.read_parquet(path), frame)


@pytest.mark.native
def test_presets_include_the_dumbbell_with_a_description():
    presets = {p.name: p for p in hosim.presets()}
    assert "dumbbell" in presets
    assert presets["dumbbell"].description and "\n" not in presets["dumbbell"].description


# --- the API on par with the CLI: sweep, unset, warnings ---------------------------------------


@pytest.mark.native
def test_hosim_sweep_runs_a_grid_and_returns_every_table():
    result = hosim.sweep("dumbbell", {"dumbbell.loss": [0.0, 0.01]}, seeds=2, jobs=1, overrides=SHORT)
    assert set(result.flows["dumbbell.loss"]) == {0.0, 0.01} and set(result.flows["seed"]) == {1, 2}
    assert len(result.runs) == 4 and {"queues", "handovers"} <= set(result.tables())
    assert "sweep" in dir(hosim)


@pytest.mark.native
def test_run_and_sweep_take_unset_to_replace_a_conflicting_key():
    overrides = {"duration_s": 3, "lte_x2.enb_queue_bytes": 60000}
    with pytest.raises(hosim.ScenarioError):
        hosim.run("lte-x2", overrides=overrides, traces=False)  # the preset sets enb_queue_packets too
    result = hosim.run("lte-x2", overrides=overrides, traces=False, unset=["lte_x2.enb_queue_packets"])
    assert result.summary["flows"]
    swept = hosim.sweep("lte-x2", {}, seeds=1, jobs=1, overrides=overrides, unset=["lte_x2.enb_queue_packets"])
    assert len(swept.runs) == 1


@pytest.mark.native
def test_run_warns_of_a_flow_capped_by_its_receive_window_through_python_warnings():
    overrides = {"duration_s": 5, "dumbbell.flows": 1, "dumbbell.bottleneck_bps": 50e6, "tcp.rwnd_bytes": 65535}
    with pytest.warns(hosim.HosimWarning, match="limited by the receiver's window for most of their time"):
        result = hosim.run("dumbbell", overrides=overrides, traces=False)
    assert result.summary["flows"][0]["rwnd_limited_s"] > 2.5


@pytest.mark.native
def test_run_warns_of_a_likely_unit_slip_through_python_warnings():
    with pytest.warns(hosim.HosimWarning) as caught:
        hosim.run("dumbbell", overrides={"dumbbell.bottleneck_bps": 50, "duration_s": 1}, traces=False)
    messages = [str(w.message) for w in caught]
    assert any("50 bit/s: did you mean 50 Mbit/s" in m for m in messages), messages
    assert any("delivered no data" in m for m in messages)
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, hosim.HosimWarning))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", hosim.HosimWarning)
        hosim.run("dumbbell", overrides=SHORT, traces=False)  # nothing to warn about


@pytest.mark.native
def test_sweep_warns_when_two_seeds_give_identical_runs():
    deterministic = {**SHORT, "dumbbell.start_jitter_s": 0}
    with pytest.warns(hosim.HosimWarning, match="seeds 1 and 2 of the first grid point give identical summaries"):
        hosim.sweep("dumbbell", {"dumbbell.loss": [0.0]}, seeds=2, jobs=1, overrides=deterministic)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", hosim.HosimWarning)
        hosim.sweep("dumbbell", {"dumbbell.loss": [0.01]}, seeds=2, jobs=1, overrides=SHORT)


@pytest.mark.native
def test_a_script_without_a_main_guard_can_sweep_with_two_jobs(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text('import hosim\n'
                      'r = hosim.sweep("dumbbell", {"dumbbell.loss": [0.0, 0.01]}, seeds=2, jobs=2, '
                      'overrides={"duration_s": 1})\n'
                      'print(len(r.runs), "runs")\n')
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(hosim.__file__)))
    env = {**os.environ, "PYTHONPATH": package_root}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout == "4 runs\n", proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr

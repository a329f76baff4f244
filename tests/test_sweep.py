"""hosim.sweep and `hosim sweep`: grid expansion, row layout, independence from --jobs."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from conftest import SHORT
from hosim import ScenarioError
from hosim.cli import main
from hosim.cli.common import parse_grid, split_top_level
from hosim.sweeps import RUN_COLUMNS, summarize, sweep

# --- pure Python -----------------------------------------------------------------------------


def test_grid_values_are_read_as_toml_else_strings():
    grid = parse_grid(["tcp.recovery=reno,sack", "dumbbell.loss=0, 0.01", "x.list=[1,2],[3]"])
    assert grid == {"tcp.recovery": ["reno", "sack"], "dumbbell.loss": [0, 0.01], "x.list": [[1, 2], [3]]}


def test_commas_inside_brackets_and_quotes_do_not_split_values():
    assert split_top_level('[1,2],{a=1,b=2},"x,y"') == ["[1,2]", "{a=1,b=2}", '"x,y"']


@pytest.mark.parametrize("bad", [["dumbbell.loss"], ["=1,2"], ["a=1,,2"], ["a=1", "a=2"]])
def test_malformed_grid_exits_2_with_one_line(bad, capsys, tmp_path):
    args = ["sweep", "whatever"]
    for item in bad:
        args += ["--grid", item]
    assert main([*args, "--seeds", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("hosim: error: --grid")


@pytest.mark.parametrize(("kwargs", "match"), [({"seeds": 0}, "seeds"), ({"seeds": 1, "jobs": 0}, "jobs")])
def test_sweep_rejects_non_positive_counts(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sweep("dumbbell", {}, **kwargs)


def test_grid_key_without_values_is_a_scenario_error():
    with pytest.raises(ScenarioError, match="dumbbell.loss"):
        sweep("dumbbell", {"dumbbell.loss": []}, seeds=1)


def test_summarize_gives_mean_and_sample_std_over_seeds_of_per_run_sums():
    rows = []
    for loss, seed, per_flow in [(0.0, 1, 10.0), (0.0, 2, 20.0), (0.1, 1, 4.0), (0.1, 2, 4.0)]:
        for flow in ("f0", "f1"):
            rows.append({"dumbbell.loss": loss, "seed": seed, "flow": flow, "goodput_bps": per_flow,
                         "retransmits": seed, "timeouts": 0})
    stats = summarize(pd.DataFrame(rows), ["dumbbell.loss"])
    assert list(stats["dumbbell.loss"]) == [0.0, 0.1]
    assert list(stats["runs"]) == [2, 2]
    assert list(stats["goodput_bps_mean"]) == [30.0, 8.0]
    assert stats["goodput_bps_std"].tolist() == pytest.approx([14.1421356, 0.0])
    assert list(stats["retransmits_mean"]) == [3.0, 3.0]


def test_summarize_gives_the_95_percent_t_interval_and_one_flow_on_request():
    from hosim.stats import t975

    rows = [{"seed": seed, "flow": flow, "goodput_bps": value * (2 if flow == "b" else 1),
             "retransmits": 0, "timeouts": 0}
            for seed, value in [(1, 1.0), (2, 2.0), (3, 3.0)] for flow in ("a", "b")]
    frame = pd.DataFrame(rows)
    both = summarize(frame, [])
    assert both.loc[0, "goodput_bps_mean"] == 6.0
    assert both.loc[0, "goodput_bps_ci95"] == pytest.approx(t975(2) * 3.0 / 3 ** 0.5)  # sd of 3, 6, 9 is 3
    only_a = summarize(frame, [], flow="a")
    assert only_a.loc[0, "goodput_bps_mean"] == 2.0
    assert only_a.loc[0, "goodput_bps_ci95"] == pytest.approx(t975(2) * 1.0 / 3 ** 0.5)
    assert math.isnan(summarize(frame[frame["seed"] == 1], []).loc[0, "goodput_bps_ci95"])  # one run
    with pytest.raises(ScenarioError, match=r"--flow c: no flow of that name \(flows: a, b\)"):
        summarize(frame, [], flow="c")


def test_outcome_table_gives_shares_with_wilson_intervals_per_grid_point():
    from hosim.sweeps import outcome_table

    handovers = {"v": ["x"] * 5 + ["y"] * 2, "outcome": ["halving"] * 4 + ["timeout"] + ["timeout"] * 2}
    rows = outcome_table(handovers, ["v"]).records()
    assert [(r["v"], r["outcome"], r["handovers"], r["of"]) for r in rows] == [
        ("x", "halving", 4, 5), ("x", "timeout", 1, 5), ("y", "halving", 0, 2), ("y", "timeout", 2, 2)]
    assert (rows[0]["share_low"], rows[0]["share_high"]) == pytest.approx((0.3755, 0.9638), abs=1e-4)
    assert outcome_table({"ue": ["a"]}, []) is None


@pytest.mark.native
def test_sweep_flow_and_summarize_print_intervals_and_outcome_shares(hosim_cli, tmp_path):
    out = tmp_path / "s"
    args = ("sweep", "lte-x2", "--grid", "lte_x2.path_switch=standard,predicted", "--seeds", "2",
            "--set", "duration_s=3", "--out", str(out), "--quiet", "--flow", "ref")
    proc = hosim_cli(*args, "--csv")
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[0].split(",")
    assert {"goodput_bps_ci95", "spurious_timeouts_mean"} <= set(header)
    env_wide = hosim_cli("summarize", str(out), "--flow", "ref")
    assert env_wide.returncode == 0, env_wide.stderr
    assert "95 % confidence interval" in env_wide.stdout and "flow ref" in env_wide.stdout
    assert "Wilson" in env_wide.stdout and " of 2" in env_wide.stdout
    csv_again = hosim_cli("summarize", str(out), "--flow", "ref", "--csv")
    assert csv_again.stdout == proc.stdout
    unknown = hosim_cli("summarize", str(out), "--flow", "nope")
    assert unknown.returncode == 2 and "flows: ref, tgt1" in unknown.stderr and len(unknown.stderr.splitlines()) == 1


def test_summarize_without_grid_keys_gives_one_row():
    frame = pd.DataFrame({"seed": [1, 2], "flow": ["f", "f"], "goodput_bps": [1.0, 3.0],
                          "retransmits": [0, 0], "timeouts": [1, 1]})
    stats = summarize(frame, [])
    assert len(stats) == 1 and stats.loc[0, "goodput_bps_mean"] == 2.0 and stats.loc[0, "runs"] == 2


# --- against the simulator -------------------------------------------------------------------


GRID = {"tcp.recovery": ["reno", "sack"], "dumbbell.loss": [0.0, 0.01]}


@pytest.mark.native
def test_sweep_has_one_row_per_grid_point_seed_and_flow_in_order():
    frame = sweep("dumbbell", GRID, seeds=2, jobs=1, seed_base=5, overrides={"duration_s": 2})
    flows = frame.groupby(["tcp.recovery", "dumbbell.loss", "seed"]).size()
    assert len(flows) == 2 * 2 * 2
    assert list(frame.columns[:4]) == ["tcp.recovery", "dumbbell.loss", "seed", "flow"]
    assert list(frame.columns[-3:]) == list(RUN_COLUMNS)
    assert {"goodput_bps", "retransmits", "timeouts", "recovery"} <= set(frame.columns)
    assert sorted(set(frame["seed"])) == [5, 6]
    runs = frame.drop_duplicates(["tcp.recovery", "dumbbell.loss", "seed"])
    assert list(zip(runs["tcp.recovery"], runs["dumbbell.loss"], runs["seed"])) == [
        ("reno", 0.0, 5), ("reno", 0.0, 6), ("reno", 0.01, 5), ("reno", 0.01, 6),
        ("sack", 0.0, 5), ("sack", 0.0, 6), ("sack", 0.01, 5), ("sack", 0.01, 6)]
    assert (frame["recovery"] == frame["tcp.recovery"]).all()


@pytest.mark.native
def test_sweep_results_do_not_depend_on_the_number_of_jobs(hosim_cli, tmp_path):
    tables = []
    for jobs in (1, 2):
        out = tmp_path / f"jobs{jobs}"
        proc = hosim_cli("sweep", "dumbbell", "--grid", "tcp.recovery=reno,sack", "--grid", "dumbbell.loss=0,0.01",
                         "--seeds", "2", "--jobs", str(jobs), "--out", str(out), *SHORT)
        assert proc.returncode == 0, proc.stderr
        assert "±" in proc.stdout
        parquet = pd.read_parquet(out / "results.parquet")
        csv = pd.read_csv(out / "results.csv")
        assert len(parquet) == len(csv) > 0
        tables.append(parquet.drop(columns="wall_time_s"))
    pd.testing.assert_frame_equal(tables[0], tables[1])


@pytest.mark.native
def test_invalid_grid_value_exits_2_naming_the_key(hosim_cli, tmp_path):
    proc = hosim_cli("sweep", "dumbbell", "--grid", "dumbbell.bottleneck_bps=1e6,-1", "--seeds", "1",
                     "--jobs", "2", "--out", str(tmp_path), *SHORT)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "bottleneck_bps" in lines[0]


def test_key_in_both_set_and_grid_exits_2(capsys, tmp_path):
    args = ["sweep", "dumbbell", "--grid", "dumbbell.loss=0,0.1", "--set", "dumbbell.loss=0.2", "--seeds", "1"]
    assert main([*args, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "dumbbell.loss" in err[0]


@pytest.mark.native
def test_sweep_without_grid_runs_each_seed_once():
    frame = sweep("dumbbell", {}, seeds=3, jobs=1, overrides={"duration_s": 1})
    per_seed = frame.groupby("seed").size()
    assert list(per_seed.index) == [1, 2, 3]
    assert per_seed.nunique() == 1
    stats = summarize(frame)
    assert len(stats) == 1 and stats.loc[0, "runs"] == 3


# --- every table of the summary --------------------------------------------------------------


@pytest.mark.native
def test_sweep_writes_flows_queues_handovers_and_runs_tables_with_task_columns(tmp_path):
    from hosim.sweeps import run_sweep, write_tables

    grid = {"lte_x2.path_switch": ["standard", "predicted"]}
    result = run_sweep("lte-x2", grid, seeds=2, jobs=1, overrides={"duration_s": 2.5})
    written = {p.name for p in write_tables(result, tmp_path)}
    for table in ("flows", "queues", "handovers", "runs"):
        assert {f"{table}.parquet", f"{table}.csv"} <= written
    assert {"results.parquet", "results.csv"} <= written

    flows, queues = pd.read_parquet(tmp_path / "flows.parquet"), pd.read_parquet(tmp_path / "queues.parquet")
    handovers, runs = pd.read_parquet(tmp_path / "handovers.parquet"), pd.read_parquet(tmp_path / "runs.parquet")
    assert list(flows.columns[:3]) == ["lte_x2.path_switch", "seed", "flow"]
    assert list(queues.columns[:3]) == ["lte_x2.path_switch", "seed", "queue"]
    assert list(handovers.columns[:3]) == ["lte_x2.path_switch", "seed", "handover"]
    assert list(runs.columns[:2]) == ["lte_x2.path_switch", "seed"]
    # One handover per run (the reference UE's), tagged with its run's grid value and seed.
    assert list(zip(handovers["lte_x2.path_switch"], handovers["seed"])) == [
        ("standard", 1), ("standard", 2), ("predicted", 1), ("predicted", 2)]
    assert (handovers["path_switch"] == handovers["lte_x2.path_switch"]).all()
    assert (handovers.loc[handovers["path_switch"] == "predicted", "forwarded_packets"] == 0).all()
    # Every run has the same queues, and the run table keeps the mechanism's report flattened.
    per_run = queues.groupby(["lte_x2.path_switch", "seed"], sort=False)["queue"].apply(list)
    assert len(per_run) == 4 and per_run.map(tuple).nunique() == 1 and "router->tenb" in per_run.iloc[0]
    assert len(runs) == 4 and "lte_x2.path_switch" in runs.columns and "invariants.ok" in runs.columns
    assert runs["invariants.ok"].all()
    pd.testing.assert_frame_equal(flows, pd.read_parquet(tmp_path / "results.parquet"))


@pytest.mark.native
def test_sweep_cli_reuses_cached_runs(hosim_cli, tmp_path):
    args = ["sweep", "dumbbell", "--grid", "dumbbell.loss=0,0.01", "--seeds", "1", "--jobs", "1",
            "--cache-dir", str(tmp_path / "cache"), *SHORT]
    first = hosim_cli(*args, "--out", str(tmp_path / "a"))
    second = hosim_cli(*args, "--out", str(tmp_path / "b"))
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    cached = len(list((tmp_path / "cache").rglob("*.json")))
    assert cached == 2
    a, b = (pd.read_parquet(tmp_path / d / "runs.parquet") for d in ("a", "b"))
    pd.testing.assert_frame_equal(a, b)  # wall_time_s too: the second sweep ran nothing
    other = tmp_path / "other-cache"
    third = hosim_cli(*args, "--cache-dir", str(other), "--no-cache", "--out", str(tmp_path / "c"))
    assert third.returncode == 0, third.stderr
    assert not other.exists()

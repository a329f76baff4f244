"""hosim.reproduce.fcp and the `--from-sim` path of the Cohen-Levin model command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hosim.models import cohen_levin as cl
from hosim.reproduce import fcp

INPUTS = {"theta_pkts": 60.0, "rtt_s": 0.09, "rto_s": 0.2, "fraction": 0.85,
          "d_fcp_bs_s": 0.025, "d_forward_s": 0.05}


def test_predict_scales_the_model_fraction_by_the_no_handover_fraction():
    delta_s = 40.0
    direct = cl.predict("newreno", "forward", delta_s, "s", theta_pkts=60.0, rto_s=0.2, rtt_s=0.09,
                        d_fcp_bs_s=0.025, d_forward_s=0.05)
    # Equation (7) by hand: 1 - RTO/(2 Δ) - Θ/(8 Δ), times in RTTs.
    delta_rtt = delta_s / 0.09
    by_hand = 1 - (0.2 / 0.09) / (2 * delta_rtt) - 60.0 / (8 * delta_rtt)
    assert direct["throughput_fraction"] == pytest.approx(by_hand)
    out = fcp.predict(INPUTS, "newreno", "forward", delta_s)
    assert out["fraction"] == pytest.approx(by_hand * 0.85)
    assert out["equation"] == "7"


def test_predict_gives_a_reason_where_the_paper_has_no_equation():
    assert fcp.predict(INPUTS, "newreno", "rearrange", 40.0)["fraction"] is None
    short = fcp.predict(INPUTS, "newreno", "forward", 0.5)  # fast mobility: no equation (7)
    assert short["fraction"] is None and "delta" in short["reason"]


def test_run_length_grows_with_the_handover_interval():
    assert fcp.duration_s("100M", 10) == pytest.approx(62.0)
    assert fcp.duration_s("100M", 1000) == pytest.approx(2.0 + 3 * 80.0)
    assert fcp.duration_s("1G", 1000) == pytest.approx(200.0 + 2 * 80.0)


def test_1g_points_are_measured_after_the_start_up_ramp():
    # After a 2 s warm-up the 1 Gb/s no-handover reference measured the start-up ramp (0.465
    # of the link against about 0.84 in steady state): handovers start and measuring begins
    # at 200 s there, for the reference and for every handover point alike.
    for delta in (None, 100.0):
        o = fcp.point_overrides("1G", "newreno", "drop", delta)
        assert o["fcp.warmup_s"] == 200.0
        assert o["duration_s"] > 200.0
    assert fcp.point_overrides("100M", "newreno", "drop", 100.0)["fcp.warmup_s"] == 2.0


@pytest.mark.parametrize(("value", "reason"), [("", "give one or more positive"), ("a,b", "not a list of numbers"),
                                             ("100,-5", "give one or more positive")])
def test_deltas_option_rejects_a_bad_list_in_one_line(value, reason, tmp_path):
    outcome = CliRunner().invoke(fcp.cli, ["--deltas", value, "--out", str(tmp_path / "o")])
    assert outcome.exit_code == 2
    assert "--deltas" in outcome.output and reason in outcome.output
    assert not (tmp_path / "o").exists()


def test_cli_requires_theta_or_from_sim():
    outcome = CliRunner().invoke(cl.cli, ["--recovery", "reno", "--scheme", "drop", "--delta", "100",
                                          "--rto-s", "0.2"])
    assert outcome.exit_code == 2
    assert "--theta-pkts" in outcome.output and "--from-sim" in outcome.output


@pytest.mark.native
def test_from_sim_takes_theta_rto_and_rtt_from_a_no_handover_run():
    args = ["--recovery", "newreno", "--scheme", "drop", "--delta", "40", "--delta-unit", "s",
            "--from-sim", "fcp", "--set", "duration_s=6", "--set", "fcp.mobiles=2"]
    outcome = CliRunner().invoke(cl.cli, args)
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.output)
    sim = result["from_sim"]
    assert sim["flows"] == 2 and sim["scenario"] == "fcp"
    assert result["inputs"]["theta_pkts"] == pytest.approx(sim["theta_pkts"])
    assert result["inputs"]["rto_s"] == pytest.approx(sim["rto_s"])
    assert result["inputs"]["rtt_s"] == pytest.approx(sim["rtt_s"])
    assert result["inputs"]["d_fcp_bs_s"] == 0.025 and result["inputs"]["d_forward_s"] == 0.05
    assert 0 < sim["fraction"] <= 1
    assert result["throughput_fraction_of_available"] == pytest.approx(
        result["throughput_fraction"] * sim["fraction"])


@pytest.mark.native
def test_from_sim_bad_override_names_the_key():
    args = ["--recovery", "newreno", "--scheme", "drop", "--delta", "40",
            "--from-sim", "fcp", "--set", "fcp.mobiles=0"]
    outcome = CliRunner().invoke(cl.cli, args)
    assert outcome.exit_code == 2
    assert "fcp.mobiles" in outcome.output


@pytest.mark.native
def test_from_sim_runs_the_requested_flavour():
    base = ["--scheme", "drop", "--delta", "40", "--delta-unit", "s", "--from-sim", "fcp",
            "--set", "duration_s=6", "--set", "fcp.mobiles=2"]
    thetas = {}
    for recovery in ("reno", "sack"):
        outcome = CliRunner().invoke(cl.cli, ["--recovery", recovery] + base)
        assert outcome.exit_code == 0, outcome.output
        thetas[recovery] = json.loads(outcome.output)["from_sim"]["theta_pkts"]
    assert thetas["reno"] != thetas["sack"]


@pytest.mark.native
def test_no_handover_inputs_are_the_models_means_over_runs_of_the_runner(tmp_path):
    from conftest import CountingExecutor
    from hosim.runner import ResultCache, Runner

    runner = Runner(CountingExecutor(), ResultCache(tmp_path))
    overrides = {"duration_s": 4, "fcp.mobiles": 2}
    inputs = fcp.no_handover_inputs(overrides, seeds=2, runner=runner)
    assert [t.seed for t in runner.executor.ran] == [1, 2]
    assert all(dict(t.overrides)["fcp.handovers"] == "false" for t in runner.executor.ran)
    summaries = [runner.summary("fcp", seed, {**overrides, "fcp.handovers": False}) for seed in (1, 2)]
    assert len(runner.executor.ran) == 2  # served from the cache
    thetas = [cl.inputs_from_summary(s, i)["theta_pkts"] for s in summaries for i in range(2)]
    assert inputs["theta_pkts"] == pytest.approx(sum(thetas) / 4)
    assert inputs["flows"] == 2 and inputs["seeds"] == 2


def test_student_t_quantile_follows_the_table_and_tends_to_the_normal_one():
    from hosim.reproduce.common import t975

    assert t975(1) == 12.706
    assert t975(19) == 2.093  # 20 seeds
    assert t975(40) == pytest.approx(2.021, abs=1e-3)
    assert t975(120) == pytest.approx(1.980, abs=1e-3)
    assert t975(10**6) == pytest.approx(1.960, abs=1e-3)
    with pytest.raises(ValueError):
        t975(0)


def test_confidence_interval_half_width_is_t_times_the_standard_error():
    from hosim.reproduce.common import ci95_half_width

    assert ci95_half_width([0.4]) == 0.0
    assert ci95_half_width([0.5, 0.5, 0.5]) == 0.0
    # sd of 1, 2, 3, 4 is 1.29099; t(0.975; 3) = 3.182; n = 4
    assert ci95_half_width([1.0, 2.0, 3.0, 4.0]) == pytest.approx(3.182 * 1.290994 / 2, rel=1e-6)
    # more seeds of the same spread narrow it
    assert ci95_half_width([1.0, 2.0, 3.0, 4.0] * 5) < ci95_half_width([1.0, 2.0, 3.0, 4.0]) / 2


def test_table_shows_the_confidence_interval_only_when_there_are_several_seeds():
    def row(delta, sim, ci, seeds):
        return {"setting": "1G", "recovery": "newreno", "scheme": "drop", "delta_rtt": delta, "sim": sim,
                "sim_sd": 0.0, "sim_ci95": ci, "seeds": seeds, "model": None, "model_equation": None,
                "rel_error": None, "no_handover": 0.5, "theta_pkts": 400.0, "rtt_s": 0.08, "rto_s": 0.2}

    many = fcp.markdown_table([row(100, 0.2, 0.0123, 20)], "1G")
    assert "0.200 ± 0.012" in many and "mean over 20 seeds" in many and "95 % confidence interval" in many
    one = fcp.markdown_table([row(100, 0.2, 0.0, 1)], "1G")
    assert "±" not in one and "one seed" in one


def test_seeds_1g_option_sets_the_seeds_of_the_1g_setting_only(tmp_path, monkeypatch):
    from hosim.cli import cli

    seen = {}

    def fake_rows(runner, points, settings, deltas, seeds, fig7=True, log=print):
        seen[settings[0]] = seeds
        return []

    monkeypatch.setattr(fcp, "rows", fake_rows)
    monkeypatch.setattr(fcp, "plot", lambda table, figures, setting: [])
    result = CliRunner().invoke(cli, ["reproduce", "drop-or-forward", "--settings", "100M,1G", "--seeds", "2",
                                      "--seeds-1g", "5", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert seen == {"100M": 2, "1G": 5}
    bad = CliRunner().invoke(cli, ["reproduce", "drop-or-forward", "--seeds-1g", "0", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "--seeds-1g" in bad.output

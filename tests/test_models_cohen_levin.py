"""Tests for hosim.models.cohen_levin (Cohen & Levin, drop vs forward handovers).

Expected values are worked out by hand in the comments, with
ln 2 = 0.69314718, 1/ln 2 = 1.44269504, 1/(4 ln 2) = 0.36067376.
All times are in RTTs and windows in packets unless a name says otherwise.
"""
import json

import click
import numpy as np
import pytest
from click.testing import CliRunner

from hosim.models import cohen_levin as cl

# One reference setting, in the paper's units: Θ_s = 8 pkts, RTO = 4 RTT, D_FCP->BS = 1/4 RTT.
# In seconds with RTT = 80 ms: RTO = 0.32 s, D_FCP->BS = 0.02 s; Δ = 40 RTT = 3.2 s.
THETA_PKTS = 8.0
RTO_RTT = 4.0
D_RTT = 0.25
SECONDS = dict(theta_pkts=THETA_PKTS, rto_s=0.32, rtt_s=0.08, d_fcp_bs_s=0.02)


def reference_prediction(recovery, scheme, delta_rtt, **overrides):
    return cl.predict(recovery, scheme, delta_rtt, "rtt", **{**SECONDS, **overrides})


# --- Hand-computed equation values -----------------------------------------------------------


def test_eq3_newreno_drop_slow_mobility_matches_hand_value():
    # Θ_s (Δ - RTO/2 - log2 Θ_s + 2 + 1/(4 ln 2) - 9/32 Θ_s - D) - 1/ln 2, over Δ:
    # inner = 40 - 2 - 3 + 2 + 0.36067376 - 2.25 - 0.25 = 34.86067376
    # 8 * 34.86067376 = 278.88539008; - 1.44269504 = 277.44269504; / 40 = 6.93606738
    value = cl.newreno_drop_slow_mobility(40.0, THETA_PKTS, RTO_RTT, D_RTT)
    assert value == pytest.approx(6.93606738, abs=1e-8)


def test_eq5_reno_drop_slow_mobility_is_half_an_rtt_window_below_newreno():
    # Same as eq. (3) with +3/2 instead of +2: inner = 34.86067376 - 0.5 = 34.36067376
    # 8 * 34.36067376 = 274.88539008; - 1.44269504 = 273.44269504; / 40 = 6.83606738
    value = cl.reno_drop_slow_mobility(40.0, THETA_PKTS, RTO_RTT, D_RTT)
    assert value == pytest.approx(6.83606738, abs=1e-8)


def test_eq2_newreno_drop_fast_mobility_matches_hand_value():
    # Θ_f = 8, so eq. (1) gives Δ_f = 4 + (3 - 2) + 6 = 11.
    # inner = RTO/2 + 1/(4 ln 2) + 15/32 Θ_f - D = 2 + 0.36067376 + 3.75 - 0.25 = 5.86067376
    # 8 * 5.86067376 = 46.88539008; - 1.44269504 = 45.44269504; / 11 = 4.13115410
    value = cl.newreno_drop_fast_mobility(11.0, 8.0, RTO_RTT, D_RTT)
    assert value == pytest.approx(4.13115410, abs=1e-8)


def test_eq4_reno_drop_fast_mobility_matches_hand_value():
    # Reno's eq. (1): Δ_f = 4 + 1 + (3 - 2) + 6 = 12 at Θ_f = 8.
    # inner = (4 + 1)/2 + 0.36067376 + 3.75 - 0.25 = 6.36067376
    # 8 * 6.36067376 = 50.88539008; - 1.44269504 = 49.44269504; / 12 = 4.12022459
    value = cl.reno_drop_fast_mobility(12.0, 8.0, RTO_RTT, D_RTT)
    assert value == pytest.approx(4.12022459, abs=1e-8)


def test_eq1_period_and_its_inverse_match_hand_values():
    # New-Reno: 4 + (log2 8 - 2) + 3/4 * 8 = 4 + 1 + 6 = 11; Reno adds 1: 12.
    assert cl.fast_mobility_period_rtt(8.0, RTO_RTT) == pytest.approx(11.0)
    assert cl.fast_mobility_period_rtt(8.0, RTO_RTT, fast_recovery_rtt=1.0) == pytest.approx(12.0)
    # Θ_f = 16: 4 + (4 - 2) + 12 = 18.
    assert cl.solve_theta_f_pkts(18.0, RTO_RTT) == pytest.approx(16.0, rel=1e-10)
    assert cl.solve_theta_f_pkts(12.0, RTO_RTT, fast_recovery_rtt=1.0) == pytest.approx(8.0)


def test_eq6_sack_drop_slow_mobility_matches_hand_value():
    # D Θ_s ln 2 + 1 = 0.25 * 8 * 0.69314718 + 1 = 2.38629436
    # D_Ret = ln(2.38629436) / ln 2 = 0.86974169 / 0.69314718 = 1.25477202
    assert cl.sack_retransmission_time_rtt(D_RTT, THETA_PKTS) == pytest.approx(1.25477202, abs=1e-8)
    # inner = 40 - 1.25477202/2 - 0.5 - 8/8 - 0.25 = 40 - 0.62738601 - 1.75 = 37.62261399
    # Θ_s/Δ_s * inner = 0.2 * 37.62261399 = 7.52452280
    value = cl.sack_drop_slow_mobility(40.0, THETA_PKTS, D_RTT)
    assert value == pytest.approx(7.52452280, abs=1e-8)


def test_eq7_eq8_eq9_forward_slow_mobility_match_hand_values():
    # (7), (9): 8/40 * (40 - 4/2 - 8/8) = 0.2 * 37 = 7.4
    assert cl.newreno_forward_slow_mobility(40.0, THETA_PKTS, RTO_RTT) == pytest.approx(7.4)
    assert cl.sack_forward_slow_mobility(40.0, THETA_PKTS, RTO_RTT) == pytest.approx(7.4)
    # (8): 8/40 * (40 - 1/2 - 8/8) = 0.2 * 38.5 = 7.7
    assert cl.reno_forward_slow_mobility(40.0, THETA_PKTS) == pytest.approx(7.7)


# --- predict(): regimes, units, equation choice ----------------------------------------------


@pytest.mark.parametrize(
    "recovery, scheme, equation, fraction",
    [
        # Fractions = the hand values above / Θ_s = 8.
        ("newreno", "drop", "3", 6.93606738 / 8),  # 0.86700842
        ("reno", "drop", "5", 6.83606738 / 8),  # 0.85450842
        ("sack", "drop", "6", 7.52452280 / 8),  # 0.94056535
        ("newreno", "forward", "7", 7.4 / 8),  # 0.925
        ("reno", "forward", "8", 7.7 / 8),  # 0.9625
        ("sack", "forward", "9", 7.4 / 8),  # 0.925
    ],
)
def test_predict_slow_mobility_picks_the_paper_equation(recovery, scheme, equation, fraction):
    result = reference_prediction(recovery, scheme, 40.0)
    assert result["regime"] == "slow-mobility"
    assert result["equation"] == equation
    assert result["throughput_fraction"] == pytest.approx(fraction, abs=1e-8)
    assert result["throughput_pkts_per_rtt"] == pytest.approx(fraction * 8, abs=1e-7)


@pytest.mark.parametrize(
    "recovery, delta_rtt, equation, throughput",
    [
        # Θ_s = 16: New-Reno boundary 4 + 2 + 12 = 18 RTT; Δ = 11 gives Θ_f = 8 (hand value above).
        ("newreno", 11.0, "2", 4.13115410),
        # Reno boundary 19 RTT; Δ = 12 gives Θ_f = 8.
        ("reno", 12.0, "4", 4.12022459),
    ],
)
def test_predict_fast_mobility_solves_eq1_then_uses_eq2_or_eq4(
    recovery, delta_rtt, equation, throughput
):
    result = reference_prediction(recovery, "drop", delta_rtt, theta_pkts=16.0)
    assert result["regime"] == "fast-mobility"
    assert result["equation"] == equation
    assert result["theta_at_handover_pkts"] == pytest.approx(8.0, rel=1e-10)
    assert result["throughput_pkts_per_rtt"] == pytest.approx(throughput, abs=1e-8)
    # Normalised by the no-handover Θ_s = 16, not by Θ_f.
    assert result["throughput_fraction"] == pytest.approx(throughput / 16.0, abs=1e-8)


def test_predict_delta_in_seconds_equals_delta_in_rtts():
    # 3.2 s / 0.08 s = 40 RTT.
    in_seconds = cl.predict("newreno", "drop", 3.2, "s", **SECONDS)
    in_rtts = reference_prediction("newreno", "drop", 40.0)
    assert in_seconds["inputs_rtt"]["delta_rtt"] == pytest.approx(40.0)
    assert in_seconds["throughput_fraction"] == pytest.approx(in_rtts["throughput_fraction"])


def test_predict_reports_every_input_and_its_rtt_form():
    result = cl.predict("sack", "forward", 3.2, "s", **SECONDS, d_forward_s=0.01)
    assert result["inputs"] == {
        "recovery": "sack", "scheme": "forward", "delta": 3.2, "delta_unit": "s",
        "theta_pkts": 8.0, "rto_s": 0.32, "rtt_s": 0.08, "d_fcp_bs_s": 0.02,
        "d_forward_s": 0.01,
    }
    assert result["inputs_rtt"] == pytest.approx(
        {"delta_rtt": 40.0, "rto_rtt": 4.0, "d_fcp_bs_rtt": 0.25, "d_forward_rtt": 0.125}
    )
    assert result["forwarding"] == "fast"
    json.dumps(result)


def test_predict_sack_drop_with_d_above_half_uses_newreno_eq3():
    # D = 0.75 RTT > 1/2: inner = 40 - 2 - 3 + 2 + 0.36067376 - 2.25 - 0.75 = 34.36067376
    # (8 * 34.36067376 - 1.44269504) / 40 = 273.44269504 / 40 = 6.83606738
    result = cl.predict("sack", "drop", 40.0, theta_pkts=8.0, rto_s=4.0, rtt_s=1.0, d_fcp_bs_s=0.75)
    assert result["equation"] == "3"
    assert result["throughput_pkts_per_rtt"] == pytest.approx(6.83606738, abs=1e-8)


@pytest.mark.parametrize("recovery", cl.RECOVERIES)
def test_predict_slow_forwarding_falls_back_to_drop_equations(recovery):
    # D_forward = 0.5 s = 6.25 RTT >= D + RTO = 4.25 RTT: slow forwarding (Sec. V).
    slow = reference_prediction(recovery, "forward", 40.0, d_forward_s=0.5)
    drop = reference_prediction(recovery, "drop", 40.0)
    assert slow["forwarding"] == "slow"
    assert slow["equation"] == drop["equation"]
    assert slow["throughput_fraction"] == pytest.approx(drop["throughput_fraction"])


def test_predict_newreno_forwarding_must_beat_the_impatient_timeout():
    # D_forward = 4.1 RTT: below D + RTO = 4.25 (fast for SACK) but not below RTO = 4 (New-Reno).
    d_forward_s = 4.1 * 0.08
    assert reference_prediction("sack", "forward", 40.0, d_forward_s=d_forward_s)["forwarding"] == "fast"
    newreno = reference_prediction("newreno", "forward", 40.0, d_forward_s=d_forward_s)
    assert newreno["forwarding"] == "slow"
    assert newreno["equation"] == "3"


# --- Properties ------------------------------------------------------------------------------

DELTAS_RTT = np.geomspace(1.0, 5000.0, 400)


def fractions_over_delta(recovery, scheme, **overrides):
    """(Δ, fraction) for every Δ of DELTAS_RTT where the paper has an equation."""
    points = []
    for delta_rtt in DELTAS_RTT:
        try:
            result = reference_prediction(recovery, scheme, float(delta_rtt), **overrides)
        except ValueError:
            continue
        points.append((delta_rtt, result["throughput_fraction"]))
    return np.array(points)


SETTINGS = [
    dict(),
    dict(theta_pkts=64.0),
    dict(theta_pkts=300.0, rto_s=1.0),
    dict(theta_pkts=4.0, d_fcp_bs_s=0.07),
    dict(theta_pkts=20.0, rto_s=0.09, d_fcp_bs_s=0.0),
]


@pytest.mark.parametrize("overrides", SETTINGS)
@pytest.mark.parametrize("scheme", cl.SCHEMES)
@pytest.mark.parametrize("recovery", cl.RECOVERIES)
def test_fraction_is_in_unit_interval_and_grows_with_delta(recovery, scheme, overrides):
    points = fractions_over_delta(recovery, scheme, **overrides)
    assert len(points) > 100
    fractions = points[:, 1]
    assert np.all(fractions >= 0.0) and np.all(fractions <= 1.0)
    assert np.all(np.diff(fractions) >= -1e-12)
    # Rare handovers cost almost nothing.
    assert fractions[-1] > 0.95


@pytest.mark.parametrize("recovery, fast_recovery_rtt", [("newreno", 0.0), ("reno", 1.0)])
@pytest.mark.parametrize("theta_pkts", [5.0, 8.0, 50.0, 400.0])
def test_fast_and_slow_mobility_meet_at_the_regime_boundary(recovery, fast_recovery_rtt, theta_pkts):
    # At Δ = eq. (1)(Θ_s), Θ_f = Θ_s and the FM and SM areas are the same curve.
    boundary_rtt = cl.fast_mobility_period_rtt(theta_pkts, RTO_RTT, fast_recovery_rtt)
    fm, sm = (
        (cl.reno_drop_fast_mobility, cl.reno_drop_slow_mobility)
        if recovery == "reno"
        else (cl.newreno_drop_fast_mobility, cl.newreno_drop_slow_mobility)
    )
    assert fm(boundary_rtt, theta_pkts, RTO_RTT, D_RTT) == pytest.approx(
        sm(boundary_rtt, theta_pkts, RTO_RTT, D_RTT), rel=1e-12
    )
    below = reference_prediction(recovery, "drop", boundary_rtt * (1 - 1e-9), theta_pkts=theta_pkts)
    above = reference_prediction(recovery, "drop", boundary_rtt, theta_pkts=theta_pkts)
    assert (below["regime"], above["regime"]) == ("fast-mobility", "slow-mobility")
    assert below["throughput_fraction"] == pytest.approx(above["throughput_fraction"], rel=1e-6)


def test_fast_mobility_keeps_the_window_below_its_fair_share():
    result = reference_prediction("newreno", "drop", 14.0, theta_pkts=64.0)
    assert result["regime"] == "fast-mobility"
    assert 4.0 < result["theta_at_handover_pkts"] < 64.0
    assert result["throughput_pkts_per_rtt"] < result["theta_at_handover_pkts"]


@pytest.mark.parametrize("overrides", SETTINGS)
@pytest.mark.parametrize("recovery", ["reno", "newreno"])
def test_forward_is_at_least_drop_for_reno_and_newreno(recovery, overrides):
    drop = dict(map(tuple, fractions_over_delta(recovery, "drop", **overrides)))
    forward = dict(map(tuple, fractions_over_delta(recovery, "forward", **overrides)))
    common = sorted(set(drop) & set(forward))
    assert len(common) > 100
    assert all(forward[d] >= drop[d] for d in common)


def test_forward_is_at_least_drop_for_sack_when_d_exceeds_half():
    # D = 0.06/0.08 = 0.75: SACK drop follows New-Reno (3), forward is (9) = (7).
    drop = dict(map(tuple, fractions_over_delta("sack", "drop", d_fcp_bs_s=0.06)))
    forward = dict(map(tuple, fractions_over_delta("sack", "forward", d_fcp_bs_s=0.06)))
    common = sorted(set(drop) & set(forward))
    assert len(common) > 100
    assert all(forward[d] >= drop[d] for d in common)


def test_sack_drop_beats_sack_forward_when_rto_exceeds_its_retransmission_time():
    # Not a bug: (6) charges 1/2 (1 + D_Ret) + D per Θ_s, (9) charges RTO/2. With RTO = 4 RTT,
    # 1/2 (1 + 1.25477202) + 0.25 = 1.37738601 < 2, so the paper's equations favour drop.
    assert (
        reference_prediction("sack", "drop", 40.0)["throughput_fraction"]
        > reference_prediction("sack", "forward", 40.0)["throughput_fraction"]
    )


def test_larger_d_fcp_bs_loses_more_in_drop_but_not_in_forward():
    near = reference_prediction("newreno", "drop", 40.0, d_fcp_bs_s=0.005)
    far = reference_prediction("newreno", "drop", 40.0, d_fcp_bs_s=0.035)
    assert far["throughput_fraction"] < near["throughput_fraction"]
    assert reference_prediction("newreno", "forward", 40.0, d_fcp_bs_s=0.005)[
        "throughput_fraction"
    ] == pytest.approx(
        reference_prediction("newreno", "forward", 40.0, d_fcp_bs_s=0.035)["throughput_fraction"]
    )


# --- Bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, overrides, message",
    [
        (("newreno", "drop", 0), {}, "delta: must be > 0, got 0"),
        (("newreno", "drop", -3.0), {}, "delta: must be > 0, got -3.0"),
        (("newreno", "drop", float("nan")), {}, "delta: must be finite"),
        (("newreno", "drop", "ten"), {}, "delta: must be a number"),
        (("vegas", "drop", 40.0), {}, "recovery: must be one of reno, newreno, sack"),
        (("newreno", "bicast", 40.0), {}, "scheme: must be one of drop, forward"),
        (("newreno", "drop", 40.0, "ms"), {}, "delta_unit: must be one of rtt, s"),
        (("newreno", "drop", 40.0), {"theta_pkts": 3.0}, "theta_pkts: must be >= 4, got 3.0"),
        (("newreno", "drop", 40.0), {"rto_s": 0}, "rto_s: must be > 0, got 0"),
        (("newreno", "drop", 40.0), {"rtt_s": -0.08}, "rtt_s: must be > 0"),
        (("newreno", "drop", 40.0), {"d_fcp_bs_s": -0.01}, "d_fcp_bs_s: must be >= 0"),
        (("newreno", "drop", 40.0), {"d_fcp_bs_s": 0.08}, "d_fcp_bs_s: must be >= 0 and < rtt_s"),
        (("newreno", "forward", 40.0), {"d_forward_s": -1.0}, "d_forward_s: must be >= 0"),
        (("newreno", "drop", 40.0), {"rto_s": True}, "rto_s: must be a number"),
    ],
)
def test_predict_rejects_bad_input_naming_the_parameter(args, overrides, message):
    with pytest.raises(ValueError) as error:
        cl.predict(*args, **{**SECONDS, **overrides})
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    "recovery, scheme, delta_rtt",
    [
        # Below eq. (1) at Θ_f = 4: 4 + 0 + 3 = 7 RTT (New-Reno), 8 RTT (Reno).
        ("newreno", "drop", 6.9),
        ("reno", "drop", 7.9),
        # Forward has no FM equation: needs Δ >= RTO + Θ_s/2 = 8, Reno 1 + 4 = 5.
        ("newreno", "forward", 7.9),
        ("reno", "forward", 4.9),
        # SACK|drop, D <= 1/2 has only (6): needs Δ >= 1 + 1.25477202 + 4 = 6.25477202.
        ("sack", "drop", 6.25),
    ],
)
def test_predict_refuses_delta_where_the_paper_has_no_equation(recovery, scheme, delta_rtt):
    with pytest.raises(ValueError, match=r"^delta: .*got "):
        reference_prediction(recovery, scheme, delta_rtt)


def test_predict_accepts_delta_right_at_the_edge_of_the_paper_equations():
    assert reference_prediction("newreno", "drop", 7.0)["regime"] == "fast-mobility"
    assert reference_prediction("reno", "forward", 5.0)["equation"] == "8"
    assert reference_prediction("sack", "drop", 6.255)["equation"] == "6"


# --- inputs_from_summary ---------------------------------------------------------------------


def no_handover_summary(**flow_fields):
    flow = {
        "name": "bulk", "cc": "reno", "recovery": "newreno", "bytes_delivered": 1_000_000,
        # 1.168 Mb/s * 0.08 s = 93 440 bit = 11 680 B = 8 segments of 1460 B.
        "goodput_bps": 1_168_000.0, "retransmits": 3, "timeouts": 0,
        "rtt_mean_s": 0.08, "rto_mean_s": 0.32,
    }
    flow.update(flow_fields)
    return {"scenario": "x", "seed": 1, "flows": [flow], "queues": [], "handovers": []}


def test_inputs_from_summary_turns_goodput_into_theta_in_packets():
    inputs = cl.inputs_from_summary(no_handover_summary())
    assert inputs == pytest.approx({"theta_pkts": 8.0, "rtt_s": 0.08, "rto_s": 0.32})
    # 93 440 bit / (8 * 1000 B) = 11.68 packets.
    assert cl.inputs_from_summary(no_handover_summary(), mss_bytes=1000)["theta_pkts"] == (
        pytest.approx(11.68)
    )
    assert cl.inputs_from_summary(no_handover_summary(mss_bytes=1000))["theta_pkts"] == (
        pytest.approx(11.68)
    )
    result = cl.predict("newreno", "drop", 40.0, **inputs, d_fcp_bs_s=0.02)
    assert result["throughput_fraction"] == pytest.approx(6.93606738 / 8, abs=1e-8)


@pytest.mark.parametrize(
    "summary, flow_index, message",
    [
        ({"flows": []}, 0, "summary.flows: must be a non-empty list"),
        (no_handover_summary(), 1, "flow_index: must be an integer in [0, 0], got 1"),
        (no_handover_summary(rto_mean_s=None), 0, "flows[0].rto_mean_s: must be a number"),
        ({**no_handover_summary(), "handovers": [{"ue": "ue0"}]}, 0, "summary.handovers"),
        (no_handover_summary(goodput_bps=0.0), 0, "flows[0].goodput_bps: must be > 0"),
    ],
)
def test_inputs_from_summary_rejects_unusable_summaries(summary, flow_index, message):
    with pytest.raises(ValueError) as error:
        cl.inputs_from_summary(summary, flow_index)
    assert str(error.value).startswith(message)


def test_inputs_from_summary_names_a_missing_field():
    summary = no_handover_summary()
    del summary["flows"][0]["rtt_mean_s"]
    with pytest.raises(ValueError, match=r"^flows\[0\]\.rtt_mean_s: missing"):
        cl.inputs_from_summary(summary)


# --- CLI -------------------------------------------------------------------------------------

CLI_ARGS = ["--theta-pkts", "8", "--rto-s", "0.32", "--rtt-s", "0.08", "--d-fcp-bs-s", "0.02"]


def test_cli_is_named_cohen_levin():
    assert isinstance(cl.cli, click.Command)
    assert cl.cli.name == "cohen-levin"


def test_cli_prints_one_json_object_with_the_fraction_and_inputs():
    args = ["--recovery", "reno", "--scheme", "forward", "--delta", "3.2", "--delta-unit", "s"]
    outcome = CliRunner().invoke(cl.cli, args + CLI_ARGS)
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.output)
    # Δ = 40 RTT, eq. (8): 0.2 * 38.5 / 8 = 0.9625
    assert result["throughput_fraction"] == pytest.approx(0.9625)
    assert result["inputs"]["recovery"] == "reno"
    assert result["inputs"]["d_forward_s"] is None


def test_cli_defaults_are_the_paper_delays():
    outcome = CliRunner().invoke(
        cl.cli, ["--recovery", "sack", "--scheme", "drop", "--delta", "100",
                 "--theta-pkts", "8", "--rto-s", "0.32"],
    )
    assert outcome.exit_code == 0, outcome.output
    inputs = json.loads(outcome.output)["inputs"]
    assert (inputs["rtt_s"], inputs["d_fcp_bs_s"], inputs["delta_unit"]) == (0.08, 0.025, "rtt")


def test_cli_bad_value_exits_2_naming_the_option():
    outcome = CliRunner().invoke(
        cl.cli, ["--recovery", "reno", "--scheme", "drop", "--delta", "0"] + CLI_ARGS
    )
    assert outcome.exit_code == 2
    assert "--delta" in outcome.output and "must be > 0, got 0.0" in outcome.output

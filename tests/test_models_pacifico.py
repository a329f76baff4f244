"""Tests of hosim.models.pacifico: eq. (1)-(5) and Fig. 4 of Pacifico et al., GLOBECOM 2009.

Expected values are worked out by hand in the comments, never by calling the code under test.
W stands for cwnd_MAX, c for cwnd_HO, s for SSthresh_HO = c/2, k for eq. (5).
"""

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from hosim.models import pacifico as pm

# --- independent reference: the window trajectories of Fig. 3, one value per RTT -------------


def _window_halving_trajectory(cwnd_ho, n_rtts):
    # After the halving the window restarts at c/2 and climbs by one segment per RTT.
    return [cwnd_ho / 2 + j for j in range(n_rtts)]


def _timeout_trajectory(cwnd_ho, k, n_rtts):
    # Slow start sends 2**j in RTT j for k RTTs, then congestion avoidance from c/2 on.
    return [2.0**j if j < k else cwnd_ho / 2 + (j - k) for j in range(n_rtts)]


# --- eq. (1) ---------------------------------------------------------------------------------


def test_ideal_data_at_paper_cwnd_max_is_759_pkts():
    # W = 44: 3/2 * 22 * 23 = 3/2 * 506 = 759.
    # Same by the sum: 22 + 23 + ... + 44 is 23 terms of mean 33 = 759.
    assert pm.ideal_data_pkts(44) == pytest.approx(759.0)


def test_ideal_data_small_window_hand_value():
    # W = 8: 3/2 * 4 * 5 = 30 = 4 + 5 + 6 + 7 + 8.
    assert pm.ideal_data_pkts(8) == pytest.approx(30.0)


@pytest.mark.parametrize("cwnd_max", [2, 4, 10, 44, 64, 100, 250])
def test_ideal_data_equals_integer_sum_of_the_window_climb(cwnd_max):
    # The left side of eq. (1): one window per RTT from SSthresh to cwnd_MAX.
    assert pm.ideal_data_pkts(cwnd_max) == pytest.approx(sum(range(cwnd_max // 2, cwnd_max + 1)))


def test_ideal_data_is_weighted_by_its_probability():
    # 759 * 1/3 = 253.
    assert pm.ideal_data_pkts(44, f_ideal=1 / 3) == pytest.approx(253.0)
    assert pm.ideal_data_pkts(44, f_ideal=0.0) == 0.0


def test_ideal_data_grows_quadratically_with_cwnd_max():
    # D_I ~ 3/8 W^2 for large W, so doubling W multiplies D_I by about 4.
    assert pm.ideal_data_pkts(20000) / pm.ideal_data_pkts(10000) == pytest.approx(4.0, rel=1e-3)
    values = [pm.ideal_data_pkts(w) for w in range(2, 200)]
    assert all(b > a for a, b in zip(values, values[1:]))


def test_interval_lasts_half_cwnd_max_plus_one_rtts():
    # W = 44: RTTs with windows 22..44 are 23 RTTs.
    assert pm.ssthresh_pkts(44) == 22.0
    assert pm.interval_rtts(44) == 23.0


# --- eq. (2) ---------------------------------------------------------------------------------


def test_window_halving_at_cwnd_max_loses_half_a_window():
    # W = c = 44: Unsent_WH = 44/2 * (44 - 44 + 1) = 22; D_WH = 759 - 22 = 737.
    assert pm.window_halving_unsent_pkts(44, 44) == pytest.approx(22.0)
    assert pm.window_halving_data_pkts(44, 44) == pytest.approx(737.0)


def test_window_halving_in_the_middle_hand_value():
    # W = 44, c = 33: Unsent_WH = 16.5 * (44 - 33 + 1) = 16.5 * 12 = 198; D_WH = 759 - 198 = 561.
    assert pm.window_halving_data_pkts(44, 33) == pytest.approx(561.0)


def test_window_halving_general_point_hand_value():
    # W = 100, c = 60: D_I = 3/2 * 50 * 51 = 3825; Unsent_WH = 30 * 41 = 1230; D_WH = 2595.
    # Weighted by 0.5: 1297.5.
    assert pm.window_halving_data_pkts(100, 60) == pytest.approx(2595.0)
    assert pm.window_halving_data_pkts(100, 60, f_window_halving=0.5) == pytest.approx(1297.5)


@pytest.mark.parametrize("cwnd_max,cwnd_ho", [(44, 22), (44, 30), (44, 44), (100, 51), (100, 77)])
def test_window_halving_unsent_equals_area_between_trajectories(cwnd_max, cwnd_ho):
    n_rtts = cwnd_max - cwnd_ho + 1
    ideal = [cwnd_ho + j for j in range(n_rtts)]
    halved = _window_halving_trajectory(cwnd_ho, n_rtts)
    area = sum(a - b for a, b in zip(ideal, halved))
    assert pm.window_halving_unsent_pkts(cwnd_max, cwnd_ho) == pytest.approx(area)


def test_window_halving_loses_less_the_later_the_handover():
    # Unsent_WH = c/2 (W - c + 1) decreases in c for c >= (W + 1)/2, i.e. over [W/2 + 1, W].
    for cwnd_max in (12, 44, 100):
        cwnd_hos = range(cwnd_max // 2 + 1, cwnd_max + 1)
        values = [pm.window_halving_data_pkts(cwnd_max, c) for c in cwnd_hos]
        assert all(b > a for a, b in zip(values, values[1:]))


# --- eq. (4) and (5) -------------------------------------------------------------------------


def test_ssthresh_ho_interval_at_paper_cwnd_max():
    # SSthresh = 44/2 = 22, so SSthresh_HO lies in (11, 22).
    assert pm.ssthresh_ho_interval_pkts(44) == (11.0, 22.0)


@pytest.mark.parametrize(
    "ssthresh_ho,k",
    [
        (1, 1),  # log2 1 = 0 -> 0 + 1
        (2, 2),  # log2 2 = 1 -> 1 + 1
        (2.5, 3),  # log2 2.5 = 1.32 -> 2 + 1
        (4, 3),  # exact power of two: log2 4 = 2 -> 2 + 1, not 3 + 1
        (16, 5),  # log2 16 = 4 -> 5
        (16.5, 6),  # log2 16.5 = 4.04 -> 5 + 1
        (22, 6),  # log2 22 = 4.46 -> 5 + 1
        (32, 6),  # log2 32 = 5 -> 6
        (33, 7),  # log2 33 = 5.04 -> 6 + 1
        (2**40, 41),  # large exact power: no floating-point round-up
    ],
)
def test_slow_start_rtts_hand_values(ssthresh_ho, k):
    assert pm.slow_start_rtts(ssthresh_ho) == k


# --- eq. (3) ---------------------------------------------------------------------------------


def test_timeout_at_paper_cwnd_max_hand_value():
    # W = c = 44, s = 22, k = 6.
    # k (W - c + 1) = 6.
    # sum_{i=0}^{5} (22 - 6 + i - 2^i) = 15 + 15 + 14 + 11 + 4 - 11 = 48.
    # D_SS = 737 - 6 - 48 = 683.
    assert pm.slow_start_unsent_pkts(44, 44) == pytest.approx(54.0)
    assert pm.timeout_data_pkts(44, 44) == pytest.approx(683.0)


def test_timeout_in_the_middle_hand_value():
    # W = 44, c = 33, s = 16.5, k = 6.
    # k (W - c + 1) = 6 * 12 = 72.
    # sum (16.5 - 6 + i - 2^i) = 9.5 + 9.5 + 8.5 + 5.5 - 1.5 - 16.5 = 15.
    # D_SS = 561 - 72 - 15 = 474.
    assert pm.timeout_data_pkts(44, 33) == pytest.approx(474.0)


def test_timeout_at_power_of_two_ssthresh_hand_value():
    # W = c = 8, s = 4, k = 3. D_WH = 30 - 4 = 26.
    # k (W - c + 1) = 3; sum_{i=0}^{2} (4 - 3 + i - 2^i) = 0 + 0 - 1 = -1.
    # D_SS = 26 - 3 + 1 = 24.
    assert pm.timeout_data_pkts(8, 8) == pytest.approx(24.0)


def test_timeout_general_point_hand_value():
    # W = 100, c = 60, s = 30, k = 6. D_WH = 2595.
    # k (W - c + 1) = 246; sum (30 - 6 + i - 2^i) = 6 * 24 + 15 - 63 = 96.
    # D_SS = 2595 - 246 - 96 = 2253; weighted by 1/3: 751.
    assert pm.timeout_data_pkts(100, 60) == pytest.approx(2253.0)
    assert pm.timeout_data_pkts(100, 60, f_timeout=1 / 3) == pytest.approx(751.0)


@pytest.mark.parametrize(
    "cwnd_max,cwnd_ho", [(44, 22), (44, 33), (44, 38), (100, 60), (100, 93), (64, 40)]
)
def test_timeout_unsent_equals_area_between_trajectories(cwnd_max, cwnd_ho):
    # When slow start ends inside the interval (k <= W - c + 1), Unsent_SS of eq. (3) is the
    # area between the window-halving and the timeout trajectories of Fig. 3.
    k = pm.slow_start_rtts(cwnd_ho / 2)
    n_rtts = cwnd_max - cwnd_ho + 1
    assert k <= n_rtts
    halved = _window_halving_trajectory(cwnd_ho, n_rtts)
    restarted = _timeout_trajectory(cwnd_ho, k, n_rtts)
    area = sum(a - b for a, b in zip(halved, restarted))
    assert pm.slow_start_unsent_pkts(cwnd_max, cwnd_ho) == pytest.approx(area)


def test_literal_eq3_overshoots_for_tiny_windows():
    # The paper's slow-start term uses 2^i uncapped. W = c = 5, s = 2.5, k = 3:
    # k (W - c + 1) = 3; sum (2.5 - 3 + i - 2^i) = -1.5 - 1.5 - 2.5 = -5.5; Unsent_SS = -2.5.
    # D_I = 3/2 * 2.5 * 3.5 = 13.125; D_WH = 13.125 - 2.5 = 10.625; D_SS = 10.625 + 2.5 = 13.125.
    assert pm.timeout_data_pkts(5, 5) == pytest.approx(13.125)


@pytest.mark.parametrize("cwnd_max", [12, 20, 44, 64, 100, 256])
def test_each_handover_case_delivers_less_than_the_one_before(cwnd_max):
    for cwnd_ho in np.linspace(cwnd_max / 2, cwnd_max, 9):
        ideal = pm.ideal_data_pkts(cwnd_max)
        halving = pm.window_halving_data_pkts(cwnd_max, cwnd_ho)
        timeout = pm.timeout_data_pkts(cwnd_max, cwnd_ho)
        assert ideal > halving > timeout > 0


def test_normalised_throughput_limits_for_large_windows():
    # Handover at W: D_WH / D_I = 1 - (W/2) / (3/2 W/2 (W/2 + 1)) = 1 - 2 / (3 (W/2 + 1)) -> 1.
    # W = 44: 1 - 2/69 = 67/69.
    assert pm.window_halving_data_pkts(44, 44) / pm.ideal_data_pkts(44) == pytest.approx(67 / 69)
    # Handover at 3W/4: D_WH / D_I = 1 - (W/4 + 1) / (2 (W/2 + 1)) -> 3/4.
    big = 1e6
    ideal = pm.ideal_data_pkts(big)
    assert pm.window_halving_data_pkts(big, 0.75 * big) / ideal == pytest.approx(0.75, abs=1e-5)
    # The slow-start loss grows as k W = O(W log W), so it vanishes against D_I = O(W^2).
    assert pm.timeout_data_pkts(big, big) / ideal == pytest.approx(1.0, abs=1e-4)
    assert pm.timeout_data_pkts(big, 0.75 * big) / ideal == pytest.approx(0.75, abs=1e-4)


# --- all cases together ----------------------------------------------------------------------


def test_handover_outcomes_with_paper_probabilities():
    out = pm.handover_outcomes(44, 44)
    cases = out["cases"]
    assert cases["timeout"]["data_pkts"] == pytest.approx(683.0)
    # 683 * 1500 = 1,024,500 bytes.
    assert cases["timeout"]["data_bytes"] == pytest.approx(1_024_500.0)
    # Unsent in the timeout case: 22 (halving) + 54 (slow start) = 76.
    assert cases["timeout"]["unsent_pkts"] == pytest.approx(76.0)
    # (759 + 737 + 683) / 3 = 2179 / 3.
    assert out["expected_data_pkts"] == pytest.approx(2179 / 3)
    assert out["slow_start_rtts"] == 6
    assert out["ssthresh_ho_interval_pkts"] == [11.0, 22.0]


# --- Fig. 4 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fig4():
    return pm.fig4_curves()


def test_fig4_covers_both_handover_points_over_the_default_grid(fig4):
    grid = pm.PAPER_DEFAULTS["fig4_cwnd_max_pkts"]
    assert set(fig4["handover_at"]) == {"max", "middle"}
    assert len(fig4) == 2 * len(grid)
    assert 44.0 in set(fig4["cwnd_max_pkts"])
    assert fig4.notna().all().all()


def test_fig4_at_paper_cwnd_max_matches_hand_values(fig4):
    at44 = fig4[fig4["cwnd_max_pkts"] == 44.0].set_index("handover_at")
    # 737/759, 683/759, 561/759, 474/759 (see the eq. (2) and (3) tests).
    assert at44.loc["max", "window_halving_norm"] == pytest.approx(737 / 759)
    assert at44.loc["max", "timeout_norm"] == pytest.approx(683 / 759)
    assert at44.loc["middle", "cwnd_ho_pkts"] == 33.0
    assert at44.loc["middle", "window_halving_norm"] == pytest.approx(561 / 759)
    assert at44.loc["middle", "timeout_norm"] == pytest.approx(474 / 759)
    assert at44.loc["middle", "mean_norm"] == pytest.approx((561 + 474) / (2 * 759))


def test_fig4_shows_degradation_worse_for_timeout_than_halving(fig4):
    assert (fig4["window_halving_norm"] < 1).all()
    assert (fig4["timeout_norm"] < fig4["window_halving_norm"]).all()
    assert (fig4["timeout_norm"] > 0).all()


def test_fig4_handover_in_the_middle_lies_below_handover_at_max(fig4):
    wide = fig4.pivot(index="cwnd_max_pkts", columns="handover_at")
    for case in ("window_halving_norm", "timeout_norm"):
        assert (wide[case]["middle"] < wide[case]["max"]).all()
    # The circled line (middle, timeout) is the lowest of all; the crossed one (middle,
    # window halving) lies above it.
    others = [
        ("window_halving_norm", "max"),
        ("timeout_norm", "max"),
        ("window_halving_norm", "middle"),
    ]
    circled = wide[("timeout_norm", "middle")].to_numpy()[:, None]
    assert (circled < wide[others].to_numpy()).all()


def test_fig4_degradation_is_substantial_for_a_handover_mid_climb(fig4):
    # "We observe a substantial performance degradation": a quarter or more of the data is lost
    # in the middle situation, whatever cwnd_MAX.
    middle = fig4[fig4["handover_at"] == "middle"]
    assert (middle["window_halving_norm"] < 0.75).all()
    assert (middle["timeout_norm"] < 0.7).all()


def test_fig4_halving_at_max_recovers_as_windows_grow(fig4):
    curve = fig4[fig4["handover_at"] == "max"].sort_values("cwnd_max_pkts")["window_halving_norm"]
    assert curve.is_monotonic_increasing


def test_fig4_accepts_a_custom_grid_and_one_point():
    df = pm.fig4_curves([8, 44], handover_at="max")
    assert list(df["cwnd_max_pkts"]) == [8.0, 44.0]
    # W = 8: 26/30 and 24/30 (eq. (2) and (3) tests).
    assert df["window_halving_norm"].tolist() == pytest.approx([26 / 30, 737 / 759])
    assert df["timeout_norm"].tolist() == pytest.approx([24 / 30, 683 / 759])


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: pm.ideal_data_pkts(-1), "cwnd_max_pkts: must be >= 2, got -1"),
        (lambda: pm.ideal_data_pkts(1), "cwnd_max_pkts: must be >= 2, got 1"),
        (lambda: pm.ideal_data_pkts(float("nan")), "cwnd_max_pkts: must be finite"),
        (lambda: pm.ideal_data_pkts(float("inf")), "cwnd_max_pkts: must be finite"),
        (lambda: pm.ideal_data_pkts(True), "cwnd_max_pkts: must be a real number"),
        (lambda: pm.ideal_data_pkts("44"), "cwnd_max_pkts: must be a real number"),
        (lambda: pm.ideal_data_pkts(44, f_ideal=1.5), "f_ideal: must be in [0, 1], got 1.5"),
        (
            lambda: pm.window_halving_data_pkts(44, 50),
            "cwnd_ho_pkts: must be in [cwnd_max_pkts/2, cwnd_max_pkts] = [22, 44], got 50",
        ),
        (lambda: pm.window_halving_data_pkts(44, 21), "cwnd_ho_pkts: must be in"),
        (
            lambda: pm.window_halving_data_pkts(44, 44, f_window_halving=-0.1),
            "f_window_halving: must be in [0, 1]",
        ),
        (lambda: pm.timeout_data_pkts(3, 1.5), "cwnd_ho_pkts: must be >= 2, got 1.5"),
        (lambda: pm.timeout_data_pkts(44, 44, f_timeout=2), "f_timeout: must be in [0, 1]"),
        (lambda: pm.slow_start_rtts(0.5), "ssthresh_ho_pkts: must be >= 1, got 0.5"),
        (lambda: pm.cwnd_at_handover_pkts(44, "start"), "handover_at: must be one of max, middle"),
        (
            lambda: pm.handover_outcomes(44, 44, 0.5, 0.5, 0.5),
            "f_ideal + f_window_halving + f_timeout: must sum to 1, got 1.5",
        ),
        (
            lambda: pm.handover_outcomes(44, 44, packet_size_bytes=0),
            "packet_size_bytes: must be > 0, got 0",
        ),
        (lambda: pm.fig4_curves([2, 44]), "cwnd_max_pkts: every value must be finite and >= 4"),
        (lambda: pm.fig4_curves([]), "cwnd_max_pkts: must be a non-empty"),
        (lambda: pm.fig4_curves(["big"]), "cwnd_max_pkts: must be numbers"),
        (lambda: pm.fig4_curves(handover_at=()), "handover_at: must name at least one"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, message):
    with pytest.raises(ValueError) as excinfo:
        call()
    assert str(excinfo.value).startswith(message)


# --- CLI -------------------------------------------------------------------------------------


def _run(*args):
    return CliRunner().invoke(pm.cli, list(args))


def test_cli_default_prints_one_json_object_with_paper_inputs():
    result = _run()
    assert result.exit_code == 0, result.output
    assert len(result.output.strip().splitlines()) == 1
    report = json.loads(result.output)
    assert report["model"] == "pacifico"
    assert report["inputs"]["cwnd_max_pkts"] == 44.0
    assert report["inputs"]["cwnd_ho_pkts"] == 44.0
    assert report["inputs"]["handover_at"] == "max"
    assert report["inputs"]["packet_size_bytes"] == 1500
    assert report["outputs"]["cases"]["ideal"]["data_pkts"] == pytest.approx(759.0)
    assert report["outputs"]["cases"]["timeout"]["data_pkts"] == pytest.approx(683.0)
    assert "fig4" not in report


def test_cli_middle_handover_and_explicit_cwnd_ho_agree():
    by_point = json.loads(_run("--handover-at", "middle").output)
    by_value = json.loads(_run("--cwnd-ho-pkts", "33").output)
    assert by_point["outputs"] == by_value["outputs"]
    assert by_value["outputs"]["cases"]["timeout"]["data_pkts"] == pytest.approx(474.0)


def test_cli_fig4_flag_adds_the_curve_points():
    report = json.loads(_run("--fig4").output)
    points = pd.DataFrame(report["fig4"])
    assert len(points) == 2 * len(pm.PAPER_DEFAULTS["fig4_cwnd_max_pkts"])
    assert {"handover_at", "cwnd_max_pkts", "window_halving_norm", "timeout_norm"} <= set(points)


def test_cli_bad_value_raises_value_error_naming_the_parameter():
    result = _run("--cwnd-max-pkts", "-1")
    assert isinstance(result.exception, ValueError)
    assert str(result.exception) == "cwnd_max_pkts: must be >= 2, got -1"
    result = _run("--f-timeout", "nan")
    assert isinstance(result.exception, ValueError)
    assert "f_timeout" in str(result.exception)


def test_cli_conflicting_handover_options_are_a_usage_error():
    result = _run("--cwnd-ho-pkts", "33", "--handover-at", "max")
    assert result.exit_code == 2
    assert "--handover-at" in result.output


def test_cli_help_states_units_for_every_option():
    for param in pm.cli.params:
        if param.name == "help":
            continue
        text = param.help.lower()
        assert any(unit in text for unit in ("packets", "bytes", "dimensionless")), param.name


def test_paper_defaults_hold_the_values_of_tables_i_and_ii():
    assert pm.PAPER_DEFAULTS["cwnd_max_pkts"] == 44
    assert pm.PAPER_DEFAULTS["packet_size_bytes"] == 1500
    # 44 * 1500 = 66,000 bytes, the "~64 KB" of Table II.
    assert math.isclose(44 * 1500 / 1024, 64.45, abs_tol=0.01)
    probs = [pm.PAPER_DEFAULTS[k] for k in ("f_ideal", "f_window_halving", "f_timeout")]
    assert probs == pytest.approx([1 / 3] * 3)

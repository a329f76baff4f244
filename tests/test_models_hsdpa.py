"""Tests for hosim.models.hsdpa (Ren et al. 2008, HSDPA window adaptation proxy).

Expected values are derived by hand from the paper's equations, not from the module.
"""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from hosim.models.hsdpa import (
    ArmaBandwidth,
    Verdict,
    advertised_window_pkts,
    block_b,
    block_c,
    check_theorem,
    cli,
    expected_state,
    proxy_send_window_pkts,
    queue_loop_poles,
    simulate_closed_loop,
    state_matrix,
)

SQRT3_2 = math.sqrt(3.0) / 2.0


def sorted_complex(values):
    return sorted((complex(z) for z in values), key=lambda z: (round(z.real, 9), round(z.imag, 9)))


def assert_same_spectrum(actual, expected, atol=1e-9):
    actual, expected = sorted_complex(actual), sorted_complex(expected)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert abs(a - e) < atol, (actual, expected)


# --- eq. (12): the state matrix, built by hand -------------------------------------------------


def test_state_matrix_p2_matches_paper_entry_by_entry():
    # X = (w-b, q-q0, phi(n), phi(n-1)); rows from (11) delayed, (9), and the AR(2) recursion.
    expected = np.array(
        [
            [0.0, -1.0, 1.0, 0.0],
            [1.0, 1.0, -1.0, 0.0],
            [0.0, 0.0, 0.5, -0.3],
            [0.0, 0.0, 1.0, 0.0],
        ]
    )
    a = state_matrix([0.5, -0.3])
    assert a.shape == (4, 4)
    for i in range(4):
        for j in range(4):
            assert a[i, j] == expected[i, j], (i, j)


def test_state_matrix_p3_shifts_ar_history_down_the_diagonal():
    expected = np.array(
        [
            [0.0, -1.0, 1.0, 0.0, 0.0],
            [1.0, 1.0, -1.0, 0.0, 0.0],
            [0.0, 0.0, 0.2, 0.1, -0.05],
            [0.0, 0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0, 0.0],
        ]
    )
    np.testing.assert_array_equal(state_matrix((0.2, 0.1, -0.05)), expected)


def test_state_matrix_p1_has_alpha_in_the_corner():
    np.testing.assert_array_equal(
        state_matrix([0.7]), np.array([[0.0, -1.0, 1.0], [1.0, 1.0, -1.0], [0.0, 0.0, 0.7]])
    )


def test_blocks_b_and_c_are_the_diagonal_blocks_of_a():
    alpha = [0.3, 0.2, -0.1]
    a = state_matrix(alpha)
    np.testing.assert_array_equal(a[:2, :2], block_b())
    np.testing.assert_array_equal(a[2:, 2:], block_c(alpha))
    np.testing.assert_array_equal(a[2:, :2], np.zeros((3, 2)))


# --- eigenvalues -------------------------------------------------------------------------------


def test_block_b_eigenvalues_are_one_half_plus_minus_i_sqrt3_over_2():
    # det(B - lI) = l^2 - l + 1 = 0  =>  l = (1 +- i sqrt 3) / 2, sixth roots of unity.
    assert_same_spectrum(np.linalg.eigvals(block_b()), [0.5 + SQRT3_2 * 1j, 0.5 - SQRT3_2 * 1j])
    np.testing.assert_allclose(np.linalg.matrix_power(block_b(), 6), np.eye(2), atol=1e-12)


def test_eigenvalues_of_a_known_case_are_b_roots_and_ar_roots():
    # C for alpha = (0.1, 0.12): l^2 - 0.1 l - 0.12 = (l - 0.4)(l + 0.3).
    result = check_theorem([0.1, 0.12])
    expected = [0.5 + SQRT3_2 * 1j, 0.5 - SQRT3_2 * 1j, 0.4, -0.3]
    assert_same_spectrum(result.eigenvalues, expected)
    assert_same_spectrum(result.eigenvalues_block_c, [0.4, -0.3])
    assert_same_spectrum(np.linalg.eigvals(state_matrix([0.1, 0.12])), expected)


# --- the theorem -------------------------------------------------------------------------------


def test_theorem_condition_gives_neutral_stability_with_unit_modulus_from_block_b():
    result = check_theorem([0.5, -0.3])
    assert result.sum_abs_alpha == pytest.approx(0.8)
    assert result.theorem_condition_holds
    assert result.verdict is Verdict.NEUTRALLY_STABLE
    assert result.spectral_radius == pytest.approx(1.0, abs=1e-12)
    assert result.spectral_radius_block_b == pytest.approx(1.0, abs=1e-12)
    assert result.spectral_radius_block_c < 1.0
    assert result.dominant_block == "B"
    assert result.theorem_consistent
    top_two = sorted_complex(result.eigenvalues[:2])
    assert_same_spectrum(top_two, [0.5 - SQRT3_2 * 1j, 0.5 + SQRT3_2 * 1j])


def test_theorem_holds_for_random_alphas_satisfying_the_condition():
    rng = np.random.default_rng(2008)
    for _ in range(300):
        p = int(rng.integers(1, 7))
        raw = rng.uniform(-1.0, 1.0, p)
        alpha = raw / np.sum(np.abs(raw)) * rng.uniform(0.0, 0.999)
        result = check_theorem(alpha)
        assert result.theorem_condition_holds
        assert result.verdict is Verdict.NEUTRALLY_STABLE, alpha
        assert result.spectral_radius == pytest.approx(1.0, abs=1e-9)


def test_violating_alpha_with_root_outside_unit_circle_is_unstable():
    # l^2 - 0.6 l - 0.6 = 0  =>  l = (0.6 +- sqrt(2.76)) / 2 = 1.1307, -0.5307
    result = check_theorem([0.6, 0.6])
    assert not result.theorem_condition_holds
    assert result.verdict is Verdict.UNSTABLE
    assert result.spectral_radius == pytest.approx((0.6 + math.sqrt(2.76)) / 2, abs=1e-12)
    assert result.dominant_block == "C"
    assert result.theorem_consistent


def test_condition_is_sufficient_not_necessary():
    # sum |alpha| = 2.06 but l^2 - 1.5 l + 0.56 = (l - 0.8)(l - 0.7): still neutrally stable.
    result = check_theorem([1.5, -0.56])
    assert not result.theorem_condition_holds
    assert result.verdict is Verdict.NEUTRALLY_STABLE
    assert result.spectral_radius_block_c == pytest.approx(0.8, abs=1e-12)


def test_unit_ar_root_is_marginal():
    result = check_theorem([1.0])
    assert result.verdict is Verdict.MARGINAL
    assert result.dominant_block == "B+C"


def test_to_dict_is_json_serialisable_and_names_blocks():
    d = json.loads(json.dumps(check_theorem([0.5]).to_dict()))
    assert d["verdict"] == "neutrally_stable"
    assert {e["modulus"] for e in d["blocks"]["C"]["eigenvalues"]} == {0.5}


# --- eq. (15) and the loop poles ---------------------------------------------------------------


def test_mean_trajectory_settles_into_period_six_oscillation():
    # E[X(n)] = A^n E[X(0)]: the C part decays, the B part rotates with B^6 = I.
    traj = expected_state([0.5, -0.3], [0.0, 10.0, 3.0, 0.0], 300)
    np.testing.assert_allclose(traj[294], traj[300], atol=1e-9)
    np.testing.assert_allclose(traj[300, 2:], 0.0, atol=1e-9)
    assert np.max(np.abs(traj[200:, 1])) > 1.0  # not decaying: neutral, not asymptotic


def test_queue_loop_poles_for_delays_zero_one_two():
    np.testing.assert_allclose(queue_loop_poles(0), [0.0])
    assert_same_spectrum(queue_loop_poles(1), [0.5 + SQRT3_2 * 1j, 0.5 - SQRT3_2 * 1j])
    # l^3 - l^2 + 1: complex pair of modulus > 1, so two steps of feedback delay destabilise.
    assert max(abs(queue_loop_poles(2))) == pytest.approx(1.150964, abs=1e-6)


# --- eq. (2): the ARMA bandwidth generator -----------------------------------------------------


def test_arma_long_run_mean_is_nominal_bandwidth():
    bw = ArmaBandwidth(10.0, (0.6, -0.2), (0.4,), 1.0)
    n = 200_000
    x = bw.sample(n, 11)
    assert bw.long_run_mean_pkts_per_step == 10.0
    # standard error of the mean of an ARMA series: sigma (1 + sum beta) / (1 - sum alpha) / sqrt n
    se = 1.0 * (1.0 + 0.4) / (1.0 - 0.4) / math.sqrt(n)
    assert abs(x.mean() - 10.0) < 4.0 * se
    assert x.std() == pytest.approx(bw.long_run_std_pkts_per_step, rel=0.03)


def test_arma_long_run_std_matches_closed_forms():
    # AR(1): sigma^2 / (1 - a^2); ARMA(1,1): sigma^2 (1 + 2ab + b^2) / (1 - a^2)
    assert ArmaBandwidth(0.0, (0.5,), (), 2.0).long_run_std_pkts_per_step == pytest.approx(
        2.0 / math.sqrt(0.75)
    )
    assert ArmaBandwidth(0.0, (0.5,), (0.3,), 1.0).long_run_std_pkts_per_step == pytest.approx(
        math.sqrt((1 + 2 * 0.5 * 0.3 + 0.09) / 0.75)
    )


def test_arma_same_seed_same_series_and_generator_accepted():
    bw = ArmaBandwidth(5.0, (0.3,), (0.2,), 0.5)
    np.testing.assert_array_equal(bw.sample(100, 7), bw.sample(100, 7))
    np.testing.assert_array_equal(bw.sample(100, 7), bw.sample(100, np.random.default_rng(7)))
    assert not np.array_equal(bw.sample(100, 7), bw.sample(100, 8))


def test_arma_nonstationary_has_no_long_run_mean():
    with pytest.raises(ValueError, match="alpha"):
        _ = ArmaBandwidth(5.0, (1.2,)).long_run_mean_pkts_per_step


# --- eqs. (9)-(11): the closed loop ------------------------------------------------------------


def test_simulation_obeys_state_equation_12():
    alpha, beta, q0 = (0.5, -0.3), (0.4,), 15.0
    bw = ArmaBandwidth(10.0, alpha, beta, 1.0)
    df = simulate_closed_loop(
        bw, 5000, 3, queue_ref_pkts=q0, bw_noise_std_pkts_per_step=0.7, queue_noise_std_pkts=0.3
    )
    phi = df.b_pkts_per_step.to_numpy() - 10.0
    x = np.column_stack(
        [df.w_pkts.to_numpy()[1:] - 10.0, df.q_pkts.to_numpy()[1:] - q0, phi[1:], phi[:-1]]
    )  # X(n) for n = 1..N-1
    residual = x[1:] - x[:-1] @ state_matrix(alpha).T  # Y(n) = X(n+1) - A X(n)
    pi = (df.b_hat_pkts_per_step - df.b_pkts_per_step - (df.q_hat_pkts - df.q_pkts)).to_numpy()
    np.testing.assert_allclose(residual[:, 0], pi[1:-1], atol=1e-9)
    np.testing.assert_allclose(residual[:, 1], 0.0, atol=1e-9)
    np.testing.assert_allclose(residual[:, 3], 0.0, atol=1e-9)
    # Y3 = e(n+1) + beta_1 e(n): MA(1) with beta_0 = 1, variance 1 + 0.16, lag-1 corr 0.4/1.16
    y3 = residual[:, 2]
    assert y3.var() == pytest.approx(1.16, rel=0.06)
    assert np.corrcoef(y3[1:], y3[:-1])[0, 1] == pytest.approx(0.4 / 1.16, abs=0.05)


def test_noise_free_simulation_follows_mean_trajectory():
    bw = ArmaBandwidth(8.0, (0.5,), (), 0.0)
    df = simulate_closed_loop(bw, 60, 0, queue_ref_pkts=15.0, initial_queue_pkts=25.0)
    traj = expected_state([0.5], [0.0, 10.0, 0.0], 59)
    np.testing.assert_allclose(df.q_pkts - 15.0, traj[:, 1], atol=1e-12)
    np.testing.assert_allclose(df.w_pkts - 8.0, traj[:, 0], atol=1e-12)


def test_simulation_stays_bounded_when_stable_and_diverges_when_not():
    stable = simulate_closed_loop(
        ArmaBandwidth(8.0, (0.5, -0.3), (), 0.0), 10_000, 1, initial_queue_pkts=25.0
    )
    # B^n (0, 10) cycles through (+-10, 0, +-10): never beyond the initial offset
    assert np.max(np.abs(stable.q_pkts - 15.0)) == pytest.approx(10.0)
    unstable = simulate_closed_loop(ArmaBandwidth(8.0, (0.6, 0.6), (), 1.0), 300, 1)
    assert np.max(np.abs(unstable.q_pkts - 15.0)) > 1e6


def test_ensemble_mean_queue_stays_at_reference_when_stable():
    bw = ArmaBandwidth(8.0, (0.5, -0.3), (0.2,), 1.0)
    finals = [simulate_closed_loop(bw, 300, s).q_pkts.iloc[-1] for s in range(300)]
    se = np.std(finals) / math.sqrt(len(finals))
    assert abs(np.mean(finals) - 15.0) < 4.0 * se


def test_queue_variance_grows_linearly_under_neutral_stability():
    # d = 1, phi = 0, pi = gamma: e(n+1) = e(n) - e(n-1) + gamma(n-1), so Var e(n) = sum h_k^2
    # over k < n-1, with impulse response h = 1, 1, 0, -1, -1, 0, ... (period 6).
    h = [1.0, 1.0]
    while len(h) < 700:
        h.append(h[-1] - h[-2])
    n = 601
    expected_var = sum(v * v for v in h[: n - 1])  # = 400 for n - 1 = 600
    assert expected_var == 400.0
    bw = ArmaBandwidth(8.0, (0.5,), (), 0.0)
    finals = [
        simulate_closed_loop(bw, n + 1, s, bw_noise_std_pkts_per_step=1.0).q_pkts.iloc[n]
        for s in range(400)
    ]
    assert np.var(finals) == pytest.approx(expected_var, rel=0.2)


def test_zero_delay_is_dead_beat():
    # eq. (11) read literally: q(n+1) - q0 = gamma - eta, whatever the bandwidth does.
    bw = ArmaBandwidth(8.0, (0.9,), (0.5,), 2.0)
    df = simulate_closed_loop(
        bw, 500, 5, feedback_delay_steps=0, bw_noise_std_pkts_per_step=0.4, queue_noise_std_pkts=0.2
    )
    pi = (df.b_hat_pkts_per_step - df.b_pkts_per_step - (df.q_hat_pkts - df.q_pkts)).to_numpy()
    np.testing.assert_allclose(df.q_pkts.to_numpy()[1:] - 15.0, pi[:-1], atol=1e-9)


def test_nonnegative_mode_keeps_queue_and_window_nonnegative():
    bw = ArmaBandwidth(1.24, (0.5,), (), 1.0)
    df = simulate_closed_loop(bw, 5000, 2, nonnegative=True)
    assert (df.q_pkts >= 0).all() and (df.w_pkts >= 0).all()
    assert (df.served_pkts <= df.b_pkts_per_step.clip(lower=0) + 1e-12).all()


def test_simulation_is_reproducible_and_noise_does_not_change_bandwidth():
    bw = ArmaBandwidth(8.0, (0.5,), (0.2,), 1.0)
    a = simulate_closed_loop(bw, 200, 9)
    b = simulate_closed_loop(bw, 200, 9)
    c = simulate_closed_loop(bw, 200, 9, queue_noise_std_pkts=1.0)
    assert a.equals(b)
    np.testing.assert_array_equal(a.b_pkts_per_step, c.b_pkts_per_step)
    assert not a.q_pkts.equals(c.q_pkts)
    assert a.t_s.iloc[100] == pytest.approx(1.0)
    assert a.b_pkts_per_s.iloc[3] == pytest.approx(a.b_pkts_per_step.iloc[3] / 0.01)


# --- eqs. (18) and (8): the proxy control laws -------------------------------------------------


def test_send_window_eq18_at_hand_points():
    # 1000 pkt/s * 0.01 s - 20 + 15 = 5
    paper = {"queue_ref_pkts": 15.0, "sample_interval_s": 0.01}
    assert proxy_send_window_pkts(1000.0, 20.0, **paper) == pytest.approx(5.0)
    # 124 pkt/s * 0.01 s - 0 + 15 = 16.24
    assert proxy_send_window_pkts(124.0, 0.0, **paper) == pytest.approx(16.24)
    # 100 * 0.01 - 30 + 15 = -14, clamped to 0 on request
    assert proxy_send_window_pkts(100.0, 30.0, **paper) == pytest.approx(-14.0)
    assert proxy_send_window_pkts(100.0, 30.0, **paper, clamp_at_zero=True) == 0.0


def test_send_window_eq18_vectorised_and_eq7_at_unit_step():
    w = proxy_send_window_pkts(
        np.array([200.0, 400.0]), np.array([10.0, 5.0]), queue_ref_pkts=15.0, sample_interval_s=0.02
    )
    np.testing.assert_allclose(w, [9.0, 18.0])
    assert proxy_send_window_pkts(3.0, 4.0, queue_ref_pkts=15.0, sample_interval_s=1.0) == pytest.approx(14.0)


def test_advertised_window_eq8_at_hand_points():
    assert advertised_window_pkts(40.0, 10.0, proxy_queue_ref_pkts=50.0) == pytest.approx(80.0)
    assert advertised_window_pkts(5.0, 60.0, proxy_queue_ref_pkts=50.0) == pytest.approx(-5.0)
    assert advertised_window_pkts(5.0, 60.0, proxy_queue_ref_pkts=50.0, clamp_at_zero=True) == 0.0


# --- bad input ---------------------------------------------------------------------------------


BW = ArmaBandwidth(1.0, (0.5,))
SEND = proxy_send_window_pkts


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: SEND(100.0, 5.0, queue_ref_pkts=15.0, sample_interval_s=0.0), "sample_interval_s"),
        (lambda: SEND(-1.0, 5.0, queue_ref_pkts=15.0, sample_interval_s=0.01), "bw_estimate_pkts_per_s"),
        (lambda: SEND(1.0, float("nan"), queue_ref_pkts=15.0, sample_interval_s=0.01), "queue_estimate_pkts"),
        (lambda: SEND(1.0, 1.0, queue_ref_pkts=-1.0, sample_interval_s=0.01), "queue_ref_pkts"),
        (lambda: advertised_window_pkts(1.0, -2.0, proxy_queue_ref_pkts=50.0), "proxy_queue_pkts"),
        (lambda: advertised_window_pkts(float("inf"), 2.0, proxy_queue_ref_pkts=50.0), "send_window_pkts"),
        (lambda: state_matrix([]), "alpha"),
        (lambda: state_matrix([[0.1, 0.2]]), "alpha"),
        (lambda: check_theorem([0.1, float("nan")]), "alpha"),
        (lambda: ArmaBandwidth(-1.0, (0.5,)), "nominal_pkts_per_step"),
        (lambda: ArmaBandwidth(1.0, (0.5,), ("x",)), "beta"),
        (lambda: ArmaBandwidth(1.0, (0.5,), (), -1.0), "innovation_std_pkts_per_step"),
        (lambda: BW.sample(0, 1), "n_steps"),
        (lambda: simulate_closed_loop(BW, 10, -1), "seed"),
        (lambda: simulate_closed_loop(BW, 10, 1, feedback_delay_steps=1.5), "feedback_delay_steps"),
        (lambda: simulate_closed_loop(BW, 10, 1, step_s=0.0), "step_s"),
        (lambda: expected_state([0.5], [0.0, 1.0], 3), "initial_state"),
        (lambda: queue_loop_poles(-1), "feedback_delay_steps"),
    ],
)
def test_bad_input_raises_value_error_naming_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- CLI ---------------------------------------------------------------------------------------


def test_cli_prints_one_json_object_with_matrix_and_verdict():
    result = CliRunner().invoke(cli, ["--alpha", "0.5,-0.3"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["state_matrix"] == state_matrix([0.5, -0.3]).tolist()
    assert report["verdict"] == "neutrally_stable"
    assert report["spectral_radius"] == pytest.approx(1.0)
    assert len(report["eigenvalues"]) == 4
    assert {"re", "im", "modulus"} <= set(report["eigenvalues"][0])
    assert "simulation" not in report


def test_cli_simulation_is_seeded_and_reports_summary():
    args = ["--alpha=-0.2,0.1", "--beta", "0.3", "--simulate", "400", "--seed", "4"]
    first = CliRunner().invoke(cli, args)
    second = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    sim = json.loads(first.stdout)["simulation"]
    assert sim["n_steps"] == 400
    assert sim["parameters"]["seed"] == 4
    assert sim["queue_loop_spectral_radius"] == pytest.approx(1.0)
    assert set(sim["q_pkts"]) == {"mean", "std", "min", "max"}


def test_cli_unstable_alpha_gives_unstable_verdict():
    report = json.loads(CliRunner().invoke(cli, ["--alpha", "0.6,0.6"]).stdout)
    assert report["verdict"] == "unstable"
    assert report["theorem_condition_holds"] is False


def test_cli_bad_alpha_exits_2_with_one_line_naming_option():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "hosim.cli", "model", "hsdpa-stability", "--alpha", "0.5,abc"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "--alpha" in proc.stderr


@pytest.mark.filterwarnings("error")
def test_cli_unstable_simulation_reports_overflow_step_without_warnings():
    result = CliRunner().invoke(cli, ["--alpha", "1.2", "--simulate", "5000"])
    assert result.exit_code == 0, result.output
    sim = json.loads(result.stdout)["simulation"]
    assert sim["first_nonfinite_step"] is not None and sim["first_nonfinite_step"] < 5000
    assert sim["q_pkts"]["max"] is None

"""Window Adaptation TCP Proxy over HSDPA: control laws and stability analysis.

Reference: F. Ren, X. Huang, F. Liu, C. Lin, "Improving TCP Throughput over HSDPA Networks",
IEEE Trans. Wireless Commun., 2008, doi:10.1109/TWC.2008.061007. Equation numbers are the paper's.

Reading list (paper equation -> this module):

- (2)        ARMA(p, q) bandwidth process                    -> ArmaBandwidth
- (3), (4)   noisy feedback of bandwidth and queue length     -> simulate_closed_loop
- (7), (18)  sending-window law of the proxy                  -> proxy_send_window_pkts
- (8)        advertised-window law towards the server         -> advertised_window_pkts
- (9)-(11)   stochastic closed loop                           -> simulate_closed_loop
- (12)       state matrix A and its blocks B, C               -> state_matrix, block_b, block_c
- (15)       mean trajectory E[X(n)] = A^n E[X(0)]            -> expected_state
- Theorem    sum |alpha_i| < 1 => neutrally stable            -> check_theorem

Units. The analysis, eqs. (1)-(17), takes one feedback step as the unit of time: bandwidths are
packets per step, windows and queues are packets. Eqs. (18) and (8) are stated with an explicit
sampling interval, in packets, seconds and packets/s. See docs/models/hsdpa-stability.md for the
choices made where the paper is vague (innovation beta_0, the one-step feedback delay behind (12)).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import click
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

# Section V: "Let tau = 10 ms, and fix q0 and q20 at 15 packets and 50 packets respectively."
PAPER_SAMPLE_INTERVAL_S = 0.010
PAPER_QUEUE_REF_PKTS = 15.0
PAPER_PROXY_QUEUE_REF_PKTS = 50.0
# Table I, T = 200 ms: throughput upper bound 124.0 pkts/s, i.e. 1.24 packets per 10 ms step.
PAPER_NOMINAL_BW_PKTS_PER_STEP = 1.24

# A transient smaller than this (relative) counts as gone when choosing the ARMA burn-in.
_TRANSIENT_RESIDUE = 1e-12


# ---------------------------------------------------------------------------------------------
# Input validation: every error names the offending parameter.


def _finite_array(name: str, value: ArrayLike) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number or an array of numbers, got {value!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return arr


def _nonnegative_array(name: str, value: ArrayLike) -> np.ndarray:
    arr = _finite_array(name, value)
    if np.any(arr < 0):
        raise ValueError(f"{name}: must be >= 0, got {value!r}")
    return arr


def _finite(name: str, value: ArrayLike) -> float:
    arr = _finite_array(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name}: expected a single number, got {value!r}")
    return float(arr)


def _nonnegative(name: str, value: ArrayLike) -> float:
    x = _finite(name, value)
    if x < 0:
        raise ValueError(f"{name}: must be >= 0, got {value!r}")
    return x


def _positive(name: str, value: ArrayLike) -> float:
    x = _finite(name, value)
    if x <= 0:
        raise ValueError(f"{name}: must be > 0, got {value!r}")
    return x


def _count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: expected an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name}: must be >= {minimum}, got {value!r}")
    return int(value)


def _coefficients(name: str, values: ArrayLike, allow_empty: bool) -> tuple[float, ...]:
    arr = _finite_array(name, values)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a flat list of coefficients, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name}: needs at least one coefficient (use [0.0] for none)")
    return tuple(float(x) for x in arr)


def _scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    return float(arr) if arr.ndim == 0 else arr


# ---------------------------------------------------------------------------------------------
# Control laws of the proxy, eqs. (7), (18) and (8).


def proxy_send_window_pkts(
    bw_estimate_pkts_per_s: ArrayLike,
    queue_estimate_pkts: ArrayLike,
    *,
    queue_ref_pkts: float,
    sample_interval_s: float,
    clamp_at_zero: bool = False,
) -> float | np.ndarray:
    """Sending window of the proxy towards the UE, eq. (18).

        w(n) = b_hat(n) * tau - q_hat(n) + q0

    ``bw_estimate_pkts_per_s`` is b_hat(n), the bandwidth Node-B reports (packets/s);
    ``queue_estimate_pkts`` is q_hat(n), the reported Node-B queue (packets); ``queue_ref_pkts``
    is q0 (packets); ``sample_interval_s`` is tau (seconds). With tau equal to one step this is
    eq. (7). The result is in packets. The paper does not clamp: a negative value means "send
    nothing this step", and ``clamp_at_zero=True`` returns max(w, 0) instead.

    Scalars give a float, arrays an array (broadcast). Negative or non-finite inputs and a
    non-positive interval raise ValueError naming the parameter.
    """
    b_hat = _nonnegative_array("bw_estimate_pkts_per_s", bw_estimate_pkts_per_s)
    q_hat = _nonnegative_array("queue_estimate_pkts", queue_estimate_pkts)
    q0 = _nonnegative("queue_ref_pkts", queue_ref_pkts)
    tau = _positive("sample_interval_s", sample_interval_s)
    window = b_hat * tau - q_hat + q0
    if clamp_at_zero:
        window = np.maximum(window, 0.0)
    return _scalar_or_array(window)


def advertised_window_pkts(
    send_window_pkts: ArrayLike,
    proxy_queue_pkts: ArrayLike,
    *,
    proxy_queue_ref_pkts: float,
    clamp_at_zero: bool = False,
) -> float | np.ndarray:
    """Advertised window the proxy puts in its ACKs to the server, eq. (8).

        aw(n) = w(n) - q2(n) + q20

    ``send_window_pkts`` is w(n) from eq. (18) (packets, may be negative if unclamped);
    ``proxy_queue_pkts`` is q2(n), the proxy's own buffer (packets); ``proxy_queue_ref_pkts`` is
    q20 (packets). Result in packets, unclamped unless ``clamp_at_zero=True``.
    """
    w = _finite_array("send_window_pkts", send_window_pkts)
    q2 = _nonnegative_array("proxy_queue_pkts", proxy_queue_pkts)
    q20 = _nonnegative("proxy_queue_ref_pkts", proxy_queue_ref_pkts)
    window = w - q2 + q20
    if clamp_at_zero:
        window = np.maximum(window, 0.0)
    return _scalar_or_array(window)


# ---------------------------------------------------------------------------------------------
# State-space form, eq. (12).


def block_b() -> np.ndarray:
    """Upper-left 2x2 block B of A, eq. (12): the window/queue loop, det(B - lI) = l^2 - l + 1."""
    return np.array([[0.0, -1.0], [1.0, 1.0]])


def block_c(alpha: ArrayLike) -> np.ndarray:
    """Lower-right p x p block C of A, eq. (12): companion matrix of the AR part of eq. (2)."""
    a = _coefficients("alpha", alpha, allow_empty=False)
    p = len(a)
    c = np.zeros((p, p))
    c[0, :] = a
    c[1:, :-1] = np.eye(p - 1)
    return c


def state_matrix(alpha: ArrayLike) -> np.ndarray:
    """State matrix A of eq. (12), shape (p+2, p+2), for AR coefficients alpha_1..alpha_p.

    State X(n) = (w(n) - b, q(n) - q0, phi(n), ..., phi(n-p+1)) and X(n+1) = A X(n) + Y(n).
    Row 1: w(n+1) - b = -(q(n) - q0) + phi(n)             (one-step-delayed law (11))
    Row 2: q(n+1) - q0 = (w(n) - b) + (q(n) - q0) - phi(n)  (eq. (9))
    Rows 3..: the AR recursion of eq. (2) in companion form (block C).
    """
    c = block_c(alpha)
    p = c.shape[0]
    a = np.zeros((p + 2, p + 2))
    a[:2, :2] = block_b()
    a[0, 2] = 1.0  # the window follows the bandwidth deviation phi(n)
    a[1, 2] = -1.0  # the link drains phi(n) packets more than nominal
    a[2:, 2:] = c
    return a


def expected_state(alpha: ArrayLike, initial_state: ArrayLike, n_steps: int) -> np.ndarray:
    """Mean trajectory E[X(n)] = A^n E[X(0)] of eq. (15), rows n = 0..n_steps.

    ``initial_state`` is E[X(0)] = (E[w(0)] - b, E[q(0)] - q0, E[phi(0)], ..., E[phi(-p+1)]),
    in packets (the phi entries in packets per step).
    """
    a = state_matrix(alpha)
    x0 = _finite_array("initial_state", initial_state)
    if x0.shape != (a.shape[0],):
        raise ValueError(f"initial_state: expected {a.shape[0]} entries (p + 2), got shape {x0.shape}")
    n = _count("n_steps", n_steps, 0)
    out = np.empty((n + 1, a.shape[0]))
    out[0] = x0
    for k in range(n):
        out[k + 1] = a @ out[k]
    return out


def queue_loop_poles(feedback_delay_steps: int) -> np.ndarray:
    """Poles of the window/queue loop when the law (7) acts on feedback d steps old.

    With w(n) = b(n-d) - q(n-d) + q0, eq. (9) gives e(n+1) = e(n) - e(n-d) + forcing, e = q - q0,
    so the poles are the roots of l^(d+1) - l^d + 1. d = 1 gives the eigenvalues of block B of
    eq. (12); d = 0 (eq. (11) read literally) gives a single pole at 0 (dead-beat).
    """
    d = _count("feedback_delay_steps", feedback_delay_steps, 0)
    poly = np.zeros(d + 2)
    poly[0] += 1.0
    poly[1] -= 1.0
    poly[d + 1] += 1.0
    return np.roots(poly)


# ---------------------------------------------------------------------------------------------
# The theorem of Section IV.C.


class Verdict(str, Enum):
    """Stability of E[X(n)] under eq. (15)."""

    NEUTRALLY_STABLE = "neutrally_stable"  # rho(C) < 1: max |l| = 1, from block B only
    MARGINAL = "marginal"  # rho(C) = 1 within tolerance: b(n) itself is not stationary
    UNSTABLE = "unstable"  # rho(C) > 1: E[X(n)] grows geometrically


def _sorted_eigenvalues(values: Iterable[complex]) -> tuple[complex, ...]:
    return tuple(sorted((complex(z) for z in values), key=lambda z: (-abs(z), -z.real, -z.imag)))


def _spectral_radius(values: Iterable[complex]) -> float:
    return float(max(abs(z) for z in values))


def _complex_json(values: Iterable[complex]) -> list[dict[str, float]]:
    return [{"re": z.real, "im": z.imag, "modulus": abs(z)} for z in values]


@dataclass(frozen=True)
class StabilityResult:
    """Outcome of check_theorem: eigen-structure of A (eq. (12)) and the theorem's verdict."""

    alpha: tuple[float, ...]
    sum_abs_alpha: float
    theorem_condition_holds: bool  # sum |alpha_i| < 1
    eigenvalues: tuple[complex, ...]  # of A, largest modulus first
    eigenvalues_block_b: tuple[complex, ...]
    eigenvalues_block_c: tuple[complex, ...]
    spectral_radius: float
    spectral_radius_block_b: float
    spectral_radius_block_c: float
    dominant_block: str  # "B", "C" or "B+C": which block attains the spectral radius
    verdict: Verdict
    theorem_consistent: bool  # condition holds => verdict is neutrally stable

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; complex numbers become {"re", "im", "modulus"}."""
        return {
            "alpha": list(self.alpha),
            "sum_abs_alpha": self.sum_abs_alpha,
            "theorem_condition_holds": self.theorem_condition_holds,
            "eigenvalues": _complex_json(self.eigenvalues),
            "spectral_radius": self.spectral_radius,
            "blocks": {
                "B": {
                    "eigenvalues": _complex_json(self.eigenvalues_block_b),
                    "spectral_radius": self.spectral_radius_block_b,
                },
                "C": {
                    "eigenvalues": _complex_json(self.eigenvalues_block_c),
                    "spectral_radius": self.spectral_radius_block_c,
                },
            },
            "dominant_block": self.dominant_block,
            "verdict": self.verdict.value,
            "theorem_consistent": self.theorem_consistent,
        }


def check_theorem(alpha: ArrayLike, tol: float = 1e-7) -> StabilityResult:
    """Check the theorem of Section IV.C for AR coefficients alpha (eqs. (12), (16), (17)).

    Theorem: if sum |alpha_i| < 1 (and E[q(0)] = q0) the system (9)-(11) is neutrally stable.
    A is block upper-triangular, so eig(A) = eig(B) u eig(C). B always contributes
    l = (1 +- i sqrt 3)/2 with |l| = 1; the verdict therefore rests on rho(C), the largest root
    modulus of the AR polynomial: < 1 - tol neutrally stable, within tol of 1 marginal, else
    unstable. ``tol`` absorbs eigenvalue round-off (about sqrt(eps) for repeated roots).
    The hypothesis E[q(0)] = q0 only fixes the initial condition and does not enter here.
    """
    a = _coefficients("alpha", alpha, allow_empty=False)
    tol = _positive("tol", tol)
    eig_a = _sorted_eigenvalues(np.linalg.eigvals(state_matrix(a)))
    eig_b = _sorted_eigenvalues(np.linalg.eigvals(block_b()))
    eig_c = _sorted_eigenvalues(np.linalg.eigvals(block_c(a)))
    rho_b = _spectral_radius(eig_b)
    rho_c = _spectral_radius(eig_c)
    sum_abs = float(np.sum(np.abs(a)))
    condition = sum_abs < 1.0

    if rho_c < 1.0 - tol:
        verdict = Verdict.NEUTRALLY_STABLE
    elif rho_c <= 1.0 + tol:
        verdict = Verdict.MARGINAL
    else:
        verdict = Verdict.UNSTABLE

    if rho_c < rho_b - tol:
        dominant = "B"
    elif rho_c > rho_b + tol:
        dominant = "C"
    else:
        dominant = "B+C"

    return StabilityResult(
        alpha=a,
        sum_abs_alpha=sum_abs,
        theorem_condition_holds=condition,
        eigenvalues=eig_a,
        eigenvalues_block_b=eig_b,
        eigenvalues_block_c=eig_c,
        spectral_radius=_spectral_radius(eig_a),
        spectral_radius_block_b=rho_b,
        spectral_radius_block_c=rho_c,
        dominant_block=dominant,
        verdict=verdict,
        theorem_consistent=(not condition) or verdict is Verdict.NEUTRALLY_STABLE,
    )


# ---------------------------------------------------------------------------------------------
# The bandwidth process, eq. (2).


@dataclass(frozen=True)
class ArmaBandwidth:
    """ARMA(p, q) bandwidth of eq. (2), in packets per step.

        b(n) = b + phi(n)
        phi(n) = sum_{i=1..p} alpha_i phi(n-i) + sum_{j=0..q} beta_j e(n-j),  beta_0 = 1

    e(n) is i.i.d. Gaussian with standard deviation ``innovation_std_pkts_per_step`` (the paper
    fixes it at 1). Eq. (2) writes the MA sum from j = 1, but the paper's Y(n) in eq. (12) sums
    from j = 0; we take the standard ARMA form with beta_0 = 1. ``beta`` lists beta_1..beta_q.
    """

    nominal_pkts_per_step: float
    alpha: tuple[float, ...]
    beta: tuple[float, ...] = ()
    innovation_std_pkts_per_step: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "nominal_pkts_per_step", _nonnegative("nominal_pkts_per_step", self.nominal_pkts_per_step)
        )
        object.__setattr__(self, "alpha", _coefficients("alpha", self.alpha, allow_empty=False))
        object.__setattr__(self, "beta", _coefficients("beta", self.beta, allow_empty=True))
        object.__setattr__(
            self,
            "innovation_std_pkts_per_step",
            _nonnegative("innovation_std_pkts_per_step", self.innovation_std_pkts_per_step),
        )

    @property
    def spectral_radius(self) -> float:
        """rho(C): largest modulus of the AR roots; < 1 means phi(n) is stationary."""
        return _spectral_radius(np.linalg.eigvals(block_c(self.alpha)))

    @property
    def is_stationary(self) -> bool:
        return self.spectral_radius < 1.0

    @property
    def long_run_mean_pkts_per_step(self) -> float:
        """E[b(n)] for large n: the nominal value b, since phi(n) is zero-mean (eq. (2))."""
        self._require_stationary()
        return self.nominal_pkts_per_step

    @property
    def long_run_std_pkts_per_step(self) -> float:
        """Stationary standard deviation of b(n): sigma * sqrt(sum_k psi_k^2), psi the MA(inf) weights."""
        self._require_stationary()
        psi = self._psi_weights(self._transient_steps())
        return self.innovation_std_pkts_per_step * float(np.sqrt(np.sum(psi**2)))

    def sample(self, n_steps: int, rng: object, burn_in_steps: int | None = None) -> np.ndarray:
        """Draw b(0..n_steps-1) in packets per step.

        ``rng`` is a numpy Generator or an integer seed (same seed, same series). The recursion
        starts from phi = 0 and e = 0 and runs ``burn_in_steps`` first; by default enough steps
        for the start-up transient to fall below 1e-12 of its size when stationary, none otherwise.
        """
        n = _count("n_steps", n_steps, 1)
        if burn_in_steps is None:
            burn = self._transient_steps() if self.is_stationary else 0
        else:
            burn = _count("burn_in_steps", burn_in_steps, 0)
        generator = _generator("rng", rng)
        total = burn + n
        innovations = self.innovation_std_pkts_per_step * generator.standard_normal(total)
        ma = np.convolve(innovations, np.concatenate(([1.0], self.beta)))[:total]
        phi = _ar_filter(self.alpha, ma)
        return self.nominal_pkts_per_step + phi[burn:]

    def _require_stationary(self) -> None:
        if not self.is_stationary:
            raise ValueError(
                f"alpha: AR roots reach modulus {self.spectral_radius:.6g} >= 1, so b(n) is not "
                "stationary and has no long-run mean or variance"
            )

    def _transient_steps(self) -> int:
        rho = self.spectral_radius
        memory = len(self.alpha) + len(self.beta)
        if rho == 0.0:
            return memory + 1
        return int(math.ceil(math.log(_TRANSIENT_RESIDUE) / math.log(rho))) + memory + 1

    def _psi_weights(self, n_terms: int) -> np.ndarray:
        impulse = np.zeros(n_terms)
        impulse[0] = 1.0
        ma = np.convolve(impulse, np.concatenate(([1.0], self.beta)))[:n_terms]
        return _ar_filter(self.alpha, ma)


def _ar_filter(alpha: tuple[float, ...], forcing: np.ndarray) -> np.ndarray:
    """phi(n) = sum_i alpha_i phi(n-i) + forcing(n), phi = 0 before the start."""
    p = len(alpha)
    coeffs = list(alpha)
    history = [0.0] * p  # phi(n-1), ..., phi(n-p)
    out = np.empty(len(forcing))
    for k, f in enumerate(forcing.tolist()):
        value = f + sum(c * h for c, h in zip(coeffs, history))
        out[k] = value
        history = [value] + history[:-1]
    return out


def _generator(name: str, rng: object) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(_count(name, rng, 0))


# ---------------------------------------------------------------------------------------------
# The stochastic closed loop, eqs. (9)-(11) with the feedback of eqs. (3)-(4).


def simulate_closed_loop(
    bandwidth: ArmaBandwidth,
    n_steps: int,
    seed: int,
    *,
    queue_ref_pkts: float = PAPER_QUEUE_REF_PKTS,
    bw_noise_std_pkts_per_step: float = 0.0,
    queue_noise_std_pkts: float = 0.0,
    feedback_delay_steps: int = 1,
    initial_queue_pkts: float | None = None,
    initial_window_pkts: float | None = None,
    step_s: float = PAPER_SAMPLE_INTERVAL_S,
    nonnegative: bool = False,
) -> pd.DataFrame:
    """Simulate the closed loop of eqs. (9)-(11), one row per step n = 0..n_steps-1.

        b(n)      from eq. (2)                                     (packets/step)
        b_hat(n) = b(n) + gamma(n+1),  q_hat(n) = q(n) + eta(n+1)  eqs. (3), (4)
        w(n)     = b_hat(n-d) - q_hat(n-d) + q0                     eq. (7), d = feedback delay
        q(n+1)   = q(n) + w(n) - b(n)                               eq. (9)

    gamma and eta are Gaussian with the given standard deviations, so the noise of eq. (11) is
    pi = gamma - eta. d = 1 (default) is the loop whose state matrix is A of eq. (12); d = 0 is
    eq. (11) read literally. For n < d the window is ``initial_window_pkts`` (default b).
    ``initial_queue_pkts`` defaults to q0, the theorem's E[q(0)] = q0.

    The paper's model is linear: queue, window and bandwidth may go negative. ``nonnegative=True``
    clips them at 0 and serves min(b, q + w) per step, as a real queue would.

    Random streams for the bandwidth, gamma and eta are spawned from ``seed`` separately, so a
    noise level change leaves b(n) unchanged. Columns: step, t_s, b_pkts_per_step, b_pkts_per_s,
    b_hat_pkts_per_step, q_pkts, q_hat_pkts, w_pkts, served_pkts. ``df.attrs`` holds the inputs.
    """
    if not isinstance(bandwidth, ArmaBandwidth):
        raise ValueError(f"bandwidth: expected an ArmaBandwidth, got {type(bandwidth).__name__}")
    n = _count("n_steps", n_steps, 1)
    seed = _count("seed", seed, 0)
    q0 = _nonnegative("queue_ref_pkts", queue_ref_pkts)
    sigma_gamma = _nonnegative("bw_noise_std_pkts_per_step", bw_noise_std_pkts_per_step)
    sigma_eta = _nonnegative("queue_noise_std_pkts", queue_noise_std_pkts)
    d = _count("feedback_delay_steps", feedback_delay_steps, 0)
    q_init = q0 if initial_queue_pkts is None else _nonnegative("initial_queue_pkts", initial_queue_pkts)
    w_init = (
        bandwidth.nominal_pkts_per_step
        if initial_window_pkts is None
        else _nonnegative("initial_window_pkts", initial_window_pkts)
    )
    step_s = _positive("step_s", step_s)

    streams = np.random.SeedSequence(seed).spawn(3)
    bw_stream, gamma_stream, eta_stream = (np.random.default_rng(s) for s in streams)
    b = bandwidth.sample(n, bw_stream)
    b_hat = b + sigma_gamma * gamma_stream.standard_normal(n)
    eta = sigma_eta * eta_stream.standard_normal(n)

    q, w, served, q_hat = _run_loop(
        b.tolist(), b_hat.tolist(), eta.tolist(), q0, d, q_init, w_init, nonnegative
    )

    steps = np.arange(n)
    with np.errstate(over="ignore", invalid="ignore"):  # an unstable loop may overflow to inf
        df = pd.DataFrame(
            {
                "step": steps,
                "t_s": steps * step_s,
                "b_pkts_per_step": b,
                "b_pkts_per_s": b / step_s,
                "b_hat_pkts_per_step": b_hat,
                "q_pkts": q,
                "q_hat_pkts": q_hat,
                "w_pkts": w,
                "served_pkts": served,
            }
        )
    df.attrs.update(
        model="hsdpa-closed-loop",
        alpha=list(bandwidth.alpha),
        beta=list(bandwidth.beta),
        nominal_pkts_per_step=bandwidth.nominal_pkts_per_step,
        innovation_std_pkts_per_step=bandwidth.innovation_std_pkts_per_step,
        seed=seed,
        queue_ref_pkts=q0,
        bw_noise_std_pkts_per_step=sigma_gamma,
        queue_noise_std_pkts=sigma_eta,
        feedback_delay_steps=d,
        step_s=step_s,
        nonnegative=bool(nonnegative),
    )
    return df


def _run_loop(
    b: Sequence[float], b_hat: Sequence[float], eta: Sequence[float], q0: float, d: int, q_init: float,
    w_init: float, nonnegative: bool,
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Step eqs. (7) and (9) forward; returns q(n), w(n), served(n), q_hat(n) for n < len(b)."""
    n = len(b)
    q = [0.0] * (n + 1)
    w = [0.0] * n
    served = [0.0] * n
    q_hat = [0.0] * n
    q[0] = q_init
    for k in range(n):
        # eq. (4): the proxy's view of the queue at the end of step k
        q_hat[k] = q[k] + eta[k]
        # eq. (7) on feedback d steps old; the initial window until the first report arrives
        window = w_init if k < d else b_hat[k - d] - q_hat[k - d] + q0
        if nonnegative:
            window = max(window, 0.0)
            out = min(max(b[k], 0.0), q[k] + window)
        else:
            out = b[k]
        w[k] = window
        served[k] = out
        # eq. (9): arrivals w(n), departures b(n)
        q[k + 1] = q[k] + window - out
    return q[:n], w, served, q_hat


def summarize_simulation(df: pd.DataFrame, queue_ref_pkts: float) -> dict[str, Any]:
    """Summary statistics of a simulate_closed_loop frame (packets, packets/step).

    Non-finite statistics (an unstable loop overflowing) become None; ``first_nonfinite_step``
    gives the step where q, w or b first left the floating-point range, None if never.
    """
    q0 = _nonnegative("queue_ref_pkts", queue_ref_pkts)
    if len(df) == 0:
        raise ValueError("df: empty simulation frame")
    with np.errstate(all="ignore"):
        summary: dict[str, Any] = _json_safe(_summary(df, q0))
    return summary


def _summary(df: pd.DataFrame, q0: float) -> dict[str, Any]:
    q = df["q_pkts"].to_numpy()
    half = len(q) // 2
    out: dict[str, Any] = {"n_steps": int(len(df))}
    for column in ("q_pkts", "w_pkts", "b_pkts_per_step"):
        x = df[column].to_numpy()
        out[column] = {"mean": x.mean(), "std": x.std(), "min": x.min(), "max": x.max()}
    out["q_rms_error_pkts"] = float(np.sqrt(np.mean((q - q0) ** 2)))
    out["q_std_first_half_pkts"] = float(q[:half].std()) if half else None
    out["q_std_second_half_pkts"] = float(q[half:].std())
    out["empty_queue_fraction"] = float(np.mean(q <= 0.0))
    offered = np.clip(df["b_pkts_per_step"].to_numpy(), 0.0, None).sum()
    out["link_utilization"] = float(df["served_pkts"].sum() / offered) if offered > 0 else None
    finite = np.isfinite(df[["q_pkts", "w_pkts", "b_pkts_per_step"]].to_numpy()).all(axis=1)
    out["first_nonfinite_step"] = None if finite.all() else int(np.argmin(finite))
    return out


def _json_safe(value: Any) -> Any:
    """Floats to plain floats, non-finite to None, recursively."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


# ---------------------------------------------------------------------------------------------
# CLI: registered by the lead as `hosim model hsdpa-stability`.


def parse_coefficients(text: str, name: str) -> tuple[float, ...]:
    """Parse "0.5,-0.3" into (0.5, -0.3); an empty string gives (). Errors name ``name``."""
    if text.strip() == "":
        return ()
    values = []
    for item in text.split(","):
        try:
            values.append(float(item))
        except ValueError:
            raise ValueError(f"{name}: {item.strip()!r} is not a number (expected e.g. 0.5,-0.3)") from None
    return _coefficients(name, values, allow_empty=True)


def stability_report(
    alpha: ArrayLike,
    beta: ArrayLike = (),
    *,
    simulate_steps: int | None = None,
    seed: int = 0,
    **simulation_options: Any,
) -> dict[str, Any]:
    """The JSON object printed by the CLI: A, its eigenvalues, the theorem verdict, and optionally
    a summary of simulate_closed_loop over ``simulate_steps`` steps."""
    result = check_theorem(alpha)
    report = {"model": "hsdpa-stability", "state_matrix": state_matrix(result.alpha).tolist()}
    report.update(result.to_dict())
    report["blocks"]["B"]["matrix"] = block_b().tolist()
    report["blocks"]["C"]["matrix"] = block_c(result.alpha).tolist()
    if simulate_steps is not None:
        nominal = simulation_options.pop("nominal_pkts_per_step", PAPER_NOMINAL_BW_PKTS_PER_STEP)
        innovation = simulation_options.pop("innovation_std_pkts_per_step", 1.0)
        bandwidth = ArmaBandwidth(nominal, result.alpha, _coefficients("beta", beta, allow_empty=True), innovation)
        df = simulate_closed_loop(bandwidth, simulate_steps, seed, **simulation_options)
        poles = queue_loop_poles(df.attrs["feedback_delay_steps"])
        summary = summarize_simulation(df, df.attrs["queue_ref_pkts"])
        report["simulation"] = {
            "parameters": dict(df.attrs),
            "queue_loop_poles": _complex_json(_sorted_eigenvalues(poles)),
            "queue_loop_spectral_radius": _spectral_radius(poles),
            **summary,
        }
    safe: dict[str, Any] = _json_safe(report)
    return safe


@click.command("hsdpa-stability", short_help="HSDPA proxy stability: matrix A of eq. (12), eigenvalues, theorem check.")
@click.option("--alpha", required=True, help="AR coefficients alpha_1..alpha_p of eq. (2), e.g. 0.5,-0.3.")
@click.option("--beta", default="", show_default=True, help="MA coefficients beta_1..beta_q of eq. (2).")
@click.option("--simulate", "simulate_steps", type=int, default=None, help="Also simulate (9)-(11), N steps.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the simulation.")
@click.option(
    "--nominal-bw-pkts-per-step", type=float, default=PAPER_NOMINAL_BW_PKTS_PER_STEP, show_default=True,
    help="b of eq. (2).",
)
@click.option(
    "--innovation-std-pkts-per-step", type=float, default=1.0, show_default=True,
    help="std of the ARMA innovation of eq. (2).",
)
@click.option("--queue-ref-pkts", type=float, default=PAPER_QUEUE_REF_PKTS, show_default=True, help="q0.")
@click.option(
    "--bw-noise-std-pkts-per-step", type=float, default=0.0, show_default=True, help="std of gamma, eq. (3).",
)
@click.option(
    "--queue-noise-std-pkts", type=float, default=0.0, show_default=True, help="std of eta, eq. (4).",
)
@click.option(
    "--feedback-delay-steps", type=int, default=1, show_default=True, help="1 matches A of eq. (12).",
)
@click.option(
    "--step-s", type=float, default=PAPER_SAMPLE_INTERVAL_S, show_default=True, help="tau, eq. (18).",
)
@click.option("--nonnegative", is_flag=True, help="Clip queue, window and bandwidth at zero.")
def cli(alpha: str, beta: str, simulate_steps: int | None, seed: int,
        **options: Any) -> None:
    """Stability of the HSDPA window adaptation proxy (Ren et al. 2008, eq. (12) and theorem).

    Prints one JSON object: matrix A, eigenvalues, spectral radius, theorem verdict.
    """
    try:
        if simulate_steps is not None:
            _count("--simulate", simulate_steps, 1)
            _count("--seed", seed, 0)
        report = stability_report(
            parse_coefficients(alpha, "--alpha"),
            parse_coefficients(beta, "--beta"),
            simulate_steps=simulate_steps,
            seed=seed,
            nominal_pkts_per_step=options.pop("nominal_bw_pkts_per_step"),
            **options,
        )
    except ValueError as err:
        # Reported by hosim's main() as one "hosim: error: ..." line with exit code 2.
        raise click.UsageError(f"hsdpa-stability: {err}") from None
    click.echo(json.dumps(report, allow_nan=False))

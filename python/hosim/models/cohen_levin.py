"""Cohen & Levin throughput model for TCP across `drop` and `forward` handovers.

R. Cohen and A. Levin, "To Drop or Not to Drop: On the Impact of Handovers on TCP
Performance", Sec. IV (drop scheme, equations (1)-(6)) and Sec. V (forward scheme,
equations (7)-(9)). The full write-up, with every reading of the paper we had to choose, is
docs/models/cohen-levin.md.

Units follow the paper: every time is measured in RTTs (`_rtt`), every window in packets
(`_pkts`), and the equation functions return throughput in packets per RTT. `predict` takes
seconds, converts them with the mean RTT of a no-handover run, picks the mobility regime and
the equation, and normalises by that run's throughput.

Symbols:
    Δ      mean time between two handovers (Δ_s in slow mobility, Δ_f in fast mobility)
    Θ_s    mean cwnd of the connection without handovers (its fair share); the paper's
           "expected cwnd when handover takes place" in slow mobility, 3/4 of the mean peak
    Θ_f    expected cwnd when handover takes place in fast mobility, fixed by Δ_f (eq. 1)
    RTO    retransmission timeout
    D      delay from the first common parent (FCP) to the old base station, D_FCP->BS
    D_fwd  forwarding delay from the old to the new base station, D_forward
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import click
import numpy as np

RECOVERIES = ("reno", "newreno", "sack")
SCHEMES = ("drop", "forward")
DELTA_UNITS = ("rtt", "s")

# Paper, Sec. VI: one-way propagation 40 ms = 10 ms sender->FCP + 25 ms FCP->BS + 5 ms BS->host.
PAPER_RTT_S = 0.080
PAPER_D_FCP_BS_S = 0.025

# Used by `inputs_from_summary` when neither the caller nor the flow gives an MSS.
DEFAULT_MSS_BYTES = 1460

# Fast retransmit needs 3 duplicate ACKs, and the slow-start leg of Fig. 4 runs from 1 to Θ/4
# packets (log2 Θ - 2 RTTs), so the model needs at least 4 packets in flight.
MIN_THETA_PKTS = 4.0

# Sec. IV and V: Reno's fast recovery lasts one RTT (before its timeout under drop, until the
# first forwarded packet's ACK under forward).
_RENO_FAST_RECOVERY_RTT = 1.0

_LN2 = math.log(2.0)


# --- Sec. IV, drop scheme --------------------------------------------------------------------


def fast_mobility_period_rtt(theta_f_pkts: float, rto_rtt: float, fast_recovery_rtt: float = 0.0) -> float:
    """Equation (1): Δ_f = RTO + (log2 Θ_f - 2) + 3/4 Θ_f, in RTTs.

    The handover period of fast mobility: RTO waiting for the timeout, slow start from 1 to
    Θ_f/4, congestion avoidance from Θ_f/4 back to Θ_f. Reno's form (unnumbered, after eq. 3)
    adds its one fast-recovery RTT: pass `fast_recovery_rtt=1`.
    """
    return float(rto_rtt + fast_recovery_rtt + (np.log2(theta_f_pkts) - 2.0) + 0.75 * theta_f_pkts)


def solve_theta_f_pkts(delta_rtt: float, rto_rtt: float, fast_recovery_rtt: float = 0.0) -> float:
    """Θ_f in packets: equation (1) solved for Θ_f given Δ_f = `delta_rtt` (bisection).

    Equation (1) is strictly increasing in Θ_f. Raises ValueError when `delta_rtt` is shorter
    than the period at Θ_f = 4 packets, below which the model's slow-start leg does not exist.
    """
    delta_min_rtt = float(fast_mobility_period_rtt(MIN_THETA_PKTS, rto_rtt, fast_recovery_rtt))
    if delta_rtt < delta_min_rtt:
        raise ValueError(
            f"delta: below the fast-mobility range of equation (1): needs delta >= "
            f"{delta_min_rtt:.6g} rtt (Θ_f >= {MIN_THETA_PKTS:g} pkts), got {delta_rtt:.6g} rtt"
        )
    # For Θ >= 4 the right side of (1) exceeds 3/4 Θ, so the root lies below 4/3 Δ.
    lo, hi = MIN_THETA_PKTS, max(MIN_THETA_PKTS, 4.0 * delta_rtt / 3.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if fast_mobility_period_rtt(mid, rto_rtt, fast_recovery_rtt) < delta_rtt:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return 0.5 * (lo + hi)


def newreno_drop_fast_mobility(delta_rtt: float, theta_f_pkts: float, rto_rtt: float, d_fcp_bs_rtt: float) -> float:
    """Equation (2): Throughput(New-Reno|drop|FM) in packets per RTT.

    (1/Δ_f) [Θ_f (RTO/2 + 1/(4 ln 2) + 15/32 Θ_f - D) - 1/ln 2], where Δ_f and Θ_f are
    tied by equation (1).
    """
    inner = rto_rtt / 2.0 + 1.0 / (4.0 * _LN2) + 15.0 / 32.0 * theta_f_pkts - d_fcp_bs_rtt
    return (theta_f_pkts * inner - 1.0 / _LN2) / delta_rtt


def newreno_drop_slow_mobility(delta_rtt: float, theta_s_pkts: float, rto_rtt: float, d_fcp_bs_rtt: float) -> float:
    """Equation (3): Throughput(New-Reno|drop|SM) in packets per RTT.

    (1/Δ_s) [Θ_s (Δ_s - RTO/2 - log2 Θ_s + 2 + 1/(4 ln 2) - 9/32 Θ_s - D) - 1/ln 2].
    """
    inner = (
        delta_rtt
        - rto_rtt / 2.0
        - np.log2(theta_s_pkts)
        + 2.0
        + 1.0 / (4.0 * _LN2)
        - 9.0 / 32.0 * theta_s_pkts
        - d_fcp_bs_rtt
    )
    return float((theta_s_pkts * inner - 1.0 / _LN2) / delta_rtt)


def reno_drop_fast_mobility(delta_rtt: float, theta_f_pkts: float, rto_rtt: float, d_fcp_bs_rtt: float) -> float:
    """Equation (4): Throughput(Reno|drop|FM) in packets per RTT.

    (1/Δ_f) [Θ_f ((RTO + 1)/2 + 1/(4 ln 2) + 15/32 Θ_f - D) - 1/ln 2], where Δ_f and Θ_f
    are tied by Reno's form of equation (1), Δ_f = RTO + 1 + (log2 Θ_f - 2) + 3/4 Θ_f.
    """
    inner = (
        (rto_rtt + 1.0) / 2.0 + 1.0 / (4.0 * _LN2) + 15.0 / 32.0 * theta_f_pkts - d_fcp_bs_rtt
    )
    return (theta_f_pkts * inner - 1.0 / _LN2) / delta_rtt


def reno_drop_slow_mobility(delta_rtt: float, theta_s_pkts: float, rto_rtt: float, d_fcp_bs_rtt: float) -> float:
    """Equation (5): Throughput(Reno|drop|SM) in packets per RTT.

    (1/Δ_s) [Θ_s (Δ_s - RTO/2 - log2 Θ_s + 3/2 + 1/(4 ln 2) - 9/32 Θ_s - D) - 1/ln 2].
    """
    inner = (
        delta_rtt
        - rto_rtt / 2.0
        - np.log2(theta_s_pkts)
        + 1.5
        + 1.0 / (4.0 * _LN2)
        - 9.0 / 32.0 * theta_s_pkts
        - d_fcp_bs_rtt
    )
    return float((theta_s_pkts * inner - 1.0 / _LN2) / delta_rtt)


def sack_retransmission_time_rtt(d_fcp_bs_rtt: float, theta_s_pkts: float) -> float:
    """D_Ret in RTTs, from the unnumbered equation before (6): ∫_0^D_Ret 2^x dx = D Θ_s.

    Solved: D_Ret = ln(D Θ_s ln 2 + 1) / ln 2, the time a SACK sender needs to retransmit the
    D Θ_s dropped packets when each partial ACK releases two packets.
    """
    return float(np.log(d_fcp_bs_rtt * theta_s_pkts * _LN2 + 1.0) / _LN2)


def sack_drop_slow_mobility(delta_rtt: float, theta_s_pkts: float, d_fcp_bs_rtt: float) -> float:
    """Equation (6): Throughput(SACK|drop|SM, D < 1/2) in packets per RTT.

    (Θ_s/Δ_s) (Δ_s - 1/2 [ln(D Θ_s ln 2 + 1) / ln 2] - 1/2 - 1/8 Θ_s - D).
    For D > 1/2 the paper uses the New-Reno equations (2), (3) instead.
    """
    d_ret_rtt = sack_retransmission_time_rtt(d_fcp_bs_rtt, theta_s_pkts)
    inner = delta_rtt - 0.5 * d_ret_rtt - 0.5 - theta_s_pkts / 8.0 - d_fcp_bs_rtt
    return theta_s_pkts / delta_rtt * inner


# --- Sec. V, forward scheme (fast forwarding, slow mobility only) -------------------------------


def newreno_forward_slow_mobility(delta_rtt: float, theta_s_pkts: float, rto_rtt: float) -> float:
    """Equation (7): Throughput(New-Reno|forward|SM, fast forwarding) in packets per RTT.

    (Θ_s/Δ_s) [Δ_s - RTO/2 - Θ_s/8]: fast recovery at Θ_s/2 for about one RTO
    (S_1 = 1/2 Θ_s RTO), then congestion avoidance back to Θ_s (S_2 = 1/8 Θ_s^2).
    """
    return theta_s_pkts / delta_rtt * (delta_rtt - rto_rtt / 2.0 - theta_s_pkts / 8.0)


def reno_forward_slow_mobility(delta_rtt: float, theta_s_pkts: float) -> float:
    """Equation (8): Throughput(Reno|forward|SM, fast forwarding) in packets per RTT.

    (Θ_s/Δ_s) [Δ_s - 1/2 - 1/8 Θ_s]: Reno's fast recovery ends with the first forwarded
    packet's ACK, one RTT at Θ_s/2.
    """
    return theta_s_pkts / delta_rtt * (delta_rtt - 0.5 - theta_s_pkts / 8.0)


def sack_forward_slow_mobility(delta_rtt: float, theta_s_pkts: float, rto_rtt: float) -> float:
    """Equation (9): Throughput(SACK|forward|SM, fast forwarding) in packets per RTT.

    (Θ_s/Δ_s) [Δ_s - 1/2 RTO - 1/8 Θ_s]: the same value as equation (7); SACK only lacks
    New-Reno's impatient-timeout limit on the forwarding delay.
    """
    return theta_s_pkts / delta_rtt * (delta_rtt - rto_rtt / 2.0 - theta_s_pkts / 8.0)


# --- Regimes ---------------------------------------------------------------------------------


class _Outcome(NamedTuple):
    throughput_pkts_per_rtt: float
    regime: str  # "slow-mobility" or "fast-mobility"
    equation: str  # the paper's equation number
    theta_at_handover_pkts: float  # Θ_s, or Θ_f in fast mobility


def _drop_outcome(recovery: str, delta_rtt: float, theta_s_pkts: float, rto_rtt: float, d_rtt: float) -> _Outcome:
    """Regime and equation of the drop scheme, Sec. IV."""
    if recovery == "sack" and d_rtt <= 0.5:
        return _sack_drop_outcome(delta_rtt, theta_s_pkts, d_rtt)
    # Sec. IV: SACK with D > 1/2 falls into slow start and follows New-Reno's equations.
    if recovery == "reno":
        fr_rtt, eqs = _RENO_FAST_RECOVERY_RTT, "54"
        slow, fast = reno_drop_slow_mobility, reno_drop_fast_mobility
    else:
        fr_rtt, eqs = 0.0, "32"
        slow, fast = newreno_drop_slow_mobility, newreno_drop_fast_mobility
    # Slow mobility once the window is back at Θ_s before the next handover: equation (1)
    # at Θ_f = Θ_s is the boundary, where (2) meets (3) and (4) meets (5).
    if delta_rtt >= fast_mobility_period_rtt(theta_s_pkts, rto_rtt, fr_rtt):
        throughput = slow(delta_rtt, theta_s_pkts, rto_rtt, d_rtt)
        return _Outcome(throughput, "slow-mobility", eqs[0], theta_s_pkts)
    theta_f_pkts = solve_theta_f_pkts(delta_rtt, rto_rtt, fr_rtt)
    throughput = fast(delta_rtt, theta_f_pkts, rto_rtt, d_rtt)
    return _Outcome(throughput, "fast-mobility", eqs[1], theta_f_pkts)


def _sack_drop_outcome(delta_rtt: float, theta_s_pkts: float, d_rtt: float) -> _Outcome:
    """SACK|drop with D <= 1/2: at most cwnd/2 packets lost, no slow start; eq. (6), SM only."""
    # Fig. 5 as read from (6): one RTT and D_Ret at Θ_s/2, then Θ_s/2 RTTs back to Θ_s.
    recovered_rtt = 1.0 + sack_retransmission_time_rtt(d_rtt, theta_s_pkts) + theta_s_pkts / 2.0
    if delta_rtt < recovered_rtt:
        raise ValueError(
            f"delta: the paper gives SACK|drop with D_FCP->BS <= 1/2 only for slow mobility "
            f"(equation (6)), which needs delta >= 1 + D_Ret + theta/2 = "
            f"{recovered_rtt:.6g} rtt, got {delta_rtt:.6g} rtt"
        )
    throughput = sack_drop_slow_mobility(delta_rtt, theta_s_pkts, d_rtt)
    return _Outcome(throughput, "slow-mobility", "6", theta_s_pkts)


def _forward_outcome(recovery: str, delta_rtt: float, theta_s_pkts: float, rto_rtt: float) -> _Outcome:
    """Equation of the forward scheme with fast forwarding, Sec. V (slow mobility only)."""
    # Fig. 5: the window sits at Θ_s/2 through fast recovery (one RTO, one RTT for Reno)
    # and needs Θ_s/2 more RTTs of congestion avoidance to reach Θ_s again.
    fr_rtt = _RENO_FAST_RECOVERY_RTT if recovery == "reno" else rto_rtt
    recovered_rtt = fr_rtt + theta_s_pkts / 2.0
    if delta_rtt < recovered_rtt:
        raise ValueError(
            f"delta: the paper gives the forward scheme only for slow mobility (equations "
            f"(7)-(9)), which for {recovery} needs delta >= {recovered_rtt:.6g} rtt, "
            f"got {delta_rtt:.6g} rtt"
        )
    if recovery == "reno":
        throughput, equation = reno_forward_slow_mobility(delta_rtt, theta_s_pkts), "8"
    elif recovery == "newreno":
        throughput, equation = newreno_forward_slow_mobility(delta_rtt, theta_s_pkts, rto_rtt), "7"
    else:
        throughput, equation = sack_forward_slow_mobility(delta_rtt, theta_s_pkts, rto_rtt), "9"
    return _Outcome(throughput, "slow-mobility", equation, theta_s_pkts)


def _forwarding_speed(recovery: str, d_forward_rtt: float | None, d_rtt: float, rto_rtt: float) -> str:
    """'fast', 'slow' or 'assumed-fast' (no forwarding delay given), per Sec. V's conditions."""
    if d_forward_rtt is None:
        return "assumed-fast"
    # Eqs. (7)-(9) hold for D_forward < D_FCP->BS + RTO; New-Reno's (7) also needs
    # D_forward < RTO, before its impatient timeout fires.
    limit_rtt = rto_rtt if recovery == "newreno" else d_rtt + rto_rtt
    return "fast" if d_forward_rtt < limit_rtt else "slow"


# --- Input checks ----------------------------------------------------------------------------


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name}: must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return number


def _positive(name: str, value: Any) -> float:
    number = _number(name, value)
    if number <= 0.0:
        raise ValueError(f"{name}: must be > 0, got {value!r}")
    return number


def _choice(name: str, value: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ValueError(f"{name}: must be one of {', '.join(choices)}, got {value!r}")
    return value


# --- Public entry points ---------------------------------------------------------------------


def predict(
    recovery: str,
    scheme: str,
    delta: float,
    delta_unit: str = "rtt",
    *,
    theta_pkts: float,
    rto_s: float,
    rtt_s: float = PAPER_RTT_S,
    d_fcp_bs_s: float = PAPER_D_FCP_BS_S,
    d_forward_s: float | None = None,
) -> dict[str, Any]:
    """Predicted throughput of one TCP connection under periodic handovers.

    Args:
        recovery: "reno", "newreno" or "sack".
        scheme: "drop" or "forward".
        delta: mean time between handovers Δ, in `delta_unit`.
        delta_unit: "rtt" (multiples of `rtt_s`) or "s".
        theta_pkts: Θ_s, mean cwnd of the same setting without handovers, packets
            (= no-handover goodput * RTT / MSS; see `inputs_from_summary`).
        rto_s: RTO of the no-handover run, seconds.
        rtt_s: mean RTT of the no-handover run, seconds; the paper's time unit.
        d_fcp_bs_s: one-way delay FCP -> old base station, seconds (paper: 25 ms).
        d_forward_s: forwarding delay old -> new base station, seconds. None assumes fast
            forwarding, as equations (7)-(9) do; a slow one uses the drop equations (Sec. V).

    Returns:
        A JSON-ready dict: `throughput_fraction` (predicted throughput / Θ_s, i.e. the share
        of the no-handover throughput kept), `throughput_pkts_per_rtt`, `regime`
        ("slow-mobility" or "fast-mobility"), `equation` (paper number), `forwarding`,
        `theta_at_handover_pkts` (Θ_s, or Θ_f from equation (1)), `inputs` as given and
        `inputs_rtt` (the same in the paper's RTT units).

    Raises:
        ValueError naming the parameter, e.g. "delta: must be > 0, got 0", also when Δ falls
        where the paper gives no equation (forward or SACK|drop in fast mobility, Θ_f < 4).
    """
    recovery = _choice("recovery", recovery, RECOVERIES)
    scheme = _choice("scheme", scheme, SCHEMES)
    delta_unit = _choice("delta_unit", delta_unit, DELTA_UNITS)
    delta = _positive("delta", delta)
    theta_given = theta_pkts
    theta_pkts = _number("theta_pkts", theta_pkts)
    if theta_pkts < MIN_THETA_PKTS:
        raise ValueError(f"theta_pkts: must be >= {MIN_THETA_PKTS:g}, got {theta_given!r}")
    rto_s = _positive("rto_s", rto_s)
    rtt_s = _positive("rtt_s", rtt_s)
    d_fcp_bs_given = d_fcp_bs_s
    d_fcp_bs_s = _number("d_fcp_bs_s", d_fcp_bs_s)
    if not 0.0 <= d_fcp_bs_s < rtt_s:
        # Dropped = D * Θ (Sec. IV) cannot exceed the window: D < 1 RTT.
        raise ValueError(
            f"d_fcp_bs_s: must be >= 0 and < rtt_s = {rtt_s:g}, got {d_fcp_bs_given!r}"
        )
    if d_forward_s is not None:
        d_forward_given = d_forward_s
        d_forward_s = _number("d_forward_s", d_forward_s)
        if d_forward_s < 0.0:
            raise ValueError(f"d_forward_s: must be >= 0, got {d_forward_given!r}")

    delta_rtt = delta if delta_unit == "rtt" else delta / rtt_s
    rto_rtt = rto_s / rtt_s
    d_rtt = d_fcp_bs_s / rtt_s
    d_forward_rtt = None if d_forward_s is None else d_forward_s / rtt_s

    forwarding = None
    if scheme == "forward":
        forwarding = _forwarding_speed(recovery, d_forward_rtt, d_rtt, rto_rtt)
    if forwarding in ("fast", "assumed-fast"):
        outcome = _forward_outcome(recovery, delta_rtt, theta_pkts, rto_rtt)
    else:
        # Sec. V: slow forwarding "has effects similar to those of the drop scheme".
        outcome = _drop_outcome(recovery, delta_rtt, theta_pkts, rto_rtt, d_rtt)

    return {
        "model": "cohen-levin",
        "throughput_fraction": float(outcome.throughput_pkts_per_rtt) / theta_pkts,
        "throughput_pkts_per_rtt": float(outcome.throughput_pkts_per_rtt),
        "regime": outcome.regime,
        "equation": outcome.equation,
        "forwarding": forwarding,
        "theta_at_handover_pkts": float(outcome.theta_at_handover_pkts),
        "inputs": {
            "recovery": recovery,
            "scheme": scheme,
            "delta": delta,
            "delta_unit": delta_unit,
            "theta_pkts": theta_pkts,
            "rto_s": rto_s,
            "rtt_s": rtt_s,
            "d_fcp_bs_s": d_fcp_bs_s,
            "d_forward_s": d_forward_s,
        },
        "inputs_rtt": {
            "delta_rtt": delta_rtt,
            "rto_rtt": rto_rtt,
            "d_fcp_bs_rtt": d_rtt,
            "d_forward_rtt": d_forward_rtt,
        },
    }


def inputs_from_summary(
    summary: dict[str, Any], flow_index: int = 0, mss_bytes: float | None = None
) -> dict[str, float]:
    """The no-handover inputs of `predict` from a hosim run summary (the JSON of ``hosim run --json``).

    Uses `summary["flows"][flow_index]`:
        goodput_bps  -> Θ_s = goodput_bps * rtt_mean_s / (8 * mss_bytes), packets: the mean
                        data in flight by Little's law, i.e. the time-average cwnd, which the
                        paper writes Θ_s = 3/4 E[CWND_i] for a Reno sawtooth
        rtt_mean_s   -> rtt_s, the paper's time unit
        rto_mean_s   -> rto_s
    and `summary["handovers"]`, which must be absent or empty: the paper takes these from a
    run of the same setting without handovers. MSS comes from `mss_bytes`, else the flow's
    `mss_bytes` field, else 1460 bytes. `retransmits` and `timeouts` are not used.

    Returns {"theta_pkts", "rtt_s", "rto_s"}, ready for `predict(**inputs, ...)`.
    """
    if not isinstance(summary, dict):
        raise ValueError(f"summary: must be a dict, got {type(summary).__name__}")
    handovers = summary.get("handovers") or []
    if handovers:
        raise ValueError(
            f"summary.handovers: must come from a run without handovers, got {len(handovers)}"
        )
    flows = summary.get("flows")
    if not isinstance(flows, list) or not flows:
        raise ValueError("summary.flows: must be a non-empty list")
    valid_index = isinstance(flow_index, int) and not isinstance(flow_index, bool)
    if not (valid_index and 0 <= flow_index < len(flows)):
        raise ValueError(
            f"flow_index: must be an integer in [0, {len(flows) - 1}], got {flow_index!r}"
        )
    flow = flows[flow_index]

    def field(name: str) -> float:
        if name not in flow:
            raise ValueError(f"flows[{flow_index}].{name}: missing")
        return _positive(f"flows[{flow_index}].{name}", flow[name])

    goodput_bps = field("goodput_bps")
    rtt_s = field("rtt_mean_s")
    rto_s = field("rto_mean_s")
    if mss_bytes is None:
        mss_bytes = flow.get("mss_bytes", DEFAULT_MSS_BYTES)
    mss_bytes = _positive("mss_bytes", mss_bytes)
    return {
        "theta_pkts": goodput_bps * rtt_s / (8.0 * mss_bytes),
        "rtt_s": rtt_s,
        "rto_s": rto_s,
    }


def no_handover_inputs_from_summaries(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's inputs from the summaries of no-handover runs (one per seed) of an fcp scenario.

    Every flow of every run gives Θ_s, RTT and RTO (`inputs_from_summary`); the inputs are the
    means over flows and runs. Also returns `fraction`, the mean no-handover goodput over the
    flow's available bandwidth (the flows' `throughput_fraction`), by which the model's fraction
    of Θ_s is multiplied to compare with Fig. 6 and 7, the two topology delays of the last run's
    `fcp` report (`d_fcp_bs_s`, `d_forward_s`), its `available_bps`, `flows` per run and `seeds`.
    """
    if not summaries:
        raise ValueError("summaries: need at least one run")
    per_flow, fractions = [], []
    report: dict[str, Any] = {}
    for summary in summaries:
        report = summary.get("fcp") or {}
        for i, flow in enumerate(summary.get("flows") or []):
            per_flow.append(inputs_from_summary(summary, i))
            fractions.append(flow.get("throughput_fraction", float("nan")))
    if not per_flow:
        raise ValueError("summaries: the runs have no flows")

    def mean(values: list[float]) -> float:
        return math.fsum(values) / len(values)

    return {
        "theta_pkts": mean([p["theta_pkts"] for p in per_flow]),
        "rtt_s": mean([p["rtt_s"] for p in per_flow]),
        "rto_s": mean([p["rto_s"] for p in per_flow]),
        "fraction": mean(fractions),
        "d_fcp_bs_s": report.get("fcp_bs_delay_s", PAPER_D_FCP_BS_S),
        "d_forward_s": report.get("forward_delay_s"),
        "available_bps": report.get("available_bps"),
        "flows": len(per_flow) // len(summaries),
        "seeds": len(summaries),
    }


# --- CLI -------------------------------------------------------------------------------------

_OPTION_OF = {
    "recovery": "--recovery",
    "scheme": "--scheme",
    "delta": "--delta",
    "delta_unit": "--delta-unit",
    "theta_pkts": "--theta-pkts",
    "rto_s": "--rto-s",
    "rtt_s": "--rtt-s",
    "d_fcp_bs_s": "--d-fcp-bs-s",
    "d_forward_s": "--d-forward-s",
}


@click.command("cohen-levin", short_help="Drop/forward handover throughput prediction, eqs. (1)-(9).")
@click.option("--recovery", required=True, type=click.Choice(RECOVERIES), help="TCP loss recovery.")
@click.option("--scheme", required=True, type=click.Choice(SCHEMES), help="Handover scheme.")
@click.option(
    "--delta", required=True, type=float, help="Mean time between handovers Δ, in --delta-unit."
)
@click.option(
    "--delta-unit", type=click.Choice(DELTA_UNITS), default="rtt", show_default=True,
    help="Unit of --delta: rtt (multiples of --rtt-s) or s (seconds).",
)
@click.option(
    "--theta-pkts", type=float, default=None,
    help="Θ_s: mean cwnd of the same setting without handovers, packets "
    "(= no-handover goodput_bps * rtt_mean_s / (8 * MSS)). At least 4. "
    "Required unless --from-sim gives it.",
)
@click.option(
    "--rto-s", type=float, default=None,
    help="RTO of the no-handover run, seconds. Required unless --from-sim gives it.",
)
@click.option(
    "--rtt-s", type=float, default=None, show_default=f"{PAPER_RTT_S:g}, or the no-handover run's mean RTT",
    help="Mean RTT of the no-handover run, seconds (paper: 80 ms propagation RTT).",
)
@click.option(
    "--d-fcp-bs-s", type=float, default=None, show_default=f"{PAPER_D_FCP_BS_S:g}, or the scenario's",
    help="One-way delay from the first common parent (FCP) to the old base station, seconds "
    "(paper: 25 ms).",
)
@click.option(
    "--d-forward-s", type=float, default=None,
    help="Forwarding delay old -> new base station, seconds. Default: assume fast forwarding "
    "(with --from-sim: the scenario's fcp.forward_delay_s).",
)
@click.option(
    "--from-sim", "from_sim", metavar="SCENARIO", default=None,
    help="Take Θ_s, RTO and RTT from runs of this fcp scenario (preset name or TOML file) "
    "with fcp.handovers = false and tcp.recovery = --recovery, as the paper does; also the "
    "two delays, unless given.",
)
@click.option(
    "--set", "sets", multiple=True, metavar="KEY=VALUE",
    help="Override for the --from-sim runs (e.g. fcp.backbone_bps=1e9). Repeatable.",
)
@click.option(
    "--seeds", type=click.IntRange(min=1), default=1, show_default=True,
    help="Seeds of the --from-sim runs; inputs are averaged over flows and seeds.",
)
def cli(recovery: str, scheme: str, delta: float, delta_unit: str, theta_pkts: float | None, rto_s: float | None,
        rtt_s: float | None, d_fcp_bs_s: float | None, d_forward_s: float | None, from_sim: str | None,
        sets: tuple[str, ...], seeds: int) -> None:
    """Cohen & Levin prediction of TCP throughput across drop/forward handovers.

    Prints one JSON object: the throughput fraction of the no-handover throughput and
    every input used. With --from-sim, Θ_s, RTO and RTT come from a simulation of the same
    setting without handovers, the object also has `from_sim` (what was run and the
    no-handover throughput fraction) and `throughput_fraction_of_available` (the prediction
    as a fraction of the flow's available bandwidth, the y axis of the paper's Fig. 6 and 7).
    """
    sim = None
    if from_sim is not None:
        sim = _no_handover_inputs(from_sim, sets, seeds, recovery)
        theta_pkts = sim["theta_pkts"] if theta_pkts is None else theta_pkts
        rto_s = sim["rto_s"] if rto_s is None else rto_s
        rtt_s = sim["rtt_s"] if rtt_s is None else rtt_s
        d_fcp_bs_s = sim["d_fcp_bs_s"] if d_fcp_bs_s is None else d_fcp_bs_s
        if d_forward_s is None:
            d_forward_s = sim["d_forward_s"]
    for name, value in (("--theta-pkts", theta_pkts), ("--rto-s", rto_s)):
        if value is None:
            raise click.UsageError(f"Missing option '{name}' (or give --from-sim SCENARIO).")
    assert theta_pkts is not None and rto_s is not None  # checked just above
    rtt_s = PAPER_RTT_S if rtt_s is None else rtt_s
    d_fcp_bs_s = PAPER_D_FCP_BS_S if d_fcp_bs_s is None else d_fcp_bs_s
    try:
        result = predict(
            recovery, scheme, delta, delta_unit,
            theta_pkts=theta_pkts, rto_s=rto_s, rtt_s=rtt_s,
            d_fcp_bs_s=d_fcp_bs_s, d_forward_s=d_forward_s,
        )
    except ValueError as error:
        name, _, reason = str(error).partition(": ")
        raise click.BadParameter(reason, param_hint=f"'{_OPTION_OF.get(name, name)}'") from None
    if sim is not None:
        result["from_sim"] = {"scenario": from_sim, "set": list(sets), **sim}
        result["throughput_fraction_of_available"] = result["throughput_fraction"] * sim["fraction"]
    click.echo(json.dumps(result))


def _no_handover_inputs(scenario: str, sets: Sequence[str], seeds: int, recovery: str) -> dict[str, Any]:
    """Runs `scenario` without handovers, seeds 1..`seeds`, through the result cache, with the
    flows' loss recovery set to `recovery` unless a --set gives tcp.recovery."""
    from hosim.runner import Runner, make_task
    from hosim.scenario import parse_toml_value

    overrides = {}
    for item in sets:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="'--set'")
        overrides[key] = parse_toml_value(raw)
    overrides.setdefault("tcp.recovery", recovery)
    overrides["fcp.handovers"] = False
    try:
        tasks = [make_task(scenario, seed, overrides) for seed in range(1, seeds + 1)]
        return no_handover_inputs_from_summaries(Runner.from_options(jobs=1).summaries(tasks))
    except ValueError as error:  # ScenarioError is a ValueError
        raise click.BadParameter(str(error), param_hint="'--from-sim'") from None

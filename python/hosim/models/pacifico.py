"""Data delivered by TCP Reno across an intra-LTE handover with X2 data forwarding.

Analytical model of Section IV of

    D. Pacifico, M. Pacifico, C. Fischione, H. Hjalmarsson, K. H. Johansson,
    "Improving TCP Performance During the Intra LTE Handover", IEEE GLOBECOM 2009.

The sender is in steady-state congestion avoidance: its window climbs by one segment per
RTT from SSthresh = cwnd_MAX / 2 to cwnd_MAX. The handover starts when the window is
cwnd_HO. The model counts the segments sent over that climb in three cases:

- ideal (eq. 1): the handover is invisible to TCP;
- window halving (eq. 2): a loss at the handover halves the window to cwnd_HO / 2;
- timeout (eq. 3-5): a spurious RTO drops the window to 1 segment, slow start lasts k RTTs.

Amounts are in packets (segments); multiply by the packet size for bytes. Each amount is
weighted by the probability of its case (f_D_I, f_D_WH, f_D_SS in the paper); with the default
weight 1 a function returns the amount delivered *given* that case. Fig. 4 normalises
eq. (2) and (3) by eq. (1) with equal weights. docs/models/pacifico.md lists the ambiguities of
the paper and the reading chosen here.
"""

from __future__ import annotations

import json
import math
from typing import Any

import click
import numpy as np
import pandas as pd

PAPER = "Pacifico et al., Improving TCP Performance During the Intra LTE Handover, GLOBECOM 2009"

# Values the paper gives (Tables I and II, Section IV). The paper sets the three case
# probabilities equal for Fig. 4; as probabilities of three exhaustive cases they are 1/3 each.
PAPER_DEFAULTS: dict[str, Any] = {
    "cwnd_max_pkts": 44.0,  # Table II: cwnd_MAX = 44 packets ~ 64 KB
    "packet_size_bytes": 1500,  # Table I: IP packet size
    "f_ideal": 1.0 / 3.0,  # Section IV, Fig. 4: f_D_I = f_D_WH = f_D_SS
    "f_window_halving": 1.0 / 3.0,
    "f_timeout": 1.0 / 3.0,
    "handover_at": "max",  # Fig. 3 and the continuous lines of Fig. 4: cwnd_HO = cwnd_MAX
    "fig4_handover_at": ("max", "middle"),  # the two handover situations of Fig. 4
    # The x-axis range of Fig. 4 is not stated in the text. This grid brackets Table II's 44 and
    # starts at 12 because for some cwnd_MAX <= 10 eq. (3) exceeds eq. (2) (see the model page).
    "fig4_cwnd_max_pkts": tuple(float(w) for w in range(12, 101, 2)),
}

HANDOVER_POINTS = ("max", "middle")


def _check_finite(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name}: must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return value


def _check_at_least(name: str, value: float, minimum: float) -> float:
    value = _check_finite(name, value)
    if value < minimum:
        raise ValueError(f"{name}: must be >= {minimum:g}, got {value:g}")
    return value


def _check_probability(name: str, value: float) -> float:
    value = _check_finite(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name}: must be in [0, 1], got {value:g}")
    return value


def _check_cwnd_max(cwnd_max_pkts: float) -> float:
    # SSthresh = cwnd_MAX / 2 must be at least one segment.
    return _check_at_least("cwnd_max_pkts", cwnd_max_pkts, 2.0)


def _check_cwnd_ho(cwnd_ho_pkts: float, cwnd_max_pkts: float) -> float:
    """cwnd_HO lies in [SSthresh, cwnd_MAX] (text after eq. 2; closed form of eq. 4)."""
    value = _check_finite("cwnd_ho_pkts", cwnd_ho_pkts)
    low, high = cwnd_max_pkts / 2.0, cwnd_max_pkts
    if not low <= value <= high:
        raise ValueError(
            f"cwnd_ho_pkts: must be in [cwnd_max_pkts/2, cwnd_max_pkts] = [{low:g}, {high:g}], "
            f"got {value:g}"
        )
    return value


def ssthresh_pkts(cwnd_max_pkts: float) -> float:
    """Steady-state slow-start threshold SSthresh = cwnd_MAX / 2 (text after eq. 1), packets."""
    return _check_cwnd_max(cwnd_max_pkts) / 2.0


def interval_rtts(cwnd_max_pkts: float) -> float:
    """RTTs between RTT_1 and RTT_2 (the sum range of eq. 1): cwnd_MAX/2 + 1."""
    return ssthresh_pkts(cwnd_max_pkts) + 1.0


def ideal_data_pkts(cwnd_max_pkts: float, f_ideal: float = 1.0) -> float:
    """Eq. (1): D_I, packets sent while cwnd climbs from SSthresh to cwnd_MAX.

    D_I = sum_{i=SSthresh}^{cwnd_MAX} i * f_D_I = 3/2 * cwnd_MAX/2 * (cwnd_MAX/2 + 1) * f_D_I.

    The paper's closed form is used; it equals the integer sum when cwnd_MAX is even.
    ``f_ideal`` is f_D_I, the probability of the ideal case (1 = amount given the case).
    """
    half = ssthresh_pkts(cwnd_max_pkts)
    f_ideal = _check_probability("f_ideal", f_ideal)
    return 1.5 * half * (half + 1.0) * f_ideal


def window_halving_unsent_pkts(cwnd_max_pkts: float, cwnd_ho_pkts: float) -> float:
    """Unsent_WH of eq. (2): (cwnd_HO - SSthresh_HO) per RTT over cwnd_MAX - cwnd_HO + 1 RTTs.

    Unsent_WH = cwnd_HO/2 * (cwnd_MAX - cwnd_HO + 1), packets, with SSthresh_HO = cwnd_HO/2.
    """
    cwnd_max_pkts = _check_cwnd_max(cwnd_max_pkts)
    cwnd_ho_pkts = _check_cwnd_ho(cwnd_ho_pkts, cwnd_max_pkts)
    return cwnd_ho_pkts / 2.0 * (cwnd_max_pkts - cwnd_ho_pkts + 1.0)


def window_halving_data_pkts(
    cwnd_max_pkts: float, cwnd_ho_pkts: float, f_window_halving: float = 1.0
) -> float:
    """Eq. (2): D_WH = [D_I - cwnd_HO/2 * (cwnd_MAX - cwnd_HO + 1)] * f_D_WH, packets.

    The window halves to SSthresh_HO = cwnd_HO/2 at the handover and then climbs linearly.
    D_I inside the bracket is eq. (1) with f_D_I = 1. ``f_window_halving`` is f_D_WH.
    """
    unsent = window_halving_unsent_pkts(cwnd_max_pkts, cwnd_ho_pkts)
    f_window_halving = _check_probability("f_window_halving", f_window_halving)
    return (ideal_data_pkts(cwnd_max_pkts) - unsent) * f_window_halving


def ssthresh_ho_interval_pkts(cwnd_max_pkts: float) -> tuple[float, float]:
    """Eq. (4): SSthresh_HO lies in (SSthresh/2, SSthresh); returns the bounds, packets."""
    ssthresh = ssthresh_pkts(cwnd_max_pkts)
    return ssthresh / 2.0, ssthresh


def slow_start_rtts(ssthresh_ho_pkts: float) -> int:
    """Eq. (5): k = ceil(log2 SSthresh_HO) + 1, the RTTs of slow start after the timeout."""
    ssthresh_ho_pkts = _check_at_least("ssthresh_ho_pkts", ssthresh_ho_pkts, 1.0)
    # frexp is exact: ssthresh = m * 2**e with 0.5 <= m < 1, so ceil(log2) = e - (m == 0.5).
    mantissa, exponent = math.frexp(ssthresh_ho_pkts)
    return exponent - (1 if mantissa == 0.5 else 0) + 1


def slow_start_unsent_pkts(cwnd_max_pkts: float, cwnd_ho_pkts: float) -> float:
    """Unsent_SS of eq. (3), packets.

    Unsent_SS = k * (cwnd_MAX - cwnd_HO + 1) + sum_{i=0}^{k-1} (cwnd_HO/2 - k + i - 2**i):
    the congestion-avoidance line lags the window-halving line by k RTTs, and during the
    k RTTs of slow start the window is 2**i instead of that lagged line.
    """
    cwnd_max_pkts = _check_cwnd_max(cwnd_max_pkts)
    cwnd_ho_pkts = _check_cwnd_ho(cwnd_ho_pkts, cwnd_max_pkts)
    cwnd_ho_pkts = _check_at_least("cwnd_ho_pkts", cwnd_ho_pkts, 2.0)
    k = slow_start_rtts(cwnd_ho_pkts / 2.0)
    i = np.arange(k, dtype=float)
    slow_start_gap = float(np.sum(cwnd_ho_pkts / 2.0 - k + i - 2.0**i))
    return k * (cwnd_max_pkts - cwnd_ho_pkts + 1.0) + slow_start_gap


def timeout_data_pkts(cwnd_max_pkts: float, cwnd_ho_pkts: float, f_timeout: float = 1.0) -> float:
    """Eq. (3): D_SS = [D_WH - Unsent_SS] * f_D_SS, packets.

    D_SS = [D_WH - k (cwnd_MAX - cwnd_HO + 1) - sum_{i=0}^{k-1} (cwnd_HO/2 - k + i - 2**i)] f_D_SS
    with k from eq. (5) at SSthresh_HO = cwnd_HO/2, and D_WH from eq. (2) with f_D_WH = 1.
    ``f_timeout`` is f_D_SS. Needs cwnd_HO >= 2 so that SSthresh_HO >= 1 segment.
    """
    unsent_ss = slow_start_unsent_pkts(cwnd_max_pkts, cwnd_ho_pkts)
    f_timeout = _check_probability("f_timeout", f_timeout)
    return (window_halving_data_pkts(cwnd_max_pkts, cwnd_ho_pkts) - unsent_ss) * f_timeout


def cwnd_at_handover_pkts(cwnd_max_pkts: float, handover_at: str) -> float:
    """cwnd_HO of the two handover situations of Fig. 4, packets.

    ``"max"``: cwnd_HO = cwnd_MAX (continuous lines); ``"middle"``: the middle of
    (SSthresh, cwnd_MAX), i.e. cwnd_HO = 3/4 cwnd_MAX (circled and crossed lines).
    """
    cwnd_max_pkts = _check_cwnd_max(cwnd_max_pkts)
    if handover_at == "max":
        return cwnd_max_pkts
    if handover_at == "middle":
        return 0.75 * cwnd_max_pkts
    choices = ", ".join(HANDOVER_POINTS)
    raise ValueError(f"handover_at: must be one of {choices}, got {handover_at!r}")


def handover_outcomes(
    cwnd_max_pkts: float,
    cwnd_ho_pkts: float,
    f_ideal: float = PAPER_DEFAULTS["f_ideal"],
    f_window_halving: float = PAPER_DEFAULTS["f_window_halving"],
    f_timeout: float = PAPER_DEFAULTS["f_timeout"],
    packet_size_bytes: float = PAPER_DEFAULTS["packet_size_bytes"],
) -> dict[str, Any]:
    """All quantities of eq. (1)-(5) for one handover, as a JSON-ready dict.

    Per case: the amount given the case (``data_pkts``, ``data_bytes``), the amount normalised
    by eq. (1) as in Fig. 4 (``normalized``), and the probability-weighted amount
    (``weighted_data_pkts``, the paper's D_x). ``expected_data_pkts`` is the sum of the
    weighted amounts, so the probabilities must sum to 1.
    """
    probs = {
        "f_ideal": _check_probability("f_ideal", f_ideal),
        "f_window_halving": _check_probability("f_window_halving", f_window_halving),
        "f_timeout": _check_probability("f_timeout", f_timeout),
    }
    total = sum(probs.values())
    if not math.isclose(total, 1.0, abs_tol=1e-6):
        raise ValueError(f"f_ideal + f_window_halving + f_timeout: must sum to 1, got {total:g}")
    packet_size_bytes = _check_finite("packet_size_bytes", packet_size_bytes)
    if packet_size_bytes <= 0:
        raise ValueError(f"packet_size_bytes: must be > 0, got {packet_size_bytes:g}")

    ideal = ideal_data_pkts(cwnd_max_pkts)
    amounts = {
        "ideal": ideal,
        "window_halving": window_halving_data_pkts(cwnd_max_pkts, cwnd_ho_pkts),
        "timeout": timeout_data_pkts(cwnd_max_pkts, cwnd_ho_pkts),
    }
    weights = dict(zip(amounts, probs.values()))
    cases = {
        name: {
            "probability": weights[name],
            "data_pkts": amount,
            "data_bytes": amount * packet_size_bytes,
            "normalized": amount / ideal,
            "weighted_data_pkts": amount * weights[name],
        }
        for name, amount in amounts.items()
    }
    unsent_wh = window_halving_unsent_pkts(cwnd_max_pkts, cwnd_ho_pkts)
    cases["window_halving"]["unsent_pkts"] = unsent_wh
    cases["timeout"]["unsent_pkts"] = unsent_wh + slow_start_unsent_pkts(
        cwnd_max_pkts, cwnd_ho_pkts
    )
    expected = sum(case["weighted_data_pkts"] for case in cases.values())
    low, high = ssthresh_ho_interval_pkts(cwnd_max_pkts)
    return {
        "ssthresh_pkts": ssthresh_pkts(cwnd_max_pkts),
        "interval_rtts": interval_rtts(cwnd_max_pkts),
        "ssthresh_ho_pkts": cwnd_ho_pkts / 2.0,
        "ssthresh_ho_interval_pkts": [low, high],
        "slow_start_rtts": slow_start_rtts(cwnd_ho_pkts / 2.0),
        "cases": cases,
        "expected_data_pkts": expected,
        "expected_data_bytes": expected * packet_size_bytes,
        "expected_normalized": expected / ideal,
    }


def fig4_curves(
    cwnd_max_pkts: Any = None,
    handover_at: Any = PAPER_DEFAULTS["fig4_handover_at"],
) -> pd.DataFrame:
    """Data of Fig. 4: eq. (2) and (3) normalised by eq. (1) with f_D_I = f_D_WH = f_D_SS.

    One row per (handover_at, cwnd_max_pkts). ``window_halving_norm`` and ``timeout_norm`` are
    D_WH / D_I and D_SS / D_I; ``mean_norm`` is their mean (the two non-ideal cases equally
    likely). For ``handover_at="max"`` these are the continuous lines of Fig. 4; for
    ``"middle"`` the crossed (upper, window halving) and circled (lower, timeout) lines.
    """
    if cwnd_max_pkts is None:
        cwnd_max_pkts = PAPER_DEFAULTS["fig4_cwnd_max_pkts"]
    try:
        grid = np.atleast_1d(np.asarray(cwnd_max_pkts, dtype=float))
    except (TypeError, ValueError):
        raise ValueError(f"cwnd_max_pkts: must be numbers, got {cwnd_max_pkts!r}") from None
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"cwnd_max_pkts: must be a non-empty 1-D sequence, got shape {grid.shape}")
    if not np.all(np.isfinite(grid)) or grid.min() < 4.0:
        raise ValueError(
            "cwnd_max_pkts: every value must be finite and >= 4 (cwnd_HO >= 2 at both handover "
            f"points), got min {grid.min():g}"
        )
    points = (handover_at,) if isinstance(handover_at, str) else tuple(handover_at)
    if not points:
        raise ValueError("handover_at: must name at least one of max, middle, got none")

    rows = []
    for point in points:
        for cwnd_max in grid:
            cwnd_ho = cwnd_at_handover_pkts(cwnd_max, point)
            ideal = ideal_data_pkts(cwnd_max)
            halving = window_halving_data_pkts(cwnd_max, cwnd_ho)
            timeout = timeout_data_pkts(cwnd_max, cwnd_ho)
            rows.append(
                {
                    "handover_at": point,
                    "cwnd_max_pkts": float(cwnd_max),
                    "cwnd_ho_pkts": cwnd_ho,
                    "ssthresh_ho_pkts": cwnd_ho / 2.0,
                    "slow_start_rtts": slow_start_rtts(cwnd_ho / 2.0),
                    "ideal_pkts": ideal,
                    "window_halving_pkts": halving,
                    "timeout_pkts": timeout,
                    "window_halving_norm": halving / ideal,
                    "timeout_norm": timeout / ideal,
                    "mean_norm": (halving + timeout) / (2.0 * ideal),
                }
            )
    return pd.DataFrame(rows)


_UNITS_HELP = {
    "cwnd_max": "Steady-state maximum window cwnd_MAX, packets (segments); paper Table II: 44.",
    "cwnd_ho": "Window at handover start cwnd_HO, packets, in [cwnd_MAX/2, cwnd_MAX]; "
    "overrides --handover-at.",
    "handover_at": "Where cwnd_HO sits if --cwnd-ho-pkts is not given: max (cwnd_HO = cwnd_MAX, "
    "default) or middle (cwnd_HO = 3/4 cwnd_MAX); dimensionless choice.",
    "f_ideal": "Probability f_D_I of the ideal case, dimensionless in [0, 1]; paper Fig. 4: 1/3.",
    "f_wh": "Probability f_D_WH of the window-halving case, dimensionless in [0, 1]; "
    "paper Fig. 4: 1/3.",
    "f_to": "Probability f_D_SS of the timeout case, dimensionless in [0, 1]; paper Fig. 4: 1/3.",
    "packet_size": "Packet (segment) size, bytes, to convert packets to bytes; "
    "paper Table I: 1500.",
    "fig4": "Also print the Fig. 4 curve points (normalised eq. 2 and 3 over the default "
    "cwnd_MAX grid, packets).",
}


@click.command("pacifico", short_help="LTE X2 handover model: data delivered per outcome, eqs. (1)-(5), Fig. 4.")
@click.option("--cwnd-max-pkts", type=float, default=PAPER_DEFAULTS["cwnd_max_pkts"],
              show_default=True, help=_UNITS_HELP["cwnd_max"])
@click.option("--cwnd-ho-pkts", type=float, default=None, help=_UNITS_HELP["cwnd_ho"])
@click.option("--handover-at", type=click.Choice(HANDOVER_POINTS), default=None,
              help=_UNITS_HELP["handover_at"])
@click.option("--f-ideal", type=float, default=PAPER_DEFAULTS["f_ideal"], show_default=True,
              help=_UNITS_HELP["f_ideal"])
@click.option("--f-window-halving", type=float, default=PAPER_DEFAULTS["f_window_halving"],
              show_default=True, help=_UNITS_HELP["f_wh"])
@click.option("--f-timeout", type=float, default=PAPER_DEFAULTS["f_timeout"], show_default=True,
              help=_UNITS_HELP["f_to"])
@click.option("--packet-size-bytes", type=int, default=PAPER_DEFAULTS["packet_size_bytes"],
              show_default=True, help=_UNITS_HELP["packet_size"])
@click.option("--fig4", is_flag=True, default=False, help=_UNITS_HELP["fig4"])
def cli(
    cwnd_max_pkts: float,
    cwnd_ho_pkts: float | None,
    handover_at: str | None,
    f_ideal: float,
    f_window_halving: float,
    f_timeout: float,
    packet_size_bytes: int,
    fig4: bool,
) -> None:
    """Pacifico et al. (GLOBECOM 2009) eq. (1)-(5): TCP data delivered across an LTE handover.

    Prints one JSON object: the inputs used and, per case (ideal, window halving, timeout),
    the packets delivered while cwnd climbs from cwnd_MAX/2 to cwnd_MAX.
    """
    if cwnd_ho_pkts is not None and handover_at is not None:
        raise click.BadParameter(
            "give either --cwnd-ho-pkts or --handover-at, not both", param_hint="'--handover-at'"
        )
    if cwnd_ho_pkts is None:
        handover_at = handover_at or PAPER_DEFAULTS["handover_at"]
        cwnd_ho_pkts = cwnd_at_handover_pkts(cwnd_max_pkts, handover_at)
    outputs = handover_outcomes(
        cwnd_max_pkts, cwnd_ho_pkts, f_ideal, f_window_halving, f_timeout, packet_size_bytes
    )
    report: dict[str, Any] = {
        "model": "pacifico",
        "paper": PAPER,
        "inputs": {
            "cwnd_max_pkts": cwnd_max_pkts,
            "cwnd_ho_pkts": cwnd_ho_pkts,
            "handover_at": handover_at,
            "f_ideal": f_ideal,
            "f_window_halving": f_window_halving,
            "f_timeout": f_timeout,
            "packet_size_bytes": packet_size_bytes,
        },
        "outputs": outputs,
    }
    if fig4:
        report["fig4"] = fig4_curves().to_dict(orient="records")
    click.echo(json.dumps(report, allow_nan=False, default=_json_scalar))


def _json_scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")

"""Confidence intervals for results over seeds: Student's t for means, Wilson's score interval
for shares of outcomes (a share of n runs, such as the handovers that ended in a timeout).

Standard library only (``hosim sweep`` prints them without pandas).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["ci95_half_width", "t975", "wilson95"]

#: Two-sided 95 % quantiles of Student's t distribution, t(0.975; df) for df = 1..30 (the
#: standard table; e.g. 2.093 for the 19 degrees of freedom of 20 seeds).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """t(0.975; df): the table up to 30 degrees of freedom, beyond it the normal quantile with
    the first two Cornish-Fisher terms (within 0.001 of the exact value for df > 30)."""
    if df < 1:
        raise ValueError("a confidence interval needs at least two samples")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def ci95_half_width(values: Sequence[float]) -> float:
    """Half-width of the 95 % confidence interval of the mean of independent samples (Student
    t with n - 1 degrees of freedom); 0 for fewer than two samples."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return t975(n - 1) * sd / math.sqrt(n)


#: The normal quantile z(0.975) of a two-sided 95 % interval.
Z975 = 1.959964


def wilson95(successes: int, trials: int) -> tuple[float, float]:
    """Wilson's score interval (95 %) of a share ``successes / trials``: unlike the normal
    approximation it stays within [0, 1] and is not empty at 0 or ``trials`` successes (E. B.
    Wilson, "Probable Inference, the Law of Succession, and Statistical Inference", 1927).
    ``(nan, nan)`` for no trials."""
    if trials <= 0:
        return math.nan, math.nan
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within 0..{trials}, got {successes}")
    p = successes / trials
    z2 = Z975 * Z975
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z975 / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At 0 and at all successes the bound is exactly 0 (1); rounding would leave 1e-17 there.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high

"""hosim.stats: Student t intervals for means, Wilson score intervals for shares."""

from __future__ import annotations

import math

import pytest

from hosim.stats import ci95_half_width, t975, wilson95


def test_wilson_interval_matches_the_textbook_values_and_stays_within_0_and_1():
    assert wilson95(4, 5) == pytest.approx((0.3755, 0.9638), abs=1e-4)
    low, high = wilson95(0, 5)
    assert low == 0.0 and high == pytest.approx(0.4345, abs=1e-4)  # not empty at 0 of N
    low, high = wilson95(5, 5)
    assert high == 1.0 and low == pytest.approx(0.5655, abs=1e-4)
    assert wilson95(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert all(math.isnan(x) for x in wilson95(0, 0))
    with pytest.raises(ValueError):
        wilson95(6, 5)


def test_the_t_interval_is_t_times_the_standard_error():
    values = [1.0, 2.0, 3.0, 4.0]
    sd = math.sqrt(sum((v - 2.5) ** 2 for v in values) / 3)
    assert ci95_half_width(values) == pytest.approx(t975(3) * sd / 2)

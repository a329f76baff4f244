"""The LTE X2 reproduction driver: its statistics and a smoke run of each experiment."""

from __future__ import annotations

import math

import pytest

from hosim.reproduce import lte_x2


def test_wilson_interval_brackets_the_share():
    lo, hi = lte_x2.wilson_interval(12, 50)
    assert lo < 12 / 50 < hi
    assert lte_x2.wilson_interval(0, 50)[0] == 0.0
    assert math.isclose(sum(lte_x2.wilson_interval(25, 50)), 1.0)


def test_fisher_one_sided_is_small_only_for_a_clear_difference():
    assert lte_x2.fisher_one_sided(20, 50, 2, 50) < 1e-4
    assert lte_x2.fisher_one_sided(5, 50, 5, 50) > 0.5
    assert lte_x2.fisher_one_sided(2, 50, 20, 50) > 0.99


@pytest.mark.native
def test_outcome_runs_classify_every_handover():
    rows = lte_x2.outcome_runs([1, 2], target_ues=[2])
    assert {r["variant"] for r in rows} == set(lte_x2.VARIANTS)
    assert all(r["outcome"] in lte_x2.OUTCOMES for r in rows)
    assert all(r["forwarded_packets"] == 0 for r in rows if r["variant"] == "predicted")
    probs = lte_x2.outcome_probabilities(rows)
    for cells in probs.values():
        assert math.isclose(sum(cells[2][o][0] for o in lte_x2.OUTCOMES), 1.0)


@pytest.mark.native
def test_drop_rates_cover_both_router_queues():
    rates = lte_x2.drop_rates([1])
    assert set(rates) == set(lte_x2.QUEUE_VARIANTS)
    assert rates["red-mark"]["router->tenb"]["mark_mean"] > 0
    assert rates["droptail"]["router->tenb"]["mark_mean"] == 0


@pytest.mark.native
def test_experiments_run_through_the_runner_and_its_cache(tmp_path):
    from conftest import CountingExecutor
    from hosim.runner import ResultCache, Runner

    cache = ResultCache(tmp_path)
    first, second = Runner(CountingExecutor(), cache), Runner(CountingExecutor(), cache)
    rows = lte_x2.outcome_runs([1], target_ues=[2], runner=first)
    assert len(first.executor.ran) == len(lte_x2.VARIANTS) == len(rows)
    assert lte_x2.outcome_runs([1], target_ues=[2], runner=second) == rows
    assert second.executor.ran == []

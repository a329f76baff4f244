"""The window adaptation proxy in a whole run, checked against the analytical laws of
hosim.models.hsdpa (eq. 18), and the reproduction driver's pieces."""

from __future__ import annotations

import numpy as np
import pytest

import hosim
from hosim.models.hsdpa import proxy_send_window_pkts

MSS = 1460
PKT_BITS = 1500 * 8


def step_value(frame, times_ns):
    """Value of a step-function trace (time_s, value) just after each of ``times_ns``
    (integer nanoseconds, so that equal instants compare equal)."""
    trace_ns = np.round(frame["time_s"].to_numpy() * 1e9).astype(np.int64)
    idx = np.searchsorted(trace_ns, times_ns, side="right") - 1
    values = frame.iloc[:, 2].to_numpy()
    return np.where(idx >= 0, values[np.clip(idx, 0, None)], np.nan)


@pytest.mark.native
@pytest.mark.parametrize("period_s", [0.2, 0.02])
def test_proxy_window_trace_follows_eq_18_of_the_reported_rate_and_queue(period_s):
    tau, q0 = 0.01, 15.0  # the step follows the sample by the 2 ms feedback delay
    r = hosim.run(
        "hsdpa",
        seed=3,
        overrides={"hsdpa.bandwidth": "random", "hsdpa.period_s": period_s, "hsdpa.proxy": True, "duration_s": 20},
    )
    samples = np.arange(1, 1999, dtype=np.int64) * 10_000_000
    rate = step_value(r.traces["rate"], samples)
    queue = step_value(r.traces["queue"][r.traces["queue"]["queue"] == "downlink"], samples)
    queue = np.nan_to_num(queue, nan=0.0)
    expected = proxy_send_window_pkts(
        rate / PKT_BITS, queue, queue_ref_pkts=q0, sample_interval_s=tau, clamp_at_zero=True
    )
    cwnd = r.traces["cwnd"][r.traces["cwnd"]["flow"] == "proxy-ue"]
    got = step_value(cwnd, samples + 2_000_000) / MSS
    mismatch = np.abs(got - np.round(expected * MSS) / MSS) > 1e-9
    # A queue change at the very instant of a sample may be ordered either side of it.
    assert mismatch.mean() < 0.01, f"{mismatch.sum()} of {len(samples)} steps differ"


@pytest.mark.native
def test_rate_trace_is_a_table_of_the_result():
    r = hosim.run("hsdpa", overrides={"duration_s": 30})
    rate = r.traces["rate"]
    assert list(rate.columns[:3]) == ["time_s", "queue", "rate_bps"]
    assert rate["time_s"].tolist() == [0.0, 10.0, 20.0, 30.0]
    assert rate["rate_bps"].tolist() == [384e3, 38.4e3, 384e3, 38.4e3]


@pytest.mark.native
def test_bad_hsdpa_key_is_a_scenario_error_naming_it():
    with pytest.raises(hosim.ScenarioError, match="hsdpa.trace_file"):
        hosim.run("hsdpa", overrides={"hsdpa.bandwidth": "trace", "hsdpa.trace_file": "/no/such.mahi"})


@pytest.mark.native
def test_reproduction_table_has_proxy_above_90_percent():
    from hosim.reproduce import hsdpa

    rows = hsdpa.table1(seeds=(1,))
    assert [row["T_s"] for row in rows] == [2.0, 0.2, 0.02]
    assert all(row["proxy_utilization"] >= 0.9 for row in rows)

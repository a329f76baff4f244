"""hosim.reproduce.vertical: the per-interval means, the claim verdicts, the registration."""

from __future__ import annotations

import click
import pytest

from hosim.reproduce import REPRODUCTIONS, vertical


def _summary(jitter: list[float | None], handoffs: list[float]) -> dict:
    n = len(jitter)
    series = {"bin_s": 1.0, "pkts": [1] * n, "jitter_mean_s": jitter, "delay_mean_s": [0.01] * n,
              "rtt_mean_s": [0.03] * n, "queue_mean_pkts": [2.0] * n, "cwnd_mean_bytes": [1e4] * n,
              "rx_bps": [1e6] * n}
    flow = {"goodput_bps": 1e6, "retransmits": 0, "timeouts": 0, "spurious_timeouts": 0,
            "fast_recoveries": 0, "rtt_mean_s": 0.03}
    return {"vertical": {"series": series, "jitter_mean_s": 0.002, "suppressed_dupacks": 0,
                         "zero_window_probes": 0, "persist_s": 0.5, "app_refused_bytes": 7},
            "handovers": [{"start_s": t} for t in handoffs], "flows": [flow], "queues": [{"dropped": 3}]}


def test_after_handoff_means_take_the_bins_within_the_window_after_each_handoff():
    # Bins of 1 s; handoff at 3 s; the 2 s window holds bins 3 and 4.
    r = vertical.reduce_run(_summary([1.0, 1.0, 1.0, 5.0, 7.0, None, 1.0], [3.0]))
    assert r["jitter_mean_s_after_handoff"] == pytest.approx(6.0)
    assert r["jitter_mean_s_run"] == pytest.approx(16.0 / 6.0), "empty bins are skipped"
    assert r["queue_drops"] == 3


def test_verdict_needs_the_right_direction_and_half_the_claimed_factor():
    assert vertical._verdict(3.2, 3.0) == "reproduced"
    assert vertical._verdict(1.6, 3.0) == "reproduced"
    assert vertical._verdict(1.2, 3.0) == "direction only"
    assert vertical._verdict(0.9, 3.0) == "not reproduced"
    assert vertical._verdict(None, 3.0) == "not reproduced"


def test_reproduce_group_registers_vertical_handoff():
    assert REPRODUCTIONS["vertical-handoff"] == "hosim.reproduce.vertical:cli"
    assert isinstance(vertical.cli, click.Command) and vertical.cli.name == "vertical-handoff"


def test_profile_replaces_the_presets_whole_tcp_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from hosim.reproduce import common

    assert "[tcp]" in vertical._task(1, {}).scenario
    monkeypatch.setitem(common.PROFILE_OVERRIDES, "tcp.profile", "linux")
    task = vertical._task(1, {"vertical.adaptation": "clah"})
    assert "[tcp]" not in task.scenario and "mss_bytes" not in task.scenario
    assert ("tcp.profile", '"linux"') in task.overrides

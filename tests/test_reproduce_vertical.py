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


def _point(values: list[float], key: str = "jitter_mean_s_after_handoff") -> dict:
    return {f"{key}_seeds": values}


def test_ratios_are_per_seed_with_a_student_t_interval():
    r = vertical.ratio_ci(_point([3.0, 6.0, 9.0]), _point([1.0, 2.0, 3.0]), "jitter_mean_s_after_handoff")
    assert r is not None and (r["mean"], r["lo"], r["hi"], r["n"]) == (3.0, 3.0, 3.0, 3)
    r = vertical.ratio_ci(_point([2.0, 4.0]), _point([1.0, 1.0]), "jitter_mean_s_after_handoff")
    assert r is not None and r["mean"] == 3.0 and r["hi"] - r["mean"] == pytest.approx(12.706)
    assert vertical.ratio_ci(None, _point([1.0]), "jitter_mean_s_after_handoff") is None


def test_a_ratio_from_one_run_has_no_interval_and_no_verdict():
    r = vertical.ratio_ci(_point([3.5]), _point([1.0]), "jitter_mean_s_after_handoff")
    assert r == {"mean": 3.5, "lo": None, "hi": None, "n": 1}
    assert vertical.verdict_at_least(r, 3.0) == vertical.ONE_RUN
    assert vertical.verdict_lower(r) == vertical.ONE_RUN
    assert vertical._grows(r, {"mean": 5.0, "lo": 4.0, "hi": 6.0, "n": 3}) == vertical.ONE_RUN
    assert vertical._fmt_ratio(r) == "3.50 (1 run)"


def test_claims_of_points_measured_in_one_run_say_so():
    one = {f"2e+07|{a}": vertical.aggregate([vertical.reduce_run(_summary([j, j], [0.0]))])
           for a, j in (("none", 4.0), ("clah", 1.0))}
    rows = vertical.claims({}, one)
    assert {r["verdict_ns3"] for r in rows if r["claim"].startswith(("jitter NR/CLAH at 20", "throughput", "RTT",
                                                                         "queue"))} == {vertical.ONE_RUN}
    assert all(r["verdict_hosim"] == "no data" for r in rows if r["paper"] != "(not claimed)")


def test_verdict_reads_the_claim_literally_against_the_interval():
    def ci(lo: float, hi: float) -> dict:
        return {"mean": (lo + hi) / 2, "lo": lo, "hi": hi, "n": 5}

    assert vertical.verdict_at_least(ci(3.1, 3.5), 3.0) == "reproduced"
    assert vertical.verdict_at_least(ci(2.5, 3.5), 3.0) == "interval straddles"
    # The old rule ("at least half the claimed factor") called 2.45 at 3x reproduced.
    assert vertical.verdict_at_least(ci(2.3, 2.6), 3.0) == "not reproduced"
    assert vertical.verdict_at_least(None, 3.0) == "no data"
    assert vertical.verdict_lower(ci(1.02, 1.2)) == "reproduced"
    assert vertical.verdict_lower(ci(0.9, 1.1)).startswith("not reproduced")
    assert vertical._grows(ci(2.0, 2.5), ci(2.6, 3.0)) == "reproduced"
    assert vertical._grows(ci(2.0, 2.7), ci(2.6, 3.0)).startswith("not reproduced")


def test_the_20_mbps_claim_is_checked_both_as_1_75x_and_as_a_75_percent_reduction():
    claimed = [(rate, factor) for rate, factor, _ in vertical.JITTER_CLAIMS if rate == 20e6]
    assert claimed == [(20e6, 1.75), (20e6, 4.0)]


def test_aggregate_keeps_means_intervals_seeds_and_the_mean_series():
    runs = [vertical.reduce_run(_summary(jitter, [1.0])) for jitter in ([1.0, 2.0, None], [3.0, 4.0, 5.0])]
    p = vertical.aggregate(runs)
    assert p["seeds"] == 2 and p["queue_drops"] == 3 and p["queue_drops_seeds"] == [3, 3]
    assert p["jitter_mean_s_after_handoff_seeds"] == [2.0, 4.5]
    assert p["series"]["jitter_mean_s"] == [2.0, 3.0, 5.0], "bin by bin over the seeds that have it"


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


def test_ns3_points_keep_the_runs_with_and_without_each_ns3_fix_apart(tmp_path):
    import json

    def row(run: int, reset: bool | None, jitter: float, refill: bool | None = None) -> dict:
        r = vertical.reduce_run(_summary([jitter, jitter], [0.0]))
        r.pop("series")
        r.update({"rate_bps": 2e7, "tcp": "newreno", "run": run})
        if reset is not None:
            r["reno_sack_reset"] = reset
        if refill is not None:
            r["arp_refill"] = refill
        return r

    (tmp_path / "data").mkdir()
    rows = [row(1, None, 9.0), row(2, False, 7.0), row(1, True, 1.0), row(2, True, 3.0),
            row(1, True, 5.0, True), row(2, True, 6.0, True), row(3, True, 7.0, True)]
    (tmp_path / vertical.NS3_DATA).write_text(json.dumps(rows), encoding="utf-8")
    fixed = vertical.ns3_points(tmp_path)["2e+07|none"]
    assert fixed["seeds"] == 3 and fixed["jitter_mean_s_after_handoff"] == pytest.approx(6.0)
    before_arp = vertical.ns3_points(tmp_path, arp_refill=False)["2e+07|none"]
    assert before_arp["seeds"] == 2 and before_arp["jitter_mean_s_after_handoff"] == pytest.approx(2.0), \
        "rows from before the ARP refill ran without it"
    as_is = vertical.ns3_points(tmp_path, reno_sack_reset=False, arp_refill=False)["2e+07|none"]
    assert as_is["jitter_mean_s_after_handoff"] == pytest.approx(8.0), "rows from before the flag ran without it"

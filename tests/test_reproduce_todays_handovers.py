"""`hosim reproduce todays-handovers`: the reduction of a run, the intervals over seeds and the
verdicts of the three questions, on hand-made summaries (the runs themselves are the core's)."""

from __future__ import annotations

from hosim.reproduce import REPRODUCTIONS
from hosim.reproduce import todays_handovers as th


def _summary(goodputs_bps: list[float], outcomes: list[str | None], timeouts: int = 0) -> dict:
    flows = [{"goodput_bps": g, "timeouts": timeouts, "spurious_timeouts": 0, "retransmits": 3} for g in goodputs_bps]
    hos = [{"outcome": o, "dropped_packets": 2, "forwarded_packets": 5, "forwarded_copies": 1} for o in outcomes]
    return {"flows": flows, "handovers": hos}


def test_the_command_is_registered():
    assert REPRODUCTIONS["todays-handovers"] == "hosim.reproduce.todays_handovers:cli"


def test_a_run_reduces_to_per_ue_goodput_and_per_handover_counts_and_its_closed_outcomes():
    r = th.reduce_run(_summary([4e6, 6e6], ["optimal", "timeout", None, "spurious-timeout"], timeouts=2))
    assert r["goodput_mbps"] == 5.0
    assert (r["timeouts_per_ho"], r["dropped_per_ho"], r["forwarded_per_ho"]) == (1.0, 2.0, 6.0)
    assert r["closed"] == 3 and r["outcomes"] == {"optimal": 1, "halving": 0, "timeout": 1, "spurious-timeout": 1}


def test_seeds_give_a_mean_with_its_interval_and_outcome_shares_with_wilson_bounds():
    runs = [th.reduce_run(_summary([g], ["optimal", "halving"])) for g in (4e6, 5e6, 6e6)]
    a = th.aggregate(runs)
    assert a["goodput_mbps"] == 5.0 and abs(a["goodput_mbps_ci"] - 2.484) < 1e-3  # t(2) = 4.303
    assert a["share_optimal"] == 0.5 and 0 < a["share_optimal_ci"][0] < 0.5 < a["share_optimal_ci"][1] < 1


def test_a_difference_whose_interval_holds_zero_is_no_difference():
    def point(mean: float, ci: float) -> dict:
        return {"goodput_mbps": mean, "goodput_mbps_ci": ci}

    points = {}
    for tcp in th.TCPS:
        for scheme, (m, h) in {"daps": (6.0, 0.1), "forward-via-core": (5.0, 0.1), "forward": (6.05, 0.1),
                               "cho": (6.0, 0.1), "predicted": (6.0, 0.1), "drop": (5.5, 0.1)}.items():
            points[f"cellular|{tcp}|{scheme}"] = point(m, h)
    rows = {r["question"]: r["verdict"] for r in th.questions(points, ["cellular"]) if r["tcp"] == "linux"}
    assert rows["DAPS vs forwarding through the core"] == "higher"
    assert rows["DAPS vs X2 forwarding"] == "no difference"
    assert rows["drop vs forward"] == "lower"


def test_every_network_is_a_cellular_scenario_that_runs_and_hands_over():
    from hosim.api import run_text

    for net in th.NETWORKS:
        short = {"duration_s": 2.0} if net in ("cellular", "highway") else {}  # movement: no schedule
        task = th.network_task(net, 1, {"tcp.profile": "ns2", "cellular.scheme": "forward", **short})
        summary = run_text(task.scenario, task.source, seed=1, overrides=list(task.overrides), traces=False).summary
        assert summary["flows"] and all(f["bytes_delivered"] > 0 for f in summary["flows"]), net
    # The inter-RAT network's keys (the anchor's buffer, forwarded data first, the uplink
    # through the source until the attach) hold with every scheme.
    for scheme in th.SCHEMES:
        task = th.network_task("inter-rat", 1, {"tcp.profile": "ns2", "cellular.scheme": scheme})
        summary = run_text(task.scenario, task.source, seed=1, overrides=list(task.overrides), traces=False).summary
        assert [h["command_s"] for h in summary["handovers"]] == [30.0], scheme
    # Cohen & Levin's mobiles hand over every 0.4 s from 2 + 0.04 u s: before 3 s, UEs 0-4
    # three times, UEs 5-9 twice.
    task = th.network_task("cohen-levin-fast", 1, {"duration_s": 3.0})
    summary = run_text(task.scenario, task.source, seed=1, overrides=list(task.overrides), traces=False).summary
    assert len(summary["handovers"]) == 5 * 3 + 5 * 2

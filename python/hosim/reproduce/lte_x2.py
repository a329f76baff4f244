"""Reproduction of Pacifico et al., "Improving TCP Performance During the Intra LTE Handover"
with the ``lte-x2`` preset (docs/reproductions/lte-intra-handover.md).

``hosim reproduce lte-x2 [--seeds 50] [--out DIR] [--jobs N] [--check]`` (or
``python -m hosim.reproduce.lte_x2 ...``) runs

- Fig. 8 / Fig. 11: outcome probabilities (timeout, halving, optimal) of the reference UE's
  handover over ``seeds`` seeds for 2 to 5 UEs in the target cell, for the standard, fast and
  predicted path switch (the paper shows standard and predicted);
- Fig. 9 / Fig. 10: the reference flow's window and RTT around the handover, one seed, for the
  three variants;
- Table IV: drop rates on ``router->senb`` and ``router->tenb`` for DropTail, RED dropping and
  RED marking (Table III setup, 10 s);
- Fig. 12: data delivered in the handover window for standard, AQM, prediction and prediction
  with AQM;

writes the figures to ``<out>/figures/lte-*.png``, every number to
``<out>/data/lte-intra-handover.json`` and ``<out>/report.md`` (the tables beside the paper's
numbers, and the figures), and prints the markdown tables of the document. ``--check`` re-runs
two seeds of the outcome experiment and the traced runs and compares them with the committed
``docs/reproductions/data/lte-intra-handover.json``. The
runs go through ``hosim.runner`` (parallel with ``--jobs``, kept in the result cache); only the
three traced runs of Fig. 9 / 10 call ``hosim.api.run`` directly.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hosim.cli.options import runner_from_options, runner_options
from hosim.reproduce.claims import HOLDS, Cell, Claim, Tolerance, fact, report_lines
from hosim.reproduce.common import (
    Comparison,
    change_options,
    committed_file,
    finish,
    output_options,
    prepare,
    preset_task,
    progress_on_stderr,
    refuse_changes_with_check,
    run_preset,
    save_figure,
    write_json,
    write_report,
)
from hosim.runner import Runner

__all__ = ["PAPER", "check_committed", "fisher_one_sided", "run_reproduction", "wilson_interval", "write_lte_report"]

PRESET = "lte-x2"
VARIANTS = ("standard", "fast", "predicted")
OUTCOMES = ("timeout", "halving", "optimal")
TARGET_UES = (2, 3, 4, 5)
MSS_BYTES = 1460
RWND_BYTES = 65535

# What the paper reports. Figs. 8 and 11 are bar charts whose values the text does not give;
# the text states the ordering and the direction of the change.
PAPER: dict[str, Any] = {
    "fig8": "standard: f_DI <= f_DWH <= f_DSS (timeout the most frequent outcome), for 2-5 target UEs",
    "fig11": "predicted: timeouts substantially reduced, window halvings more frequent",
    "fig9_10": "standard: spurious timeout from the RTT increase; fast: timeout only partly avoided; "
    "predicted: no timeout, one halving from a router drop",
    "table4": {
        "droptail": {"router->senb": 2.2, "router->tenb": 3.9},
        "red-drop": {"router->senb": 2.2, "router->tenb": 3.6},
        "red-mark": {"router->senb": 2.1, "router->tenb": 3.3},
    },
    "fig12": "delivered data grows from standard to AQM to prediction; prediction + AQM is the largest",
}

# Table III: 4 UEs in the source cell, 3 in the target, 10 s.
AQM_SETUP = {"lte_x2.source_ues": 4, "lte_x2.target_ues": 3, "duration_s": 10.0}
QUEUE_VARIANTS: dict[str, dict[str, Any]] = {
    "droptail": {"lte_x2.router_queue": "droptail", "lte_x2.ecn": False},
    "red-drop": {"lte_x2.router_queue": "red", "lte_x2.ecn": False},
    "red-mark": {"lte_x2.router_queue": "red", "lte_x2.ecn": True},
}
FIG12_VARIANTS: dict[str, dict[str, Any]] = {
    "standard": {"lte_x2.path_switch": "standard"},
    "AQM": {"lte_x2.path_switch": "standard", "lte_x2.router_queue": "red", "lte_x2.ecn": True},
    "prediction": {"lte_x2.path_switch": "predicted"},
    "prediction + AQM": {"lte_x2.path_switch": "predicted", "lte_x2.router_queue": "red", "lte_x2.ecn": True},
}


#: Target UEs of Figs. 8 and 11.
UES = ("2", "3", "4", "5")


def _share(data: Mapping[str, Any], variant: str, ues: str, outcome: str) -> float:
    return float(data["outcomes"][variant][ues][outcome][0])


def _fig8(data: Mapping[str, Any]) -> list[Cell]:
    return [fact(f"standard, {u} target UEs: timeout >= halving >= optimal",
                 _share(data, "standard", u, "timeout") >= _share(data, "standard", u, "halving")
                 >= _share(data, "standard", u, "optimal")) for u in UES]


def _fig11(data: Mapping[str, Any]) -> list[Cell]:
    # "Substantially": at most half the standard handover's timeout share, which must have some.
    return [fact(f"{u} target UEs: predicted times out at most half as often as standard",
                 _share(data, "standard", u, "timeout") > 0
                 and _share(data, "predicted", u, "timeout") <= _share(data, "standard", u, "timeout") / 2)
            for u in UES]


def _fast_between(data: Mapping[str, Any]) -> list[Cell]:
    return [fact(f"{u} target UEs: timeouts standard >= fast >= predicted",
                 _share(data, "standard", u, "timeout") >= _share(data, "fast", u, "timeout")
                 >= _share(data, "predicted", u, "timeout")) for u in UES]


def _forwarding(data: Mapping[str, Any]) -> list[Cell]:
    o = data["outcomes"]
    return [c for u in UES for c in (
        fact(f"{u} target UEs: fast forwards fewer than standard",
             o["fast"][u]["forwarded_mean"] < o["standard"][u]["forwarded_mean"]),
        fact(f"{u} target UEs: predicted forwards none", o["predicted"][u]["forwarded_mean"] == 0))]


def _table4_rates(data: Mapping[str, Any]) -> list[Cell]:
    return [Cell(f"{variant}, {queue}", paper, data["table4"][variant][queue]["mean"])
            for variant, queues in PAPER["table4"].items() for queue, paper in queues.items()]


def _table4_order(data: Mapping[str, Any]) -> list[Cell]:
    tenb = {v: data["table4"][v]["router->tenb"]["mean"] for v in QUEUE_VARIANTS}
    return [fact("router->tenb: RED dropping below DropTail", tenb["red-drop"] < tenb["droptail"]),
            fact("router->tenb: RED marking below RED dropping", tenb["red-mark"] < tenb["red-drop"])]


def _fig12(data: Mapping[str, Any]) -> list[Cell]:
    kb = {v: data["fig12"][v]["kB_mean"] for v in FIG12_VARIANTS}
    order = list(FIG12_VARIANTS)
    return [fact(f"{a} < {b} in bytes delivered", kb[a] < kb[b]) for a, b in zip(order, order[1:])]


#: The paper's claims and the rules of their verdicts (hosim.reproduce.claims), shown in
#: docs/reproductions/lte-intra-handover.md and in every report.md. The paper's figures are
#: bar charts without numbers: their statements (orderings) are checked as facts; Table IV's
#: drop rates agree within 30 %.
CLAIMS = [
    Claim("Standard handovers end in a timeout most often: timeout >= halving >= optimal, 2-5 target UEs (Fig. 8)",
          HOLDS, "fig-8-and-fig-11-outcome-probabilities", _fig8, Tolerance()),
    Claim("Prediction times out substantially less often than standard (Fig. 11)", HOLDS,
          "fig-8-and-fig-11-outcome-probabilities", _fig11, Tolerance()),
    Claim("The fast path switch lies in between", HOLDS, "why-fast-times-out-most-a-controlled-experiment",
          _fast_between, Tolerance()),
    Claim("Fast forwards fewer packets than standard, prediction none", HOLDS,
          "fig-8-and-fig-11-outcome-probabilities", _forwarding, Tolerance()),
    Claim("Drop rates 2.1-3.9 % (Table IV)", "%", "table-iv-drop-rates-table-iii-setup-4--3-ues-10-s-50-seeds",
          _table4_rates, Tolerance(rel=0.3)),
    Claim("RED lowers drops on router->tenb, marking lowers them further (Table IV)", HOLDS,
          "table-iv-drop-rates-table-iii-setup-4--3-ues-10-s-50-seeds", _table4_order, Tolerance()),
    Claim("Data delivered in the handover grows from standard to AQM to prediction to prediction + AQM (Fig. 12)",
          HOLDS, "fig-12-data-delivered-during-the-handover-table-ii-setup-50-seeds", _fig12, Tolerance()),
]

def _run(overrides: Mapping[str, Any], seed: int, traces: bool = False) -> Any:
    return run_preset(PRESET, seed, overrides, traces=traces)


def _summaries(runner: Runner | None, runs: Sequence[tuple[Mapping[str, Any], int]]) -> list[dict[str, Any]]:
    """Summaries of the preset's ``(overrides, seed)`` runs, in order, as one batch."""
    tasks = [preset_task(PRESET, seed, o) for o, seed in runs]
    return (Runner() if runner is None else runner).summaries(tasks)


def _ref_flow(summary: Mapping[str, Any]) -> Mapping[str, Any]:
    return next(f for f in summary["flows"] if f["name"] == "ref")


def _window_end(summary: Mapping[str, Any]) -> float:
    """When the outcome window closed, or the end of the run if it was still open."""
    end = summary["handovers"][0]["window_end_s"]
    return float(summary["sim_time_s"] if end is None else end)


# --- statistics ----------------------------------------------------------------------------


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k/n."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def fisher_one_sided(k1: int, n1: int, k2: int, n2: int) -> float:
    """One-sided Fisher exact test p-value for "proportion 1 is larger than proportion 2"."""
    total_k, total_n = k1 + k2, n1 + n2

    def pmf(x: int) -> float:
        return math.comb(n1, x) * math.comb(n2, total_k - x) / math.comb(total_n, total_k)

    return min(1.0, sum(pmf(x) for x in range(k1, min(n1, total_k) + 1)))


# --- experiments ---------------------------------------------------------------------------


def outcome_runs(
    seeds: Iterable[int],
    target_ues: Sequence[int] = TARGET_UES,
    variants: Sequence[str] = VARIANTS,
    runner: Runner | None = None,
) -> list[dict[str, Any]]:
    """One row per (variant, target UEs, seed): the handover entry and the reference flow."""
    seeds = list(seeds)
    cells = [(variant, n, seed) for variant in variants for n in target_ues for seed in seeds]
    summaries = _summaries(runner, [({"lte_x2.path_switch": v, "lte_x2.target_ues": n}, seed) for v, n, seed in cells])
    rows = []
    for (variant, n, seed), s in zip(cells, summaries):
        h, f = s["handovers"][0], _ref_flow(s)
        rows.append({
            "variant": variant,
            "target_ues": n,
            "seed": seed,
            "outcome": h["outcome"],
            "forwarded_packets": h["forwarded_packets"],
            "delivered_bytes_window": h["delivered_bytes_window"],
            "window_s": _window_end(s) - h["window_start_s"],
            "timeouts_until_end": h["timeouts_until_end"],
            "spurious_timeouts": f["spurious_timeouts"],
            "retransmits": f["retransmits"],
            "reordering_timed_out": h["reordering_timed_out"],
            "window_closed": h["window_closed"],
        })
    return rows


def outcome_probabilities(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[int, dict[str, Any]]]:
    """variant -> target UEs -> {outcome: (share, wilson low, wilson high), n, forwarded mean}."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for variant in sorted({r["variant"] for r in rows}, key=VARIANTS.index):
        out[variant] = {}
        for n in sorted({r["target_ues"] for r in rows}):
            sel = [r for r in rows if r["variant"] == variant and r["target_ues"] == n]
            cell: dict[str, Any] = {"n": len(sel)}
            for o in OUTCOMES:
                k = sum(r["outcome"] == o for r in sel)
                cell[o] = (k / len(sel), *wilson_interval(k, len(sel)))
                cell[f"{o}_count"] = k
            cell["forwarded_mean"] = sum(r["forwarded_packets"] for r in sel) / len(sel)
            cell["spurious_share"] = sum(r["spurious_timeouts"] > 0 for r in sel) / len(sel)
            out[variant][n] = cell
    return out


def window_traces(seed: int, target_ues: int = 5) -> dict[str, dict[str, Any]]:
    """Fig. 9 / Fig. 10: the reference flow's cwnd, ssthresh and RTT samples per variant."""
    out = {}
    for variant in VARIANTS:
        r = _run({"lte_x2.path_switch": variant, "lte_x2.target_ues": target_ues}, seed, traces=True)
        tables = {}
        for name, col in (("cwnd", "cwnd_bytes"), ("rtt", "rtt_s"), ("ssthresh", "ssthresh_bytes")):
            t = r.traces[name]
            t = t[t["flow"] == "ref"]
            tables[name] = list(zip(t["time_s"].tolist(), t[col].tolist()))
        tables["handover"] = r.summary["handovers"][0]
        out[variant] = tables
    return out


def drop_rates(seeds: Iterable[int], runner: Runner | None = None) -> dict[str, dict[str, Any]]:
    """Table IV: drops / arrivals on the two router -> eNodeB queues, mean and std over seeds."""
    out = {}
    seeds = list(seeds)
    runs = [({**AQM_SETUP, **overrides}, seed) for overrides in QUEUE_VARIANTS.values() for seed in seeds]
    summaries = iter(_summaries(runner, runs))
    for label in QUEUE_VARIANTS:
        per_link: dict[str, list[float]] = {"router->senb": [], "router->tenb": []}
        marks: dict[str, list[float]] = {"router->senb": [], "router->tenb": []}
        for _seed in seeds:
            s = next(summaries)
            for q in s["queues"]:
                if q["name"] in per_link:
                    arrivals = q["enqueued"] + q["dropped"]
                    per_link[q["name"]].append(100.0 * q["dropped"] / max(arrivals, 1))
                    marks[q["name"]].append(100.0 * q["marked"] / max(arrivals, 1))
        out[label] = {
            name: {"mean": _mean(v), "std": _std(v), "mark_mean": _mean(marks[name]), "n": len(v)}
            for name, v in per_link.items()
        }
    return out


def delivered(seeds: Iterable[int], runner: Runner | None = None) -> dict[str, dict[str, Any]]:
    """Fig. 12: bytes delivered to the reference UE in the handover window (Table II setup)."""
    out = {}
    seeds = list(seeds)
    summaries = iter(_summaries(runner, [(o, seed) for o in FIG12_VARIANTS.values() for seed in seeds]))
    for label in FIG12_VARIANTS:
        vals, windows, outcomes = [], [], []
        for _seed in seeds:
            s = next(summaries)
            h = s["handovers"][0]
            vals.append(h["delivered_bytes_window"] / 1e3)
            windows.append(_window_end(s) - h["start_s"])
            outcomes.append(h["outcome"])
        out[label] = {
            "kB_mean": _mean(vals),
            "kB_std": _std(vals),
            "window_s_mean": _mean(windows),
            "rate_mbps_mean": _mean([8 * v / w / 1e3 for v, w in zip(vals, windows)]),
            "timeout_share": outcomes.count("timeout") / len(outcomes),
            "n": len(vals),
        }
    return out


SENSITIVITY: dict[str, dict[str, Any]] = {
    "preset (Reno, min RTO 1 s)": {},
    "NewReno": {"tcp.recovery": "newreno"},
    "SACK": {"tcp.recovery": "sack"},
    "Reno, min RTO 0.05 s": {"tcp.min_rto_s": 0.05},
    "Reno, min RTO 0.2 s (ns-2's minrto_)": {"tcp.min_rto_s": 0.2},
}


def sensitivity(
    seeds: Iterable[int], target_ues: int = 5, runner: Runner | None = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """Timeout share per path switch when the loss recovery or the minimum RTO changes, and the
    share of runs with a spurious timeout of the reference flow (5 target UEs)."""
    seeds = list(seeds)
    runs = [
        ({**extra, "lte_x2.path_switch": variant, "lte_x2.target_ues": target_ues}, seed)
        for extra in SENSITIVITY.values() for variant in VARIANTS for seed in seeds
    ]
    summaries = iter(_summaries(runner, runs))
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for label in SENSITIVITY:
        out[label] = {}
        for variant in VARIANTS:
            outcomes, spurious, still_open = [], 0, 0
            for _seed in seeds:
                s = next(summaries)
                outcomes.append(s["handovers"][0]["outcome"])
                spurious += _ref_flow(s)["spurious_timeouts"] > 0
                still_open += not s["handovers"][0]["window_closed"]
            out[label][variant] = {o: outcomes.count(o) / len(outcomes) for o in OUTCOMES} | {
                "spurious_share": spurious / len(seeds),
                "window_open_at_end": still_open,
            }
    return out


def prediction_errors(
    seeds: Iterable[int],
    errors_s: Sequence[float] = (-0.2, -0.1, 0.0, 0.1, 0.3),
    target_ues: int = 5,
    runner: Runner | None = None,
) -> dict[str, dict[str, Any]]:
    """Predicted path switch with a wrong prediction: actual - predicted HO command time."""
    shares = _predicted_outcomes(seeds, "lte_x2.prediction_error_s", errors_s, target_ues, runner)
    return {f"{err:+.1f}": share for err, share in zip(errors_s, shares)}


def prediction_leads(
    seeds: Iterable[int],
    leads_s: Sequence[float] = (0.03, 0.06, 0.09, 0.13, 0.2),
    target_ues: int = 5,
    runner: Runner | None = None,
) -> dict[str, dict[str, Any]]:
    """Predicted path switch with other prediction leads (the paper's step is 130 ms)."""
    shares = _predicted_outcomes(seeds, "lte_x2.prediction_lead_s", leads_s, target_ues, runner)
    return {f"{lead:.2f}": share for lead, share in zip(leads_s, shares)}


def _predicted_outcomes(
    seeds: Iterable[int], key: str, values: Sequence[float], target_ues: int, runner: Runner | None
) -> list[dict[str, Any]]:
    """Per value of ``key``: outcome shares and mean forwarded packets of the predicted switch."""
    seeds = list(seeds)
    runs = [
        ({"lte_x2.path_switch": "predicted", key: value, "lte_x2.target_ues": target_ues}, seed)
        for value in values for seed in seeds
    ]
    summaries = _summaries(runner, runs)
    out = []
    for i in range(len(values)):
        handovers = [s["handovers"][0] for s in summaries[i * len(seeds):(i + 1) * len(seeds)]]
        outcomes = [h["outcome"] for h in handovers]
        shares: dict[str, Any] = {o: outcomes.count(o) / len(outcomes) for o in OUTCOMES}
        shares["forwarded_mean"] = _mean([h["forwarded_packets"] for h in handovers])
        out.append(shares)
    return out


def _mean(v: Sequence[float]) -> float:
    return sum(v) / len(v) if v else float("nan")


def _std(v: Sequence[float]) -> float:
    if len(v) < 2:
        return 0.0
    m = _mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


# --- figures -------------------------------------------------------------------------------


def _save(fig: Figure, path: Path) -> Path:
    FigureCanvasAgg(fig)
    return save_figure(fig, path, dpi=110, bbox_inches="tight")


def plot_outcomes(probs: Mapping[str, Mapping[int, Mapping[str, Any]]], variant: str, title: str, path: Path) -> Path:
    """Three panels (timeout, halving, optimal): share of handovers vs target-cell UEs, 95 % CI."""
    fig = Figure(figsize=(10, 3.0))
    axes = fig.subplots(1, 3, sharey=True)
    cells = probs[variant]
    ns = sorted(cells)
    labels = ("timeout  $f_{D_{SS}}$", "window halving  $f_{D_{WH}}$", "optimal  $f_{D_I}$")
    for ax, o, label in zip(axes, OUTCOMES, labels):
        vals = [cells[n][o][0] for n in ns]
        err = [[cells[n][o][0] - cells[n][o][1] for n in ns], [cells[n][o][2] - cells[n][o][0] for n in ns]]
        ax.bar(ns, vals, yerr=err, capsize=3, color="#4c72b0")
        ax.set_title(label)
        ax.set_xlabel("UEs in the target cell")
        ax.set_xticks(ns)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel(f"share of {cells[ns[0]]['n']} runs")
    fig.suptitle(title, y=1.04)
    return _save(fig, path)


def plot_window_traces(traces: Mapping[str, Mapping[str, Any]], path_cwnd: Path, path_rtt: Path) -> list[Path]:
    """Fig. 9 (window in segments) and Fig. 10 (RTT samples), one panel per variant."""
    out = []
    for kind, path in (("cwnd", path_cwnd), ("rtt", path_rtt)):
        fig = Figure(figsize=(10, 6.5))
        axes = fig.subplots(len(traces), 1, sharex=True)
        for ax, (variant, t) in zip(axes, traces.items()):
            h = t["handover"]
            if kind == "cwnd":
                pts = [(x, min(v, RWND_BYTES) / MSS_BYTES) for x, v in t["cwnd"] if 2.0 <= x <= 3.5]
                ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", label="min(cwnd, rwnd)")
                ss = [(x, v / MSS_BYTES) for x, v in t["ssthresh"] if 2.0 <= x <= 3.5 and v < 1e12]
                if ss:
                    ax.step([p[0] for p in ss], [p[1] for p in ss], where="post", linestyle="--", label="ssthresh")
                ax.set_ylabel("segments")
            else:
                pts = [(x, v * 1e3) for x, v in t["rtt"] if 2.0 <= x <= 3.5]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], ".", markersize=3)
                ax.set_ylabel("RTT (ms)")
            for key, style in (("start_s", "k:"), ("attach_s", "g:"), ("sgw_switch_s", "r:")):
                if h.get(key) is not None:
                    ax.axvline(h[key], color=style[0], linestyle=":", linewidth=1)
            ax.set_title(f"{variant}: outcome {h['outcome']}, {h['forwarded_packets']} packets forwarded", fontsize=9)
            if kind == "cwnd":
                ax.legend(loc="upper right", fontsize=7)
        axes[-1].set_xlabel("time (s)   dotted: HO start (black), attach (green), S-GW path switch (red)")
        fig.suptitle("Reference UE: " + ("congestion window (Fig. 9)" if kind == "cwnd" else "RTT samples (Fig. 10)"))
        out.append(_save(fig, path))
    return out


def plot_delivered(d: Mapping[str, Mapping[str, Any]], path: Path) -> Path:
    """Fig. 12: mean delivered kB per variant (standard deviation over seeds), and the mean
    delivery rate in the window, which does not depend on the window's length."""
    fig = Figure(figsize=(11, 3.2))
    left, right = fig.subplots(1, 2)
    labels = list(d)
    left.bar(labels, [d[k]["kB_mean"] for k in labels], yerr=[d[k]["kB_std"] for k in labels], capsize=3,
             color="#55a868")
    left.set_ylabel("kB delivered in the window")
    left.set_title("Data delivered, HO start to one RTT after attach (Fig. 12)", fontsize=10)
    right.bar(labels, [d[k]["rate_mbps_mean"] for k in labels], color="#8172b2")
    right.set_ylabel("Mb/s")
    right.set_title("Delivery rate in the same window", fontsize=10)
    for ax in (left, right):
        ax.tick_params(axis="x", labelsize=8)
    return _save(fig, path)


# --- markdown ------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def outcome_markdown(probs: Mapping[str, Mapping[int, Mapping[str, Any]]]) -> str:
    lines = [
        "| path switch | target UEs | timeout (95 % CI) | halving | optimal | forwarded pkts | runs |",
        "|---|---|---|---|---|---|---|",
    ]
    for variant, cells in probs.items():
        for n, c in cells.items():
            t = c["timeout"]
            lines.append(
                f"| {variant} | {n} | {_pct(t[0])} ({_pct(t[1])}–{_pct(t[2])}) | {_pct(c['halving'][0])} "
                f"| {_pct(c['optimal'][0])} "
                f"| {c['forwarded_mean']:.1f} | {c['n']} |"
            )
    return "\n".join(lines)


def significance_markdown(probs: Mapping[str, Mapping[int, Mapping[str, Any]]]) -> str:
    lines = ["| comparison | target UEs | timeouts | one-sided Fisher p |", "|---|---|---|---|"]
    for a, b in (("standard", "predicted"), ("standard", "fast"), ("fast", "predicted")):
        if a not in probs or b not in probs:
            continue
        for n in probs[a]:
            ca, cb = probs[a][n], probs[b][n]
            p = fisher_one_sided(ca["timeout_count"], ca["n"], cb["timeout_count"], cb["n"])
            counts = f"{ca['timeout_count']}/{ca['n']} vs {cb['timeout_count']}/{cb['n']}"
            lines.append(f"| {a} > {b} | {n} | {counts} | {p:.3g} |")
    return "\n".join(lines)


def table4_markdown(rates: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "| queue management | R→SeNodeB drop % paper | hosim (± std) | R→TeNodeB drop % paper | hosim (± std) "
        "| marks % R→TeNodeB |",
        "|---|---|---|---|---|---|",
    ]
    for label, links in rates.items():
        paper = PAPER["table4"][label]
        s, t = links["router->senb"], links["router->tenb"]
        lines.append(
            f"| {label} | {paper['router->senb']} | {s['mean']:.2f} ± {s['std']:.2f} | {paper['router->tenb']} "
            f"| {t['mean']:.2f} ± {t['std']:.2f} | {t['mark_mean']:.2f} |"
        )
    return "\n".join(lines)


def fig12_markdown(d: Mapping[str, Mapping[str, Any]]) -> str:
    lines = ["| variant | delivered kB (± std) | window s | rate in window Mb/s | timeouts |", "|---|---|---|---|---|"]
    for label, v in d.items():
        lines.append(
            f"| {label} | {v['kB_mean']:.1f} ± {v['kB_std']:.1f} | {v['window_s_mean']:.3f} "
            f"| {v['rate_mbps_mean']:.2f} | {_pct(v['timeout_share'])} |"
        )
    return "\n".join(lines)


def sensitivity_markdown(sens: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    lines = [
        "| TCP | " + " | ".join(f"{v}: timeout / halving / spurious" for v in VARIANTS) + " |",
        "|---" * (1 + len(VARIANTS)) + "|",
    ]
    for label, by_variant in sens.items():
        cells = [
            f"{_pct(c['timeout'])} / {_pct(c['halving'])} / {_pct(c['spurious_share'])}" for c in by_variant.values()
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def prediction_error_markdown(errs: Mapping[str, Mapping[str, Any]], first: str = "error (s)") -> str:
    lines = [f"| {first} | timeout | halving | optimal | forwarded pkts |", "|---|---|---|---|---|"]
    for err, c in errs.items():
        lines.append(
            f"| {err} | {_pct(c['timeout'])} | {_pct(c['halving'])} | {_pct(c['optimal'])} "
            f"| {c['forwarded_mean']:.1f} |"
        )
    return "\n".join(lines)


# --- driver --------------------------------------------------------------------------------


def run_reproduction(
    out_dir: str | Path, seeds: int = 50, trace_seed: int = 1, runner: Runner | None = None
) -> dict[str, Any]:
    """Runs every experiment, writes figures and data under ``out_dir``; returns the numbers
    and the markdown tables."""
    out = Path(out_dir)
    figs = out / "figures"
    seed_list = list(range(1, seeds + 1))
    rows = outcome_runs(seed_list, runner=runner)
    probs = outcome_probabilities(rows)
    traces = window_traces(trace_seed)
    rates = drop_rates(seed_list, runner=runner)
    d12 = delivered(seed_list, runner=runner)
    sens = sensitivity(seed_list, runner=runner)
    errs = prediction_errors(seed_list, runner=runner)
    leads = prediction_leads(seed_list, runner=runner)
    files = [
        plot_outcomes(probs, "standard", "Standard handover: outcome of the reference UE's handover (Fig. 8)",
                      figs / "lte-fig8-standard.png"),
        plot_outcomes(probs, "predicted", "Predicted path switch (Fig. 11)", figs / "lte-fig11-predicted.png"),
        plot_outcomes(probs, "fast", "Fast path switch", figs / "lte-fast.png"),
        *plot_window_traces(traces, figs / "lte-fig9-cwnd.png", figs / "lte-fig10-rtt.png"),
        plot_delivered(d12, figs / "lte-fig12-delivered.png"),
    ]
    markdown = {
        "outcomes": outcome_markdown(probs),
        "significance": significance_markdown(probs),
        "table4": table4_markdown(rates),
        "fig12": fig12_markdown(d12),
        "sensitivity": sensitivity_markdown(sens),
        "prediction_error": prediction_error_markdown(errs),
        "prediction_lead": prediction_error_markdown(leads, first="lead (s)"),
    }
    data = {
        "seeds": seeds,
        "trace_seed": trace_seed,
        "outcomes": {v: {str(n): c for n, c in cells.items()} for v, cells in probs.items()},
        "runs": rows,
        "table4": rates,
        "fig12": d12,
        "sensitivity": sens,
        "prediction_error": errs,
        "prediction_lead": leads,
        "traces_handover": {v: t["handover"] for v, t in traces.items()},
        "markdown": markdown,
        "figures": [str(f) for f in files],
    }
    write_json(out / "data" / "lte-intra-handover.json", data, indent=1, default=float)
    return data


REPORT_SECTIONS = (
    ("Fig. 8 / Fig. 11: outcome of the reference UE's handover", "outcomes",
     ("lte-fig8-standard.png", "lte-fig11-predicted.png", "lte-fast.png")),
    ("Significance of the timeout differences", "significance", ()),
    ("Fig. 9 / Fig. 10: window and RTT around the handover", None, ("lte-fig9-cwnd.png", "lte-fig10-rtt.png")),
    ("Table IV: drop rates on the router queues (paper beside hosim)", "table4", ()),
    ("Fig. 12: data delivered in the handover window", "fig12", ("lte-fig12-delivered.png",)),
    ("Sensitivity to loss recovery and minimum RTO", "sensitivity", ()),
    ("Predicted path switch: prediction error", "prediction_error", ()),
    ("Predicted path switch: prediction lead", "prediction_lead", ()),
)


def write_lte_report(out: Path, data: Mapping[str, Any]) -> Path:
    """``report.md``: every table of the run (Table IV with the paper's numbers beside hosim's),
    what the paper states for the bar charts, and the figures."""
    figs = out / "figures"
    statements = {"outcomes": PAPER["fig8"] + ". " + PAPER["fig11"], "fig12": PAPER["fig12"]}
    sections = []
    for heading, key, figures in REPORT_SECTIONS:
        table = data["markdown"][key] if key else ""
        if key in statements:
            table = f"Paper: {statements[key]}.\n\n{table}"
        if key is None:
            table = f"Paper: {PAPER['fig9_10']}."
        sections.append((heading, table, [figs / f for f in figures]))
    intro = (f"Pacifico et al., \"Improving TCP Performance During the Intra LTE Handover\", reproduced with the "
             f"lte-x2 preset: {data['seeds']} seeds per configuration, traces of seed {data['trace_seed']}.")
    return write_report(out, "Reproduction: intra-LTE X2 handover", intro, sections,
                        seeds=f"1-{data['seeds']} per configuration, traces of seed {data['trace_seed']}",
                        claims=report_lines(CLAIMS, data, "lte-intra-handover.md"))


CHECK_PARTS = ("runs", "traces", "fig12")


def check_committed(
    against: Path | None = None,
    seeds: Sequence[int] = (1, 2),
    runner: Runner | None = None,
    parts: Sequence[str] = CHECK_PARTS,
) -> Comparison:
    """Quick version (seconds) against the committed data file: ``runs``, the outcome runs of
    ``seeds`` for every variant and target-cell size, compared run by run; ``traces``, the
    handovers of the three traced runs; ``fig12``, Fig. 12 with the committed number of seeds
    (its four variants run in a few seconds)."""
    path, committed = committed_file(against, "data/lte-intra-handover.json")
    comparison = Comparison(str(path))
    if "runs" in parts:
        rows = {(r["variant"], r["target_ues"], r["seed"]): r for r in committed["runs"]}
        for row in outcome_runs(seeds, runner=runner):
            key = (row["variant"], row["target_ues"], row["seed"])
            name = f"runs[{'/'.join(map(str, key))}]"
            comparison.compare_fields(name, rows.get(key, {}), row,
                                      ["outcome", "forwarded_packets", "delivered_bytes_window", "retransmits"])
    if "traces" in parts:
        fields = ["outcome", "forwarded_packets", "delivered_bytes_window", "end_s"]
        for variant, t in window_traces(committed["trace_seed"]).items():
            old = committed["traces_handover"].get(variant, {})
            comparison.compare_fields(f"traces_handover[{variant}]", old, t["handover"], fields)
    if "fig12" in parts:
        current = delivered(range(1, committed["seeds"] + 1), runner=runner)
        for label, cell in current.items():
            comparison.compare_fields(f"fig12[{label}]", committed["fig12"].get(label, {}), cell,
                                      ["kB_mean", "kB_std", "window_s_mean", "timeout_share"])
    return comparison


@click.command("lte-x2", short_help="Pacifico et al., TCP across the intra-LTE X2 handover.")
@change_options
@click.option("--seeds", type=click.IntRange(min=1), default=50, show_default=True, help="Seeds per configuration.")
@click.option("--trace-seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="Seed of the Fig. 9/10 traces.")
@output_options("lte-x2")
@runner_options(default_jobs=1)
@click.pass_context
def cli(ctx: click.Context, seeds: int, trace_seed: int, out: Path | None, force: bool, check: bool,
        against: Path | None, jobs: int, cluster: str | None, cache_dir: Path | None, no_cache: bool) -> None:
    """Reproduce Pacifico et al., "Improving TCP Performance During the Intra LTE Handover":
    Fig. 8-12 and Table IV, with the lte-x2 preset. Writes figures/, data/ and report.md into
    --out; --check compares a quick re-run with the committed numbers instead."""
    from hosim.cli.invocation import command_line

    if check:
        refuse_changes_with_check()
        with runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
            ctx.exit(check_committed(against, runner=runner).report())
    target = prepare("lte-x2", out, force)
    with progress_on_stderr("lte-x2") as progress, runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
        runner.progress = progress
        data = run_reproduction(target, seeds, trace_seed, runner=runner)
    report = write_lte_report(target, data)
    finish("lte-x2", target, seeds, command_line())
    for name, table in data["markdown"].items():
        click.echo(f"\n### {name}\n\n{table}")
    click.echo(f"\nwrote {report}, {target / 'data'} and {target / 'figures'}")


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hosim.reproduce.lte_x2 [OPTIONS]`: the same as `hosim reproduce lte-x2`."""
    from hosim.cli import main as hosim_main

    return hosim_main(["reproduce", "lte-x2", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())

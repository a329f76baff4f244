"""Reproduction of Sinky & Hamdaoui, "Cross-Layer Assisted TCP for Seamless Handoff in
Heterogeneous Mobile Wireless Systems" (TCP-CLAH), Sec. V.B, Figs. 2-8.

Runs the `vertical` preset (Fig. 1: a mobile source with an 802.11g WiFi interface at 54 Mb/s
and an 802.11b "cellular" interface at 5.5 Mb/s, soft handoffs every 15 s over 100 s, starting
in WiFi) with TCP NewReno
(`vertical.adaptation = "none"`), TCP-CLAH (`"clah"`) and the related-work baselines Freeze-TCP
(`"freeze"`) and Daniel & Kojo (`"daniel-kojo"`) at application rates of 10, 15 and 20 Mb/s,
plus a sensitivity grid at 20 Mb/s (NewReno and CLAH) over the choices the paper leaves open
(cellular delay, queue size, receiver window, send buffer), CLAH's BDP variant and
break-before-make handoffs, and Freeze-TCP's warning period. `--profile NAME` replaces the
preset's whole `[tcp]` table (the ns-3 defaults of the paper) by that profile, e.g. `linux` for
today's TCP. From the per-bin series of the run summary (delay, jitter, RTT, cwnd, uplink
queue, throughput, 0.1 s bins) it computes whole-run means and means over the
first `WINDOW_S` seconds after each handoff, checks the paper's claims one by one beside
ns-3.44's numbers for the same experiment (bench/ns3/papers/vertical.py, committed as
`data/vertical-handoff-ns3.json`) and writes figures (matplotlib, Agg) and
`<out>/data/vertical-handoff.json`; docs/reproductions/vertical-handoff.md discusses them.

    hosim reproduce vertical-handoff --out docs/reproductions
    python -m hosim.reproduce.vertical ...          # the same

The 802.11 backoffs are random: each point is `SEEDS` runs (the sensitivity grid
`SENSITIVITY_SEEDS`), and every ratio of a claim is the mean of the per-seed ratios with its
95 % Student-t interval.
"""
from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from hosim.cli.options import runner_from_options, runner_options
from hosim.reproduce.claims import HOLDS, Cell, Claim, Tolerance, fact, report_lines
from hosim.reproduce.common import (
    COMMITTED,
    PROFILE_OVERRIDES,
    change_options,
    out_options,
    preset_task,
    save_figure,
)
from hosim.runner import Runner, Task
from hosim.stats import ci95_half_width

PRESET = "vertical"
RATES_BPS = (10e6, 15e6, 20e6)
ADAPTATIONS = ("none", "clah", "freeze", "daniel-kojo")
#: The sensitivity grid compares the paper's two.
PAPER_PAIR = ("none", "clah")
LABELS = {"none": "TCP-NR", "clah": "TCP-CLAH", "freeze": "Freeze-TCP", "daniel-kojo": "Daniel-Kojo"}
#: Seconds after each handoff over which the "around the handoff" means are taken.
WINDOW_S = 2.0
#: Sensitivity variants at 20 Mb/s: name -> overrides on top of the preset.
SENSITIVITY: dict[str, dict[str, Any]] = {
    "cellular 25 ms": {"vertical.cellular_delay_s": 0.025},
    "cellular 100 ms": {"vertical.cellular_delay_s": 0.100},
    "queues 50": {"vertical.wifi_queue_pkts": 50, "vertical.cellular_queue_pkts": 50},
    "queues 200": {"vertical.wifi_queue_pkts": 200, "vertical.cellular_queue_pkts": 200},
    "rwnd 4 MB": {"tcp.rwnd_bytes": 4_000_000},
    "sndbuf 16 MB": {"vertical.sndbuf_bytes": 16_000_000},
    "clah path BDP": {"vertical.clah_bdp": "path"},
    "hard handoffs": {"vertical.mode": "hard"},
}
#: Freeze-TCP's warning period at 20 Mb/s (the default is the base RTT of the network left:
#: 30 ms WiFi, 120 ms cellular): too short, and long enough to drain the old uplink queue.
FREEZE_WARNINGS_S = (0.01, 0.3, 1.0)
#: Seeds per point (the backoffs of the 802.11 MAC are random), and per sensitivity point.
SEEDS = tuple(range(1, 11))
SENSITIVITY_SEEDS = tuple(range(1, 6))
QUICK_SEEDS = (1, 2, 3)
#: The paper's jitter claims, NewReno / CLAH mean jitter, read literally: "roughly 3 times",
#: "5 times", and "about 75 %" both as 1.75x and as a 75 % reduction (NR/CLAH = 4).
JITTER_CLAIMS = ((10e6, 3.0, "3x"), (15e6, 5.0, "5x"), (20e6, 1.75, "75 % read as 1.75x"),
                 (20e6, 4.0, "75 % read as a 75 % reduction, 4x"))
#: ns-3.44's runs of the same experiment (bench/ns3/papers/vertical.py), shipped with hosim.
NS3_DATA = "data/vertical-handoff-ns3.json"
NS3_TCP = {"none": "newreno", "clah": "clah"}
SERIES = ("jitter_mean_s", "delay_mean_s", "rtt_mean_s", "queue_mean_pkts", "cwnd_mean_bytes", "rx_bps")


def _mean(values: Sequence[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return statistics.fmean(xs) if xs else None


def reduce_run(summary: dict[str, Any]) -> dict[str, Any]:
    """Whole-run and after-handoff means of each series, and the flow's counters."""
    v = summary["vertical"]
    series = v["series"]
    bin_s = series["bin_s"]
    starts = [h["start_s"] for h in summary["handovers"]]
    n = len(series["pkts"])
    in_window = [any(t <= i * bin_s < t + WINDOW_S for t in starts) for i in range(n)]
    out: dict[str, Any] = {"handoffs": starts, "series": series}
    for key in SERIES:
        vals = series[key]
        out[f"{key}_run"] = _mean(vals)
        out[f"{key}_after_handoff"] = _mean([x for x, w in zip(vals, in_window) if w])
    flow = summary["flows"][0]
    for key in ("goodput_bps", "retransmits", "timeouts", "spurious_timeouts", "fast_recoveries", "rtt_mean_s"):
        out[key] = flow[key]
    out["queue_drops"] = sum(q["dropped"] for q in summary["queues"])
    out["jitter_overall_s"] = v["jitter_mean_s"]
    out["suppressed_dupacks"] = v["suppressed_dupacks"]
    out["zero_window_probes"] = v["zero_window_probes"]
    out["persist_s"] = v["persist_s"]
    out["app_refused_bytes"] = v["app_refused_bytes"]
    return out


def _task(seed: int, overrides: dict[str, Any]) -> Task:
    """A run of the preset; with `--profile`, its `[tcp]` table replaced by the profile."""
    return preset_task(PRESET, seed, overrides, unset=["tcp"] if PROFILE_OVERRIDES else [])


#: The metrics a point keeps per seed and aggregates (mean and 95 % interval half-width).
METRICS = (*(f"{k}_{w}" for k in SERIES for w in ("run", "after_handoff")), "goodput_bps", "retransmits",
           "timeouts", "spurious_timeouts", "fast_recoveries", "rtt_mean_s", "queue_drops", "jitter_overall_s",
           "suppressed_dupacks", "zero_window_probes", "persist_s", "app_refused_bytes")


def aggregate(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A point from its runs (one per seed): each metric's mean (`key`), its 95 % interval
    half-width (`key_ci`) and its per-seed values (`key_seeds`); the per-bin series averaged
    over the seeds (figures)."""
    out: dict[str, Any] = {"seeds": len(runs), "handoffs": runs[0]["handoffs"]}
    for key in METRICS:
        vals = [r[key] for r in runs]
        xs = [float(v) for v in vals if v is not None]
        out[key] = statistics.fmean(xs) if xs else None
        out[f"{key}_ci"] = ci95_half_width(xs) if len(xs) > 1 else None
        out[f"{key}_seeds"] = vals
    if "series" in runs[0]:
        series = runs[0]["series"]
        n = min(len(r["series"]["pkts"]) for r in runs)
        out["series"] = {"bin_s": series["bin_s"],
                         **{k: [_mean([r["series"][k][i] for r in runs]) for i in range(n)] for k in SERIES}}
    return out


def simulate(runner: Runner, extra: dict[str, Any], rates: Sequence[float],
             adaptations: Sequence[str] = ADAPTATIONS, seeds: Sequence[int] = SEEDS) -> dict[str, dict[str, Any]]:
    """`len(seeds)` runs per (rate, adaptation) with `extra` overrides, aggregated; keyed
    "rate|adaptation"."""
    specs = [(r, a, seed) for r in rates for a in adaptations for seed in seeds]
    tasks = [_task(seed, {**extra, "vertical.app_rate_bps": r, "vertical.adaptation": a}) for r, a, seed in specs]
    reduced = [reduce_run(s) for s in runner.summaries(tasks)]
    points: dict[str, dict[str, Any]] = {}
    for r in rates:
        for a in adaptations:
            runs = [x for (rr, aa, _), x in zip(specs, reduced) if (rr, aa) == (r, a)]
            points[f"{r:g}|{a}"] = aggregate(runs)
    return points


def ns3_points(against: Path | None = None, reno_sack_reset: bool = True,
               arp_refill: bool = True) -> dict[str, dict[str, Any]]:
    """ns-3.44's runs (bench/ns3/papers/vertical.py), aggregated as hosim's points are and
    keyed the same way; empty if the file is absent. `reno_sack_reset` picks the runs made with
    ns-3's emulated SACKs cleared at the end of each fast recovery (the referee of the claims:
    without it ns-3's NewReno re-enters fast recovery on one duplicate ACK, an ns-3 defect
    traced in docs/reproductions/vertical-handoff.md) or the runs made without; `arp_refill`
    the runs whose ARP caches were filled again after the stations' associations (the referee)
    or the runs from before that fix, which lost 12 segments to ARP at the first handoff."""
    import json

    path = (COMMITTED if against is None else against) / NS3_DATA
    if not path.exists():
        return {}
    rows = [r for r in json.loads(path.read_text(encoding="utf-8"))
            if r.get("reno_sack_reset", False) == reno_sack_reset and r.get("arp_refill", False) == arp_refill]
    points = {}
    for a, tcp in NS3_TCP.items():
        for rate in sorted({r["rate_bps"] for r in rows}):
            runs = sorted((r for r in rows if r["tcp"] == tcp and r["rate_bps"] == rate), key=lambda r: r["run"])
            if runs:
                points[f"{rate:g}|{a}"] = aggregate(runs)
    return points


def ratio_ci(num: dict[str, Any] | None, den: dict[str, Any] | None, key: str) -> dict[str, Any] | None:
    """num/den of `key`, seed by seed: the mean ratio, its 95 % interval and the seeds."""
    if num is None or den is None:
        return None
    pairs = [(a, b) for a, b in zip(num[f"{key}_seeds"], den[f"{key}_seeds"]) if a is not None and b]
    if not pairs:
        return None
    ratios = [a / b for a, b in pairs]
    mean = statistics.fmean(ratios)
    if len(ratios) < 2:
        # One run has no interval: a zero-width one would pass for certainty.
        return {"mean": mean, "lo": None, "hi": None, "n": 1}
    half = ci95_half_width(ratios)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": len(ratios)}


#: The verdict of a ratio measured in one run (or seed) only.
ONE_RUN = "one run, no interval"


def verdict_at_least(r: dict[str, Any] | None, claimed: float) -> str:
    """The claim "the ratio is at least `claimed`", read literally against the 95 % interval:
    reproduced if the whole interval is at or above it, not reproduced if the whole interval is
    below it, and "interval straddles" otherwise."""
    if r is None:
        return "no data"
    if r["lo"] is None:
        return ONE_RUN
    if r["lo"] >= claimed:
        return "reproduced"
    if r["hi"] < claimed:
        return "not reproduced"
    return "interval straddles"


def verdict_lower(r: dict[str, Any] | None) -> str:
    """"Lower with CLAH": NR/CLAH above 1 with 95 % confidence."""
    if r is None:
        return "no data"
    if r["lo"] is None:
        return ONE_RUN
    if r["lo"] > 1.0:
        return "reproduced"
    if r["hi"] < 1.0:
        return "opposite"
    return "not reproduced (interval holds 1)"


#: The claims of ``claims`` (the rows' texts), in order; the last row (bytes on the wire) is
#: not a claim of the paper.
CLAIM_TEXTS = (*(f"jitter NR/CLAH at {rate / 1e6:g} Mb/s: {text} (Figs. 2-4)" for rate, _, text in JITTER_CLAIMS),
               "the jitter gain grows from 10 to 15 Mb/s (3x, then 5x)",
               "RTT lower with CLAH at 20 Mb/s (Fig. 5), NR/CLAH", "queue lower with CLAH at 20 Mb/s (Fig. 6), NR/CLAH",
               "throughput not compromised at 20 Mb/s (Fig. 8): CLAH/NR goodput over the run")


def _hosim_verdict(text: str) -> Callable[[Mapping[str, Any]], list[Cell]]:
    """The one cell of a claim: whether hosim's 95 % interval satisfies it (the rules of
    ``claims``: ``verdict_at_least``, ``verdict_lower``, ``_grows``), n/a without the row."""
    def cells(data: Mapping[str, Any]) -> list[Cell]:
        row = next((r for r in data.get("claims", ()) if r["claim"] == text), None)
        verdict = None if row is None else row["verdict_hosim"]
        holds = None if verdict in (None, "no data") else verdict == "reproduced"
        ratios = [] if row is None else row["hosim_after_handoff"]
        ratios = ratios if isinstance(ratios, list) else [ratios]
        shown = ", ".join(f"{r['mean']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]" for r in ratios if r)
        return [fact(f"hosim {shown} 2 s after handoffs, {verdict}", holds)]
    return cells


#: The paper's claims and the rules of their verdicts (hosim.reproduce.claims), shown in
#: docs/reproductions/vertical-handoff.md and in every report.md: each is one fact, hosim's
#: verdict by the interval rules of ``claims`` (the choices table of the document).
CLAIMS = [Claim(text, HOLDS, "the-papers-claims-the-paper-ns-344-and-hosim", _hosim_verdict(text), Tolerance())
          for text in CLAIM_TEXTS]


def claims(points: dict[str, dict[str, Any]], ns3: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The paper's claims, each with hosim's and ns-3's ratio (2 s after handoffs, mean of the
    per-seed ratios and its 95 % interval), hosim's over the whole run, and a verdict each."""
    rows = []

    def row(claim: str, paper: Any, key: str, num: str, den: str, rate: float, rule: Any) -> dict[str, Any]:
        h = ratio_ci(points.get(f"{rate:g}|{num}"), points.get(f"{rate:g}|{den}"), key)
        n = ratio_ci(ns3.get(f"{rate:g}|{num}"), ns3.get(f"{rate:g}|{den}"), key)
        run_key = key.replace("_after_handoff", "_run") if key.endswith("_after_handoff") else key
        h_run = ratio_ci(points.get(f"{rate:g}|{num}"), points.get(f"{rate:g}|{den}"), run_key)
        return {"claim": claim, "paper": paper, "ns3_after_handoff": n, "hosim_after_handoff": h,
                "hosim_run": h_run, "verdict_hosim": rule(h), "verdict_ns3": rule(n)}

    jitter = "jitter_mean_s_after_handoff"
    for rate, claimed, text in JITTER_CLAIMS:
        rows.append(row(f"jitter NR/CLAH at {rate / 1e6:g} Mb/s: {text} (Figs. 2-4)", claimed, jitter, "none",
                        "clah", rate, lambda r, c=claimed: verdict_at_least(r, c)))
    # The paper's gains differ by rate (3x at 10, 5x at 15 Mb/s): 15 above 10 beyond both intervals.
    r10 = ratio_ci(points.get("1e+07|none"), points.get("1e+07|clah"), jitter)
    r15 = ratio_ci(points.get("1.5e+07|none"), points.get("1.5e+07|clah"), jitter)
    n10 = ratio_ci(ns3.get("1e+07|none"), ns3.get("1e+07|clah"), jitter)
    n15 = ratio_ci(ns3.get("1.5e+07|none"), ns3.get("1.5e+07|clah"), jitter)
    rows.append({"claim": "the jitter gain grows from 10 to 15 Mb/s (3x, then 5x)", "paper": "yes",
                 "ns3_after_handoff": [n10, n15], "hosim_after_handoff": [r10, r15], "hosim_run": None,
                 "verdict_hosim": _grows(r10, r15), "verdict_ns3": _grows(n10, n15)})
    for key, name, fig in (("rtt_mean_s", "RTT lower with CLAH", 5), ("queue_mean_pkts", "queue lower with CLAH", 6)):
        rows.append(row(f"{name} at 20 Mb/s (Fig. {fig}), NR/CLAH", "lower", f"{key}_after_handoff", "none", "clah",
                        20e6, verdict_lower))
    rows.append(row("throughput not compromised at 20 Mb/s (Fig. 8): CLAH/NR goodput over the run", "similar",
                    "goodput_bps", "clah", "none", 20e6, lambda r: verdict_at_least(r, 0.95)))
    rows.append(row("CLAH/NR bytes on the wire reaching dest (retransmissions included), 2 s after handoffs, "
                    "20 Mb/s", "(not claimed)", "rx_bps_after_handoff", "clah", "none", 20e6, lambda r: "-"))
    return rows


def _grows(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    if a is None or b is None:
        return "no data"
    if a["lo"] is None or b["lo"] is None:
        return ONE_RUN
    if b["lo"] > a["hi"]:
        return "reproduced"
    if b["hi"] < a["lo"]:
        return "opposite"
    return "not reproduced (intervals overlap)"


def plot(points: dict[str, dict[str, Any]], out: Path, suffix: str = "") -> list[Path]:
    """Figs. 2-8: time series (0.1 s bins averaged over the seeds, then a 0.5 s moving mean
    for legibility), one panel per scheme on shared axes so that no line hides another."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    figs = [(2, 10e6, "jitter_mean_s", 1e3, "jitter (ms)"), (3, 15e6, "jitter_mean_s", 1e3, "jitter (ms)"),
            (4, 20e6, "jitter_mean_s", 1e3, "jitter (ms)"), (5, 20e6, "rtt_mean_s", 1e3, "RTT (ms)"),
            (6, 20e6, "queue_mean_pkts", 1, "uplink queue (packets)"),
            (7, 20e6, "cwnd_mean_bytes", 1e-3, "cwnd (kB)"),
            (8, 20e6, "rx_bps", 1e-6, "Mb/s on the wire at dest")]
    colors = {"none": "tab:blue", "clah": "tab:orange", "freeze": "tab:green", "daniel-kojo": "tab:red"}
    paths = []
    for num, rate, key, scale, ylabel in figs:
        shown = [a for a in ADAPTATIONS if f"{rate:g}|{a}" in points]
        fig, axes = plt.subplots(len(shown), 1, figsize=(7, 1.35 * len(shown) + 0.9), sharex=True, sharey=True,
                                 squeeze=False)
        for ax, a in zip(axes[:, 0], shown):
            p = points[f"{rate:g}|{a}"]
            s = p["series"]
            ys = [None if y is None else y * scale for y in s[key]]
            ts = [i * s["bin_s"] for i in range(len(ys))]
            ax.plot(ts, _smooth(ys, 5), lw=0.8, color=colors[a])
            ax.text(0.01, 0.92, f"{LABELS[a]} ({p['seeds']} seeds)", transform=ax.transAxes, va="top", fontsize=8)
            for t in p["handoffs"]:
                ax.axvline(t, color="grey", lw=0.5, ls=":")
            ax.tick_params(labelsize=8)
        axes[-1, 0].set_xlabel("time (s)")
        fig.supylabel(ylabel, fontsize=9)
        profile = f", tcp.profile = {suffix[1:]}" if suffix else ""
        axes[0, 0].set_title(f"Fig. {num}: {ylabel} at {rate / 1e6:g} Mb/s{profile}", fontsize=10)
        fig.tight_layout()
        path = out / f"vertical-handoff{suffix}-fig{num}.png"
        save_figure(fig, path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def _smooth(ys: Sequence[float | None], k: int) -> list[float]:
    out = []
    for i in range(len(ys)):
        window = [y for y in ys[max(0, i - k + 1):i + 1] if y is not None]
        out.append(statistics.fmean(window) if window else float("nan"))
    return out


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.2f}"
    return str(x)


def _fmt_ratio(r: Any) -> str:
    if r is None:
        return "–"
    if isinstance(r, list):
        return ", ".join(_fmt_ratio(x) for x in r)
    if r["lo"] is None:
        return f"{r['mean']:.2f} (1 run)"
    return f"{r['mean']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]"


def markdown(claim_rows: list[dict[str, Any]], points: dict[str, dict[str, Any]],
             sens: dict[str, dict[str, dict[str, Any]]], ns3: dict[str, dict[str, Any]]) -> str:
    lines = ["| claim | paper | ns-3.44, 2 s after handoffs | hosim, 2 s after handoffs | hosim, whole run "
             "| verdict ns-3 | verdict hosim |", "|---|---|---|---|---|---|---|"]
    for r in claim_rows:
        lines.append(f"| {r['claim']} | {_fmt(r['paper'])} | {_fmt_ratio(r['ns3_after_handoff'])} | "
                     f"{_fmt_ratio(r['hosim_after_handoff'])} | {_fmt_ratio(r['hosim_run'])} | "
                     f"{r['verdict_ns3']} | {r['verdict_hosim']} |")
    if claim_rows:
        lines += ["", "Ratios: mean of the per-seed ratios [95 % interval]."]
    header = ("| {first} | TCP | jitter after handoff (ms) | jitter run (ms) | RTT after (ms) | queue after (pkts) "
              "| goodput (Mb/s) | retransmits | timeouts | spurious | fast rec. | drops | refused (MB) | persist (s) |")
    rule = "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    lines += ["", f"hosim, means over {max((p['seeds'] for p in points.values()), default=0)} seeds:", "",
              header.format(first="rate"), rule]
    for key, p in points.items():
        rate, a = key.split("|")
        lines.append(_row(f"{float(rate) / 1e6:g}", LABELS[a], p))
    if ns3:
        lines += ["", f"ns-3.44 (bench/ns3/papers/vertical.py), means over "
                      f"{max(p['seeds'] for p in ns3.values())} runs:", "", header.format(first="rate"), rule]
        for key, p in ns3.items():
            rate, a = key.split("|")
            lines.append(_row(f"{float(rate) / 1e6:g}", LABELS[a], p))
    if sens:
        lines += ["", "Sensitivity at 20 Mb/s:", "", header.format(first="variant"), rule]
        for name, pts in sens.items():
            for key, p in pts.items():
                lines.append(_row(name, LABELS[key.split("|")[1]], p))
    return "\n".join(lines)


def _row(first: str, tcp: str, p: dict[str, Any]) -> str:
    def scaled(x: float | None, k: float) -> float | None:
        return None if x is None else x * k

    cells = [first, tcp, scaled(p["jitter_mean_s_after_handoff"], 1e3), scaled(p["jitter_overall_s"], 1e3),
             scaled(p["rtt_mean_s_after_handoff"], 1e3), p["queue_mean_pkts_after_handoff"],
             scaled(p["goodput_bps"], 1e-6), p["retransmits"], p["timeouts"], p["spurious_timeouts"],
             p["fast_recoveries"], p["queue_drops"], scaled(p["app_refused_bytes"], 1e-6), p["persist_s"]]
    return "| " + " | ".join(_fmt(c) for c in cells) + " |"


def _without_series(p: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in p.items() if k != "series"}


@click.command("vertical-handoff", short_help="Sinky & Hamdaoui, TCP-CLAH: Figs. 2-8.")
@out_options("vertical-handoff")
@click.option("--quick", is_flag=True, help="20 Mb/s only, 3 seeds, no sensitivity grid, no figures.")
@change_options
@runner_options(default_jobs=1)
def cli(out: Path | None, force: bool, quick: bool, jobs: int, cluster: str | None, cache_dir: Path | None,
        no_cache: bool) -> None:
    """Reproduce Figs. 2-8 of Sinky & Hamdaoui: TCP NewReno vs TCP-CLAH (and Freeze-TCP, Daniel &
    Kojo) across vertical handoffs, beside ns-3.44's runs of the same experiment. `--profile`
    replaces the preset's `[tcp]` table."""
    from hosim.cli.invocation import command_line
    from hosim.reproduce.common import finish, prepare, write_json, write_report

    out = prepare("vertical-handoff", out, force)
    rates = (20e6,) if quick else RATES_BPS
    seeds = QUICK_SEEDS if quick else SEEDS
    with runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
        points = simulate(runner, {}, rates, seeds=seeds)
        sens: dict[str, dict[str, dict[str, Any]]] = {}
        if not quick:
            for name, o in SENSITIVITY.items():
                sens[name] = simulate(runner, o, (20e6,), PAPER_PAIR, SENSITIVITY_SEEDS)
            for w in FREEZE_WARNINGS_S:
                warning = {"vertical.freeze_warning_s": w}
                sens[f"freeze warning {w:g} s"] = simulate(runner, warning, (20e6,), ("freeze",), SENSITIVITY_SEEDS)
    profile = PROFILE_OVERRIDES.get("tcp.profile")
    # ns-3 ran the preset's TCP (ns-3's defaults of the paper's time): no column under --profile.
    ns3 = {} if profile else ns3_points()
    claim_rows = [] if quick else claims(points, ns3)
    data = {"claims": claim_rows, "seeds": list(seeds), "sensitivity_seeds": list(SENSITIVITY_SEEDS),
            "window_s": WINDOW_S, "profile": profile or "preset",
            "points": {k: _without_series(p) for k, p in points.items()},
            "sensitivity": {n: {k: _without_series(p) for k, p in pts.items()} for n, pts in sens.items()}}
    suffix = f"-{profile}" if profile else ""
    path = write_json(out / "data" / f"vertical-handoff{suffix}.json", data, indent=1, sort_keys=True)
    click.echo(f"wrote {path}")
    figures = [] if quick else list(plot(points, out / "figures", suffix))
    for p in figures:
        click.echo(f"wrote {p}")
    tables = markdown(claim_rows, points, sens, ns3)
    click.echo(tables)
    write_report(out, "Vertical handoff: TCP NewReno vs TCP-CLAH (Sinky & Hamdaoui)",
                 "The paper's claims beside ns-3.44's and hosim's numbers; the analysis is in "
                 "docs/reproductions/vertical-handoff.md.", [("Figs. 2-8", tables, figures)],
                 seeds=f"{seeds[0]}-{seeds[-1]} per point" + ("" if quick else
                                                              f", {SENSITIVITY_SEEDS[-1]} per sensitivity point"),
                 claims=() if quick else report_lines(CLAIMS, data, "vertical-handoff.md"))
    finish("vertical-handoff", out, len(seeds), command_line())


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hosim.reproduce.vertical [OPTIONS]`: the same as `hosim reproduce vertical-handoff`."""
    from hosim.cli import main as hosim_main

    return hosim_main(["reproduce", "vertical-handoff", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())

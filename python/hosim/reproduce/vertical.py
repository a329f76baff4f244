"""Reproduction of Sinky & Hamdaoui, "Cross-Layer Assisted TCP for Seamless Handoff in
Heterogeneous Mobile Wireless Systems" (TCP-CLAH), Sec. V.B, Figs. 2-8.

Runs the `vertical` preset (Fig. 1: a mobile source with a 19 Mb/s WiFi and a 3 Mb/s cellular
interface, soft handoffs every 15 s over 100 s, starting in WiFi) with TCP NewReno
(`vertical.adaptation = "none"`), TCP-CLAH (`"clah"`) and the related-work baselines Freeze-TCP
(`"freeze"`) and Daniel & Kojo (`"daniel-kojo"`) at application rates of 10, 15 and 20 Mb/s,
plus a sensitivity grid at 20 Mb/s (NewReno and CLAH) over the choices the paper leaves open
(cellular delay, queue size, receiver window, send buffer), CLAH's BDP variant and
break-before-make handoffs, and Freeze-TCP's warning period. `--profile NAME` replaces the
preset's whole `[tcp]` table (the ns-3 defaults of the paper) by that profile, e.g. `linux` for
today's TCP. From the per-bin series of the run summary (delay, jitter, RTT, cwnd, uplink
queue, throughput, 0.1 s bins) it computes whole-run means and means over the
first `WINDOW_S` seconds after each handoff, checks the paper's claims one by one and writes
figures (matplotlib, Agg) and `<out>/data/vertical-handoff.json`;
docs/reproductions/vertical-handoff.md discusses them.

    hosim reproduce vertical-handoff --out docs/reproductions
    python -m hosim.reproduce.vertical ...          # the same

Nothing in these scenarios is random (no loss model, fixed handoff times), so each point is one
run; the driver checks that a second seed gives the same summary.
"""
from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from hosim.cli.options import runner_from_options, runner_options
from hosim.reproduce.common import PROFILE_OVERRIDES, change_options, out_options, preset_task, save_figure
from hosim.runner import Runner, Task

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
#: The paper's jitter claims: NewReno / CLAH mean jitter ("about 75 %" read as 1.75x).
JITTER_CLAIMS = {10e6: 3.0, 15e6: 5.0, 20e6: 1.75}
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


def simulate(runner: Runner, extra: dict[str, Any], rates: Sequence[float],
             adaptations: Sequence[str] = ADAPTATIONS) -> dict[str, dict[str, Any]]:
    """One run per (rate, adaptation) with `extra` overrides; keyed "rate|adaptation"."""
    specs = [(r, a) for r in rates for a in adaptations]
    tasks = [_task(1, {**extra, "vertical.app_rate_bps": r, "vertical.adaptation": a}) for r, a in specs]
    summaries = runner.summaries(tasks)
    return {f"{r:g}|{a}": reduce_run(s) for (r, a), s in zip(specs, summaries)}


def nothing_is_random(runner: Runner) -> bool:
    """Seeds 1 and 2 of the 20 Mb/s NewReno run give the same summary (but for seed and time)."""
    tasks = [_task(seed, {"vertical.app_rate_bps": 20e6}) for seed in (1, 2)]
    a, b = runner.summaries(tasks)
    strip = ("seed", "wall_time_s", "events_per_s")
    return {k: x for k, x in a.items() if k not in strip} == {k: x for k, x in b.items() if k not in strip}


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def claims(points: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The paper's claims, each with the hosim values and a verdict."""
    rows = []
    for rate, claimed in JITTER_CLAIMS.items():
        nr, cl = points[f"{rate:g}|none"], points[f"{rate:g}|clah"]
        after = _ratio(nr["jitter_mean_s_after_handoff"], cl["jitter_mean_s_after_handoff"])
        run = _ratio(nr["jitter_overall_s"], cl["jitter_overall_s"])
        verdict = _verdict(after, claimed)
        rows.append({"claim": f"jitter NR/CLAH about {claimed:g}x at {rate / 1e6:g} Mb/s (Figs. 2-4)",
                     "paper": claimed, "hosim_after_handoff": after, "hosim_run": run, "verdict": verdict})
    nr, cl = points["2e+07|none"], points["2e+07|clah"]
    for key, name, fig in (("rtt_mean_s", "RTT lower with CLAH", 5), ("queue_mean_pkts", "queue lower with CLAH", 6)):
        r = _ratio(nr[f"{key}_after_handoff"], cl[f"{key}_after_handoff"])
        verdict = "reproduced" if r is not None and r > 1.05 else "not reproduced"
        rows.append({"claim": f"{name} at 20 Mb/s (Fig. {fig})", "paper": "lower",
                     "hosim_after_handoff": r, "hosim_run": _ratio(nr[f"{key}_run"], cl[f"{key}_run"]),
                     "verdict": verdict})
    g = _ratio(cl["goodput_bps"], nr["goodput_bps"])
    after = _ratio(cl["rx_bps_after_handoff"], nr["rx_bps_after_handoff"])
    rows.append({"claim": "throughput not compromised at 20 Mb/s (Fig. 8): CLAH/NR goodput",
                 "paper": "similar", "hosim_after_handoff": after,
                 "hosim_run": g, "verdict": "reproduced" if g is not None and g >= 0.95 else "not reproduced"})
    return rows


def _verdict(ratio: float | None, claimed: float) -> str:
    if ratio is None or ratio <= 1.0:
        return "not reproduced"
    if ratio >= 0.5 * claimed:
        return "reproduced"
    return "direction only"


def plot(points: dict[str, dict[str, Any]], out: Path, suffix: str = "") -> list[Path]:
    """Figs. 2-8: time series (0.1 s bins, 0.5 s moving mean for legibility) NR vs CLAH."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    figs = [(2, 10e6, "jitter_mean_s", 1e3, "jitter (ms)"), (3, 15e6, "jitter_mean_s", 1e3, "jitter (ms)"),
            (4, 20e6, "jitter_mean_s", 1e3, "jitter (ms)"), (5, 20e6, "rtt_mean_s", 1e3, "RTT (ms)"),
            (6, 20e6, "queue_mean_pkts", 1, "uplink queue (packets)"),
            (7, 20e6, "cwnd_mean_bytes", 1e-3, "cwnd (kB)"), (8, 20e6, "rx_bps", 1e-6, "throughput (Mb/s)")]
    paths = []
    for num, rate, key, scale, ylabel in figs:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        for a in ADAPTATIONS:
            p = points.get(f"{rate:g}|{a}")
            if p is None:
                continue
            s = p["series"]
            ys = [None if y is None else y * scale for y in s[key]]
            ts = [i * s["bin_s"] for i in range(len(ys))]
            ax.plot(ts, _smooth(ys, 5), label=LABELS[a], lw=0.8)
        for t in points[f"{rate:g}|none"]["handoffs"]:
            ax.axvline(t, color="grey", lw=0.5, ls=":")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        profile = f", tcp.profile = {suffix[1:]}" if suffix else ""
        ax.set_title(f"Fig. {num}: {ylabel} at {rate / 1e6:g} Mb/s{profile}")
        ax.legend()
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


def markdown(claim_rows: list[dict[str, Any]], points: dict[str, dict[str, Any]],
             sens: dict[str, dict[str, dict[str, Any]]]) -> str:
    lines = ["| claim | paper | hosim, 2 s after handoffs | hosim, whole run | verdict |", "|---|---|---|---|---|"]
    for r in claim_rows:
        lines.append(f"| {r['claim']} | {_fmt(r['paper'])} | {_fmt(r['hosim_after_handoff'])} | "
                     f"{_fmt(r['hosim_run'])} | {r['verdict']} |")
    lines += ["", "| rate | TCP | jitter after handoff (ms) | jitter run (ms) | RTT after (ms) | queue after (pkts) "
              "| goodput (Mb/s) | retransmits | timeouts | spurious | fast rec. | drops | refused (MB) | persist (s) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, p in points.items():
        rate, a = key.split("|")
        lines.append(_row(f"{float(rate) / 1e6:g}", LABELS[a], p))
    if sens:
        lines += ["", "Sensitivity at 20 Mb/s:", "",
                  "| variant | TCP | jitter after handoff (ms) | jitter run (ms) | RTT after (ms) | queue after (pkts) "
                  "| goodput (Mb/s) | retransmits | timeouts | spurious | fast rec. | drops | refused (MB) "
                  "| persist (s) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, pts in sens.items():
            for key, p in pts.items():
                lines.append(_row(name, LABELS[key.split("|")[1]], p))
    return "\n".join(lines)


def _row(first: str, tcp: str, p: dict[str, Any]) -> str:
    def ms(x: float | None) -> float | None:
        return None if x is None else x * 1e3

    cells = [first, tcp, ms(p["jitter_mean_s_after_handoff"]), ms(p["jitter_overall_s"]),
             ms(p["rtt_mean_s_after_handoff"]), p["queue_mean_pkts_after_handoff"], p["goodput_bps"] / 1e6,
             p["retransmits"], p["timeouts"], p["spurious_timeouts"], p["fast_recoveries"], p["queue_drops"],
             p["app_refused_bytes"] / 1e6, p["persist_s"]]
    return "| " + " | ".join(_fmt(c) for c in cells) + " |"


@click.command("vertical-handoff", short_help="Sinky & Hamdaoui, TCP-CLAH: Figs. 2-8.")
@out_options("vertical-handoff")
@click.option("--quick", is_flag=True, help="20 Mb/s only, no sensitivity grid, no figures.")
@change_options
@runner_options(default_jobs=1)
def cli(out: Path | None, force: bool, quick: bool, jobs: int, cluster: str | None, cache_dir: Path | None,
        no_cache: bool) -> None:
    """Reproduce Figs. 2-8 of Sinky & Hamdaoui: TCP NewReno vs TCP-CLAH (and Freeze-TCP, Daniel &
    Kojo) across vertical handoffs. `--profile` replaces the preset's `[tcp]` table."""
    from hosim.cli.invocation import command_line
    from hosim.reproduce.common import finish, prepare, write_json, write_report

    out = prepare("vertical-handoff", out, force)
    rates = (20e6,) if quick else RATES_BPS
    with runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
        points = simulate(runner, {}, rates)
        sens = {} if quick else {name: simulate(runner, o, (20e6,), PAPER_PAIR) for name, o in SENSITIVITY.items()}
        if not quick:
            for w in FREEZE_WARNINGS_S:
                warning = {"vertical.freeze_warning_s": w}
                sens[f"freeze warning {w:g} s"] = simulate(runner, warning, (20e6,), ("freeze",))
        deterministic = nothing_is_random(runner)
    claim_rows = claims(points) if not quick else []
    data = {"claims": claim_rows, "nothing_is_random": deterministic, "window_s": WINDOW_S,
            "profile": PROFILE_OVERRIDES.get("tcp.profile", "preset"),
            "points": {k: {x: y for x, y in p.items() if x != "series"} for k, p in points.items()},
            "sensitivity": {n: {k: {x: y for x, y in p.items() if x != "series"} for k, p in pts.items()}
                            for n, pts in sens.items()}}
    profile = PROFILE_OVERRIDES.get("tcp.profile")
    suffix = f"-{profile}" if profile else ""
    path = write_json(out / "data" / f"vertical-handoff{suffix}.json", data, indent=1, sort_keys=True)
    click.echo(f"wrote {path}")
    figures = [] if quick else list(plot(points, out / "figures", suffix))
    for p in figures:
        click.echo(f"wrote {p}")
    click.echo(f"nothing is random (seed 1 == seed 2): {deterministic}")
    tables = markdown(claim_rows, points, sens)
    click.echo(tables)
    write_report(out, "Vertical handoff: TCP NewReno vs TCP-CLAH (Sinky & Hamdaoui)",
                 "The paper's claims beside hosim's numbers; the analysis is in "
                 "docs/reproductions/vertical-handoff.md.", [("Figs. 2-8", tables, figures)],
                 seeds="1 (nothing in the preset is random: seed 2 is run to check it)")
    finish("vertical-handoff", out, 1, command_line())


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hosim.reproduce.vertical [OPTIONS]`: the same as `hosim reproduce vertical-handoff`."""
    from hosim.cli import main as hosim_main

    return hosim_main(["reproduce", "vertical-handoff", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())

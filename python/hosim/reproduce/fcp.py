"""Reproduction of Cohen & Levin, "To Drop or Not to Drop" (Sec. VI, Fig. 6 and 7).

Runs the `fcp` preset (the paper's Fig. 1 network) over a range of mean handover intervals Δ
for the drop, forward and forward-and-rearrange schemes and the Reno, NewReno and SACK
flavours, in both bandwidth settings, and sets the simulated throughput fraction next to the
prediction of equations (1)-(9) (`hosim.models.cohen_levin`), whose Θ and RTO come from a run of
the same setting without handovers, as in the paper. Writes figures (matplotlib, Agg) and a
JSON file of every point; docs/reproductions/drop-or-forward.md discusses them.

    hosim reproduce drop-or-forward --out docs/reproductions --jobs 8  # everything (slow)
    hosim reproduce drop-or-forward --settings 100M --seeds 1 --quick  # a few minutes
    python -m hosim.reproduce.fcp ...                                  # the same

Runs go through `hosim.runner`: in parallel with `--jobs`, and every finished run is kept in the
result cache, so an interrupted reproduction resumes where it stopped. Every simulated point is
written to `<out>/data/drop-or-forward-<setting>.json`, and the paired table (simulated,
predicted, relative error) to `<out>/data/drop-or-forward-table-<setting>.json`.
"""
from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from hosim.cli.options import runner_from_options, runner_options
from hosim.models import cohen_levin
from hosim.reproduce.claims import HOLDS, Cell, Claim, Tolerance, fact, report_lines
from hosim.reproduce.common import (
    Comparison,
    change_options,
    ci95_half_width,
    committed_file,
    finish,
    output_options,
    prepare,
    preset_task,
    progress_on_stderr,
    refuse_changes_with_check,
    save_figure,
    with_profile,
    write_json,
    write_report,
)
from hosim.runner import Runner, Task

PRESET = "fcp"
SCHEMES = ("drop", "forward", "rearrange")
RECOVERIES = ("reno", "newreno", "sack")

#: The paper's two bandwidth settings (Sec. VI), and one sensitivity variant. The paper states
#: no buffer sizes. The main settings give each base station a per-mobile buffer of about 0.3
#: bandwidth-delay products of the wireless link (20 packets at 10 Mb/s, 200 at 100 Mb/s) and
#: the shared backbone queue 50 (500) packets, so that the no-handover window Θ stays close to
#: the pipe: the model's premise that throughput is proportional to the window. "100M-bigbuf"
#: gives the same network 5x larger buffers to show what happens when that premise fails.
SETTINGS: dict[str, dict[str, Any]] = {
    "100M": {
        "fcp.backbone_bps": 100e6,
        "fcp.wireless_bps": 10e6,
        "fcp.backbone_queue_pkts": 50,
        "fcp.bs_buffer_pkts": 20,
    },
    "1G": {
        "fcp.backbone_bps": 1e9,
        "fcp.wireless_bps": 100e6,
        "fcp.backbone_queue_pkts": 500,
        "fcp.bs_buffer_pkts": 200,
    },
    "100M-bigbuf": {
        "fcp.backbone_bps": 100e6,
        "fcp.wireless_bps": 10e6,
        "fcp.backbone_queue_pkts": 500,
        "fcp.bs_buffer_pkts": 100,
    },
}
SETTING_TITLES = {
    "100M": "100 Mb/s backbone, 10 Mb/s wireless",
    "1G": "1 Gb/s backbone, 100 Mb/s wireless",
    "100M-bigbuf": "100 Mb/s / 10 Mb/s, 5x larger buffers",
}
#: Flavours run per setting (Fig. 7 needs all three; the sensitivity variant only NewReno).
SETTING_RECOVERIES = {"100M": RECOVERIES, "1G": RECOVERIES, "100M-bigbuf": ("newreno",)}

#: Mean handover intervals Δ, in propagation RTTs of 80 ms (the preset's unit).
DELTAS_RTT: dict[str, Sequence[float]] = {
    "100M": (10, 20, 50, 100, 200, 500, 1000),
    "1G": (50, 100, 300, 1000),
    "100M-bigbuf": (20, 50, 100, 200, 500, 1000),
}
QUICK_DELTAS_RTT: dict[str, Sequence[float]] = {"100M": (20, 100, 500), "1G": (100, 1000), "100M-bigbuf": (100, 500)}

PROPAGATION_RTT_S = 0.080
#: Warm-up before the first handover and before `throughput_fraction` is measured, per setting.
#: At 1 Gb/s the first slow start overshoots a pipe of about 960 packets per flow by hundreds,
#: the impatient NewReno timer ends that recovery with a timeout, and ns-2's per-ACK growth
#: (one packet per RTT) then takes about 75 s to fill the pipe again and some 50 s more to
#: settle into its sawtooth; after a 2 s warm-up the no-handover reference was 0.465 of the
#: link, the start-up ramp rather than handovers (docs/reproductions/drop-or-forward.md,
#: "Steady state at 1 Gb/s"). At 100 Mb/s the same ramp lasts a few seconds.
WARMUP_S = {"100M": 2.0, "1G": 200.0, "100M-bigbuf": 2.0}
#: Length of the no-handover reference runs after the warm-up (1 Gb/s is ten times slower).
NO_HANDOVER_MEASURED_S = {"100M": 160.0, "1G": 80.0, "100M-bigbuf": 160.0}


def duration_s(setting: str, delta_rtt: float) -> float:
    """Run length: the warm-up plus enough time for every mobile to hand over a few times.

    Each of the ten mobiles hands over every Δ, with a random phase, so the measured window
    holds about 10 x (duration - warm-up) / Δ handovers whatever its length.
    """
    delta_s = delta_rtt * PROPAGATION_RTT_S
    if setting.startswith("1G"):
        return WARMUP_S[setting] + max(30.0, 2.0 * delta_s)
    return WARMUP_S[setting] + max(60.0, 3.0 * delta_s)


def _reduce(summary: dict[str, Any]) -> dict[str, Any]:
    """What a point keeps of one run: means over the flows, the handover count, the fcp report."""
    flows = summary["flows"]

    def mean(key: str) -> float:
        return statistics.fmean(f[key] for f in flows)

    return {
        "seed": summary["seed"],
        "throughput_fraction": mean("throughput_fraction"),
        "goodput_bps": mean("goodput_bps"),
        "rtt_mean_s": mean("rtt_mean_s"),
        "rto_mean_s": mean("rto_mean_s"),
        "theta_pkts": statistics.fmean(
            f["goodput_bps"] * f["rtt_mean_s"] / (8.0 * f["mss_bytes"]) for f in flows
        ),
        "timeouts_per_flow": mean("timeouts"),
        "fast_recoveries_per_flow": mean("fast_recoveries"),
        "retransmits_per_flow": mean("retransmits"),
        "handovers": len(summary["handovers"]),
        "fcp": summary.get("fcp", {}),
        "bs_queue_mean_pkts": statistics.fmean(
            q["mean_len_pkts"] for q in summary["queues"] if q["name"].startswith("bs") and "->m" in q["name"]
        ) * 2.0,  # only one of each mobile's two downlinks is in use at a time
        "wall_time_s": summary["wall_time_s"],
    }


def _key(setting: str, recovery: str, scheme: str, delta_rtt: float | None, extra: dict[str, Any]) -> str:
    parts = [setting, recovery, scheme, "none" if delta_rtt is None else f"{delta_rtt:g}"]
    parts += [f"{k}={v}" for k, v in sorted(extra.items())]
    return "|".join(parts)


class Points:
    """Simulated points of one setting, keyed by setting|recovery|scheme|delta, written to
    `path` (the data file behind the document) after every batch."""

    def __init__(self, path: Path):
        self.path = path
        self.points: dict[str, Any] = {}

    def save(self) -> None:
        write_json(self.path, self.points, indent=1, sort_keys=True)


def point_overrides(setting: str, recovery: str, scheme: str, delta_rtt: float | None,
                    extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The overrides of one point; `delta_rtt=None` is the setting's no-handover reference run."""
    overrides: dict[str, Any] = {**with_profile({}), **SETTINGS[setting], "tcp.recovery": recovery,
                                 "fcp.scheme": scheme, "fcp.warmup_s": WARMUP_S[setting], **(extra or {})}
    if delta_rtt is None:
        # The reference run lasts as long as a long handover run: Reno-style window growth
        # at 1 Gb/s takes minutes to reach its steady state.
        overrides["fcp.handovers"] = False
        overrides["duration_s"] = WARMUP_S[setting] + NO_HANDOVER_MEASURED_S[setting]
    else:
        overrides["fcp.handover_interval_rtt"] = float(delta_rtt)
        overrides["duration_s"] = duration_s(setting, delta_rtt)
    return overrides


def simulate_points(
    runner: Runner,
    points: Points,
    specs: Sequence[tuple[str, str, str, float | None]],
    seeds: int,
    extra: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Every (setting, recovery, scheme, Δ) of `specs` with seeds 1..`seeds`, run as one batch;
    returns per point the mean over seeds of the flows' mean throughput fraction (and more)."""
    extra = dict(extra or {})
    overrides = [point_overrides(*spec, extra) for spec in specs]
    tasks = [preset_task(PRESET, seed, o) for o in overrides for seed in range(1, seeds + 1)]
    summaries = runner.summaries(tasks, describe=_describe)
    out = []
    for i, ((setting, recovery, scheme, delta_rtt), o) in enumerate(zip(specs, overrides)):
        runs = [_reduce(s) for s in summaries[i * seeds:(i + 1) * seeds]]
        fractions = [r["throughput_fraction"] for r in runs]
        point = {
            "setting": setting,
            "recovery": recovery,
            "scheme": scheme,
            "delta_rtt": delta_rtt,
            "delta_s": None if delta_rtt is None else delta_rtt * PROPAGATION_RTT_S,
            "overrides": o,
            "throughput_fraction": statistics.fmean(fractions),
            "throughput_fraction_sd": statistics.stdev(fractions) if len(fractions) > 1 else 0.0,
            "throughput_fraction_ci95": ci95_half_width(fractions),
            "seeds": len(fractions),
            "runs": runs,
        }
        points.points[_key(setting, recovery, scheme, delta_rtt, extra)] = point
        out.append(point)
    points.save()
    return out


def _describe(task: Task) -> str:
    return ", ".join([f"seed {task.seed}", *(f"{k}={v}" for k, v in task.overrides)])


def no_handover_inputs(
    overrides: dict[str, Any] | None = None, seeds: int = 1, scenario: str = PRESET, runner: Runner | None = None
) -> dict[str, Any]:
    """Θ_s, RTT and RTO of the model from runs of `scenario` without handovers.

    The paper (Sec. II, IV) takes the connection's throughput without handovers as an input.
    We run the same setting with `fcp.handovers = false`, seeds 1..`seeds`, and average
    `cohen_levin.inputs_from_summary` over every flow of every run
    (`cohen_levin.no_handover_inputs_from_summaries`).
    """
    runner = Runner() if runner is None else runner
    overrides = {**with_profile({}), **(overrides or {}), "fcp.handovers": False}
    tasks = [preset_task(scenario, seed, overrides) for seed in range(1, seeds + 1)]
    return cohen_levin.no_handover_inputs_from_summaries(runner.summaries(tasks))


def predict(inputs: dict[str, Any], recovery: str, scheme: str, delta_s: float) -> dict[str, Any]:
    """Model prediction as a fraction of the available bandwidth, or the reason there is none."""
    if scheme not in cohen_levin.SCHEMES:
        return {"fraction": None, "reason": "the paper gives no equation for forward-and-rearrange"}
    try:
        out = cohen_levin.predict(
            recovery, scheme, delta_s, "s",
            theta_pkts=inputs["theta_pkts"], rto_s=inputs["rto_s"], rtt_s=inputs["rtt_s"],
            d_fcp_bs_s=inputs["d_fcp_bs_s"], d_forward_s=inputs["d_forward_s"],
        )
    except ValueError as error:
        return {"fraction": None, "reason": str(error)}
    return {
        "fraction": out["throughput_fraction"] * inputs["fraction"],
        "fraction_of_theta": out["throughput_fraction"],
        "regime": out["regime"],
        "equation": out["equation"],
    }


def _inputs_from_point(point: dict[str, Any], setting: str) -> dict[str, Any]:
    runs = point["runs"]
    return {
        "theta_pkts": statistics.fmean(r["theta_pkts"] for r in runs),
        "rtt_s": statistics.fmean(r["rtt_mean_s"] for r in runs),
        "rto_s": statistics.fmean(r["rto_mean_s"] for r in runs),
        "fraction": point["throughput_fraction"],
        "d_fcp_bs_s": runs[0]["fcp"].get("fcp_bs_delay_s", 0.025),
        "d_forward_s": runs[0]["fcp"].get("forward_delay_s", 0.05),
        "bs_queue_delay_s": statistics.fmean(r["bs_queue_mean_pkts"] for r in runs)
        * 1500 * 8 / SETTINGS[setting]["fcp.wireless_bps"],
    }


def rows(runner: Runner, points: Points, settings: Sequence[str], deltas: dict[str, Sequence[float]],
         seeds: int, fig7: bool = True, log: Callable[[str], Any] = print) -> list[dict[str, Any]]:
    """Simulates every point and pairs it with the model. One row per (setting, flavour,
    scheme, Δ)."""
    out = []
    for setting in settings:
        recoveries = SETTING_RECOVERIES[setting] if fig7 else ("newreno",)
        specs: list[tuple[str, str, str, float | None]] = []
        for recovery in recoveries:
            specs.append((setting, recovery, "drop", None))
            schemes = SCHEMES if recovery == "newreno" else ("drop", "forward")
            specs += [(setting, recovery, scheme, delta) for scheme in schemes for delta in deltas[setting]]
        simulated = dict(zip(specs, simulate_points(runner, points, specs, seeds)))
        for recovery in recoveries:
            base = simulated[(setting, recovery, "drop", None)]
            inputs = _inputs_from_point(base, setting)
            log(f"{setting} {recovery} no handover: fraction {base['throughput_fraction']:.3f}, "
                f"Θ {inputs['theta_pkts']:.1f} pkts, RTT {inputs['rtt_s'] * 1e3:.0f} ms, "
                f"RTO {inputs['rto_s'] * 1e3:.0f} ms")
            for spec, p in simulated.items():
                _, spec_recovery, scheme, delta = spec
                if spec_recovery != recovery or delta is None:
                    continue
                row = _row(setting, recovery, scheme, delta, p, base, inputs)
                out.append(row)
                model_text = "-" if row["model"] is None else f"{row['model']:.3f}"
                log(f"  {scheme:9s} Δ={delta:5g} RTT  sim {row['sim']:.3f} ± {row['sim_sd']:.3f}"
                    f"  model {model_text}")
    return out


def _row(setting: str, recovery: str, scheme: str, delta: float, p: dict[str, Any], base: dict[str, Any],
         inputs: dict[str, Any]) -> dict[str, Any]:
    pred = predict(inputs, recovery, scheme, delta * PROPAGATION_RTT_S)
    sim = p["throughput_fraction"]
    err = None if pred["fraction"] is None else (pred["fraction"] - sim) / sim
    return {
        "setting": setting, "recovery": recovery, "scheme": scheme,
        "delta_rtt": delta, "delta_s": delta * PROPAGATION_RTT_S,
        "delta_measured_rtt": delta * PROPAGATION_RTT_S / inputs["rtt_s"],
        "sim": sim, "sim_sd": p["throughput_fraction_sd"],
        "sim_ci95": p.get("throughput_fraction_ci95", 0.0), "seeds": len(p["runs"]),
        "model": pred["fraction"], "model_regime": pred.get("regime"),
        "model_equation": pred.get("equation"), "model_reason": pred.get("reason"),
        "rel_error": err,
        "timeouts_per_flow": statistics.fmean(r["timeouts_per_flow"] for r in p["runs"]),
        "fast_recoveries_per_flow": statistics.fmean(r["fast_recoveries_per_flow"] for r in p["runs"]),
        "handovers": statistics.fmean(r["handovers"] for r in p["runs"]),
        "no_handover": base["throughput_fraction"],
        "theta_pkts": inputs["theta_pkts"], "rtt_s": inputs["rtt_s"], "rto_s": inputs["rto_s"],
    }


def plot(table: list[dict[str, Any]], figures: Path, setting: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True, exist_ok=True)
    paths = []
    colors = {"drop": "tab:red", "forward": "tab:blue", "rearrange": "tab:green",
              "reno": "tab:orange", "newreno": "tab:blue", "sack": "tab:purple"}

    def series(recovery: str, scheme: str, field: str) -> Any:
        pts = [(r["delta_rtt"], r[field]) for r in table
               if r["setting"] == setting and r["recovery"] == recovery and r["scheme"] == scheme
               and r[field] is not None]
        return zip(*sorted(pts)) if pts else ((), ())

    def simulated(ax: Any, recovery: str, scheme: str, color: str, label: str) -> None:
        """The simulated series, with 95 % confidence intervals when there are several seeds."""
        x, y = series(recovery, scheme, "sim")
        _, ci = series(recovery, scheme, "sim_ci95")
        if len(ci) == len(x) and any(ci):
            ax.errorbar(x, y, yerr=ci, fmt="o-", color=color, capsize=3, label=label)
        else:
            ax.plot(x, y, "o-", color=color, label=label)

    title = SETTING_TITLES[setting]
    # Fig. 6: NewReno, every scheme.
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for scheme in SCHEMES:
        simulated(ax, "newreno", scheme, colors[scheme], f"{scheme} (simulated)")
        x, y = series("newreno", scheme, "model")
        if len(x):
            ax.plot(x, y, "s--", color=colors[scheme], mfc="none", label=f"{scheme} (predicted)")
    base = [r["no_handover"] for r in table if r["setting"] == setting and r["recovery"] == "newreno"]
    if base:
        ax.axhline(base[0], color="gray", lw=0.8, ls=":", label="no handovers")
    ax.set_xscale("log")
    ax.set_xlabel("mean handover interval Δ (RTTs of 80 ms)")
    ax.set_ylabel("throughput / available bandwidth")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Fig. 6, NewReno: {title}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    path = figures / f"drop-or-forward-fig6-{setting}.png"
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
    paths.append(path)
    # Fig. 7: the three flavours under drop (a) and forward (b).
    if any(r["recovery"] != "newreno" for r in table if r["setting"] == setting):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
        for ax, scheme, letter in zip(axes, ("drop", "forward"), "ab"):
            for recovery in RECOVERIES:
                simulated(ax, recovery, scheme, colors[recovery], f"{recovery} (simulated)")
                x, y = series(recovery, scheme, "model")
                if len(x):
                    ax.plot(x, y, "s--", color=colors[recovery], mfc="none", label=f"{recovery} (predicted)")
            ax.set_xscale("log")
            ax.set_xlabel("mean handover interval Δ (RTTs of 80 ms)")
            ax.set_title(f"Fig. 7({letter}) {scheme}: {title}", fontsize=10)
            ax.set_ylim(0, 1.05)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8, loc="lower right")
        axes[0].set_ylabel("throughput / available bandwidth")
        path = figures / f"drop-or-forward-fig7-{setting}.png"
        fig.tight_layout()
        save_figure(fig, path, dpi=120)
        plt.close(fig)
        paths.append(path)
    return paths


def markdown_table(table: list[dict[str, Any]], setting: str, recoveries: Sequence[str] = RECOVERIES) -> str:
    """Markdown: one line per Δ, sim / model / relative error for each (flavour, scheme)."""
    lines = []
    for recovery in recoveries:
        rows_r = [r for r in table if r["setting"] == setting and r["recovery"] == recovery]
        if not rows_r:
            continue
        schemes = [s for s in SCHEMES if any(r["scheme"] == s for r in rows_r)]
        head = ["Δ (RTT)"]
        for s in schemes:
            head += [f"{s} sim", f"{s} model", f"{s} err"] if s != "rearrange" else [f"{s} sim"]
        seeds = max(r.get("seeds", 1) for r in rows_r)
        spread = (f"; sim: mean over {seeds} seeds ± the 95 % confidence interval of the mean, Student t"
                  if seeds > 1 else "; one seed")
        lines.append(f"**{recovery}** (no handovers: {rows_r[0]['no_handover']:.3f}; Θ = "
                     f"{rows_r[0]['theta_pkts']:.0f} pkts, RTT = {rows_r[0]['rtt_s'] * 1e3:.0f} ms, "
                     f"RTO = {rows_r[0]['rto_s'] * 1e3:.0f} ms{spread})\n")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for delta in sorted({r["delta_rtt"] for r in rows_r}):
            cells = [f"{delta:g}"]
            for s in schemes:
                r = next((r for r in rows_r if r["scheme"] == s and r["delta_rtt"] == delta), None)
                if r is None:
                    cells += ["", "", ""] if s != "rearrange" else [""]
                    continue
                ci = r.get("sim_ci95", 0.0)
                cells.append(f"{r['sim']:.3f} ± {ci:.3f}" if ci else f"{r['sim']:.3f}")
                if s != "rearrange":
                    cells.append("–" if r["model"] is None else f"{r['model']:.3f} ({r['model_equation']})")
                    cells.append("–" if r["rel_error"] is None else f"{100 * r['rel_error']:+.0f}%")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


#: Δ of the claims' cells (RTTs): the 100 Mb/s grid; Δ = 10 and 20 are the paper's "fast
#: mobility", where the model has its own equation.
CLAIM_DELTAS = (10, 20, 50, 100, 200, 500, 1000)


def _sim(rows: Sequence[Mapping[str, Any]], recovery: str, scheme: str, delta: float) -> float | None:
    """The simulated throughput fraction of a point of the 100 Mb/s grid, if it was run."""
    r = next((r for r in rows if r["setting"] == "100M" and r["recovery"] == recovery and r["scheme"] == scheme
              and r["delta_rtt"] == delta), None)
    return None if r is None else float(r["sim"])


def _holds(label: str, values: Sequence[float | None], test: Callable[..., bool]) -> Cell:
    return fact(label, None if None in values else test(*values))


def _model_close(rows: Sequence[Mapping[str, Any]]) -> list[Cell]:
    return [Cell(f"{r['recovery']} {r['scheme']}, Δ = {r['delta_rtt']:g} RTTs", float(r["model"]), float(r["sim"]))
            for r in rows if r["setting"] == "100M" and r["model"] is not None]


def _forward_wins(rows: Sequence[Mapping[str, Any]]) -> list[Cell]:
    return [_holds(f"{rec}, Δ = {d}: forward >= drop", [_sim(rows, rec, "forward", d), _sim(rows, rec, "drop", d)],
                   lambda f, dr: f >= dr) for rec in ("reno", "newreno", "sack") for d in CLAIM_DELTAS]


def _rearrange_small(rows: Sequence[Mapping[str, Any]]) -> list[Cell]:
    return [_holds(f"NewReno, Δ = {d}: rearrange at most 5 % above forward",
                   [_sim(rows, "newreno", "rearrange", d), _sim(rows, "newreno", "forward", d)],
                   lambda ra, f: ra <= 1.05 * f) for d in CLAIM_DELTAS]


def _reno_forward_best(rows: Sequence[Mapping[str, Any]]) -> list[Cell]:
    return [_holds(f"Δ = {d}: Reno forward >= NewReno and SACK forward",
                   [_sim(rows, "reno", "forward", d), _sim(rows, "newreno", "forward", d),
                    _sim(rows, "sack", "forward", d)], lambda r, n, s: r >= max(n, s)) for d in CLAIM_DELTAS]


def _sack_drop_best(rows: Sequence[Mapping[str, Any]]) -> list[Cell]:
    return [_holds(f"Δ = {d}: SACK drop at least 10 % above Reno and NewReno drop",
                   [_sim(rows, "sack", "drop", d), _sim(rows, "reno", "drop", d), _sim(rows, "newreno", "drop", d)],
                   lambda s, r, n: s >= 1.1 * max(r, n)) for d in CLAIM_DELTAS]


#: The paper's conclusions (Sec. VI, VII) and the rules of their verdicts
#: (hosim.reproduce.claims), on the 100 Mb/s grid (the rows of
#: data/drop-or-forward-table-100M.json), shown in docs/reproductions/drop-or-forward.md and in
#: every report.md. The model agrees within 10 %; the other statements are checked as facts
#: ("significantly": 10 %, "a very small advantage": at most 5 %).
CLAIMS = [
    Claim("The predicted and the simulated results are very close", "", "every-point-simulated-predicted-equation-"
          "relative-error", _model_close, Tolerance(rel=0.1)),
    Claim("The forward scheme outperforms the drop scheme (by up to 20 %)", HOLDS,
          "the-papers-conclusions-next-to-ours", _forward_wins, Tolerance()),
    Claim("Forward-and-rearrange has only a very small advantage over forward, sometimes a negative one", HOLDS,
          "the-papers-conclusions-next-to-ours", _rearrange_small, Tolerance()),
    Claim("The forward scheme for Reno is even better than for NewReno and SACK (Fig. 7(b))", HOLDS,
          "the-papers-conclusions-next-to-ours", _reno_forward_best, Tolerance()),
    Claim("For the drop scheme SACK performs significantly better than Reno and NewReno (Fig. 7(a))", HOLDS,
          "the-papers-conclusions-next-to-ours", _sack_drop_best, Tolerance()),
]


def write_fcp_report(out: Path, table: list[dict[str, Any]], settings: Sequence[str], figures: Sequence[Path],
                     seeds: int, seeds_1g: int = 1) -> Path:
    """``report.md``: per setting the simulated and predicted throughput fractions, and its figures."""
    sections = [
        (SETTING_TITLES[s], markdown_table(table, s), [f for f in figures if f.stem.endswith(f"-{s}")])
        for s in settings
    ]
    intro = ("Cohen & Levin, \"To Drop or Not to Drop\": the throughput fraction of TCP across handovers, "
             f"simulated with the fcp preset ({seeds} seeds per point at 100 Mb/s, {seeds_1g} at 1 Gb/s) beside the "
             "paper's model (Fig. 6 and 7).")
    return write_report(out, "Reproduction: drop or forward at a handover", intro, sections,
                        seeds=f"1-{seeds} per point at 100 Mb/s, 1-{seeds_1g} at 1 Gb/s",
                        claims=report_lines(CLAIMS, table, "drop-or-forward.md") if "100M" in settings else ())


#: ``--check``: points of the 100M setting whose seed-1 run is compared with the committed data.
CHECK_POINTS: tuple[tuple[str, str, str, float | None], ...] = (
    ("100M", "newreno", "drop", None),
    *(("100M", "newreno", scheme, delta) for scheme in SCHEMES for delta in QUICK_DELTAS_RTT["100M"]),
)


def check_committed(
    against: Path | None = None,
    runner: Runner | None = None,
    points: Sequence[tuple[str, str, str, float | None]] = CHECK_POINTS,
) -> Comparison:
    """Quick version (seconds): seed 1 of ``points`` (``(setting, recovery, scheme, Δ)``, all
    of setting 100M) against the runs in the committed ``data/drop-or-forward-100M.json``."""
    path, committed = committed_file(against, "data/drop-or-forward-100M.json")
    comparison = Comparison(str(path))
    tasks = [preset_task(PRESET, 1, point_overrides(*spec)) for spec in points]
    summaries = (Runner() if runner is None else runner).summaries(tasks, describe=_describe)
    for spec, summary in zip(points, summaries):
        key = _key(*spec, {})
        old: dict[str, Any] = next((r for r in committed.get(key, {}).get("runs", []) if r["seed"] == 1), {})
        comparison.compare_fields(f"{key}[seed 1]", old, _reduce(summary),
                                  ["throughput_fraction", "handovers", "timeouts_per_flow", "retransmits_per_flow"])
    return comparison


@click.command("drop-or-forward", short_help="Cohen & Levin, To Drop or Not to Drop: Fig. 6 and 7.")
@output_options("drop-or-forward")
@change_options
@click.option("--settings", default="100M,1G,100M-bigbuf", show_default=True,
              help="Comma-separated settings: 100M, 1G, 100M-bigbuf.")
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Seeds per point at 100 Mb/s (settings 100M and 100M-bigbuf).")
@click.option("--seeds-1g", "seeds_1g", type=click.IntRange(min=1), default=1, show_default=True,
              help="Seeds per point at 1 Gb/s (ten times as many packets per run, after a 200 s "
                   "warm-up: each run is 230-360 s of simulated time).")
@runner_options(default_jobs=1)
@click.option("--quick", is_flag=True, help="Three Δ values, NewReno only (Fig. 6).")
@click.option("--deltas", default=None, metavar="LIST",
              help="Comma-separated Δ values (RTTs) instead of each setting's grid, every flavour.")
@click.pass_context
def cli(ctx: click.Context, out: Path | None, force: bool, check: bool, against: Path | None, settings: str,
        seeds: int, seeds_1g: int, jobs: int, cluster: str | None, cache_dir: Path | None, no_cache: bool,
        quick: bool, deltas: str | None) -> None:
    """Reproduce Fig. 6 and 7 of Cohen & Levin: simulated vs predicted throughput fraction.
    Writes data/, figures/ and report.md into --out; --check compares a quick re-run with the
    committed numbers instead."""
    from hosim.cli.invocation import command_line

    chosen = [s.strip() for s in settings.split(",") if s.strip()]
    for s in chosen:
        if s not in SETTINGS:
            raise click.BadParameter(f"unknown setting {s!r} (choose from {', '.join(SETTINGS)})",
                                     param_hint="'--settings'")
    if check:
        refuse_changes_with_check()
        with runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
            ctx.exit(check_committed(against, runner=runner).report())
    grid = QUICK_DELTAS_RTT if quick else DELTAS_RTT
    if deltas is not None:
        try:
            chosen_deltas = tuple(float(d) for d in deltas.split(",") if d.strip())
        except ValueError:
            raise click.BadParameter(f"not a list of numbers: {deltas!r}", param_hint="'--deltas'") from None
        if not chosen_deltas or min(chosen_deltas) <= 0:
            raise click.BadParameter("give one or more positive Δ values", param_hint="'--deltas'")
        grid = {s: chosen_deltas for s in SETTINGS}
    target = prepare("drop-or-forward", out, force)
    table = []
    with progress_on_stderr("drop-or-forward") as progress, \
            runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
        runner.progress = progress
        for s in chosen:
            points = Points(target / "data" / f"drop-or-forward-{s}.json")
            n = seeds_1g if s.startswith("1G") else seeds
            rows_s = rows(runner, points, [s], grid, n, fig7=not quick, log=click.echo)
            write_json(target / "data" / f"drop-or-forward-table-{s}.json", rows_s, indent=1)
            table += rows_s
    figures = []
    for s in chosen:
        for p in plot(table, target / "figures", s):
            click.echo(f"wrote {p}")
            figures.append(p)
        click.echo(markdown_table(table, s))
    report = write_fcp_report(target, table, chosen, figures, seeds, seeds_1g)
    finish("drop-or-forward", target, seeds, command_line())
    click.echo(f"wrote {report}")


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hosim.reproduce.fcp [OPTIONS]`: the same as `hosim reproduce drop-or-forward`."""
    from hosim.cli import main as hosim_main

    return hosim_main(["reproduce", "drop-or-forward", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())

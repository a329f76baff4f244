"""Reproduction of Cohen & Levin, "To Drop or Not to Drop" (Sec. VI, Fig. 6 and 7).

Runs the `fcp` preset (the paper's Fig. 1 network) over a range of mean handover intervals Δ
for the drop, forward and forward-and-rearrange schemes and the Reno, NewReno and SACK
flavours, in both bandwidth settings, and sets the simulated throughput fraction next to the
prediction of equations (1)-(9) (`hosim.models.cohen_levin`), whose Θ and RTO come from a run of
the same setting without handovers, as in the paper. Writes figures (matplotlib, Agg) and a
JSON file of every point; docs/reproductions/drop-or-forward.md discusses them.

    hosim reproduce drop-or-forward --out docs/reproductions          # everything (slow)
    hosim reproduce drop-or-forward --settings 100M --seeds 1 --quick  # a few minutes
    python -m hosim.reproduce.fcp ...                                  # the same

Every simulated point is cached in `<out>/data/drop-or-forward-<setting>.json` as soon as it
finishes, so an interrupted reproduction resumes where it stopped; the paired table (simulated,
predicted, relative error) goes to `<out>/data/drop-or-forward-table-<setting>.json`.
"""
from __future__ import annotations

import json
import math
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import click

from hosim.models import cohen_levin

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
DELTAS_RTT = {
    "100M": (10, 20, 50, 100, 200, 500, 1000),
    "1G": (50, 100, 300, 1000),
    "100M-bigbuf": (20, 50, 100, 200, 500, 1000),
}
QUICK_DELTAS_RTT = {"100M": (20, 100, 500), "1G": (100, 1000), "100M-bigbuf": (100, 500)}

PROPAGATION_RTT_S = 0.080
WARMUP_S = 2.0
#: Length of the no-handover reference runs after the warm-up (1 Gb/s is ten times slower).
NO_HANDOVER_MEASURED_S = {"100M": 160.0, "1G": 80.0, "100M-bigbuf": 160.0}


def duration_s(setting: str, delta_rtt: float) -> float:
    """Run length: the warm-up plus enough time for every mobile to hand over a few times.

    Each of the ten mobiles hands over every Δ, with a random phase, so the measured window
    holds about 10 x (duration - warm-up) / Δ handovers whatever its length.
    """
    delta_s = delta_rtt * PROPAGATION_RTT_S
    if setting.startswith("1G"):
        return WARMUP_S + max(30.0, 2.0 * delta_s)
    return WARMUP_S + max(60.0, 3.0 * delta_s)


def _run(args: tuple[dict[str, Any], int]) -> dict[str, Any]:
    import hosim

    overrides, seed = args
    summary = hosim.run(PRESET, seed=seed, overrides=overrides).summary
    flows = summary["flows"]
    mean = lambda key: statistics.fmean(f[key] for f in flows)  # noqa: E731
    return {
        "seed": seed,
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


class Cache:
    """Simulated points, keyed by setting|recovery|scheme|delta, saved after every point."""

    def __init__(self, path: Path):
        self.path = path
        self.points: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.points, indent=1, sort_keys=True))


def simulate(
    cache: Cache,
    setting: str,
    recovery: str,
    scheme: str,
    delta_rtt: float | None,
    seeds: int,
    jobs: int = 1,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Mean over seeds of the flows' mean throughput fraction (and more) at one point.

    `delta_rtt=None` is the no-handover reference run of the setting.
    """
    extra = dict(extra or {})
    key = _key(setting, recovery, scheme, delta_rtt, extra)
    if key in cache.points and len(cache.points[key]["runs"]) >= seeds:
        return cache.points[key]
    overrides: dict[str, Any] = {**SETTINGS[setting], "tcp.recovery": recovery, "fcp.scheme": scheme,
                                 "fcp.warmup_s": WARMUP_S, **extra}
    if delta_rtt is None:
        # The reference run lasts as long as a long handover run: Reno-style window growth
        # at 1 Gb/s takes minutes to reach its steady state.
        overrides["fcp.handovers"] = False
        overrides["duration_s"] = WARMUP_S + NO_HANDOVER_MEASURED_S[setting]
    else:
        overrides["fcp.handover_interval_rtt"] = float(delta_rtt)
        overrides["duration_s"] = duration_s(setting, delta_rtt)
    tasks = [(overrides, seed) for seed in range(1, seeds + 1)]
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            runs = list(pool.map(_run, tasks))
    else:
        runs = [_run(t) for t in tasks]
    fractions = [r["throughput_fraction"] for r in runs]
    point = {
        "setting": setting,
        "recovery": recovery,
        "scheme": scheme,
        "delta_rtt": delta_rtt,
        "delta_s": None if delta_rtt is None else delta_rtt * PROPAGATION_RTT_S,
        "overrides": overrides,
        "throughput_fraction": statistics.fmean(fractions),
        "throughput_fraction_sd": statistics.stdev(fractions) if len(fractions) > 1 else 0.0,
        "runs": runs,
    }
    cache.points[key] = point
    cache.save()
    return point


def no_handover_inputs(
    overrides: dict[str, Any] | None = None, seeds: int = 1, scenario: str = PRESET
) -> dict[str, Any]:
    """Θ_s, RTT and RTO of the model from runs of `scenario` without handovers.

    The paper (Sec. II, IV) takes the connection's throughput without handovers as an input.
    We run the same setting with `fcp.handovers = false` and, for every flow of every seed,
    apply `cohen_levin.inputs_from_summary` (Θ_s = goodput x mean RTT / MSS, by Little's law
    the time-average window; RTT and RTO are the flow's means); the inputs are the means over
    flows and seeds. Also returns `fraction`, the no-handover goodput over the flow's
    available bandwidth (the `throughput_fraction` of the summary), by which the model's
    fraction of Θ_s is multiplied to compare with Fig. 6 and 7, and the two topology delays.
    """
    import hosim

    overrides = {**(overrides or {}), "fcp.handovers": False}
    per_flow = []
    fractions = []
    report: dict[str, Any] = {}
    for seed in range(1, seeds + 1):
        result = hosim.run(scenario, seed=seed, overrides=overrides)
        summary = result.summary
        report = summary.get("fcp", {})
        for i, flow in enumerate(summary["flows"]):
            per_flow.append(cohen_levin.inputs_from_summary(summary, i))
            fractions.append(flow.get("throughput_fraction", float("nan")))
    return {
        "theta_pkts": statistics.fmean(p["theta_pkts"] for p in per_flow),
        "rtt_s": statistics.fmean(p["rtt_s"] for p in per_flow),
        "rto_s": statistics.fmean(p["rto_s"] for p in per_flow),
        "fraction": statistics.fmean(fractions),
        "d_fcp_bs_s": report.get("fcp_bs_delay_s", cohen_levin.PAPER_D_FCP_BS_S),
        "d_forward_s": report.get("forward_delay_s"),
        "available_bps": report.get("available_bps"),
        "flows": len(per_flow) // max(seeds, 1),
        "seeds": seeds,
    }


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


def rows(cache: Cache, settings, deltas, seeds, jobs, fig7=True, log=print) -> list[dict[str, Any]]:
    """Simulates every point and pairs it with the model. One row per (setting, flavour,
    scheme, Δ)."""
    out = []
    for setting in settings:
        recoveries = SETTING_RECOVERIES[setting] if fig7 else ("newreno",)
        for recovery in recoveries:
            base = simulate(cache, setting, recovery, "drop", None, seeds, jobs)
            inputs = _inputs_from_point(base, setting)
            log(f"{setting} {recovery} no handover: fraction {base['throughput_fraction']:.3f}, "
                f"Θ {inputs['theta_pkts']:.1f} pkts, RTT {inputs['rtt_s'] * 1e3:.0f} ms, "
                f"RTO {inputs['rto_s'] * 1e3:.0f} ms")
            schemes = SCHEMES if recovery == "newreno" else ("drop", "forward")
            for scheme in schemes:
                for delta in deltas[setting]:
                    p = simulate(cache, setting, recovery, scheme, delta, seeds, jobs)
                    pred = predict(inputs, recovery, scheme, delta * PROPAGATION_RTT_S)
                    sim = p["throughput_fraction"]
                    err = None if pred["fraction"] is None else (pred["fraction"] - sim) / sim
                    row = {
                        "setting": setting, "recovery": recovery, "scheme": scheme,
                        "delta_rtt": delta, "delta_s": delta * PROPAGATION_RTT_S,
                        "delta_measured_rtt": delta * PROPAGATION_RTT_S / inputs["rtt_s"],
                        "sim": sim, "sim_sd": p["throughput_fraction_sd"],
                        "model": pred["fraction"], "model_regime": pred.get("regime"),
                        "model_equation": pred.get("equation"), "model_reason": pred.get("reason"),
                        "rel_error": err,
                        "timeouts_per_flow": statistics.fmean(r["timeouts_per_flow"] for r in p["runs"]),
                        "fast_recoveries_per_flow": statistics.fmean(
                            r["fast_recoveries_per_flow"] for r in p["runs"]),
                        "handovers": statistics.fmean(r["handovers"] for r in p["runs"]),
                        "no_handover": base["throughput_fraction"],
                        "theta_pkts": inputs["theta_pkts"], "rtt_s": inputs["rtt_s"], "rto_s": inputs["rto_s"],
                    }
                    out.append(row)
                    model_text = "-" if row["model"] is None else f"{row['model']:.3f}"
                    log(f"  {scheme:9s} Δ={delta:5g} RTT  sim {sim:.3f} ± {p['throughput_fraction_sd']:.3f}"
                        f"  model {model_text}")
    return out


def plot(table: list[dict[str, Any]], figures: Path, setting: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True, exist_ok=True)
    paths = []
    colors = {"drop": "tab:red", "forward": "tab:blue", "rearrange": "tab:green",
              "reno": "tab:orange", "newreno": "tab:blue", "sack": "tab:purple"}

    def series(recovery, scheme, field):
        pts = [(r["delta_rtt"], r[field]) for r in table
               if r["setting"] == setting and r["recovery"] == recovery and r["scheme"] == scheme
               and r[field] is not None]
        return zip(*sorted(pts)) if pts else ((), ())

    title = SETTING_TITLES[setting]
    # Fig. 6: NewReno, every scheme.
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for scheme in SCHEMES:
        x, y = series("newreno", scheme, "sim")
        ax.plot(x, y, "o-", color=colors[scheme], label=f"{scheme} (simulated)")
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
    fig.savefig(path, dpi=120)
    plt.close(fig)
    paths.append(path)
    # Fig. 7: the three flavours under drop (a) and forward (b).
    if any(r["recovery"] != "newreno" for r in table if r["setting"] == setting):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
        for ax, scheme, letter in zip(axes, ("drop", "forward"), "ab"):
            for recovery in RECOVERIES:
                x, y = series(recovery, scheme, "sim")
                ax.plot(x, y, "o-", color=colors[recovery], label=f"{recovery} (simulated)")
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
        fig.savefig(path, dpi=120)
        plt.close(fig)
        paths.append(path)
    return paths


def markdown_table(table: list[dict[str, Any]], setting: str, recoveries=RECOVERIES) -> str:
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
        lines.append(f"**{recovery}** (no handovers: {rows_r[0]['no_handover']:.3f}; Θ = "
                     f"{rows_r[0]['theta_pkts']:.0f} pkts, RTT = {rows_r[0]['rtt_s'] * 1e3:.0f} ms, "
                     f"RTO = {rows_r[0]['rto_s'] * 1e3:.0f} ms)\n")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for delta in sorted({r["delta_rtt"] for r in rows_r}):
            cells = [f"{delta:g}"]
            for s in schemes:
                r = next((r for r in rows_r if r["scheme"] == s and r["delta_rtt"] == delta), None)
                if r is None:
                    cells += ["", "", ""] if s != "rearrange" else [""]
                    continue
                cells.append(f"{r['sim']:.3f} ± {r['sim_sd']:.3f}" if r["sim_sd"] else f"{r['sim']:.3f}")
                if s != "rearrange":
                    cells.append("–" if r["model"] is None else f"{r['model']:.3f} ({r['model_equation']})")
                    cells.append("–" if r["rel_error"] is None else f"{100 * r['rel_error']:+.0f}%")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


@click.command("drop-or-forward")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("docs/reproductions"),
              show_default=True, help="Directory for data/ and figures/.")
@click.option("--settings", default="100M,1G,100M-bigbuf", show_default=True,
              help="Comma-separated settings: 100M, 1G, 100M-bigbuf.")
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Seeds per point at 100 Mb/s (1 Gb/s runs one seed: it is ten times slower).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Parallel runs.")
@click.option("--quick", is_flag=True, help="Three Δ values, NewReno only (Fig. 6).")
def cli(out: Path, settings: str, seeds: int, jobs: int, quick: bool) -> None:
    """Reproduce Fig. 6 and 7 of Cohen & Levin: simulated vs predicted throughput fraction."""
    chosen = [s.strip() for s in settings.split(",") if s.strip()]
    for s in chosen:
        if s not in SETTINGS:
            raise click.BadParameter(f"unknown setting {s!r} (choose from {', '.join(SETTINGS)})",
                                     param_hint="'--settings'")
    deltas = QUICK_DELTAS_RTT if quick else DELTAS_RTT
    table = []
    for s in chosen:
        cache = Cache(out / "data" / f"drop-or-forward-{s}.json")
        n = 1 if s.startswith("1G") else seeds
        rows_s = rows(cache, [s], deltas, n, jobs, fig7=not quick, log=click.echo)
        (out / "data" / f"drop-or-forward-table-{s}.json").write_text(json.dumps(rows_s, indent=1))
        table += rows_s
    for s in chosen:
        for p in plot(table, out / "figures", s):
            click.echo(f"wrote {p}")
        click.echo(markdown_table(table, s))


def main(argv: list[str] | None = None) -> int:
    """Entry point of `hosim reproduce drop-or-forward [OPTIONS]`; returns the exit code."""
    try:
        cli.main(args=argv, prog_name="hosim reproduce drop-or-forward", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as error:
        error.show()
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

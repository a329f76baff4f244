#!/usr/bin/env python3
"""ns-2.35 beside hosim on the drop/forward/rearrange grid: markdown tables.

Reads the ns-2 points of drop_forward.py (``--ns2``) and one or more hosim data files written
by ``hosim reproduce drop-or-forward`` (``--hosim LABEL=PATH``, the ``data/drop-or-forward-
<setting>.json`` of an ``--out`` directory), and prints per point the throughput fraction
(mean ± 95 % confidence interval over seeds), timeouts per flow, and the derived figures the
paper's conclusions rest on: forward's gain over drop and rearrange's over forward (per-seed
ratios, paired by seed within each simulator: the same seed gives the same handover phases),
and the model's error with each simulator's own no-handover inputs (Θ, RTT, RTO).
Needs hosim installed (the model, hosim.models.cohen_levin).

    python bench/ns2/papers/drop_forward_compare.py --setting 100M \\
        --ns2 bench/results/ns2/papers/drop_forward-100M.json \\
        --hosim "hosim=DIR/data/drop-or-forward-100M.json" > bench/results/ns2/papers/drop_forward-100M.md
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

from hosim.reproduce import fcp
from hosim.stats import ci95_half_width


def load(path: str) -> dict[str, Any]:
    with open(path) as fh:
        data = json.load(fh)
    points = data.get("points", data)
    return {k: v for k, v in points.items() if isinstance(v, dict) and "runs" in v}


def key(setting: str, recovery: str, scheme: str, delta: float | None) -> str:
    return "|".join([setting, recovery, scheme, "none" if delta is None else f"{delta:g}"])


def fraction(p: dict[str, Any] | None) -> str:
    if p is None:
        return "–"
    xs = [r["throughput_fraction"] for r in p["runs"]]
    return f"{statistics.fmean(xs):.3f} ± {ci95_half_width(xs):.3f}"


def paired_gain(num: dict[str, Any] | None, den: dict[str, Any] | None) -> tuple[float, float] | None:
    """Mean and 95 % half-width of the per-seed ratio num/den − 1."""
    if num is None or den is None:
        return None
    a = {r["seed"]: r["throughput_fraction"] for r in num["runs"]}
    b = {r["seed"]: r["throughput_fraction"] for r in den["runs"]}
    ratios = [a[s] / b[s] - 1 for s in sorted(a) if s in b and b[s] > 0]
    return (statistics.fmean(ratios), ci95_half_width(ratios)) if ratios else None


def gain_text(g: tuple[float, float] | None) -> str:
    return "–" if g is None else f"{100 * g[0]:+.0f} ± {100 * g[1]:.0f} %"


def inputs(base: dict[str, Any]) -> dict[str, Any]:
    runs = base["runs"]
    return {
        "theta_pkts": statistics.fmean(r["theta_pkts"] for r in runs),
        "rtt_s": statistics.fmean(r["rtt_mean_s"] for r in runs),
        "rto_s": statistics.fmean(r["rto_mean_s"] for r in runs),
        "fraction": statistics.fmean(r["throughput_fraction"] for r in runs),
        "d_fcp_bs_s": 0.025, "d_forward_s": 0.05,
    }


def model_error(base: dict[str, Any] | None, p: dict[str, Any] | None, recovery: str, scheme: str,
                delta: float) -> str:
    if base is None or p is None:
        return "–"
    pred = fcp.predict(inputs(base), recovery, scheme, delta * fcp.PROPAGATION_RTT_S)
    if pred["fraction"] is None:
        return "–"
    sim = statistics.fmean(r["throughput_fraction"] for r in p["runs"])
    return f"{100 * (pred['fraction'] - sim) / sim:+.0f} %"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setting", default="100M")
    ap.add_argument("--ns2", required=True)
    ap.add_argument("--hosim", action="append", default=[], help="LABEL=PATH (repeatable)")
    args = ap.parse_args()
    sims = {"ns-2.35": load(args.ns2)}
    for spec in args.hosim:
        label, _, path = spec.partition("=")
        sims[label] = load(path)
    names = list(sims)
    s = args.setting
    deltas = sorted({p["delta_rtt"] for p in sims["ns-2.35"].values() if p["delta_rtt"] is not None})
    out = []
    for rec in ("reno", "newreno", "sack"):
        if key(s, rec, "drop", None) not in sims["ns-2.35"]:
            continue
        schemes = ("drop", "forward", "rearrange") if rec == "newreno" else ("drop", "forward")
        base = {n: sims[n].get(key(s, rec, "drop", None)) for n in names}
        out.append(f"\n**{rec}**, no handovers: " + ", ".join(f"{n} {fraction(base[n])}" for n in names) + "\n")
        out.append("Throughput fraction (mean ± 95 % CI over seeds), timeouts per flow:\n")
        head = ["Δ (RTT)"] + [f"{sch} {n}" for sch in schemes for n in names]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for d in deltas:
            cells = [f"{d:g}"]
            for sch in schemes:
                for n in names:
                    p = sims[n].get(key(s, rec, sch, d))
                    to = "" if p is None else f" ({statistics.fmean(r['timeouts_per_flow'] for r in p['runs']):.1f})"
                    cells.append(fraction(p) + to)
            out.append("| " + " | ".join(cells) + " |")
        out.append("\nForward over drop, rearrange over forward (paired per seed), model error (drop, forward):\n")
        head = ["Δ (RTT)"] + [f"fwd/drop {n}" for n in names]
        if rec == "newreno":
            head += [f"rearr/fwd {n}" for n in names]
        head += [f"model err drop {n}" for n in names] + [f"model err fwd {n}" for n in names]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for d in deltas:
            cells = [f"{d:g}"]
            get = {n: {sch: sims[n].get(key(s, rec, sch, d)) for sch in schemes} for n in names}
            cells += [gain_text(paired_gain(get[n]["forward"], get[n]["drop"])) for n in names]
            if rec == "newreno":
                cells += [gain_text(paired_gain(get[n]["rearrange"], get[n]["forward"])) for n in names]
            cells += [model_error(base[n], get[n]["drop"], rec, "drop", d) for n in names]
            cells += [model_error(base[n], get[n]["forward"], rec, "forward", d) for n in names]
            out.append("| " + " | ".join(cells) + " |")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

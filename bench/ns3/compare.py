#!/usr/bin/env python3
"""Side-by-side table of hosim vs ns-3 3.44 for the families of families.py.

Reads bench/results/ns3/hosim.json and ns3.json (written by run_hosim.py and run_ns3.py),
prints the comparison and writes bench/results/ns3/compare.md.

A case *misses* when the aggregate goodputs are further apart than the stack's goodput
tolerance, or the counts of loss responses (fast recoveries + timeouts, summed over flows)
further than its loss tolerance (families.STACKS: newreno 3 % / 15 %, cubic-prr 5 % / 20 %);
relative differences are (hosim - ns-3) / ns-3. Retransmissions are shown but not judged.

Usage: python bench/ns3/compare.py [--stack cubic-prr] [--hosim FILE] [--ns3 FILE] [--md FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from families import FAMILIES, STACKS  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns3"))
GOODPUT_TOL = STACKS["newreno"]["goodput_tol"]
LOSS_EVENTS_TOL = STACKS["newreno"]["loss_tol"]


def rel(h: float, n: float) -> float | None:
    if n == 0:
        return 0.0 if h == 0 else None
    return (h - n) / n


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:+.1f} %"


def verdict(h: dict, n: dict) -> tuple[bool, list[str]]:
    why = []
    g = rel(h["aggregate_goodput_bps"], n["aggregate_goodput_bps"])
    if g is None or abs(g) > GOODPUT_TOL:
        why.append(f"goodput {pct(g)}")
    le_h = h["fast_recoveries"] + h["timeouts"]
    le_n = n["fast_recoveries"] + n["timeouts"]
    le = rel(le_h, le_n)
    if le is None or abs(le) > LOSS_EVENTS_TOL:
        why.append(f"FR+TO {le_h} vs {le_n} ({pct(le)})")
    return not why, why


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stack", default="newreno", choices=sorted(STACKS))
    ap.add_argument("--hosim", default=None, help="default: hosim<stack suffix>.json")
    ap.add_argument("--ns3", default=None, help="default: ns3<stack suffix>.json")
    ap.add_argument("--md", default=None, help="default: compare<stack suffix>.md")
    args = ap.parse_args()
    st = STACKS[args.stack]
    global GOODPUT_TOL, LOSS_EVENTS_TOL
    GOODPUT_TOL, LOSS_EVENTS_TOL = st["goodput_tol"], st["loss_tol"]
    args.hosim = args.hosim or os.path.join(RESULTS, f"hosim{st['suffix']}.json")
    args.ns3 = args.ns3 or os.path.join(RESULTS, f"ns3{st['suffix']}.json")
    args.md = args.md or os.path.join(RESULTS, f"compare{st['suffix']}.md")
    with open(args.hosim) as fh:
        H = json.load(fh)
    with open(args.ns3) as fh:
        N = json.load(fh)
    hc, nc = H["cases"], N["cases"]

    summary = [
        "| family | case | goodput hosim / ns-3 [Mb/s] | Δ goodput | retx hosim / ns-3 | "
        "FR hosim / ns-3 | TO hosim / ns-3 | Δ (FR+TO) | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    details = []
    console = []
    hdr = (
        f"{'case':<22}{'goodput h/n [Mb/s]':>22}{'Δgp':>9}{'retx h/n':>14}{'FR h/n':>12}{'TO h/n':>10}"
        f"{'Δ(FR+TO)':>10}  verdict"
    )
    console.append(hdr)
    n_ok = n_all = 0
    for fam in FAMILIES:
        for c in fam["cases"]:
            name = c["name"]
            if name not in hc or name not in nc:
                console.append(
                    f"{name:<22} (missing: {'hosim ' if name not in hc else ''}{'ns-3' if name not in nc else ''})"
                )
                continue
            h, n = hc[name], nc[name]
            ok, why = verdict(h, n)
            n_all += 1
            n_ok += ok
            g = rel(h["aggregate_goodput_bps"], n["aggregate_goodput_bps"])
            le = rel(h["fast_recoveries"] + h["timeouts"], n["fast_recoveries"] + n["timeouts"])
            v = "agrees" if ok else "misses: " + "; ".join(why)
            label = f"{name} (diagnostic)" if c.get("diagnostic") else name
            hg, ng = h["aggregate_goodput_bps"] / 1e6, n["aggregate_goodput_bps"] / 1e6
            hr, nr, hf, nf = h["retransmits"], n["retransmits"], h["fast_recoveries"], n["fast_recoveries"]
            summary.append(
                f"| {fam['id']} | {label} | {hg:.3f} / {ng:.3f} "
                f"| {pct(g)} | {hr} / {nr} | {hf} / {nf} "
                f"| {h['timeouts']} / {n['timeouts']} | {pct(le)} | {'agrees' if ok else '**misses**'} |"
            )
            console.append(
                f"{name:<22}{hg:>10.3f} /{ng:>9.3f}{pct(g):>10}"
                f"{hr:>7}/{nr:<6}{hf:>6}/{nf:<5}"
                f"{h['timeouts']:>5}/{n['timeouts']:<4}{pct(le):>10}  {v}"
            )

            # per-flow table
            d = [f"### {name} ({fam['title']})", "", fam["what"] + ".", ""]
            if c["app"] == "file":
                d.append("goodput = file bytes / completion time; completion time in brackets.")
                d.append("")
            d += [
                "| flow | goodput hosim [Mb/s] | goodput ns-3 [Mb/s] | Δ | retx h / n | FR h / n | TO h / n |",
                "|---|---:|---:|---:|---:|---:|---:|",
            ]
            for fh_, fn in zip(h["flows"], n["flows"]):
                extra_h = extra_n = ""
                if c["app"] == "file":
                    extra_h = f" ({fh_['completion_time_s']:.3f} s)" if fh_["completion_time_s"] else " (incomplete)"
                    extra_n = f" ({fn['completion_time_s']:.3f} s)" if fn["completion_time_s"] else " (incomplete)"
                fhg, fng = fh_["goodput_bps"] / 1e6, fn["goodput_bps"] / 1e6
                d.append(
                    f"| {fh_['name']} | {fhg:.3f}{extra_h} | {fng:.3f}{extra_n} "
                    f"| {pct(rel(fh_['goodput_bps'], fn['goodput_bps']))} | {fh_['retransmits']} / {fn['retransmits']} "
                    f"| {fh_['fast_recoveries']} / {fn['fast_recoveries']} | {fh_['timeouts']} / {fn['timeouts']} |"
                )
            d.append(
                f"| **all** | {hg:.3f} | {ng:.3f} | {pct(g)} "
                f"| {hr} / {nr} | {hf} / {nf} "
                f"| {h['timeouts']} / {n['timeouts']} |"
            )
            hb, nb = h["bottleneck"], n["bottleneck"]
            d.append("")
            d.append(
                f"Bottleneck queue drops: hosim {hb['queue_drops']}, ns-3 {nb['queue_drops']}. "
                f"CPU of the run: hosim {h['run_cpu_s']:.3f} s, ns-3 {n['run_cpu_s']:.2f} s."
            )
            d.append("")
            details += d
            if len(h["flows"]) > 1:
                console.append(
                    "    per-flow goodput h: " + " ".join(f"{f['goodput_bps'] / 1e6:.2f}" for f in h["flows"])
                )
                console.append(
                    "    per-flow goodput n: " + " ".join(f"{f['goodput_bps'] / 1e6:.2f}" for f in n["flows"])
                )

    console.append(
        f"\n{n_ok} of {n_all} cases agree (goodput within {GOODPUT_TOL:.0%}, FR+TO within {LOSS_EVENTS_TOL:.0%})"
    )
    print("\n".join(console))

    md = [
        f"# hosim vs ns-3 3.44: scenario families (stack `{args.stack}`)",
        "",
        f"Generated by `bench/ns3/compare.py` from `{os.path.relpath(args.hosim, RESULTS)}` "
        f"({H.get('timestamp_utc')}, profile `{H.get('profile')}`) and `{os.path.relpath(args.ns3, RESULTS)}` "
        f"({N.get('timestamp_utc')}). Δ = (hosim − ns-3) / ns-3. A case misses when goodput is more than "
        f"{GOODPUT_TOL:.0%} apart or FR + TO more than {LOSS_EVENTS_TOL:.0%} apart. "
        "Workloads and counters: `bench/ns3/families.py`, `run_ns3.py`, `run_hosim.py`; "
        "explanations: `bench/README.md`.",
        "",
        *summary,
        "",
        f"{n_ok} of {n_all} cases agree.",
        "",
        "## Per flow",
        "",
        *details,
    ]
    with open(args.md, "w") as fh:
        fh.write("\n".join(md))
    print(f"wrote {args.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

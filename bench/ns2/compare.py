#!/usr/bin/env python3
"""Side-by-side table of hosim (``profile = "ns2"``) vs ns-2.35 for the families of
bench/ns3/families.py.

Reads bench/results/ns2/hosim.json and ns2.json (run_hosim.py, run_ns2.py), prints the
comparison and writes bench/results/ns2/compare.md (or --md).

Random-loss cases are means over their seeds (per flow and in total); the others are one
deterministic run. Target (issue 34): goodput within 1 %, retransmissions, fast recoveries
and timeouts each within 10 %; a scripted probe must retransmit the same segments in the same
order, each at a time within one ``tcpTick_`` (families.TCP_COMMON clock_granularity_s).
Relative differences are (hosim - ns-2) / ns-2.

Usage: python bench/ns2/compare.py [--hosim FILE] [--ns2 FILE] [--md FILE] [--title TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ns3"))
from families import FAMILIES, TCP_COMMON  # noqa: E402

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns2"))
GOODPUT_TOL = 0.01
COUNT_TOL = 0.10
TICK = TCP_COMMON["clock_granularity_s"]
KEYS = ("goodput_bps", "retransmits", "fast_recoveries", "timeouts")


def rel(h: float, n: float) -> float | None:
    if n == 0:
        return 0.0 if h == 0 else None
    return (h - n) / n


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:+.1f} %"


def mean_flows(runs: list[dict]) -> list[dict]:
    """Per-flow means over runs."""
    out = []
    for i in range(len(runs[0]["flows"])):
        out.append({k: statistics.fmean(r["flows"][i][k] for r in runs) for k in KEYS})
    return out


def totals(flows: list[dict]) -> dict:
    return {k: sum(f[k] for f in flows) for k in KEYS}


def probe_verdict(h: dict, n: dict) -> tuple[bool, str]:
    hr, nr = h.get("retransmissions_sent") or [], n.get("retransmissions_sent") or []
    hs, ns_ = [k for _, k in hr], [k for _, k in nr]
    if hs != ns_:
        return False, f"segments {hs} vs {ns_}"
    worst = max((abs(a[0] - b[0]) for a, b in zip(hr, nr)), default=0.0)
    ok = worst <= TICK + 1e-9
    return ok, f"same {len(hs)} segment(s), times within {worst * 1e3:.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosim", default=os.path.join(RESULTS, "hosim.json"))
    ap.add_argument("--ns2", default=os.path.join(RESULTS, "ns2.json"))
    ap.add_argument("--md", default=os.path.join(RESULTS, "compare.md"))
    ap.add_argument("--title", default="hosim (profile ns2) vs ns-2.35")
    args = ap.parse_args()
    with open(args.hosim) as fh:
        H = json.load(fh)
    with open(args.ns2) as fh:
        N = json.load(fh)
    hc, nc = H["cases"], N["cases"]
    summary = [
        "| family | case | runs | goodput hosim / ns-2 [Mb/s] | Δ | retx h / n | Δ | FR h / n | Δ | "
        "TO h / n | Δ | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    details: list[str] = []
    n_ok = n_all = 0
    for fam in FAMILIES:
        for c in fam["cases"]:
            name = c["name"]
            if name not in hc or name not in nc:
                continue
            hruns, nruns = hc[name]["runs"], nc[name]["runs"]
            hf, nf = mean_flows(hruns), mean_flows(nruns)
            ht, nt = totals(hf), totals(nf)
            d = {k: rel(ht[k], nt[k]) for k in KEYS}
            why = []
            if d["goodput_bps"] is None or abs(d["goodput_bps"]) > GOODPUT_TOL:
                why.append("goodput")
            for k, lab in (("retransmits", "retx"), ("fast_recoveries", "FR"), ("timeouts", "TO")):
                if d[k] is None or abs(d[k]) > COUNT_TOL:
                    why.append(lab)
            probe = bool(c["drop_segments"] or c["drop_retransmissions"])
            if probe:
                pok, ptxt = probe_verdict(hruns[0], nruns[0])
                if not pok:
                    why.append("retransmission sequence")
            ok = not why
            n_all += 1
            n_ok += ok
            label = f"{name} (diagnostic)" if c.get("diagnostic") else name
            fmt_n = (lambda x: f"{x:.1f}") if len(hruns) > 1 else (lambda x: f"{x:.0f}")
            summary.append(
                f"| {fam['id']} | {label} | {len(hruns)} "
                f"| {ht['goodput_bps'] / 1e6:.3f} / {nt['goodput_bps'] / 1e6:.3f} "
                f"| {pct(d['goodput_bps'])} | {fmt_n(ht['retransmits'])} / {fmt_n(nt['retransmits'])} "
                f"| {pct(d['retransmits'])} | {fmt_n(ht['fast_recoveries'])} / {fmt_n(nt['fast_recoveries'])} "
                f"| {pct(d['fast_recoveries'])} | {fmt_n(ht['timeouts'])} / {fmt_n(nt['timeouts'])} "
                f"| {pct(d['timeouts'])} | {'agrees' if ok else 'misses: ' + ', '.join(why)} |"
            )
            det = [f"### {name} ({fam['title']})", "", fam["what"] + ".", ""]
            if len(hruns) > 1:
                det += [f"Means over seeds 1..{len(hruns)} (hosim) and substreams 1..{len(nruns)} (ns-2).", ""]
            det += [
                "| flow | goodput hosim [Mb/s] | goodput ns-2 [Mb/s] | Δ | retx h / n | FR h / n | TO h / n |",
                "|---|---:|---:|---:|---:|---:|---:|",
            ]
            for i, (a, b) in enumerate(zip(hf, nf)):
                det.append(
                    f"| flow{i} | {a['goodput_bps'] / 1e6:.3f} | {b['goodput_bps'] / 1e6:.3f} "
                    f"| {pct(rel(a['goodput_bps'], b['goodput_bps']))} | {fmt_n(a['retransmits'])} / "
                    f"{fmt_n(b['retransmits'])} | {fmt_n(a['fast_recoveries'])} / {fmt_n(b['fast_recoveries'])} "
                    f"| {fmt_n(a['timeouts'])} / {fmt_n(b['timeouts'])} |"
                )
            if probe:
                hr = hruns[0].get("retransmissions_sent") or []
                nr = nruns[0].get("retransmissions_sent") or []
                det += [
                    "",
                    f"Retransmissions that got through, on right->d0 ({ptxt}): hosim "
                    + (", ".join(f"{k} @ {t:.4f} s" for t, k in hr) or "none")
                    + "; ns-2 "
                    + (", ".join(f"{k} @ {t:.4f} s" for t, k in nr) or "none")
                    + ".",
                ]
            det.append("")
            details += det
    print("\n".join(summary))
    print(f"\n{n_ok} of {n_all} cases meet the target")
    md = [
        f"# {args.title}: scenario families",
        "",
        f"Generated by `bench/ns2/compare.py` from `{os.path.basename(args.hosim)}` ({H.get('timestamp_utc')}) "
        f"and `{os.path.basename(args.ns2)}` ({N.get('timestamp_utc')}, {N.get('ns_version', 'ns-2')}). "
        "Δ = (hosim − ns-2) / ns-2. Target: goodput within 1 %, retransmissions, fast recoveries and "
        "timeouts each within 10 %, probes retransmitting the same segments in the same order within "
        f"one tcpTick_ ({TICK * 1e3:g} ms). Workloads: `bench/ns3/families.py`; counters: "
        "`bench/ns2/README.md`.",
        "",
        *summary,
        "",
        f"{n_ok} of {n_all} cases meet the target.",
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

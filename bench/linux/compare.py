#!/usr/bin/env python3
"""Side-by-side table of the Linux referee: the kernel's runs against hosim's `linux` profile
before and after the Linux dialect keys. Benchmark only.

Reads bench/results/linux/kernel-<cc>.json and hosim-<cc>.json (if there is one: not for
BBR), writes
bench/results/linux/compare-<cc>.md. Every cell is the mean and [min–max] over the kernel's
repeats or hosim's seeds. Marks: goodput ✓ within 5 % of the kernel's mean; a count ✓ when
hosim's mean lies within the kernel's [min, max], else ✗.

Usage: python bench/linux/compare.py [--cc cubic]
       python bench/linux/compare.py --with rcvbuf   # adds hosim-<cc>-rcvbuf.json's "after" rows
                                                     # as "rcvbuf", -> compare-<cc>-rcvbuf.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "linux"))

# (column, kernel nstat counter(s), hosim counter(s))
COUNTS = [
    ("retransmissions", ["TcpRetransSegs"], ["retransmits"]),
    ("recoveries", ["TcpExtTCPSackRecovery"], ["fast_recoveries"]),
    ("RTOs", ["TcpExtTCPTimeouts"], ["timeouts"]),
    ("TLPs", ["TcpExtTCPLossProbes"], ["tlp_probes"]),
    ("spurious RTOs", ["TcpExtTCPSpuriousRTOs"], ["frto_spurious_detected"]),
    ("lost retx", ["TcpExtTCPLostRetransmit"], ["lost_retransmissions"]),
    (
        "undos",
        ["TcpExtTCPFullUndo", "TcpExtTCPPartialUndo", "TcpExtTCPDSACKUndo", "TcpExtTCPLossUndo"],
        ["frto_spurious_detected"],
    ),
    (
        "HyStart exits",
        ["TcpExtTCPHystartTrainDetect", "TcpExtTCPHystartDelayDetect"],
        ["hystart_train_exits", "hystart_delay_exits"],
    ),
    ("dup. segments", ["TcpExtTCPDSACKRecv"], ["duplicate_segments"]),
]


def cell(vals: list[float], digits: int = 0) -> str:
    m = statistics.mean(vals)
    if min(vals) == max(vals):
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} [{min(vals):.{digits}f}–{max(vals):.{digits}f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", default="cubic")
    ap.add_argument("--with", dest="extra", default=None, metavar="NAME",
                    help="also hosim-<cc>-NAME.json's `after` runs (run_hosim.py --set ... --out), as rows NAME")
    args = ap.parse_args()
    with open(os.path.join(RESULTS, f"kernel-{args.cc}.json")) as fh:
        kernel = json.load(fh)
    hosim_path = os.path.join(RESULTS, f"hosim-{args.cc}.json")
    # BBR has no hosim counterpart: the kernel's rows alone.
    hosim = {"cases": {}}
    if os.path.exists(hosim_path):
        with open(hosim_path) as fh:
            hosim = json.load(fh)
    variants = ["before", "after"]
    if args.extra:
        extra_path = os.path.join(RESULTS, f"hosim-{args.cc}-{args.extra}.json")
        if not os.path.exists(extra_path):
            ap.error(f"--with {args.extra}: no {os.path.relpath(extra_path)} (run_hosim.py --set ... --out it)")
        with open(extra_path) as fh:
            extra = json.load(fh)
        for name, entry in extra["cases"].items():
            if name in hosim["cases"]:
                hosim["cases"][name][args.extra] = entry["after"]
        variants.append(args.extra)
    head = ["case", "stack", "goodput Mb/s", "Δ goodput"] + [c[0] for c in COUNTS]
    intro = f"Kernel {kernel['kernel']}, `{args.cc}`; " + (
        f'hosim `linux` profile with `tcp.cc = "{args.cc}"`, '
        "before = the Linux dialect keys at their RFC values, after = the profile as shipped."
        if hosim["cases"]
        else "the kernel alone (hosim has no counterpart)."
    )
    lines = [
        intro,
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    if args.extra:
        lines[0] += f" {args.extra} = after with {extra['variants']['after']}."
    misses = dict.fromkeys(variants, 0)
    for name, k in kernel["cases"].items():
        runs = k["runs"]
        kg = [r["goodput_bps"] / 1e6 for r in runs]
        kmean = statistics.mean(kg)
        kc = {col: [sum(r["nstat"].get(n, 0) for n in kn) for r in runs] for col, kn, _ in COUNTS}
        lo = [f"{kg_load:.1f}" for kg_load in (min(r["loadavg"][0] for r in runs), max(r["loadavg"][0] for r in runs))]
        row = [name, f"kernel ×{len(runs)} (load {lo[0]}–{lo[1]})", cell(kg, 3), ""]
        row += [cell(kc[col]) for col, _, _ in COUNTS]
        lines.append("| " + " | ".join(row) + " |")
        if name not in hosim["cases"]:
            continue
        for variant in variants:
            if variant not in hosim["cases"][name]:
                continue
            hr = hosim["cases"][name][variant]
            hg = [r["goodput_bps"] / 1e6 for r in hr]
            d = statistics.mean(hg) / kmean - 1
            ok = abs(d) <= 0.05
            misses[variant] += not ok
            row = [name, f"hosim {variant} ×{len(hr)}", cell(hg, 3), f"{d * 100:+.1f} % {'✓' if ok else '✗'}"]
            for col, _, hn in COUNTS:
                hv = [sum(r["flows"][i].get(n, 0) for i in range(len(r["flows"])) for n in hn) for r in hr]
                inside = min(kc[col]) <= statistics.mean(hv) <= max(kc[col])
                row.append(f"{cell(hv)} {'✓' if inside else '✗'}")
            lines.append("| " + " | ".join(row) + " |")
    if hosim["cases"]:
        lines += [
            "",
            "Goodput more than 5 % from the kernel's mean: "
            + ", ".join(f"{v} {misses[v]}" for v in variants)
            + " "
            f"of {sum(1 for n in kernel['cases'] if n in hosim['cases'])} cases.",
        ]
    out = os.path.join(RESULTS, f"compare-{args.cc}{'-' + args.extra if args.extra else ''}.md")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

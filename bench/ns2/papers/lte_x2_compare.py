#!/usr/bin/env python3
"""Tables of the LTE X2 comparison: ns-2.35 (lte_x2.py) beside hosim (lte_x2_hosim.py).

Reads bench/results/ns2/lte_x2.json and lte_x2_hosim.json, writes
bench/results/ns2/lte_x2_compare.md (and prints it).
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

RES = Path(__file__).resolve().parent.parent.parent / "results" / "ns2"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, c - h), min(1.0, c + h))


def shares(runs: list[dict]) -> str:
    """'timeout (CI) / halving / optimal' in %."""
    oc = [r["outcome"] for r in runs]
    n = len(oc)
    k = oc.count("timeout")
    lo, hi = wilson(k, n)
    still = oc.count(None)
    s = (f"{100 * k / n:.0f} % ({100 * lo:.0f}–{100 * hi:.0f}) / {100 * oc.count('halving') / n:.0f} % / "
         f"{100 * oc.count('optimal') / n:.0f} %")
    return s + (f" ({still} open)" if still else "")


def mean_std(v: list[float]) -> str:
    return f"{statistics.fmean(v):.2f} ± {statistics.stdev(v):.2f}" if len(v) > 1 else "—"


def drop_rate(runs: list[dict], q: str) -> list[float]:
    return [100 * r["queues"][q]["drops"] / max(1, r["queues"][q]["arrivals"]) for r in runs]


def main() -> int:
    ns2 = json.loads((RES / "lte_x2.json").read_text())
    hos = json.loads((RES / "lte_x2_hosim.json").read_text())
    n2, hs = ns2["runs"], hos["runs"]
    out = [f"# LTE X2: ns-2.35 beside hosim ({ns2['seeds']} seeds per row; {ns2['ns_version']})", ""]
    out += ["## Fig. 8 / 11: outcome of the reference UE's handover",
            "", "timeout (95 % Wilson CI) / halving / optimal; forwarded packets (mean)", "",
            "| path switch, target UEs | ns-2.35 (no reordering) | hosim, no reordering | hosim preset "
            "(reordering) | forwarded ns-2 / hosim |",
            "|---|---|---|---|---|"]
    for k in n2:
        if not k.startswith("fig8/"):
            continue
        _, v, ues = k.split("/")
        fw2 = statistics.fmean(r["forwarded"] for r in n2[k])
        fwh = statistics.fmean(r["forwarded"] for r in hs[k]["preset"])
        out.append(f"| {v}, {ues} | {shares(n2[k])} | {shares(hs[k]['no reordering'])} | "
                   f"{shares(hs[k]['preset'])} | {fw2:.1f} / {fwh:.1f} |")
    out += ["", "## Table IV: drop rate in % (mean ± sd over seeds; Table III setup)", "",
            "| queue | R→SeNB ns-2.35 | hosim | R→TeNB ns-2.35 | hosim (preset) | hosim, no reordering |",
            "|---|---|---|---|---|---|"]
    for k in n2:
        if not k.startswith("table4/"):
            continue
        name = k.split("/")[1]
        if k not in hs:  # an ns-2-only setting (hosim has no such knob)
            out.append(f"| {name} | {mean_std(drop_rate(n2[k], 'router->senb'))} | — | "
                       f"{mean_std(drop_rate(n2[k], 'router->tenb'))} | — | — |")
            continue
        h = hs[k]["preset"]
        out.append(f"| {name} | {mean_std(drop_rate(n2[k], 'router->senb'))} | "
                   f"{mean_std(drop_rate(h, 'router->senb'))} | {mean_std(drop_rate(n2[k], 'router->tenb'))} | "
                   f"{mean_std(drop_rate(h, 'router->tenb'))} | "
                   f"{mean_std(drop_rate(hs[k]['no reordering'], 'router->tenb'))} |")
    out += ["", "## Fig. 12: data delivered in the handover window (5 target UEs)", "",
            "ns-2: packets the sender had acknowledged from the decision to the window's end × 1460 B; "
            "hosim: bytes delivered in order to the UE in the window (its `delivered_bytes_window`).", "",
            "| variant | ns-2.35 kB | window s | timeouts | hosim (no reordering) kB | window s | timeouts |",
            "|---|---|---|---|---|---|---|"]
    fig12 = {"standard": "fig8/standard/5", "AQM": "fig12/AQM", "prediction": "fig8/predicted/5",
             "prediction + AQM": "fig12/prediction + AQM"}
    fig12 |= {k.split("/", 1)[1]: k for k in n2 if k.startswith("fig12/") and "," in k}
    for label, k in fig12.items():
        def row(runs: list[dict]) -> str:
            kb = [r["delivered_bytes_window"] / 1e3 for r in runs if r["outcome"] is not None]
            win = [r["window_end_s"] - 2.3 for r in runs if r["outcome"] is not None]
            to = sum(r["outcome"] == "timeout" for r in runs) / len(runs)
            return f"{mean_std(kb)} | {statistics.fmean(win):.3f} | {100 * to:.0f} %"
        hrow = row(hs[k]["no reordering"]) if k in hs else "— | — | —"
        out.append(f"| {label} | {row(n2[k])} | {hrow} |")
    out += ["", "## Candidates for the paper's frequent timeouts (5 target UEs)", "",
            "timeout / halving / optimal; in brackets the share of runs with an RTO of the reference "
            "flow anywhere after the decision", "",
            "| TCP change | path switch | ns-2.35 | hosim, no reordering | hosim preset |", "|---|---|---|---|---|"]
    for k in n2:
        if not k.startswith("sens/"):
            continue
        _, label, v = k.split("/")

        def after(runs: list[dict]) -> str:
            return f" [{100 * sum(r['timeouts_until_end'] > 0 for r in runs) / len(runs):.0f} %]"
        out.append(f"| {label} | {v} | {shares(n2[k])}{after(n2[k])} | "
                   f"{shares(hs[k]['no reordering'])}{after(hs[k]['no reordering'])} | "
                   f"{shares(hs[k]['preset'])}{after(hs[k]['preset'])} |")
    for v in ("standard", "fast", "predicted"):
        k = f"fig8/{v}/5"
        def after(runs: list[dict]) -> str:
            return f"{100 * sum(r['timeouts_until_end'] > 0 for r in runs) / len(runs):.0f} %"
        out.append(f"| preset (min RTO 1 s, ACK every segment) | {v} | {shares(n2[k])} [{after(n2[k])}] | "
                   f"{shares(hs[k]['no reordering'])} [{after(hs[k]['no reordering'])}] | "
                   f"{shares(hs[k]['preset'])} [{after(hs[k]['preset'])}] |")
    text = "\n".join(out) + "\n"
    (RES / "lte_x2_compare.md").write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

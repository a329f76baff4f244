#!/usr/bin/env python3
"""Two sets of the kernel's runs of the same cases side by side (run_kernel.py --out files).

Benchmark only, no root. It answers whether something outside TCP moved the referee: the
machine's load (a quiet machine against one running other work), a forwarder option, a
sysctl. Per case: goodput mean [min–max], retransmissions, recoveries, the load average at
the start of the runs, the forwarder's lateness p99.9 (median over the runs) and, where the
runs recorded it (endpoint.py since 2026-11-28), the senders' time limited by the receive
window (`tcpi_rwnd_limited`, ms, mean over the runs).

Usage:
  python bench/linux/kernel_vs_kernel.py OLD.json NEW.json [--names loaded quiet] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import cell  # noqa: E402  (mean [min–max], as compare.py's tables)


def row(name: str, label: str, runs: list[dict]) -> str:
    g = [r["goodput_bps"] / 1e6 for r in runs]
    retx = [r["nstat"].get("TcpRetransSegs", 0) for r in runs]
    rec = [r["nstat"].get("TcpExtTCPSackRecovery", 0) for r in runs]
    load = [r["loadavg"][0] for r in runs]
    p999 = statistics.median(r["forwarder"].get("lateness_us", {}).get("p999", 0.0) for r in runs)
    # every run must carry the counter (endpoint.py since 2026-11-28), else the column is "–"
    has_rl = all("rwnd_limited_us" in f for r in runs for f in r.get("tcp_info", [{}]))
    rl = statistics.mean(sum(f["rwnd_limited_us"] for f in r["tcp_info"]) / 1e3 for r in runs) if has_rl else None
    cells = [name, f"{label} ×{len(runs)}", cell(g, 3), cell(retx), cell(rec), f"{min(load):.1f}–{max(load):.1f}"]
    cells += [f"{p999:.0f}", "–" if rl is None else f"{rl:.0f}"]
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--names", nargs=2, default=["old", "new"], metavar=("OLD", "NEW"))
    ap.add_argument("--out", default=None, help="also write the table to this Markdown file")
    args = ap.parse_args()
    data = []
    for path in (args.old, args.new):
        try:
            with open(path) as fh:
                data.append(json.load(fh)["cases"])
        except (OSError, ValueError, KeyError) as e:
            print(f"kernel_vs_kernel.py: {path}: not a run_kernel.py result ({e})", file=sys.stderr)
            return 2
    head = ["case", "runs", "goodput Mb/s", "retransmissions", "recoveries", "load", "lateness p99.9 µs",
            "rwnd-limited ms"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in data[0]:
        if name not in data[1]:
            continue
        try:
            lines.append(row(name, args.names[0], data[0][name]["runs"]))
            lines.append(row(name, args.names[1], data[1][name]["runs"]))
        except (KeyError, TypeError, ValueError) as e:
            print(f"kernel_vs_kernel.py: case {name}: a run lacks {e} (not a run_kernel.py result?)", file=sys.stderr)
            return 2
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Cost per packet-hop at 512 flows against 8 flows (the dumbbell of bench/paired.py), from
interleaved fresh-process runs of ``hosim.run(..., traces=False)``.

Two units of work: a packet-hop (a packet crossing one link) and a packet (one the run
created: data, retransmission, ACK or handshake segment; the summary's `packets_created`). They
differ where packets cross different numbers of links: at 512 flows a packet dropped at the
bottleneck crosses one link instead of three, so the ratio per packet is the lower of the two
(bench/README.md, "Per packet beside per hop").

A 30–60 ms run loop is noisy at this granularity (a scheduler tick, the other core's work), so
each repeat runs 8 flows then 512 flows back to back, the ratio is taken per repeat, and the
table gives the median and the minimum of every figure; the minimum is the run least disturbed.

    python bench/per_hop.py --repeat 41 --copies 4 --out bench/results/per-hop.json

Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from paired import cpu_model, hosim_api, module_copies, write_result  # noqa: E402  (same workload, same measurement)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--small", type=int, default=8, help="flows of the small run")
    ap.add_argument("--large", type=int, default=512, help="flows of the large run")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--copies", type=int, default=0, metavar="N",
                    help="run from N fresh copies of the installed package, in turn (0: the installed "
                         "package; bench/README.md, \"The same build, different copies\")")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.copies < 0:
        ap.error(f"--copies: must be >= 0, got {args.copies}")
    with tempfile.TemporaryDirectory(prefix="hosim-copies-") as tmp:
        rows = measure(args, module_copies(args.copies, Path(tmp)))
    summarize(args, rows)
    return 0


def measure(args: argparse.Namespace, copies: list[str | None]) -> list[dict]:
    """The interleaved pairs, each from the next copy of the module in turn."""
    rows = []
    for r in range(args.repeat):
        path = copies[r % len(copies)]
        small = hosim_api(args.small, args.duration, pythonpath=path)
        large = hosim_api(args.large, args.duration, pythonpath=path)
        row = {"copy": r % len(copies) if path else None, "small": small, "large": large}
        for key in ("core_wall_s", "api_cpu_s"):
            per_small = small[key] / small["packet_hops"]
            per_large = large[key] / large["packet_hops"]
            row[f"ns_per_hop_{key}"] = [per_small * 1e9, per_large * 1e9]
            row[f"ratio_{key}"] = per_large / per_small
        per_small, per_large = small["core_wall_s"] / small["packets"], large["core_wall_s"] / large["packets"]
        row["ns_per_packet_core_wall_s"] = [per_small * 1e9, per_large * 1e9]
        row["ratio_per_packet_core_wall_s"] = per_large / per_small
        rows.append(row)
        print(f"repeat {r + 1}/{args.repeat}: core wall per hop {row['ns_per_hop_core_wall_s'][0]:.0f} / "
              f"{row['ns_per_hop_core_wall_s'][1]:.0f} ns, ratio {row['ratio_core_wall_s']:.3f}; "
              f"per packet {row['ratio_per_packet_core_wall_s']:.3f}",
              file=sys.stderr, flush=True)
    return rows


def summarize(args: argparse.Namespace, rows: list[dict]) -> None:
    """The medians and minima of the pairs, printed and written to ``args.out``."""
    summary: dict = {"hops": [rows[0]["small"]["packet_hops"], rows[0]["large"]["packet_hops"]],
                     "packets": [rows[0]["small"]["packets"], rows[0]["large"]["packets"]],
                     "load": [min(x[k]["load"] for x in rows for k in ("small", "large")),
                              max(x[k]["load"] for x in rows for k in ("small", "large"))]}
    for key in ("core_wall_s", "api_cpu_s"):
        for i, name in enumerate(("small", "large")):
            values = [x[f"ns_per_hop_{key}"][i] for x in rows]
            summary[f"ns_per_hop_{key}_{name}"] = {"median": statistics.median(values), "min": min(values)}
        ratios = [x[f"ratio_{key}"] for x in rows]
        small_min = summary[f"ns_per_hop_{key}_small"]["min"]
        summary[f"ratio_{key}"] = {"median_of_pairs": statistics.median(ratios),
                                   "of_minima": summary[f"ns_per_hop_{key}_large"]["min"] / small_min}
    values = [x["ns_per_packet_core_wall_s"] for x in rows]
    for i, name in enumerate(("small", "large")):
        summary[f"ns_per_packet_core_wall_s_{name}"] = {"median": statistics.median(v[i] for v in values),
                                                        "min": min(v[i] for v in values)}
    minima = [summary[f"ns_per_packet_core_wall_s_{name}"]["min"] for name in ("small", "large")]
    summary["ratio_per_packet_core_wall_s"] = {
        "median_of_pairs": statistics.median(x["ratio_per_packet_core_wall_s"] for x in rows),
        "of_minima": minima[1] / minima[0]}
    doc = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": "python " + " ".join(sys.argv),
           "cpus": os.cpu_count(), "cpu": cpu_model(), "config": vars(args) | {"out": str(args.out)},
           "summary": summary, "repeats": rows}
    print(json.dumps(summary, indent=1))
    write_result(args.out, doc)


if __name__ == "__main__":
    sys.exit(main())

"""Cost per packet-hop at 512 flows against 8 flows (the dumbbell of bench/paired.py), from
interleaved fresh-process runs of ``hosim.run(..., traces=False)``.

A 30–60 ms run loop is noisy at this granularity (a scheduler tick, the other core's work), so
each repeat runs 8 flows then 512 flows back to back, the ratio is taken per repeat, and the
table gives the median and the minimum of every figure; the minimum is the run least disturbed.

    python bench/per_hop.py --repeat 21 --out bench/results/per-hop.json

Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from paired import cpu_model, hosim_api, write_result  # noqa: E402  (same workload, same measurement)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--small", type=int, default=8, help="flows of the small run")
    ap.add_argument("--large", type=int, default=512, help="flows of the large run")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = []
    for r in range(args.repeat):
        small = hosim_api(args.small, args.duration)
        large = hosim_api(args.large, args.duration)
        row = {"small": small, "large": large}
        for key in ("core_wall_s", "api_cpu_s"):
            per_small = small[key] / small["packet_hops"]
            per_large = large[key] / large["packet_hops"]
            row[f"ns_per_hop_{key}"] = [per_small * 1e9, per_large * 1e9]
            row[f"ratio_{key}"] = per_large / per_small
        rows.append(row)
        print(f"repeat {r + 1}/{args.repeat}: core wall per hop {row['ns_per_hop_core_wall_s'][0]:.0f} / "
              f"{row['ns_per_hop_core_wall_s'][1]:.0f} ns, ratio {row['ratio_core_wall_s']:.3f}",
              file=sys.stderr, flush=True)
    summary: dict = {"hops": [rows[0]["small"]["packet_hops"], rows[0]["large"]["packet_hops"]],
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
    doc = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": "python " + " ".join(sys.argv),
           "cpus": os.cpu_count(), "cpu": cpu_model(), "config": vars(args) | {"out": str(args.out)},
           "summary": summary, "repeats": rows}
    print(json.dumps(summary, indent=1))
    write_result(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time of drop-or-forward's 1 Gb/s points (``hosim reproduce drop-or-forward --settings 1G``):
each scheme with SACK at Δ = 100 and 1,000 propagation RTTs, one seed, in fresh processes.

A point is the reproduction's own run (``hosim.reproduce.fcp.point_overrides``): ten mobiles,
1 Gb/s backbone, 100 Mb/s wireless, 230–360 s of simulated time (200 s warm-up). There is no ns-3 anchor: ns-3
has no model of this network (the paper ran ns-2), so the figures are hosim's alone, as events
per second and time per simulated second.

    python bench/fcp_1g.py --repeat 3 --out bench/results/fcp-1g.json

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

from paired import timed, write_result  # noqa: E402

_POINT = """
import json, sys, time, hosim
from hosim.reproduce.fcp import PRESET, point_overrides
scheme, delta = sys.argv[1], float(sys.argv[2])
ov = point_overrides("1G", "sack", scheme, delta)
hosim.run('dumbbell', seed=1, overrides={'duration_s': 0.01}, traces=False)  # warm: imports, first call
c0 = time.process_time()
r = hosim.run(PRESET, seed=1, overrides=ov, traces=False)
c1 = time.process_time()
s = r.summary
print(json.dumps({'api_cpu_s': c1 - c0, 'core_wall_s': s['wall_time_s'], 'events': s['events'],
                  'sim_time_s': s['sim_time_s'], 'link_enqueues': sum(q['enqueued'] for q in s['queues']),
                  'aggregate_goodput_bps': s['aggregate_goodput_bps'], 'handovers': len(s['handovers'])}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--deltas", default="100,1000", help="handover intervals in propagation RTTs")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    points = [(scheme, float(d)) for d in args.deltas.split(",") for scheme in ("drop", "forward", "rearrange")]
    samples: dict[str, list[dict]] = {f"{s} delta={d:g}": [] for s, d in points}
    for r in range(args.repeat):
        for scheme, delta in points:
            load = os.getloadavg()[0]
            _, _, out = timed([sys.executable, "-c", _POINT, scheme, str(delta)])
            samples[f"{scheme} delta={delta:g}"].append({**json.loads(out), "load": load})
        print(f"repeat {r + 1}/{args.repeat} done (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    summary = {}
    print("| point | simulated | `hosim.run` CPU, median (min) | events | events per CPU second | "
          "link enqueues per CPU second | handovers |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, runs in samples.items():
        cpu = statistics.median(x["api_cpu_s"] for x in runs)
        first = runs[0]
        summary[name] = {"api_cpu_s_median": cpu, "api_cpu_s_min": min(x["api_cpu_s"] for x in runs),
                         "events": first["events"], "sim_time_s": first["sim_time_s"],
                         "events_per_cpu_s": first["events"] / cpu,
                         "link_enqueues_per_cpu_s": first["link_enqueues"] / cpu,
                         "identical": all(x["aggregate_goodput_bps"] == first["aggregate_goodput_bps"] for x in runs)}
        print(f"| {name} | {first['sim_time_s']:.0f} s | {cpu:.2f} s ({summary[name]['api_cpu_s_min']:.2f} s) | "
              f"{first['events']:,} | {summary[name]['events_per_cpu_s'] / 1e6:.1f} M | "
              f"{summary[name]['link_enqueues_per_cpu_s'] / 1e6:.1f} M | {first['handovers']} |")
    write_result(args.out, {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                            "command": "python " + " ".join(sys.argv), "cpus": os.cpu_count(),
                            "summary": summary, "samples": samples})
    return 0


if __name__ == "__main__":
    sys.exit(main())

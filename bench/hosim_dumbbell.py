"""hosim side of the dumbbell benchmark (compare with ns3_dumbbell.py).

Same workload as bench/ns3_dumbbell.py: 8 bulk flows, 100 Mb/s 2 ms access links, a 12 Mb/s
20 ms bottleneck with a 90-packet DropTail queue, 60 s. TCP mirrors ns-3's defaults there:
segment 1448 bytes, SACK, initial window 10, delayed ACK every 2 segments or 200 ms,
minimum RTO 1 s, 1 ms clock granularity, Limited Transmit. Packets are 1502 bytes on the wire
like ns-3's (20 IP + 32 TCP with timestamps + 2 PPP header bytes).

Run: python bench/hosim_dumbbell.py --repeat 5 --out bench/results/hosim_dumbbell.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

OVERRIDES = {
    "tcp.recovery": "sack",
    "tcp.mss_bytes": 1448,
    "tcp.header_bytes": 54,
    "tcp.initial_window_segments": 10,
    "tcp.delayed_ack": True,
    "tcp.delayed_ack_segments": 2,
    "tcp.delayed_ack_timeout_s": 0.2,
    "tcp.min_rto_s": 1.0,
    "tcp.clock_granularity_s": 0.001,
    "tcp.rwnd_bytes": 4194304,
    "tcp.limited_transmit": True,
}


def one_run(flows: int, duration: float, seed: int) -> dict:
    """Runs in a fresh process so repeats do not share caches or allocator state."""
    code = (
        "import json, sys, time, resource, hosim\n"
        "ov = json.loads(sys.argv[1]); flows = int(sys.argv[2]); dur = float(sys.argv[3]); seed = int(sys.argv[4])\n"
        "ov.update({'dumbbell.flows': flows, 'duration_s': dur})\n"
        "hosim.run('dumbbell', seed=seed, overrides={'duration_s': 0.01}, traces=False)  # warm imports\n"
        "c0 = time.process_time(); t0 = time.perf_counter()\n"
        "r = hosim.run('dumbbell', seed=seed, overrides=ov, traces=False)\n"
        "t1 = time.perf_counter(); c1 = time.process_time()\n"
        "s = r.summary\n"
        "print(json.dumps({'core_wall_s': s['wall_time_s'], 'api_wall_s': t1 - t0, 'api_cpu_s': c1 - c0,\n"
        "  'events': s['events'], 'maxrss_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,\n"
        "  'goodput_bps': [f['goodput_bps'] for f in s['flows']],\n"
        "  'bottleneck': [q for q in s['queues'] if q['name'] == 'left->right'][0]}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(OVERRIDES), str(flows), str(duration), str(seed)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout)


def jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flows", type=int, default=8)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="bench/results/hosim_dumbbell.json")
    args = ap.parse_args()

    runs = [one_run(args.flows, args.duration, args.seed) for _ in range(args.repeat)]
    first = runs[0]
    agg = sum(first["goodput_bps"])
    core = statistics.median(r["core_wall_s"] for r in runs)
    summary = {
        "median_core_wall_s": core,
        "min_core_wall_s": min(r["core_wall_s"] for r in runs),
        "median_api_wall_s": statistics.median(r["api_wall_s"] for r in runs),
        "median_api_cpu_s": statistics.median(r["api_cpu_s"] for r in runs),
        "events": first["events"],
        "events_per_s_at_median_core_wall": first["events"] / core,
        "sim_seconds_per_wall_second": args.duration / core,
        "aggregate_goodput_bps": agg,
        "per_flow_goodput_bps": first["goodput_bps"],
        "jain_fairness": jain(first["goodput_bps"]),
        "bottleneck_drops": first["bottleneck"]["dropped"],
        "bottleneck_enqueued_packets": first["bottleneck"]["enqueued"],
        "max_rss_kib": max(r["maxrss_kib"] for r in runs),
        "results_identical_across_repeats": all(r["goodput_bps"] == first["goodput_bps"] for r in runs),
    }
    doc = {
        "simulator": "hosim",
        "machine": {"nproc": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "command": "python " + " ".join(sys.argv),
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": {
            "preset": "dumbbell", "flows": args.flows, "duration_s": args.duration, "seed": args.seed,
            "overrides": OVERRIDES,
        },
        "timing": "core_wall_s: the Rust run loop only (summary wall_time_s); api_*: a warm hosim.run() call "
        "incl. parsing, building and summary conversion; each repeat in a fresh process",
        "summary": summary,
        "runs": runs,
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"hosim dumbbell, {args.flows} flows, {args.duration:g} s simulated, {args.repeat} runs")
    for k in ("median_core_wall_s", "median_api_wall_s", "events", "events_per_s_at_median_core_wall",
              "aggregate_goodput_bps", "jain_fairness", "bottleneck_drops"):
        print(f"  {k:36s} {summary[k]:.6g}")


if __name__ == "__main__":
    main()

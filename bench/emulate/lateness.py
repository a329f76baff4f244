#!/usr/bin/env python3
"""Real-time accuracy of ``hosim emulate`` (issue 35 §2): per-packet lateness at 10, 50 and
100 Mb/s.

Benchmark only; must run as root; never part of the test suite. Each case is one emulated
transfer through the dumbbell preset with one flow (the kernel's TCP, its default congestion
control, at both ends; ``python -m hosim.netapps``), the bottleneck at the case's rate and the
access links at 1 Gb/s, for ``--seconds`` seconds of bulk transfer. The figures are the run's
own (its summary's ``emulation`` section): lateness is, for every packet written to a TUN
device, the wall-clock time of the write minus the simulated time at which the network
delivered it. Each case runs with SCHED_FIFO and a cpu_dma_latency request (the default) and,
for comparison, without (``--no-realtime``). The machine's load average is recorded with each
run: the machine is shared, and lateness grows with the load.

Output: bench/results/emulate/lateness.json and a markdown table on stdout.

Usage:
  sudo python bench/emulate/lateness.py                  # 10, 50, 100 Mb/s, 8 s each, both modes
  sudo nice -n 5 python bench/emulate/lateness.py --rates 100e6 --seconds 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "results", "emulate", "lateness.json"))


def run_case(rate: float, seconds: float, realtime: bool) -> dict:
    import hosim

    py = sys.executable
    nbytes = int(rate * seconds / 8 * 4)  # more than the time allows: the limit ends the run
    s = hosim.emulate(
        "dumbbell",
        overrides={"dumbbell.flows": 1, "dumbbell.bottleneck_bps": rate, "dumbbell.access_bps": 1e9,
                   "duration_s": seconds + 1.0},
        server=f"{py} -m hosim.netapps serve --timeout {seconds + 5} --bytes {nbytes}",
        client=f"{py} -m hosim.netapps fetch {{server}} --timeout {seconds + 5}",
        client_delay_s=0.3, app_output_dir="/tmp", realtime=realtime,
    )
    emu = s["emulation"]
    fwd = emu["flows"][0]["forward"]
    return {
        "rate_bps": rate,
        "realtime": realtime,
        "sched_fifo": emu["sched_fifo"],
        "cpu_dma_latency": emu["cpu_dma_latency"],
        "loadavg": emu["loadavg"],
        "duration_s": emu["duration_s"],
        "lateness": emu["lateness"],
        "loop_cpu_share": emu["loop_cpu_share"],
        "delivered_bps": fwd["delivered_bytes"] * 8 / max(emu["duration_s"] - 0.3, 1e-9),
        "warning": emu["warning"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", nargs="*", type=float, default=[10e6, 50e6, 100e6])
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--modes", nargs="*", default=["realtime", "plain"], choices=["realtime", "plain"])
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("lateness.py: needs root (hosim emulate)", file=sys.stderr)
        return 2
    rows = []
    for mode in args.modes:
        for rate in args.rates:
            r = run_case(rate, args.seconds, mode == "realtime")
            rows.append(r)
            lat = r["lateness"]
            print(f"{rate / 1e6:5.0f} Mb/s {mode:8s} p50 {lat['p50_us']:6.1f} p99 {lat['p99_us']:7.1f} "
                  f"p99.9 {lat['p999_us']:7.1f} max {lat['max_us']:8.1f} us  delivered "
                  f"{r['delivered_bps'] / 1e6:6.2f} Mb/s  loop CPU {100 * r['loop_cpu_share']:4.1f} %  "
                  f"load {r['loadavg'][0]:.1f}", file=sys.stderr, flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"kernel": os.uname().release, "cpus": os.cpu_count(), "runs": rows}, fh, indent=1)
        fh.write("\n")
    print("| rate | SCHED_FIFO + dma latency | packets | p50 (µs) | p99 (µs) | p99.9 (µs) | max (µs) "
          "| delivered (Mb/s) | loop CPU | load avg |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        lat = r["lateness"]
        print(f"| {r['rate_bps'] / 1e6:.0f} Mb/s | {'yes' if r['realtime'] else 'no'} | {lat['packets']} "
              f"| {lat['p50_us']:.0f} | {lat['p99_us']:.0f} | {lat['p999_us']:.0f} | {lat['max_us']:.0f} "
              f"| {r['delivered_bps'] / 1e6:.1f} | {100 * r['loop_cpu_share']:.0f} % | {r['loadavg'][0]:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The cellular network at scale (issue 37, section 6): `hosim run highway` with 100 UEs in its
7 cells for 60 s (target: under 2 s on one core), and with 1,000 UEs (target: it runs; peak
memory stated). The UEs start spread over the first 1,000 m as the preset's 20 do
(`cellular.ue_spacing_m = 1000 / N`), so all of them move through the cells. `--spacing 50`
spreads them 50 m apart instead, over every cell from the start (every cell busy).

Every measurement is a fresh `python -m hosim.cli run highway --set cellular.ues=N --json`
process; its CPU time and peak resident memory come from `os.wait4` (that process alone), its
wall time from the clock, and the core's own run time from the summary (`wall_time_s`). The
repeats of the cases are interleaved, and the load average is recorded with each sample.

    python bench/cellular_scale.py --repeat 3 --out bench/results/cellular-scale.json

Not run in CI (speed is measured here, never in timed tests).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time


def run_highway(ues: int, duration_s: float, spacing_m: float | None = None) -> dict:
    spacing = 1000 / ues if spacing_m is None else spacing_m
    args = [sys.executable, "-m", "hosim.cli", "run", "highway", "--set", f"cellular.ues={ues}",
            "--set", f"cellular.ue_spacing_m={spacing}", "--set", f"duration_s={duration_s}", "--json"]
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err = proc.stderr.read().strip() if proc.stderr else ""
            raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {err}")
        out.seek(0)
        summary = json.load(out)
    return {
        "ues": ues,
        "spacing_m": spacing,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": usage.ru_maxrss / 1024,
        "core_wall_s": summary["wall_time_s"],
        "events": summary["events"],
        "handovers": len(summary["handovers"]),
        "load": os.getloadavg()[0],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ues", default="100,1000", help="comma-separated UE counts")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--spacing", type=float, help="metres between UEs (default: 1000 / UEs)")
    ap.add_argument("--out", help="write the samples and their medians as JSON here")
    a = ap.parse_args()
    counts = [int(x) for x in a.ues.split(",") if x.strip()]
    samples: dict[int, list[dict]] = {n: [] for n in counts}
    for _ in range(a.repeat):
        for n in counts:
            s = run_highway(n, a.duration, a.spacing)
            samples[n].append(s)
            print(f"{n:5d} UEs: cpu {s['cpu_s']:.2f} s, wall {s['wall_s']:.2f} s, core {s['core_wall_s']:.2f} s, "
                  f"{s['peak_rss_mb']:.0f} MB, {s['events']} events, load {s['load']:.1f}", flush=True)
    medians = {n: {k: statistics.median(s[k] for s in v) for k in ("cpu_s", "wall_s", "core_wall_s", "peak_rss_mb")}
               for n, v in samples.items()}
    for n, m in medians.items():
        print(f"median {n} UEs: cpu {m['cpu_s']:.2f} s, wall {m['wall_s']:.2f} s, peak {m['peak_rss_mb']:.0f} MB")
    if a.out:
        machine = {"platform": platform.platform(), "cpu": platform.processor(), "cores": os.cpu_count()}
        with open(a.out, "w") as f:
            json.dump({"machine": machine, "duration_s": a.duration, "spacing_m": a.spacing, "samples": samples,
                       "medians": medians}, f, indent=1)


if __name__ == "__main__":
    main()

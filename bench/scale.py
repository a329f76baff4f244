"""Whole-process timings as the work grows: `hosim run dumbbell --json` with 1 to 512 flows, and
the 50-seed lte-x2 campaign (`hosim sweep lte-x2 --seeds 50 --no-cache`) on one worker process,
two, and a Dask LocalCluster of two.

Every measurement is a fresh `python -m hosim.cli` process, timed from start to exit (so Python
start-up, imports, the run and writing the output are all in), with the repeats of the different
cases interleaved so that a change of load hits them alike. The load average is recorded with
each figure: on a shared machine, compare figures taken at the same load only.

    python bench/scale.py --repeat 5 --out bench/results/scale.json
    python bench/scale.py --flows 1,8 --no-campaign          # quick
    python bench/scale.py --flows "" --no-cluster --repeat 20  # only --jobs 1 against --jobs 2

Not run in CI (speed is measured here, never in timed tests).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CAMPAIGNS = {
    "jobs 1": ["--jobs", "1"],
    "jobs 2": ["--jobs", "2"],
    "cluster local:2": ["--cluster", "local:2"],
}


def hosim(args: list[str], **kwargs) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``python -m hosim.cli ARGS``: (wall seconds, CPU seconds of that process and of the
    children it waited for: not of pool or Dask workers, which others reap; the completed process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "hosim.cli", *args], capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"hosim {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def run_dumbbell(flows: int, duration: float) -> dict:
    wall, cpu, proc = hosim(["run", "dumbbell", "--set", f"dumbbell.flows={flows}", "--set",
                             f"duration_s={duration}", "--json"])
    summary = json.loads(proc.stdout)
    return {"wall_s": wall, "cpu_s": cpu, "core_wall_s": summary["wall_time_s"], "events": summary["events"],
            "load": os.getloadavg()[0]}


def run_campaign(options: list[str], seeds: int, scratch: Path) -> dict:
    out = scratch / "campaign"
    shutil.rmtree(out, ignore_errors=True)
    wall, cpu, _ = hosim(["sweep", "lte-x2", "--seeds", str(seeds), "--no-cache", "--quiet", "--out", str(out),
                          *options])
    return {"wall_s": wall, "cpu_s": cpu, "load": os.getloadavg()[0]}


def flow_counts(text: str) -> list[int]:
    """``--flows``: positive integers, comma-separated; '' for none."""
    try:
        counts = [int(f) for f in text.split(",") if f.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if any(n < 1 for n in counts):
        raise argparse.ArgumentTypeError(f"flow counts must be at least 1, got {text!r}")
    return counts


def stats(samples: list[dict], key: str) -> dict:
    values = [s[key] for s in samples]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--flows", type=flow_counts, default="1,8,64,512",
                        help="dumbbell flow counts, comma-separated ('' for none)")
    parser.add_argument("--duration", type=float, default=60.0, help="simulated seconds of the dumbbell runs")
    parser.add_argument("--seeds", type=int, default=50, help="seeds of the lte-x2 campaign")
    parser.add_argument("--no-campaign", action="store_true", help="only the dumbbell runs")
    parser.add_argument("--no-cluster", action="store_true", help="leave out the Dask LocalCluster campaign")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args()
    flows = args.flows
    campaigns = {} if args.no_campaign else dict(CAMPAIGNS)
    if args.no_cluster:
        campaigns.pop("cluster local:2")

    dumbbell: dict[int, list[dict]] = {n: [] for n in flows}
    campaign: dict[str, list[dict]] = {name: [] for name in campaigns}
    with tempfile.TemporaryDirectory(prefix="hosim-scale-") as tmp:
        for repeat in range(args.repeat):
            for n in flows:
                dumbbell[n].append(run_dumbbell(n, args.duration))
            for name, options in campaigns.items():
                campaign[name].append(run_campaign(options, args.seeds, Path(tmp)))
            print(f"repeat {repeat + 1}/{args.repeat} done (load {os.getloadavg()[0]:.1f})", file=sys.stderr)

    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "repeat": args.repeat,
        "dumbbell": {"duration_s": args.duration, "runs": {
            str(n): {"wall_s": stats(s, "wall_s"), "cpu_s": stats(s, "cpu_s"), "core_wall_s": stats(s, "core_wall_s"),
                     "events": s[0]["events"], "load": stats(s, "load"), "samples": s} for n, s in dumbbell.items()}},
        "lte_x2_campaign": {"seeds": args.seeds, "runs": {
            name: {"wall_s": stats(s, "wall_s"), "cpu_s": stats(s, "cpu_s"), "load": stats(s, "load"), "samples": s}
            for name, s in campaign.items()}},
    }
    if "jobs 1" in campaign and "jobs 2" in campaign:  # each repeat runs them back to back: a pair
        pairs = list(zip(campaign["jobs 1"], campaign["jobs 2"]))
        result["lte_x2_campaign"]["jobs_2_faster_in"] = sum(two["wall_s"] < one["wall_s"] for one, two in pairs)
        result["lte_x2_campaign"]["pairs"] = len(pairs)
    print("| case | wall, median (min) | CPU of the main process, median | core run loop, median | events | load |")
    print("|---|---:|---:|---:|---:|---:|")
    for n, entry in result["dumbbell"]["runs"].items():
        print(f"| `hosim run dumbbell`, {n} flows | {entry['wall_s']['median']:.3f} s ({entry['wall_s']['min']:.3f} s) "
              f"| {entry['cpu_s']['median']:.3f} s | {entry['core_wall_s']['median']:.3f} s | {entry['events']:,} "
              f"| {entry['load']['median']:.1f} |")
    for name, entry in result["lte_x2_campaign"]["runs"].items():
        print(f"| lte-x2 campaign, {args.seeds} seeds, {name} | {entry['wall_s']['median']:.3f} s "
              f"({entry['wall_s']['min']:.3f} s) | {entry['cpu_s']['median']:.3f} s | | "
              f"| {entry['load']['median']:.1f} |")
    if "pairs" in result["lte_x2_campaign"]:
        print(f"--jobs 2 faster than --jobs 1 in {result['lte_x2_campaign']['jobs_2_faster_in']} of "
              f"{result['lte_x2_campaign']['pairs']} pairs")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

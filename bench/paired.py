"""Paired, interleaved hosim vs ns-3 runs of the dumbbell benchmark (bench/ns3_dumbbell.py's workload).

Each repeat runs, one after the other and each in a fresh process:
  1. ns-3 (``ns3_dumbbell.py --worker``): the whole process (Python start, ``from ns import ns``,
     set-up, ``Simulator::Run``) and ``Simulator::Run`` alone;
  2. ``hosim run dumbbell --json`` as a whole process (``python -m hosim.cli``);
  3. a warm ``hosim.run(..., traces=False)`` in a fresh process: its CPU time (parse, build, run,
     summary to Python) and the core run loop's wall time; then (``--api-span``) the same call
     repeated in that process until the calls add up to about one ``Simulator::Run`` of CPU
     time, and their mean. A 13 ms call lands whole in a quiet or a busy spell of this shared
     machine, where ns-3's 2 s run averages over both; the mean over a like stretch compares
     the two under the same mix.
so that a change of the machine's load hits both simulators alike; the 1-minute load average is
recorded beside every sample. Ratios are taken per repeat (ns-3 / hosim), then the median.

Packet-hops: a packet crossing one link. hosim: Σ enqueued − Σ lost on links − packets still in
flight at the end (exact for a topology without agents, like the dumbbell); ns-3: ``MacRx`` calls
of every point-to-point device (``ns3_dumbbell.py``).

    pip install ns3==3.44.post0     # benchmark only, never a hosim dependency
    python bench/paired.py --flows 8 --repeat 3 --out bench/results/paired-8.json
    python bench/paired.py --flows 512 --repeat 3 --no-ns3 --out bench/results/paired-512.json
    python bench/paired.py --flows 8 --repeat 9 --copies 3 --out bench/results/paired-8.json

``--copies N`` runs hosim from N fresh copies of the installed package in turn: the same file
copied twice can run up to 14 % apart on one machine (bench/README.md, "The same build,
different copies").

Not run in CI.
"""

from __future__ import annotations

import argparse
import importlib.util
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hosim_dumbbell import OVERRIDES  # noqa: E402  (the TCP settings that mirror ns-3's)


def timed(cmd: list[str], pythonpath: str | None = None) -> tuple[float, float, str]:
    """Runs ``cmd`` (with ``PYTHONPATH=pythonpath`` if given): (wall seconds, CPU seconds of the
    process and its waited-for children, stdout)."""
    env = None if pythonpath is None else {**os.environ, "PYTHONPATH": pythonpath}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def overrides(flows: int, duration: float) -> dict:
    return {**OVERRIDES, "dumbbell.flows": flows, "duration_s": duration}


def setting_args(flows: int, duration: float) -> list[str]:
    """The overrides as `key=value` settings for a command line (booleans as JSON)."""
    return [f"{k}={json.dumps(v) if isinstance(v, bool) else v}" for k, v in overrides(flows, duration).items()]


def hops(summary: dict) -> int:
    q = summary["queues"]
    inv = summary["invariants"]
    return sum(x["enqueued"] for x in q) - sum(x["lost_on_link"] for x in q) - inv["packets_in_flight"]


def ns3_run(flows: int, duration: float) -> dict:
    cmd = [sys.executable, str(HERE / "ns3_dumbbell.py"), "--worker", "--flows", str(flows),
           "--duration", str(duration)]
    load = os.getloadavg()[0]
    wall, cpu, out = timed(cmd)
    res = json.loads([ln for ln in out.splitlines() if ln.startswith("@@RESULT@@")][-1][len("@@RESULT@@"):])
    return {"process_wall_s": wall, "process_cpu_s": cpu, "run_wall_s": res["run_wall_s"],
            "run_cpu_s": res["run_cpu_s"], "import_s": res["import_s"], "setup_s": res["setup_s"],
            "events": res["events"], "packet_hops": res.get("packet_hops"),
            "aggregate_goodput_bps": res["aggregate_goodput_bps"], "load": load}


def module_copies(count: int, parent: Path) -> list[str | None]:
    """``count`` fresh copies of the installed hosim package under ``parent``, as PYTHONPATH
    entries (``[None]``, the installed package itself, for ``count`` 0). Two copies of one file
    can run the same code at speeds up to 14 % apart on this machine (where the file's pages
    land); runs spread over several copies measure the build, not one copy's placement
    (bench/README.md, "The same build, different copies")."""
    if count == 0:
        return [None]
    spec = importlib.util.find_spec("hosim")
    if spec is None or spec.origin is None:
        raise SystemExit("hosim is not installed: run `python3 -m pip install .` first")
    package = Path(spec.origin).parent
    dirs: list[str | None] = []
    for i in range(count):
        target = parent / f"copy{i}"
        # With its __pycache__ (valid: copytree keeps the sources' times), so that a copy's first
        # process does not compile the bytecode.
        shutil.copytree(package, target / "hosim")
        dirs.append(str(target))
    return dirs


def hosim_process(flows: int, duration: float, pythonpath: str | None = None) -> dict:
    cmd = [sys.executable, "-m", "hosim.cli", "run", "dumbbell", "--json"]
    for setting in setting_args(flows, duration):
        cmd += ["--set", setting]
    load = os.getloadavg()[0]
    wall, cpu, out = timed(cmd, pythonpath)
    s = json.loads(out)
    return {"process_wall_s": wall, "process_cpu_s": cpu, "core_wall_s": s["wall_time_s"], "events": s["events"],
            "packet_hops": hops(s), "aggregate_goodput_bps": s["aggregate_goodput_bps"], "load": load}


_API = """
import json, statistics, sys, time, hosim
ov = json.loads(sys.argv[1]); span = float(sys.argv[2])
hosim.run('dumbbell', seed=1, overrides={'duration_s': 0.01}, traces=False)  # warm: imports, first call
c0 = time.process_time(); t0 = time.perf_counter()
r = hosim.run('dumbbell', seed=1, overrides=ov, traces=False)
t1 = time.perf_counter(); c1 = time.process_time()
s = r.summary
cpus = [c1 - c0]
while sum(cpus) < span:  # the same run again, until the calls span `span` CPU seconds
    c0 = time.process_time()
    again = hosim.run('dumbbell', seed=1, overrides=ov, traces=False)
    cpus.append(time.process_time() - c0)
    assert again.summary['aggregate_goodput_bps'] == s['aggregate_goodput_bps']
print(json.dumps({'api_cpu_s': cpus[0], 'api_wall_s': t1 - t0, 'core_wall_s': s['wall_time_s'],
                  'api_cpu_span_mean_s': statistics.fmean(cpus), 'api_cpu_span_min_s': min(cpus),
                  'api_span_runs': len(cpus),
                  'events': s['events'], 'queues': s['queues'], 'invariants': s['invariants'],
                  'aggregate_goodput_bps': s['aggregate_goodput_bps']}))
"""


def hosim_api(flows: int, duration: float, span: float = 0.0, pythonpath: str | None = None) -> dict:
    """One warm ``hosim.run`` in a fresh process (``api_cpu_s``), and with ``span`` > 0 the same
    run repeated in that process until the calls add up to ``span`` CPU seconds: their mean
    (``api_cpu_span_mean_s``) is timed over a stretch as long as ns-3's ``Simulator::Run``, so
    that both see this shared machine's busy spells in the same proportion."""
    load = os.getloadavg()[0]
    _, _, out = timed([sys.executable, "-c", _API, json.dumps(overrides(flows, duration)), str(span)], pythonpath)
    s = json.loads(out)
    row = {"api_cpu_s": s["api_cpu_s"], "api_wall_s": s["api_wall_s"], "core_wall_s": s["core_wall_s"],
           "events": s["events"], "packet_hops": hops(s), "packets": s["invariants"]["packets_created"],
           "aggregate_goodput_bps": s["aggregate_goodput_bps"], "load": load}
    if span > 0:
        row.update({k: s[k] for k in ("api_cpu_span_mean_s", "api_cpu_span_min_s", "api_span_runs")})
    return row


def cpu_model() -> str:
    """The processor's model name (Linux: /proc/cpuinfo), for the results: ratios against ns-3
    and between flow counts differ from one processor to another (bench/README.md)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def write_result(path: Path | None, doc: dict) -> None:
    """Writes a benchmark's JSON result (nothing when ``path`` is None)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def med(samples: list[dict], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=8)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-ns3", action="store_true", help="hosim only")
    ap.add_argument("--api-span", type=float, default=2.0, metavar="SECONDS",
                    help="also repeat the warm hosim.run until the calls span this much CPU time and "
                         "report their mean (default 2.0, about one Simulator::Run; 0: one call only)")
    ap.add_argument("--copies", type=int, default=0, metavar="N",
                    help="run hosim from N fresh copies of the installed package, in turn (0: the "
                         "installed package; bench/README.md, \"The same build, different copies\")")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.api_span < 0:
        ap.error(f"--api-span: must be >= 0 seconds, got {args.api_span}")
    if args.copies < 0:
        ap.error(f"--copies: must be >= 0, got {args.copies}")

    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="hosim-copies-") as tmp:
        copies = module_copies(args.copies, Path(tmp))
        for r in range(args.repeat):
            path = copies[r % len(copies)]
            row: dict = {"copy": r % len(copies) if path else None}
            if not args.no_ns3:
                row["ns3"] = ns3_run(args.flows, args.duration)
            row["hosim_process"] = hosim_process(args.flows, args.duration, path)
            row["hosim_api"] = hosim_api(args.flows, args.duration, args.api_span, path)
            rows.append(row)
            print(f"repeat {r + 1}/{args.repeat}: " + json.dumps(row), file=sys.stderr, flush=True)

    proc = [r["hosim_process"] for r in rows]
    api = [r["hosim_api"] for r in rows]
    summary: dict = {
        "hosim_process_wall_s": med(proc, "process_wall_s"),
        "hosim_process_cpu_s": med(proc, "process_cpu_s"),
        "hosim_api_cpu_s": med(api, "api_cpu_s"),
        **({"hosim_api_cpu_span_mean_s": med(api, "api_cpu_span_mean_s")} if args.api_span > 0 else {}),
        "hosim_core_wall_s": med(api, "core_wall_s"),
        "hosim_events": api[0]["events"],
        "hosim_packet_hops": api[0]["packet_hops"],
        "hosim_events_per_api_cpu_s": api[0]["events"] / med(api, "api_cpu_s"),
        "hosim_hops_per_api_cpu_s": api[0]["packet_hops"] / med(api, "api_cpu_s"),
        "hosim_events_per_core_wall_s": api[0]["events"] / med(api, "core_wall_s"),
        "hosim_hops_per_core_wall_s": api[0]["packet_hops"] / med(api, "core_wall_s"),
        "hosim_ns_per_hop_core_wall": med(api, "core_wall_s") / api[0]["packet_hops"] * 1e9,
        "hosim_ns_per_hop_api_cpu": med(api, "api_cpu_s") / api[0]["packet_hops"] * 1e9,
        "hosim_aggregate_goodput_bps": api[0]["aggregate_goodput_bps"],
        "hosim_identical": all(a["aggregate_goodput_bps"] == api[0]["aggregate_goodput_bps"] for a in api + proc),
        "load_median": statistics.median(s["load"] for r in rows for s in r.values() if isinstance(s, dict)),
        "load_max": max(s["load"] for r in rows for s in r.values() if isinstance(s, dict)),
    }
    if not args.no_ns3:
        ns3 = [r["ns3"] for r in rows]
        summary.update({
            "ns3_process_wall_s": med(ns3, "process_wall_s"),
            "ns3_process_cpu_s": med(ns3, "process_cpu_s"),
            "ns3_run_wall_s": med(ns3, "run_wall_s"),
            "ns3_run_cpu_s": med(ns3, "run_cpu_s"),
            "ns3_import_s": med(ns3, "import_s"),
            "ns3_events": ns3[0]["events"],
            "ns3_packet_hops": ns3[0]["packet_hops"],
            "ns3_aggregate_goodput_bps": ns3[0]["aggregate_goodput_bps"],
            # Per repeat, then the median: each pair ran back to back at about the same load.
            "ratio_process_wall": statistics.median(
                r["ns3"]["process_wall_s"] / r["hosim_process"]["process_wall_s"] for r in rows),
            "ratio_process_cpu": statistics.median(
                r["ns3"]["process_cpu_s"] / r["hosim_process"]["process_cpu_s"] for r in rows),
            "ratio_run_cpu_vs_api_cpu": statistics.median(
                r["ns3"]["run_cpu_s"] / r["hosim_api"]["api_cpu_s"] for r in rows),
            **({"ratio_run_cpu_vs_api_cpu_span_mean": statistics.median(
                r["ns3"]["run_cpu_s"] / r["hosim_api"]["api_cpu_span_mean_s"] for r in rows)}
               if args.api_span > 0 else {}),
            "ratio_run_wall_vs_core_wall": statistics.median(
                r["ns3"]["run_wall_s"] / r["hosim_api"]["core_wall_s"] for r in rows),
            "goodput_delta": api[0]["aggregate_goodput_bps"] / ns3[0]["aggregate_goodput_bps"] - 1,
        })
    doc = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": "python " + " ".join(sys.argv),
        "machine": {"cpus": os.cpu_count(), "cpu": cpu_model(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "config": {"flows": args.flows, "duration_s": args.duration, "copies": args.copies, "overrides": OVERRIDES},
        "summary": summary,
        "repeats": rows,
    }
    for k, v in summary.items():
        print(f"{k:34s} {v:.6g}" if isinstance(v, float) else f"{k:34s} {v}")
    write_result(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""hosim beside ns-2.35 on the same workloads, paired and interleaved (the method of bench/paired.py).

Workload: the 8-flow dumbbell as a bench/ns3/families.py case (8 bulk flows, 100 Mb/s 2 ms
access links, 12 Mb/s 20 ms bottleneck, 90-packet DropTail queue, SACK, delayed ACKs, the
TCP settings of families.TCP_COMMON), generated for ns-2 by run_ns2.case_tcl and for hosim by
bench/ns3/run_hosim.case_toml with run_hosim.NS2_MATCHED (``profile = "ns2"``), at 60 s and
600 s of simulated time.

Each repeat runs, one right after the other, each in a fresh process:
  1. ns-2: ``ns case.tcl`` for the duration, and for a near-zero duration (1 ms): the whole
     process's wall and CPU time; its run loop = whole - near-zero run (ns-2 reports no
     run-loop time of its own);
  2. hosim: ``python -m hosim.cli run case.toml --set ... --json``, the same two durations: the
     whole process, and the core run loop from the summary (``wall_time_s``).
Ratios (hosim / ns-2) are taken per repeat, then the median; the 1-minute load average is kept
beside every repeat (the machine is shared).

The papers' setups: ``--workload fcp``: the drop-or-forward setup (bench/ns2/papers/
drop_forward.tcl against hosim's ``fcp`` preset): 10 NewReno flows, 100 Mb/s backbone,
10 Mb/s wireless, forward scheme, a handover every 100 RTTs, 2 s warm-up, 62 s (the driver's
run length at Δ = 100); hosim with the preset as committed. ``--workload lte``: the LTE X2
fast path switch with 5 target UEs, 5 s (bench/ns2/papers/lte_x2.py and lte_x2_hosim.py).
``--workload hsdpa``: HSDPA Table I, a random level every 20 ms, no proxy, 150 s
(bench/ns2/papers/hsdpa.py). Each is its script's own ns-2 case and hosim overrides.

Usage: python bench/ns2/speed.py [--repeat 5] [--durations 60 600] [--workload dumbbell|fcp|lte|hsdpa]
       -> bench/results/ns2/speed[-fcp].json and a table on stdout
"""

from __future__ import annotations

import argparse
import copy
import importlib
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ns3"))
import run_ns2  # noqa: E402
from families import _case  # noqa: E402

_spec = importlib.util.spec_from_file_location("ns2_run_hosim", os.path.join(HERE, "run_hosim.py"))
assert _spec is not None and _spec.loader is not None
hosim_side = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hosim_side)

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns2"))
NEAR_ZERO_S = 0.001


def fcp_tcl(duration: float) -> str:
    """The drop-or-forward point of the fcp workload, for ns-2 (drop_forward.tcl)."""
    sys.path.insert(0, os.path.join(HERE, "papers"))
    import drop_forward

    warmup = min(2.0, duration / 2)
    return drop_forward.tcl("100M", "newreno", "forward", 100.0, 1, warmup, duration)


def fcp_hosim_cmd(duration: float) -> list[str]:
    warmup = min(2.0, duration / 2)
    sets = {"fcp.scheme": '"forward"', "fcp.handover_interval_rtt": "100", "fcp.warmup_s": f"{warmup:g}",
            "duration_s": f"{duration:g}"}
    cmd = [sys.executable, "-m", "hosim.cli", "run", "fcp", "--json"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    return cmd


def _paper_module(papers_dir: str, name: str):  # type: ignore[no-untyped-def]
    """A module of the papers' ns-2 scripts (bench/ns2/papers/NAME.py), or None if absent."""
    path = os.path.join(papers_dir, f"{name}.py")
    if not os.path.exists(path):
        return None
    if papers_dir not in sys.path:
        sys.path.insert(0, papers_dir)
    return importlib.import_module(name)


def paper_workload(name: str, papers_dir: str) -> tuple[Any, Any] | None:
    """(ns-2 Tcl of a duration, hosim command of a duration) for the LTE X2 and HSDPA setups,
    built by those papers' own scripts (bench/ns2/papers/lte_x2*.py, hsdpa*.py); None when a
    script is missing."""
    if name == "lte":
        lte, lte_h = _paper_module(papers_dir, "lte_x2"), _paper_module(papers_dir, "lte_x2_hosim")
        if lte is None or lte_h is None:
            return None

        def lte_tcl(d: float) -> str:
            return _near_zero(str(lte.case_tcl(lte.scenario("fast", 5, duration_s=max(d, 5.0)), 1)), d)

        def lte_cmd(d: float) -> list[str]:
            o = lte_h.overrides(lte.scenario("fast", 5, duration_s=d))
            if d <= NEAR_ZERO_S:
                o["lte_x2.handover_at_s"] = d / 2  # must fall inside the run
            return _hosim_cmd("lte-x2", o)

        return lte_tcl, lte_cmd
    if name == "hsdpa":
        hs = _paper_module(papers_dir, "hsdpa")
        if hs is None:
            return None

        def run(d: float) -> dict:
            return {"kind": "random", "period_s": 0.02, "seed": 1, "proxy": False, "setup": {"duration_s": d}}

        def hs_cmd(d: float) -> list[str]:
            o = {"hsdpa.rate_change": "next_packet", "hsdpa.bandwidth": "random", "hsdpa.period_s": 0.02,
                 "hsdpa.proxy": False, "duration_s": d}
            return _hosim_cmd("hsdpa", o)

        return (lambda d: _near_zero(str(hs.run_tcl(run(max(d, 150.0)))), d)), hs_cmd
    raise ValueError(name)


def _near_zero(text: str, d: float) -> str:
    """A paper's script cut short at ``d`` when ``d`` is the near-zero run: its own finish
    procedure reads state that only exists later, so an ``exit`` is scheduled instead."""
    if d > NEAR_ZERO_S:
        return text
    head, sep, tail = text.rpartition("$ns run")
    assert sep, "a paper's script ends with $ns run"
    return f'{head}$ns at {d} "exit 0"\n{sep}{tail}'


def _hosim_cmd(preset: str, overrides: dict) -> list[str]:
    cmd = [sys.executable, "-m", "hosim.cli", "run", preset, "--json"]
    for k, v in overrides.items():
        cmd += ["--set", f"{k}={json.dumps(v) if isinstance(v, (str, bool)) else v}"]
    return cmd


def workload(duration: float) -> dict:
    c = _case("speed-dumbbell-8", flows=8, queue=90, duration_s=duration)
    c["family"] = "speed"
    return copy.deepcopy(c)


def timed(cmd: list[str], cwd: str) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout


def ns2_process(c: Any, wd: str) -> tuple[float, float]:
    """ns-2 on a dumbbell case (a dict), the fcp workload of that duration (a float), or a
    paper's workload ((tcl, command, duration))."""
    path = os.path.join(wd, "case.tcl")
    if isinstance(c, dict):
        text = run_ns2.case_tcl(c, 1)
    elif isinstance(c, tuple):
        text = c[0](c[2])
    else:
        text = fcp_tcl(c)
    with open(path, "w") as fh:
        fh.write(text)
    wall, cpu, _ = timed(["ns", path], wd)
    return wall, cpu


def hosim_process(c: Any, wd: str) -> tuple[float, float, float, int]:
    if isinstance(c, tuple):
        cmd = c[1](c[2])
    elif isinstance(c, dict):
        path = os.path.join(wd, "case.toml")
        with open(path, "w") as fh:
            fh.write(hosim_side.ns3_side.case_toml(c))
        cmd = [sys.executable, "-m", "hosim.cli", "run", path, "--json"]
        for k, v in hosim_side.NS2_MATCHED.items():
            cmd += ["--set", f"{k}={json.dumps(v) if isinstance(v, (str, bool)) else v}"]
    else:
        cmd = fcp_hosim_cmd(c)
    wall, cpu, out = timed(cmd, wd)
    s = json.loads(out)
    return wall, cpu, s["wall_time_s"], s["events"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--durations", type=float, nargs="+", default=None,
                    help="simulated seconds (default: 60 600 for the dumbbell, 62 for fcp)")
    ap.add_argument("--workload", choices=("dumbbell", "fcp", "lte", "hsdpa"), default="dumbbell")
    ap.add_argument("--papers-dir", default=os.path.join(HERE, "papers"),
                    help="where the LTE X2 and HSDPA scripts are (lte_x2.py, lte_x2_hosim.py, hsdpa.py)")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    fcp = args.workload == "fcp"
    paper = None
    if args.workload in ("lte", "hsdpa"):
        paper = paper_workload(args.workload, args.papers_dir)
        if paper is None:
            print(f"speed.py: the {args.workload} scripts are not in {args.papers_dir}", file=sys.stderr)
            return 2
    if args.durations is None:
        args.durations = {"fcp": [62.0], "lte": [5.0], "hsdpa": [150.0]}.get(args.workload, [60.0, 600.0])
    if not args.out:
        name = "speed.json" if args.workload == "dumbbell" else f"speed-{args.workload}.json"
        args.out = os.path.join(RESULTS, name)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ns2speed-") as wd:
        for rep in range(args.repeat):
            for dur in args.durations:
                c: Any
                c0: Any
                if paper is not None:
                    c, c0 = (*paper, dur), (*paper, NEAR_ZERO_S)
                elif fcp:
                    c, c0 = dur, NEAR_ZERO_S
                else:
                    c, c0 = workload(dur), workload(NEAR_ZERO_S)
                n_wall, n_cpu = ns2_process(c, wd)
                n0_wall, n0_cpu = ns2_process(c0, wd)
                h_wall, h_cpu, h_core, events = hosim_process(c, wd)
                h0_wall, h0_cpu, _, _ = hosim_process(c0, wd)
                row = {
                    "repeat": rep,
                    "duration_s": dur,
                    "load1": os.getloadavg()[0],
                    "ns2_process_wall_s": n_wall,
                    "ns2_process_cpu_s": n_cpu,
                    "ns2_startup_wall_s": n0_wall,
                    "ns2_run_wall_s": max(n_wall - n0_wall, 0.0),
                    "hosim_process_wall_s": h_wall,
                    "hosim_process_cpu_s": h_cpu,
                    "hosim_startup_wall_s": h0_wall,
                    "hosim_core_wall_s": h_core,
                    "hosim_events": events,
                }
                rows.append(row)
                print(
                    f"rep {rep} {dur:>5g} s: ns-2 {n_wall:.3f} s (start-up {n0_wall:.3f}), hosim {h_wall:.3f} s "
                    f"(start-up {h0_wall:.3f}, run loop {h_core:.3f}), load {row['load1']:.2f}",
                    flush=True,
                )
    summary = []
    print(
        f"\n{'duration':>8} {'ns-2 process':>13} {'hosim process':>14} {'ratio':>6} {'ns-2 loop':>10} "
        f"{'hosim loop':>11} {'ratio':>6} {'ns-2 start':>11} {'hosim start':>12}"
    )
    for dur in args.durations:
        rs = [r for r in rows if r["duration_s"] == dur]

        def med(k: str, rs: list = rs) -> float:
            return statistics.median(r[k] for r in rs)

        s = {
            "duration_s": dur,
            "repeats": len(rs),
            "ns2_process_wall_s": med("ns2_process_wall_s"),
            "hosim_process_wall_s": med("hosim_process_wall_s"),
            "ratio_process_wall_hosim_over_ns2": statistics.median(
                r["hosim_process_wall_s"] / r["ns2_process_wall_s"] for r in rs
            ),
            "ns2_run_wall_s": med("ns2_run_wall_s"),
            "hosim_core_wall_s": med("hosim_core_wall_s"),
            "ratio_run_loop_hosim_over_ns2": statistics.median(
                r["hosim_core_wall_s"] / r["ns2_run_wall_s"] for r in rs if r["ns2_run_wall_s"] > 0
            ),
            "ns2_startup_wall_s": med("ns2_startup_wall_s"),
            "hosim_startup_wall_s": med("hosim_startup_wall_s"),
            "load1_median": med("load1"),
        }
        summary.append(s)
        print(
            f"{dur:>7g}s {s['ns2_process_wall_s']:>12.3f}s {s['hosim_process_wall_s']:>13.3f}s "
            f"{s['ratio_process_wall_hosim_over_ns2']:>6.2f} {s['ns2_run_wall_s']:>9.3f}s "
            f"{s['hosim_core_wall_s']:>10.3f}s {s['ratio_run_loop_hosim_over_ns2']:>6.2f} "
            f"{s['ns2_startup_wall_s']:>10.3f}s {s['hosim_startup_wall_s']:>11.3f}s"
        )
    os.makedirs(RESULTS, exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"command": "python " + " ".join(sys.argv), "rows": rows, "summary": summary}, fh, indent=1)
        fh.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

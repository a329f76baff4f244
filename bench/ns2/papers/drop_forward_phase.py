#!/usr/bin/env python3
"""Drop/forward at 1 Gb/s over several warm-ups: is a disagreement the sawtooth's phase?

Controlled experiment for one point of the 1 Gb/s grid (benchmark only: needs ns-2.35 and
hosim). Without handovers nothing in either run is random, so every seed of a point meets
its first handover at the same phase of the flows' sawtooth (about 50 s long at 1 Gb/s):
the phase the 200 s warm-up happens to end in, which differs between hosim and ns-2.35.
This script runs the point in both simulators with the warm-up moved through one sawtooth
period (200, 210, ... s) and seeds 1..N at each, so that both are averaged over phases; it
writes per warm-up and in all the means, with each first handover's window.

    python3 bench/ns2/papers/drop_forward_phase.py --recovery newreno --scheme drop \\
        --delta 100 --warmups 200,210,220,230,240,250 --seeds 4 --jobs 2 \\
        --out bench/results/ns2/papers/drop_forward-1G-phase-newreno-drop-100.json

The file is rewritten after every run and a run already in it is not run again.

Paired (`--sims paired`): hosim runs first, then ns-2.35 with every mobile's handovers at
hosim's instants (drop_forward.tcl `first_handover`), so both meet the same handovers and
`--report` gives hosim's difference per run; with `--stagger 5` the two start-ups agree
(every window within a packet at 200 s) and the difference is what the handovers make of it:

    python3 bench/ns2/papers/drop_forward_phase.py --recovery newreno --scheme drop \\
        --delta 100 --warmups 200,210,220,230,240 --seeds 3 --stagger 5 --sims paired \\
        --out bench/results/ns2/papers/drop_forward-1G-phase-newreno-drop-100-stagger5-paired.json

Per handover, one seed traced in both (`--handovers`): each flow's window when its handover
comes and the timeouts and window cuts until its next handover, from ns-2.35's per-event lines
(`drop_forward.py --print-tcl 1G newreno drop 100 --warmup 200 --set trace_events=1 --set
trace_period=0.05 > fcp.tcl; ns fcp.tcl > ns.out`) and hosim's traces (`hosim run fcp --seed 1
--set ... --out DIR`, the overrides of `hosim_overrides`):

    python3 bench/ns2/papers/drop_forward_phase.py --handovers ns.out DIR --out unused
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import drop_forward  # noqa: E402  (the ns-2.35 side, beside this file)

SETTING = "1G"


#: Flow i starts at i x STAGGER_S in both simulators (`--stagger`; 0: every flow at 0, the grid's).
STAGGER_S = 0.0


def hosim_overrides(recovery: str, scheme: str, delta: float, warmup: float) -> list[str]:
    """hosim's driver's overrides for the point, with the warm-up (and run end) moved."""
    from hosim.reproduce import fcp

    o = fcp.point_overrides(SETTING, recovery, scheme, delta)
    o["fcp.warmup_s"] = warmup
    o["duration_s"] = drop_forward.duration_s(SETTING, delta, warmup)
    if STAGGER_S:
        o["fcp.start_stagger_s"] = STAGGER_S
    args = []
    for k, v in o.items():
        args += ["--set", f"{k}={json.dumps(v)}"]
    return args


def run_hosim(recovery: str, scheme: str, delta: float, warmup: float, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    p = subprocess.run(["hosim", "run", "fcp", "--seed", str(seed), "--json",
                        *hosim_overrides(recovery, scheme, delta, warmup)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"hosim failed: {p.stderr[-2000:]}")
    from hosim.reproduce import fcp

    summary = json.loads(p.stdout)
    # What hosim's driver keeps of a run (means over the flows), as its grid files hold it,
    # with each flow's figures and first handover time (for `--paired`).
    return {**fcp._reduce(summary), "wall_s": time.perf_counter() - t0,
            "flow_fractions": [f["throughput_fraction"] for f in summary["flows"]],
            "flow_timeouts": [f["timeouts"] for f in summary["flows"]],
            "first_handovers": first_handovers(summary)}


def first_handovers(summary: dict[str, Any]) -> list[float]:
    """Each mobile's first handover time (s) in a hosim summary, mobile 0 first."""
    first: dict[int, float] = {}
    for h in summary["handovers"]:
        i = int(h["ue"][1:])
        first[i] = min(first.get(i, math.inf), h["start_s"])
    return [first[i] for i in sorted(first)]


def run_paired(recovery: str, scheme: str, delta: float, warmup: float, seed: int) -> dict[str, Any]:
    """hosim's run, then ns-2.35's with every mobile's handovers at hosim's times
    (drop_forward.tcl `first_handover`): both meet the same handover instants."""
    h = run_hosim(recovery, scheme, delta, warmup, seed)
    sets = {"first_handover": ",".join(f"{t:.9f}" for t in h["first_handovers"])}
    if STAGGER_S:
        sets["start_stagger"] = repr(STAGGER_S)
    n = drop_forward.run_one((SETTING, recovery, scheme, delta, seed, warmup, sets))
    return {"hosim": h, "ns2": n, "wall_s": h["wall_s"] + n["wall_s"], "throughput_fraction":
            n["throughput_fraction"], "timeouts_per_flow": n["timeouts_per_flow"]}


def run(job: tuple[str, str, str, float, float, int]) -> tuple[tuple[str, str, str, float, float, int], dict[str, Any]]:
    sim, recovery, scheme, delta, warmup, seed = job
    if sim == "paired":
        return job, run_paired(recovery, scheme, delta, warmup, seed)
    if sim == "ns2":
        sets = {"start_stagger": repr(STAGGER_S)} if STAGGER_S else {}
        r = drop_forward.run_one((SETTING, recovery, scheme, delta, seed, warmup, sets))
    else:
        r = run_hosim(recovery, scheme, delta, warmup, seed)
    return job, r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recovery", default="newreno", choices=["reno", "newreno", "sack"])
    ap.add_argument("--scheme", default="drop", choices=["drop", "forward"])
    ap.add_argument("--delta", type=float, default=100.0, help="Δ in propagation RTTs")
    ap.add_argument("--warmups", default="200,210,220,230,240,250", help="comma-separated, s")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sims", default="ns2,hosim",
                    help="which simulators: ns2, hosim or both; paired: hosim, then ns-2.35 with "
                         "hosim's handover times (--report then compares the two per run)")
    ap.add_argument("--stagger", type=float, default=0.0,
                    help="flow i starts at i x this many seconds in both simulators (default 0)")
    ap.add_argument("--report", action="store_true",
                    help="only print the table of --out's runs at --warmups (the mean over those) and exit")
    ap.add_argument("--handovers", nargs=2, metavar=("NS_OUTPUT", "HOSIM_DIR"),
                    help="print the per-handover table of one traced seed (see above) and exit")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.handovers:
        handovers(*a.handovers)
        return 0
    global STAGGER_S
    if a.stagger < 0:
        ap.error(f"--stagger: must be at least 0, got {a.stagger}")
    STAGGER_S = a.stagger
    sims = [x for x in a.sims.split(",") if x]
    if not sims or any(x not in ("ns2", "hosim", "paired") for x in sims):
        ap.error(f"--sims: expected ns2, hosim, ns2,hosim or paired, got {a.sims!r}")
    warmups = [float(w) for w in a.warmups.split(",")]
    data: dict[str, Any] = {"runs": {}}
    if os.path.exists(a.out):
        with open(a.out) as fh:
            data = json.load(fh)
    if a.report:
        report(data, warmups)
        return 0
    data["command"] = "python3 " + " ".join(sys.argv)
    jobs = [(sim, a.recovery, a.scheme, a.delta, w, seed)
            for seed in range(1, a.seeds + 1) for w in warmups for sim in sims]
    jobs = [j for j in jobs if "|".join(map(str, j)) not in data["runs"]]
    print(f"{len(jobs)} runs to do", flush=True)
    with ProcessPoolExecutor(max_workers=a.jobs) as ex:
        futures = [ex.submit(run, j) for j in jobs]
        for fut in as_completed(futures):
            job, r = fut.result()
            data["runs"]["|".join(map(str, job))] = {"sim": job[0], "warmup_s": job[4], "seed": job[5], **r}
            print(f"{job[0]:5s} warm-up {job[4]:5.0f} s seed {job[5]}: {r['throughput_fraction']:.3f}  "
                  f"TO {r['timeouts_per_flow']:.1f}  [{r['wall_s']:.0f} s]", flush=True)
            with open(a.out, "w") as fh:
                json.dump(data, fh, indent=1, sort_keys=True)
                fh.write("\n")
    report(data, warmups)
    return 0


def handovers(ns_output: str, hosim_dir: str) -> None:
    """Per flow and handover: the window (packets), the timeouts and cuts until the flow's next
    handover, when the first timeout came (s after the handover) and the ssthresh it set, and
    the window 2 s after the handover. When both runs have the same handover instants
    (`--sims paired`, or ns-2.35 run with `first_handover`), one row per handover holds both."""
    ns_rows = ns2_handovers(ns_output)
    h_rows = hosim_handovers(hosim_dir)
    cols = ("window (pkts)", "timeouts", "window cuts", "first timeout (s)", "its ssthresh", "window 2 s on")

    def fmt(v: float | None, nd: int = 0) -> str:
        return "-" if v is None else f"{v:.{nd}f}"

    def cells(r: dict[str, Any]) -> list[str]:
        return [fmt(r["w"]), str(r["to"]), str(r["cuts"]), fmt(r["first_to_s"], 2), fmt(r["ssthresh_to"]),
                fmt(r["w2"])]

    if [(r["flow"], round(r["t"], 6)) for r in ns_rows] == [(r["flow"], round(r["t"], 6)) for r in h_rows]:
        print("| flow | handover (s) | " + " | ".join(f"{c}, ns-2.35 / hosim" for c in cols) + " | alike |")
        print("|---:|---:|" + "---:|" * len(cols) + "---|")
        for n, h in sorted(zip(ns_rows, h_rows), key=lambda x: x[0]["t"]):
            same = n["to"] == h["to"] and n["cuts"] == h["cuts"] and abs(n["w2"] - h["w2"]) < 2
            pairs = [f"{a} / {b}" for a, b in zip(cells(n), cells(h))]
            print(f"| {n['flow']} | {n['t']:.2f} | " + " | ".join(pairs) + f" | {'yes' if same else 'no'} |")
        return
    print("| simulator | flow | handover (s) | " + " | ".join(cols) + " |")
    print("|---|---:|---:|" + "---:|" * len(cols))
    for sim, rows in (("ns-2.35", ns_rows), ("hosim", h_rows)):
        for r in rows:
            print(f"| {sim} | {r['flow']} | {r['t']:.2f} | " + " | ".join(cells(r)) + " |")


def ns2_handovers(ns_output: str) -> list[dict[str, Any]]:
    """ns-2.35's side of `handovers`, from the CW and HO lines of a trace_events run."""
    cw: dict[int, list[tuple[float, float, int, int, int]]] = {}
    ho: list[tuple[int, float]] = []
    end = 0.0
    with open(ns_output) as fh:
        for line in fh:
            f = line.split()
            if f and f[0] == "CW":
                # time, cwnd_, ssthresh_, nrexmit_ (timeouts), ncwndcuts1_ (cuts)
                cw.setdefault(int(f[2]), []).append(
                    (float(f[1]), float(f[3]), int(f[4]), int(f[5]), int(f[6])))
                end = max(end, float(f[1]))
            elif f and f[0] == "HO":
                ho.append((int(f[2]), float(f[1])))
    rows = []
    for i, t in sorted(ho):
        nxt = [u for j, u in ho if j == i and u > t]
        t_end = nxt[0] if nxt else end
        xs = cw[i]
        before = [x for x in xs if x[0] <= t][-1]
        span = [x for x in xs if t < x[0] <= t_end]
        after = span[-1] if span else before
        first = next((x for x in span if x[3] > before[3]), None)
        later = [x for x in xs if x[0] <= t + 2.0]
        rows.append({"flow": i, "t": t, "w": before[1], "to": after[3] - before[3], "cuts": after[4] - before[4],
                     "first_to_s": first[0] - t if first else None, "ssthresh_to": first[2] if first else None,
                     "w2": later[-1][1]})
    return rows


def hosim_handovers(hosim_dir: str) -> list[dict[str, Any]]:
    """hosim's side of `handovers`, from a run's --out directory (cwnd, ssthresh, rto traces)."""
    import pandas as pd

    with open(os.path.join(hosim_dir, "summary.json")) as fh:
        summary = json.load(fh)
    cwnd = pd.read_parquet(os.path.join(hosim_dir, "cwnd.parquet"))
    ssth = pd.read_parquet(os.path.join(hosim_dir, "ssthresh.parquet"))
    rto = pd.read_parquet(os.path.join(hosim_dir, "rto.parquet"))
    mss = summary["flows"][0]["mss_bytes"]
    hos = summary["handovers"]
    rows = []
    for h in sorted(hos, key=lambda h: (int(h["ue"][1:]), h["start_s"])):
        flow, t = "flow" + h["ue"][1:], h["start_s"]
        nxt = [x["start_s"] for x in hos if x["ue"] == h["ue"] and x["start_s"] > t]
        t_end = nxt[0] if nxt else summary["sim_time_s"]
        c = cwnd[cwnd.flow == flow]
        w = c[c.time_s <= t].iloc[-1].cwnd_bytes / mss
        w2 = c[c.time_s <= t + 2.0].iloc[-1].cwnd_bytes / mss
        ss = ssth[(ssth.flow == flow) & (ssth.time_s > t) & (ssth.time_s <= t_end)]
        # A timeout doubles the RTO (backoff); anything else only moves it a little.
        r = rto[rto.flow == flow]
        last = r[r.time_s <= t].rto_s.iloc[-1] if (r.time_s <= t).any() else 0.0
        times = []
        span = r[(r.time_s > t) & (r.time_s <= t_end)]
        for tt, v in zip(span.time_s, span.rto_s):
            if v > 1.5 * last:
                times.append(tt)
            last = v
        first_ss = ss[ss.time_s >= times[0] - 1e-9] if times else ss.iloc[0:0]
        rows.append({"flow": int(h["ue"][1:]), "t": t, "w": w, "to": len(times), "cuts": len(ss),
                     "first_to_s": times[0] - t if times else None,
                     "ssthresh_to": first_ss.iloc[0].ssthresh_bytes / mss if len(first_ss) else None, "w2": w2})
    return rows


def report(data: dict[str, Any], warmups: list[float]) -> None:
    """Per warm-up and over all of `warmups` (runs at other warm-ups left out): mean ± 95 %."""
    runs = [r for r in data["runs"].values() if r["warmup_s"] in warmups]
    if any(r["sim"] == "paired" for r in runs):
        report_paired([r for r in runs if r["sim"] == "paired"], warmups)
        runs = [r for r in runs if r["sim"] != "paired"]
        if not runs:
            return
    print("| warm-up (s) | ns-2.35 | hosim | ns-2.35 timeouts / flow | hosim timeouts / flow |")
    print("|---|---|---|---|---|")

    def cell(sim: str, w: float | None, k: str) -> str:
        xs = [r[k] for r in runs if r["sim"] == sim and (w is None or r["warmup_s"] == w)]
        if not xs:
            return "-"
        if len(xs) < 2:
            return f"{xs[0]:.3f}"
        ci = drop_forward.ci95(xs)
        return f"{statistics.fmean(xs):.3f} ± {ci:.3f} ({len(xs)})"

    for w in [*warmups, None]:
        label = f"{warmups[0]:g}-{warmups[-1]:g}" if w is None else f"{w:g}"
        print(f"| {label} | {cell('ns2', w, 'throughput_fraction')} | {cell('hosim', w, 'throughput_fraction')} "
              f"| {cell('ns2', w, 'timeouts_per_flow')} | {cell('hosim', w, 'timeouts_per_flow')} |")


def report_paired(runs: list[dict[str, Any]], warmups: list[float]) -> None:
    """Paired runs (same handover instants): per warm-up the two means, hosim's difference
    (mean ± 95 % over the runs), timeouts per flow, and how many of the flows end the run
    with the same throughput in both (within 0.001 of the link)."""
    print("| warm-up (s) | runs | ns-2.35 | hosim | hosim - ns-2.35 | timeouts / flow, ns-2.35 / hosim "
          "| flows alike |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for w in [*warmups, None]:
        rs = [r for r in runs if w is None or r["warmup_s"] == w]
        if not rs:
            continue
        n = [r["ns2"]["throughput_fraction"] for r in rs]
        h = [r["hosim"]["throughput_fraction"] for r in rs]
        d = [b - a for a, b in zip(n, h)]
        ci = f" ± {drop_forward.ci95(d):.3f}" if len(d) > 1 else ""
        alike = sum(abs(b - a) < 0.001 for r in rs
                    for a, b in zip(r["ns2"]["flow_fractions"], r["hosim"]["flow_fractions"]))
        flows = sum(len(r["ns2"]["flow_fractions"]) for r in rs)
        to_n = statistics.fmean(r["ns2"]["timeouts_per_flow"] for r in rs)
        to_h = statistics.fmean(r["hosim"]["timeouts_per_flow"] for r in rs)
        label = f"{warmups[0]:g}-{warmups[-1]:g}" if w is None else f"{w:g}"
        print(f"| {label} | {len(rs)} | {statistics.fmean(n):.3f} | {statistics.fmean(h):.3f} "
              f"| {statistics.fmean(d):+.3f}{ci} | {to_n:.1f} / {to_h:.1f} | {alike} of {flows} |")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cohen & Levin, "To Drop or Not to Drop", in ns-2.35: the drop, forward and rearrange grid.

Benchmark only: needs ns-2.35 (`ns` on PATH). The model is drop_forward.tcl (plain Tcl, no
change to ns-2); this script writes each point's parameters above it, runs `ns`, and reads
its per-flow counters. The settings, Δ grid, run lengths and warm-up are those of hosim's
driver (python/hosim/reproduce/fcp.py), so the two run the same setup; README.md beside
this file lists the stand-ins.

    python3 bench/ns2/papers/drop_forward.py --settings 100M --seeds 20 --jobs 2
        -> bench/results/ns2/papers/drop_forward-100M.json
    python3 bench/ns2/papers/drop_forward.py --print-tcl 100M newreno rearrange 100

Per flow (ns-2's own variables): throughput fraction = in-order bytes at the sink after the
warm-up (`Agent/TCPSink bytes_`, whole 1040-byte packets) x 1000/1040 x 8 / the measured time
/ the wireless rate, as hosim's `throughput_fraction` (payload bytes); retransmissions
`nrexmitpack_`, timeouts `nrexmit_`, fast recoveries `ncwndcuts1_` - `nrexmit_` (bench/ns2/
README.md, "Counters"), all over the whole run as in hosim's summary.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.normpath(os.path.join(HERE, "..", "..", "results", "ns2", "papers"))
TCL = os.path.join(HERE, "drop_forward.tcl")

PROPAGATION_RTT_S = 0.080
MSS = 1000
HEADER = 40
#: hosim's fcp preset and driver (python/hosim/reproduce/fcp.py: SETTINGS, DELTAS_RTT).
SETTINGS: dict[str, dict[str, float]] = {
    "100M": {"backbone_bps": 100e6, "wireless_bps": 10e6, "backbone_q": 50, "bs_buffer": 20},
    "1G": {"backbone_bps": 1e9, "wireless_bps": 100e6, "backbone_q": 500, "bs_buffer": 200},
    "100M-bigbuf": {"backbone_bps": 100e6, "wireless_bps": 10e6, "backbone_q": 500, "bs_buffer": 100},
}
DELTAS_RTT = {"100M": (10, 20, 50, 100, 200, 500, 1000), "1G": (50, 100, 300, 1000),
              "100M-bigbuf": (20, 50, 100, 200, 500, 1000)}
NO_HANDOVER_MEASURED_S = {"100M": 160.0, "1G": 80.0, "100M-bigbuf": 160.0}
RWND_BYTES = 16 * 1024 * 1024


def duration_s(setting: str, delta_rtt: float | None, warmup_s: float) -> float:
    """hosim's driver: warm-up plus max(60 s, 3Δ) (max(30 s, 2Δ) at 1 Gb/s)."""
    if delta_rtt is None:
        return warmup_s + NO_HANDOVER_MEASURED_S[setting]
    delta = delta_rtt * PROPAGATION_RTT_S
    return warmup_s + (max(30.0, 2.0 * delta) if setting.startswith("1G") else max(60.0, 3.0 * delta))


def tcl(setting: str, recovery: str, scheme: str, delta_rtt: float | None, seed: int,
        warmup_s: float = 2.0, duration: float | None = None, sets: dict[str, str] | None = None) -> str:
    s = SETTINGS[setting]
    params = {
        "seed": seed,
        "recovery": recovery,
        "scheme": scheme,
        "mobiles": 10,
        "backbone_bps": f"{s['backbone_bps']:g}",
        "wireless_bps": f"{s['wireless_bps']:g}",
        "fwd_bps": f"{s['backbone_bps']:g}",
        "sender_fcp_delay": "10ms",
        "fcp_bs_delay": "25ms",
        "bs_mobile_delay": "5ms",
        "fwd_delay": "50ms",
        "backbone_q": int(s["backbone_q"]),
        "fwd_q": int(s["backbone_q"]),
        "bs_buffer": int(s["bs_buffer"]),
        "window_pkts": RWND_BYTES // MSS,
        "handovers": 0 if delta_rtt is None else 1,
        "interval": (delta_rtt or 1.0) * PROPAGATION_RTT_S,
        "warmup_s": warmup_s,
        "duration": duration if duration is not None else duration_s(setting, delta_rtt, warmup_s),
    }
    params.update(sets or {})
    head = "".join(f"set {k} {v}\n" for k, v in params.items())
    with open(TCL) as fh:
        return head + fh.read()


def parse(out: str, setting: str, warmup_s: float, duration: float) -> dict[str, Any]:
    wireless = SETTINGS[setting]["wireless_bps"]
    flows = []
    rtt = rto = math.nan
    markers = (0, 0)
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "FLOW":
            warm, end, sent, rexmitpack, rexmit, cuts = (float(x) for x in f[2:8])
            # TCPSink's bytes_ is a 32-bit int: at 1 Gb/s (100 Mb/s a flow) it wraps after
            # about 170 s; one measured window holds less than 2^32 bytes, so modulo 2^32.
            payload = ((end - warm) % 2**32) / (MSS + HEADER) * MSS
            flows.append({
                "throughput_fraction": payload * 8 / (duration - warmup_s) / wireless,
                "retransmits": rexmitpack, "timeouts": rexmit, "fast_recoveries": cuts - rexmit,
                "segments_sent": sent - 1,
            })
        elif f[0] == "RTT":
            rtt, rto = float(f[1]), float(f[2])
        elif f[0] == "MARKERS":
            markers = (int(f[1]), int(f[2]))
    if len(flows) != 10:
        raise RuntimeError(f"ns-2 printed {len(flows)} flows:\n{out[-2000:]}")

    def mean(k: str) -> float:
        return statistics.fmean(x[k] for x in flows)

    goodput = mean("throughput_fraction") * wireless
    return {
        "throughput_fraction": mean("throughput_fraction"),
        "timeouts_per_flow": mean("timeouts"),
        "fast_recoveries_per_flow": mean("fast_recoveries"),
        "retransmits_per_flow": mean("retransmits"),
        "rtt_mean_s": rtt, "rto_mean_s": rto,
        "theta_pkts": goodput * rtt / (8 * MSS) if rtt == rtt else math.nan,
        "markers_sent": markers[0], "markers_seen": markers[1],
        "flow_fractions": [x["throughput_fraction"] for x in flows],
        "flow_timeouts": [x["timeouts"] for x in flows],
    }


def run_one(job: tuple[str, str, str, float | None, int, float, dict[str, str]]) -> dict[str, Any]:
    setting, recovery, scheme, delta, seed, warmup_s, sets = job
    dur = duration_s(setting, delta, warmup_s)
    with tempfile.TemporaryDirectory(prefix="ns2dof-") as wd:
        path = os.path.join(wd, "fcp.tcl")
        with open(path, "w") as fh:
            fh.write(tcl(setting, recovery, scheme, delta, seed, warmup_s, dur, sets))
        t0 = time.perf_counter()
        p = subprocess.run(["ns", path], capture_output=True, text=True, cwd=wd)
        wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"ns failed for {job}: {p.stderr[-2000:]}")
    r = parse(p.stdout, setting, warmup_s, dur)
    r.update({"seed": seed, "wall_s": wall})
    return r


def events_summary(path: str) -> str:
    """Means per release (REL lines) and per handover (HO lines) of a trace_events run."""
    rel: list[list[float]] = []
    ho: dict[int, list[list[float]]] = {}
    for line in open(path):
        f = line.split()
        if f and f[0] == "REL":
            rel.append([float(x) for x in f[3:]])
        elif f and f[0] == "HO":
            ho.setdefault(int(f[2]), []).append([float(x) for x in f[3:6]])
    out = [f"releases {len(rel)}"]
    names = ("held packets released", "wireless queue before the release", "wireless-queue drops while holding",
             "held-queue overflow", "drops at the release")
    for j, name in enumerate(names):
        if rel:
            out.append(f"  {name:36s} {statistics.fmean(r[j] for r in rel):7.2f} per release")
    gaps = [[b[k] - a[k] for k in range(3)] for hs in ho.values() for a, b in zip(hs, hs[1:])]
    if gaps:
        out.append("between handovers: timeouts {:.2f}, retransmitted packets {:.2f}, window cuts {:.2f}".format(
            *(statistics.fmean(g[k] for g in gaps) for k in range(3))))
    return "\n".join(out)


def key(setting: str, recovery: str, scheme: str, delta: float | None) -> str:
    return "|".join([setting, recovery, scheme, "none" if delta is None else f"{delta:g}"])


def _hosim_stats() -> Any:
    """python/hosim/stats.py, loaded by path (pure Python; no hosim install needed)."""
    path = os.path.join(HERE, "..", "..", "..", "python", "hosim", "stats.py")
    spec = importlib.util.spec_from_file_location("hosim_stats", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ci95(xs: list[float]) -> float:
    """Half-width of the 95 % confidence interval of the mean (Student t), as hosim's tables."""
    return float(_hosim_stats().ci95_half_width(xs))


def specs(setting: str, recoveries: list[str], deltas: list[float]) -> list[tuple[str, str, str, float | None]]:
    out: list[tuple[str, str, str, float | None]] = []
    for rec in recoveries:
        out.append((setting, rec, "drop", None))
        schemes = ("drop", "forward", "rearrange") if rec == "newreno" else ("drop", "forward")
        out += [(setting, rec, sch, d) for sch in schemes for d in deltas]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--settings", default="100M")
    ap.add_argument("--recoveries", default="newreno,sack,reno")
    ap.add_argument("--deltas", default="", help="comma-separated Δ in RTTs (default: the driver's grid)")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="change one of the script's parameters (e.g. window_pkts=20): a candidate "
                         "tested in ns-2 itself; the output file gets the suffix -NAME-VALUE")
    ap.add_argument("--out", default="")
    ap.add_argument("--print-tcl", nargs=4, metavar=("SETTING", "RECOVERY", "SCHEME", "DELTA"),
                    help="print the script of one point (seed 1, with the --set values) and exit")
    ap.add_argument("--events", metavar="NS_OUTPUT",
                    help="summarize the per-event lines of a run with --set trace_events=1 and exit")
    args = ap.parse_args()
    if args.print_tcl:
        s, r, sch, d = args.print_tcl
        sets = dict(x.split("=", 1) for x in args.set)
        print(tcl(s, r, sch, None if d == "none" else float(d), 1, args.warmup, None, sets))
        return 0
    if args.events:
        print(events_summary(args.events))
        return 0
    for setting in args.settings.split(","):
        deltas = [float(x) for x in args.deltas.split(",")] if args.deltas else list(DELTAS_RTT[setting])
        sets = dict(x.split("=", 1) for x in args.set)
        suffix = "" if args.warmup == 2.0 else f"-warmup{args.warmup:g}"
        suffix += "".join(f"-{k}-{v}" for k, v in sets.items())
        out = args.out or os.path.join(RESULTS, f"drop_forward-{setting}{suffix}.json")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        points: dict[str, Any] = {}
        if os.path.exists(out):
            # Every run already in the file is kept and not run again: a grid grows seed by seed
            # over several invocations (--seeds 20 after --seeds 3 runs seeds 4..20 only).
            with open(out) as fh:
                points = json.load(fh)["points"]
        grid = specs(setting, args.recoveries.split(","), deltas)

        def n_seeds(sp: tuple[str, str, str, float | None]) -> int:
            # Without handovers nothing is random (the RNG draws only the handover phases).
            return 1 if sp[3] is None else args.seeds

        have = [{r["seed"] for r in points.get(key(*sp), {}).get("runs", [])} for sp in grid]
        # Seed-major order: every point gains seed k before any gains seed k + 1, so a grid
        # stopped part-way has every point at nearly the same number of seeds.
        jobs = [(*sp, seed, args.warmup, sets)
                for seed in range(1, args.seeds + 1) for sp, done in zip(grid, have)
                if seed <= n_seeds(sp) and seed not in done]
        print(f"{len(jobs)} runs to do ({len(grid)} points, seeds 1..{args.seeds}; "
              f"{sum(len(done) for done in have)} runs already in {out})", flush=True)
        t0 = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.jobs) as ex:
            # The file is rewritten after every run, so an interrupted grid keeps every run.
            for job, r in zip(jobs, ex.map(run_one, jobs)):
                sp = job[:4]
                old = points.get(key(*sp), {}).get("runs", [])
                runs = sorted([*old, r], key=lambda x: x["seed"])
                fr = [x["throughput_fraction"] for x in runs]
                points[key(*sp)] = {
                    "setting": sp[0], "recovery": sp[1], "scheme": sp[2], "delta_rtt": sp[3],
                    "warmup_s": args.warmup, "duration_s": duration_s(setting, sp[3], args.warmup),
                    "throughput_fraction": statistics.fmean(fr),
                    "throughput_fraction_ci95": ci95(fr),
                    "seeds": len(runs), "runs": runs,
                }
                print(f"{key(*sp):32s} seed {r['seed']:2d}: {r['throughput_fraction']:.3f} "
                      f"(mean {statistics.fmean(fr):.3f} over {len(fr)})  TO {r['timeouts_per_flow']:.1f}  "
                      f"[{r['wall_s']:.0f} s]", flush=True)
                with open(out, "w") as fh:
                    json.dump({"command": "python3 " + " ".join(sys.argv), "ns_wall_s": time.perf_counter() - t0,
                               "points": points}, fh, indent=1, sort_keys=True)
                    fh.write("\n")
        print(f"wrote {out} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

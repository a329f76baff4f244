#!/usr/bin/env python3
"""hosim side of the Linux referee: the cases of cases.py with the `linux` profile.

Benchmark only. Each case is the explicit graph of bench/ns3/run_hosim.py's ``case_toml``
(the same dumbbell the forwarder emulates, README.md) run with ``tcp.profile = "linux"``,
"after" (the profile as it is) and "before" (the Linux dialect keys of docs/tcp.md set back to
the RFC behaviour they replace: the profile before issue 35). hosim is deterministic, so each
case runs once per seed; ``--seeds`` runs several (the random loss and the flows' start jitter
change with the seed) and reports their spread like the kernel's repeats.

Usage:
  python bench/linux/run_hosim.py                  # -> bench/results/linux/hosim-cubic.json
  python bench/linux/run_hosim.py --cases loss1 --seeds 5
  python bench/linux/run_hosim.py --variants after --set tcp.rcvbuf_autotune=true \
      --out bench/results/linux/hosim-cubic-rcvbuf.json   # extra keys on every variant
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import select  # noqa: E402

_spec = importlib.util.spec_from_file_location("ns3_run_hosim", os.path.join(HERE, "..", "ns3", "run_hosim.py"))
assert _spec is not None and _spec.loader is not None
_ns3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ns3)
case_toml = _ns3.case_toml

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "linux"))
RX_BIN_S = 1e-4

# The `linux` profile as shipped ("after") and with each Linux dialect key of docs/tcp.md set
# back to the RFC behaviour ("before").
VARIANTS: dict[str, dict] = {
    "after": {"tcp.profile": "linux"},
    "before": {
        "tcp.profile": "linux",
        "tcp.rto_rearm": "new-ack",
        "tcp.slow_start_growth": "smss",
        "tcp.rto_formula": "rfc6298",
        "tcp.cubic_alpha": "rfc9438",
        "tcp.growth_gate": "always",
        "tcp.linux_hystart": False,
        "tcp.dsack": False,
        "tcp.dsack_undo": False,
        "tcp.timestamps": False,
        "tcp.sack_retransmit": "next-seg",
        "tcp.pipe_outside_recovery": False,
        "tcp.reduction_basis": "flight-size",
        "tcp.whole_segment_windows": False,
        "tcp.cubic_growth_floor": False,
        "tcp.recovery_rate": "prr-ssrb",
    },
}


def jittered(text: str, seed: int, jitter_s: float) -> str:
    """The case's graph with every flow's start moved later by a uniform [0, jitter_s) drawn
    from `seed`: the run-to-run spread of the kernel's connect() loop (its SYNs 35-45 µs
    apart), which hosim's explicit graphs otherwise lack (each case is then one outcome)."""
    if jitter_s <= 0:
        return text
    rng = random.Random(seed)
    return re.sub(r"^start_s = (\S+)$", lambda m: f"start_s = {float(m.group(1)) + rng.uniform(0, jitter_s)!r}",
                  text, flags=re.M)


def run_case(c: dict, overrides: dict, seed: int, start_jitter_s: float = 0.0) -> dict:
    import hosim  # noqa: PLC0415

    is_file = c["app"] == "file"
    ov = dict(overrides)
    if is_file:
        ov["trace.interval_s"] = RX_BIN_S
    r = hosim.run(jittered(case_toml(c), seed, start_jitter_s), seed=seed, overrides=ov, traces=is_file)
    s = r.summary
    flows = []
    for f in s["flows"]:
        if is_file:
            g = r.traces["goodput"]
            g = g[(g["flow"] == f["name"]) & (g["goodput_bps"] > 0)]
            ct = None
            if f["bytes_delivered"] == c["file_bytes"] and len(g):
                ct = float(g["time_s"].iloc[-1]) + RX_BIN_S / 2 - f["start_s"]
            gp = c["file_bytes"] * 8 / ct if ct else f["bytes_delivered"] * 8 / c["duration_s"]
        else:
            gp = f["bytes_delivered"] * 8 / c["duration_s"]
        flows.append({"name": f["name"], "goodput_bps": gp, **{k: f.get(k, 0) for k in COUNTERS}})
    bq = next(q for q in s["queues"] if q["name"] == "bneck")
    return {
        "seed": seed,
        "goodput_bps": sum(f["goodput_bps"] for f in flows),
        "flows": flows,
        **{k: sum(f[k] for f in flows) for k in COUNTERS},
        "queue_drops": bq["dropped"],
        "lost_on_link": bq["lost_on_link"],
    }


COUNTERS = [
    "retransmits",
    "fast_recoveries",
    "timeouts",
    "tlp_probes",
    "tlp_loss_repairs",
    "frto_spurious_detected",
    "spurious_timeouts",
    "lost_retransmissions",
    "duplicate_segments",
    "scripted_drops",
    "hystart_train_exits",
    "hystart_delay_exits",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cc", default="cubic", choices=["cubic", "reno"], help="tcp.cc (the kernel's --cc)")
    ap.add_argument("--out", default=None, help="default: bench/results/linux/hosim-<cc>.json")
    ap.add_argument("--start-jitter-us", type=float, default=0.0,
                    help="each flow starts up to this much later, drawn per seed (default 0: every seed "
                         "of a case without random loss is the same run)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra scenario key on every variant (TOML value: true, 3, \"x\"); repeatable")
    ap.add_argument("--variants", nargs="*", choices=list(VARIANTS), default=list(VARIANTS))
    args = ap.parse_args()
    extra: dict = {}
    for kv in args.set:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            ap.error(f"--set: expected KEY=VALUE, got {kv!r}")
        from hosim.scenario import parse_toml_value  # noqa: PLC0415

        extra[key] = parse_toml_value(value)  # as `hosim run --set`: a TOML value, else the string
    if args.start_jitter_us < 0:
        ap.error(f"--start-jitter-us: must be at least 0, got {args.start_jitter_us}")
    args.out = args.out or os.path.join(RESULTS, f"hosim-{args.cc}.json")
    results: dict = {}
    if os.path.exists(args.out) and args.cases:
        with open(args.out) as fh:
            results = json.load(fh).get("cases", {})
    for c in select(args.cases):
        entry = {"case": c}
        for variant in args.variants:
            ov = {**VARIANTS[variant], "tcp.cc": args.cc, **extra}
            runs = [run_case(c, ov, seed, args.start_jitter_us * 1e-6) for seed in range(1, args.seeds + 1)]
            entry[variant] = runs
            gp = [r["goodput_bps"] / 1e6 for r in runs]
            print(
                f"{c['name']:<18} {variant:<6} goodput {min(gp):.3f}-{max(gp):.3f} Mb/s "
                f"retx {[r['retransmits'] for r in runs]} dup {[r['duplicate_segments'] for r in runs]}",
                flush=True,
            )
        results[c["name"]] = entry
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        variants = {v: {**VARIANTS[v], **extra} for v in args.variants}
        json.dump({"variants": variants, "cc": args.cc, "cases": results}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

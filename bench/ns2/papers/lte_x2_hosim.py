#!/usr/bin/env python3
"""hosim side of the LTE X2 comparison with ns-2.35 (bench/ns2/papers/lte_x2.py).

Runs, with the installed hosim and the ``lte-x2`` preset, every configuration of
``lte_x2.experiments()`` twice: as the preset (reordering at the target on) and with
``lte_x2.reordering = false``, the ns-2 stand-in's behaviour (it has no end marker and no
reordering). Writes bench/results/ns2/lte_x2_hosim.json in the ns-2 file's shape.

Usage:
  python bench/ns2/papers/lte_x2_hosim.py [--seeds 50] [--jobs 2] [--only fig8]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lte_x2  # noqa: E402

from hosim.reproduce.common import preset_task  # noqa: E402
from hosim.runner import Runner  # noqa: E402

OUT = lte_x2.OUT.with_name("lte_x2_hosim.json")


def overrides(c: dict) -> dict[str, Any]:
    """The preset keys that configuration ``c`` of lte_x2.py changes."""
    o: dict[str, Any] = {
        "lte_x2.path_switch": c["variant"],
        "lte_x2.source_ues": c["source_ues"],
        "lte_x2.target_ues": c["target_ues"],
        "duration_s": c["duration_s"],
        "lte_x2.router_queue": c["queue"],
        "lte_x2.ecn": c["ecn"],
        "tcp.min_rto_s": c["min_rto_s"],
    }
    if c["queue"] == "red" and c["queue_in_bytes"] and c["bytes"]:
        # ns-2.35's default byte mode (queue_in_bytes_ and bytes_ true).
        o["lte_x2.red_ns2_mean_pktsize_bytes"] = c["mean_pktsize"]
    elif c["queue"] == "red" and (c["queue_in_bytes"] or c["bytes"]):
        raise ValueError("hosim has ns-2's queue_in_bytes_ and bytes_ together only")
    if c["sink"] != "TCPSink":
        o["tcp.delayed_ack"] = True
    return o


def brief(s: dict) -> dict:
    """The numbers the comparison uses, from a hosim summary."""
    ho = s["handovers"][0]
    ref = next(f for f in s["flows"] if f["name"] == "ref")
    q = {x["name"]: {"arrivals": x["enqueued"] + x["dropped"], "drops": x["dropped"], "marks": x["marked"]}
         for x in s["queues"] if x["name"] in ("router->senb", "router->tenb")}
    return {
        "outcome": ho["outcome"] if ho["window_closed"] else None,
        "window_end_s": ho["window_end_s"],
        "delivered_bytes_window": ho["delivered_bytes_window"],
        "forwarded": ho["forwarded_packets"],
        "timeouts_until_end": ho["timeouts_until_end"],
        "reordering_timed_out": ho["reordering_timed_out"],
        "spurious_timeouts": ref["spurious_timeouts"],
        "queues": q,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    exps = {k: v for k, v in lte_x2.experiments().items() if a.only in k}
    seeds = range(1, a.seeds + 1)
    variants = {"preset": {}, "no reordering": {"lte_x2.reordering": False}}
    keys = [(k, vn) for k in exps for vn in variants]
    tasks = [preset_task("lte-x2", s, {**overrides(exps[k]), **variants[vn]}) for k, vn in keys for s in seeds]
    t0 = time.monotonic()
    with Runner.from_options(jobs=a.jobs, cache=False) as r:
        sums = iter(r.summaries(tasks))
    runs: dict[str, dict[str, list]] = {k: {} for k in exps}
    for k, vn in keys:
        runs[k][vn] = [{"seed": s, **brief(next(sums))} for s in seeds]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"seeds": a.seeds, "runs": runs}, separators=(",", ":")) + "\n")
    print(f"{len(tasks)} hosim runs in {time.monotonic() - t0:.0f} s -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

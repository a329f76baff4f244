#!/usr/bin/env python3
"""Controlled experiment: why do the per-flow shares of the RTT-unfairness family differ
between hosim (`profile = "ns2"`) and ns-2.35?

The family (bench/ns3/families.py, ``rtt-unfair``) is deterministic in both simulators: all
flows start at t = 0 and nothing is random, so each simulator gives one run, one phase of the
DropTail queue's drop pattern. This script varies only that phase: run r draws the four start
times uniformly from [0, ``--spread``) s (Python ``random.Random(r)``) and gives the same start
times to both simulators. Everything else is the family's case. If the one-run differences are
phase effects, the means over runs agree; if a simulator favours long-RTT flows by design,
they do not.

Usage (hosim installed, ns-2.35 on PATH):
  python bench/ns2/rtt_unfair.py [--runs 20] [--spread 1.0] [--case rtt-unfair]
      -> bench/results/ns2/rtt-unfair-phase.json and a table on stdout
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ns3"))
import run_ns2  # noqa: E402
from families import select  # noqa: E402

# bench/ns2/run_hosim.py by its path (bench/ns3 has a file of the same name)
_spec = importlib.util.spec_from_file_location("ns2_run_hosim", os.path.join(HERE, "run_hosim.py"))
assert _spec is not None and _spec.loader is not None
hosim_side = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hosim_side)
# bench/ns2/compare.py by its path (bench/ns3 has one too): its Student-t quantile
_cspec = importlib.util.spec_from_file_location("ns2_compare", os.path.join(HERE, "compare.py"))
assert _cspec is not None and _cspec.loader is not None
_compare = importlib.util.module_from_spec(_cspec)
_cspec.loader.exec_module(_compare)
t975 = _compare.t975

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns2"))


COUNTS = ("retransmits", "fast_recoveries", "timeouts")


EXTRA: dict = {}


def hosim_run(c: dict, starts: list[float]) -> tuple[list[float], dict]:
    import hosim  # noqa: PLC0415

    toml = hosim_side.ns3_side.case_toml(c)
    it = iter(starts)
    toml = re.sub(r"^start_s = .*$", lambda _m: f"start_s = {next(it)!r}", toml, flags=re.M)
    r = hosim.run(toml, seed=1, overrides={**hosim_side.NS2_MATCHED, **EXTRA}, traces=False)
    fl = r.summary["flows"]
    counts = {k: sum(f[k] for f in fl) for k in COUNTS}
    # ns-2 counts its SYN's timeouts and retransmissions in nrexmit_ and nrexmitpack_
    # (run_hosim.count_syn_as_ns2)
    syn = sum(f["syn_retransmits"] for f in fl)
    counts["timeouts"] += syn
    counts["retransmits"] += syn
    return [f["bytes_delivered"] * 8 / c["duration_s"] for f in fl], counts


def ns2_run(c: dict, starts: list[float]) -> tuple[list[float], dict]:
    res = run_ns2.run_case(dict(c, starts=starts), 1)
    return [f["goodput_bps"] for f in res["flows"]], {k: res[k] for k in COUNTS}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--spread", type=float, default=1.0, help="start times uniform in [0, spread) s")
    ap.add_argument("--case", default="rtt-unfair")
    ap.add_argument("--out", default=os.path.join(RESULTS, "rtt-unfair-phase.json"))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="one more hosim override")
    args = ap.parse_args()
    for kv in args.set:
        k, _, v = kv.partition("=")
        EXTRA[k] = v
    c = next(x for x in select([args.case]) if x["name"] == args.case)
    rows = []
    for r in range(1, args.runs + 1):
        rng = random.Random(r)
        starts = [rng.uniform(0, args.spread) for _ in range(c["flows"])]
        (hg, hc), (ng, nc) = hosim_run(c, starts), ns2_run(c, starts)
        rows.append({"run": r, "starts": starts, "hosim": hg, "ns2": ng, "hosim_counts": hc, "ns2_counts": nc})
    print(f"{args.case}: per-flow goodput [Mb/s], mean ± sd over {args.runs} runs of random start phases")
    print(f"{'flow':<6}{'hosim':>16}{'ns-2':>16}{'Δ mean':>9}")
    summary = []
    for i in range(c["flows"]):
        h = [x["hosim"][i] / 1e6 for x in rows]
        n = [x["ns2"][i] / 1e6 for x in rows]
        hm, nm = statistics.fmean(h), statistics.fmean(n)
        hs, ns_ = statistics.stdev(h), statistics.stdev(n)
        summary.append({"flow": i, "hosim_mean": hm, "hosim_sd": hs, "ns2_mean": nm, "ns2_sd": ns_})
        print(f"flow{i:<2}{hm:>9.3f} ± {hs:<5.3f}{nm:>9.3f} ± {ns_:<5.3f}{(hm - nm) / nm * 100:>+8.1f} %")
    tot = {}
    for k in ("goodput",) + COUNTS:
        if k == "goodput":
            h = statistics.fmean(sum(x["hosim"]) / 1e6 for x in rows)
            n = statistics.fmean(sum(x["ns2"]) / 1e6 for x in rows)
        else:
            h = statistics.fmean(x["hosim_counts"][k] for x in rows)
            n = statistics.fmean(x["ns2_counts"][k] for x in rows)
        tot[k] = {"hosim": h, "ns2": n}
        line = f"total {k:<16}{h:>10.2f}{n:>12.2f}{(h - n) / n * 100 if n else 0:>+8.1f} %"
        if k != "goodput" and len(rows) > 1:
            # paired by run (same start phases): the mean difference and its 95 % interval
            d = [x["hosim_counts"][k] - x["ns2_counts"][k] for x in rows]
            half = t975(len(d) - 1) * statistics.stdev(d) / len(d) ** 0.5
            tot[k]["paired_diff"] = statistics.fmean(d)
            tot[k]["paired_diff_ci95"] = half
            line += f"   paired Δ {statistics.fmean(d):+.2f} ± {half:.2f} (95 %)"
        print(line)
    summary.append({"totals": tot})
    os.makedirs(RESULTS, exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"case": args.case, "spread_s": args.spread, "runs": rows, "summary": summary}, fh, indent=1)
        fh.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

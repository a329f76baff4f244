#!/usr/bin/env python
"""hosim side of the HSDPA ns-2 comparison: Fig. 3 and Table I with the ``hsdpa`` preset, the
same runs as bench/ns2/papers/hsdpa.py, then both side by side.

Needs hosim installed (not ns-2). The preset runs with ``hsdpa.rate_change = "next_packet"``
(ns-2's ``LinkDelay`` times a packet when it starts); ``--set KEY=VALUE`` adds overrides, e.g.
the ``ns2`` profile's own dialect keys instead of the ones the preset pins::

  python bench/ns2/papers/hsdpa_hosim.py --label pinned --keys pinned
  python bench/ns2/papers/hsdpa_hosim.py --label profile --keys profile
  python bench/ns2/papers/hsdpa_hosim.py --label exact --keys profile --set tcp.ca_growth=per-ack-exact
  python bench/ns2/papers/hsdpa_hosim.py --compare pinned profile   # -> markdown on stdout

Writes bench/results/ns2/papers/hsdpa-hosim-LABEL.json. Metrics as hsdpa.py's; a timeout's
time is where the server's RTO trace doubles (RFC 6298 (5.5)) with its window at one segment.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hsdpa import PERIODS_S, RESULTS, _mean_ci  # noqa: E402

#: What ns-2's LinkDelay does, for every hosim run of this comparison.
SAME_LINK = {"hsdpa.rate_change": "next_packet"}

#: The ``ns2`` profile's own dialect keys (docs/tcp.md, "ns-2 dialect") that act on NewReno.
PROFILE_KEYS = {
    "tcp.fast_retransmit_window": "cwnd-half",
    "tcp.newreno_exit": "keep-window",
    "tcp.fast_retransmit_restarts_timer": True,
    "tcp.rtt_sampling": "timed-segment",
    "tcp.exit_ack_opens_window": True,
}

#: The RFC values the preset pinned them to until the reproduction was regenerated (and
#: ``exit_ack_opens_window`` off, which the preset pinned until its second regeneration).
PINNED_KEYS = {
    "tcp.fast_retransmit_window": "flight-half",
    "tcp.newreno_exit": "rfc6582",
    "tcp.fast_retransmit_restarts_timer": False,
    "tcp.rtt_sampling": "every-ack",
    "tcp.exit_ack_opens_window": False,
}


def _timeouts(result: Any) -> list[dict[str, Any]]:
    rto = result.traces["rto"]
    rto = rto[rto["flow"] == "tcp"]
    cwnd = result.traces["cwnd"]
    cwnd = cwnd[cwnd["flow"] == "tcp"]
    ct, cv = list(cwnd["time_s"]), list(cwnd["cwnd_bytes"])
    out = []
    prev = None
    j = 0
    for t, v in zip(rto["time_s"], rto["rto_s"]):
        while j + 1 < len(ct) and ct[j + 1] <= t + 1e-9:
            j += 1
        if prev is not None and abs(v - 2 * prev) < 1e-9 * v and ct[j] <= t + 1e-9 and cv[j] <= 1460:
            out.append({"time_s": round(float(t), 6)})
        prev = v
    return out


def _metrics(summary: dict[str, Any]) -> dict[str, Any]:
    server = summary["flows"][0]
    return {
        "capacity_pkts_per_s": summary["radio_capacity_pkts_per_s"],
        "throughput_pkts_per_s": summary["ue_goodput_pkts_per_s"],
        "utilization": summary["radio_goodput_utilization"],
        "nodeb_drops": summary["nodeb_drops"],
        "nodeb_mean_queue_pkts": summary["nodeb_mean_queue_pkts"],
        "sender_timeouts": server["timeouts"],
        "sender_spurious_timeouts": server["spurious_timeouts"],
        "sender_fast_recoveries": server["fast_recoveries"],
        "sender_retransmits": server["retransmits"],
    }


def run_all(overrides: dict[str, Any], seeds: int) -> dict[str, Any]:
    from hosim.reproduce.common import run_preset

    runs: dict[str, Any] = {}
    for proxy in (False, True):
        r = run_preset("hsdpa", 1, {**overrides, "hsdpa.proxy": proxy}, traces=not proxy)
        m = _metrics(r.summary)
        if not proxy:
            m["timeouts"] = _timeouts(r)
        runs["fig3/proxy" if proxy else "fig3"] = m
    for period in PERIODS_S:
        for proxy in (False, True):
            for seed in range(1, seeds + 1):
                o = {**overrides, "hsdpa.bandwidth": "random", "hsdpa.period_s": period, "hsdpa.proxy": proxy}
                r = run_preset("hsdpa", seed, o, traces=False)
                runs[f"table1/{period:g}/{'proxy' if proxy else 'tcp'}/{seed}"] = _metrics(r.summary)
    return runs


def summarize(runs: dict[str, Any], seeds: int) -> list[dict[str, Any]]:
    table = []
    for period in PERIODS_S:
        row: dict[str, Any] = {"T_s": period}
        for mode in ("tcp", "proxy"):
            cell = [runs[f"table1/{period:g}/{mode}/{s}"] for s in range(1, seeds + 1)]
            for key in cell[0]:
                row[f"{mode}_{key}"] = _mean_ci([float(c[key]) for c in cell])
        tcp = [runs[f"table1/{period:g}/tcp/{s}"]["throughput_pkts_per_s"] for s in range(1, seeds + 1)]
        prx = [runs[f"table1/{period:g}/proxy/{s}"]["throughput_pkts_per_s"] for s in range(1, seeds + 1)]
        row["proxy_gain"] = _mean_ci([p / t - 1 for p, t in zip(prx, tcp)])
        table.append(row)
    return table


def _cell(row: dict[str, Any], key: str, scale: float = 1.0, digits: int = 1) -> str:
    c = row.get(key)
    if not c:
        return "–"
    return f"{c['mean'] * scale:.{digits}f} ± {c['ci95'] * scale:.{digits}f}"


def compare(labels: list[str]) -> str:
    with open(os.path.join(RESULTS, "hsdpa-ns2.json")) as f:
        ns2 = json.load(f)
    sides = [("ns-2.35", ns2)]
    for label in labels:
        with open(os.path.join(RESULTS, f"hsdpa-hosim-{label}.json")) as f:
            sides.append((f"hosim {label}", json.load(f)))
    out = ["Fig. 3 (square wave, one run): utilization, Node-B drops, fast recoveries, timeouts (times, s)", "",
           "| simulator | utilization | drops | FR | TO | timeout times |", "|---|---|---|---|---|---|"]
    for name, d in sides:
        m = d["runs"]["fig3"]
        times = ", ".join(f"{t['time_s']:.2f}" for t in m.get("timeouts", []))
        out.append(f"| {name} | {100 * m['utilization']:.1f} % | {m['nodeb_drops']} | {m['sender_fast_recoveries']} "
                   f"| {m['sender_timeouts']} | {times} |")
    out += ["", "Table I (mean ± 95 % CI over the seeds): utilization %, timeouts, Node-B drops, proxy gain %", "",
            "| T | simulator | TCP util. | TCP TO | TCP drops | proxy util. | proxy drops | gain |",
            "|---|---|---|---|---|---|---|---|"]
    for i, period in enumerate(PERIODS_S):
        for name, d in sides:
            r = d["table1"][i]
            out.append(f"| {period:g} s | {name} | {_cell(r, 'tcp_utilization', 100)} "
                       f"| {_cell(r, 'tcp_sender_timeouts')} | {_cell(r, 'tcp_nodeb_drops')} "
                       f"| {_cell(r, 'proxy_utilization', 100)} | {_cell(r, 'proxy_nodeb_drops')} "
                       f"| {_cell(r, 'proxy_gain', 100)} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", default="pinned")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--keys", choices=("profile", "pinned", "preset"), default="preset",
                    help="the ns2 profile's dialect keys, the RFC values the preset pinned, or the preset's")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--compare", nargs="+", metavar="LABEL")
    args = ap.parse_args()
    if args.compare:
        print(compare(args.compare))
        return 0
    overrides: dict[str, Any] = dict(SAME_LINK)
    overrides.update({"profile": PROFILE_KEYS, "pinned": PINNED_KEYS, "preset": {}}[args.keys])
    for item in args.set:
        key, _, value = item.partition("=")
        try:
            overrides[key] = json.loads(value)
        except ValueError:
            overrides[key] = value
    runs = run_all(overrides, args.seeds)
    doc = {"overrides": overrides, "seeds": args.seeds, "runs": runs, "table1": summarize(runs, args.seeds)}
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"hsdpa-hosim-{args.label}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

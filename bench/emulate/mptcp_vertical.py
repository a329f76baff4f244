#!/usr/bin/env python3
"""The vertical handoff with the kernel's MPTCP (issue 35 §1, "Two interfaces"): the `vertical`
preset's mobile sends to its destination across the WiFi -> cellular handoff at 15 s, for 20 s.

Benchmark only; must run as root; never part of the test suite. Rows:

- hosim's TCP-NR (simulated, the preset's TCP: NewReno, MSS 536, a 20 Mb/s source), `hosim run`;
- the kernel's TCP, one interface: the mobile keeps its address, and the mechanism's path
  switch moves its route from WiFi to cellular (as hosim's model does); the mobile listens and
  sends (`python -m hosim.netapps serve`), the destination fetches;
- the kernel's MPTCP, two interfaces (`--multipath`): the mobile and the destination each get
  one interface per access network (198.18.0.k WiFi, 198.18.1.k cellular), packets pinned to
  their network, each interface an MPTCP endpoint that opens subflows (`ip mptcp endpoint ...
  subflow`). The mobile opens the connection and sends (`netapps push`, the destination
  `netapps sink`), so its path manager is the one that opens subflows. In `hard` mode the
  access point the mobile has left drops what is addressed to it (the preset's
  break-before-make model), and the mobile's interfaces follow its attachment
  (docs/emulate.md): the one of the network it left loses its address and goes down, with its
  endpoint, and the other comes up with its endpoint at the handoff. `interfaces stay up` is
  the same run with `--interfaces-stay-up` (the behaviour before: both interfaces up
  throughout); `mobile listens` is the fixed run with the mobile as the listening side
  (`serve`/`fetch`).

Each for vertical.mode = soft and hard. Kernel rows: the namespace's default congestion control
(BBR on this machine), bulk sender, rate = IP bytes delivered in the data direction per second,
`--repeats` runs each (real time: the runs differ); hosim's row: its goodput trace (payload),
one run (deterministic).

Output: docs/reproductions/data/vertical-handoff-mptcp.json (copied to the package's committed
data) and a markdown table on stdout.
Usage: sudo nice -n 5 python bench/emulate/mptcp_vertical.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "docs", "reproductions", "data", "vertical-handoff-mptcp.json")
COMMITTED = os.path.join(ROOT, "python", "hosim", "reproduce", "committed", "data", "vertical-handoff-mptcp.json")
DURATION = 20.0
HANDOFF = 15.0

#: (label, mode, stack, options): the kernel runs.
KERNEL_ROWS = [
    ("kernel TCP, one interface", "soft", "tcp", {}),
    ("kernel MPTCP, two interfaces", "soft", "mptcp", {}),
    ("kernel TCP, one interface", "hard", "tcp", {}),
    ("kernel MPTCP, two interfaces, interfaces stay up", "hard", "mptcp", {"follow_attachment": False}),
    ("kernel MPTCP, two interfaces", "hard", "mptcp", {}),
    ("kernel MPTCP, two interfaces, mobile listens", "hard", "mptcp-listen", {}),
]


def mean_rate(per_s: list[float], a: float, b: float) -> float:
    """Mean bit/s over whole seconds [a, b) of a per-second byte series."""
    xs = [per_s[i] if i < len(per_s) else 0.0 for i in range(int(a), int(b))]
    return 8 * sum(xs) / len(xs) if xs else 0.0


def simulated(mode: str) -> dict:
    import hosim

    r = hosim.run("vertical", overrides={"duration_s": DURATION, "vertical.mode": mode, "trace.interval_s": 1.0})
    g = r.goodput
    per_s = [float(v) / 8 for v in g[g["flow"] == "mobile"].sort_values("time_s")["goodput_bps"]]
    return {"stack": "hosim TCP-NR (simulated)", "mode": mode, "runs": [{"per_s_bytes": per_s}]}


def emulated(mode: str, stack: str, options: dict) -> dict:
    import hosim

    py = sys.executable
    t = DURATION + 5
    if stack == "mptcp":
        server = f"{py} -m hosim.netapps push {{client}} --mptcp --bytes 1000000000 --timeout {t}"
        client = f"{py} -m hosim.netapps sink --mptcp --timeout {t}"
    else:
        flag = " --mptcp" if stack == "mptcp-listen" else ""
        server = f"{py} -m hosim.netapps serve{flag} --bytes 1000000000 --timeout {t}"
        client = f"{py} -m hosim.netapps fetch {{server}}{flag} --timeout {t}"
    with tempfile.TemporaryDirectory() as tmp:
        s = hosim.emulate(
            "vertical", overrides={"duration_s": DURATION, "vertical.mode": mode}, server=server, client=client,
            client_delay_s=0.0, app_output_dir=tmp, multipath=stack != "tcp", **options,
        )
    emu = s["emulation"]
    f = emu["flows"][0]
    return {
        "per_s_bytes": f["forward_delivered_bytes_per_s"],
        "lateness": emu["lateness"],
        "loadavg": emu["loadavg"],
        "attachments": [{k: a[k] for k in ("device", "up", "at_s", "late_us", "endpoint")}
                        for a in emu.get("attachments", [])],
        "mptcp_counters": {h["host"]: {k: v for k, v in h["nstat"].items() if k.startswith("MPTcp")}
                           for h in emu["hosts"]},
        "queues": {q["name"]: q["tx_bytes"] for q in s["queues"]},
    }


def spread(xs: list[float]) -> str:
    m = statistics.fmean(xs) / 1e6
    if len(xs) == 1:
        return f"{m:.2f}"
    return f"{m:.2f} ({min(xs) / 1e6:.2f}-{max(xs) / 1e6:.2f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("mptcp_vertical.py: needs root (hosim emulate)", file=sys.stderr)
        return 2
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load0 = list(os.getloadavg())
    rows = [simulated("soft"), simulated("hard")]
    for label, mode, stack, options in KERNEL_ROWS:
        runs = [emulated(mode, stack, options) for _ in range(args.repeats)]
        rows.append({"stack": label, "mode": mode, "runs": runs})
    for r in rows:
        for run in r["runs"]:
            run["before_bps"] = mean_rate(run["per_s_bytes"], 1, HANDOFF)
            run["after_bps"] = mean_rate(run["per_s_bytes"], HANDOFF, DURATION)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as fh:
        json.dump({"kernel": os.uname().release, "date": started, "loadavg_at_start": load0,
                   "command": f"bench/emulate/mptcp_vertical.py --repeats {args.repeats}",
                   "duration_s": DURATION, "handoff_s": HANDOFF, "rows": rows}, fh, indent=1)
        fh.write("\n")
    shutil.copyfile(OUT, COMMITTED)
    print("| vertical.mode | stack | WiFi, 1-15 s (Mb/s) | cellular, 15-20 s (Mb/s) | lateness p99, max of runs (µs) |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        late = [run["lateness"]["p99_us"] for run in r["runs"] if "lateness" in run]
        lat = f"{max(late):.0f}" if late else "-"
        print(f"| {r['mode']} | {r['stack']} | {spread([x['before_bps'] for x in r['runs']])} | "
              f"{spread([x['after_bps'] for x in r['runs']])} | {lat} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The vertical handoff with the kernel's MPTCP (issue 35 §1, "Two interfaces"): the `vertical`
preset's mobile sends to its destination across the WiFi -> cellular handoff at 15 s, for 20 s.

Benchmark only; must run as root; never part of the test suite. Rows:

- hosim's TCP-NR (simulated, the preset's TCP: NewReno, MSS 536, a 20 Mb/s source), `hosim run`;
- the kernel's TCP, one interface: the mobile keeps its address, and the mechanism's path
  switch moves its route from WiFi to cellular (as hosim's model does);
- the kernel's MPTCP, two interfaces (`--multipath`): the mobile and the destination each get
  one interface per access network (198.18.0.k WiFi, 198.18.1.k cellular), packets pinned to
  their network; the client opens a second subflow over cellular (`ip mptcp endpoint ...
  subflow`). The path switch does not move pinned packets; in `hard` mode the access point the
  mobile has left drops what is addressed to it (the preset's break-before-make model), so
  only one network reaches the mobile at a time.

Each for vertical.mode = soft and hard. Kernel rows: the namespace's default congestion control
(BBR on this machine), bulk sender (`python -m hosim.netapps`), rate = IP bytes delivered in
the data direction per second; hosim's row: its goodput trace (payload).

Output: bench/results/emulate/mptcp-vertical.json and a markdown table on stdout.
Usage: sudo nice -n 5 python bench/emulate/mptcp_vertical.py
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "results", "emulate", "mptcp-vertical.json"))
DURATION = 20.0
HANDOFF = 15.0


def mean_rate(per_s: list[float], a: float, b: float) -> float:
    """Mean bit/s over whole seconds [a, b) of a per-second byte series."""
    xs = [per_s[i] if i < len(per_s) else 0.0 for i in range(int(a), int(b))]
    return 8 * sum(xs) / len(xs) if xs else 0.0


def simulated(mode: str) -> dict:
    import hosim

    r = hosim.run("vertical", overrides={"duration_s": DURATION, "vertical.mode": mode, "trace.interval_s": 1.0})
    g = r.goodput
    per_s = [float(v) / 8 for v in g[g["flow"] == "mobile"].sort_values("time_s")["goodput_bps"]]
    return {"stack": "hosim TCP-NR (simulated)", "mode": mode, "per_s_bytes": per_s}


def emulated(mode: str, mptcp: bool) -> dict:
    import hosim

    py = sys.executable
    flag = " --mptcp" if mptcp else ""
    s = hosim.emulate(
        "vertical", overrides={"duration_s": DURATION, "vertical.mode": mode},
        server=f"{py} -m hosim.netapps serve{flag} --bytes 1000000000 --timeout {DURATION + 5}",
        client=f"{py} -m hosim.netapps fetch {{server}}{flag} --timeout {DURATION + 5}",
        client_delay_s=0.0, app_output_dir="/tmp", multipath=mptcp,
    )
    emu = s["emulation"]
    f = emu["flows"][0]
    mp = {h["host"]: {k: v for k, v in h["nstat"].items() if k.startswith("MPTcp")} for h in emu["hosts"]}
    return {
        "stack": "kernel MPTCP, two interfaces" if mptcp else "kernel TCP, one interface",
        "mode": mode,
        "per_s_bytes": f["forward_delivered_bytes_per_s"],
        "lateness": emu["lateness"],
        "loadavg": emu["loadavg"],
        "mptcp_counters": mp,
        "ss": {h["host"]: h["ss"] for h in emu["hosts"]},
        "queues": {q["name"]: q["tx_bytes"] for q in s["queues"]},
    }


def main() -> int:
    if os.geteuid() != 0:
        print("mptcp_vertical.py: needs root (hosim emulate)", file=sys.stderr)
        return 2
    rows = []
    for mode in ("soft", "hard"):
        rows.append(simulated(mode))
        rows.append(emulated(mode, False))
        rows.append(emulated(mode, True))
    for r in rows:
        r["before_bps"] = mean_rate(r["per_s_bytes"], 1, HANDOFF)
        r["after_bps"] = mean_rate(r["per_s_bytes"], HANDOFF, DURATION)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as fh:
        json.dump({"kernel": os.uname().release, "duration_s": DURATION, "handoff_s": HANDOFF, "runs": rows}, fh,
                  indent=1)
        fh.write("\n")
    print("| vertical.mode | stack | WiFi, 1-15 s (Mb/s) | cellular, 15-20 s (Mb/s) |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['mode']} | {r['stack']} | {r['before_bps'] / 1e6:.2f} | {r['after_bps'] / 1e6:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

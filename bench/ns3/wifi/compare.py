#!/usr/bin/env python3
"""Tables of hosim's 802.11 medium against ns-3.44 (bench/ns3/wifi/README.md).

Reads the ns-3 results (ns3_udp.json, ns3_tcp.json, ns3_rtt.json, written by the ns3_*.py
scripts) and hosim's (hosim_*.jsonl, printed by the wifi_* examples of crates/hosim) from
this directory and prints markdown tables with the relative difference and the target.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent


def load(name: str) -> list:
    p = HERE / name
    if p.suffix == ".jsonl":
        return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
    return json.loads(p.read_text())


def key(r: dict) -> tuple:
    return (r["standard"], float(r["rate_bps"]), r.get("stations", 1))


def table(title: str, ns3: list, hosim: list, field: str, scale: float, unit: str, target: float) -> None:
    h = {key(r): r for r in hosim}
    print(f"\n{title}\n")
    print(f"| standard | rate (Mb/s) | stations | ns-3 ({unit}) | hosim ({unit}) | diff | within {target:.0%} |")
    print("|---|---|---|---|---|---|---|")
    for r in ns3:
        o = h.get(key(r))
        if o is None:
            continue
        a, b = r[field] / scale, o[field] / scale
        d = b / a - 1
        ok = "yes" if abs(d) <= target else "**no**"
        print(f"| {r['standard']} | {r['rate_bps'] / 1e6:g} | {key(r)[2]} | {a:.3f} | {b:.3f} | {d:+.1%} | {ok} |")


def main() -> None:
    table("UDP saturation throughput (IP bytes)", load("ns3_udp.json"), load("hosim_udp.jsonl"),
          "throughput_bps", 1e6, "Mb/s", 0.03)
    table("TCP bulk goodput, total over the stations", load("ns3_tcp.json"), load("hosim_tcp.jsonl"),
          "total_goodput_bps", 1e6, "Mb/s", 0.03)
    table("RTT of a probe beside a saturating flow: median", load("ns3_rtt.json"), load("hosim_rtt.jsonl"),
          "rtt_median_s", 1e-3, "ms", 0.10)
    table("RTT of a probe beside a saturating flow: p90", load("ns3_rtt.json"), load("hosim_rtt.jsonl"),
          "rtt_p90_s", 1e-3, "ms", 0.10)


if __name__ == "__main__":
    main()

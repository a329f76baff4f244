#!/usr/bin/env python3
"""ns-3.44 referee for the 802.11 DCF medium: UDP saturation throughput (benchmark only).

Infrastructure BSS, YansWifiPhy over a YansWifiChannel (log-distance loss, stations 1 m from
the AP: no frame is lost to the channel), ConstantRateWifiManager (DataMode and ControlMode
given; no rate control), RTS/CTS off (RtsCtsThreshold above every frame), no fragmentation,
no QoS (plain DCF). Each station sends UDP to the AP faster than the medium carries it; the
AP's received IP bytes over [warmup, duration] are the throughput.

ns-3 defaults neutralised: the FqCoDel root queue disc that Ipv4AddressHelper::Assign
installs is removed (the WifiMacQueue is the only queue); WifiMacQueue::MaxDelay (500 ms by
default, a drop of stale frames no standard asks for) raised to 10 s; the AP beacons every 1024 TU
(about 1 s) instead of 100 TU, the first at 0 s (measured: beacons every 102.4 ms give 0.7 to
1.1 % lower throughput). The BSS itself is bench/ns3/wifi_setup.py's, shared with ns3_tcp.py,
ns3_rtt.py and bench/ns3/papers/vertical.py.

Usage: python bench/ns3/wifi/ns3_udp.py [--duration 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from wifi_setup import install_bss, write_rows  # noqa: E402

CASES = [
    ("802.11g", 6e6), ("802.11g", 24e6), ("802.11g", 54e6),
    ("802.11b", 1e6), ("802.11b", 5.5e6), ("802.11b", 11e6),
]
PAYLOAD = 1472  # UDP payload: 1500-byte IP packets


def bss(ns, std: str, rate: float, n_sta: int):
    """One infrastructure BSS as every script here builds it (`wifi_setup.install_bss`): node 0
    the AP, nodes 1..n_sta its stations 1 m away; IPv4 on 10.0.0.0/24 (inside the simulation)
    with no queue discipline. Returns (nodes, the AP's devices, the interfaces)."""
    nodes = ns.NodeContainer()
    nodes.Create(n_sta + 1)
    stas = ns.NodeContainer()
    for i in range(n_sta):
        stas.Add(nodes.Get(i + 1))
    ap_dev, sta_dev = install_bss(ns, std, rate, nodes.Get(0), stas, "hosim")
    mob = ns.MobilityHelper()
    pos = ns.CreateObject[ns.ListPositionAllocator]()
    pos.Add(ns.Vector(0, 0, 0))
    for i in range(n_sta):
        pos.Add(ns.Vector(1.0, 0.1 * i, 0))
    mob.SetPositionAllocator(pos)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(nodes)
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    devs = ns.NetDeviceContainer()
    devs.Add(ap_dev)
    devs.Add(sta_dev)
    ifs = addr.Assign(devs)
    ns.TrafficControlHelper().Uninstall(devs)
    return nodes, ap_dev, ifs


def run_cases(run_case, stations: list, json_path: str | None) -> None:
    """Each case of CASES with each number of `stations` (None: the script has one), a JSON line
    per result on stdout, all of them into `json_path`."""
    rows = []
    for n in stations:
        for std, rate in CASES:
            r = run_case(std, rate, n)
            print(json.dumps(r), flush=True)
            rows.append(r)
    write_rows(rows, json_path)


def run(ns, std: str, rate: float, n_sta: int, duration: float, warmup: float) -> dict:
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(10)))
    nodes, ap_dev, ifs = bss(ns, std, rate, n_sta)
    ap = nodes.Get(0)
    port = 9
    sink = ns.PacketSinkHelper("ns3::UdpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_app = sink.Install(ap)
    sink_app.Start(ns.Seconds(0))
    for i in range(n_sta):
        onoff = ns.OnOffHelper("ns3::UdpSocketFactory", ns.InetSocketAddress(ifs.GetAddress(0), port).ConvertTo())
        onoff.SetConstantRate(ns.DataRate(int(rate * 1.5)), PAYLOAD)
        a = onoff.Install(nodes.Get(i + 1))
        a.Start(ns.Seconds(0.5 + 0.001 * i))
    ps = ns.DynamicCast[ns.PacketSink](sink_app.Get(0))
    marks = {}

    def mark(tag):
        marks[tag] = ps.GetTotalRx()

    ns.Simulator.Stop(ns.Seconds(0.5 + warmup))
    ns.Simulator.Run()
    mark("a")
    ns.Simulator.Stop(ns.Seconds(duration - 0.5 - warmup))  # Stop's delay is relative to now
    ns.Simulator.Run()
    mark("b")
    wphy = ns.DynamicCast[ns.WifiNetDevice](ap_dev.Get(0)).GetPhy()
    slot_us = wphy.GetSlot().GetMicroSeconds()
    ns.Simulator.Destroy()
    window = duration - 0.5 - warmup
    ip_bytes = (marks["b"] - marks["a"]) / PAYLOAD * (PAYLOAD + 28)
    return {"standard": std, "rate_bps": rate, "stations": n_sta, "slot_us": slot_us,
            "throughput_bps": ip_bytes * 8 / window}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--duration", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--stations", type=int, nargs="+", default=[1, 4])
    p.add_argument("--json")
    a = p.parse_args()
    from ns import ns
    run_cases(lambda std, rate, n: run(ns, std, rate, n, a.duration, a.warmup), a.stations, a.json)


if __name__ == "__main__":
    sys.exit(main())

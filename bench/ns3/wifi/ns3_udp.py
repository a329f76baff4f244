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
(about 1 s) instead of 100 TU, the first at 0 s: hosim's medium carries no management
frames, and a beacon at 1 Mb/s every 102.4 ms takes about 1 % of the airtime (measured: 0.7 to
1.1 % lower throughput). Beacons cannot be switched off: a station disassociates after
StaWifiMac::MaxMissedBeacons, and the first beacon tells 802.11g stations to use the short
slot.

Usage: python bench/ns3/wifi/ns3_udp.py [--duration 3] [--json out.json]
"""

import argparse
import json
import sys

CASES = [
    ("802.11g", 6e6), ("802.11g", 24e6), ("802.11g", 54e6),
    ("802.11b", 1e6), ("802.11b", 5.5e6), ("802.11b", 11e6),
]
PAYLOAD = 1472  # UDP payload: 1500-byte IP packets


def mode_name(std: str, rate: float) -> str:
    if std == "802.11g":
        return f"ErpOfdmRate{int(rate / 1e6)}Mbps"
    return {1e6: "DsssRate1Mbps", 2e6: "DsssRate2Mbps", 5.5e6: "DsssRate5_5Mbps", 11e6: "DsssRate11Mbps"}[rate]


def bss(ns, std: str, rate: float, n_sta: int):
    """One infrastructure BSS as every script here builds it: node 0 the AP, nodes 1..n_sta its
    stations 1 m away; YansWifiPhy, ConstantRateWifiManager at `rate` (control frames at the
    lowest rate of the standard), RTS/CTS off, one beacon a second without jitter; IPv4 on
    10.0.0.0/24 (inside the simulation) with no queue discipline. Returns (nodes, the AP's
    devices, the interfaces)."""
    nodes = ns.NodeContainer()
    nodes.Create(n_sta + 1)
    ap = nodes.Get(0)
    chan = ns.YansWifiChannelHelper.Default()
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(chan.Create())
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211g if std == "802.11g" else ns.WIFI_STANDARD_80211b)
    ctrl = "ErpOfdmRate6Mbps" if std == "802.11g" else "DsssRate1Mbps"
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager", "DataMode", ns.StringValue(mode_name(std, rate)),
        "ControlMode", ns.StringValue(ctrl), "RtsCtsThreshold", ns.UintegerValue(65535),
    )
    mac = ns.WifiMacHelper()
    ssid = ns.Ssid("hosim")
    beacon = ns.TimeValue(ns.MicroSeconds(1024 * 1024))
    mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid), "BeaconInterval", beacon,
                "EnableBeaconJitter", ns.BooleanValue(False))
    ap_dev = wifi.Install(phy, mac, ap)
    stas = ns.NodeContainer()
    for i in range(n_sta):
        stas.Add(nodes.Get(i + 1))
    mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid))
    sta_dev = wifi.Install(phy, mac, stas)
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
    rows = []
    for n in a.stations:
        for std, rate in CASES:
            r = run(ns, std, rate, n, a.duration, a.warmup)
            print(json.dumps(r), flush=True)
            rows.append(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

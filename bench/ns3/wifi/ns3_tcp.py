#!/usr/bin/env python3
"""ns-3.44 referee for the 802.11 DCF medium: TCP bulk goodput (benchmark only).

The BSS of ns3_udp.py (YansWifiPhy, ConstantRateWifiManager, RTS/CTS off, no QoS, stations
1 m from the AP, one beacon a second). The AP itself runs one BulkSendApplication to each
station (downlink), so a station's TCP ACKs contend with the AP's data for the medium.
Goodput: bytes the PacketSinks received over `duration` seconds after the flows' start.

ns-3 defaults neutralised (as in bench/ns3/run_ns3.py): FqCoDel removed;
TcpSocket::SegmentSize 1448 (default 536); Timestamp off (data packets 1448 + 40 bytes);
SocketType TcpNewReno and RecoveryType TcpClassicRecovery (defaults CUBIC and PRR); SACK on;
DelAckCount 2; Snd/RcvBufSize 131072 (the receive window; hosim's rwnd_bytes);
WifiMacQueue MaxSize 1000p and MaxDelay 10 s, so that no packet is dropped: the window, not
a queue, bounds the flight.

Usage: python bench/ns3/wifi/ns3_tcp.py [--duration 5] [--json out.json]
"""

import argparse
import json
import sys

from ns3_udp import CASES, bss

MSS = 1448
BUF = 131072


def run(ns, std: str, rate: float, n_sta: int, duration: float) -> dict:
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    D = ns.Config.SetDefault
    D("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(10)))
    D("ns3::WifiMacQueue::MaxSize", ns.StringValue("1000p"))
    D("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpNewReno")))
    D("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
    D("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    D("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    D("ns3::TcpSocket::SndBufSize", ns.UintegerValue(BUF))
    D("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(BUF))
    D("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    D("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    nodes, _, ifs = bss(ns, std, rate, n_sta)
    ap = nodes.Get(0)
    start = 0.5
    sinks = []
    for i in range(n_sta):
        port = 9 + i
        any_port = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_port)
        app = sink.Install(nodes.Get(i + 1))
        app.Start(ns.Seconds(0))
        sinks.append(ns.DynamicCast[ns.PacketSink](app.Get(0)))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ifs.GetAddress(i + 1), port).ConvertTo())
        bulk.SetAttribute("SendSize", ns.UintegerValue(MSS))
        b = bulk.Install(ap)
        b.Start(ns.Seconds(start))
    ns.Simulator.Stop(ns.Seconds(start + duration))
    ns.Simulator.Run()
    got = [s.GetTotalRx() for s in sinks]
    ns.Simulator.Destroy()
    return {"standard": std, "rate_bps": rate, "stations": n_sta,
            "goodput_bps": [g * 8 / duration for g in got], "total_goodput_bps": sum(got) * 8 / duration}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--duration", type=float, default=5.0)
    p.add_argument("--stations", type=int, nargs="+", default=[1, 4])
    p.add_argument("--json")
    a = p.parse_args()
    from ns import ns
    rows = []
    for n in a.stations:
        for std, rate in CASES:
            r = run(ns, std, rate, n, a.duration)
            print(json.dumps(r), flush=True)
            rows.append(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

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
import sys

from ns3_udp import bss, run_cases
from wifi_setup import newreno_defaults  # bench/ns3, put on the path by ns3_udp

MSS = 1448
BUF = 131072


def configure(ns) -> None:
    """The TCP and queue defaults of this script and ns3_rtt.py (the module docstring)."""
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    newreno_defaults(ns, mss=MSS, sack=True, buf_bytes=BUF, wifi_queue_pkts=1000, wifi_queue_delay_s=10)


def run(ns, std: str, rate: float, n_sta: int, duration: float) -> dict:
    configure(ns)
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
    run_cases(lambda std, rate, n: run(ns, std, rate, n, a.duration), a.stations, a.json)


if __name__ == "__main__":
    sys.exit(main())

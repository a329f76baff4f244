#!/usr/bin/env python3
"""ns-3.44 referee for the 802.11 DCF medium: the RTT of a low-rate probe beside a saturating
TCP flow (benchmark only).

The BSS and TCP of ns3_tcp.py, one station. The AP sends a bulk TCP flow to the station and,
from 1 s on, pings it every 100 ms (Ping, 56-byte payload: 84-byte IP packets). The echo
requests wait in the AP's queue behind the bulk flow's segments; the replies contend with
the station's TCP ACKs. The median and p90 of the ping RTTs over [1 s, 1 s + duration].

Usage: python bench/ns3/wifi/ns3_rtt.py [--duration 10] [--json out.json]
"""

import argparse
import statistics
import sys

from ns3_tcp import MSS, configure
from ns3_udp import bss, run_cases

HOOK = r"""
#include <vector>
namespace wifiref {
std::vector<double> rtts;
void OnRtt(uint16_t, ns3::Time rtt) { rtts.push_back(rtt.GetSeconds()); }
void Hook(ns3::Ptr<ns3::Application> app) {
    app->TraceConnectWithoutContext("Rtt", ns3::MakeCallback(&OnRtt));
}
}
"""


def run(ns, cppyy, std: str, rate: float, duration: float) -> dict:
    configure(ns)
    nodes, _, ifs = bss(ns, std, rate, 1)
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9).ConvertTo())
    sink.Install(nodes.Get(1)).Start(ns.Seconds(0))
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ifs.GetAddress(1), 9).ConvertTo())
    bulk.SetAttribute("SendSize", ns.UintegerValue(MSS))
    bulk.Install(nodes.Get(0)).Start(ns.Seconds(0.5))
    ping = ns.PingHelper(ifs.GetAddress(1).ConvertTo())
    ping.SetAttribute("Interval", ns.TimeValue(ns.Seconds(0.1)))
    ping.SetAttribute("Size", ns.UintegerValue(56))
    ping.SetAttribute("Count", ns.UintegerValue(int(duration / 0.1)))  # default: reserves 2^32 entries
    ping.SetAttribute("VerboseMode", ns.EnumValue["ns3::Ping::VerboseMode"](ns.Ping.SILENT))
    apps = ping.Install(nodes.Get(0))
    apps.Start(ns.Seconds(1.5))
    cppyy.gbl.wifiref.rtts.clear()
    cppyy.gbl.wifiref.Hook(apps.Get(0))
    ns.Simulator.Stop(ns.Seconds(1.5 + duration))
    ns.Simulator.Run()
    rtts = sorted(cppyy.gbl.wifiref.rtts)
    ns.Simulator.Destroy()
    return {"standard": std, "rate_bps": rate, "samples": len(rtts), "rtt_median_s": statistics.median(rtts),
            "rtt_p90_s": rtts[int(0.9 * (len(rtts) - 1))]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--json")
    a = p.parse_args()
    import cppyy
    from ns import ns
    cppyy.cppdef(HOOK)
    run_cases(lambda std, rate, _: run(ns, cppyy, std, rate, a.duration), [1], a.json)


if __name__ == "__main__":
    sys.exit(main())

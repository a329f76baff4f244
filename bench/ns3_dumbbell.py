#!/usr/bin/env python3
"""ns-3 3.44 reference run of the dumbbell workload, for comparing hosim's speed and results.

Benchmark-only: needs ``pip install ns3==3.44.post0`` (cppyy bindings, ~500 MB). That package is
NOT a dependency of hosim and must never become one.

Workload (defaults): N=8 senders, each 100 Mb/s / 2 ms point-to-point to a left router; a
12 Mb/s / 20 ms point-to-point bottleneck from the left router to a right router; N receivers,
each 100 Mb/s / 2 ms to the right router. One TCP NewReno bulk flow per sender/receiver pair,
all starting at t=0 (``--stagger-ms`` to stagger), 60 s simulated.

Queueing: every point-to-point device has a DropTailQueue<Packet>; bottleneck devices (both
directions) 90 packets, access devices 1000 packets. The traffic-control layer's default root
queue disc (FqCoDel, installed by Ipv4AddressHelper::Assign) is uninstalled from *every* device,
so the device DropTail queue is the only queue. Note: without a queue disc, ns-3's device flow
control (NetDeviceQueueInterface) stops the tx queue once it holds 90 packets and the
TrafficControlLayer then discards further packets (trace ``TcDrop``) instead of the DropTail
queue itself; the behaviour is plain drop-tail at 90 queued packets (+1 being serialised), and
this script counts both kinds of drop.

Each repeat runs in a fresh Python subprocess (import ~20 s is not timed). Timed: wall and CPU
time of ``Simulator::Run()`` only; setup (topology, stack, apps, routing) is timed separately.

Usage:
    python bench/ns3_dumbbell.py --flows 8 --duration 60 --repeat 3 \
        --out bench/results/ns3_dumbbell.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

NS3_PIP_VERSION = "3.44.post0"

#: One /24 per access link in 10.16/12 and 10.32/12 (`run_once`).
MAX_FLOWS = 4096

# --- fixed workload parameters (the CLI exposes flows/duration/stagger/queues) ---------------
ACCESS_RATE = "100Mbps"
ACCESS_DELAY = "2ms"
BOTTLENECK_RATE = "12Mbps"
BOTTLENECK_RATE_BPS = 12e6
BOTTLENECK_DELAY = "20ms"
SEGMENT_SIZE = 1448
SOCKET_BUF = 4 * 1024 * 1024
BASE_PORT = 50000

# C++ helpers JIT-compiled by cppyy: drop counters attached to trace sources in C++, so no Python
# runs inside Simulator::Run().
_CPP_HELPERS = r"""
#include <map>
#include <cstdint>
namespace ns3bench {
using namespace ns3;
static std::map<uint32_t, uint64_t> g_tcDrops;     // node id -> TrafficControlLayer TcDrop count
static std::map<uint64_t, uint64_t> g_queueDrops;  // (node id << 32 | dev index) -> queue Drop count
static uint64_t g_hops = 0;                        // MacRx calls of every device: packet-hops
static void TcDropCb(uint32_t node, Ptr<const Packet>) { ++g_tcDrops[node]; }
static void HopCb(Ptr<const Packet>) { ++g_hops; }
static void QueueDropCb(uint64_t key, Ptr<const Packet>) { ++g_queueDrops[key]; }
static std::map<uint64_t, uint32_t> g_queueMax;    // same key -> max packets queued
static void QueueLenCb(uint64_t key, uint32_t, uint32_t now) {
    uint32_t& m = g_queueMax[key];
    if (now > m) m = now;
}
void AttachDropCounters() {
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n) {
        Ptr<Node> node = NodeList::GetNode(n);
        g_tcDrops[n] = 0;
        Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
        if (tc) tc->TraceConnectWithoutContext("TcDrop", MakeBoundCallback(&TcDropCb, n));
        for (uint32_t d = 0; d < node->GetNDevices(); ++d) {
            Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (!p2p) continue;
            uint64_t key = (uint64_t(n) << 32) | d;
            g_queueDrops[key] = 0;
            g_queueMax[key] = 0;
            p2p->GetQueue()->TraceConnectWithoutContext("Drop", MakeBoundCallback(&QueueDropCb, key));
            p2p->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&QueueLenCb, key));
            p2p->TraceConnectWithoutContext("MacRx", MakeCallback(&HopCb));
        }
    }
}
uint64_t Hops() { return g_hops; }
uint64_t TcDrops(uint32_t node) { return g_tcDrops[node]; }
uint64_t QueueDrops(uint32_t node, uint32_t dev) { return g_queueDrops[(uint64_t(node) << 32) | dev]; }
uint32_t QueueMax(uint32_t node, uint32_t dev) { return g_queueMax[(uint64_t(node) << 32) | dev]; }
bool HasRootQueueDisc(Ptr<NetDevice> dev) {
    Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
    return tc && tc->GetRootQueueDiscOnDevice(dev);
}
uint64_t SinkRx(Ptr<Application> app) { return DynamicCast<PacketSink>(app)->GetTotalRx(); }
}
"""


def machine_info() -> dict:
    cpu = None
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def jain(xs: list[float]) -> float:
    s = sum(xs)
    sq = sum(x * x for x in xs)
    return (s * s) / (len(xs) * sq) if sq > 0 else 0.0


def _s(v) -> str:
    return v.decode() if isinstance(v, (bytes, bytearray)) else str(v)


def _attr_defaults(ns, type_name: str, names: list[str]) -> dict:
    """Effective default values (after Config::SetDefault) of some attributes of a TypeId."""
    tid = ns.TypeId.LookupByName(type_name)
    out = {}
    for i in range(tid.GetAttributeN()):
        info = tid.GetAttribute(i)
        name = _s(info.name)
        if name in names:
            out[name] = _s(info.initialValue.SerializeToString(info.checker))
    return out


def run_once(flows: int, duration: float, stagger_ms: float, bottleneck_q: int, access_q: int) -> dict:
    """Build, run and measure one simulation (call in a fresh process)."""
    t_import = time.perf_counter()
    import cppyy  # noqa: PLC0415
    from ns import ns  # noqa: PLC0415  (slow: ~20 s, cppyy JIT)

    import_s = time.perf_counter() - t_import
    cppyy.cppdef(_CPP_HELPERS)
    cpp = cppyy.gbl.ns3bench

    t_setup = time.perf_counter()

    # --- TCP configuration ---------------------------------------------------------------
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_SIZE))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUF))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUF))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    # Access-link device queues; the bottleneck devices' queues are resized below.
    ns.Config.SetDefault("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue(f"{access_q}p"))

    tcp_cfg = {}
    tcp_cfg.update(_attr_defaults(ns, "ns3::TcpL4Protocol", ["SocketType", "RecoveryType", "RttEstimatorType"]))
    tcp_cfg.update(_attr_defaults(ns, "ns3::TcpSocket", [
        "SegmentSize", "SndBufSize", "RcvBufSize", "InitialCwnd", "InitialSlowStartThreshold",
        "DelAckCount", "DelAckTimeout", "TcpNoDelay", "ConnTimeout", "DataRetries"]))
    tcp_cfg.update(_attr_defaults(ns, "ns3::TcpSocketBase", [
        "Sack", "WindowScaling", "Timestamp", "MinRto", "ClockGranularity", "ReTxThreshold",
        "LimitedTransmit", "UseEcn", "MaxWindowSize"]))

    # --- topology ------------------------------------------------------------------------
    routers = ns.NodeContainer()
    routers.Create(2)
    left, right = routers.Get(0), routers.Get(1)
    senders = ns.NodeContainer()
    senders.Create(flows)
    receivers = ns.NodeContainer()
    receivers.Create(flows)

    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue(ACCESS_RATE))
    access.SetChannelAttribute("Delay", ns.StringValue(ACCESS_DELAY))
    bneck = ns.PointToPointHelper()
    bneck.SetDeviceAttribute("DataRate", ns.StringValue(BOTTLENECK_RATE))
    bneck.SetChannelAttribute("Delay", ns.StringValue(BOTTLENECK_DELAY))

    bneck_devs = bneck.Install(left, right)  # Get(0): left router's bottleneck device
    snd_devs = [access.Install(senders.Get(i), left) for i in range(flows)]
    rcv_devs = [access.Install(right, receivers.Get(i)) for i in range(flows)]

    for i in range(2):
        dev = ns.DynamicCast[ns.PointToPointNetDevice](bneck_devs.Get(i))
        dev.GetQueue().SetAttribute("MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{bottleneck_q}p")))

    stack = ns.InternetStackHelper()
    stack.InstallAll()

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bneck_devs)
    rcv_ifs = []
    for i in range(flows):
        # One /24 per access link: senders in 10.16.0.0/12, receivers in 10.32.0.0/12 (up to
        # 4,096 flows; the third octet wraps into the second every 256 flows).
        hi, lo = divmod(i, 256)
        addr.SetBase(ns.Ipv4Address(f"10.{16 + hi}.{lo}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(snd_devs[i])
        addr.SetBase(ns.Ipv4Address(f"10.{32 + hi}.{lo}.0"), ns.Ipv4Mask("255.255.255.0"))
        rcv_ifs.append(addr.Assign(rcv_devs[i]))

    # Ipv4AddressHelper::Assign installed the default root qdisc (FqCoDel) on every device:
    # remove it everywhere, so the device DropTail queues are the only queues.
    tch = ns.TrafficControlHelper()
    all_devs = [bneck_devs] + snd_devs + rcv_devs
    for dc in all_devs:
        tch.Uninstall(dc)
    qdiscs_left = sum(
        bool(cpp.HasRootQueueDisc(dc.Get(j))) for dc in all_devs for j in range(dc.GetN()))
    if qdiscs_left:
        raise RuntimeError(f"{qdiscs_left} root queue discs still installed")

    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # --- applications --------------------------------------------------------------------
    sink_apps = []
    for i in range(flows):
        port = BASE_PORT + i
        start = ns.Seconds(i * stagger_ms / 1000.0)
        sink_h = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        sink = sink_h.Install(receivers.Get(i))
        sink.Start(ns.Seconds(0.0))
        sink.Stop(ns.Seconds(duration))
        sink_apps.append(sink.Get(0))

        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(rcv_ifs[i].GetAddress(1), port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))  # unlimited
        bulk.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_SIZE))
        src = bulk.Install(senders.Get(i))
        src.Start(start)
        src.Stop(ns.Seconds(duration))

    cpp.AttachDropCounters()
    ns.Simulator.Stop(ns.Seconds(duration))
    setup_s = time.perf_counter() - t_setup

    # --- run (the only timed part) -------------------------------------------------------
    load_before = os.getloadavg()[0]
    ev0 = ns.Simulator.GetEventCount()
    c0 = time.process_time()
    w0 = time.perf_counter()
    ns.Simulator.Run()
    run_wall = time.perf_counter() - w0
    run_cpu = time.process_time() - c0
    events = int(ns.Simulator.GetEventCount()) - int(ev0)
    sim_end = ns.Simulator.Now().GetSeconds()

    # --- results -------------------------------------------------------------------------
    rx_bytes = [int(cpp.SinkRx(a)) for a in sink_apps]
    per_flow_bps = [b * 8 / duration for b in rx_bytes]
    left_id = left.GetId()
    bdev_left = ns.DynamicCast[ns.PointToPointNetDevice](bneck_devs.Get(0))
    bq = bdev_left.GetQueue()
    bdev_idx = bdev_left.GetIfIndex()
    bottleneck = {
        "tc_drops": int(cpp.TcDrops(left_id)),
        "device_queue_drops": int(cpp.QueueDrops(left_id, bdev_idx)),
        "queue_enqueued_packets": int(bq.GetTotalReceivedPackets()),
        "queue_enqueued_bytes": int(bq.GetTotalReceivedBytes()),
        "queue_dropped_packets_counter": int(bq.GetTotalDroppedPackets()),
        "max_packets_in_queue": int(cpp.QueueMax(left_id, bdev_idx)),
    }
    bottleneck["drops"] = bottleneck["tc_drops"] + bottleneck["device_queue_drops"]
    total_tc = sum(int(cpp.TcDrops(n)) for n in range(ns.NodeList.GetNNodes()))
    total_q = 0
    for n in range(ns.NodeList.GetNNodes()):
        node = ns.NodeList.GetNode(n)
        for d in range(node.GetNDevices()):
            total_q += int(cpp.QueueDrops(n, d))
    other_drops = total_tc + total_q - bottleneck["drops"]
    agg_bps = sum(per_flow_bps)

    ns.Simulator.Destroy()
    return {
        "import_s": import_s,
        "setup_s": setup_s,
        "run_wall_s": run_wall,
        "run_cpu_s": run_cpu,
        "events": events,
        "events_per_s": events / run_wall if run_wall > 0 else None,
        "packet_hops": int(cpp.Hops()),
        "sim_end_s": sim_end,
        "loadavg_1min_before_run": load_before,
        "rx_bytes": rx_bytes,
        "per_flow_goodput_bps": per_flow_bps,
        "aggregate_goodput_bps": agg_bps,
        "bottleneck_utilisation_goodput": agg_bps / BOTTLENECK_RATE_BPS,
        "jain_fairness": jain(per_flow_bps),
        "bottleneck": bottleneck,
        "drops_elsewhere": other_drops,
        "tcp_effective_defaults": tcp_cfg,
    }


def config_dict(args) -> dict:
    return {
        "topology": {
            "kind": "dumbbell",
            "flows": args.flows,
            "access_links": f"{ACCESS_RATE}, {ACCESS_DELAY} one-way, point-to-point (one per host)",
            "bottleneck_link": f"{BOTTLENECK_RATE}, {BOTTLENECK_DELAY} one-way, point-to-point",
            "base_rtt_ms": 2 * (2 + 20 + 2),
            "mtu_bytes": 1500,
            "l2_overhead": "PointToPoint adds a 2-byte PPP header: a full data packet is 1502 B on the wire",
            "data_packet_ip_bytes": "1500 = 1448 payload + 20 IP + 20 TCP + 12 TCP options (timestamp)",
            "routing": "Ipv4GlobalRoutingHelper::PopulateRoutingTables",
        },
        "queues": {
            "bottleneck": f"DropTailQueue<Packet> MaxSize={args.bottleneck_queue}p on both bottleneck devices "
                          "(drops counted at the left router's device, data direction)",
            "access": f"DropTailQueue<Packet> MaxSize={args.access_queue}p on every access device",
            "traffic_control": "default root queue disc (FqCoDel, installed by Ipv4AddressHelper::Assign) "
                               "uninstalled with TrafficControlHelper::Uninstall on every device; verified none "
                               "left. Device flow control (NetDeviceQueueInterface) then makes the "
                               "TrafficControlLayer discard packets (TcDrop) when the device queue holds "
                               f"{args.bottleneck_queue} packets: drop-tail at {args.bottleneck_queue} queued + 1 "
                               "in serialisation. drops = TcDrop + DropTailQueue Drop at the left router.",
        },
        "tcp": {
            "socket_type": "ns3::TcpNewReno (TcpL4Protocol::SocketType)",
            "sack": True,
            "segment_size": SEGMENT_SIZE,
            "snd_buf_bytes": SOCKET_BUF,
            "rcv_buf_bytes": SOCKET_BUF,
            "other": "ns-3 defaults: see tcp_effective_defaults in each run (recovery is "
                     "TcpPrrRecovery, ns-3's default, not classic NewReno recovery)",
        },
        "applications": {
            "sender": f"BulkSendApplication MaxBytes=0 (unlimited), SendSize={SEGMENT_SIZE}",
            "receiver": "PacketSink",
            "start": f"flow i starts at i*{args.stagger_ms} ms (sinks at 0)",
            "stop": f"{args.duration} s (apps and Simulator::Stop)",
        },
        "duration_s": args.duration,
        "goodput_definition": "PacketSink::GetTotalRx bytes * 8 / duration_s",
        "timing": "wall (perf_counter) and CPU (process_time) of Simulator::Run() only; setup timed "
                  "separately; each repeat in a fresh Python process; import not timed",
        "scheduler": "ns-3 default (MapScheduler), DefaultSimulatorImpl",
        "events": "Simulator::GetEventCount() delta across Run()",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flows", type=int, default=8)
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--stagger-ms", type=float, default=0.0, help="flow i starts at i*stagger ms")
    ap.add_argument("--bottleneck-queue", type=int, default=90, help="packets")
    ap.add_argument("--access-queue", type=int, default=1000, help="packets")
    ap.add_argument("--out", default=None, help="JSON output path")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not 1 <= args.flows <= MAX_FLOWS:
        ap.error(f"--flows must be in 1..{MAX_FLOWS}")

    if args.worker:
        res = run_once(args.flows, args.duration, args.stagger_ms, args.bottleneck_queue, args.access_queue)
        sys.stdout.write("@@RESULT@@" + json.dumps(res) + "\n")
        return 0

    runs = []
    for r in range(args.repeat):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker",
               "--flows", str(args.flows), "--duration", str(args.duration),
               "--stagger-ms", str(args.stagger_ms),
               "--bottleneck-queue", str(args.bottleneck_queue),
               "--access-queue", str(args.access_queue)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
        if proc.returncode != 0 or not lines:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
            raise SystemExit(f"repeat {r + 1}: worker failed (rc={proc.returncode})")
        res = json.loads(lines[-1][len("@@RESULT@@"):])
        runs.append(res)
        print(f"repeat {r + 1}/{args.repeat}: run {res['run_wall_s']:.3f} s wall "
              f"({res['run_cpu_s']:.3f} s cpu), setup {res['setup_s']:.3f} s, "
              f"import {res['import_s']:.1f} s, {res['events']} events", flush=True)

    walls = [r["run_wall_s"] for r in runs]
    med_wall = statistics.median(walls)
    first = runs[0]
    deterministic = all(r["rx_bytes"] == first["rx_bytes"] and r["events"] == first["events"]
                        and r["bottleneck"] == first["bottleneck"] for r in runs)
    summary = {
        "median_run_wall_s": med_wall,
        "min_run_wall_s": min(walls),
        "max_run_wall_s": max(walls),
        "median_run_cpu_s": statistics.median(r["run_cpu_s"] for r in runs),
        "median_setup_s": statistics.median(r["setup_s"] for r in runs),
        "events": first["events"],
        "events_per_s_at_median_wall": first["events"] / med_wall,
        "events_per_cpu_s_at_median_cpu": first["events"] / statistics.median(r["run_cpu_s"] for r in runs),
        "median_loadavg_1min_before_run": statistics.median(r["loadavg_1min_before_run"] for r in runs),
        "sim_seconds_per_wall_second": args.duration / med_wall,
        "aggregate_goodput_bps": first["aggregate_goodput_bps"],
        "per_flow_goodput_bps": first["per_flow_goodput_bps"],
        "jain_fairness": first["jain_fairness"],
        "bottleneck_drops": first["bottleneck"]["drops"],
        "bottleneck_max_packets_in_queue": first["bottleneck"]["max_packets_in_queue"],
        "bottleneck_enqueued_packets": first["bottleneck"]["queue_enqueued_packets"],
        "drops_elsewhere": first["drops_elsewhere"],
        "results_identical_across_repeats": deterministic,
    }

    print()
    print(f"ns-3 {NS3_PIP_VERSION} dumbbell: {args.flows} flows, {args.duration:g} s simulated, "
          f"{args.repeat} repeats")
    print(f"{'metric':<34}{'value':>18}")
    rows = [
        ("Run() wall, median [s]", f"{med_wall:.3f}"),
        ("Run() wall, min..max [s]", f"{min(walls):.3f}..{max(walls):.3f}"),
        ("Run() cpu, median [s]", f"{summary['median_run_cpu_s']:.3f}"),
        ("setup, median [s]", f"{summary['median_setup_s']:.3f}"),
        ("events", f"{summary['events']}"),
        ("events/s (wall)", f"{summary['events_per_s_at_median_wall']:.3e}"),
        ("events/s (cpu)", f"{summary['events_per_cpu_s_at_median_cpu']:.3e}"),
        ("loadavg before Run(), median", f"{summary['median_loadavg_1min_before_run']:.2f}"),
        ("aggregate goodput [Mb/s]", f"{summary['aggregate_goodput_bps'] / 1e6:.4f}"),
        ("Jain fairness", f"{summary['jain_fairness']:.4f}"),
        ("bottleneck drops [pkts]", f"{summary['bottleneck_drops']}"),
        ("drops elsewhere [pkts]", f"{summary['drops_elsewhere']}"),
        ("identical across repeats", f"{deterministic}"),
    ]
    for k, v in rows:
        print(f"{k:<34}{v:>18}")
    print("per-flow goodput [Mb/s]: " + " ".join(f"{x / 1e6:.3f}" for x in summary["per_flow_goodput_bps"]))

    if args.out:
        doc = {
            "simulator": "ns-3",
            "ns3_version": "3.44",
            "ns3_pip_package": f"ns3=={NS3_PIP_VERSION} (release build, cppyy bindings)",
            "machine": machine_info(),
            "command": " ".join(["python"] + sys.argv),
            "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "config": config_dict(args),
            "summary": summary,
            "runs": runs,
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

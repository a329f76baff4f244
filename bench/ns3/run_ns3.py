#!/usr/bin/env python3
"""ns-3 3.44 side of the comparison: run the families of families.py, write JSON.

Benchmark only: needs ``pip install ns3==3.44.post0`` (cppyy bindings, ~500 MB, ``from ns
import ns`` takes ~20 s). Never a hosim dependency, never in CI or the test suite.

Topology per case (see families.py): s_i --access--> left ==bottleneck==> right --access--> d_i,
all PointToPoint links (2-byte PPP header), one BulkSendApplication (SendSize 1448, MaxBytes 0
for bulk or the file size) per s_i and a PacketSink per d_i, static global routing.

ns-3 defaults neutralised (each differs from hosim or from the workload as specified):
  * Traffic control: Ipv4AddressHelper::Assign installs an FqCoDel root queue disc on every
    device. It is removed with TrafficControlHelper::Uninstall on every device (checked), so
    the device DropTailQueue<Packet> is the only queue. Without a qdisc the device's flow
    control makes the TrafficControlLayer discard a packet (TcDrop) once the device queue is
    full: drop-tail at `queue` packets (+1 in serialisation), as in hosim's link.
  * TcpSocket::SegmentSize: ns-3's default MSS is 536; set to 1448 (payload bytes).
  * Timestamps: TcpSocketBase::Timestamp=false, so data packets are 1448 + 20 TCP + 20 IP +
    2 PPP = 1490 B, matched by hosim's tcp.header_bytes = 42 (hosim sends no timestamps
    option). This also makes ns-3 take RTT samples only from never-retransmitted segments
    (Karn), as hosim does, instead of from every timestamp echo.
  * TcpSocket::DataRetries: ns-3 closes the connection after DataRetries (default 6) RTOs
    *over the connection's life* (the counter is only reset on connect), and ConnCount (6)
    bounds SYN retries: raised to 1000000 and 16 (hosim never gives up).
  * TcpSocket::ConnTimeout: the SYN's timeout is 3 s in ns-3, set to 1 s like hosim's
    initial RTO (RttEstimator::InitialEstimation is already 1 s for data).
  * TcpSocket::SndBufSize / RcvBufSize: 128 KiB default, set to 4 MiB (window scaling on,
    ns-3 default) like hosim's rwnd_bytes.
  * TcpL4Protocol::SocketType = ns3::TcpNewReno (the default is TcpCubic since ns-3.41).
  * TcpL4Protocol::RecoveryType = ns3::TcpClassicRecovery: ns-3's default is PRR (RFC 6937);
    classic recovery sets cwnd = ssthresh on entry and (with SACK) sends while pipe < cwnd,
    as RFC 6675 / hosim do.
  * --stack cubic-prr: SocketType ns3::TcpCubic and RecoveryType ns3::TcpPrrRecovery (ns-3's
    own defaults) instead, TcpCubic with its defaults (C 0.4, Beta 0.7, FastConvergence and
    TcpFriendliness on) except HyStart, which is switched off: hosim's CUBIC has no HyStart
    (slow start is RFC 5681's), so with it on the two would differ by design in every case
    with a slow-start overshoot.
  * TcpSocketBase::Sack per case; DelAckCount 2 (1 = delayed ACK off), DelAckTimeout 200 ms,
    InitialCwnd 10, MinRto 1 s, ClockGranularity 1 ms, ReTxThreshold 3, LimitedTransmit on
    (all ns-3 defaults, set explicitly).
  * Queues: DropTailQueue<Packet> on every device; bottleneck devices `queue`, access devices
    `access_queue` packets.

Random loss: a RateErrorModel (ERROR_UNIT_PACKET, rate `loss`) as the ReceiveErrorModel of
the right router's bottleneck device, i.e. on the data direction only, SYNs included, ACKs
never; its random stream is fixed with AssignStreams so a case gives the same result whatever
else runs in the process. ns-3 and hosim draw different random numbers: random-loss families
agree statistically, not packet by packet.

Deterministic drops: a small ErrorModel subclass (ns3cmp::SegmentDropper, C++ below) as the
ReceiveErrorModel of the right router's bottleneck device. It parses PPP/IPv4/TCP headers of
each data packet of flow 0 and maps its sequence number to the hosim segment index
k = (seq - 1) / 1448: ns-3's initial sequence number is 0 (not randomised) and the SYN uses it,
so the first data byte has sequence number 1, and ns-3 sends MSS-aligned segments. It counts
the copies of each k that reach the device: the 1st copy is dropped if k is in
drop_segments, the 2nd if k is in drop_retransmissions (hosim: "the first transmission" and
"the first retransmission" of segment k). In the probes no other packet is lost, so every
copy sent reaches the dropper.

Counters (per flow, all from C++ callbacks, no Python runs inside Simulator::Run):
  goodput          bulk: PacketSink::GetTotalRx * 8 / duration_s; file: file bytes * 8 / time of
                   the PacketSink Rx trace at which the total reached the file size (flows
                   start at t = 0, so it is the completion time from flow start); the time
                   the sender saw the last byte acknowledged ("HighestRxAck") is kept as
                   sender_completion_time_s (hosim's own completion_time_s)
  segments_sent    TcpSocketBase "Tx" trace calls with a payload
  retransmits      TcpSocketBase "Retransmission" trace calls (a segment sent whose TxBuffer
                   item is marked retransmitted: fast retransmits, recovery retransmissions,
                   go-back-N resends after an RTO), as hosim's `retransmits`
  fast_recoveries  "CongState" transitions into CA_RECOVERY (ns-3 cannot re-enter RECOVERY
                   without leaving it), as hosim's `fast_recoveries`
  timeouts         calls of the congestion control's CwndEvent(CA_EVENT_LOSS), made by
                   TcpSocketBase::ReTxTimeout on *every* RTO expiration with data outstanding
                   (the sender's TcpNewReno is replaced by a subclass, ns3cmp::CountingNewReno,
                   that counts them and otherwise is TcpNewReno). "CongState" transitions into
                   CA_LOSS would miss back-to-back RTOs (the traced value does not change);
                   they are reported as `loss_entries`.

Usage:
  python bench/ns3/run_ns3.py                          # all cases -> bench/results/ns3/ns3.json
  python bench/ns3/run_ns3.py --cases probes           # a subset (substring of name/family)
  python bench/ns3/run_ns3.py --cases lost-retx-sack --traces   # + cwnd/ssthresh CSV
  python bench/ns3/run_ns3.py --stack cubic-prr       # TcpCubic + TcpPrrRecovery -> ns3-cubic-prr.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from families import MSS, STACKS, TCP_COMMON, select  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns3"))
NS3_PIP_VERSION = "3.44.post0"
BASE_PORT = 50000

_CPP = r"""
#include <map>
#include <set>
#include <vector>
#include <cstdint>
namespace ns3cmp {
using namespace ns3;

struct FlowStats {
    uint64_t txData = 0, retx = 0, recoveries = 0, lossEntries = 0, rtos = 0;
    uint64_t rxBytes = 0, fileBytes = 0;
    double completion = -1.0, ackCompletion = -1.0;
    bool trace = false;
    std::vector<double> cwT, ssT;
    std::vector<uint32_t> cw, ss;
};
static std::vector<FlowStats> g;
static uint64_t g_dropperCalls = 0;
static uint64_t g_tcDrops = 0, g_queueDrops = 0, g_scriptedDrops = 0, g_misaligned = 0;

void Reset(int flows) {
    g.assign(flows, FlowStats());
    g_tcDrops = g_queueDrops = g_scriptedDrops = g_misaligned = 0;
}

// TcpNewReno / TcpCubic that count RTO expirations: ReTxTimeout calls CwndEvent(CA_EVENT_LOSS)
// on every expiration with data outstanding (also when already in CA_LOSS).
class CountingNewReno : public TcpNewReno {
  public:
    int flow = -1;
    CountingNewReno() : TcpNewReno() {}
    CountingNewReno(const CountingNewReno& o) : TcpNewReno(o), flow(-1) {}
    std::string GetName() const override { return "CountingNewReno"; }
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev) override {
        if (ev == TcpSocketState::CA_EVENT_LOSS && flow >= 0) ++g[flow].rtos;
        TcpNewReno::CwndEvent(tcb, ev);
    }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<CountingNewReno>(this); }
};
class CountingCubic : public TcpCubic {
  public:
    int flow = -1;
    CountingCubic() : TcpCubic() {}
    CountingCubic(const CountingCubic& o) : TcpCubic(o), flow(-1) {}
    std::string GetName() const override { return "CountingCubic"; }
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev) override {
        if (ev == TcpSocketState::CA_EVENT_LOSS && flow >= 0) ++g[flow].rtos;
        TcpCubic::CwndEvent(tcb, ev);
    }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<CountingCubic>(this); }
};
static bool g_cubic = false;
void UseCubic(bool on) { g_cubic = on; }

static void CongStateCb(int f, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
    if (n == TcpSocketState::CA_RECOVERY && o != n) ++g[f].recoveries;
    if (n == TcpSocketState::CA_LOSS && o != n) ++g[f].lossEntries;
}
static void TxCb(int f, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>) {
    if (p->GetSize() > 0) ++g[f].txData;
}
static void RetxCb(int f, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
                   Ptr<const TcpSocketBase>) {
    ++g[f].retx;
}
static void CwndCb(int f, uint32_t, uint32_t n) {
    g[f].cwT.push_back(Simulator::Now().GetSeconds()); g[f].cw.push_back(n);
}
static void SsCb(int f, uint32_t, uint32_t n) {
    g[f].ssT.push_back(Simulator::Now().GetSeconds()); g[f].ss.push_back(n);
}
static void SinkRxCb(int f, Ptr<const Packet> p, const Address&) {
    g[f].rxBytes += p->GetSize();
    if (g[f].fileBytes && g[f].completion < 0 && g[f].rxBytes >= g[f].fileBytes)
        g[f].completion = Simulator::Now().GetSeconds();
}
static void HighAckCb(int f, SequenceNumber32, SequenceNumber32 n) {
    // the first data byte has sequence number 1 (ISN 0): all acknowledged at fileBytes + 1
    if (g[f].fileBytes && g[f].ackCompletion < 0 && uint64_t(n.GetValue()) >= g[f].fileBytes + 1)
        g[f].ackCompletion = Simulator::Now().GetSeconds();
}
static void TcDropCb(Ptr<const Packet>) { ++g_tcDrops; }
static void QueueDropCb(Ptr<const Packet>) { ++g_queueDrops; }

// Runs just after BulkSendApplication::StartApplication created the socket (before the SYN-ACK).
static void Hook(Ptr<Application> app, int f) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(DynamicCast<BulkSendApplication>(app)->GetSocket());
    NS_ABORT_MSG_IF(!s, "no TCP socket");
    if (g_cubic) {
        Ptr<CountingCubic> cc = CreateObject<CountingCubic>();
        cc->flow = f;
        s->SetCongestionControlAlgorithm(cc);
    } else {
        Ptr<CountingNewReno> cc = CreateObject<CountingNewReno>();
        cc->flow = f;
        s->SetCongestionControlAlgorithm(cc);
    }
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateCb, f));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxCb, f));
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&RetxCb, f));
    s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&HighAckCb, f));
    if (g[f].trace) {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndCb, f));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&SsCb, f));
    }
}
void ScheduleHook(Ptr<Application> app, double startS, int f, bool trace, uint64_t fileBytes) {
    g[f].trace = trace;
    g[f].fileBytes = fileBytes;
    Simulator::Schedule(Seconds(startS) + NanoSeconds(1), &Hook, app, f);
}
void HookSink(Ptr<Application> sink, int f) {
    sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&SinkRxCb, f));
}
void HookBottleneck(Ptr<Node> left, Ptr<PointToPointNetDevice> dev) {
    left->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&TcDropCb));
    dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&QueueDropCb));
}
bool HasRootQueueDisc(Ptr<NetDevice> dev) {
    Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
    return tc && tc->GetRootQueueDiscOnDevice(dev);
}

// Drops the 1st copy of the segments in `first` and the 2nd copy of those in `retx`, of the
// TCP flow with destination port `port`; segment index k = (seq - 1) / mss (ISN 0).
class SegmentDropper : public ErrorModel {
  public:
    std::set<uint32_t> first, retx;
    std::map<uint32_t, uint32_t> seen;
    uint16_t port = 0;
    uint32_t mss = 1448;
    void Configure(uint16_t p, uint32_t m) { port = p; mss = m; }
    void AddFirst(uint32_t k) { first.insert(k); }
    void AddRetx(uint32_t k) { retx.insert(k); }
  private:
    bool DoCorrupt(Ptr<Packet> p) override {
        ++g_dropperCalls;
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        c->RemoveHeader(ppp);
        if (ppp.GetProtocol() != 0x0021) return false;  // IPv4
        Ipv4Header ip;
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6) return false;
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0 || tcp.GetDestinationPort() != port) return false;
        uint32_t seq = tcp.GetSequenceNumber().GetValue();
        if ((seq - 1) % mss != 0) { ++g_misaligned; return false; }
        uint32_t k = (seq - 1) / mss;
        uint32_t n = ++seen[k];
        bool drop = (n == 1 && first.count(k)) || (n == 2 && retx.count(k));
        if (drop) ++g_scriptedDrops;
        return drop;
    }
    void DoReset() override { seen.clear(); }
};

uint64_t TcDrops() { return g_tcDrops; }
uint64_t QueueDrops() { return g_queueDrops; }
uint64_t ScriptedDrops() { return g_scriptedDrops; }
uint64_t Misaligned() { return g_misaligned; }
uint64_t DropperCalls() { return g_dropperCalls; }
const FlowStats& Stats(int f) { return g[f]; }
}
"""


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


def _bps(x: float) -> str:
    return f"{int(round(x))}bps"


def _time(x: float) -> str:
    return f"{int(round(x * 1e9))}ns"


def run_case(ns, cpp, c: dict, traces: bool, stack: str = "newreno") -> tuple[dict, dict | None]:
    flows = c["flows"]
    ns.Ipv4AddressGenerator.Reset()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(c["seed"])
    cpp.Reset(flows)
    cubic = stack == "cubic-prr"
    cpp.UseCubic(cubic)

    # --- TCP configuration (see the module docstring for why each is set) -------------------
    D = ns.Config.SetDefault
    if cubic:
        cc_type, rec_type = "ns3::TcpCubic", "ns3::TcpPrrRecovery"
    else:
        cc_type, rec_type = "ns3::TcpNewReno", "ns3::TcpClassicRecovery"
    D("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(cc_type)))
    D("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(rec_type)))
    D("ns3::TcpCubic::HyStart", ns.BooleanValue(False))  # only read by TcpCubic (see docstring)
    D("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    D("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(TCP_COMMON["initial_window_segments"]))
    D("ns3::TcpSocket::DelAckCount", ns.UintegerValue(TCP_COMMON["delayed_ack_segments"] if c["delayed_ack"] else 1))
    D("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(TCP_COMMON["delayed_ack_timeout_s"])))
    D("ns3::TcpSocket::SndBufSize", ns.UintegerValue(TCP_COMMON["buffer_bytes"]))
    D("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(TCP_COMMON["buffer_bytes"]))
    D("ns3::TcpSocket::DataRetries", ns.UintegerValue(1000000))
    D("ns3::TcpSocket::ConnCount", ns.UintegerValue(16))
    D("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(TCP_COMMON["initial_rto_s"])))
    D("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(c["sack"])))
    D("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    D("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    D("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(TCP_COMMON["min_rto_s"])))
    D("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.Seconds(TCP_COMMON["clock_granularity_s"])))
    D("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(TCP_COMMON["dupack_threshold"]))
    D("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(TCP_COMMON["limited_transmit"]))
    D("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(TCP_COMMON["initial_rto_s"])))
    D("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue(f"{c['access_queue']}p"))

    tcp_cfg = {}
    tcp_cfg.update(_attr_defaults(ns, "ns3::TcpL4Protocol", ["SocketType", "RecoveryType"]))
    if cubic:
        cubic_attrs = ["FastConvergence", "TcpFriendliness", "Beta", "C", "HyStart", "CubicDelta", "CntClamp"]
        tcp_cfg.update({f"TcpCubic::{k}": v for k, v in _attr_defaults(ns, "ns3::TcpCubic", cubic_attrs).items()})
    tcp_cfg.update(
        _attr_defaults(
            ns,
            "ns3::TcpSocket",
            [
                "SegmentSize",
                "SndBufSize",
                "RcvBufSize",
                "InitialCwnd",
                "InitialSlowStartThreshold",
                "DelAckCount",
                "DelAckTimeout",
                "ConnTimeout",
                "ConnCount",
                "DataRetries",
            ],
        )
    )
    tcp_cfg.update(
        _attr_defaults(
            ns,
            "ns3::TcpSocketBase",
            [
                "Sack",
                "WindowScaling",
                "Timestamp",
                "MinRto",
                "ClockGranularity",
                "ReTxThreshold",
                "LimitedTransmit",
                "UseEcn",
            ],
        )
    )

    # --- topology ---------------------------------------------------------------------------
    routers = ns.NodeContainer()
    routers.Create(2)
    left, right = routers.Get(0), routers.Get(1)
    senders = ns.NodeContainer()
    senders.Create(flows)
    receivers = ns.NodeContainer()
    receivers.Create(flows)

    bneck = ns.PointToPointHelper()
    bneck.SetDeviceAttribute("DataRate", ns.StringValue(_bps(c["bottleneck_bps"])))
    bneck.SetChannelAttribute("Delay", ns.StringValue(_time(c["bottleneck_delay_s"])))
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{c['queue']}p"))
    bneck_devs = bneck.Install(left, right)  # Get(0): left router's device (data direction)

    snd_devs, rcv_devs = [], []
    for i in range(flows):
        acc = ns.PointToPointHelper()
        acc.SetDeviceAttribute("DataRate", ns.StringValue(_bps(c["access_bps"])))
        acc.SetChannelAttribute("Delay", ns.StringValue(_time(c["access_delays_s"][i])))
        snd_devs.append(acc.Install(senders.Get(i), left))
        rcv_devs.append(acc.Install(right, receivers.Get(i)))

    stack = ns.InternetStackHelper()
    stack.InstallAll()
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bneck_devs)
    rcv_ifs = []
    for i in range(flows):
        addr.SetBase(ns.Ipv4Address(f"10.1.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(snd_devs[i])
        addr.SetBase(ns.Ipv4Address(f"10.2.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        rcv_ifs.append(addr.Assign(rcv_devs[i]))

    # Remove the FqCoDel root queue disc that Assign installed on every device.
    tch = ns.TrafficControlHelper()
    all_devs = [bneck_devs] + snd_devs + rcv_devs
    for dc in all_devs:
        tch.Uninstall(dc)
    left_over = sum(bool(cpp.HasRootQueueDisc(dc.Get(j))) for dc in all_devs for j in range(dc.GetN()))
    if left_over:
        raise RuntimeError(f"{left_over} root queue discs still installed")
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # --- impairments on the data direction of the bottleneck --------------------------------
    right_dev = ns.DynamicCast[ns.PointToPointNetDevice](bneck_devs.Get(1))
    dropper = None
    if c["drop_segments"] or c["drop_retransmissions"]:
        if c["loss"]:
            raise ValueError("random loss and scripted drops in one case are not supported")
        dropper = ns.CreateObject[cpp.SegmentDropper]()
        dropper.Configure(BASE_PORT, MSS)
        for k in c["drop_segments"]:
            dropper.AddFirst(k)
        for k in c["drop_retransmissions"]:
            dropper.AddRetx(k)
        right_dev.SetReceiveErrorModel(dropper)
    elif c["loss"]:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetUnit(ns.RateErrorModel.ERROR_UNIT_PACKET)
        em.SetRate(c["loss"])
        em.AssignStreams(1000)
        right_dev.SetReceiveErrorModel(em)
    left_dev = ns.DynamicCast[ns.PointToPointNetDevice](bneck_devs.Get(0))
    cpp.HookBottleneck(left, left_dev)

    # --- applications -----------------------------------------------------------------------
    file_bytes = int(c["file_bytes"]) if c["app"] == "file" else 0
    sinks = []
    for i in range(flows):
        port = BASE_PORT + i
        start = i * c["stagger_s"]
        sink_h = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        sink = sink_h.Install(receivers.Get(i))
        sink.Start(ns.Seconds(0.0))
        sink.Stop(ns.Seconds(c["duration_s"]))
        sinks.append(sink.Get(0))
        cpp.HookSink(sink.Get(0), i)
        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(rcv_ifs[i].GetAddress(1), port).ConvertTo()
        )
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(file_bytes))
        bulk.SetAttribute("SendSize", ns.UintegerValue(MSS))
        src = bulk.Install(senders.Get(i))
        src.Start(ns.Seconds(start))
        src.Stop(ns.Seconds(c["duration_s"]))
        cpp.ScheduleHook(src.Get(0), start, i, bool(traces), file_bytes)

    ns.Simulator.Stop(ns.Seconds(c["duration_s"]))
    ev0 = ns.Simulator.GetEventCount()
    c0 = time.process_time()
    w0 = time.perf_counter()
    ns.Simulator.Run()
    run_wall = time.perf_counter() - w0
    run_cpu = time.process_time() - c0
    events = int(ns.Simulator.GetEventCount()) - int(ev0)

    out_flows = []
    tr = {} if traces else None
    for i in range(flows):
        st = cpp.Stats(i)
        rx = int(ns.DynamicCast[ns.PacketSink](sinks[i]).GetTotalRx())
        completion = float(st.completion) if st.completion >= 0 else None
        if c["app"] == "file" and completion:
            gp = file_bytes * 8 / completion
        else:
            gp = rx * 8 / c["duration_s"]
        out_flows.append(
            {
                "name": f"flow{i}",
                "goodput_bps": gp,
                "bytes_delivered": rx,
                "completion_time_s": completion,
                "sender_completion_time_s": float(st.ackCompletion) if st.ackCompletion >= 0 else None,
                "segments_sent": int(st.txData),
                "retransmits": int(st.retx),
                "fast_recoveries": int(st.recoveries),
                "timeouts": int(st.rtos),
                "loss_entries": int(st.lossEntries),
            }
        )
        if traces:
            tr[f"flow{i}"] = {
                "cwnd": [list(map(float, st.cwT)), list(map(int, st.cw))],
                "ssthresh": [list(map(float, st.ssT)), list(map(int, st.ss))],
            }
    bq = left_dev.GetQueue()
    res = {
        "case": c["name"],
        "family": c["family"],
        "flows": out_flows,
        "aggregate_goodput_bps": sum(f["goodput_bps"] for f in out_flows),
        "retransmits": sum(f["retransmits"] for f in out_flows),
        "fast_recoveries": sum(f["fast_recoveries"] for f in out_flows),
        "timeouts": sum(f["timeouts"] for f in out_flows),
        "bottleneck": {
            "queue_drops": int(cpp.TcDrops()) + int(cpp.QueueDrops()),
            "scripted_drops": int(cpp.ScriptedDrops()),
            "misaligned_segments": int(cpp.Misaligned()),
            "enqueued": int(bq.GetTotalReceivedPackets()),
        },
        "events": events,
        "run_wall_s": run_wall,
        "run_cpu_s": run_cpu,
        "tcp_effective_defaults": tcp_cfg,
    }
    ns.Simulator.Destroy()
    return res, tr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", help="substrings of case names / family ids (default: all)")
    ap.add_argument("--stack", default="newreno", choices=sorted(STACKS), help="TCP compared (families.STACKS)")
    ap.add_argument("--out", default=None, help="default: bench/results/ns3/ns3<stack suffix>.json")
    ap.add_argument(
        "--traces",
        action="store_true",
        help="also write <case>.ns3.cwnd.csv / .ssthresh.csv (CongestionWindow / SlowStartThreshold)",
    )
    args = ap.parse_args()

    if args.out is None:
        args.out = os.path.join(RESULTS, f"ns3{STACKS[args.stack]['suffix']}.json")
    cases = select(args.cases)
    t0 = time.perf_counter()
    import cppyy  # noqa: PLC0415
    from ns import ns  # noqa: PLC0415  (slow: ~20 s, cppyy JIT)

    import_s = time.perf_counter() - t0
    cppyy.cppdef(_CPP)
    cpp = cppyy.gbl.ns3cmp
    print(f"import ns: {import_s:.1f} s", flush=True)

    results = {}
    if os.path.exists(args.out) and args.cases:
        with open(args.out) as fh:  # partial re-run: keep the other cases
            results = json.load(fh).get("cases", {})
    for c in cases:
        res, tr = run_case(ns, cpp, c, args.traces, args.stack)
        results[c["name"]] = res
        print(
            f"{c['name']:<22} goodput {res['aggregate_goodput_bps'] / 1e6:8.3f} Mb/s  retx {res['retransmits']:6d}  "
            f"FR {res['fast_recoveries']:5d}  RTO {res['timeouts']:4d}  ({res['run_cpu_s']:.2f} s cpu)",
            flush=True,
        )
        if tr is not None:
            for kind in ("cwnd", "ssthresh"):
                path = os.path.join(RESULTS, f"{c['name']}{STACKS[args.stack]['suffix']}.ns3.{kind}.csv")
                with open(path, "w") as fh:
                    fh.write(f"time_s,flow,{kind}_bytes\n")
                    for flow, d in tr.items():
                        for t, v in zip(*d[kind]):
                            fh.write(f"{t:.9f},{flow},{v}\n")
            print(f"  wrote {c['name']}{STACKS[args.stack]['suffix']}.ns3.cwnd.csv / .ssthresh.csv")
    doc = {
        "simulator": "ns-3",
        "ns3_version": "3.44",
        "ns3_pip_package": f"ns3=={NS3_PIP_VERSION}",
        "stack": args.stack,
        "command": "python " + " ".join(sys.argv),
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "import_s": import_s,
        "cases": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

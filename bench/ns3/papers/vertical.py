#!/usr/bin/env python3
"""ns-3.44 referee for the `vertical` reproduction: Sinky & Hamdaoui's experiment (TCP-CLAH,
Sec. V.B, Fig. 1) in ns-3 itself (benchmark only).

Fig. 1 as the paper describes it: a mobile with two 802.11 interfaces, "a 54 Mbps Wifi network
and a 5.5 Mbps cellular network", and a common destination. Network 1 is an 802.11g BSS (ap and
the mobile) at ErpOfdmRate54Mbps, Network 2 an 802.11b BSS (bs and the mobile) at
DsssRate5_5Mbps, each on its own YansWifiChannel (no interference between them), the BSS of
bench/ns3/wifi (ConstantRateWifiManager, RTS/CTS off, no QoS, stations 1 m away, one beacon a
second). Each access point reaches `dest` over a 100 Mb/s point-to-point link whose delay is the
access network's one-way delay plus the wired hop's (5 + 10 ms and 50 + 10 ms: hosim's preset,
which puts the access delay behind the access point because the air has none). Soft handoffs
every 15 s over 100 s from Network 1: at each the mobile's host route to dest and dest's host
route to the mobile move to the other network; frames queued on the old interface are still
sent. The mobile's OnOffApplication writes 536-byte chunks at 10, 15 or 20 Mb/s into a TCP
socket; a write that does not fit into the send buffer is lost (OnOffApplication::SendPacket).

TCP: ns-3's defaults of the paper's time, as hosim's preset states them: TcpNewReno with
TcpClassicRecovery, SegmentSize 536, InitialCwnd 1, InitialSlowStartThreshold 65535, no window
scaling (rwnd 65535), no timestamps, no SACK, no limited transmit, DelAckCount 2 and
DelAckTimeout 200 ms, MinRto 1 s, initial RTO 1 s, Snd/RcvBufSize 131072.
Queues: no queue disc (TrafficControlHelper::Uninstall); WifiMacQueue MaxSize 100p (hosim's
100-packet DropTail) and MaxDelay 100 s (no stale-frame drops); point-to-point TxQueue 1000p.
The ARP caches are filled before the run (NeighborCacheHelper) and again after each station's
association, which flushes its interface's cache (ArpCache::Flush is the device's link-change
callback): otherwise the first packets on the second interface wait for ARP at the first
handoff, and all but three of them are dropped (ArpCache PendingQueueSize), which hosim does not
model. `--no-arp-refill` leaves the flushed caches, as the runs before 2026-11-27's fix did.

TCP-CLAH (`--tcp clah`): Algorithms 1-2 applied to the NewReno socket at each handoff by C++
compiled through cppyy (CLAH below). A class derived from TcpSocketBase reaches the socket's
protected state: it resets the RTT estimator (RttEstimator::Reset) and sets the RTO to its
initial 1 s, sets cwnd (and the inflated cwnd) to BDP_UB = S x N = 536 x 4 bytes, leaves
ssthresh alone, and on a handoff to the low-delay network raises ReTxThreshold so that no run
of duplicate ACKs triggers a fast retransmit, until everything sent before the handoff is
cumulatively acknowledged (hosim's `DupackResume::PreHandoffAcked`). It is not a congestion
control subclass: CLAH changes the RTO estimator and the dupack threshold, which belong to the
socket.

`--reno-sack-reset` works around an ns-3 defect: on a connection without SACK, ns-3 emulates SACKs
from duplicate ACKs (TcpTxBuffer::AddRenoSack) and clears them only at a timeout; left over at
the end of a fast recovery, they mark the new head lost, and the next single duplicate ACK starts
another fast recovery (TcpSocketBase::DupAck, IsLost). The option clears them
(TcpTxBuffer::ResetRenoSack) at the ACK that ends a fast recovery, before the socket processes it.
`--trace FROM TO` logs every segment and ACK at both ends, each state change with the
scoreboard, and every packet dropped below TCP (IP, traffic control, ARP, the 802.11 MACs,
queues and PHYs, the point-to-point devices) with the reason (docs/reproductions/vertical-handoff.md,
"ns-3's repeated fast recoveries" and "ns-3's loss at the first handoff").

Measured on the NewReno (or CLAH) flow as hosim's `vertical` agent measures it: per 0.1 s bin,
from every data packet reaching dest, the count, mean one-way delay (LocalDeliver at dest minus
SendOutgoing at the mobile, per transmission: FlowMonitor's byte tag numbers each), the
jitter (mean |delay(i) - delay(i-1)| over consecutive data packets, FlowMonitor's
jitterSum / (rxPackets - 1)), the IP bytes received,
and at each arrival the sender's latest RTT sample, its cwnd and the packets in the mobile's
two WifiMacQueues. FlowMonitor runs beside the probe, and its whole-run jitter of the flow is
reported next to the probe's. The runs are reduced by hosim's own code
(`hosim.reproduce.vertical.reduce_run`: means over the 2 s after each handoff and over the run),
so run this with a Python that has both ns-3 and hosim.

Usage: python bench/ns3/papers/vertical.py [--rates 10e6 15e6 20e6] [--tcp newreno clah]
           [--runs 1 2 3 4 5] [--duration 100] [--jobs 2] [--json vertical-ns3.json]
           [--series vertical-ns3-series.json] [--reno-sack-reset] [--no-arp-refill]
           [--trace FROM_S TO_S]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from wifi_setup import install_bss, newreno_defaults  # noqa: E402

MSS = 536
HOPS = 4  # N = n + m: mobile -> ap -> dest and back
INTERVAL_S = 15.0
BIN_S = 0.1
ACCESS_DELAY_S = {"wifi": 0.005, "cellular": 0.050}
CORE_DELAY_S = 0.010
#: The mobile's stations associate after the first beacons (at 0 s); a SYN sent before is lost
#: and retried after ns-3's 3 s connection timeout. hosim has no association: its flow starts at 0.
APP_START_S = 0.1

PROBE = r"""
#include <map>
#include <vector>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
namespace vref {
using namespace ns3;

// CLAH: reaches the socket's protected state (a pointer to member named through a derived
// class is allowed to it); never instantiated.
struct Clah : TcpSocketBase {
    static Ptr<TcpSocketState> Tcb(TcpSocketBase* s) { return s->*(&Clah::m_tcb); }
    static Ptr<RttEstimator> Rtt(TcpSocketBase* s) { return s->*(&Clah::m_rtt); }
    static TracedValue<Time>& Rto(TcpSocketBase* s) { return s->*(&Clah::m_rto); }
    static uint32_t& RetxThresh(TcpSocketBase* s) { return s->*(&Clah::m_retxThresh); }
    static SequenceNumber32 Recover(TcpSocketBase* s) { return s->*(&Clah::m_recover); }
};

// FlowMonitor's Ipv4FlowProbeTag (ipv4-flow-probe.cc; not in a header), a byte tag, read only: its first
// two fields, the flow id and the packet id FlowMonitor gives each transmission at
// SendOutgoing. A retransmission is a fragment of the packet in the send buffer and keeps its
// uid, so the uid does not tell the copies apart; this id does.
class FlowTag : public Tag {
  public:
    uint32_t flowId = 0, packetId = 0;
    TypeId GetInstanceTypeId() const override { return TypeId::LookupByName("ns3::Ipv4FlowProbeTag"); }
    uint32_t GetSerializedSize() const override { return 4 + 4 + 4 + 8; }
    void Serialize(TagBuffer) const override {}
    void Deserialize(TagBuffer b) override { flowId = b.ReadU32(); packetId = b.ReadU32(); }
    void Print(std::ostream& os) const override { os << flowId << "/" << packetId; }
    uint64_t Key() const { return (uint64_t)flowId << 32 | packetId; }
};

struct Probe {
    double bin = 0.1;
    Ptr<TcpSocketBase> sock;
    std::vector<Ptr<WifiMacQueue>> upQueues;
    std::map<uint64_t, double> sentAt;     // FlowTag key -> time put on the wire
    uint32_t highestSent = 0;              // highest sequence end sent
    bool anySent = false;
    uint64_t missed = 0;
    std::vector<double> recoveryAt;
    uint64_t segments = 0, retransmits = 0, recoveries = 0, losses = 0;
    // per bin
    std::vector<uint64_t> pkts, jitN, rttN, rxBytes;
    std::vector<double> delaySum, jitSum, rttSum, cwndSum, queueSum;
    double lastDelay = -1;
    // CLAH's dupack hold
    bool hold = false;
    uint32_t holdUntil = 0;
    uint64_t heldAcks = 0;

    void Grow(size_t b) {
        if (pkts.size() > b) return;
        pkts.resize(b + 1, 0); jitN.resize(b + 1, 0); rttN.resize(b + 1, 0); rxBytes.resize(b + 1, 0);
        delaySum.resize(b + 1, 0); jitSum.resize(b + 1, 0); rttSum.resize(b + 1, 0);
        cwndSum.resize(b + 1, 0); queueSum.resize(b + 1, 0);
    }
};
Probe probe;
void Reset() { probe = Probe(); }

// Event log between traceFrom and traceTo (--trace): one line per segment sent or delivered,
// ACK sent or delivered, and congestion state change, for tracing the sender against hosim's.
double traceFrom = -1, traceTo = -1;
std::vector<std::string> traceLog;
static bool Tracing() {
    double t = Simulator::Now().GetSeconds();
    return t >= traceFrom && t < traceTo;
}
static void Log(const char* what, const TcpHeader& th, uint32_t len, uint32_t iface) {
    char line[160];
    std::snprintf(line, sizeof line, "%.6f %s seq=%u len=%u ack=%u win=%u if=%u",
                  Simulator::Now().GetSeconds(), what, th.GetSequenceNumber().GetValue(), len,
                  th.GetAckNumber().GetValue(), th.GetWindowSize(), iface);
    traceLog.push_back(line);
}
// The segments dest sends (ACKs) and the mobile receives (ACKs), for --trace.
void OnTrace(std::string what, const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface) {
    if (h.GetProtocol() != 6 || !Tracing()) return;
    TcpHeader th;
    p->PeekHeader(th);
    Log(what.c_str(), th, p->GetSize() - th.GetSerializedSize(), iface);
}
void AckSent(const Ipv4Header& h, Ptr<const Packet> p, uint32_t i) { OnTrace("dest-send", h, p, i); }
void AckDelivered(const Ipv4Header& h, Ptr<const Packet> p, uint32_t i) { OnTrace("mobile-recv", h, p, i); }

// --trace: every packet dropped below TCP, with where and why: the IP layers, the 802.11 MACs
// (not associated, retry limit, ...) and PHYs (a frame arriving while the radio sends, ...),
// the point-to-point devices. `seq` is the TCP segment's, when the packet carries one.
static void LogDrop(const std::string& where, const std::string& why, Ptr<const Packet> p, bool macHeader) {
    if (!Tracing()) return;
    Ptr<Packet> c = p->Copy();
    long seq = -1;
    uint32_t len = 0;
    WifiMacHeader mh;
    if (macHeader && c->GetSize() > mh.GetSerializedSize() + 8) {
        c->RemoveHeader(mh);
        if (!mh.IsData()) c = nullptr;
    }
    LlcSnapHeader llc;
    Ipv4Header ih;
    if (c && where.find("p2p") == std::string::npos && c->GetSize() > 8) c->RemoveHeader(llc);
    PppHeader ppp;
    if (c && where.find("p2p") != std::string::npos && c->GetSize() > 2) c->RemoveHeader(ppp);
    if (c && c->GetSize() >= 40 && c->RemoveHeader(ih) && ih.GetProtocol() == 6) {
        TcpHeader th;
        c->RemoveHeader(th);
        seq = th.GetSequenceNumber().GetValue();
        len = c->GetSize();
    }
    char line[200];
    std::snprintf(line, sizeof line, "%.6f drop at=%s why=%s size=%u seq=%ld len=%u", Simulator::Now().GetSeconds(),
                  where.c_str(), why.c_str(), p->GetSize(), seq, len);
    traceLog.push_back(line);
}
void MacTxDrop(std::string where, Ptr<const Packet> p) { LogDrop(where, "MacTxDrop", p, false); }
void MacRxDrop(std::string where, Ptr<const Packet> p) { LogDrop(where, "MacRxDrop", p, false); }
void PhyTxDrop(std::string where, Ptr<const Packet> p) { LogDrop(where, "PhyTxDrop", p, true); }
void WifiPhyRxDrop(std::string where, Ptr<const Packet> p, WifiPhyRxfailureReason r) {
    std::ostringstream why;
    why << "PhyRxDrop:" << r;
    LogDrop(where, why.str(), p, true);
}
void MpduDrop(std::string where, WifiMacDropReason r, Ptr<const WifiMpdu> m) {
    LogDrop(where, "DroppedMpdu:" + std::to_string((int)r), m->GetPacket(), false);
}
void IpDrop(std::string where, const Ipv4Header& h, Ptr<const Packet> p, Ipv4L3Protocol::DropReason r, Ptr<Ipv4>,
            uint32_t) {
    if (!Tracing()) return;
    TcpHeader th;
    long seq = -1;
    if (h.GetProtocol() == 6 && p->PeekHeader(th)) seq = th.GetSequenceNumber().GetValue();
    char line[200];
    std::snprintf(line, sizeof line, "%.6f drop at=%s why=IpDrop:%d seq=%ld", Simulator::Now().GetSeconds(),
                  where.c_str(), (int)r, seq);
    traceLog.push_back(line);
}
void TcDrop(std::string where, Ptr<const Packet> p) { LogDrop(where, "TcDrop", p, false); }
void ArpDrop(std::string where, Ptr<const Packet> p) { LogDrop(where, "ArpDrop", p, false); }
void QueueDrop(std::string where, Ptr<const WifiMpdu> m) { LogDrop(where, "WifiMacQueueDrop", m->GetPacket(), false); }
void Assoc(std::string where, Mac48Address a) {
    if (!Tracing()) return;
    traceLog.push_back(std::to_string(Simulator::Now().GetSeconds()) + " " + where);
}
void TraceDrops(Ptr<Node> node, std::string name) {
    node->GetObject<Ipv4L3Protocol>()->TraceConnect("Drop", name + "/ip", MakeCallback(&IpDrop));
    node->GetObject<TrafficControlLayer>()->TraceConnect("Drop", name + "/tc", MakeCallback(&TcDrop));
    node->GetObject<ArpL3Protocol>()->TraceConnect("Drop", name + "/arp", MakeCallback(&ArpDrop));
    for (uint32_t i = 0; i < node->GetNDevices(); i++) {
        Ptr<NetDevice> d = node->GetDevice(i);
        std::string where = name + "/dev" + std::to_string(i);
        if (Ptr<WifiNetDevice> w = DynamicCast<WifiNetDevice>(d)) {
            where += "-wifi";
            w->GetMac()->TraceConnect("MacTxDrop", where, MakeCallback(&MacTxDrop));
            w->GetMac()->TraceConnect("MacRxDrop", where, MakeCallback(&MacRxDrop));
            w->GetMac()->TraceConnect("DroppedMpdu", where, MakeCallback(&MpduDrop));
            w->GetPhy()->TraceConnect("PhyTxDrop", where, MakeCallback(&PhyTxDrop));
            w->GetPhy()->TraceConnect("PhyRxDrop", where, MakeCallback(&WifiPhyRxDrop));
            Ptr<WifiMacQueue> q = w->GetMac()->GetTxopQueue(AC_BE_NQOS);
            q->TraceConnect("Drop", where, MakeCallback(&QueueDrop));
            q->TraceConnect("Expired", where, MakeCallback(&QueueDrop));
            if (Ptr<StaWifiMac> sta = DynamicCast<StaWifiMac>(w->GetMac())) {
                sta->TraceConnect("Assoc", where + " assoc", MakeCallback(&Assoc));
                sta->TraceConnect("DeAssoc", where + " deassoc", MakeCallback(&Assoc));
            }
        } else if (Ptr<PointToPointNetDevice> q = DynamicCast<PointToPointNetDevice>(d)) {
            where += "-p2p";
            q->TraceConnect("MacTxDrop", where, MakeCallback(&MacTxDrop));
            q->TraceConnect("PhyTxDrop", where, MakeCallback(&PhyTxDrop));
            q->TraceConnect("MacRxDrop", where, MakeCallback(&MacRxDrop));
        }
    }
}

static uint32_t DataBytes(Ptr<const Packet> p, uint32_t& seq) {
    TcpHeader th;
    p->PeekHeader(th);
    seq = th.GetSequenceNumber().GetValue();
    return p->GetSize() - th.GetSerializedSize();
}

void OnSend(const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface) {
    if (h.GetProtocol() != 6) return;
    OnTrace("mobile-send", h, p, iface);
    uint32_t seq;
    uint32_t len = DataBytes(p, seq);
    if (len == 0) return;
    probe.segments++;
    uint32_t end = seq + len;
    if (probe.anySent && (int32_t)(end - probe.highestSent) <= 0) probe.retransmits++;
    if (!probe.anySent || (int32_t)(end - probe.highestSent) > 0) probe.highestSent = end;
    probe.anySent = true;
    FlowTag tag;
    if (!p->FindFirstMatchingByteTag(tag)) { probe.missed++; return; }
    probe.sentAt[tag.Key()] = Simulator::Now().GetSeconds();
}

void OnDeliver(const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface) {
    if (h.GetProtocol() != 6) return;
    OnTrace("dest-recv", h, p, iface);
    uint32_t seq;
    if (DataBytes(p, seq) == 0) return;
    FlowTag tag;
    if (!p->FindFirstMatchingByteTag(tag)) { probe.missed++; return; }
    auto it = probe.sentAt.find(tag.Key());
    if (it == probe.sentAt.end()) { probe.missed++; return; }
    double now = Simulator::Now().GetSeconds();
    double delay = now - it->second;
    probe.sentAt.erase(it);
    size_t b = (size_t)std::floor(now / probe.bin);
    probe.Grow(b);
    probe.pkts[b]++;
    probe.rxBytes[b] += h.GetPayloadSize() + h.GetSerializedSize();
    probe.delaySum[b] += delay;
    if (probe.lastDelay >= 0) { probe.jitSum[b] += std::fabs(delay - probe.lastDelay); probe.jitN[b]++; }
    probe.lastDelay = delay;
    Ptr<TcpSocketState> tcb = Clah::Tcb(PeekPointer(probe.sock));
    Time rtt = tcb->m_lastRtt.Get();
    if (rtt.IsStrictlyPositive()) { probe.rttSum[b] += rtt.GetSeconds(); probe.rttN[b]++; }
    probe.cwndSum[b] += tcb->m_cWnd.Get();
    uint64_t q = 0;
    for (auto& wq : probe.upQueues) q += wq->GetNPackets();
    probe.queueSum[b] += q;
}

void OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
    if (Tracing()) {
        Ptr<TcpSocketState> tcb = Clah::Tcb(PeekPointer(probe.sock));
        char line[160];
        Ptr<TcpTxBuffer> tx = probe.sock->GetTxBuffer();
        std::snprintf(line, sizeof line, "%.6f state=%s cwnd=%u ssthresh=%u una=%u sacked=%u lost=%u head_lost=%d",
                      Simulator::Now().GetSeconds(), TcpSocketState::TcpCongStateName[now], tcb->m_cWnd.Get(),
                      tcb->m_ssThresh.Get(), tx->HeadSequence().GetValue(), tx->GetSacked(), tx->GetLost(),
                      (int)tx->IsLost(tx->HeadSequence()));
        traceLog.push_back(line);
    }
    if (now == TcpSocketState::CA_RECOVERY) {
        probe.recoveries++;
        probe.recoveryAt.push_back(Simulator::Now().GetSeconds());
    }
    if (now == TcpSocketState::CA_LOSS) probe.losses++;
}

void OnHighestAck(SequenceNumber32, SequenceNumber32 ack) {
    if (probe.hold && (int32_t)(ack.GetValue() - probe.holdUntil) >= 0) {
        probe.hold = false;
        Clah::RetxThresh(PeekPointer(probe.sock)) = 3;
    }
}

void OnRxAck(Ptr<const Packet>, const TcpHeader& th, Ptr<const TcpSocketBase>) {
    if (probe.hold && (th.GetFlags() & TcpHeader::ACK)) probe.heldAcks++;
}

// --reno-sack-reset: at the ACK that ends a fast recovery, before the socket processes it, clear
// the SACKs ns-3 emulates from duplicate ACKs on a connection without SACK (TcpTxBuffer::
// AddRenoSack); ns-3 clears them only at a timeout (TcpSocketBase::ReTxTimeout).
bool renoSackReset = false;
uint64_t renoSackResets = 0;
void OnRxReset(Ptr<const Packet>, const TcpHeader& th, Ptr<const TcpSocketBase>) {
    if (!renoSackReset || !(th.GetFlags() & TcpHeader::ACK)) return;
    TcpSocketBase* s = PeekPointer(probe.sock);
    if (Clah::Tcb(s)->m_congState.Get() != TcpSocketState::CA_RECOVERY) return;
    if (th.GetAckNumber() < Clah::Recover(s)) return;
    s->GetTxBuffer()->ResetRenoSack();
    renoSackResets++;
}

// The ARP caches. NeighborCacheHelper fills them before the run, but an association is a link
// change, and ArpL3Protocol::CreateCache makes ArpCache::Flush the device's link-change callback:
// the stations' associations at the start emptied their caches. The 802.11g interface resolved
// its access point again at the start; the 802.11b one, first used at the first handoff, did so
// then, and its pending queue (ArpCache PendingQueueSize, 3) dropped the rest of the window's
// burst (docs/reproductions/vertical-handoff.md, "ns-3's loss at the first handoff"). With
// arpRefill (the default; --no-arp-refill for the runs before) the caches are filled again
// after each association, once its flush has run.
bool arpRefill = true;
uint64_t associations = 0, arpDrops = 0;
static void RefillArp() { NeighborCacheHelper().PopulateNeighborCache(); }
void OnAssoc(Mac48Address) {
    associations++;
    if (arpRefill) Simulator::ScheduleNow(&RefillArp);
}
void OnArpDrop(Ptr<const Packet>) { arpDrops++; }
void WatchArp(Ptr<Node> node) {
    node->GetObject<ArpL3Protocol>()->TraceConnectWithoutContext("Drop", MakeCallback(&OnArpDrop));
}
void WatchAssoc(Ptr<NetDevice> sta) {
    DynamicCast<WifiNetDevice>(sta)->GetMac()->TraceConnectWithoutContext("Assoc", MakeCallback(&OnAssoc));
}

void Attach(Ptr<Socket> s) {
    probe.sock = DynamicCast<TcpSocketBase>(s);
    probe.sock->TraceConnectWithoutContext("Rx", MakeCallback(&OnRxReset));
    probe.sock->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    probe.sock->TraceConnectWithoutContext("HighestRxAck", MakeCallback(&OnHighestAck));
}

// Algorithms 1 (toLowDelay) and 2 of TCP-CLAH at the cross-layer notification.
void ClahHandoff(bool toLowDelay, uint32_t bdp, double initialRto) {
    TcpSocketBase* s = PeekPointer(probe.sock);
    // reset RTT and RTO estimations (RFC 6298 (2.1): the initial RTO)
    Clah::Rtt(s)->Reset();
    Clah::Rto(s) = Seconds(initialRto);
    if (toLowDelay) {
        // temporarily disable dupacks, until everything sent before the handoff is acked
        probe.hold = true;
        probe.holdUntil = probe.highestSent;
        Clah::RetxThresh(s) = 0x7fffffff;
    }
    // obtain path BDP; set cwnd = path BDP
    Ptr<TcpSocketState> tcb = Clah::Tcb(s);
    tcb->m_cWnd = bdp;
    tcb->m_cWndInfl = bdp;
}

uint32_t Cwnd() { return Clah::Tcb(PeekPointer(probe.sock))->m_cWnd.Get(); }
double RtoS() { return Clah::Rto(PeekPointer(probe.sock)).Get().GetSeconds(); }
}
"""


def bss(ns, std: str, rate: float, ap, sta, ssid_name: str):
    """One BSS of `ap` and `sta` on a channel of its own (bench/ns3/wifi_setup.py, the BSS of
    bench/ns3/wifi). Returns (the AP's device, the station's device)."""
    ap_dev, sta_dev = install_bss(ns, std, rate, ap, sta, ssid_name)
    return ap_dev.Get(0), sta_dev.Get(0)


def configure_tcp(ns) -> None:
    """ns-3's TCP defaults of the paper's time, as hosim's preset states them (the docstring)."""
    newreno_defaults(ns, mss=MSS, sack=False, buf_bytes=131072, wifi_queue_pkts=100, wifi_queue_delay_s=100)
    D = ns.Config.SetDefault
    D("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(1))
    D("ns3::TcpSocket::InitialSlowStartThreshold", ns.UintegerValue(65535))
    D("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.2)))
    D("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(False))
    D("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    D("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1.0)))
    D("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(1.0)))


def run(ns, cppyy, rate: float, tcp: str, run_no: int, duration: float, trace=None,
        reno_sack_reset: bool = False, arp_refill: bool = True) -> dict:
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run_no)
    configure_tcp(ns)
    nodes = ns.NodeContainer()
    nodes.Create(4)
    mobile, ap, bs, dest = (nodes.Get(i) for i in range(4))
    ap1, sta1 = bss(ns, "802.11g", 54e6, ap, mobile, "network1")
    ap2, sta2 = bss(ns, "802.11b", 5.5e6, bs, mobile, "network2")
    mob = ns.MobilityHelper()
    pos = ns.CreateObject[ns.ListPositionAllocator]()
    for x in (0.0, 1.0, -1.0, 0.0):  # mobile, ap, bs, dest
        pos.Add(ns.Vector(x, 0, 0))
    mob.SetPositionAllocator(pos)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(nodes)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1000p"))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(ACCESS_DELAY_S["wifi"] + CORE_DELAY_S)))
    core1 = p2p.Install(ap, dest)
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(ACCESS_DELAY_S["cellular"] + CORE_DELAY_S)))
    core2 = p2p.Install(bs, dest)
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    ifaces = []
    for net, (a, b) in (("10.1.0.0", (ap1, sta1)), ("10.2.0.0", (ap2, sta2)),
                        ("10.3.0.0", (core1.Get(0), core1.Get(1))), ("10.4.0.0", (core2.Get(0), core2.Get(1)))):
        addr.SetBase(ns.Ipv4Address(net), ns.Ipv4Mask("255.255.255.0"))
        devs = ns.NetDeviceContainer()
        devs.Add(a)
        devs.Add(b)
        ifaces.append(addr.Assign(devs))
        ns.TrafficControlHelper().Uninstall(devs)
    ns.NeighborCacheHelper().PopulateNeighborCache()
    mobile_addr = ifaces[0].GetAddress(1)     # 10.1.0.2: the flow's source address throughout
    dest_addr = ifaces[2].GetAddress(1)       # 10.3.0.2
    srh = ns.Ipv4StaticRoutingHelper()

    def routing(node):
        return srh.GetStaticRouting(node.GetObject[ns.Ipv4]())

    def ifindex(node, dev):
        return node.GetObject[ns.Ipv4]().GetInterfaceForDevice(dev)

    # bs carries the flow when the mobile is on Network 2: both directions by host routes.
    routing(bs).AddHostRouteTo(mobile_addr, ifaces[1].GetAddress(1), ifindex(bs, ap2))
    routing(bs).AddHostRouteTo(dest_addr, ifaces[3].GetAddress(1), ifindex(bs, core2.Get(0)))
    # (next hop at the mobile, its interface), (next hop at dest, its interface) per network
    hops = {"wifi": ((ifaces[0].GetAddress(0), ifindex(mobile, sta1)),
                     (ifaces[2].GetAddress(0), ifindex(dest, core1.Get(1)))),
            "cellular": ((ifaces[1].GetAddress(0), ifindex(mobile, sta2)),
                         (ifaces[3].GetAddress(0), ifindex(dest, core2.Get(1))))}

    def attach(network: str) -> None:
        for node, target, (nh, oif) in ((mobile, dest_addr, hops[network][0]), (dest, mobile_addr, hops[network][1])):
            r = routing(node)
            for i in reversed(range(r.GetNRoutes())):
                if r.GetRoute(i).GetDest() == target:
                    r.RemoveRoute(i)
            r.AddHostRouteTo(target, nh, oif)

    attach("wifi")
    port = 9
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_app = sink.Install(dest)
    sink_app.Start(ns.Seconds(0))
    onoff = ns.OnOffHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(dest_addr, port).ConvertTo())
    onoff.SetConstantRate(ns.DataRate(int(rate)), MSS)
    app = onoff.Install(mobile)
    app.Start(ns.Seconds(APP_START_S))

    v = cppyy.gbl.vref
    v.Reset()
    v.renoSackReset = reno_sack_reset
    v.arpRefill = arp_refill
    for node in (mobile, ap, bs, dest):
        v.WatchArp(node)
    for sta in (sta1, sta2):
        v.WatchAssoc(sta)
    probe = v.probe
    probe.bin = BIN_S
    for dev in (sta1, sta2):
        probe.upQueues.push_back(ns.DynamicCast[ns.WifiNetDevice](dev).GetMac().GetTxopQueue(ns.AC_BE_NQOS))
    ipv4 = {n: n.GetObject[ns.Ipv4L3Protocol]() for n in (mobile, dest)}
    # FlowMonitor tags a packet in its SendOutgoing hook and removes the tag in its LocalDeliver
    # hook: the probe's send hook goes after its, the delivery hook before.
    ipv4[dest].TraceConnectWithoutContext("LocalDeliver", ns.MakeCallback(v.OnDeliver))
    fmh = ns.FlowMonitorHelper()
    monitor = fmh.InstallAll()
    ipv4[mobile].TraceConnectWithoutContext("SendOutgoing", ns.MakeCallback(v.OnSend))
    if trace:
        v.traceFrom, v.traceTo = trace
        ipv4[dest].TraceConnectWithoutContext("SendOutgoing", ns.MakeCallback(v.AckSent))
        ipv4[mobile].TraceConnectWithoutContext("LocalDeliver", ns.MakeCallback(v.AckDelivered))
        for node, name in ((mobile, "mobile"), (ap, "ap"), (bs, "bs"), (dest, "dest")):
            v.TraceDrops(node, name)

    now = APP_START_S + 1e-6  # the application has created its socket
    ns.Simulator.Stop(ns.Seconds(now))
    ns.Simulator.Run()
    v.Attach(ns.DynamicCast[ns.OnOffApplication](app.Get(0)).GetSocket())
    handoffs = []
    at = "wifi"
    t = INTERVAL_S
    while t < duration:
        ns.Simulator.Stop(ns.Seconds(t - now))
        ns.Simulator.Run()
        now = t
        to = "cellular" if at == "wifi" else "wifi"
        cwnd_before = v.Cwnd()
        attach(to)
        if tcp == "clah":
            v.ClahHandoff(to == "wifi", MSS * HOPS, 1.0)
        handoffs.append({"start_s": t, "from": at, "to": to, "cwnd_before_bytes": int(cwnd_before),
                         "cwnd_after_bytes": int(v.Cwnd()), "rto_after_s": v.RtoS()})
        at = to
        t += INTERVAL_S
    ns.Simulator.Stop(ns.Seconds(duration - now))
    ns.Simulator.Run()

    classifier = ns.DynamicCast[ns.Ipv4FlowClassifier](fmh.GetClassifier())
    fm_jitter, fm_rx = None, 0
    for flow_id, st in monitor.GetFlowStats():
        tup = classifier.FindFlow(flow_id)
        if tup.sourceAddress == mobile_addr and tup.destinationAddress == dest_addr and st.rxPackets > 1:
            fm_jitter = st.jitterSum.GetSeconds() / (st.rxPackets - 1)
            fm_rx = st.rxPackets
    goodput = ns.DynamicCast[ns.PacketSink](sink_app.Get(0)).GetTotalRx() * 8 / duration
    drops = sum(probe.upQueues[i].GetTotalDroppedPackets() for i in range(2))
    drops += sum(ns.DynamicCast[ns.WifiNetDevice](d).GetMac().GetTxopQueue(ns.AC_BE_NQOS).GetTotalDroppedPackets()
                 for d in (ap1, ap2))
    n = len(probe.pkts)

    def mean(sums, counts, i):
        return sums[i] / counts[i] if counts[i] else None

    series = {
        "bin_s": BIN_S,
        "pkts": [int(probe.pkts[i]) for i in range(n)],
        "delay_mean_s": [mean(probe.delaySum, probe.pkts, i) for i in range(n)],
        "jitter_mean_s": [mean(probe.jitSum, probe.jitN, i) for i in range(n)],
        "rx_bps": [probe.rxBytes[i] * 8 / BIN_S for i in range(n)],
        "rtt_mean_s": [mean(probe.rttSum, probe.rttN, i) for i in range(n)],
        "cwnd_mean_bytes": [mean(probe.cwndSum, probe.pkts, i) for i in range(n)],
        "queue_mean_pkts": [mean(probe.queueSum, probe.pkts, i) for i in range(n)],
    }
    jit_n = sum(probe.jitN[i] for i in range(n))
    rtt_n = sum(probe.rttN[i] for i in range(n))
    summary = {
        "handovers": handoffs,
        "flows": [{"goodput_bps": goodput, "retransmits": int(probe.retransmits), "timeouts": int(probe.losses),
                   "spurious_timeouts": None, "fast_recoveries": int(probe.recoveries),
                   "rtt_mean_s": sum(probe.rttSum[i] for i in range(n)) / rtt_n if rtt_n else None}],
        "queues": [{"dropped": int(drops)}],
        "vertical": {"series": series,
                     "jitter_mean_s": sum(probe.jitSum[i] for i in range(n)) / jit_n if jit_n else None,
                     "suppressed_dupacks": None, "zero_window_probes": None, "persist_s": None,
                     "app_refused_bytes": None},
    }
    ns.Simulator.Destroy()
    return {"rate_bps": rate, "tcp": tcp, "run": run_no, "summary": summary,
            "flowmonitor_jitter_s": fm_jitter, "flowmonitor_rx_packets": int(fm_rx),
            "segments_sent": int(probe.segments), "probe_missed": int(probe.missed),
            "recovery_at_s": [round(x, 3) for x in probe.recoveryAt],
            "reno_sack_reset": reno_sack_reset, "reno_sack_resets": int(v.renoSackResets),
            "arp_refill": arp_refill, "arp_drops": int(v.arpDrops), "associations": int(v.associations),
            "trace": [str(line) for line in v.traceLog]}


def one(rate: float, tcp: str, run_no: int, duration: float, trace=None, reno_sack_reset: bool = False,
        arp_refill: bool = True) -> dict:
    """One run in this process, reduced by hosim's code (ns-3 runs one simulation per process
    here: a second one in the same process after Simulator::Destroy crashed in cppyy)."""
    import cppyy
    from ns import ns

    from hosim.reproduce.vertical import reduce_run

    cppyy.cppdef(PROBE)
    t0 = time.time()
    r = run(ns, cppyy, rate, tcp, run_no, duration, trace, reno_sack_reset, arp_refill)
    reduced = reduce_run(r.pop("summary"))
    r["series"] = reduced.pop("series")
    r["wall_s"] = round(time.time() - t0, 1)
    r.update(reduced)
    return r


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rates", type=float, nargs="+", default=[10e6, 15e6, 20e6])
    p.add_argument("--tcp", nargs="+", default=["newreno", "clah"], choices=["newreno", "clah"])
    p.add_argument("--runs", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--duration", type=float, default=100.0)
    p.add_argument("--jobs", type=int, default=1, help="runs at once, each in a process of its own")
    p.add_argument("--json", help="write the results here (replacing runs it holds already)")
    p.add_argument("--series", help="write the per-bin series of run 1 here")
    p.add_argument("--reno-sack-reset", action="store_true",
                   help="clear ns-3's emulated SACKs at the ACK that ends a fast recovery")
    p.add_argument("--no-arp-refill", dest="arp_refill", action="store_false",
                   help="as the runs before 2026-11-27's fix: leave the ARP caches the associations flushed")
    p.add_argument("--trace", type=float, nargs=2, metavar=("FROM_S", "TO_S"),
                   help="log every segment and ACK between these times")
    p.add_argument("--trace-dir", default=".", help="where --trace writes RATE-TCP-RUN.log")
    p.add_argument("--one", nargs=3, metavar=("RATE", "TCP", "RUN"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one:
        print(json.dumps(one(float(a.one[0]), a.one[1], int(a.one[2]), a.duration, a.trace,
                             a.reno_sack_reset, a.arp_refill)), flush=True)
        # The probe's pointers outlive Simulator::Destroy; their destructors at interpreter exit
        # corrupted the heap in one run of 18 (SIGABRT after the result was printed).
        os._exit(0)
    rows, series = [], {}
    for path, into in ((a.json, "rows"), (a.series, "series")):
        if path and os.path.exists(path):
            with open(path) as f:
                if into == "rows":
                    rows = json.load(f)
                else:
                    series = json.load(f)
    specs = [(rate, tcp, run_no) for run_no in a.runs for rate in a.rates for tcp in a.tcp]

    def launch(spec):
        rate, tcp, run_no = spec
        cmd = [sys.executable, os.path.abspath(__file__), "--duration", str(a.duration),
               "--one", repr(rate), tcp, str(run_no)]
        if a.trace:
            cmd += ["--trace", *map(str, a.trace)]
        if a.reno_sack_reset:
            cmd.append("--reno-sack-reset")
        if not a.arp_refill:
            cmd.append("--no-arp-refill")
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"run {spec} failed (exit {done.returncode}): {done.stderr.strip()[-300:]}", file=sys.stderr)
            return None
        return json.loads(done.stdout.strip().splitlines()[-1])

    with ThreadPoolExecutor(a.jobs) as pool:
        for r in pool.map(launch, specs):
            if r is None:
                continue
            key = _key(r)
            s = r.pop("series")
            log = r.pop("trace")
            if a.trace:
                name = (f"{r['rate_bps']:g}-{r['tcp']}-{r['run']}" + ("-reset" if r["reno_sack_reset"] else "")
                        + ("" if r["arp_refill"] else "-no-arp-refill"))
                with open(os.path.join(a.trace_dir, name + ".log"), "w") as f:
                    f.write("\n".join(log) + "\n")
            if r["run"] == 1:
                series[f"{r['rate_bps']:g}|{r['tcp']}" + ("|reno-sack-reset" if r["reno_sack_reset"] else "")
                       + ("" if r["arp_refill"] else "|no-arp-refill")] = s
            rows = [x for x in rows if _key(x) != key] + [r]
            rows.sort(key=_key)
            print(json.dumps({k: r[k] for k in BRIEF}), flush=True)
            if a.json:
                with open(a.json, "w") as f:
                    json.dump(rows, f, indent=1, sort_keys=True)
            if a.series:
                with open(a.series, "w") as f:
                    json.dump(series, f, sort_keys=True)


def _key(row: dict) -> tuple:
    """A run's identity in the data file (rows written before --reno-sack-reset existed ran without
    it; rows written before the ARP refill, without that)."""
    return (row["rate_bps"], row["tcp"], row["run"], row.get("reno_sack_reset", False), row.get("arp_refill", False))


BRIEF = ("rate_bps", "tcp", "run", "reno_sack_reset", "arp_refill", "arp_drops", "wall_s", "goodput_bps",
         "retransmits", "fast_recoveries", "timeouts", "jitter_overall_s", "flowmonitor_jitter_s",
         "jitter_mean_s_after_handoff", "rtt_mean_s_after_handoff", "queue_mean_pkts_after_handoff")


if __name__ == "__main__":
    sys.exit(main())

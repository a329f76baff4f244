//! Vertical WiFi <-> cellular handoffs of a mobile source and the cross-layer notification to
//! its TCP sender: Sinky & Hamdaoui, "Cross-Layer Assisted TCP for Seamless Handoff in
//! Heterogeneous Mobile Wireless Systems" (TCP-CLAH), Fig. 1 and Sec. V.B.
//!
//! Handoff model: at each handoff the mobile's route to the destination and the destination's
//! route to the mobile switch to the other network (Sec. V.B: "two paths are available from
//! node Mobile (source) to node Dest (destination); that is one path per network"), and the
//! sender is told through `Cx::notify_path_change` which network it now uses and whether its
//! delay is lower or higher (Sec. IV.A, second assumption). Section III's two means:
//! - `soft` (make before break, the paper's assumption): packets already queued on the old
//!   interface are still transmitted and arrive; nothing is lost by the handoff itself;
//! - `hard` (break before make): packets queued on the old access link, in both directions,
//!   and packets reaching the old access point for the mobile afterwards are lost. A packet
//!   already on the air (in transmission or propagating) completes.
//!
//! The agent owns the two access points (to drop late packets under `hard`) and the
//! destination, where it measures the one-way delay of every data packet and the jitter.
//! Jitter is the mean |delay(i) - delay(i-1)| over consecutive data packets received, the
//! `jitterSum / (rxPackets - 1)` of ns-3's FlowMonitor (the paper's simulator is ns-3).
//!
//! Files: `config.rs` (the `[vertical]` section), `template.rs` (the graph, the sender's
//! reaction, installing the agent); the agent, its metrics and its report are here. The TCP
//! side of TCP-CLAH is `tcp/sender/clah.rs`.

mod config;
mod template;

pub use config::{Adaptation, ClahBdp, Links, Mode, Network, VerticalSection, ACCESS, DEST, MOBILE};
pub use template::{expand, install, reaction, PRESET, TEMPLATE};

use std::collections::HashSet;

use serde::Serialize;

use crate::engine::time::{ns_to_s, s_to_ns, SimTime};
use crate::net::{FlowId, LinkId, NodeId, Packet};
use crate::sim::{Agent, Cx, HandoverRecord, Report, World};
use crate::tcp::path::{AccessKind, DelayShift, Handoff, PathChange};

/// One handoff.
#[derive(Clone, Debug, Default)]
pub struct HandoffLog {
    pub start_ns: SimTime,
    pub from: Option<Network>,
    pub to: Option<Network>,
    /// Data packets of the flow on the old uplink (queued, in service, propagating) at the
    /// handoff: with `record_uids`, their uids.
    pub old_path_pkts: u64,
    pub old_path_uids: Vec<u64>,
    /// Packets the handoff destroyed (`hard` only), both directions; with `record_uids` the uids.
    pub dropped_pkts: u64,
    pub dropped_uids: Vec<u64>,
    pub cwnd_before_bytes: u64,
    pub cwnd_after_bytes: u64,
    pub rto_before_s: f64,
    pub rto_after_s: f64,
    /// N = n + m of the new path, from the routes.
    pub hops: u32,
}

/// Delay and jitter at the destination, per bin of the series and overall, and the sender's
/// state sampled at each arrival of a data packet at the destination.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    bin_ns: SimTime,
    /// Per bin: data packets received, sum of delays, sum of |delay differences|, differences.
    pkts: Vec<u64>,
    delay_sum_ns: Vec<u128>,
    jitter_sum_ns: Vec<u128>,
    jitter_n: Vec<u64>,
    last_delay_ns: Option<SimTime>,
    /// Per bin: bytes on the wire received, and sums of the samples taken at each arrival.
    rx_bytes: Vec<u64>,
    rtt_sum_ns: Vec<u128>,
    rtt_n: Vec<u64>,
    cwnd_sum: Vec<u128>,
    queue_sum: Vec<u64>,
}

/// The sender and network state sampled at an arrival.
struct Sample {
    bytes: u32,
    latest_rtt_ns: Option<SimTime>,
    cwnd_bytes: u64,
    /// Packets queued at the mobile's two uplinks (the bottleneck interfaces).
    queue_pkts: u64,
}

impl Metrics {
    fn new(bin_ns: SimTime) -> Metrics {
        Metrics { bin_ns, ..Default::default() }
    }

    /// A data packet sent at `sent_ns` reached the destination at `now`.
    fn on_delivery(&mut self, now: SimTime, sent_ns: SimTime, x: Sample) {
        let delay = now - sent_ns;
        let b = (now / self.bin_ns) as usize;
        if self.pkts.len() <= b {
            for v in [&mut self.pkts, &mut self.jitter_n, &mut self.rx_bytes, &mut self.rtt_n, &mut self.queue_sum] {
                v.resize(b + 1, 0);
            }
            for v in [&mut self.delay_sum_ns, &mut self.jitter_sum_ns, &mut self.rtt_sum_ns, &mut self.cwnd_sum] {
                v.resize(b + 1, 0);
            }
        }
        self.rx_bytes[b] += x.bytes as u64;
        if let Some(r) = x.latest_rtt_ns {
            self.rtt_sum_ns[b] += r as u128;
            self.rtt_n[b] += 1;
        }
        self.cwnd_sum[b] += x.cwnd_bytes as u128;
        self.queue_sum[b] += x.queue_pkts;
        self.pkts[b] += 1;
        self.delay_sum_ns[b] += delay as u128;
        if let Some(prev) = self.last_delay_ns {
            // ns-3 FlowMonitor: jitterSum += |delay - lastDelay|.
            self.jitter_sum_ns[b] += delay.abs_diff(prev) as u128;
            self.jitter_n[b] += 1;
        }
        self.last_delay_ns = Some(delay);
    }

    fn mean_s(sum: u128, n: u64) -> Option<f64> {
        (n > 0).then(|| sum as f64 / n as f64 / 1e9)
    }
}

/// The handoff mechanism of one mobile.
pub struct VerticalHandoff {
    cfg: VerticalSection,
    flow: FlowId,
    mobile: NodeId,
    dest: NodeId,
    /// ap, bs (by `Network::index`).
    access: [NodeId; 2],
    /// mobile -> access, access -> mobile, dest -> access.
    up: [LinkId; 2],
    down: [LinkId; 2],
    from_dest: [LinkId; 2],
    at: Network,
    /// Keep the packet uids of each handoff and of every data packet delivered (tests).
    pub record_uids: bool,
    pub log: Vec<HandoffLog>,
    pub delivered_uids: HashSet<u64>,
    /// Packets for the mobile that reached the old access point after a `hard` handoff.
    pub late_drops: u64,
    /// Freeze-TCP: the receiver's window before the zero window advertisement, while frozen.
    frozen_rwnd: Option<u64>,
    pub metrics: Metrics,
}

/// What a vertical-handoff timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The mobile hands off to the other network.
    Handoff,
    /// Freeze-TCP: the receiver advertises a zero window ahead of the handoff.
    Freeze,
}

/// Freeze-TCP: "three copies of the ACK" reopening the window after the handoff (Goff et al.).
const TR_ACKS: u32 = 3;

impl VerticalHandoff {
    /// The network the mobile is attached to.
    pub fn attached(&self) -> Network {
        self.at
    }

    /// Owns the access points and the destination, attaches the mobile, sets the first timer.
    fn start(self, cx: &mut Cx<Timer>) -> VerticalHandoff {
        for n in self.access.into_iter().chain([self.dest]) {
            cx.own(n);
        }
        self.attach_routes(cx, self.at);
        if self.cfg.mode == Mode::Hard {
            // Break before make: one network at a time reaches the mobile.
            cx.set_attached(self.mobile, self.up[self.at.other().index()], false);
        }
        let first = s_to_ns(self.cfg.interval_s);
        cx.schedule(first, Timer::Handoff);
        self.schedule_freeze(cx, first);
        self
    }

    /// Freeze-TCP: the zero window advertisement one warning period before the handoff at
    /// `handoff_ns` (the network left then is the one attached now).
    fn schedule_freeze(&self, cx: &mut Cx<Timer>, handoff_ns: SimTime) {
        if self.cfg.adaptation == Adaptation::Freeze {
            let warning = s_to_ns(self.cfg.freeze_warning_s(self.at));
            cx.schedule(handoff_ns.saturating_sub(warning).max(cx.now()), Timer::Freeze);
        }
    }

    /// Freeze-TCP, before the handoff: the destination advertises a zero window. The mobile is
    /// the source here, so the destination is told of the coming handoff (an idealised,
    /// zero-cost signal from the mobile; docs/reproductions/vertical-handoff.md).
    fn freeze(&mut self, cx: &mut Cx<Timer>) {
        let rwnd = cx.flows()[self.flow as usize].receiver.rwnd_bytes;
        self.frozen_rwnd.get_or_insert(rwnd);
        cx.advertise_window(self.flow, 0, 1);
    }

    fn attach_routes(&self, cx: &mut Cx<Timer>, n: Network) {
        cx.routes_mut(self.mobile)[self.dest as usize] = Some(self.up[n.index()]);
        cx.routes_mut(self.dest)[self.mobile as usize] = Some(self.from_dest[n.index()]);
    }

    /// Links on the route from `a` to `b`.
    fn route_hops(cx: &Cx<Timer>, a: NodeId, b: NodeId) -> u32 {
        let (mut n, mut hops) = (a, 0);
        while n != b && (hops as usize) < cx.nodes().len() {
            let Some(l) = cx.nodes()[n as usize].routes[b as usize] else { break };
            n = cx.links()[l as usize].to;
            hops += 1;
        }
        hops
    }

    /// The cross-layer notification for a handoff from `from` to `to` (routes already switched).
    fn path_change(&self, cx: &Cx<Timer>, from: Network, to: Network) -> PathChange {
        let hops = Self::route_hops(cx, self.mobile, self.dest) + Self::route_hops(cx, self.dest, self.mobile);
        let rtt = |n| self.cfg.base_rtt_s(n);
        PathChange {
            handoff: Handoff::Vertical,
            access: match to {
                Network::Wifi => AccessKind::Wlan,
                Network::Cellular => AccessKind::Cellular,
            },
            base_rtt_ns: Some(s_to_ns(rtt(to))),
            rate_hint_bps: Some(self.cfg.access(to).0 as u64),
            hops: Some(hops),
            delay: if rtt(to) < rtt(from) { DelayShift::ToLowDelay } else { DelayShift::ToHighDelay },
        }
    }

    fn handoff(&mut self, cx: &mut Cx<Timer>) {
        let now = cx.now();
        let (from, to) = (self.at, self.at.other());
        let flow = self.flow;
        let uplink = &cx.links()[self.up[from.index()] as usize];
        let old: Vec<u64> =
            uplink.packets(cx.store()).filter(|p| p.flow == flow && p.is_data()).map(|p| p.uid).collect();
        self.attach_routes(cx, to);
        self.at = to;
        let mut dropped = Vec::new();
        if self.cfg.mode == Mode::Hard {
            // Break before make: the old interfaces' buffers are lost.
            for l in [self.up[from.index()], self.down[from.index()]] {
                let lost = cx.withdraw_queued(l);
                dropped.extend(lost.iter().map(|p| p.uid));
            }
            cx.counters_mut().dropped_handover += dropped.len() as u64;
            // The mobile has left `from` and joins `to` (what a real host's interfaces show).
            cx.set_attached(self.mobile, self.up[from.index()], false);
            cx.set_attached(self.mobile, self.up[to.index()], true);
        }
        let sender = &cx.flows()[flow as usize].sender;
        let (cwnd_before, rto_before) = (sender.cwnd(), sender.rto_ns());
        let change = self.path_change(cx, from, to);
        cx.notify_path_change(flow, &change);
        if let Some(rwnd) = self.frozen_rwnd.take() {
            // Freeze-TCP, after the handoff: three ACKs reopen the window (over the new path).
            cx.advertise_window(flow, rwnd, TR_ACKS);
        }
        let sender = &cx.flows()[flow as usize].sender;
        self.log.push(HandoffLog {
            start_ns: now,
            from: Some(from),
            to: Some(to),
            old_path_pkts: old.len() as u64,
            old_path_uids: if self.record_uids { old } else { Vec::new() },
            dropped_pkts: dropped.len() as u64,
            dropped_uids: if self.record_uids { dropped } else { Vec::new() },
            cwnd_before_bytes: cwnd_before,
            cwnd_after_bytes: sender.cwnd(),
            rto_before_s: ns_to_s(rto_before),
            rto_after_s: ns_to_s(sender.rto_ns()),
            hops: change.hops.unwrap_or(0),
        });
        let next = now + s_to_ns(self.cfg.interval_s);
        if next < cx.end_ns() {
            cx.schedule(next, Timer::Handoff);
            self.schedule_freeze(cx, next);
        }
    }
}

impl Agent for VerticalHandoff {
    type Timer = Timer;

    /// A packet reaches an access point or the destination.
    fn on_packet(&mut self, cx: &mut Cx<Timer>, n: NodeId, pkt: Packet) {
        if n == self.dest {
            if pkt.flow == self.flow && pkt.is_data() && pkt.len > 0 {
                let sender = &cx.flows()[self.flow as usize].sender;
                let sample = Sample {
                    bytes: pkt.size_bytes,
                    latest_rtt_ns: sender.rtt().latest_rtt_ns(),
                    cwnd_bytes: sender.cwnd(),
                    queue_pkts: self.up.iter().map(|l| cx.links()[*l as usize].queue.len_pkts() as u64).sum(),
                };
                self.metrics.on_delivery(cx.now(), pkt.sent_ns, sample);
                if self.record_uids {
                    self.delivered_uids.insert(pkt.uid);
                }
            }
        } else if self.cfg.mode == Mode::Hard && pkt.dst == self.mobile && self.access[self.at.index()] != n {
            // Break before make: the mobile has left this access point.
            self.late_drops += 1;
            if let Some(rec) = self.log.last_mut() {
                rec.dropped_pkts += 1;
                if self.record_uids {
                    rec.dropped_uids.push(pkt.uid);
                }
            }
            cx.counters_mut().dropped_handover += 1;
            return;
        }
        cx.receive_as_router(n, pkt);
    }

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        match timer {
            Timer::Freeze => self.freeze(cx),
            Timer::Handoff => self.handoff(cx),
        }
    }

    fn report(&self, world: &World) -> Report {
        let mut report = Report::default();
        for rec in &self.log {
            let start = ns_to_s(rec.start_ns);
            let detail = HandoffEntry::of(rec);
            report.handovers.push(HandoverRecord::new(
                MOBILE.into(),
                start,
                Some(start),
                self.mode_name().into(),
                &detail,
            ));
        }
        report.add_field("vertical", &self.entry(world));
        report
    }
}

/// The mechanism-specific part of a `handovers` entry.
#[derive(Serialize)]
struct HandoffEntry {
    from: &'static str,
    to: &'static str,
    old_path_pkts: u64,
    dropped_pkts: u64,
    cwnd_before_bytes: u64,
    cwnd_after_bytes: u64,
    rto_before_s: f64,
    rto_after_s: f64,
    hops: u32,
}

impl HandoffEntry {
    fn of(r: &HandoffLog) -> HandoffEntry {
        HandoffEntry {
            from: r.from.map_or("", Network::name),
            to: r.to.map_or("", Network::name),
            old_path_pkts: r.old_path_pkts,
            dropped_pkts: r.dropped_pkts,
            cwnd_before_bytes: r.cwnd_before_bytes,
            cwnd_after_bytes: r.cwnd_after_bytes,
            rto_before_s: r.rto_before_s,
            rto_after_s: r.rto_after_s,
            hops: r.hops,
        }
    }
}

/// Per bin (`series_bin_s`), from the data packets reaching the destination: their count,
/// mean one-way delay and jitter, the throughput (bytes on the wire), and the means of the
/// sender's latest RTT sample, its cwnd and the mobile's uplink queues sampled at each arrival;
/// null where no packet arrived.
#[derive(Serialize)]
struct Series {
    bin_s: f64,
    pkts: Vec<u64>,
    delay_mean_s: Vec<Option<f64>>,
    jitter_mean_s: Vec<Option<f64>>,
    rx_bps: Vec<f64>,
    rtt_mean_s: Vec<Option<f64>>,
    cwnd_mean_bytes: Vec<Option<f64>>,
    queue_mean_pkts: Vec<Option<f64>>,
}

/// The top-level `vertical` entry.
#[derive(Serialize)]
struct VerticalEntry {
    adaptation: &'static str,
    mode: &'static str,
    first: &'static str,
    interval_s: f64,
    app_rate_bps: f64,
    wifi_base_rtt_s: f64,
    cellular_base_rtt_s: f64,
    handoffs: usize,
    dropped_pkts: u64,
    late_drops: u64,
    delay_mean_s: Option<f64>,
    jitter_mean_s: Option<f64>,
    suppressed_dupacks: u64,
    /// Freeze-TCP: zero-window probes and time with a zero window at the sender.
    zero_window_probes: u64,
    persist_s: f64,
    /// Application writes refused by the full send buffer (`sndbuf_bytes`).
    sndbuf_bytes: u64,
    app_refused_bytes: u64,
    series: Series,
}

impl VerticalHandoff {
    fn mode_name(&self) -> &'static str {
        match self.cfg.mode {
            Mode::Soft => "soft",
            Mode::Hard => "hard",
        }
    }

    fn entry(&self, world: &World) -> VerticalEntry {
        let m = &self.metrics;
        let flow = &world.flows[self.flow as usize];
        let sum = |v: &[u128]| v.iter().sum::<u128>();
        let n = |v: &[u64]| v.iter().sum::<u64>();
        let series = Series {
            bin_s: ns_to_s(m.bin_ns),
            pkts: m.pkts.clone(),
            delay_mean_s: m.delay_sum_ns.iter().zip(&m.pkts).map(|(s, k)| Metrics::mean_s(*s, *k)).collect(),
            jitter_mean_s: m.jitter_sum_ns.iter().zip(&m.jitter_n).map(|(s, k)| Metrics::mean_s(*s, *k)).collect(),
            rx_bps: m.rx_bytes.iter().map(|b| *b as f64 * 8.0 / ns_to_s(m.bin_ns)).collect(),
            rtt_mean_s: m.rtt_sum_ns.iter().zip(&m.rtt_n).map(|(s, k)| Metrics::mean_s(*s, *k)).collect(),
            cwnd_mean_bytes: m
                .cwnd_sum
                .iter()
                .zip(&m.pkts)
                .map(|(s, k)| (*k > 0).then(|| *s as f64 / *k as f64))
                .collect(),
            queue_mean_pkts: m
                .queue_sum
                .iter()
                .zip(&m.pkts)
                .map(|(s, k)| (*k > 0).then(|| *s as f64 / *k as f64))
                .collect(),
        };
        VerticalEntry {
            adaptation: self.cfg.adaptation.name(),
            mode: self.mode_name(),
            first: self.cfg.first.name(),
            interval_s: self.cfg.interval_s,
            app_rate_bps: self.cfg.app_rate_bps,
            wifi_base_rtt_s: self.cfg.base_rtt_s(Network::Wifi),
            cellular_base_rtt_s: self.cfg.base_rtt_s(Network::Cellular),
            handoffs: self.log.len(),
            dropped_pkts: self.log.iter().map(|r| r.dropped_pkts).sum(),
            late_drops: self.late_drops,
            delay_mean_s: Metrics::mean_s(sum(&m.delay_sum_ns), n(&m.pkts)),
            jitter_mean_s: Metrics::mean_s(sum(&m.jitter_sum_ns), n(&m.jitter_n)),
            suppressed_dupacks: flow.sender.handoff_state().suppressed_dupacks,
            zero_window_probes: flow.sender.stats.zero_window_probes,
            persist_s: ns_to_s(flow.sender.stats.persist_ns),
            sndbuf_bytes: self.cfg.sndbuf_bytes,
            app_refused_bytes: flow.app_refused_bytes,
            series,
        }
    }
}

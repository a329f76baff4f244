//! Inter-RAT handover LTE <-> UMTS with forwarding, bicasting or neither, after the 3GPP
//! contribution "TCP recovery after the back-to-back loss of an inter-RAT handover"
//! (Appendix A, Fig. A.1):
//!
//! ```text
//!  server ══ Internet ══ anchor ─ S1 ─ enb ── LTE radio ──┐
//!                           │            ╲ forwarding path ue
//!                           └─────── utran ── UMTS radio ─┘
//! ```
//!
//! One agent, [`InterRat`], owns the inter-AS anchor and both radio access nodes (the eNodeB
//! and the 2G/3G node). Timeline (Appendix A): the UE leaves the source RAT at
//! `handover_at_s` (the source's downlink stops); `interruption_s` later the anchor switches
//! the path and the target starts its downlink. The schemes:
//! - `forwarding`: after the HO command the source forwards what it buffered and did not
//!   deliver, and whatever still reaches it, to the target over the forwarding path; the
//!   target keeps two queues, forwarded data with strict priority over new data from the
//!   anchor ("partial reordering", Appendix A);
//! - `bicasting`: from "HO preparation complete", `bicast_lead_s` before the UE leaves, the
//!   anchor sends a copy of every downlink packet to the target, which buffers it until the
//!   UE arrives; what the source holds when the UE leaves is lost, and what the source
//!   transmits after bicasting started reaches the UE twice;
//! - `none`: everything left in the source RAN is lost.
//!
//! Where the window waits. With S1 = RF the bottleneck is the anchor's output to S1
//! ("buffering takes place mainly above the eNB"): the anchor's buffer sits above its path
//! switch and bicasting point: packets leaving it while bicasting are copied, and those still
//! waiting at the path switch go to the target. The source RAN is the S1 (or Iu) link
//! and the RAN node's buffer; a packet already handed to the radio when the UE leaves (at most
//! one, being transmitted) still reaches the UE.
//!
//! Files: `config.rs` (`[inter_rat]`), `template.rs` (the Fig. A.1 graph, installing the
//! agent), `convergence.rs` (the convergence time, a pure
//! function), `report.rs` (the `handovers` entry).

mod config;
pub mod convergence;
mod report;
mod template;

pub use config::{Direction, InterRatSection, S1Rate, Scheme};
pub use report::InterRatEntry;
pub use template::{expand, install, PRESET, TEMPLATE};

use std::collections::HashSet;

use crate::engine::time::{tx_time_ns, SimTime};
use crate::mobility::ran::{self, AccessNode, CellSet};
use crate::net::packet::Packet;
use crate::net::{FlowId, LinkId, NodeId};
use crate::sim::{Agent, Cx, Report, World};

/// Index of the source and the target RAN in [`InterRat::rans`].
pub const SOURCE: usize = 0;
pub const TARGET: usize = 1;

#[derive(Clone, Debug)]
pub struct InterRatConfig {
    pub scheme: Scheme,
    pub direction: Direction,
    pub bicast_start_ns: Option<SimTime>,
    pub detach_ns: SimTime,
    pub switch_ns: SimTime,
    pub sample_ns: SimTime,
    pub samples_from_ns: SimTime,
    pub pre_window_ns: SimTime,
    pub convergence_window_ns: SimTime,
    pub convergence_fraction: f64,
    /// One segment: the convergence time's allowance for packetized delivery.
    pub slack_bytes: u64,
}

/// What an inter-RAT timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The RAN kit's: a RAN node's radio finished sending a packet.
    Ran(ran::Timer),
    /// "HO preparation complete": the anchor starts bicasting.
    BicastStart,
    /// The UE leaves the source RAT (HO command); the source's downlink stops.
    Detach,
    /// The anchor switches the path and the UE is served by the target.
    Switch,
    /// Sample the receiver's delivered bytes.
    Sample,
    /// The anchor finished handing a packet to its access link.
    AnchorDone,
}

impl From<ran::Timer> for Timer {
    fn from(t: ran::Timer) -> Timer {
        Timer::Ran(t)
    }
}

/// Packet ids behind the handover's counts, kept when [`InterRat::record_uids`] is set.
#[derive(Clone, Debug, Default)]
pub struct UidLog {
    /// Downlink packets the anchor sent towards the source RAN (copies excluded).
    pub to_source: Vec<u64>,
    /// Of those, the ones sent before bicasting started.
    pub to_source_before_bicast: Vec<u64>,
    /// Packets the source handed to its radio.
    pub source_radio: Vec<u64>,
    /// Packets the target handed to its radio, and whether each was forwarded.
    pub target_radio: Vec<(u64, bool)>,
    pub lost: Vec<u64>,
    pub forwarded: Vec<u64>,
    /// Originals (source-side uids) of the bicast packets the source transmitted.
    pub duplicated: Vec<u64>,
}

/// Counts of the handover (the `handovers` entry adds the TCP side).
#[derive(Clone, Debug, Default)]
pub struct HandoverCounts {
    /// Packets dropped in the source RAN because the UE had left, with no copy elsewhere.
    pub lost_in_source: u64,
    /// Packets dropped in the source RAN whose bicast copy the target holds.
    pub dropped_with_copy: u64,
    pub forwarded: u64,
    /// Copies the anchor sent to the target while bicasting.
    pub bicast_copies: u64,
    /// Bicast packets the source transmitted too: they reach the UE twice.
    pub duplicated: u64,
    /// New packets dropped by a RAN buffer limit (`ran_buffer_s`).
    pub ran_buffer_drops: u64,
}

/// TCP counters of the flow, taken at handover preparation.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpSnap {
    pub retransmits: u64,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub fast_recoveries: u64,
}

impl TcpSnap {
    fn of(f: &crate::sim::Flow) -> TcpSnap {
        TcpSnap {
            retransmits: f.sender.stats.retransmits,
            timeouts: f.sender.stats.timeouts,
            spurious_timeouts: f.spurious_timeouts,
            fast_recoveries: f.sender.stats.fast_recoveries,
        }
    }
}

/// The inter-RAT system: the agent that owns the anchor and both RAN nodes.
pub struct InterRat {
    pub cfg: InterRatConfig,
    pub anchor: NodeId,
    pub ue: NodeId,
    pub flow: FlowId,
    /// The RAN nodes (RAN kit access nodes: a forwarded-first buffer and a radio each).
    pub rans: [AccessNode; 2],
    /// Anchor -> RAN link of each RAN.
    pub to_ran: [LinkId; 2],
    /// Source -> target forwarding path.
    pub forward_link: LinkId,
    /// The RAN the anchor sends the UE's downlink to.
    pub path: usize,
    /// The anchor's buffer for the UE's downlink, above the path switch and the bicasting
    /// point: it feeds the current path's access link one packet at a time, at its rate.
    pub anchor_queue: std::collections::VecDeque<Packet>,
    pub anchor_busy: bool,
    /// Access link rate (bit/s) towards each RAN.
    pub access_bps: [u64; 2],
    /// Packets that entered / left the anchor's buffer (conservation check).
    pub anchor_stats: (u64, u64),
    /// The RAN serving the UE (one at a time here); none during the interruption.
    pub attached: CellSet,
    pub bicasting: bool,
    /// Keep packet ids (tests).
    pub record_uids: bool,
    pub uids: UidLog,
    pub counts: HandoverCounts,
    /// Forwarded packets on the forwarding path.
    in_forwarding: HashSet<u64>,
    /// Source-side uids of packets the anchor bicast.
    bicast_originals: HashSet<u64>,
    /// (time, bytes delivered in order to the UE).
    pub deliveries: Vec<(SimTime, u64)>,
    /// The sender's retransmissions so far, at each delivery sample.
    pub retransmits: Vec<u64>,
    pub snap: Option<TcpSnap>,
}

impl InterRat {
    /// A downlink packet reaches the anchor: it waits in the anchor's buffer.
    fn anchor_downlink(&mut self, cx: &mut Cx<Timer>, pkt: Packet) {
        self.anchor_queue.push_back(pkt);
        self.anchor_stats.0 += 1;
        self.anchor_kick(cx);
    }

    /// If the anchor's access link is free, the head packet leaves the anchor.
    fn anchor_kick(&mut self, cx: &mut Cx<Timer>) {
        if self.anchor_busy {
            return;
        }
        let Some(pkt) = self.anchor_queue.pop_front() else { return };
        self.anchor_stats.1 += 1;
        self.anchor_busy = true;
        let done = cx.now() + tx_time_ns(pkt.size_bytes, self.access_bps[self.path]);
        cx.schedule(done, Timer::AnchorDone);
        self.anchor_send(cx, pkt);
    }

    /// A downlink packet leaves the anchor: on the current path, and while bicasting a copy
    /// to the target.
    fn anchor_send(&mut self, cx: &mut Cx<Timer>, pkt: Packet) {
        let path = self.path;
        if path == SOURCE && self.record_uids {
            self.uids.to_source.push(pkt.uid);
            if !self.bicasting && self.attached.contains(SOURCE) {
                self.uids.to_source_before_bicast.push(pkt.uid);
            }
        }
        if self.bicasting && path == SOURCE {
            let base = cx.new_packet(pkt.flow, pkt.src, pkt.dst, pkt.kind);
            let mut copy = pkt;
            copy.uid = base.uid;
            self.bicast_originals.insert(pkt.uid);
            self.counts.bicast_copies += 1;
            cx.enqueue(self.to_ran[TARGET], copy);
        }
        cx.enqueue(self.to_ran[path], pkt);
    }

    /// A downlink packet reached RAN `r`.
    fn ran_downlink(&mut self, cx: &mut Cx<Timer>, r: usize, pkt: Packet) {
        if r == TARGET && self.in_forwarding.remove(&pkt.uid) {
            self.rans[r].buffer.push_forwarded(pkt);
            self.kick(cx, r);
            return;
        }
        if self.attached.contains(r) {
            if !self.rans[r].buffer.push_fresh(pkt, true) {
                self.counts.ran_buffer_drops += 1;
                cx.counters_mut().dropped_queue += 1;
            }
            self.kick(cx, r);
            return;
        }
        if r == SOURCE {
            self.left_in_source(cx, pkt);
        } else {
            // The target buffers until the UE arrives.
            self.rans[r].buffer.push_fresh(pkt, false);
        }
    }

    /// A packet for the UE is in the source RAN after the UE left: forwarded or lost.
    fn left_in_source(&mut self, cx: &mut Cx<Timer>, pkt: Packet) {
        match self.cfg.scheme {
            Scheme::Forwarding => {
                self.counts.forwarded += 1;
                if self.record_uids {
                    self.uids.forwarded.push(pkt.uid);
                }
                self.in_forwarding.insert(pkt.uid);
                cx.enqueue(self.forward_link, pkt);
            }
            Scheme::Bicasting | Scheme::None => {
                cx.counters_mut().dropped_handover += 1;
                if self.bicast_originals.contains(&pkt.uid) {
                    // Its bicast copy reaches the UE from the target.
                    self.counts.dropped_with_copy += 1;
                    return;
                }
                self.counts.lost_in_source += 1;
                if self.record_uids {
                    self.uids.lost.push(pkt.uid);
                }
            }
        }
    }

    /// If RAN `r`'s radio is idle and the UE is attached there, sends the head packet:
    /// forwarded data first (strict priority), then new data.
    fn kick(&mut self, cx: &mut Cx<Timer>, r: usize) {
        if self.rans[r].radio.busy || !self.attached.contains(r) {
            return;
        }
        let Some((pkt, forwarded)) = self.rans[r].buffer.pop() else { return };
        if self.record_uids {
            if r == SOURCE {
                self.uids.source_radio.push(pkt.uid);
            } else {
                self.uids.target_radio.push((pkt.uid, forwarded));
            }
        }
        if r == SOURCE && self.bicast_originals.contains(&pkt.uid) {
            self.counts.duplicated += 1;
            if self.record_uids {
                self.uids.duplicated.push(pkt.uid);
            }
        }
        let node = &mut self.rans[r];
        node.radio.transmit(cx, r, node.radio_link, node.rate_bps, pkt);
    }

    fn bicast_start(&mut self, cx: &mut Cx<Timer>) {
        self.bicasting = true;
        self.take_snap(cx);
    }

    fn take_snap(&mut self, cx: &mut Cx<Timer>) {
        if self.snap.is_none() {
            self.snap = Some(TcpSnap::of(&cx.flows()[self.flow as usize]));
        }
    }

    /// The HO command: the UE leaves the source, which forwards or drops what it holds.
    fn detach(&mut self, cx: &mut Cx<Timer>) {
        self.take_snap(cx);
        self.attached.clear();
        for pkt in self.rans[SOURCE].buffer.drain() {
            self.left_in_source(cx, pkt);
        }
    }

    /// The anchor switches the path, bicasting ends, the UE is served by the target and its
    /// uplink goes there.
    fn switch(&mut self, cx: &mut Cx<Timer>) {
        self.path = TARGET;
        self.bicasting = false;
        self.attached.clear();
        self.attached.attach(TARGET);
        ran::route_uplink(cx, self.ue, self.rans[TARGET].uplink);
        self.kick(cx, TARGET);
    }

    fn sample(&mut self, cx: &mut Cx<Timer>) {
        let now = cx.now();
        let f = &cx.flows()[self.flow as usize];
        self.deliveries.push((now, f.delivered_bytes));
        self.retransmits.push(f.sender.stats.retransmits);
        if now + self.cfg.sample_ns <= cx.end_ns() {
            cx.schedule(now + self.cfg.sample_ns, Timer::Sample);
        }
    }
}

impl Agent for InterRat {
    type Timer = Timer;

    /// Every packet reaching the anchor or a RAN node.
    fn on_packet(&mut self, cx: &mut Cx<Timer>, n: NodeId, pkt: Packet) {
        let downlink = pkt.dst == self.ue;
        if n == self.anchor {
            if downlink {
                return self.anchor_downlink(cx, pkt);
            }
            return cx.forward(n, pkt);
        }
        let r = self.rans.iter().position(|r| r.node == n).expect("the agent owns the anchor and the RANs");
        if downlink {
            self.ran_downlink(cx, r, pkt);
        } else {
            cx.forward(n, pkt);
        }
    }

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        match timer {
            Timer::Ran(ran::Timer::RadioDone { cell }) => {
                self.rans[cell].radio.done();
                self.kick(cx, cell);
            }
            Timer::Ran(ran::Timer::RadioVarDone { .. }) => unreachable!("inter-RAT radios send at fixed rates"),
            // Access nodes have one radio each, never private ones: not scheduled here.
            Timer::Ran(ran::Timer::PrivateRadioDone { .. }) => {}
            Timer::BicastStart => self.bicast_start(cx),
            Timer::Detach => self.detach(cx),
            Timer::Switch => self.switch(cx),
            Timer::Sample => self.sample(cx),
            Timer::AnchorDone => {
                self.anchor_busy = false;
                self.anchor_kick(cx);
            }
        }
    }

    fn held_packets(&self) -> u64 {
        self.rans.iter().map(|r| r.held()).sum::<u64>() + self.anchor_queue.len() as u64
    }

    /// Each RAN's buffers hold what entered them minus what left.
    fn check(&self) -> Vec<String> {
        let (into, out) = self.anchor_stats;
        let anchor = (into != out + self.anchor_queue.len() as u64)
            .then(|| format!("anchor: buffered {into} != left {out} + held {}", self.anchor_queue.len()));
        self.rans
            .iter()
            .filter(|r| r.buffer.stats.buffered != r.buffer.stats.unbuffered + r.held())
            .map(|r| {
                format!(
                    "RAN {}: buffered {} != left {} + held {}",
                    r.name,
                    r.buffer.stats.buffered,
                    r.buffer.stats.unbuffered,
                    r.held()
                )
            })
            .chain(anchor)
            .collect()
    }

    fn report(&self, world: &World) -> Report {
        self.summary(world)
    }
}

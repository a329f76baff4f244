//! LTE intra-system handover over X2 with data forwarding through the core router
//! (Pacifico et al., "Improving TCP Performance During the Intra LTE Handover"):
//!
//! - `gtp.rs`: GTP-U tunnels, S-GW -> eNodeB and source -> target eNodeB, and the ECN rule at
//!   the tunnel end (the paper's Fig. 7);
//! - `enb.rs`: eNodeBs with per-UE queues and a WFQ / round-robin radio scheduler;
//! - `handover.rs`: the Fig. 2 procedure with the three path-switch variants (standard,
//!   fast, predicted) and the per-handover outcome;
//! - `config.rs`, `template.rs`, `report.rs`: the `[lte_x2]` section, the Fig. 1 graph and
//!   installing the agent, and the summary entries.
//!
//! One agent, [`LteX2`], owns the serving gateway and the eNodeBs: every packet they receive
//! is handed to it. UEs are plain hosts whose downlink radio links are fed by their eNodeB's
//! scheduler and whose uplink route follows the cell they are attached to.

mod config;
pub mod enb;
pub mod gtp;
pub mod handover;
mod report;
mod template;

pub use config::{LteX2Section, PathSwitchName, RouterQueueName, SchedulerName};
pub use report::{EnbEntry, HandoverEntry, LteX2Entry, UeQueueEntry};
pub use template::{expand, install, PRESET, TEMPLATE};

use crate::engine::rng::Rng;
use crate::engine::time::{tx_time_ns, SimTime};
use crate::net::packet::Packet;
use crate::net::queue::Verdict;
use crate::net::{FlowId, LinkId, NodeId};
use crate::sim::{Agent, Cx, Report, World};
use enb::Enb;
use gtp::Decap;
use handover::{Handover, Step};

/// When the S-GW is told to switch the downlink path to the target eNodeB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSwitch {
    /// Fig. 2: the target sends the path switch request once the UE confirms the handover.
    Standard,
    /// Fig. 5: the path switch request goes out together with the handover command.
    Fast,
    /// Fig. 6: the path switch request goes out a prediction lead before the handover command.
    Predicted,
}

impl PathSwitch {
    pub fn name(self) -> &'static str {
        match self {
            PathSwitch::Standard => "standard",
            PathSwitch::Fast => "fast",
            PathSwitch::Predicted => "predicted",
        }
    }
}

#[derive(Clone, Debug)]
pub struct LteConfig {
    pub path_switch: PathSwitch,
    /// One-way latency of an X2 control message (HO request, HO request ack, SN status).
    pub x2_latency_ns: SimTime,
    /// From a path switch request leaving the eNodeB to the S-GW switching the path (via MME).
    pub path_switch_latency_ns: SimTime,
    /// Time the UE is attached to no cell (hard handover interruption).
    pub detach_ns: SimTime,
    /// Predicted variant: how long before the (predicted) HO command the path switch is sent.
    pub prediction_lead_ns: SimTime,
    /// The target delivers forwarded packets before direct ones until the end marker.
    pub reordering: bool,
    /// The target waits at most this long for the end marker once it holds direct packets
    /// of an attached UE.
    pub reorder_timeout_ns: SimTime,
    /// Tunnel entries mark outer headers ECN-capable, so the router's RED may mark them.
    pub outer_ect: bool,
    /// Tunnel ends copy an outer CE into an ECN-capable inner header (else drop the packet).
    pub ecn_through_tunnel: bool,
}

pub struct Ue {
    pub node: NodeId,
    pub name: String,
    /// The UE's download flow, if any (the reference UE's is measured).
    pub flow: Option<FlowId>,
    /// The eNodeB the UE is attached to; None while detached.
    pub attached: Option<usize>,
    /// The eNodeB the S-GW tunnels the UE's downlink to.
    pub path: usize,
    /// Uplink radio link to each eNodeB the UE can attach to.
    pub uplinks: Vec<Option<LinkId>>,
}

/// The LTE system: the agent that owns the S-GW and the eNodeBs.
pub struct LteX2 {
    pub cfg: LteConfig,
    pub sgw: NodeId,
    pub enbs: Vec<Enb>,
    pub ues: Vec<Ue>,
    /// UE index by node id.
    pub ue_of_node: Vec<Option<usize>>,
    pub handovers: Vec<Handover>,
    /// User packets the S-GW tunnelled to each eNodeB.
    pub sgw_tunnelled: Vec<u64>,
}

/// What an LTE timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    /// The eNodeB's radio finished sending a packet.
    RadioSlotDone { enb: u8 },
    /// A step of handover `ho`'s procedure (see `handover.rs`).
    Handover { ho: u16, step: Step },
}

impl Timer {
    /// Handover steps are tagged above this bit; radio slots below it.
    const HANDOVER: u64 = 1 << 32;

    fn tag(self) -> u64 {
        match self {
            Timer::RadioSlotDone { enb } => enb as u64,
            Timer::Handover { ho, step } => Self::HANDOVER | (ho as u64) << 8 | step.index() as u64,
        }
    }

    fn of(tag: u64) -> Timer {
        if tag & Self::HANDOVER == 0 {
            return Timer::RadioSlotDone { enb: tag as u8 };
        }
        Timer::Handover { ho: (tag >> 8) as u16, step: Step::from_index((tag & 0xff) as u8) }
    }
}

impl LteX2 {
    pub fn ue_at(&self, node: NodeId) -> Option<usize> {
        self.ue_of_node.get(node as usize).copied().flatten()
    }

    /// Downlink user packets enter the GTP-U tunnel towards the UE's current path; anything
    /// else (uplink towards the servers) is routed as usual.
    fn sgw_receive(&mut self, cx: &mut Cx, n: NodeId, mut pkt: Packet) {
        if pkt.tunnel.is_none() {
            if let Some(u) = self.ue_at(pkt.dst) {
                let path = self.ues[u].path;
                self.sgw_tunnelled[path] += 1;
                gtp::encapsulate(&mut pkt, n, self.enbs[path].node, gtp::s1u_teid(path, u), self.cfg.outer_ect);
            }
        }
        cx.forward(n, pkt);
    }

    fn enb_receive(&mut self, cx: &mut Cx, e: usize, mut pkt: Packet) {
        let me = self.enbs[e].node;
        let Some(t) = pkt.tunnel else {
            self.enb_uplink(cx, e, pkt);
            return;
        };
        if pkt.dst != me {
            cx.forward(me, pkt);
            return;
        }
        let from_sgw = pkt.src == self.sgw;
        let Some(u) = self.ue_at(t.inner_dst) else {
            cx.counters_mut().dropped_unroutable += 1;
            return;
        };
        match gtp::decapsulate(&mut pkt, self.cfg.ecn_through_tunnel) {
            Decap::Deliver => {}
            Decap::DeliverMarked => self.enbs[e].stats.tunnel_ce_copied += 1,
            Decap::DropMarked => {
                self.enbs[e].stats.tunnel_ce_drops += 1;
                cx.counters_mut().dropped_queue += 1;
                return;
            }
        }
        if t.end_marker {
            self.on_end_marker(cx, e, u, pkt);
        } else {
            self.enb_downlink(cx, e, u, pkt, from_sgw);
        }
    }

    /// An uplink packet from a UE: sent on towards the core, or held while the UE is still
    /// attaching to this eNodeB. (Packets the UE sent to its source before the HO command go on.)
    fn enb_uplink(&mut self, cx: &mut Cx, e: usize, pkt: Packet) {
        let me = self.enbs[e].node;
        if let Some(u) = self.ue_at(pkt.src) {
            let attaching_here = self.handovers.iter().any(|h| h.ue == u && h.target == e);
            if self.ues[u].attached.is_none() && attaching_here {
                let enb = &mut self.enbs[e];
                enb.held_uplink.push_back(pkt);
                enb.stats.buffered += 1;
                return;
            }
        }
        cx.forward(me, pkt);
    }

    /// A user packet for UE `u` came out of a tunnel at eNodeB `e`.
    fn enb_downlink(&mut self, cx: &mut Cx, e: usize, u: usize, pkt: Packet, from_sgw: bool) {
        if let Some(h) = self.handover_of(u) {
            let ho = &self.handovers[h];
            if ho.source == e && ho.forwarding {
                self.forward_to_target(cx, h, pkt);
                return;
            }
            if ho.target == e && ho.reorder_wait && from_sgw {
                self.handovers[h].held_direct_packets += 1;
                if self.handovers[h].held_direct_packets == 1 && self.ues[u].attached == Some(e) {
                    self.arm_reorder_timer(cx, h);
                }
                let now = cx.now();
                let enb = &mut self.enbs[e];
                if !enb_buffer(&mut enb.held_direct[u], &mut enb.store, &mut enb.stats, now, pkt, cx.rng()) {
                    cx.counters_mut().dropped_queue += 1;
                }
                return;
            }
        }
        self.enb_enqueue(cx, e, u, pkt);
        self.enb_kick(cx, e);
    }

    /// Puts a packet in UE `u`'s downlink queue at eNodeB `e`, counting a drop if it is full.
    fn enb_enqueue(&mut self, cx: &mut Cx, e: usize, u: usize, pkt: Packet) {
        let now = cx.now();
        let enb = &mut self.enbs[e];
        if !enb_buffer(&mut enb.queues[u], &mut enb.store, &mut enb.stats, now, pkt, cx.rng()) {
            cx.counters_mut().dropped_queue += 1;
        }
    }

    /// If the radio is idle, the scheduler picks an attached UE with queued packets and sends
    /// its head packet on that UE's radio link; the radio stays busy for the packet's
    /// transmission time.
    fn enb_kick(&mut self, cx: &mut Cx, e: usize) {
        let now = cx.now();
        let enb = &mut self.enbs[e];
        if enb.busy {
            return;
        }
        let ues = &self.ues;
        let (queues, store) = (&enb.queues, &enb.store);
        let pick = enb.scheduler.pick(|u| {
            if ues[u].attached == Some(e) {
                queues[u].iter(store).next().map(|p| p.size_bytes)
            } else {
                None
            }
        });
        let Some(u) = pick else { return };
        let pkt = enb.queues[u].dequeue(now, &mut enb.store).expect("the scheduler picks a backlogged UE");
        let link = enb.downlinks[u].expect("an attached UE has a radio link");
        enb.stats.unbuffered += 1;
        enb.stats.radio_packets += 1;
        enb.busy = true;
        let rate = cx.links()[link as usize].rate_bps;
        cx.schedule(now + tx_time_ns(pkt.size_bytes, rate), Timer::RadioSlotDone { enb: e as u8 }.tag());
        cx.enqueue(link, pkt);
    }

    fn handover_of(&self, u: usize) -> Option<usize> {
        self.handovers.iter().position(|h| h.ue == u)
    }
}

impl Agent for LteX2 {
    /// Every packet that reaches the S-GW or an eNodeB.
    fn on_packet(&mut self, cx: &mut Cx, n: NodeId, pkt: Packet) {
        if n == self.sgw {
            return self.sgw_receive(cx, n, pkt);
        }
        let e = self.enbs.iter().position(|e| e.node == n).expect("the LTE agent owns only the S-GW and eNodeBs");
        self.enb_receive(cx, e, pkt);
    }

    fn on_timer(&mut self, cx: &mut Cx, tag: u64) {
        match Timer::of(tag) {
            Timer::RadioSlotDone { enb } => {
                self.enbs[enb as usize].busy = false;
                self.enb_kick(cx, enb as usize);
            }
            Timer::Handover { ho, step } => self.on_handover_step(cx, ho as usize, step),
        }
    }

    /// Packets held in eNodeB buffers.
    fn held_packets(&self) -> u64 {
        self.enbs.iter().map(|e| e.held()).sum()
    }

    /// Each eNodeB's buffers hold what entered them minus what left.
    fn check(&self) -> Vec<String> {
        let mut bad = Vec::new();
        for e in &self.enbs {
            let held = e.held();
            if e.stats.buffered != e.stats.unbuffered + held {
                bad.push(format!(
                    "eNodeB {}: buffered {} != left {} + held {}",
                    e.name, e.stats.buffered, e.stats.unbuffered, held
                ));
            }
            let queued: usize = e.queues.iter().chain(&e.held_direct).map(|q| q.len_pkts() as usize).sum();
            if e.store.in_use() != queued {
                bad.push(format!("eNodeB {}: {} packets stored, {} queued", e.name, e.store.in_use(), queued));
            }
        }
        bad
    }

    fn report(&self, world: &World) -> Report {
        self.summary(world)
    }
}

/// Offers a packet to one of an eNodeB's DropTail buffers. Returns whether it was accepted.
fn enb_buffer(
    q: &mut crate::net::Queue,
    store: &mut crate::net::PacketStore,
    stats: &mut enb::EnbStats,
    now: SimTime,
    pkt: Packet,
    rng: &mut Rng,
) -> bool {
    match q.enqueue(now, pkt, rng, store) {
        Verdict::Queued | Verdict::Marked => {
            stats.buffered += 1;
            true
        }
        Verdict::DroppedFull | Verdict::DroppedEarly => {
            stats.queue_drops += 1;
            false
        }
    }
}

//! LTE intra-system handover over X2 with data forwarding through the core router
//! (Pacifico et al., "Improving TCP Performance During the Intra LTE Handover"):
//!
//! - `gtp.rs`: GTP-U tunnels, S-GW -> eNodeB and source -> target eNodeB, and the ECN rule at
//!   the tunnel end (the paper's Fig. 7);
//! - `enb.rs`: eNodeBs with per-UE queues and a WFQ / round-robin radio scheduler;
//! - `handover.rs`: the Fig. 2 procedure with the three path-switch variants (standard,
//!   fast, predicted) and the per-handover outcome.
//!
//! The serving gateway and the eNodeBs are graph nodes of kind [`NodeKind::Lte`]; the world
//! hands them every packet they receive ([`World::lte_receive`]). UEs are plain hosts whose
//! downlink radio links are fed by their eNodeB's scheduler and whose uplink route follows
//! the cell they are attached to.
//!
//! [`NodeKind::Lte`]: crate::net::NodeKind::Lte

pub mod enb;
pub mod gtp;
pub mod handover;

use serde_json::{json, Value};

use crate::cell::CellEvent;
use crate::engine::time::{ns_to_s, tx_time_ns, SimTime};
use crate::net::packet::Packet;
use crate::net::queue::Verdict;
use crate::net::{FlowId, LinkId, NodeId};
use crate::world::{Event, World};
use enb::Enb;
use gtp::Decap;
use handover::Handover;

/// The part an LTE node plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LteRole {
    /// The serving gateway: tunnels downlink user packets to the UE's serving eNodeB.
    Sgw,
    /// An eNodeB, by index into [`LteX2::enbs`].
    Enb(u8),
}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LteEvent {
    /// The eNodeB's radio finished sending a packet.
    RadioSlotDone { enb: u8 },
    /// A step of handover `ho`'s procedure (see `handover.rs`).
    Handover { ho: u16, step: handover::Step },
}

impl LteEvent {
    pub fn at(self) -> Event {
        Event::Cell(CellEvent::Lte(self))
    }
}

impl LteX2 {
    pub fn ue_at(&self, node: NodeId) -> Option<usize> {
        self.ue_of_node.get(node as usize).copied().flatten()
    }

    /// Packets held in eNodeB buffers: inside the network for the conservation invariant.
    pub fn packets_held(&self) -> u64 {
        self.enbs.iter().map(|e| e.held()).sum()
    }

    /// Each eNodeB's buffers hold what entered them minus what left.
    pub fn check_invariants(&self) -> Vec<String> {
        let mut bad = Vec::new();
        for e in &self.enbs {
            let held = e.held();
            if e.stats.buffered != e.stats.unbuffered + held {
                bad.push(format!(
                    "eNodeB {}: buffered {} != left {} + held {}",
                    e.name, e.stats.buffered, e.stats.unbuffered, held
                ));
            }
        }
        bad
    }

    /// The top-level `lte_x2` summary entry: per-eNodeB radio and tunnel counters and the
    /// per-UE queue statistics.
    pub fn report(&self, now: SimTime) -> Value {
        let enbs: Vec<Value> = self
            .enbs
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let queues: Vec<Value> = self
                    .ues
                    .iter()
                    .enumerate()
                    .filter(|(u, _)| e.downlinks[*u].is_some())
                    .map(|(u, ue)| {
                        let q = &e.queues[u];
                        json!({
                            "ue": ue.name,
                            "enqueued": q.stats.enqueued,
                            "dropped": q.stats.dropped,
                            "mean_len_pkts": q.mean_len_pkts(now),
                            "max_len_pkts": q.stats.max_len_pkts,
                        })
                    })
                    .collect();
                json!({
                    "name": e.name,
                    "sgw_tunnelled_packets": self.sgw_tunnelled[i],
                    "radio_bps": e.radio_bps,
                    "radio_packets": e.stats.radio_packets,
                    "queue_drops": e.stats.queue_drops,
                    "tunnel_ce_copied": e.stats.tunnel_ce_copied,
                    "tunnel_ce_drops": e.stats.tunnel_ce_drops,
                    "ue_queues": queues,
                })
            })
            .collect();
        json!({ "path_switch": self.cfg.path_switch.name(), "enbs": enbs })
    }
}

impl World {
    fn lte(&self) -> &LteX2 {
        self.lte.as_deref().expect("an LTE node exists only in an LTE system")
    }

    fn lte_mut(&mut self) -> &mut LteX2 {
        self.lte.as_deref_mut().expect("an LTE node exists only in an LTE system")
    }

    /// Every packet that reaches an S-GW or eNodeB node.
    pub(crate) fn lte_receive(&mut self, n: NodeId, role: LteRole, pkt: Packet) {
        match role {
            LteRole::Sgw => self.sgw_receive(n, pkt),
            LteRole::Enb(e) => self.enb_receive(e as usize, pkt),
        }
    }

    pub(crate) fn on_lte_event(&mut self, e: LteEvent) {
        match e {
            LteEvent::RadioSlotDone { enb } => {
                self.lte_mut().enbs[enb as usize].busy = false;
                self.enb_kick(enb as usize);
            }
            LteEvent::Handover { ho, step } => self.on_handover_step(ho as usize, step),
        }
    }

    /// Downlink user packets enter the GTP-U tunnel towards the UE's current path; anything
    /// else (uplink towards the servers) is routed as usual.
    fn sgw_receive(&mut self, n: NodeId, mut pkt: Packet) {
        let lte = self.lte_mut();
        if pkt.tunnel.is_none() {
            if let Some(u) = lte.ue_at(pkt.dst) {
                let path = lte.ues[u].path;
                lte.sgw_tunnelled[path] += 1;
                gtp::encapsulate(&mut pkt, n, lte.enbs[path].node, lte.cfg.outer_ect);
            }
        }
        self.forward(n, pkt);
    }

    fn enb_receive(&mut self, e: usize, mut pkt: Packet) {
        let lte = self.lte();
        let me = lte.enbs[e].node;
        let Some(t) = pkt.tunnel else {
            self.enb_uplink(e, pkt);
            return;
        };
        if pkt.dst != me {
            self.forward(me, pkt);
            return;
        }
        let from_sgw = pkt.src == lte.sgw;
        let Some(u) = lte.ue_at(t.inner_dst) else {
            self.counters.dropped_unroutable += 1;
            return;
        };
        match gtp::decapsulate(&mut pkt, lte.cfg.ecn_through_tunnel) {
            Decap::Deliver => {}
            Decap::DeliverMarked => self.lte_mut().enbs[e].stats.tunnel_ce_copied += 1,
            Decap::DropMarked => {
                self.lte_mut().enbs[e].stats.tunnel_ce_drops += 1;
                self.counters.dropped_queue += 1;
                return;
            }
        }
        if t.end_marker {
            self.on_end_marker(e, u, pkt);
        } else {
            self.enb_downlink(e, u, pkt, from_sgw);
        }
    }

    /// An uplink packet from a UE: sent on towards the core, or held while the UE is still
    /// attaching to this eNodeB. (Packets the UE sent to its source before the HO command go on.)
    fn enb_uplink(&mut self, e: usize, pkt: Packet) {
        let lte = self.lte_mut();
        let me = lte.enbs[e].node;
        if let Some(u) = lte.ue_at(pkt.src) {
            let attaching_here = lte.handovers.iter().any(|h| h.ue == u && h.target == e);
            if lte.ues[u].attached.is_none() && attaching_here {
                let enb = &mut lte.enbs[e];
                enb.held_uplink.push_back(pkt);
                enb.stats.buffered += 1;
                return;
            }
        }
        self.forward(me, pkt);
    }

    /// A user packet for UE `u` came out of a tunnel at eNodeB `e`.
    fn enb_downlink(&mut self, e: usize, u: usize, pkt: Packet, from_sgw: bool) {
        if let Some(h) = self.handover_of(u) {
            let ho = &self.lte().handovers[h];
            if ho.source == e && ho.forwarding {
                self.forward_to_target(h, pkt);
                return;
            }
            if ho.target == e && ho.reorder_wait && from_sgw {
                let lte = self.lte_mut();
                lte.handovers[h].held_direct_packets += 1;
                if lte.handovers[h].held_direct_packets == 1 && lte.ues[u].attached == Some(e) {
                    self.arm_reorder_timer(h);
                }
                let now = self.now;
                let enb = &mut self.lte.as_deref_mut().expect("lte").enbs[e];
                let accepted = enb_buffer(&mut enb.held_direct[u], &mut enb.stats, now, pkt, &mut self.rng);
                if !accepted {
                    self.counters.dropped_queue += 1;
                }
                return;
            }
        }
        self.enb_enqueue(e, u, pkt);
        self.enb_kick(e);
    }

    /// Puts a packet in UE `u`'s downlink queue at eNodeB `e`, counting a drop if it is full.
    pub(crate) fn enb_enqueue(&mut self, e: usize, u: usize, pkt: Packet) {
        let now = self.now;
        let enb = &mut self.lte.as_deref_mut().expect("lte").enbs[e];
        if !enb_buffer(&mut enb.queues[u], &mut enb.stats, now, pkt, &mut self.rng) {
            self.counters.dropped_queue += 1;
        }
    }

    /// If the radio is idle, the scheduler picks an attached UE with queued packets and sends
    /// its head packet on that UE's radio link; the radio stays busy for the packet's
    /// transmission time.
    pub(crate) fn enb_kick(&mut self, e: usize) {
        let now = self.now;
        let lte = self.lte.as_deref_mut().expect("lte");
        let enb = &mut lte.enbs[e];
        if enb.busy {
            return;
        }
        let ues = &lte.ues;
        let queues = &enb.queues;
        let pick = enb.scheduler.pick(|u| {
            if ues[u].attached == Some(e) {
                queues[u].iter().next().map(|p| p.size_bytes)
            } else {
                None
            }
        });
        let Some(u) = pick else { return };
        let pkt = enb.queues[u].dequeue(now).expect("the scheduler picks a backlogged UE");
        let link = enb.downlinks[u].expect("an attached UE has a radio link");
        enb.stats.unbuffered += 1;
        enb.stats.radio_packets += 1;
        enb.busy = true;
        let rate = self.links[link as usize].rate_bps;
        self.events.schedule(now + tx_time_ns(pkt.size_bytes, rate), LteEvent::RadioSlotDone { enb: e as u8 }.at());
        self.link_enqueue(link, pkt);
    }

    fn handover_of(&self, u: usize) -> Option<usize> {
        self.lte().handovers.iter().position(|h| h.ue == u)
    }
}

/// Offers a packet to one of an eNodeB's DropTail buffers. Returns whether it was accepted.
fn enb_buffer(
    q: &mut crate::net::Queue,
    stats: &mut enb::EnbStats,
    now: SimTime,
    pkt: Packet,
    rng: &mut crate::engine::rng::Rng,
) -> bool {
    match q.enqueue(now, pkt, rng) {
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

/// Seconds for a summary, or null.
pub(crate) fn opt_s(t: Option<SimTime>) -> Value {
    t.map_or(Value::Null, |t| json!(ns_to_s(t)))
}

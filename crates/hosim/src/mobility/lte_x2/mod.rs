//! LTE intra-system handover over X2 with data forwarding through the core router
//! (Pacifico et al., "Improving TCP Performance During the Intra LTE Handover"):
//!
//! - the RAN kit (`mobility/ran/`): the eNodeBs are its cells (per-UE queues, a WFQ /
//!   round-robin radio scheduler from `net/drr.rs`, the radio), the UEs its UEs, and its GTP-U tunnels carry
//!   S-GW -> eNodeB and source -> target eNodeB traffic, with the ECN rule at the tunnel end
//!   (the paper's Fig. 7);
//! - `handover.rs`: the Fig. 2 procedure with the three path-switch variants (standard,
//!   fast, predicted) and the per-handover outcome;
//! - `config.rs`, `template.rs`, `report.rs`: the `[lte_x2]` section, the Fig. 1 graph and
//!   installing the agent, and the summary entries.
//!
//! One agent, [`LteX2`], owns the serving gateway and the eNodeBs: every packet they receive
//! is handed to it. UEs are plain hosts whose downlink radio links are fed by their eNodeB's
//! scheduler and whose uplink route follows the cell they are attached to. A UE is attached
//! to one cell at a time here, or to none during the handover's interruption.

mod config;
pub mod handover;
mod report;
mod template;

pub use config::{LteX2Section, PathSwitchName, RouterQueueName, SchedulerName};
pub use report::{EnbEntry, HandoverEntry, LteX2Entry, UeQueueEntry};
pub use template::{expand, install, PRESET, TEMPLATE};

use crate::engine::time::SimTime;
use crate::mobility::ran::{self, gtp, gtp::Decap, Ran};
use crate::net::packet::Packet;
use crate::net::NodeId;
use crate::sim::{Agent, Cx, Report, World};
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

/// The LTE system: the agent that owns the S-GW and the eNodeBs.
pub struct LteX2 {
    pub cfg: LteConfig,
    pub sgw: NodeId,
    /// The eNodeBs (cells `senb`, `tenb`) and the UEs (the reference UE's flow is measured).
    pub ran: Ran,
    pub handovers: Vec<Handover>,
    /// User packets the S-GW tunnelled to each eNodeB.
    pub sgw_tunnelled: Vec<u64>,
}

/// What an LTE timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The RAN kit's: an eNodeB's radio finished sending a packet.
    Ran(ran::Timer),
    /// A step of handover `ho`'s procedure (see `handover.rs`).
    Handover { ho: usize, step: Step },
}

impl From<ran::Timer> for Timer {
    fn from(t: ran::Timer) -> Timer {
        Timer::Ran(t)
    }
}

impl LteX2 {
    /// Downlink user packets enter the GTP-U tunnel towards the UE's current path; anything
    /// else (uplink towards the servers) is routed as usual.
    fn sgw_receive(&mut self, cx: &mut Cx<Timer>, n: NodeId, mut pkt: Packet) {
        if pkt.tunnel.is_none() {
            if let Some(u) = self.ran.ue_at(pkt.dst) {
                let path = self.ran.ues[u].path;
                self.sgw_tunnelled[path] += 1;
                gtp::encapsulate(&mut pkt, n, self.ran.cells[path].node, gtp::s1u_teid(path, u), self.cfg.outer_ect);
            }
        }
        cx.forward(n, pkt);
    }

    fn enb_receive(&mut self, cx: &mut Cx<Timer>, e: usize, mut pkt: Packet) {
        let me = self.ran.cells[e].node;
        let Some(t) = pkt.tunnel else {
            self.enb_uplink(cx, e, pkt);
            return;
        };
        if pkt.dst != me {
            cx.forward(me, pkt);
            return;
        }
        let from_sgw = pkt.src == self.sgw;
        let Some(u) = self.ran.ue_at(t.inner_dst) else {
            cx.counters_mut().dropped_unroutable += 1;
            return;
        };
        match gtp::decapsulate(&mut pkt, self.cfg.ecn_through_tunnel) {
            Decap::Deliver => {}
            Decap::DeliverMarked => self.ran.cells[e].tunnel.ce_copied += 1,
            Decap::DropMarked => {
                self.ran.cells[e].tunnel.ce_drops += 1;
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
    fn enb_uplink(&mut self, cx: &mut Cx<Timer>, e: usize, pkt: Packet) {
        let me = self.ran.cells[e].node;
        if let Some(u) = self.ran.ue_at(pkt.src) {
            let attaching_here = self.handovers.iter().any(|h| h.ue == u && h.target == e);
            if self.ran.ues[u].cells.is_empty() && attaching_here {
                self.ran.cells[e].buffers.hold_uplink(pkt);
                return;
            }
        }
        cx.forward(me, pkt);
    }

    /// A user packet for UE `u` came out of a tunnel at eNodeB `e`.
    fn enb_downlink(&mut self, cx: &mut Cx<Timer>, e: usize, u: usize, pkt: Packet, from_sgw: bool) {
        if let Some(h) = self.handover_of(u) {
            let ho = &self.handovers[h];
            if ho.source == e && ho.forwarding {
                self.forward_to_target(cx, h, pkt);
                return;
            }
            if ho.target == e && ho.reorder_wait && from_sgw {
                self.handovers[h].held_direct_packets += 1;
                if self.handovers[h].held_direct_packets == 1 && self.ran.ues[u].cells.contains(e) {
                    self.arm_reorder_timer(cx, h);
                }
                let now = cx.now();
                if !self.ran.cells[e].buffers.hold(u, now, pkt, cx.rng()) {
                    cx.counters_mut().dropped_queue += 1;
                }
                return;
            }
        }
        self.enb_enqueue(cx, e, u, pkt);
        self.ran.serve(cx, e);
    }

    /// Puts a packet in UE `u`'s downlink queue at eNodeB `e`, counting a drop if it is full.
    fn enb_enqueue(&mut self, cx: &mut Cx<Timer>, e: usize, u: usize, pkt: Packet) {
        let now = cx.now();
        if !self.ran.cells[e].buffers.offer(u, now, pkt, cx.rng()) {
            cx.counters_mut().dropped_queue += 1;
        }
    }

    fn handover_of(&self, u: usize) -> Option<usize> {
        self.handovers.iter().position(|h| h.ue == u)
    }
}

impl Agent for LteX2 {
    type Timer = Timer;

    /// Every packet that reaches the S-GW or an eNodeB.
    fn on_packet(&mut self, cx: &mut Cx<Timer>, n: NodeId, pkt: Packet) {
        if n == self.sgw {
            return self.sgw_receive(cx, n, pkt);
        }
        let e = self.ran.cell_at(n).expect("the LTE agent owns only the S-GW and eNodeBs");
        self.enb_receive(cx, e, pkt);
    }

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        match timer {
            Timer::Ran(t) => self.ran.on_timer(cx, t),
            Timer::Handover { ho, step } => self.on_handover_step(cx, ho, step),
        }
    }

    /// Packets held in eNodeB buffers.
    fn held_packets(&self) -> u64 {
        self.ran.held_packets()
    }

    /// Each eNodeB's buffers hold what entered them minus what left.
    fn check(&self) -> Vec<String> {
        self.ran.check()
    }

    fn report(&self, world: &World) -> Report {
        self.summary(world)
    }
}

//! The `cellular` template's network: N cells in a line or a grid, M UEs moving among them,
//! and the handover schemes side by side in one key (issue 37).
//!
//! - the RAN kit (`mobility/ran/`): the cells (buffers per UE or shared, in packets or bytes;
//!   a WFQ or round-robin scheduler; the radio), the UEs and their cell sets, GTP-U tunnels
//!   gateway -> cell (S1) and cell -> cell (X2/Xn forwarding);
//! - `pdcp.rs`: the UE's PDCP receive side (TS 38.323 §5.2.2): sequence numbers, reordering
//!   with t-Reordering, duplicate discard;
//! - `handover.rs`: what starts a handover (a schedule; movement with an A3-like rule on
//!   distance) and the procedure of each scheme (`drop`, `forward`, `forward-via-core`,
//!   `rearrange`, `fast-path-switch`, `predicted`, `bicast`, `daps`); `cho.rs`: conditional
//!   handover (TS 38.300 §9.2.3.4) and its radio link failure path; `end_marker.rs`: the
//!   target's reordering until the GTP-U end marker;
//! - `movement.rs`: movement off the line (a grid, random waypoint) with decisions by
//!   measurement, and movement from a trace of (time, UE, cell); `rates.rs`: a cell's capacity
//!   from a rate process or trace, a UE's radio rate from a trace;
//! - `config.rs`, `template.rs`, `report.rs`: the `[cellular]` section, the graph, the agent's
//!   installation, and the per-handover and per-cell summary entries.
//!
//! One agent, [`Cellular`], owns the gateway, the cells and the UEs. The gateway gives each
//! downlink packet the next PDCP sequence number of its UE's bearer and tunnels it to the
//! UE's path cell. Numbering at the gateway stands for the source's numbering continued by
//! the target after the SN status transfer (TS 38.300 §9.2.3.2.1): SNs run on unbroken
//! across a handover. Packets reaching a UE node pass its PDCP, which hands them to the UE's
//! TCP in SN order (or on arrival, with `pdcp_out_of_order_delivery`). Every scheme keeps
//! reordering at the UE; with `target_reordering` (on for
//! `rearrange`) the target also holds direct packets back until the end marker, as `lte_x2`'s
//! eNodeB does.
//!
//! The inter-RAT contribution's system is a `cellular` network too (issue 37 §3): cells of
//! their own rates (`cell_bps`, `uplink_bps`, `s1_bps` as lists), the gateway's per-UE buffer
//! above its path switch and bicasting point (`gateway_buffer = "per-ue"`), forwarded data
//! before new data at the target (`forwarded_first`), the uplink through the source until the
//! attach (`uplink_switch = "attach"`) and bicast copies passed on to TCP
//! (`pdcp_discard_duplicates = false`).

mod cho;
mod config;
mod end_marker;
pub mod handover;
mod movement;
pub mod pdcp;
mod rates;
mod report;
mod template;

pub use config::{
    BufferSharing, CellPositions, CellularSection, ChoForwarding, ForwardingPath, GatewayBuffer, Layout, Movement,
    PerCell, Radios, ReorderRelease, ScheduledHandover, SchedulerName, SchemeName, UplinkSwitch,
};
pub use movement::{parse_trace, TraceRow, Walk, WALK_STREAM};
pub use rates::Rates;
pub use report::{CellEntry, CellularEntry, HandoverEntry};
pub use template::{expand, install, HIGHWAY_PRESET, PRESET, TEMPLATE};

use std::collections::{HashMap, VecDeque};

use crate::engine::time::{tx_time_ns, SimTime};
use crate::mobility::ran::{self, gtp, Ran};
use crate::net::packet::Packet;
use crate::net::{FlowId, NodeId};
use crate::sim::{Agent, Cx, Report, World};
use handover::{Handover, Step};
use pdcp::PdcpRx;

/// The scenario's values the agent uses, in its units.
#[derive(Clone, Debug)]
pub struct Params {
    pub scheme: SchemeName,
    /// One-way X2/Xn latency of a control message (the HO request and its ack).
    pub x2_delay_ns: SimTime,
    pub interruption_ns: SimTime,
    pub path_switch_delay_ns: SimTime,
    pub target_access_delay_ns: SimTime,
    pub source_release_delay_ns: SimTime,
    pub t_reordering_ns: SimTime,
    pub hysteresis_m: f64,
    pub time_to_trigger_ns: SimTime,
    pub cell_x_m: Vec<f64>,
    /// Cells in the plane; decisions by measurement off the line (a grid, random waypoint).
    pub cell_xy_m: Vec<(f64, f64)>,
    pub two_d: bool,
    pub measure_period_ns: SimTime,
    /// The target holds direct packets until the end marker (or its timeout).
    pub target_reordering: bool,
    pub end_marker: bool,
    /// `reorder_release = "path-empty"`: the target releases once the old path is empty.
    pub release_on_empty: bool,
    /// `end_marker = true`: sent at every path switch, whether the target reorders or not.
    pub end_marker_always: bool,
    pub reorder_timeout_ns: SimTime,
    pub prediction_lead_ns: SimTime,
    pub bicast_lead_ns: SimTime,
    /// Forwarded packets go through the gateway (`forwarding_path = "core"`), not over X2.
    pub via_core: bool,
    pub cho_candidates: usize,
    pub cho_prepare_offset_m: f64,
    pub cho_early: bool,
    pub rlf_offset_m: Option<f64>,
    pub rlf_interruption_ns: SimTime,
    /// Radio rate by distance (`[distance_m, bps]` rows; empty: fixed) and its update period.
    pub radio_rate_table: Vec<[f64; 2]>,
    pub rate_update_ns: SimTime,
    /// Tunnels add their outer header's bytes (`gtp_header`).
    pub gtp_header: bool,
    /// Tunnel entries declare outer headers ECN-capable (RED marks them).
    pub outer_ect: bool,
    /// Tunnel ends copy CE into ECN-capable inner headers (else drop a marked packet).
    pub ecn_through_tunnel: bool,
    /// `gateway_buffer = "per-ue"`: the gateway releases each UE's downlink at the S1 rate
    /// of its path cell, from a buffer above the path switch.
    pub gateway_buffer: bool,
    /// Each cell's S1 rate.
    pub s1_bps: Vec<u64>,
    /// Cells serve forwarded packets before the others (`forwarded_first`).
    pub forwarded_first: bool,
    /// Hard handovers move the UE's uplink at the attach, not at the command.
    pub uplink_at_attach: bool,
    /// The UE's PDCP discards a copy of a packet it has had (else the copy goes on to TCP).
    pub pdcp_discard_duplicates: bool,
}

/// A UE's straight-line movement: x(t) = x0 + speed * t.
#[derive(Clone, Copy, Debug)]
pub struct Motion {
    pub x0_m: f64,
    pub speed_mps: f64,
}

/// What a timer of the cellular agent is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The RAN kit's: a cell's radio finished sending a packet.
    Ran(ran::Timer),
    /// The source decides to hand UE `ue` over to `target` (a scheduled handover).
    Scheduled { ue: usize, target: usize },
    /// The next handover of ping-pong schedule `entry` (an entry with `every_s`).
    PingPong { entry: usize },
    /// UE `ue` looks for the next neighbour its movement will make better than its cell.
    Measure { ue: usize },
    /// Off the line: UE `ue` measures its distances to the cells.
    Measure2d { ue: usize },
    /// Cell `cell`'s capacity process or trace moves on to its next segment.
    CellRate { cell: usize },
    /// UE `ue`'s rate trace moves on to its next segment.
    UeRate { ue: usize },
    /// The A3-like condition for `target` has held for the time to trigger (if `source`
    /// still serves the UE and no handover runs, the handover starts; `cho`: the UE executes).
    Triggered { ue: usize, source: usize, target: usize },
    /// `cho`: the prepare condition holds for a neighbour of `source`.
    ChoPrepare { ue: usize, source: usize },
    /// `cho`: the radio link to `source` fails, unless the UE has left it.
    RadioLinkFailure { ue: usize, source: usize },
    /// A step of handover `ho`'s procedure.
    Handover { ho: usize, step: Step },
    /// The radio rates follow the UEs' distances to the cells.
    RadioRates,
    /// UE `ue`'s PDCP t-Reordering, started as `generation`, expired.
    Reordering { ue: usize, generation: u64 },
    /// `gateway_buffer = "per-ue"`: the gateway has handed UE `ue`'s packet to its S1 link.
    GatewayDone { ue: usize },
}

impl From<ran::Timer> for Timer {
    fn from(t: ran::Timer) -> Timer {
        Timer::Ran(t)
    }
}

/// A UE's handover state as the cells see it.
#[derive(Clone, Copy, Debug, Default)]
pub struct UeState {
    /// The cell that serves (or, after a HO command, is about to serve) the UE.
    pub serving: usize,
    /// During a DAPS handover: the source, still serving the UE until its release.
    pub daps_source: Option<usize>,
    /// The handover under way, if any.
    pub active: Option<usize>,
    /// The UE's latest handover.
    pub last: Option<usize>,
}

/// The cellular network: the agent that owns the gateway, the cells and the UEs.
pub struct Cellular {
    pub p: Params,
    pub gw: NodeId,
    pub ran: Ran,
    pub ue_flows: Vec<Vec<FlowId>>,
    pub motion: Vec<Motion>,
    pub state: Vec<UeState>,
    pub handovers: Vec<Handover>,
    /// Each UE's PDCP receiver, and the next SN its bearer gives.
    pub pdcp: Vec<PdcpRx<Packet>>,
    next_sn: Vec<u64>,
    /// The PDCP SN of each downlink packet (and copy) on its way, by packet uid: a look-up
    /// for every packet, so a fast fixed hash (foldhash) rather than SipHash. Never iterated,
    /// so the hash changes no result.
    sn_of: HashMap<u64, u64, foldhash::fast::FixedState>,
    /// User packets the gateway tunnelled to each cell.
    pub gw_tunnelled: Vec<u64>,
    /// Random waypoint: each UE's walk (empty otherwise).
    pub walks: Vec<Walk>,
    /// Off the line: since when each cell has met the A3-like condition, per UE.
    pub a3_since: Vec<Vec<Option<SimTime>>>,
    /// Variable radio rates (a capacity process or trace, UE rate traces), if any.
    pub rates: Option<Rates>,
    /// The ping-pong schedules.
    pub ping_pong: Vec<handover::PingPong>,
    /// `gateway_buffer = "per-ue"`: each UE's downlink waiting at the gateway, whether a
    /// packet of it is being handed to S1, and the packets that entered and left the buffers.
    pub gw_queues: Vec<VecDeque<Packet>>,
    gw_busy: Vec<bool>,
    gw_stats: (u64, u64),
}

impl Cellular {
    pub fn new(
        p: Params,
        gw: NodeId,
        ran: Ran,
        ue_flows: Vec<Vec<FlowId>>,
        motion: Vec<Motion>,
        pdcp_out_of_order: bool,
    ) -> Cellular {
        let n = ran.ues.len();
        let state = ran.ues.iter().map(|ue| UeState { serving: ue.path, ..UeState::default() }).collect();
        let gw_tunnelled = vec![0; ran.cells.len()];
        Cellular {
            p,
            gw,
            ran,
            ue_flows,
            motion,
            state,
            handovers: Vec::new(),
            pdcp: (0..n).map(|_| PdcpRx::new(pdcp_out_of_order)).collect(),
            next_sn: vec![0; n],
            sn_of: HashMap::default(),
            gw_tunnelled,
            walks: Vec::new(),
            a3_since: Vec::new(),
            rates: None,
            ping_pong: Vec::new(),
            gw_queues: vec![VecDeque::new(); n],
            gw_busy: vec![false; n],
            gw_stats: (0, 0),
        }
    }

    /// Puts `pkt` into a tunnel from node `from` to node `to` and sends it on from `from`;
    /// without `gtp_header`, the outer header adds no bytes.
    fn tunnel(&self, cx: &mut Cx<Timer>, (from, to): (NodeId, NodeId), teid: u32, mut pkt: Packet) {
        let bare = pkt.tunnel.is_none();
        gtp::encapsulate(&mut pkt, from, to, teid, self.p.outer_ect);
        if bare && !self.p.gtp_header {
            pkt.size_bytes -= gtp::GTP_OVERHEAD_BYTES;
        }
        cx.forward(from, pkt);
    }

    /// Downlink user packets get their bearer's next SN and enter the tunnel to the UE's
    /// path cell; anything else (uplink to the servers) is routed as usual.
    fn gw_receive(&mut self, cx: &mut Cx<Timer>, pkt: Packet) {
        match pkt.tunnel {
            None => {
                if let Some(u) = self.ran.ue_at(pkt.dst) {
                    self.sn_of.insert(pkt.uid, self.next_sn[u]);
                    self.next_sn[u] += 1;
                    if self.p.gateway_buffer {
                        self.gw_queues[u].push_back(pkt);
                        self.gw_stats.0 += 1;
                        return self.gw_release(cx, u);
                    }
                    return self.gw_send(cx, u, pkt);
                }
            }
            Some(t) if pkt.dst == self.gw => {
                // `forward-via-core`: a forwarded packet turns at the gateway towards the
                // UE's serving cell, in the same forwarding tunnel.
                if let Some(u) = self.ran.ue_at(t.inner_dst) {
                    let to = self.ran.cells[self.state[u].serving].node;
                    return self.tunnel(cx, (self.gw, to), t.teid, pkt);
                }
                cx.counters_mut().dropped_unroutable += 1;
                return;
            }
            Some(_) => {}
        }
        cx.forward(self.gw, pkt);
    }

    /// A downlink packet of UE `u` leaves the gateway: a copy to the target while its
    /// handover bicasts, and the packet into the tunnel to the UE's path cell.
    fn gw_send(&mut self, cx: &mut Cx<Timer>, u: usize, pkt: Packet) {
        self.bicast(cx, u, &pkt);
        let path = self.ran.ues[u].path;
        self.gw_tunnelled[path] += 1;
        let to = self.ran.cells[path].node;
        self.tunnel(cx, (self.gw, to), gtp::s1u_teid(path, u), pkt);
    }

    /// `gateway_buffer = "per-ue"`: unless the gateway is handing one of UE `u`'s packets to
    /// S1 already, the head of its buffer leaves, and the next may follow once this one has
    /// taken its transmission time at the S1 rate of the UE's path cell (with the tunnel's
    /// header, if it adds one). The path and the bicasting apply when a packet leaves: those
    /// still waiting at the path switch go to the target.
    fn gw_release(&mut self, cx: &mut Cx<Timer>, u: usize) {
        if self.gw_busy[u] {
            return;
        }
        let Some(pkt) = self.gw_queues[u].pop_front() else { return };
        self.gw_stats.1 += 1;
        self.gw_busy[u] = true;
        let header = if self.p.gtp_header { gtp::GTP_OVERHEAD_BYTES } else { 0 };
        let done = cx.now() + tx_time_ns(pkt.size_bytes + header, self.p.s1_bps[self.ran.ues[u].path]);
        cx.schedule(done, Timer::GatewayDone { ue: u });
        self.gw_send(cx, u, pkt);
    }

    /// `bicast`: while the UE's handover bicasts, the gateway sends a copy of each downlink
    /// packet to the target, with the same SN.
    fn bicast(&mut self, cx: &mut Cx<Timer>, u: usize, pkt: &Packet) {
        let Some(h) = self.state[u].active else { return };
        if !self.handovers[h].bicasting {
            return;
        }
        let target = self.handovers[h].target;
        self.handovers[h].bicast_copies += 1;
        self.gw_tunnelled[target] += 1;
        let copy = self.copy(cx, pkt);
        self.tunnel(cx, (self.gw, self.ran.cells[target].node), gtp::s1u_teid(target, u), copy);
    }

    fn cell_receive(&mut self, cx: &mut Cx<Timer>, c: usize, mut pkt: Packet) {
        let me = self.ran.cells[c].node;
        let Some(t) = pkt.tunnel else {
            return self.cell_uplink(cx, c, pkt);
        };
        if pkt.dst != me {
            return cx.forward(me, pkt);
        }
        let Some(u) = self.ran.ue_at(t.inner_dst) else {
            cx.counters_mut().dropped_unroutable += 1;
            return;
        };
        if !self.p.gtp_header {
            pkt.size_bytes += gtp::GTP_OVERHEAD_BYTES;
        }
        // RFC 6040 §4.2 at the tunnel end (outer headers are ECN-capable with RED's `ecn`).
        match gtp::decapsulate(&mut pkt, self.p.ecn_through_tunnel) {
            gtp::Decap::Deliver => {}
            gtp::Decap::DeliverMarked => self.ran.cells[c].tunnel.ce_copied += 1,
            gtp::Decap::DropMarked if !t.end_marker => {
                self.ran.cells[c].tunnel.ce_drops += 1;
                self.sn_of.remove(&pkt.uid);
                cx.counters_mut().dropped_queue += 1;
                return;
            }
            gtp::Decap::DropMarked => {}
        }
        if t.end_marker {
            return self.on_end_marker(cx, c, u);
        }
        // Direct: from the gateway's S1-U tunnel (not forwarded by a cell).
        let direct = !gtp::is_forwarding(t.teid);
        self.downlink(cx, c, u, pkt, direct);
        if self.p.release_on_empty {
            self.release_if_path_empty(cx, u);
        }
    }

    /// A user packet for UE `u` came out of a tunnel at cell `c`: the scheme decides.
    fn downlink(&mut self, cx: &mut Cx<Timer>, c: usize, u: usize, pkt: Packet, direct: bool) {
        let st = self.state[u];
        let mut pkt = pkt;
        if let Some(h) = st.active.or(st.last) {
            pkt = match self.cho_candidate_receives(cx, h, c, u, pkt, direct) {
                None => return,
                Some(pkt) => pkt,
            };
            let ho = &self.handovers[h];
            let live = st.active == Some(h);
            // A target still waiting for the end marker holds direct packets, also once the
            // handover has ended without one (`reorder_idle`), until another begins.
            if (live || st.active.is_none()) && ho.target == c && direct && ho.reorder_wait {
                self.handovers[h].held_direct += 1;
                if self.handovers[h].held_direct == 1 && self.ran.ues[u].cells.contains(c) {
                    self.arm_reorder_timer(cx, h);
                }
                return self.hold(cx, c, u, pkt);
            }
            if live && ho.target == c && st.serving != c {
                // Predicted path switch, bicast copies: the target keeps them for the UE.
                return self.enqueue(cx, c, u, pkt);
            }
            if live && ho.source == c && st.serving != c && !ho.forwarding && ho.scheme == SchemeName::Cho {
                // Late CHO forwarding: the source keeps what comes until it learns of the access.
                return self.enqueue(cx, c, u, pkt);
            }
        }
        if st.serving == c {
            if !direct && self.holds_for(u, c) && !self.ran.cells[c].buffers.room_with_held(u, &pkt) {
                // A forwarded packet finds the buffer it shares with the held ones full.
                self.ran.cells[c].buffers.stats.drops += 1;
                self.sn_of.remove(&pkt.uid);
                cx.counters_mut().dropped_queue += 1;
                return;
            }
            if direct {
                self.cho_copy_early(cx, u, c, &pkt);
            } else if self.p.forwarded_first {
                return self.enqueue_forwarded(cx, c, u, pkt);
            }
            self.enqueue(cx, c, u, pkt);
        } else if direct && st.daps_source == Some(c) {
            // DAPS: the source serves the packet and forwards a copy with its SN.
            let copy = self.copy(cx, &pkt);
            self.enqueue(cx, c, u, pkt);
            self.forward(cx, u, c, copy, true);
        } else if direct && self.p.scheme.drops_at_source() {
            self.drop_for_handover(cx, u, pkt);
        } else {
            self.forward(cx, u, c, pkt, false);
        }
    }

    /// `reorder_release = "path-empty"`: cell `c` holds direct packets for UE `u`.
    fn holds_for(&self, u: usize, c: usize) -> bool {
        let Some(h) = self.state[u].last else { return false };
        let ho = &self.handovers[h];
        self.p.release_on_empty && ho.reorder_wait && ho.target == c
    }

    /// `reorder_release = "path-empty"`: once UE `u`'s path has switched, its target releases
    /// what it holds when no packet for the UE is left on the old path (the gateway's S1-U
    /// tunnel to the source) nor on the handover's forwarding tunnel, wherever on a link:
    /// queued, in service or propagating (Cohen & Levin: the new base station holds packets
    /// "until the old path is empty"). Checked at the path switch and whenever a tunnelled
    /// packet for the UE reaches a cell.
    pub(super) fn release_if_path_empty(&mut self, cx: &mut Cx<Timer>, u: usize) {
        let Some(h) = self.state[u].last else { return };
        let ho = &self.handovers[h];
        if !ho.reorder_wait || ho.path_switch_ns.is_none() {
            return;
        }
        let (ue, old, fwd) = (self.ran.ues[u].node, gtp::s1u_teid(ho.source, u), gtp::x2_teid(h));
        let store = cx.store();
        let pending = cx.links().iter().any(|l| {
            l.packets(store).any(|p| p.tunnel.is_some_and(|t| t.inner_dst == ue && (t.teid == old || t.teid == fwd)))
        });
        if !pending {
            self.stop_reordering(cx, h);
        }
    }

    /// An uplink packet from a UE: held while the UE attaches to this cell, else sent on.
    fn cell_uplink(&mut self, cx: &mut Cx<Timer>, c: usize, pkt: Packet) {
        let me = self.ran.cells[c].node;
        if let Some(u) = self.ran.ue_at(pkt.src) {
            if self.state[u].serving == c && !self.ran.ues[u].cells.contains(c) {
                self.ran.cells[c].buffers.hold_uplink(pkt);
                return;
            }
        }
        cx.forward(me, pkt);
    }

    /// Queues a downlink packet for UE `u` at cell `c` and lets the cell send.
    fn enqueue(&mut self, cx: &mut Cx<Timer>, c: usize, u: usize, pkt: Packet) {
        let now = cx.now();
        let uid = pkt.uid;
        if !self.ran.cells[c].buffers.offer(u, now, pkt, cx.rng()) {
            self.sn_of.remove(&uid);
            cx.counters_mut().dropped_queue += 1;
        }
        self.ran.serve(cx, c);
    }

    /// `forwarded_first`: queues a packet the source forwarded for UE `u` at cell `c`, to be
    /// served before the UE's other packets, and lets the cell send.
    fn enqueue_forwarded(&mut self, cx: &mut Cx<Timer>, c: usize, u: usize, pkt: Packet) {
        let now = cx.now();
        let uid = pkt.uid;
        if !self.ran.cells[c].buffers.offer_forwarded(u, now, pkt, cx.rng()) {
            self.sn_of.remove(&uid);
            cx.counters_mut().dropped_queue += 1;
        }
        self.ran.serve(cx, c);
    }

    /// Holds a downlink packet for UE `u` at cell `c`, not served until released.
    fn hold(&mut self, cx: &mut Cx<Timer>, c: usize, u: usize, pkt: Packet) {
        let now = cx.now();
        let uid = pkt.uid;
        if self.p.release_on_empty && !self.ran.cells[c].buffers.room_with_held(u, &pkt) {
            self.sn_of.remove(&uid);
            cx.counters_mut().dropped_queue += 1;
            self.ran.cells[c].buffers.stats.drops += 1;
            return;
        }
        if !self.ran.cells[c].buffers.hold(u, now, pkt, cx.rng()) {
            self.sn_of.remove(&uid);
            cx.counters_mut().dropped_queue += 1;
        }
    }

    /// A copy of a user packet (a new packet in the run's accounting) with the same SN.
    fn copy(&mut self, cx: &mut Cx<Timer>, pkt: &Packet) -> Packet {
        let fresh = cx.new_packet(pkt.flow, pkt.src, pkt.dst, pkt.kind);
        let mut copy = *pkt;
        copy.uid = fresh.uid;
        if let Some(&sn) = self.sn_of.get(&pkt.uid) {
            self.sn_of.insert(copy.uid, sn);
        }
        copy
    }

    /// Forwards a packet of UE `u` from cell `c` to the UE's serving cell over X2/Xn
    /// (`forward-via-core`: through the gateway).
    fn forward(&mut self, cx: &mut Cx<Timer>, u: usize, c: usize, pkt: Packet, copy: bool) {
        let to = self.state[u].serving;
        self.forward_to(cx, u, c, to, pkt, copy);
    }

    /// Forwards a packet of UE `u` from cell `c` to cell `to`.
    fn forward_to(&mut self, cx: &mut Cx<Timer>, u: usize, c: usize, to: usize, pkt: Packet, copy: bool) {
        let ho = self.state[u].last.unwrap_or(0);
        if let Some(h) = self.state[u].last.map(|h| &mut self.handovers[h]) {
            if copy {
                h.forwarded_copies += 1;
            } else {
                h.forwarded += 1;
            }
        }
        let from = self.ran.cells[c].node;
        let to = if self.p.via_core { self.gw } else { self.ran.cells[to].node };
        self.tunnel(cx, (from, to), gtp::x2_teid(ho), pkt);
    }

    /// A packet a handover makes superfluous (a copy sent already, a cancelled candidate's).
    fn discard(&mut self, cx: &mut Cx<Timer>, pkt: Packet) {
        self.sn_of.remove(&pkt.uid);
        cx.counters_mut().dropped_handover += 1;
    }

    fn drop_for_handover(&mut self, cx: &mut Cx<Timer>, u: usize, pkt: Packet) {
        self.sn_of.remove(&pkt.uid);
        cx.counters_mut().dropped_handover += 1;
        if let Some(h) = self.state[u].last {
            self.handovers[h].dropped += 1;
        }
    }

    /// A downlink packet reached UE `u`: its PDCP delivers in SN order and discards copies.
    fn ue_receive(&mut self, cx: &mut Cx<Timer>, u: usize, pkt: Packet) {
        let now = cx.now();
        let node = self.ran.ues[u].node;
        let Some(sn) = self.sn_of.remove(&pkt.uid) else {
            return cx.receive_as_router(node, pkt);
        };
        let (dups, late) = (self.pdcp[u].duplicates, self.pdcp[u].late);
        let copy = pkt;
        let out = self.pdcp[u].receive(sn, pkt, now);
        if out.discarded {
            let duplicate = self.pdcp[u].duplicates > dups;
            let pass = duplicate && !self.p.pdcp_discard_duplicates;
            if let Some(h) = self.state[u].last {
                let ho = &mut self.handovers[h];
                if pass {
                    *ho.duplicates_passed.get_or_insert(0) += 1;
                } else {
                    ho.duplicates_discarded += self.pdcp[u].duplicates - dups;
                }
                ho.late_discarded += self.pdcp[u].late - late;
            }
            if pass {
                // `pdcp_discard_duplicates = false`: the copy goes on to TCP.
                cx.receive_as_router(node, copy);
            } else {
                cx.counters_mut().consumed += 1;
            }
        }
        self.pdcp_outcome(cx, u, out);
    }

    fn pdcp_outcome(&mut self, cx: &mut Cx<Timer>, u: usize, out: pdcp::Outcome<Packet>) {
        let node = self.ran.ues[u].node;
        for (pkt, waited) in out.deliver {
            if let Some(h) = self.state[u].last {
                let ho = &mut self.handovers[h];
                ho.max_reordering_ns = ho.max_reordering_ns.max(waited);
            }
            cx.receive_as_router(node, pkt);
        }
        if let Some(h) = self.state[u].last {
            let ho = &mut self.handovers[h];
            ho.max_stall_ns = ho.max_stall_ns.max(self.pdcp[u].max_stall_ns);
        }
        if out.start_timer {
            let at = cx.now() + self.p.t_reordering_ns;
            cx.schedule(at, Timer::Reordering { ue: u, generation: self.pdcp[u].generation });
        }
    }
}

impl Cellular {
    /// Sets every UE's radio rate from every cell by the rate table, and comes back after the
    /// update period.
    pub(super) fn radio_rates(&mut self, cx: &mut Cx<Timer>) {
        let now = cx.now();
        for u in 0..self.ran.ues.len() {
            let x = self.x_m(u, now);
            for c in 0..self.ran.cells.len() {
                let Some(l) = self.ran.cells[c].downlinks[u] else { continue };
                let d = if self.p.two_d { self.dist_m(u, c, now) } else { (x - self.p.cell_x_m[c]).abs() };
                let bps = config::radio_bps_at(&self.p.radio_rate_table, 1.0, d).round() as u64;
                if self.rates.is_some() {
                    self.set_table_rate(cx, u, c, bps);
                } else {
                    cx.link_mut(l).rate_bps = bps;
                }
            }
        }
        if self.motion.iter().any(|m| m.speed_mps != 0.0) || !self.walks.is_empty() {
            cx.schedule(now + self.p.rate_update_ns, Timer::RadioRates);
        }
    }
}

impl Agent for Cellular {
    type Timer = Timer;

    /// Every packet that reaches the gateway, a cell or a UE.
    fn on_packet(&mut self, cx: &mut Cx<Timer>, n: NodeId, pkt: Packet) {
        if n == self.gw {
            return self.gw_receive(cx, pkt);
        }
        if let Some(u) = self.ran.ue_at(n) {
            return self.ue_receive(cx, u, pkt);
        }
        let c = self.ran.cell_at(n).expect("the cellular agent owns the gateway, cells and UEs");
        self.cell_receive(cx, c, pkt);
    }

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        match timer {
            Timer::Ran(t) => self.ran.on_timer(cx, t),
            Timer::Scheduled { ue, target } => self.scheduled(cx, ue, target),
            Timer::PingPong { entry } => self.ping_pong(cx, entry),
            Timer::Measure { ue } => self.measure(cx, ue),
            Timer::Measure2d { ue } => self.measure_2d(cx, ue),
            Timer::CellRate { cell } => self.next_capacity(cx, cell),
            Timer::UeRate { ue } => self.next_ue_rate(cx, ue),
            Timer::Triggered { ue, source, target } => self.triggered(cx, ue, source, target),
            Timer::ChoPrepare { ue, source } => self.cho_prepare(cx, ue, source),
            Timer::RadioRates => self.radio_rates(cx),
            Timer::RadioLinkFailure { ue, source } => self.radio_link_failure(cx, ue, source),
            Timer::Handover { ho, step } => self.on_step(cx, ho, step),
            Timer::Reordering { ue, generation } => {
                let out = self.pdcp[ue].expire(generation, cx.now());
                self.pdcp_outcome(cx, ue, out);
            }
            Timer::GatewayDone { ue } => {
                self.gw_busy[ue] = false;
                self.gw_release(cx, ue);
            }
        }
    }

    /// Packets in the cells' buffers, in the UEs' PDCP reordering buffers and in the
    /// gateway's per-UE buffers.
    fn held_packets(&self) -> u64 {
        let gw = self.gw_queues.iter().map(|q| q.len() as u64).sum::<u64>();
        self.ran.held_packets() + self.pdcp.iter().map(PdcpRx::held).sum::<u64>() + gw
    }

    /// The cells' buffers, and the gateway's: what entered them is what left plus what
    /// they hold.
    fn check(&self) -> Vec<String> {
        let held = self.gw_queues.iter().map(|q| q.len() as u64).sum::<u64>();
        let (into, out) = self.gw_stats;
        let gw = (into != out + held).then(|| format!("gateway: buffered {into} != left {out} + held {held}"));
        self.ran.check().into_iter().chain(gw).collect()
    }

    fn report(&self, world: &World) -> Report {
        self.summary(world)
    }
}

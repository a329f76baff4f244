//! The X2 handover procedure of the paper's Fig. 2 (3GPP TS 36.300 §10.1.2.1), with the
//! fast path switch of Fig. 5 and the predicted path switch of Fig. 6.
//!
//! Timeline for decision time t0, X2 latency L, detach time D, path switch latency P:
//! - t0: the source decides and sends the HO request over X2;
//! - t0 + L: the target admits the UE and answers with the HO request ack;
//! - t0 + 2L: the source sends the HO command; the UE detaches; the source starts forwarding
//!   the UE's queued and arriving packets to the target through the core router (a GTP-U
//!   tunnel source -> target: forwarded packets queue a second time in the router);
//! - t0 + 2L + D: the UE attaches to the target and confirms the handover;
//! - path switch request: at the confirm (`standard`), with the HO command (`fast`), or a
//!   prediction lead before the HO command (`predicted`); P later the S-GW tunnels new
//!   packets to the target and sends an end marker down the old path;
//! - the end marker reaches the source behind the old path's packets; the source forwards it
//!   behind the forwarded packets and stops forwarding;
//! - with reordering, the target holds direct packets until the end marker arrives, so the
//!   UE receives all forwarded packets first. The end marker is a packet and a full router
//!   queue may drop it, so the target also stops holding after a reordering timeout, counted
//!   from when it holds a direct packet for an attached UE.
//!
//! Predicted path switch. The S-GW switches a lead before the HO command, so the source
//! drains the old path's packets to the UE while it is still attached, and nothing is left
//! to forward. The source then has the end marker at the HO command; it tells the target in
//! the SN status transfer (X2) that nothing will be forwarded, and the target stops holding
//! direct packets. Meanwhile, direct packets wait at the target until the UE attaches.
//!
//! Prediction error. `error` = actual HO command time - predicted time. A late handover
//! (error > 0) stretches the time the target holds the UE's packets while the UE still sits
//! in the source cell: the sender sees no ACKs for lead + error + D, and once that exceeds
//! its RTO it times out; a handover that never comes is a disconnection. An early handover
//! (error < 0) leaves packets in the old path: they are forwarded as in the fast variant,
//! and if error < -lead the path switch comes after the HO command.
//!
//! Outcome (paper §IV and Fig. 8). The window opens when the procedure begins (the decision,
//! or the predicted path switch if earlier) and closes one RTT after attach, taken as the
//! moment the sender has had acknowledged all data it had outstanding at attach: the round
//! trip that the handover actually stretched. (A pre-handover RTT estimate would close the
//! window before a timeout caused by forwarding can fire, since the RTO is at least the
//! minimum RTO.) `timeout` if an RTO fired in the window, else `halving` for a fast recovery
//! or ECN reduction, else `optimal`. `delivered_bytes_window` (Fig. 12) counts the bytes
//! delivered in order to the UE from the decision until the window closes.

use super::{LteX2, PathSwitch, Timer};
use crate::engine::time::SimTime;
use crate::mobility::ran::{self, gtp};
use crate::net::packet::{Packet, PacketKind};
use crate::sim::{Cx, Flow};

/// How often the end of the outcome window is checked.
const WINDOW_POLL_NS: SimTime = 1_000_000;

/// A step of the procedure, scheduled as an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The procedure begins (the earlier of the decision and a predicted path switch): the
    /// target prepares (reordering on) and the outcome window opens.
    Prepare,
    /// The source decides and sends the HO request over X2.
    Decision,
    /// The HO request reaches the target, which answers with the HO request ack.
    RequestAtTarget,
    /// The HO request ack reaches the source, which sends the HO command.
    Command,
    /// The UE attaches to the target and sends the HO confirm.
    Attach,
    /// The S-GW switches the downlink path and sends the end marker down the old path.
    SgwSwitch,
    /// The SN status transfer tells the target that the source forwards nothing.
    NothingForwarded,
    /// The target's reordering timer: it stops waiting for a lost or late end marker.
    ReorderTimeout,
    /// Checks whether one RTT has passed since attach, i.e. whether everything the sender
    /// had outstanding at attach is acknowledged; if so the outcome window closes.
    WindowEnd,
}

/// What the handover did to the reference flow (paper §IV, Fig. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A retransmission timeout fired: cwnd fell to one segment (f_DSS).
    Timeout,
    /// Fast recovery or an ECN reduction halved cwnd (f_DWH).
    Halving,
    /// The handover was transparent to TCP (f_DI).
    Optimal,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Timeout => "timeout",
            Outcome::Halving => "halving",
            Outcome::Optimal => "optimal",
        }
    }
}

/// Congestion events of the reference flow's sender, counted so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowSnap {
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
}

impl FlowSnap {
    pub(super) fn since(self, before: FlowSnap) -> FlowSnap {
        FlowSnap {
            timeouts: self.timeouts - before.timeouts,
            fast_recoveries: self.fast_recoveries - before.fast_recoveries,
            ecn_reductions: self.ecn_reductions - before.ecn_reductions,
        }
    }

    pub(super) fn outcome(self) -> Outcome {
        if self.timeouts > 0 {
            Outcome::Timeout
        } else if self.fast_recoveries + self.ecn_reductions > 0 {
            Outcome::Halving
        } else {
            Outcome::Optimal
        }
    }
}

pub struct Handover {
    pub ue: usize,
    pub source: usize,
    pub target: usize,
    pub decision_ns: SimTime,
    /// When the HO command is sent: decision + 2 X2 latencies.
    pub command_ns: SimTime,
    pub prediction_error_ns: i64,
    /// When the path switch request was (or, for `predicted`, will be) sent.
    pub path_switch_sent_ns: Option<SimTime>,
    pub window_start_ns: SimTime,
    /// The source forwards the UE's packets to the target.
    pub forwarding: bool,
    /// The target holds direct packets until the end marker.
    pub reorder_wait: bool,
    pub end_marker_at_source_ns: Option<SimTime>,
    pub end_marker_at_target_ns: Option<SimTime>,
    pub attach_ns: Option<SimTime>,
    pub sgw_switch_ns: Option<SimTime>,
    pub reordering_ended_ns: Option<SimTime>,
    pub window_end_ns: Option<SimTime>,
    pub forwarded_packets: u64,
    pub held_direct_packets: u64,
    /// The reference sender's snd_max when the UE attached: the window closes once it is
    /// acknowledged.
    pub(super) snd_max_at_attach: u64,
    /// The target stopped reordering on its timer, not on the end marker.
    pub reordering_timed_out: bool,
    pub(super) snap_start: FlowSnap,
    pub(super) delivered_at_decision: u64,
    /// Events and delivered bytes inside the window, once it has closed.
    pub(super) result: Option<(FlowSnap, u64)>,
}

impl LteX2 {
    /// Plans a handover of UE `ue` from eNodeB `source` to `target`, decided at `decision_ns`.
    /// `prediction_error_ns` only matters for the predicted path switch.
    pub fn plan_handover(
        &mut self,
        cx: &mut Cx<Timer>,
        ue: usize,
        (source, target): (usize, usize),
        decision_ns: SimTime,
        prediction_error_ns: i64,
    ) {
        let cfg = &self.cfg;
        let command_ns = decision_ns + 2 * cfg.x2_latency_ns;
        let path_switch_sent_ns = match cfg.path_switch {
            PathSwitch::Predicted => {
                // Saturating: an error drawn from a huge prediction_error_std_s may be near i64's ends.
                let predicted = (command_ns as i64).saturating_sub(prediction_error_ns);
                Some(predicted.saturating_sub(cfg.prediction_lead_ns as i64).max(0) as SimTime)
            }
            PathSwitch::Standard | PathSwitch::Fast => None,
        };
        let window_start_ns = path_switch_sent_ns.map_or(decision_ns, |p| p.min(decision_ns));
        let ho = self.handovers.len();
        self.handovers.push(Handover {
            ue,
            source,
            target,
            decision_ns,
            command_ns,
            prediction_error_ns,
            path_switch_sent_ns,
            window_start_ns,
            forwarding: false,
            reorder_wait: false,
            end_marker_at_source_ns: None,
            end_marker_at_target_ns: None,
            attach_ns: None,
            sgw_switch_ns: None,
            reordering_ended_ns: None,
            window_end_ns: None,
            forwarded_packets: 0,
            held_direct_packets: 0,
            snd_max_at_attach: 0,
            reordering_timed_out: false,
            snap_start: FlowSnap::default(),
            delivered_at_decision: 0,
            result: None,
        });
        let ps_latency = self.cfg.path_switch_latency_ns;
        step(cx, ho, window_start_ns, Step::Prepare);
        step(cx, ho, decision_ns, Step::Decision);
        if let Some(sent) = path_switch_sent_ns {
            step(cx, ho, sent + ps_latency, Step::SgwSwitch);
        }
    }

    pub(super) fn on_handover_step(&mut self, cx: &mut Cx<Timer>, h: usize, s: Step) {
        let now = cx.now();
        let l = self.cfg.x2_latency_ns;
        match s {
            // The target prepares: from now on it may hold direct packets for reordering.
            Step::Prepare => {
                self.handovers[h].reorder_wait = self.cfg.reordering;
                self.handovers[h].snap_start = self.ref_snap(cx.flows(), h);
            }
            // HO request over X2.
            Step::Decision => {
                self.handovers[h].delivered_at_decision = self.ref_delivered(cx.flows(), h);
                step(cx, h, now + l, Step::RequestAtTarget);
            }
            // Admission control at the target, then the HO request ack over X2.
            Step::RequestAtTarget => step(cx, h, now + l, Step::Command),
            Step::Command => self.handover_command(cx, h),
            Step::Attach => self.handover_attach(cx, h),
            Step::SgwSwitch => self.sgw_path_switch(cx, h),
            Step::NothingForwarded => self.stop_reordering(cx, h),
            Step::ReorderTimeout => {
                if self.handovers[h].reordering_ended_ns.is_none() {
                    self.handovers[h].reordering_timed_out = true;
                    self.stop_reordering(cx, h);
                }
            }
            Step::WindowEnd => self.window_end(cx, h),
        }
    }

    /// Closes the outcome window once the sender has had acknowledged everything it had
    /// outstanding at attach; polls until then.
    fn window_end(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (ue, mark) = (self.handovers[h].ue, self.handovers[h].snd_max_at_attach);
        let flow = self.ran.ues[ue].flow;
        if flow.is_some_and(|f| cx.flows()[f as usize].sender.snd_una() < mark) {
            step(cx, h, now + WINDOW_POLL_NS, Step::WindowEnd);
            return;
        }
        let snap = self.ref_snap(cx.flows(), h);
        let delivered = self.ref_delivered(cx.flows(), h);
        let ho = &mut self.handovers[h];
        ho.window_end_ns = Some(now);
        ho.result = Some((snap.since(ho.snap_start), delivered - ho.delivered_at_decision));
    }

    pub(super) fn ref_delivered(&self, flows: &[Flow], h: usize) -> u64 {
        self.ran.ues[self.handovers[h].ue].flow.map_or(0, |f| flows[f as usize].delivered_bytes)
    }

    pub(super) fn ref_snap(&self, flows: &[Flow], h: usize) -> FlowSnap {
        match self.ran.ues[self.handovers[h].ue].flow {
            Some(f) => {
                let st = &flows[f as usize].sender.stats;
                FlowSnap {
                    timeouts: st.timeouts,
                    fast_recoveries: st.fast_recoveries,
                    ecn_reductions: st.ecn_reductions,
                }
            }
            None => FlowSnap::default(),
        }
    }

    /// The source sends the HO command: the UE detaches, its uplink now goes to the target
    /// (held there until it attaches), and the source forwards what it has queued.
    fn handover_command(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (ue, source, target) = (self.handovers[h].ue, self.handovers[h].source, self.handovers[h].target);
        self.ran.ues[ue].cells.clear();
        self.handovers[h].forwarding = true;
        let node = self.ran.ues[ue].node;
        if let Some(up) = self.ran.ues[ue].uplinks[target] {
            ran::route_uplink(cx, node, up);
        }
        let queued = self.ran.cells[source].buffers.drain(ue, now);
        let forwarded_any = !queued.is_empty();
        for pkt in queued {
            self.forward_to_target(cx, h, pkt);
        }
        if self.handovers[h].end_marker_at_source_ns.is_some() {
            // The old path is already empty: forwarding ends with what was queued.
            self.handovers[h].forwarding = false;
            if forwarded_any {
                let em = self.new_end_marker(cx, h);
                cx.forward(self.ran.cells[source].node, em);
            } else {
                step(cx, h, now + self.cfg.x2_latency_ns, Step::NothingForwarded);
            }
        }
        step(cx, h, now + self.cfg.detach_ns, Step::Attach);
        if self.cfg.path_switch == PathSwitch::Fast {
            self.handovers[h].path_switch_sent_ns = Some(now);
            step(cx, h, now + self.cfg.path_switch_latency_ns, Step::SgwSwitch);
        }
    }

    /// The UE attaches to the target and confirms; held uplink packets go out.
    fn handover_attach(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (ue, target) = (self.handovers[h].ue, self.handovers[h].target);
        self.ran.ues[ue].cells.attach(target);
        self.handovers[h].attach_ns = Some(now);
        let me = self.ran.cells[target].node;
        let ue_node = self.ran.ues[ue].node;
        let mine = self.ran.cells[target].buffers.release_uplink(ue_node);
        let mark = self.ran.ues[ue].flow.map_or(0, |f| cx.flows()[f as usize].sender.snd_max());
        self.handovers[h].snd_max_at_attach = mark;
        for pkt in mine {
            cx.forward(me, pkt);
        }
        self.ran.serve(cx, target);
        if self.cfg.path_switch == PathSwitch::Standard {
            self.handovers[h].path_switch_sent_ns = Some(now);
            step(cx, h, now + self.cfg.path_switch_latency_ns, Step::SgwSwitch);
        }
        step(cx, h, now, Step::WindowEnd);
        if self.handovers[h].held_direct_packets > 0 {
            self.arm_reorder_timer(cx, h);
        }
    }

    /// The S-GW tunnels the UE's downlink to the target from now on and sends the end marker
    /// on the old path.
    fn sgw_path_switch(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let (ue, source, target) = (self.handovers[h].ue, self.handovers[h].source, self.handovers[h].target);
        self.ran.ues[ue].path = target;
        self.handovers[h].sgw_switch_ns = Some(cx.now());
        let sgw = self.sgw;
        let (to, ue_node, ect) = (self.ran.cells[source].node, self.ran.ues[ue].node, self.cfg.outer_ect);
        let flow = self.ran.ues[ue].flow.unwrap_or(0);
        let base = cx.new_packet(flow, sgw, to, PacketKind::Data);
        let em = gtp::end_marker(base, (sgw, to), ue_node, gtp::s1u_teid(source, ue), ect);
        cx.forward(sgw, em);
    }

    /// An end marker for UE `u` came out of a tunnel at eNodeB `e`.
    pub(super) fn on_end_marker(&mut self, cx: &mut Cx<Timer>, e: usize, u: usize, pkt: Packet) {
        let now = cx.now();
        let Some(h) = self.handovers.iter().position(|ho| ho.ue == u) else {
            cx.counters_mut().consumed += 1;
            return;
        };
        let ho = &mut self.handovers[h];
        if e == ho.source && ho.end_marker_at_source_ns.is_none() {
            ho.end_marker_at_source_ns = Some(now);
            if ho.forwarding {
                // Behind the last forwarded packet: forwarding ends here.
                ho.forwarding = false;
                let cells = &self.ran.cells;
                let (src, tgt, ue_node, ect) =
                    (cells[ho.source].node, cells[ho.target].node, self.ran.ues[u].node, self.cfg.outer_ect);
                let em = gtp::end_marker(pkt, (src, tgt), ue_node, gtp::x2_teid(h), ect);
                cx.forward(src, em);
                return;
            }
            // Still attached here (predicted path switch): nothing more comes on the old path.
            cx.counters_mut().consumed += 1;
            return;
        }
        cx.counters_mut().consumed += 1;
        if e == ho.target {
            ho.end_marker_at_target_ns = Some(now);
            self.stop_reordering(cx, h);
        }
    }

    /// The target waits at most the reordering timeout for the end marker, counted from when
    /// it both holds a direct packet and has the UE attached: this bounds the extra delay of a
    /// held packet when the end marker is lost in a full router queue.
    pub(super) fn arm_reorder_timer(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let at = cx.now() + self.cfg.reorder_timeout_ns;
        step(cx, h, at, Step::ReorderTimeout);
    }

    /// The target releases the direct packets it held, behind the forwarded ones.
    fn stop_reordering(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let ho = &mut self.handovers[h];
        if ho.reordering_ended_ns.is_some() {
            return;
        }
        ho.reorder_wait = false;
        ho.reordering_ended_ns = Some(now);
        let (ue, target) = (ho.ue, ho.target);
        let held = self.ran.cells[target].buffers.release_held(ue, now);
        for pkt in held {
            self.enb_enqueue(cx, target, ue, pkt);
        }
        self.ran.serve(cx, target);
    }

    /// Sends a (decapsulated) user packet of handover `h`'s UE from the source to the target
    /// through a GTP-U tunnel over the core router.
    pub(super) fn forward_to_target(&mut self, cx: &mut Cx<Timer>, h: usize, pkt: Packet) {
        let ho = &mut self.handovers[h];
        ho.forwarded_packets += 1;
        let (src, tgt) = (self.ran.cells[ho.source].node, self.ran.cells[ho.target].node);
        gtp::forward(cx, (src, tgt), gtp::x2_teid(h), self.cfg.outer_ect, pkt);
    }

    fn new_end_marker(&mut self, cx: &mut Cx<Timer>, h: usize) -> Packet {
        let (ue, source, target) = (self.handovers[h].ue, self.handovers[h].source, self.handovers[h].target);
        let cells = &self.ran.cells;
        let (src, tgt, ue_node, ect) =
            (cells[source].node, cells[target].node, self.ran.ues[ue].node, self.cfg.outer_ect);
        let flow = self.ran.ues[ue].flow.unwrap_or(0);
        let base = cx.new_packet(flow, src, tgt, PacketKind::Data);
        gtp::end_marker(base, (src, tgt), ue_node, gtp::x2_teid(h), ect)
    }
}

/// Schedules step `s` of handover `h` at `at`.
fn step(cx: &mut Cx<Timer>, h: usize, at: SimTime, s: Step) {
    cx.schedule(at, Timer::Handover { ho: h, step: s });
}

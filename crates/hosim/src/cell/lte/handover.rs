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

use serde_json::{json, Value};

use super::{gtp, opt_s, LteEvent, PathSwitch};
use crate::engine::time::{ns_to_s, SimTime};
use crate::net::packet::{Packet, PacketKind};
use crate::world::World;

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
    fn since(self, before: FlowSnap) -> FlowSnap {
        FlowSnap {
            timeouts: self.timeouts - before.timeouts,
            fast_recoveries: self.fast_recoveries - before.fast_recoveries,
            ecn_reductions: self.ecn_reductions - before.ecn_reductions,
        }
    }

    fn outcome(self) -> Outcome {
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
    snd_max_at_attach: u64,
    /// The target stopped reordering on its timer, not on the end marker.
    pub reordering_timed_out: bool,
    snap_start: FlowSnap,
    delivered_at_decision: u64,
    /// Events and delivered bytes inside the window, once it has closed.
    result: Option<(FlowSnap, u64)>,
}

impl World {
    /// Plans a handover of UE `ue` from eNodeB `source` to `target`, decided at `decision_ns`.
    /// `prediction_error_ns` only matters for the predicted path switch.
    pub fn plan_lte_handover(
        &mut self,
        ue: usize,
        source: usize,
        target: usize,
        decision_ns: SimTime,
        prediction_error_ns: i64,
    ) {
        let lte = self.lte.as_deref_mut().expect("lte");
        let cfg = &lte.cfg;
        let command_ns = decision_ns + 2 * cfg.x2_latency_ns;
        let path_switch_sent_ns = match cfg.path_switch {
            PathSwitch::Predicted => {
                let predicted = command_ns as i64 - prediction_error_ns;
                Some((predicted - cfg.prediction_lead_ns as i64).max(0) as SimTime)
            }
            PathSwitch::Standard | PathSwitch::Fast => None,
        };
        let window_start_ns = path_switch_sent_ns.map_or(decision_ns, |p| p.min(decision_ns));
        let ho = lte.handovers.len() as u16;
        lte.handovers.push(Handover {
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
        let step = |step| LteEvent::Handover { ho, step }.at();
        let ps_latency = cfg.path_switch_latency_ns;
        self.events.schedule(window_start_ns, step(Step::Prepare));
        self.events.schedule(decision_ns, step(Step::Decision));
        if let Some(sent) = path_switch_sent_ns {
            self.events.schedule(sent + ps_latency, step(Step::SgwSwitch));
        }
    }

    pub(crate) fn on_handover_step(&mut self, h: usize, step: Step) {
        let now = self.now;
        let l = self.lte.as_deref().expect("lte").cfg.x2_latency_ns;
        let schedule = |w: &mut World, at: SimTime, step: Step| {
            w.events.schedule(at, LteEvent::Handover { ho: h as u16, step }.at())
        };
        match step {
            // The target prepares: from now on it may hold direct packets for reordering.
            Step::Prepare => {
                let lte = self.lte.as_deref_mut().expect("lte");
                lte.handovers[h].reorder_wait = lte.cfg.reordering;
                let snap = self.ref_snap(h);
                self.lte.as_deref_mut().expect("lte").handovers[h].snap_start = snap;
            }
            // HO request over X2.
            Step::Decision => {
                let delivered = self.ref_delivered(h);
                self.lte.as_deref_mut().expect("lte").handovers[h].delivered_at_decision = delivered;
                schedule(self, now + l, Step::RequestAtTarget);
            }
            // Admission control at the target, then the HO request ack over X2.
            Step::RequestAtTarget => schedule(self, now + l, Step::Command),
            Step::Command => self.handover_command(h),
            Step::Attach => self.handover_attach(h),
            Step::SgwSwitch => self.sgw_path_switch(h),
            Step::NothingForwarded => self.stop_reordering(h),
            Step::ReorderTimeout => {
                let ho = &mut self.lte.as_deref_mut().expect("lte").handovers[h];
                if ho.reordering_ended_ns.is_none() {
                    ho.reordering_timed_out = true;
                    self.stop_reordering(h);
                }
            }
            Step::WindowEnd => {
                let (ue, mark) = {
                    let lte = self.lte.as_deref().expect("lte");
                    (lte.handovers[h].ue, lte.handovers[h].snd_max_at_attach)
                };
                let flow = self.lte.as_deref().expect("lte").ues[ue].flow;
                if flow.is_some_and(|f| self.flows[f as usize].sender.snd_una() < mark) {
                    schedule(self, now + WINDOW_POLL_NS, Step::WindowEnd);
                    return;
                }
                let snap = self.ref_snap(h);
                let delivered = self.ref_delivered(h);
                let ho = &mut self.lte.as_deref_mut().expect("lte").handovers[h];
                ho.window_end_ns = Some(now);
                ho.result = Some((snap.since(ho.snap_start), delivered - ho.delivered_at_decision));
            }
        }
    }

    fn ref_delivered(&self, h: usize) -> u64 {
        let lte = self.lte.as_deref().expect("lte");
        lte.ues[lte.handovers[h].ue].flow.map_or(0, |f| self.flows[f as usize].delivered_bytes)
    }

    fn ref_snap(&self, h: usize) -> FlowSnap {
        let lte = self.lte.as_deref().expect("lte");
        match lte.ues[lte.handovers[h].ue].flow {
            Some(f) => {
                let st = &self.flows[f as usize].sender.stats;
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
    fn handover_command(&mut self, h: usize) {
        let now = self.now;
        let lte = self.lte.as_deref_mut().expect("lte");
        let (ue, source, target) = (lte.handovers[h].ue, lte.handovers[h].source, lte.handovers[h].target);
        lte.ues[ue].attached = None;
        lte.handovers[h].forwarding = true;
        let node = lte.ues[ue].node;
        if let Some(up) = lte.ues[ue].uplinks[target] {
            for r in self.nodes[node as usize].routes.iter_mut().filter(|r| r.is_some()) {
                *r = Some(up);
            }
        }
        let lte = self.lte.as_deref_mut().expect("lte");
        let enb = &mut lte.enbs[source];
        let queued: Vec<Packet> = enb.queues[ue].drain(now).collect();
        enb.stats.unbuffered += queued.len() as u64;
        let forwarded_any = !queued.is_empty();
        for pkt in queued {
            self.forward_to_target(h, pkt);
        }
        let lte = self.lte.as_deref_mut().expect("lte");
        let cfg = lte.cfg.clone();
        if lte.handovers[h].end_marker_at_source_ns.is_some() {
            // The old path is already empty: forwarding ends with what was queued.
            lte.handovers[h].forwarding = false;
            if forwarded_any {
                let em = self.new_end_marker(ue, source, target);
                self.forward_to_target_raw(h, em);
            } else {
                self.events.schedule(
                    now + cfg.x2_latency_ns,
                    LteEvent::Handover { ho: h as u16, step: Step::NothingForwarded }.at(),
                );
            }
        }
        self.events.schedule(now + cfg.detach_ns, LteEvent::Handover { ho: h as u16, step: Step::Attach }.at());
        if cfg.path_switch == PathSwitch::Fast {
            self.lte.as_deref_mut().expect("lte").handovers[h].path_switch_sent_ns = Some(now);
            self.events.schedule(
                now + cfg.path_switch_latency_ns,
                LteEvent::Handover { ho: h as u16, step: Step::SgwSwitch }.at(),
            );
        }
    }

    /// The UE attaches to the target and confirms; held uplink packets go out.
    fn handover_attach(&mut self, h: usize) {
        let now = self.now;
        let lte = self.lte.as_deref_mut().expect("lte");
        let (ue, target) = (lte.handovers[h].ue, lte.handovers[h].target);
        lte.ues[ue].attached = Some(target);
        lte.handovers[h].attach_ns = Some(now);
        let me = lte.enbs[target].node;
        let ue_node = lte.ues[ue].node;
        let enb = &mut lte.enbs[target];
        let (mine, others): (Vec<Packet>, Vec<Packet>) = enb.held_uplink.drain(..).partition(|p| p.src == ue_node);
        enb.held_uplink.extend(others);
        enb.stats.unbuffered += mine.len() as u64;
        let cfg = lte.cfg.clone();
        let mark = lte.ues[ue].flow.map_or(0, |f| self.flows[f as usize].sender.snd_max());
        lte.handovers[h].snd_max_at_attach = mark;
        for pkt in mine {
            self.forward(me, pkt);
        }
        self.enb_kick(target);
        if cfg.path_switch == PathSwitch::Standard {
            self.lte.as_deref_mut().expect("lte").handovers[h].path_switch_sent_ns = Some(now);
            self.events.schedule(
                now + cfg.path_switch_latency_ns,
                LteEvent::Handover { ho: h as u16, step: Step::SgwSwitch }.at(),
            );
        }
        self.events.schedule(now, LteEvent::Handover { ho: h as u16, step: Step::WindowEnd }.at());
        if self.lte.as_deref().expect("lte").handovers[h].held_direct_packets > 0 {
            self.arm_reorder_timer(h);
        }
    }

    /// The S-GW tunnels the UE's downlink to the target from now on and sends the end marker
    /// on the old path.
    fn sgw_path_switch(&mut self, h: usize) {
        let now = self.now;
        let lte = self.lte.as_deref_mut().expect("lte");
        let (ue, source, target) = (lte.handovers[h].ue, lte.handovers[h].source, lte.handovers[h].target);
        lte.ues[ue].path = target;
        lte.handovers[h].sgw_switch_ns = Some(now);
        let sgw = lte.sgw;
        let (to, ue_node, ect) = (lte.enbs[source].node, lte.ues[ue].node, lte.cfg.outer_ect);
        let flow = lte.ues[ue].flow.unwrap_or(0);
        let base = self.lte_control_packet(flow, sgw, to);
        let em = gtp::end_marker(base, sgw, to, ue_node, ect);
        self.forward(sgw, em);
    }

    /// An end marker for UE `u` came out of a tunnel at eNodeB `e`.
    pub(crate) fn on_end_marker(&mut self, e: usize, u: usize, pkt: Packet) {
        let now = self.now;
        let Some(h) = self.lte.as_deref().expect("lte").handovers.iter().position(|ho| ho.ue == u) else {
            self.counters.consumed += 1;
            return;
        };
        let lte = self.lte.as_deref_mut().expect("lte");
        let ho = &mut lte.handovers[h];
        if e == ho.source && ho.end_marker_at_source_ns.is_none() {
            ho.end_marker_at_source_ns = Some(now);
            if ho.forwarding {
                // Behind the last forwarded packet: forwarding ends here.
                ho.forwarding = false;
                let (src, tgt, ue_node, ect) =
                    (lte.enbs[ho.source].node, lte.enbs[ho.target].node, lte.ues[u].node, lte.cfg.outer_ect);
                let em = gtp::end_marker(pkt, src, tgt, ue_node, ect);
                self.forward(src, em);
                return;
            }
            // Still attached here (predicted path switch): nothing more comes on the old path.
            self.counters.consumed += 1;
            return;
        }
        self.counters.consumed += 1;
        if e == ho.target {
            ho.end_marker_at_target_ns = Some(now);
            self.stop_reordering(h);
        }
    }

    /// The target waits at most the reordering timeout for the end marker, counted from when
    /// it both holds a direct packet and has the UE attached: this bounds the extra delay of a
    /// held packet when the end marker is lost in a full router queue.
    pub(crate) fn arm_reorder_timer(&mut self, h: usize) {
        let at = self.now + self.lte.as_deref().expect("lte").cfg.reorder_timeout_ns;
        self.events.schedule(at, LteEvent::Handover { ho: h as u16, step: Step::ReorderTimeout }.at());
    }

    /// The target releases the direct packets it held, behind the forwarded ones.
    fn stop_reordering(&mut self, h: usize) {
        let now = self.now;
        let lte = self.lte.as_deref_mut().expect("lte");
        let ho = &mut lte.handovers[h];
        if ho.reordering_ended_ns.is_some() {
            return;
        }
        ho.reorder_wait = false;
        ho.reordering_ended_ns = Some(now);
        let (ue, target) = (ho.ue, ho.target);
        let enb = &mut lte.enbs[target];
        let held: Vec<Packet> = enb.held_direct[ue].drain(now).collect();
        enb.stats.unbuffered += held.len() as u64;
        for pkt in held {
            self.enb_enqueue(target, ue, pkt);
        }
        self.enb_kick(target);
    }

    /// Sends a (decapsulated) user packet of handover `h`'s UE from the source to the target
    /// through a GTP-U tunnel over the core router.
    pub(crate) fn forward_to_target(&mut self, h: usize, mut pkt: Packet) {
        let lte = self.lte.as_deref_mut().expect("lte");
        let ho = &mut lte.handovers[h];
        ho.forwarded_packets += 1;
        let (src, tgt) = (lte.enbs[ho.source].node, lte.enbs[ho.target].node);
        gtp::encapsulate(&mut pkt, src, tgt, lte.cfg.outer_ect);
        self.forward(src, pkt);
    }

    fn forward_to_target_raw(&mut self, h: usize, pkt: Packet) {
        let lte = self.lte.as_deref().expect("lte");
        let src = lte.enbs[lte.handovers[h].source].node;
        self.forward(src, pkt);
    }

    fn new_end_marker(&mut self, ue: usize, source: usize, target: usize) -> Packet {
        let lte = self.lte.as_deref().expect("lte");
        let (src, tgt, ue_node, ect) =
            (lte.enbs[source].node, lte.enbs[target].node, lte.ues[ue].node, lte.cfg.outer_ect);
        let flow = lte.ues[ue].flow.unwrap_or(0);
        let base = self.lte_control_packet(flow, src, tgt);
        gtp::end_marker(base, src, tgt, ue_node, ect)
    }

    /// A new header-only packet created by an LTE element (counted as created).
    fn lte_control_packet(&mut self, flow: u32, src: u32, dst: u32) -> Packet {
        let uid = self.next_uid;
        self.next_uid += 1;
        self.counters.created += 1;
        Packet::new(uid, flow, src, dst, PacketKind::Data, 0, self.now)
    }
}

impl Handover {
    /// The summary `handovers` entry. `final_snap` and `final_delivered` are the reference
    /// flow's counts at the end of the run (for `timeouts_until_end`, and for a window the run
    /// ended before it closed).
    /// A window still open when the run ends is measured up to the end of the run
    /// (`window_closed` false); before the decision there is nothing to report.
    pub fn entry(
        &self,
        ue_name: &str,
        enb_names: (&str, &str),
        path_switch: PathSwitch,
        final_snap: FlowSnap,
        final_delivered: u64,
        now: SimTime,
    ) -> Value {
        let end = self.reordering_ended_ns.max(self.attach_ns);
        let result = match self.result {
            Some(r) => Some(r),
            None if now >= self.decision_ns => {
                Some((final_snap.since(self.snap_start), final_delivered - self.delivered_at_decision))
            }
            None => None,
        };
        let (outcome, events, delivered) = match result {
            Some((ev, bytes)) => (json!(ev.outcome().name()), Some(ev), json!(bytes)),
            None => (Value::Null, None, Value::Null),
        };
        json!({
            "ue": ue_name,
            "start_s": ns_to_s(self.decision_ns),
            "end_s": opt_s(end),
            "scheme": format!("x2-{}", path_switch.name()),
            "path_switch": path_switch.name(),
            "source": enb_names.0,
            "target": enb_names.1,
            "command_s": ns_to_s(self.command_ns),
            "attach_s": opt_s(self.attach_ns),
            "path_switch_sent_s": opt_s(self.path_switch_sent_ns),
            "sgw_switch_s": opt_s(self.sgw_switch_ns),
            "end_marker_at_source_s": opt_s(self.end_marker_at_source_ns),
            "end_marker_at_target_s": opt_s(self.end_marker_at_target_ns),
            "reordering_ended_s": opt_s(self.reordering_ended_ns),
            "reordering_timed_out": self.reordering_timed_out,
            "prediction_error_s": self.prediction_error_ns as f64 / 1e9,
            "forwarded_packets": self.forwarded_packets,
            "held_direct_packets": self.held_direct_packets,
            "window_start_s": ns_to_s(self.window_start_ns),
            "window_end_s": opt_s(self.window_end_ns),
            "window_closed": self.result.is_some(),
            "outcome": outcome,
            "timeouts": events.map(|e| e.timeouts),
            "fast_recoveries": events.map(|e| e.fast_recoveries),
            "ecn_reductions": events.map(|e| e.ecn_reductions),
            "timeouts_until_end": final_snap.timeouts - self.snap_start.timeouts,
            "delivered_bytes_window": delivered,
        })
    }
}

impl World {
    /// The `handovers` summary entries of the LTE system.
    pub fn lte_handover_entries(&self) -> Vec<Value> {
        let Some(lte) = self.lte.as_deref() else { return Vec::new() };
        lte.handovers
            .iter()
            .enumerate()
            .map(|(h, ho)| {
                let names = (lte.enbs[ho.source].name.as_str(), lte.enbs[ho.target].name.as_str());
                ho.entry(
                    &lte.ues[ho.ue].name,
                    names,
                    lte.cfg.path_switch,
                    self.ref_snap(h),
                    self.ref_delivered(h),
                    self.now,
                )
            })
            .collect()
    }
}

//! What starts a handover, and the procedure of each scheme.
//!
//! Triggers:
//! - a schedule (`[[cellular.handovers]]`): at `at_s` the serving cell decides to hand UE
//!   `ue` over to `target`; if a handover of the UE is under way, the decision waits for its
//!   end;
//! - movement: a UE moves along the line at a constant speed. An A3-like rule on distance
//!   (TS 38.331 §5.5.4.4, with distance standing in for signal level): the next cell in the
//!   direction of travel becomes better than the serving one when it is closer by more than
//!   the hysteresis; once that has held for the time to trigger, the serving cell decides.
//!   With a constant speed the entry time is known in closed form: the UE enters at the
//!   midpoint between the two cells moved on by half the hysteresis. Off the line (a grid,
//!   random waypoint) the same rule is applied to measured distances (`movement.rs`);
//! - a movement trace: its rows are decisions, as a schedule's (`movement.rs`).
//!
//! The procedure, for decision time t0 and X2 latency L (TS 38.300 §9.2.3.2, §9.2.3.2.1):
//! - t0: the source sends the HO request over X2; t0 + L: the target admits the UE and
//!   answers; t0 + 2L: the source sends the HO command. From the command on, the target is
//!   the UE's serving cell, and the gateway still tunnels to the source;
//! - `drop` and `forward` (hard handover): at the command the UE leaves the source (no cell
//!   serves it for the interruption time) and its uplink goes to the target, which holds it
//!   until the UE attaches. The source drops (`drop`) or forwards over X2 (`forward`) what it
//!   holds for the UE, and does the same with what still arrives for it;
//! - `forward-via-core`, `rearrange`, `fast-path-switch`, `predicted`: as `forward`, the
//!   first through the gateway (Pacifico et al.'s forwarding through the core router), the
//!   second with the target holding direct packets until the end marker (`end_marker.rs`;
//!   Cohen & Levin's forward-and-rearrange), the last two with the path switch requested at
//!   the command or a prediction lead before it (Pacifico et al., Figs. 5 and 6);
//! - `bicast`: as `drop`, and from a bicast lead before the command (t0 + L at the earliest,
//!   once the target has admitted the UE) to the path switch the gateway sends the target a
//!   copy of each packet (the 3GPP inter-RAT contribution's bicasting);
//! - `daps`: at the command the source keeps serving the UE, and forwards a copy of what it
//!   holds and of what arrives, with the PDCP SN, to the target. The UE accesses the target
//!   a target access delay later and is then served by both cells (after the interruption, if
//!   one is set, during which neither serves it); its uplink moves to the target. The source
//!   is released a source release delay after the access: it leaves the UE's cell set and
//!   discards what it still holds for the UE (each packet was forwarded as a copy);
//! - `cho`: see `cho.rs`;
//! - path switch: a path switch delay after its request (at the attach; `daps`: the access;
//!   `fast-path-switch`: the command; `predicted`: a lead before it), the gateway tunnels the
//!   UE's downlink to the target. Packets already on the old path reach the source and are
//!   forwarded (`drop`, `bicast`: dropped).
//!
//! TCP outcome (as `lte_x2` classifies it, after Pacifico et al. §IV): the window opens at
//! the decision and closes once the senders of the UE's flows have had acknowledged all they
//! had outstanding at attach (`daps`: the release). `timeout` if an RTO fired in the window
//! that F-RTO did not find spurious, `spurious-timeout` if all were, else `halving` for a fast
//! recovery, else `optimal`.

use super::{Cellular, SchemeName, Timer};
use crate::engine::time::{s_to_ns, SimTime};
use crate::mobility::ran;
use crate::sim::{Cx, Flow};

/// How often the end of the outcome window is checked.
const WINDOW_POLL_NS: SimTime = 1_000_000;
/// How long a scheduled decision waits before checking again whether the UE's previous
/// handover has ended.
const RETRY_NS: SimTime = 1_000_000;

/// A step of the procedure, scheduled as an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The HO request ack reached the source: it sends the HO command.
    Command,
    /// Hard handover: the UE attaches to the target.
    Attach,
    /// DAPS: the UE's random access to the target succeeded.
    Access,
    /// DAPS: the interruption after the access is over; the UE is served again.
    Resume,
    /// DAPS: the source is released.
    Release,
    /// The gateway tunnels the UE's downlink to the target from now on.
    PathSwitch,
    /// Checks whether the outcome window has closed.
    WindowEnd,
    /// `bicast`: the gateway starts copying the UE's downlink to the target.
    BicastStart,
    /// The target stops waiting for the end marker and releases the direct packets it held.
    ReorderTimeout,
    /// The target has held no direct packet within the reordering timeout of the UE's attach
    /// and path switch: the handover may end, and the target goes on waiting for the end
    /// marker (a packet it holds later starts the timer).
    ReorderIdle,
    /// `cho`: the HO request acks are back; the UE has its candidates (CHO command).
    Prepared,
    /// `cho`: the source learns that the UE accessed the target (HANDOVER SUCCESS).
    SourceLearns,
    /// `cho`: the candidates not chosen are released (HANDOVER CANCEL).
    Cancel,
}

/// A ping-pong schedule: UE `ue` hands over to `cells[k % 2]` at `at + k * every`.
#[derive(Clone, Copy, Debug)]
pub struct PingPong {
    pub ue: usize,
    /// The first target and, once the first handover time has come, the cell the UE left.
    pub cells: [usize; 2],
    pub at_ns: SimTime,
    pub every_ns: SimTime,
    pub k: u64,
}

/// Congestion events of a UE's senders, counted so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowSnap {
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub fast_recoveries: u64,
    pub retransmits: u64,
}

impl FlowSnap {
    fn of(flows: &[Flow], ids: &[u32]) -> FlowSnap {
        let mut s = FlowSnap::default();
        for &f in ids {
            let st = &flows[f as usize].sender.stats;
            s.timeouts += st.timeouts;
            s.spurious_timeouts += st.frto_spurious;
            s.fast_recoveries += st.fast_recoveries;
            s.retransmits += st.retransmits;
        }
        s
    }

    fn since(self, before: FlowSnap) -> FlowSnap {
        FlowSnap {
            timeouts: self.timeouts - before.timeouts,
            spurious_timeouts: self.spurious_timeouts - before.spurious_timeouts,
            fast_recoveries: self.fast_recoveries - before.fast_recoveries,
            retransmits: self.retransmits - before.retransmits,
        }
    }

    /// `timeout` if an RTO fired that F-RTO did not find spurious, `spurious-timeout` if
    /// every RTO was found spurious, else `halving` for a fast recovery, else `optimal`.
    pub fn outcome(self) -> &'static str {
        if self.timeouts > self.spurious_timeouts {
            "timeout"
        } else if self.timeouts > 0 {
            "spurious-timeout"
        } else if self.fast_recoveries > 0 {
            "halving"
        } else {
            "optimal"
        }
    }
}

/// One handover of one UE, with what happened to its packets.
#[derive(Clone, Debug)]
pub struct Handover {
    pub ue: usize,
    pub source: usize,
    pub target: usize,
    pub scheme: SchemeName,
    pub decision_ns: SimTime,
    pub command_ns: Option<SimTime>,
    /// Hard: the UE attached to the target. DAPS: the access to the target succeeded.
    pub attach_ns: Option<SimTime>,
    pub release_ns: Option<SimTime>,
    pub path_switch_ns: Option<SimTime>,
    /// Packets the source forwarded over X2 (hard schemes; DAPS after the release).
    pub forwarded: u64,
    /// DAPS: copies the source forwarded while still serving the UE.
    pub forwarded_copies: u64,
    /// Packets dropped by the `drop` scheme.
    pub dropped: u64,
    /// DAPS: packets the source still held at its release (each had been forwarded).
    pub source_discarded: u64,
    /// Copies the UE's PDCP discarded (while this was the UE's latest handover).
    pub duplicates_discarded: u64,
    /// `pdcp_discard_duplicates = false`: copies that went on to TCP (same period).
    pub duplicates_passed: Option<u64>,
    /// Packets the UE's PDCP discarded because t-Reordering had given their SN up.
    pub late_discarded: u64,
    /// The longest in-order delivery at the UE stalled on a missing SN (same period).
    pub max_stall_ns: SimTime,
    /// The longest a packet waited in the UE's PDCP reordering buffer (same period).
    pub max_reordering_ns: SimTime,
    /// Radio packets (source, target) sent at the command and at the release (DAPS).
    pub radio_at_command: (u64, u64),
    pub radio_at_release: (u64, u64),
    /// `cho`: the cells prepared (others: the target).
    pub candidates: Vec<usize>,
    /// `cho`: when the UE received its candidates (the CHO command).
    pub prepared_ns: Option<SimTime>,
    /// `cho`: the execution condition held before the preparation was complete: the UE
    /// executes towards this cell once it is.
    pub exec_pending: Option<usize>,
    /// `cho`: the radio link to the source failed before the UE executed.
    pub rlf: bool,
    /// `cho`, early forwarding: the source copies what it receives to the candidates.
    pub early_copying: bool,
    /// `cho`, early: copies with an SN below this one were sent by the source already.
    pub sn_cut: Option<u64>,
    /// `cho`: the SN after the last one the source queued for the UE.
    pub source_next_sn: u64,
    pub cancelled: bool,
    /// `cho`: copies the target discarded as already sent by the source.
    pub early_discarded: u64,
    /// `cho`: copies discarded by candidates not chosen.
    pub cancelled_discarded: u64,
    /// The source forwards what it holds and receives for the UE to the target.
    pub forwarding: bool,
    /// `bicast`: the gateway copies the UE's downlink to the target, and the copies made.
    pub bicasting: bool,
    pub bicast_copies: u64,
    /// Target reordering: the target holds direct packets, how many it held, and the end
    /// marker's way.
    pub reorder_wait: bool,
    pub held_direct: u64,
    pub end_marker_at_source_ns: Option<SimTime>,
    pub end_marker_at_target_ns: Option<SimTime>,
    pub reordering_ended_ns: Option<SimTime>,
    pub reordering_timed_out: bool,
    /// No direct packet came within the reordering timeout of the attach and path switch.
    pub reorder_idle: bool,
    pub(super) snap_start: FlowSnap,
    snd_max_at_attach: Vec<u64>,
    /// Events inside the window, once it has closed, and when it closed.
    pub(super) result: Option<(FlowSnap, SimTime)>,
}

impl Cellular {
    /// Schedules the handovers of the scenario and the UEs' first measurements.
    pub(super) fn start(&mut self, cx: &mut Cx<Timer>, d: &super::CellularSection, trace: &[super::TraceRow]) {
        for h in &d.handovers {
            let (ue, target, at_ns) = (h.ue as usize, h.target as usize, s_to_ns(h.at_s));
            match h.every_s {
                None => cx.schedule(at_ns, Timer::Scheduled { ue, target }),
                Some(every) => {
                    let entry = self.ping_pong.len();
                    let every_ns = s_to_ns(every).max(1);
                    self.ping_pong.push(PingPong { ue, cells: [target, target], at_ns, every_ns, k: 0 });
                    cx.schedule(at_ns, Timer::PingPong { entry });
                }
            }
        }
        // A movement trace's rows after time 0, within the run (those at 0 gave first cells).
        let end = cx.end_ns();
        for r in trace.iter().filter(|r| r.at_s > 0.0 && s_to_ns(r.at_s) < end) {
            cx.schedule(s_to_ns(r.at_s), Timer::Scheduled { ue: r.ue as usize, target: r.cell as usize });
        }
        for u in 0..self.ran.ues.len() {
            let moves = self.motion[u].speed_mps != 0.0;
            if self.p.two_d && (moves || !self.walks.is_empty()) {
                cx.schedule(0, Timer::Measure2d { ue: u });
            } else if moves {
                cx.schedule(0, Timer::Measure { ue: u });
            }
        }
        self.start_rates(cx);
        if !self.p.radio_rate_table.is_empty() {
            self.radio_rates(cx);
        }
    }

    /// A scheduled decision: waits for a handover under way to end.
    pub(super) fn scheduled(&mut self, cx: &mut Cx<Timer>, u: usize, target: usize) {
        if self.state[u].active.is_some() {
            let at = cx.now() + RETRY_NS;
            cx.schedule(at, Timer::Scheduled { ue: u, target });
            return;
        }
        if self.state[u].serving != target {
            self.decide(cx, u, target);
        }
    }

    /// The next handover of a ping-pong schedule, and the one after it.
    pub(super) fn ping_pong(&mut self, cx: &mut Cx<Timer>, entry: usize) {
        let pp = &mut self.ping_pong[entry];
        if pp.k == 0 {
            pp.cells[1] = self.state[pp.ue].serving;
        }
        let (ue, target) = (pp.ue, pp.cells[(pp.k % 2) as usize]);
        pp.k += 1;
        let next = pp.every_ns.checked_mul(pp.k).and_then(|d| d.checked_add(pp.at_ns));
        if let Some(at) = next.filter(|&t| t < cx.end_ns()) {
            cx.schedule(at, Timer::PingPong { entry });
        }
        self.scheduled(cx, ue, target);
    }

    /// The UE's position at `t_ns`.
    pub(super) fn x_m(&self, u: usize, t_ns: SimTime) -> f64 {
        let m = self.motion[u];
        m.x0_m + m.speed_mps * t_ns as f64 / 1e9
    }

    /// Movement: finds when the next cell in the direction of travel enters the A3-like
    /// condition, and schedules the end of its time to trigger.
    pub(super) fn measure(&mut self, cx: &mut Cx<Timer>, u: usize) {
        let now = cx.now();
        if self.state[u].active.is_some() {
            return; // measured again when the handover ends
        }
        let s = self.state[u].serving;
        let v = self.motion[u].speed_mps;
        let n = if v > 0.0 { s + 1 } else { s.wrapping_sub(1) };
        let Some(&xn) = self.p.cell_x_m.get(n) else {
            return; // no further cell this way
        };
        let xs = self.p.cell_x_m[s];
        if self.p.hysteresis_m >= (xn - xs).abs() {
            return; // |x - xn| + h < |x - xs| never holds
        }
        // |x - xn| + h < |x - xs| between the two cells: x beyond the midpoint by h/2.
        let x_enter = (xs + xn) / 2.0 + v.signum() * self.p.hysteresis_m / 2.0;
        let t_enter_s = (x_enter - self.motion[u].x0_m) / v;
        if t_enter_s >= cx.end_ns() as f64 / 1e9 {
            return; // not in this run
        }
        let enter_ns = if t_enter_s <= 0.0 { 0 } else { s_to_ns(t_enter_s) };
        let from = enter_ns.max(now);
        debug_assert!((self.x_m(u, from) - xn).abs() <= (self.x_m(u, from) - xs).abs() + 1e-6);
        cx.schedule(from + self.p.time_to_trigger_ns, Timer::Triggered { ue: u, source: s, target: n });
        if self.p.scheme == SchemeName::Cho {
            let end_s = cx.end_ns() as f64 / 1e9;
            // The prepare and the radio link failure conditions are A3-like with their own
            // offsets, with no time to trigger.
            if let Some(at) = self.entry_ns(u, xs, xn, self.p.cho_prepare_offset_m, end_s) {
                cx.schedule(at.max(now), Timer::ChoPrepare { ue: u, source: s });
            }
            if let Some(at) = self.p.rlf_offset_m.and_then(|r| self.entry_ns(u, xs, xn, r, end_s)) {
                cx.schedule(at.max(now), Timer::RadioLinkFailure { ue: u, source: s });
            }
        }
    }

    /// When UE `u`, moving from the cell at `xs` towards the one at `xn`, is closer to `xn`
    /// than to `xs` by more than `offset_m` (None: not before `end_s`).
    fn entry_ns(&self, u: usize, xs: f64, xn: f64, offset_m: f64, end_s: f64) -> Option<SimTime> {
        let v = self.motion[u].speed_mps;
        if offset_m >= (xn - xs).abs() {
            return None;
        }
        let x = (xs + xn) / 2.0 + v.signum() * offset_m / 2.0;
        let t_s = (x - self.motion[u].x0_m) / v;
        (t_s < end_s).then(|| if t_s <= 0.0 { 0 } else { s_to_ns(t_s) })
    }

    /// The time to trigger is over: the handover starts unless the UE has moved on.
    pub(super) fn triggered(&mut self, cx: &mut Cx<Timer>, u: usize, source: usize, target: usize) {
        if self.p.two_d && !self.a3_held(u, target, cx.now()) {
            return; // the condition broke off, or started anew later
        }
        if self.p.scheme == SchemeName::Cho && self.state[u].serving == source {
            return self.cho_execution_condition(cx, u, target);
        }
        if self.state[u].active.is_none() && self.state[u].serving == source {
            self.decide(cx, u, target);
        }
    }

    /// The serving cell decides to hand UE `u` over to `target` now (`cho`: prepares it,
    /// and the UE executes as soon as it has its candidates).
    pub(super) fn decide(&mut self, cx: &mut Cx<Timer>, u: usize, target: usize) {
        let ho = self.open(cx, u, vec![target]);
        if self.p.scheme == SchemeName::Cho {
            self.handovers[ho].exec_pending = Some(target);
            return self.cho_request(cx, ho);
        }
        let now = cx.now();
        let (l, command) = (self.p.x2_delay_ns, now + 2 * self.p.x2_delay_ns);
        // HO request and HO request ack over X2.
        step(cx, ho, command, Step::Command);
        match self.p.scheme {
            SchemeName::Predicted => {
                let request = command.saturating_sub(self.p.prediction_lead_ns).max(now);
                step(cx, ho, request + self.p.path_switch_delay_ns, Step::PathSwitch);
            }
            SchemeName::Bicast => {
                // From the target's admission (the HO request reached it) at the earliest.
                let start = command.saturating_sub(self.p.bicast_lead_ns).max(now + l);
                step(cx, ho, start, Step::BicastStart);
            }
            _ => {}
        }
    }

    /// A new handover record of UE `u` from its serving cell to `candidates[0]`.
    pub(super) fn open(&mut self, cx: &mut Cx<Timer>, u: usize, candidates: Vec<usize>) -> usize {
        let now = cx.now();
        let ho = self.handovers.len();
        let snap_start = FlowSnap::of(cx.flows(), &self.ue_flows[u]);
        let target = candidates[0];
        self.handovers.push(Handover {
            ue: u,
            source: self.state[u].serving,
            target,
            scheme: self.p.scheme,
            decision_ns: now,
            command_ns: None,
            attach_ns: None,
            release_ns: None,
            path_switch_ns: None,
            forwarded: 0,
            forwarded_copies: 0,
            dropped: 0,
            source_discarded: 0,
            duplicates_discarded: 0,
            duplicates_passed: None,
            late_discarded: 0,
            max_stall_ns: 0,
            max_reordering_ns: 0,
            radio_at_command: (0, 0),
            radio_at_release: (0, 0),
            candidates,
            prepared_ns: None,
            exec_pending: None,
            rlf: false,
            early_copying: false,
            sn_cut: None,
            source_next_sn: 0,
            cancelled: false,
            early_discarded: 0,
            cancelled_discarded: 0,
            forwarding: false,
            bicasting: false,
            bicast_copies: 0,
            // The target admits the UE ready to reorder.
            reorder_wait: self.p.target_reordering,
            held_direct: 0,
            end_marker_at_source_ns: None,
            end_marker_at_target_ns: None,
            reordering_ended_ns: None,
            reordering_timed_out: false,
            reorder_idle: false,
            snap_start,
            snd_max_at_attach: Vec::new(),
            result: None,
        });
        self.state[u].active = Some(ho);
        self.state[u].last = Some(ho);
        // The handover's stall is measured from its decision on.
        self.pdcp[u].max_stall_ns = 0;
        ho
    }

    pub(super) fn on_step(&mut self, cx: &mut Cx<Timer>, h: usize, s: Step) {
        match s {
            Step::Command => self.command(cx, h),
            Step::Attach => self.attach(cx, h),
            Step::Access => self.access(cx, h),
            Step::Resume => self.resume(cx, h),
            Step::Release => self.release(cx, h),
            Step::PathSwitch => self.path_switch(cx, h),
            Step::WindowEnd => self.window_end(cx, h),
            Step::BicastStart => self.handovers[h].bicasting = true,
            Step::ReorderTimeout => {
                if self.handovers[h].reordering_ended_ns.is_none() {
                    self.handovers[h].reordering_timed_out = true;
                    self.stop_reordering(cx, h);
                }
            }
            Step::ReorderIdle => {
                if self.handovers[h].held_direct == 0 && self.handovers[h].reordering_ended_ns.is_none() {
                    self.handovers[h].reorder_idle = true;
                    self.end_if_done(cx, h);
                }
            }
            Step::Prepared => self.cho_prepared(cx, h),
            Step::SourceLearns => self.cho_source_learns(cx, h),
            Step::Cancel => self.cho_cancel(cx, h),
        }
    }

    /// Packets the (source, target) radio has sent to the handover's UE so far: what each
    /// cell offered to its radio link to the UE.
    pub(super) fn radio_packets(&self, cx: &Cx<Timer>, h: usize) -> (u64, u64) {
        let ho = &self.handovers[h];
        let sent = |c: usize| self.ran.cells[c].downlinks[ho.ue].map_or(0, |l| cx.links()[l as usize].stats.offered);
        (sent(ho.source), sent(ho.target))
    }

    /// The HO command: the target becomes the serving cell; the source empties its queue
    /// for the UE by the scheme's rule.
    fn command(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (u, source, target) = (self.handovers[h].ue, self.handovers[h].source, self.handovers[h].target);
        self.handovers[h].command_ns = Some(now);
        self.handovers[h].radio_at_command = self.radio_packets(cx, h);
        self.state[u].serving = target;
        match self.p.scheme {
            SchemeName::Daps => {
                self.state[u].daps_source = Some(source);
                let queued: Vec<_> = {
                    let b = &self.ran.cells[source].buffers;
                    b.queued(u).copied().collect()
                };
                for pkt in queued {
                    let copy = self.copy(cx, &pkt);
                    self.forward(cx, u, source, copy, true);
                }
                step(cx, h, now + self.p.target_access_delay_ns, Step::Access);
            }
            _ => {
                self.leave_source(cx, h);
                if self.p.scheme.forwards() {
                    self.handovers[h].forwarding = true;
                    self.forward_queue(cx, h);
                } else {
                    for pkt in self.ran.cells[source].buffers.drain(u, now) {
                        self.drop_for_handover(cx, u, pkt);
                    }
                }
                step(cx, h, now + self.p.interruption_ns, Step::Attach);
                if self.p.scheme == SchemeName::FastPathSwitch {
                    step(cx, h, now + self.p.path_switch_delay_ns, Step::PathSwitch);
                }
            }
        }
    }

    /// The UE leaves the source: no cell serves it, and its uplink goes to the target
    /// (which holds it until the UE attaches), or with `uplink_switch = "attach"` through the
    /// source until the attach.
    pub(super) fn leave_source(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let (u, target) = (self.handovers[h].ue, self.handovers[h].target);
        self.state[u].serving = target;
        self.ran.ues[u].cells.clear();
        if !self.p.uplink_at_attach {
            self.route_uplink(cx, u, target);
        }
    }

    /// The source forwards what it holds for the UE to the target; if the end marker has
    /// passed it already, a new one follows the forwarded packets.
    pub(super) fn forward_queue(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (u, source) = (self.handovers[h].ue, self.handovers[h].source);
        for pkt in self.ran.cells[source].buffers.drain(u, now) {
            self.forward(cx, u, source, pkt, false);
        }
        if self.handovers[h].end_marker_at_source_ns.is_some() {
            self.send_end_marker(cx, h, false);
        }
    }

    fn route_uplink(&mut self, cx: &mut Cx<Timer>, u: usize, c: usize) {
        let up = self.ran.ues[u].uplinks[c].expect("a UE has an uplink to every cell");
        ran::route_uplink(cx, self.ran.ues[u].node, up);
    }

    /// The target has the UE: held uplink goes out, the target serves the UE's queue.
    fn target_serves(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (u, target) = (self.handovers[h].ue, self.handovers[h].target);
        self.ran.ues[u].cells.attach(target);
        self.handovers[h].attach_ns.get_or_insert(now);
        let (me, ue_node) = (self.ran.cells[target].node, self.ran.ues[u].node);
        for pkt in self.ran.cells[target].buffers.release_uplink(ue_node) {
            cx.forward(me, pkt);
        }
        self.ran.serve(cx, target);
    }

    /// Hard handover: the UE attaches to the target, and the path switch follows.
    fn attach(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        if self.p.uplink_at_attach {
            let (u, target) = (self.handovers[h].ue, self.handovers[h].target);
            self.route_uplink(cx, u, target);
        }
        self.target_serves(cx, h);
        if !matches!(self.p.scheme, SchemeName::FastPathSwitch | SchemeName::Predicted) {
            step(cx, h, now + self.p.path_switch_delay_ns, Step::PathSwitch);
        }
        if self.p.scheme == SchemeName::Cho {
            self.cho_attached(cx, h);
        }
        self.open_window_end(cx, h);
        self.arm_reorder_timeout(cx, h);
        self.end_if_done(cx, h);
    }

    /// DAPS: the access to the target succeeded; the uplink moves there.
    fn access(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (u, target) = (self.handovers[h].ue, self.handovers[h].target);
        self.handovers[h].attach_ns = Some(now);
        self.route_uplink(cx, u, target);
        if self.p.interruption_ns > 0 {
            self.ran.ues[u].cells.clear();
            step(cx, h, now + self.p.interruption_ns, Step::Resume);
        } else {
            self.target_serves(cx, h);
        }
        step(cx, h, now + self.p.path_switch_delay_ns, Step::PathSwitch);
        step(cx, h, now + self.p.source_release_delay_ns, Step::Release);
    }

    /// DAPS: after the interruption, the source (unless released) and the target serve.
    fn resume(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let (u, source) = (self.handovers[h].ue, self.handovers[h].source);
        if self.state[u].daps_source == Some(source) {
            self.ran.ues[u].cells.attach(source);
            self.ran.serve(cx, source);
        }
        self.target_serves(cx, h);
    }

    /// DAPS: the source lets the UE go and discards what it still holds for it.
    fn release(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (u, source) = (self.handovers[h].ue, self.handovers[h].source);
        self.ran.ues[u].cells.detach(source);
        self.state[u].daps_source = None;
        self.handovers[h].release_ns = Some(now);
        self.handovers[h].radio_at_release = self.radio_packets(cx, h);
        for pkt in self.ran.cells[source].buffers.drain(u, now) {
            self.sn_of.remove(&pkt.uid);
            cx.counters_mut().dropped_handover += 1;
            self.handovers[h].source_discarded += 1;
        }
        self.open_window_end(cx, h);
        self.end_if_done(cx, h);
    }

    /// The gateway tunnels the UE's downlink to the target.
    fn path_switch(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let (u, target) = (self.handovers[h].ue, self.handovers[h].target);
        self.ran.ues[u].path = target;
        self.handovers[h].path_switch_ns = Some(cx.now());
        // Bicasting ends: the gateway sends to the target only.
        self.handovers[h].bicasting = false;
        if self.p.end_marker && (self.handovers[h].reorder_wait || self.p.end_marker_always) {
            self.send_end_marker(cx, h, true);
        }
        if self.p.release_on_empty {
            self.release_if_path_empty(cx, u);
        }
        self.arm_reorder_timeout(cx, h);
        self.end_if_done(cx, h);
    }

    /// The handover is over once the path has switched (and, for DAPS, the source is
    /// released): the UE may hand over again, and movement measures anew.
    pub(super) fn end_if_done(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let ho = &self.handovers[h];
        let released = ho.scheme != SchemeName::Daps || ho.release_ns.is_some();
        let cancelled = ho.scheme != SchemeName::Cho || ho.cancelled;
        let settled = ho.attach_ns.is_some() && (!ho.reorder_wait || ho.reorder_idle) && released && cancelled;
        if ho.path_switch_ns.is_none() || !settled || self.state[ho.ue].active != Some(h) {
            return;
        }
        let u = ho.ue;
        self.state[u].active = None;
        if self.p.two_d {
            self.a3_reset(u);
        } else if self.motion[u].speed_mps != 0.0 {
            let now = cx.now();
            cx.schedule(now, Timer::Measure { ue: u });
        }
    }

    /// Notes what the UE's senders have outstanding and starts checking the window's end.
    fn open_window_end(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let u = self.handovers[h].ue;
        let marks = self.ue_flows[u].iter().map(|&f| cx.flows()[f as usize].sender.snd_max()).collect();
        self.handovers[h].snd_max_at_attach = marks;
        let now = cx.now();
        step(cx, h, now, Step::WindowEnd);
    }

    fn window_end(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let u = self.handovers[h].ue;
        let flows = cx.flows();
        let pending = self.ue_flows[u]
            .iter()
            .zip(&self.handovers[h].snd_max_at_attach)
            .any(|(&f, &mark)| flows[f as usize].sender.snd_una() < mark);
        if pending {
            step(cx, h, now + WINDOW_POLL_NS, Step::WindowEnd);
            return;
        }
        let snap = FlowSnap::of(flows, &self.ue_flows[u]).since(self.handovers[h].snap_start);
        self.handovers[h].result = Some((snap, now));
    }

    /// Events of UE `u`'s senders since handover `h` began, up to the end of the run.
    pub(super) fn snap_until_end(&self, flows: &[Flow], h: usize) -> FlowSnap {
        let ho = &self.handovers[h];
        FlowSnap::of(flows, &self.ue_flows[ho.ue]).since(ho.snap_start)
    }
}

/// Schedules step `s` of handover `h` at `at`.
pub(super) fn step(cx: &mut Cx<Timer>, h: usize, at: SimTime, s: Step) {
    cx.schedule(at, Timer::Handover { ho: h, step: s });
}

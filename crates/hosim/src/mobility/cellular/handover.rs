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
//!   midpoint between the two cells moved on by half the hysteresis.
//!
//! The procedure, for decision time t0 and X2 latency L (TS 38.300 §9.2.3.2, §9.2.3.2.1):
//! - t0: the source sends the HO request over X2; t0 + L: the target admits the UE and
//!   answers; t0 + 2L: the source sends the HO command. From the command on, the target is
//!   the UE's serving cell, and the gateway still tunnels to the source;
//! - `drop` and `forward` (hard handover): at the command the UE leaves the source (no cell
//!   serves it for the interruption time) and its uplink goes to the target, which holds it
//!   until the UE attaches. The source drops (`drop`) or forwards over X2 (`forward`) what it
//!   holds for the UE, and does the same with what still arrives for it;
//! - `daps`: at the command the source keeps serving the UE, and forwards a copy of what it
//!   holds and of what arrives, with the PDCP SN, to the target. The UE accesses the target
//!   a target access delay later and is then served by both cells (after the interruption, if
//!   one is set, during which neither serves it); its uplink moves to the target. The source
//!   is released a source release delay after the access: it leaves the UE's cell set and
//!   discards what it still holds for the UE (each packet was forwarded as a copy);
//! - path switch: a path switch delay after the attach (`daps`: the access), the gateway
//!   tunnels the UE's downlink to the target. Packets already on the old path reach the
//!   source and are forwarded (`drop`: dropped).
//!
//! TCP outcome (as `lte_x2` classifies it, after Pacifico et al. §IV): the window opens at
//! the decision and closes once the senders of the UE's flows have had acknowledged all they
//! had outstanding at attach (`daps`: the release). `timeout` if an RTO fired in the window,
//! else `halving` for a fast recovery, else `optimal`.

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

    pub fn outcome(self) -> &'static str {
        if self.timeouts > 0 {
            "timeout"
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
    /// Packets the UE's PDCP discarded because t-Reordering had given their SN up.
    pub late_discarded: u64,
    /// The longest in-order delivery at the UE stalled on a missing SN (same period).
    pub max_stall_ns: SimTime,
    /// The longest a packet waited in the UE's PDCP reordering buffer (same period).
    pub max_reordering_ns: SimTime,
    /// Radio packets (source, target) sent at the command and at the release (DAPS).
    pub radio_at_command: (u64, u64),
    pub radio_at_release: (u64, u64),
    pub(super) snap_start: FlowSnap,
    snd_max_at_attach: Vec<u64>,
    /// Events inside the window, once it has closed, and when it closed.
    pub(super) result: Option<(FlowSnap, SimTime)>,
}

impl Cellular {
    /// Schedules the handovers of the scenario and the UEs' first measurements.
    pub(super) fn start(&mut self, cx: &mut Cx<Timer>, d: &super::CellularSection) {
        for h in &d.handovers {
            cx.schedule(s_to_ns(h.at_s), Timer::Scheduled { ue: h.ue as usize, target: h.target as usize });
        }
        for u in 0..self.ran.ues.len() {
            if self.motion[u].speed_mps != 0.0 {
                cx.schedule(0, Timer::Measure { ue: u });
            }
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

    /// The UE's position at `t_ns`.
    fn x_m(&self, u: usize, t_ns: SimTime) -> f64 {
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
    }

    /// The time to trigger is over: the handover starts unless the UE has moved on.
    pub(super) fn triggered(&mut self, cx: &mut Cx<Timer>, u: usize, source: usize, target: usize) {
        if self.state[u].active.is_none() && self.state[u].serving == source {
            self.decide(cx, u, target);
        }
    }

    /// The serving cell decides to hand UE `u` over to `target` now.
    fn decide(&mut self, cx: &mut Cx<Timer>, u: usize, target: usize) {
        let now = cx.now();
        let ho = self.handovers.len();
        let snap_start = FlowSnap::of(cx.flows(), &self.ue_flows[u]);
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
            late_discarded: 0,
            max_stall_ns: 0,
            max_reordering_ns: 0,
            radio_at_command: (0, 0),
            radio_at_release: (0, 0),
            snap_start,
            snd_max_at_attach: Vec::new(),
            result: None,
        });
        self.state[u].active = Some(ho);
        self.state[u].last = Some(ho);
        // The handover's stall is measured from its decision on.
        self.pdcp[u].max_stall_ns = 0;
        // HO request and HO request ack over X2.
        step(cx, ho, now + 2 * self.p.x2_delay_ns, Step::Command);
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
        }
    }

    /// Packets the (source, target) radio has sent to the handover's UE so far: what each
    /// cell offered to its radio link to the UE.
    fn radio_packets(&self, cx: &Cx<Timer>, h: usize) -> (u64, u64) {
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
            SchemeName::Drop | SchemeName::Forward => {
                self.ran.ues[u].cells.clear();
                self.route_uplink(cx, u, target);
                let queued = self.ran.cells[source].buffers.drain(u, now);
                for pkt in queued {
                    if self.p.scheme == SchemeName::Drop {
                        self.drop_for_handover(cx, u, pkt);
                    } else {
                        self.forward(cx, u, source, pkt, false);
                    }
                }
                step(cx, h, now + self.p.interruption_ns, Step::Attach);
            }
            SchemeName::Daps => {
                self.state[u].daps_source = Some(source);
                let queued: Vec<_> = {
                    let b = &self.ran.cells[source].buffers;
                    b.queues[u].iter(&b.store).copied().collect()
                };
                for pkt in queued {
                    let copy = self.copy(cx, &pkt);
                    self.forward(cx, u, source, copy, true);
                }
                step(cx, h, now + self.p.target_access_delay_ns, Step::Access);
            }
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
        self.target_serves(cx, h);
        step(cx, h, now + self.p.path_switch_delay_ns, Step::PathSwitch);
        self.open_window_end(cx, h);
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
        self.end_if_done(cx, h);
    }

    /// The handover is over once the path has switched (and, for DAPS, the source is
    /// released): the UE may hand over again, and movement measures anew.
    fn end_if_done(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let ho = &self.handovers[h];
        let released = ho.scheme != SchemeName::Daps || ho.release_ns.is_some();
        if ho.path_switch_ns.is_none() || !released || self.state[ho.ue].active != Some(h) {
            return;
        }
        let u = ho.ue;
        self.state[u].active = None;
        if self.motion[u].speed_mps != 0.0 {
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
fn step(cx: &mut Cx<Timer>, h: usize, at: SimTime, s: Step) {
    cx.schedule(at, Timer::Handover { ho: h, step: s });
}

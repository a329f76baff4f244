//! Conditional handover (TS 38.300 §9.2.3.4).
//!
//! - Preparation: when a neighbour is closer than the serving cell by more than
//!   `cho_prepare_offset_m` (an A3-like prepare condition on distance, negative offsets
//!   before the border), the source sends HO requests to up to `cho_candidates` cells meeting
//!   it, the closest first; with their acks (two X2 latencies) the UE has its candidates
//!   (the CHO command).
//! - Forwarding (`cho_forwarding`): `early`, from the preparation the source sends each
//!   candidate a copy, with its SN, of what it holds and receives for the UE (early data
//!   forwarding, §9.2.3.4.2); the candidates keep the copies. `late`, the source forwards
//!   only once the target has reported the UE's access (HANDOVER SUCCESS, one X2 latency
//!   after the attach), to the target alone, as a hard handover does.
//! - Execution: the UE executes when the execution condition (the A3-like rule with the
//!   hysteresis, for the time to trigger) holds for a candidate. It leaves the source and
//!   attaches to the candidate `interruption_s` later; no HO command latency remains. Early:
//!   the source's SN status tells the target which copies the source sent already (those are
//!   discarded), and the source discards what it still holds (each had a copy forwarded).
//!   The candidates not chosen are released with HANDOVER CANCEL (two X2 latencies after the
//!   access) and discard their copies.
//! - Late execution: if the serving cell's radio link fails first (a neighbour closer by more
//!   than `rlf_offset_m`, a distance stand-in for the signal falling below Qout), the UE
//!   re-establishes in the best cell `rlf_interruption_s` later. A prepared candidate takes
//!   it as an execution (CHO recovery, §9.2.3.4.3 "if the selected cell is a CHO candidate");
//!   an unprepared cell fetches the context, and forwarding is late.

use super::handover::{step, Step};
use super::{Cellular, SchemeName, Timer};
use crate::engine::time::SimTime;
use crate::net::packet::Packet;
use crate::sim::Cx;

impl Cellular {
    /// The prepare condition holds for a neighbour of `source`: the source prepares the
    /// closest cells meeting it.
    pub(super) fn cho_prepare(&mut self, cx: &mut Cx<Timer>, u: usize, source: usize) {
        if self.state[u].active.is_some() || self.state[u].serving != source {
            return;
        }
        let dist = self.cell_dists_m(u, cx.now());
        let ds = dist[source];
        let mut near: Vec<(f64, usize)> = (dist.iter().enumerate())
            .filter(|&(c, _)| c != source)
            .map(|(c, &d)| (d, c))
            .filter(|&(d, _)| d + self.p.cho_prepare_offset_m < ds + 1e-6)
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        near.truncate(self.p.cho_candidates);
        if near.is_empty() {
            return;
        }
        let h = self.open(cx, u, near.into_iter().map(|(_, c)| c).collect());
        self.cho_request(cx, h);
    }

    /// UE `u`'s distance to every cell at `t`: along the line, or in the plane off it.
    fn cell_dists_m(&mut self, u: usize, t: SimTime) -> Vec<f64> {
        if self.p.two_d {
            return (0..self.p.cell_xy_m.len()).map(|c| self.dist_m(u, c, t)).collect();
        }
        let x = self.x_m(u, t);
        self.p.cell_x_m.iter().map(|&xc| (x - xc).abs()).collect()
    }

    /// Off the line: at each measurement of UE `u`, the prepare condition (with no handover
    /// under way) and the radio link failure condition (until the UE executes), each the
    /// A3-like rule on the measured distances with its own offset and no time to trigger.
    /// With no direction of travel, a negative prepare offset is met by the cell the UE has
    /// just left too; a preparation whose candidates all have stopped meeting the prepare
    /// condition before the UE executed is withdrawn (the source cancels it, TS 38.300
    /// §9.2.3.4.2, and the candidates discard what they kept).
    pub(super) fn cho_measure_2d(&mut self, cx: &mut Cx<Timer>, u: usize) {
        let now = cx.now();
        let s = self.state[u].serving;
        let dist = self.cell_dists_m(u, now);
        let offset = self.p.cho_prepare_offset_m;
        let meets = |offset: f64| dist.iter().enumerate().any(|(c, &d)| c != s && d + offset < dist[s]);
        if let Some(h) = self.state[u].active {
            let ho = &self.handovers[h];
            let waiting = ho.scheme == SchemeName::Cho && ho.command_ns.is_none() && ho.prepared_ns.is_some();
            if waiting && ho.candidates.iter().all(|&c| dist[c] + offset >= dist[s]) {
                self.cho_withdraw(cx, h);
            }
        }
        if self.state[u].active.is_none() && meets(offset) {
            self.cho_prepare(cx, u, s);
        }
        let executing = self.state[u].active.is_some_and(|h| self.handovers[h].command_ns.is_some());
        if !executing && self.p.rlf_offset_m.is_some_and(meets) {
            self.radio_link_failure(cx, u, s);
        }
    }

    /// The source cancels a preparation the UE did not execute: the candidates discard the
    /// copies they kept (and those still on their way), and the UE may be prepared anew.
    fn cho_withdraw(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let u = self.handovers[h].ue;
        let ho = &mut self.handovers[h];
        (ho.cancelled, ho.early_copying, ho.exec_pending) = (true, false, None);
        for i in 0..self.handovers[h].candidates.len() {
            let c = self.handovers[h].candidates[i];
            for pkt in self.ran.cells[c].buffers.release_held(u, now) {
                self.handovers[h].cancelled_discarded += 1;
                self.discard(cx, pkt);
            }
        }
        self.state[u].active = None;
    }

    /// HO requests to every candidate and their acks over X2.
    pub(super) fn cho_request(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let at = cx.now() + 2 * self.p.x2_delay_ns;
        step(cx, h, at, Step::Prepared);
    }

    /// The UE has its candidates. Early forwarding starts with a copy of what the source
    /// holds; an execution condition that held already executes now.
    pub(super) fn cho_prepared(&mut self, cx: &mut Cx<Timer>, h: usize) {
        self.handovers[h].prepared_ns = Some(cx.now());
        if self.handovers[h].command_ns.is_some() || self.handovers[h].cancelled {
            return; // the radio link failed first, or the preparation was withdrawn
        }
        if self.p.cho_early {
            self.handovers[h].early_copying = true;
            let (u, source) = (self.handovers[h].ue, self.handovers[h].source);
            let queued: Vec<Packet> = {
                let b = &self.ran.cells[source].buffers;
                b.queued(u).copied().collect()
            };
            for pkt in &queued {
                self.copy_to_candidates(cx, h, pkt);
            }
        }
        if let Some(target) = self.handovers[h].exec_pending.take() {
            self.cho_execute(cx, h, target, self.p.interruption_ns);
        }
    }

    fn copy_to_candidates(&mut self, cx: &mut Cx<Timer>, h: usize, pkt: &Packet) {
        let (u, source) = (self.handovers[h].ue, self.handovers[h].source);
        for i in 0..self.handovers[h].candidates.len() {
            let c = self.handovers[h].candidates[i];
            let copy = self.copy(cx, pkt);
            self.forward_to(cx, u, source, c, copy, true);
        }
    }

    /// A direct packet reached the source cell `c` that serves UE `u`: during a CHO it
    /// notes the SN and, with early forwarding, copies it to the candidates.
    pub(super) fn cho_copy_early(&mut self, cx: &mut Cx<Timer>, u: usize, c: usize, pkt: &Packet) {
        let Some(h) = self.state[u].active else { return };
        if self.handovers[h].scheme != SchemeName::Cho || self.handovers[h].source != c {
            return;
        }
        if let Some(&sn) = self.sn_of.get(&pkt.uid) {
            let ho = &mut self.handovers[h];
            ho.source_next_sn = ho.source_next_sn.max(sn + 1);
        }
        if self.handovers[h].early_copying {
            self.copy_to_candidates(cx, h, pkt);
        }
    }

    /// A forwarded packet of UE `u` reached CHO candidate `c`. Before the execution the
    /// candidates keep the copies; after it the target discards copies the source sent
    /// already, and the others keep what comes until the cancel, then discard it. Returns the
    /// packet if it is not a CHO candidate's to handle (the general rules apply).
    pub(super) fn cho_candidate_receives(
        &mut self,
        cx: &mut Cx<Timer>,
        h: usize,
        c: usize,
        u: usize,
        pkt: Packet,
        direct: bool,
    ) -> Option<Packet> {
        let ho = &self.handovers[h];
        if ho.scheme != SchemeName::Cho || direct || c == ho.source || !ho.candidates.contains(&c) {
            return Some(pkt);
        }
        if ho.cancelled && ho.command_ns.is_none() {
            // A copy of a withdrawn preparation.
            self.handovers[h].cancelled_discarded += 1;
            self.discard(cx, pkt);
            return None;
        }
        if ho.command_ns.is_none() || (c != ho.target && !ho.cancelled) {
            self.hold(cx, c, u, pkt);
            return None;
        }
        if c == ho.target {
            let sent_already = ho.sn_cut.zip(self.sn_of.get(&pkt.uid)).is_some_and(|(cut, &sn)| sn < cut);
            if !sent_already {
                return Some(pkt);
            }
            self.handovers[h].early_discarded += 1;
        } else {
            self.handovers[h].cancelled_discarded += 1;
        }
        self.discard(cx, pkt);
        None
    }

    /// The execution condition holds for `target`: the UE executes if it has the cell as a
    /// candidate, or once the preparation is complete; with nothing prepared, the source
    /// prepares the cell now.
    pub(super) fn cho_execution_condition(&mut self, cx: &mut Cx<Timer>, u: usize, target: usize) {
        let Some(h) = self.state[u].active else {
            return self.decide(cx, u, target);
        };
        let ho = &self.handovers[h];
        if ho.scheme != SchemeName::Cho || ho.command_ns.is_some() || !ho.candidates.contains(&target) {
            return;
        }
        if ho.prepared_ns.is_none() {
            self.handovers[h].exec_pending = Some(target);
            return;
        }
        self.cho_execute(cx, h, target, self.p.interruption_ns);
    }

    /// The radio link to `source` failed before UE `u` left it: the UE re-establishes in the
    /// best cell after the failure's own interruption.
    pub(super) fn radio_link_failure(&mut self, cx: &mut Cx<Timer>, u: usize, source: usize) {
        if self.state[u].serving != source {
            return; // executed in time
        }
        let dist = self.cell_dists_m(u, cx.now());
        let h = match self.state[u].active {
            Some(h) if self.handovers[h].command_ns.is_none() => h,
            Some(_) => return,
            None => {
                let best = nearest_but(&dist, source);
                self.open(cx, u, vec![best])
            }
        };
        let best = (self.handovers[h].candidates.iter().copied())
            .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
            .expect("a handover has a candidate");
        self.handovers[h].rlf = true;
        self.handovers[h].exec_pending = None;
        self.cho_execute(cx, h, best, self.p.rlf_interruption_ns);
    }

    /// The UE leaves the source for `target` and attaches `interruption_ns` later.
    fn cho_execute(&mut self, cx: &mut Cx<Timer>, h: usize, target: usize, interruption_ns: SimTime) {
        let now = cx.now();
        let (u, source) = (self.handovers[h].ue, self.handovers[h].source);
        self.handovers[h].target = target;
        self.handovers[h].command_ns = Some(now);
        self.handovers[h].radio_at_command = self.radio_packets(cx, h);
        self.handovers[h].early_copying = false;
        self.leave_source(cx, h);
        let ho = &self.handovers[h];
        if self.p.cho_early && ho.prepared_ns.is_some() && ho.candidates.contains(&target) {
            // The SN status: copies of what the source sent already are not sent again, and
            // what the source still holds has its copy at the target.
            let cut = {
                let b = &self.ran.cells[source].buffers;
                let head = b.queued(u).next().and_then(|p| self.sn_of.get(&p.uid).copied());
                head.unwrap_or(ho.source_next_sn)
            };
            self.handovers[h].sn_cut = Some(cut);
            for pkt in self.ran.cells[source].buffers.drain(u, now) {
                self.handovers[h].source_discarded += 1;
                self.discard(cx, pkt);
            }
            for pkt in self.ran.cells[target].buffers.release_held(u, now) {
                if let Some(pkt) = self.cho_candidate_receives(cx, h, target, u, pkt, false) {
                    self.enqueue(cx, target, u, pkt);
                }
            }
            self.handovers[h].forwarding = true;
        }
        step(cx, h, now + interruption_ns, Step::Attach);
    }

    /// The UE accessed the target: the source learns of it one X2 latency later (and then
    /// forwards, if it did not yet), and releases the other candidates one more later.
    pub(super) fn cho_attached(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let (now, l) = (cx.now(), self.p.x2_delay_ns);
        if !self.handovers[h].forwarding {
            step(cx, h, now + l, Step::SourceLearns);
        }
        step(cx, h, now + 2 * l, Step::Cancel);
    }

    pub(super) fn cho_source_learns(&mut self, cx: &mut Cx<Timer>, h: usize) {
        self.handovers[h].forwarding = true;
        self.forward_queue(cx, h);
    }

    /// HANDOVER CANCEL: the candidates not chosen discard the copies they kept.
    pub(super) fn cho_cancel(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let (u, target) = (self.handovers[h].ue, self.handovers[h].target);
        self.handovers[h].cancelled = true;
        for i in 0..self.handovers[h].candidates.len() {
            let c = self.handovers[h].candidates[i];
            if c == target {
                continue;
            }
            for pkt in self.ran.cells[c].buffers.release_held(u, now) {
                self.handovers[h].cancelled_discarded += 1;
                self.discard(cx, pkt);
            }
        }
        self.end_if_done(cx, h);
    }
}

/// The cell nearest by `dist` other than `not` (the lower index on a tie).
fn nearest_but(dist: &[f64], not: usize) -> usize {
    (0..dist.len()).filter(|&c| c != not).min_by(|&a, &b| dist[a].total_cmp(&dist[b])).unwrap_or(not)
}

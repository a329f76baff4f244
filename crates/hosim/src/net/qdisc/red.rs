//! RED (Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance", 1993):
//! an early drop, or for ECN-capable packets a CE mark (RFC 3168 §5, §7), with a probability
//! that grows with the average queue length. The packets wait in the queue's FIFO
//! ([`super::Queue`]); RED decides at enqueue only.

use rand::Rng as _;

use crate::engine::rng::Rng;
use crate::engine::time::SimTime;
use crate::net::packet::{Ecn, Packet};

#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds on the average queue length, in packets.
    pub min_th_pkts: f64,
    pub max_th_pkts: f64,
    pub max_p: f64,
    /// Averaging weight w_q of the EWMA.
    pub weight: f64,
    /// Mark ECN-capable packets instead of dropping them (RFC 3168 §7).
    pub ecn: bool,
    /// Transmission time of a typical packet, used to age the average over idle periods.
    pub typical_tx_ns: u64,
    /// ns-2.35's byte mode, with `mean_pktsize_` in bytes (None: packets). ns-2.35's
    /// `Queue/RED` has `queue_in_bytes_` and `bytes_` true by default (tcl/lib/ns-default.tcl;
    /// queue/red.cc, `REDQueue::reset`, `enque`, `modify_p`): the average is taken over the
    /// bytes queued, the thresholds are `thresh_` and `maxthresh_` times `mean_pktsize_`
    /// bytes, the count since the last mark or drop is in bytes divided (integer division) by
    /// `mean_pktsize_`, the probability is scaled by the packet's size over `mean_pktsize_`,
    /// and the queue holds `limit_` times `mean_pktsize_` bytes (a packet is dropped if the
    /// bytes already queued reach that). `typical_tx_ns` should then be the transmission
    /// time of `mean_pktsize_` bytes (ns-2's `ptc_` for the idle-time rule). The rest of
    /// `REDQueue::enque` comes with it, with ns-2's defaults: `wait_` (no early drop until
    /// `count` × p reaches 1, `modify_p`), `old` (the first arrival after the average crosses
    /// `thresh_`, or after the queue emptied above it, restarts the count untested), no early
    /// drop at an empty queue (`qlen > 1`), and the idle time counted from the end of the
    /// last transmission in whole packets of `ptc_` (`deque`, `estimator`).
    pub ns2_mean_pktsize_bytes: Option<u32>,
}

/// RED's state at one queue.
#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    avg: f64,
    /// Packets since the last mark or drop (-1: below min_th); in ns-2's byte mode, bytes
    /// (including the arriving packet's, as ns-2's `count_bytes`).
    count: i64,
    /// ns-2's byte mode: `edv_.old`, set once an arrival above `thresh_` has restarted the
    /// count; cleared below `thresh_` or at an empty queue.
    old: bool,
    /// When the queue last became empty (None: not empty), to age the average; in ns-2's
    /// byte mode, when the link finished sending the last packet (ns-2's `idletime_`).
    pub(super) idle_since: Option<SimTime>,
}

/// RED's decision on an arriving packet.
pub(super) enum Early {
    Pass,
    Mark,
    Drop,
    /// ns-2's byte mode: the bytes queued reach the limit (a forced drop).
    Full,
}

impl Red {
    pub fn new(params: RedParams) -> Red {
        Red { params, avg: 0.0, count: -1, old: false, idle_since: Some(0) }
    }

    /// The RED algorithm of Floyd & Jacobson (1993), Fig. 2, with the idle-time correction,
    /// for a packet arriving at a queue of `qlen` packets and `qbytes` bytes whose limit is
    /// `limit_pkts` packets (used in ns-2's byte mode only).
    pub(super) fn decide(
        &mut self,
        now: SimTime,
        qlen: usize,
        qbytes: u64,
        limit_pkts: Option<u32>,
        pkt: &Packet,
        rng: &mut Rng,
    ) -> Early {
        if let Some(mean) = self.params.ns2_mean_pktsize_bytes {
            return self.decide_ns2_bytes(now, qbytes, limit_pkts, mean, pkt, rng);
        }
        let p = &self.params;
        match self.idle_since {
            Some(since) => {
                let m = now.saturating_sub(since) as f64 / p.typical_tx_ns.max(1) as f64;
                self.avg *= (1.0 - p.weight).powf(m);
            }
            None => self.avg = (1.0 - p.weight) * self.avg + p.weight * qlen as f64,
        }
        let congested = if self.avg < p.min_th_pkts {
            self.count = -1;
            false
        } else if self.avg < p.max_th_pkts {
            self.count += 1;
            let pb = p.max_p * (self.avg - p.min_th_pkts) / (p.max_th_pkts - p.min_th_pkts);
            let denom = 1.0 - self.count as f64 * pb;
            let pa = if denom <= 0.0 { 1.0 } else { (pb / denom).min(1.0) };
            if rng.gen::<f64>() < pa {
                self.count = 0;
                true
            } else {
                false
            }
        } else {
            // Above max_th every packet is dropped, ECN-capable or not (RFC 3168 §7).
            self.count = 0;
            return Early::Drop;
        };
        early_verdict(congested, p.ecn && pkt.ecn != Ecn::NotEct)
    }

    /// When the queue becomes empty as a packet of `size_bytes` starts its transmission: in
    /// ns-2's byte mode the queue is idle only once the link has sent it (`REDQueue::deque`
    /// finds the queue empty when the link asks for the next packet), `size_bytes` /
    /// `mean_pktsize_` transmission times of a mean-size packet later; else at once.
    pub(super) fn idle_from(&self, now: SimTime, size_bytes: u32) -> SimTime {
        match self.params.ns2_mean_pktsize_bytes {
            Some(mean) => now + self.params.typical_tx_ns * size_bytes as u64 / mean.max(1) as u64,
            None => now,
        }
    }

    /// [`Red::decide`] in ns-2.35's byte mode (`queue_in_bytes_`, `bytes_`), following
    /// `REDQueue::enque`, `drop_early` and `modify_p` of queue/red.cc with ns-2's defaults
    /// (`wait_` true, `drop_tail_`), `mean_pktsize_` = `mean` bytes. Every packet is dropped
    /// above max_th (ns-2's `gentle_` ramp above `maxthresh_` is not modelled), marks for
    /// ECN-capable packets.
    fn decide_ns2_bytes(
        &mut self,
        now: SimTime,
        qbytes: u64,
        limit_pkts: Option<u32>,
        mean: u32,
        pkt: &Packet,
        rng: &mut Rng,
    ) -> Early {
        let p = &self.params;
        let mean_f = mean as f64;
        // `enque`: after an idle period, m = int(ptc_ × idle time) packets' worth of decay,
        // then the estimator's one step with the bytes queued (`estimator(q, m + 1, ...)`).
        if let Some(since) = self.idle_since.filter(|&since| now >= since) {
            let m = (now - since) / p.typical_tx_ns.max(1);
            self.avg *= (1.0 - p.weight).powi(m.min(i32::MAX as u64) as i32);
        }
        self.avg = (1.0 - p.weight) * self.avg + p.weight * qbytes as f64;
        // `++count; count_bytes += size`: the count runs in bytes here.
        let size = pkt.size_bytes as i64;
        self.count = self.count.max(0) + size;
        let (min_th, max_th) = (p.min_th_pkts * mean_f, p.max_th_pkts * mean_f);
        let mut verdict = Early::Pass;
        if self.avg >= min_th && qbytes > 1 {
            if self.avg >= max_th {
                verdict = Early::Drop;
            } else if !self.old {
                // The average has just crossed `thresh_` (or the queue has refilled above
                // it): restart the count at this packet, untested.
                self.count = size;
                self.old = true;
            } else if self.drop_early(mean, pkt, rng) {
                verdict = early_verdict(true, self.params.ecn && pkt.ecn != Ecn::NotEct);
            }
        } else {
            self.old = false;
        }
        // `qlen >= qlim` with both in bytes: the queue holds `limit_` x `mean_pktsize_`.
        if limit_pkts.is_some_and(|l| qbytes >= l as u64 * mean as u64) {
            self.count = 0;
            return Early::Full;
        }
        if matches!(verdict, Early::Drop) {
            self.count = 0;
        }
        verdict
    }

    /// `drop_early` with `modify_p` in byte mode with `wait_`: p_b from the average, then
    /// with count1 = `count_bytes` / `mean_pktsize_` (an integer division in ns-2) no drop
    /// while count1 × p_b < 1, p_b / (2 − count1 × p_b) below 2, 1 above; scaled by the
    /// packet's size over `mean_pktsize_` (`bytes_`). A drop or mark restarts the count.
    fn drop_early(&mut self, mean: u32, pkt: &Packet, rng: &mut Rng) -> bool {
        let p = &self.params;
        let (min_th, max_th) = (p.min_th_pkts * mean as f64, p.max_th_pkts * mean as f64);
        let pb = p.max_p * (self.avg - min_th) / (max_th - min_th);
        let count1 = (self.count / mean as i64) as f64;
        let mut pa = if count1 * pb < 1.0 {
            0.0
        } else if count1 * pb < 2.0 {
            pb / (2.0 - count1 * pb)
        } else {
            1.0
        };
        if pa < 1.0 {
            pa = pa * pkt.size_bytes as f64 / mean as f64;
        }
        // `u <= v_prob` with u uniform on [0, 1).
        if rng.gen::<f64>() <= pa.min(1.0) {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

/// What an arrival RED chose (`congested`) gets: marked if it and the queue are ECN-capable
/// (RFC 3168 §7), else dropped.
fn early_verdict(congested: bool, ecn_capable: bool) -> Early {
    match (congested, ecn_capable) {
        (false, _) => Early::Pass,
        (true, true) => Early::Mark,
        (true, false) => Early::Drop,
    }
}

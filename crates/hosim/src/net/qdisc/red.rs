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
    /// time of `mean_pktsize_` bytes (ns-2's `ptc_` for the idle-time rule).
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
    /// When the queue last became empty (None: not empty), to age the average.
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
        Red { params, avg: 0.0, count: -1, idle_since: Some(0) }
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

    /// [`Red::decide`] in ns-2.35's byte mode (`queue_in_bytes_`, `bytes_`; queue/red.cc,
    /// `REDQueue::enque`, `drop_early`, `modify_p`), with `mean_pktsize_` = `mean` bytes. The
    /// rest is as in packet mode: Floyd & Jacobson's uniform spacing without `wait_`, every
    /// packet dropped above max_th, marks for ECN-capable packets.
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
        match self.idle_since {
            Some(since) => {
                let m = now.saturating_sub(since) as f64 / p.typical_tx_ns.max(1) as f64;
                self.avg *= (1.0 - p.weight).powf(m);
            }
            None => self.avg = (1.0 - p.weight) * self.avg + p.weight * qbytes as f64,
        }
        // `qlen >= qlim` with both in bytes: the queue holds `limit_` x `mean_pktsize_`.
        if limit_pkts.is_some_and(|l| qbytes >= l as u64 * mean as u64) {
            self.count = 0;
            return Early::Full;
        }
        let (min_th, max_th) = (p.min_th_pkts * mean_f, p.max_th_pkts * mean_f);
        let size = pkt.size_bytes as i64;
        let congested = if self.avg < min_th {
            self.count = -1;
            false
        } else if self.avg < max_th {
            // `count_bytes` includes the arriving packet; `count_bytes / mean_pktsize` is an
            // integer division in ns-2 (`modify_p`).
            self.count = if self.count < 0 { size } else { self.count + size };
            let count1 = (self.count / mean as i64) as f64;
            let pb = p.max_p * (self.avg - min_th) / (max_th - min_th);
            let denom = 1.0 - count1 * pb;
            let mut pa = if denom <= 0.0 { 1.0 } else { pb / denom };
            // `bytes_`: a large packet is more likely dropped than a small one.
            if pa < 1.0 {
                pa = pa * pkt.size_bytes as f64 / mean_f;
            }
            if rng.gen::<f64>() < pa.min(1.0) {
                self.count = 0;
                true
            } else {
                false
            }
        } else {
            self.count = 0;
            return Early::Drop;
        };
        early_verdict(congested, p.ecn && pkt.ecn != Ecn::NotEct)
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

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
}

/// RED's state at one queue.
#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    avg: f64,
    /// Packets since the last mark or drop (-1: below min_th).
    count: i64,
    /// When the queue last became empty (None: not empty), to age the average.
    pub(super) idle_since: Option<SimTime>,
}

/// RED's decision on an arriving packet.
pub(super) enum Early {
    Pass,
    Mark,
    Drop,
}

impl Red {
    pub fn new(params: RedParams) -> Red {
        Red { params, avg: 0.0, count: -1, idle_since: Some(0) }
    }

    /// The RED algorithm of Floyd & Jacobson (1993), Fig. 2, with the idle-time correction,
    /// for a packet arriving at a queue of `qlen` packets.
    pub(super) fn decide(&mut self, now: SimTime, qlen: usize, pkt: &Packet, rng: &mut Rng) -> Early {
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
        match (congested, p.ecn && pkt.ecn != Ecn::NotEct) {
            (false, _) => Early::Pass,
            (true, true) => Early::Mark,
            (true, false) => Early::Drop,
        }
    }
}

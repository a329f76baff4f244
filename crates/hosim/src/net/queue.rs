//! Link queues: DropTail sized in packets or bytes, and RED (Floyd & Jacobson 1993) that
//! drops or, for ECN-capable packets, marks CE (RFC 3168 §5, §7).

use std::collections::VecDeque;

use rand::Rng as _;

use super::packet::{Ecn, Packet};
use crate::engine::rng::Rng;
use crate::engine::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

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

#[derive(Clone, Debug)]
struct RedState {
    params: RedParams,
    avg: f64,
    /// Packets since the last mark or drop (-1: below min_th).
    count: i64,
    idle_since: Option<SimTime>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Queued with CE set by RED.
    Marked,
    /// Dropped because the queue was full.
    DroppedFull,
    /// Dropped early by RED.
    DroppedEarly,
}

#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dropped: u64,
    pub marked: u64,
    pub max_len_pkts: u32,
    /// Integral of the queue length over time, in packet-nanoseconds.
    len_area: u128,
    last_change_ns: SimTime,
}

#[derive(Clone, Debug)]
pub struct Queue {
    pub limit: QueueLimit,
    pkts: VecDeque<Packet>,
    bytes: u64,
    red: Option<RedState>,
    pub stats: QueueStats,
}

impl Queue {
    pub fn new(limit: QueueLimit, red: Option<RedParams>) -> Queue {
        Queue {
            limit,
            pkts: VecDeque::new(),
            bytes: 0,
            red: red.map(|params| RedState { params, avg: 0.0, count: -1, idle_since: Some(0) }),
            stats: QueueStats::default(),
        }
    }

    pub fn len_pkts(&self) -> u32 {
        self.pkts.len() as u32
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }

    pub fn is_red(&self) -> bool {
        self.red.is_some()
    }

    fn fits(&self, pkt: &Packet) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.pkts.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + pkt.size_bytes as u64 <= b,
        }
    }

    fn account(&mut self, now: SimTime) {
        let dt = now.saturating_sub(self.stats.last_change_ns);
        self.stats.len_area += self.pkts.len() as u128 * dt as u128;
        self.stats.last_change_ns = now;
    }

    /// Offers a packet to the queue. A dropped packet is gone; the caller counts it.
    pub fn enqueue(&mut self, now: SimTime, mut pkt: Packet, rng: &mut Rng) -> Verdict {
        let early = match self.red.as_mut() {
            Some(red) => red.decide(now, self.pkts.len(), &pkt, rng),
            None => RedDecision::Pass,
        };
        let verdict = match early {
            RedDecision::Drop => Verdict::DroppedEarly,
            _ if !self.fits(&pkt) => Verdict::DroppedFull,
            RedDecision::Mark => {
                pkt.ecn = Ecn::Ce;
                Verdict::Marked
            }
            RedDecision::Pass => Verdict::Queued,
        };
        match verdict {
            Verdict::DroppedEarly | Verdict::DroppedFull => self.stats.dropped += 1,
            Verdict::Queued | Verdict::Marked => {
                if verdict == Verdict::Marked {
                    self.stats.marked += 1;
                }
                self.account(now);
                self.bytes += pkt.size_bytes as u64;
                self.pkts.push_back(pkt);
                self.stats.enqueued += 1;
                self.stats.max_len_pkts = self.stats.max_len_pkts.max(self.pkts.len() as u32);
                if let Some(red) = self.red.as_mut() {
                    red.idle_since = None;
                }
            }
        }
        verdict
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.account(now);
        let pkt = self.pkts.pop_front()?;
        self.bytes -= pkt.size_bytes as u64;
        if self.pkts.is_empty() {
            if let Some(red) = self.red.as_mut() {
                red.idle_since = Some(now);
            }
        }
        Some(pkt)
    }

    /// Removes every queued packet (e.g. a base station flushing a UE's queue).
    pub fn drain(&mut self, now: SimTime) -> impl Iterator<Item = Packet> + '_ {
        self.account(now);
        self.bytes = 0;
        self.pkts.drain(..)
    }

    /// Time-averaged queue length in packets over [0, now].
    pub fn mean_len_pkts(&self, now: SimTime) -> f64 {
        if now == 0 {
            return 0.0;
        }
        let dt = now.saturating_sub(self.stats.last_change_ns);
        let area = self.stats.len_area + self.pkts.len() as u128 * dt as u128;
        area as f64 / now as f64
    }

    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.pkts.iter()
    }

    /// The packet enqueued last.
    pub fn back(&self) -> Option<&Packet> {
        self.pkts.back()
    }
}

enum RedDecision {
    Pass,
    Mark,
    Drop,
}

impl RedState {
    /// The RED algorithm of Floyd & Jacobson (1993), Fig. 2, with the idle-time correction.
    fn decide(&mut self, now: SimTime, qlen: usize, pkt: &Packet, rng: &mut Rng) -> RedDecision {
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
            return RedDecision::Drop;
        };
        match (congested, p.ecn && pkt.ecn != Ecn::NotEct) {
            (false, _) => RedDecision::Pass,
            (true, true) => RedDecision::Mark,
            (true, false) => RedDecision::Drop,
        }
    }
}

//! A radio access node (the eNodeB or the 2G/3G node) serving one UE: a queue of forwarded
//! data with strict priority over a queue of new data from the anchor (Appendix A's "partial
//! reordering"), and a radio that sends one packet at a time at the RAT's rate while the UE
//! is attached.

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::net::{LinkId, NodeId};

/// Packet counts through the node's buffers, for the conservation check.
#[derive(Clone, Debug, Default)]
pub struct RanStats {
    pub buffered: u64,
    pub unbuffered: u64,
    pub radio_packets: u64,
    pub max_queued_packets: u64,
}

pub struct Ran {
    pub node: NodeId,
    pub name: &'static str,
    /// RAN -> UE radio link.
    pub radio: LinkId,
    /// UE -> RAN radio link.
    pub uplink: LinkId,
    pub rate_bps: u64,
    /// Note 1's limit on new data queued for an attached UE, in bytes (None: unlimited).
    pub limit_bytes: Option<u64>,
    forwarded: VecDeque<Packet>,
    fresh: VecDeque<Packet>,
    fresh_bytes: u64,
    pub busy: bool,
    pub stats: RanStats,
}

impl Ran {
    pub fn new(node: NodeId, name: &'static str, radio: LinkId, uplink: LinkId, rate_bps: u64) -> Ran {
        Ran {
            node,
            name,
            radio,
            uplink,
            rate_bps,
            limit_bytes: None,
            forwarded: VecDeque::new(),
            fresh: VecDeque::new(),
            fresh_bytes: 0,
            busy: false,
            stats: RanStats::default(),
        }
    }

    pub fn push_forwarded(&mut self, pkt: Packet) {
        self.forwarded.push_back(pkt);
        self.accepted();
    }

    /// Queues new data; with `limited`, drops it (returns false) if the limit is reached.
    pub fn push_fresh(&mut self, pkt: Packet, limited: bool) -> bool {
        if limited && self.limit_bytes.is_some_and(|l| self.fresh_bytes + pkt.size_bytes as u64 > l) {
            return false;
        }
        self.fresh_bytes += pkt.size_bytes as u64;
        self.fresh.push_back(pkt);
        self.accepted();
        true
    }

    fn accepted(&mut self) {
        self.stats.buffered += 1;
        self.stats.max_queued_packets = self.stats.max_queued_packets.max(self.held());
    }

    /// The next packet for the radio (forwarded first) and whether it was forwarded.
    pub fn pop(&mut self) -> Option<(Packet, bool)> {
        let out = match self.forwarded.pop_front() {
            Some(p) => (p, true),
            None => {
                let p = self.fresh.pop_front()?;
                self.fresh_bytes -= p.size_bytes as u64;
                (p, false)
            }
        };
        self.stats.unbuffered += 1;
        self.stats.radio_packets += 1;
        Some(out)
    }

    /// Empties both queues (the UE left), forwarded data first.
    pub fn drain(&mut self) -> Vec<Packet> {
        let out: Vec<Packet> = self.forwarded.drain(..).chain(self.fresh.drain(..)).collect();
        self.fresh_bytes = 0;
        self.stats.unbuffered += out.len() as u64;
        out
    }

    pub fn held(&self) -> u64 {
        (self.forwarded.len() + self.fresh.len()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn pkt(uid: u64) -> Packet {
        Packet::new(uid, 0, 0, 1, PacketKind::Data, 1500, 0)
    }

    #[test]
    fn forwarded_data_goes_before_new_data_whatever_the_arrival_order() {
        let mut r = Ran::new(0, "t", 0, 1, 1_000_000);
        r.push_fresh(pkt(1), false);
        r.push_forwarded(pkt(2));
        r.push_fresh(pkt(3), false);
        r.push_forwarded(pkt(4));
        let order: Vec<(u64, bool)> = std::iter::from_fn(|| r.pop()).map(|(p, f)| (p.uid, f)).collect();
        assert_eq!(order, vec![(2, true), (4, true), (1, false), (3, false)]);
        assert_eq!(r.stats.buffered, r.stats.unbuffered);
    }

    #[test]
    fn the_buffer_limit_drops_new_data_beyond_it_only_when_limited() {
        let mut r = Ran::new(0, "t", 0, 1, 1_000_000);
        r.limit_bytes = Some(3000);
        assert!(r.push_fresh(pkt(1), true));
        assert!(r.push_fresh(pkt(2), true));
        assert!(!r.push_fresh(pkt(3), true));
        assert!(r.push_fresh(pkt(4), false), "buffering for an arriving UE is not limited");
        assert_eq!(r.held(), 3);
    }
}

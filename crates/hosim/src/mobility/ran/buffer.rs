//! Buffers of a cell.
//!
//! - [`CellBuffers`]: one DropTail queue per UE that the scheduler serves, one per UE for
//!   packets forwarded by a handover's source that the cell serves first when asked to
//!   ([`CellBuffers::offer_forwarded`]), one per UE that holds packets back (a handover
//!   target holding direct packets until the end marker), and the uplink packets of UEs still
//!   attaching. Limits are per UE or shared by the cell, in
//!   packets or bytes ([`BufferLimit`]). All queues refer to packets by slot in one store.
//! - [`PriorityBuffer`]: a one-UE buffer where packets forwarded from the source go before new
//!   ones (the "partial reordering" of an inter-RAT target).
//!
//! Both count what enters and leaves them ([`BufferStats`]): buffered = unbuffered + held is a
//! mechanism's conservation check.

use std::collections::VecDeque;

use crate::engine::rng::Rng;
use crate::engine::time::SimTime;
use crate::net::Verdict;
use crate::net::{NodeId, Packet, PacketStore, Queue, QueueLimit};

/// Packet counts through a buffer.
#[derive(Clone, Debug, Default)]
pub struct BufferStats {
    /// Packets accepted into any of the buffers.
    pub buffered: u64,
    /// Packets that left a buffer (to the radio, forwarded, released upstream).
    pub unbuffered: u64,
    /// Packets refused because a limit was reached.
    pub drops: u64,
    /// The most packets held at once (kept by [`PriorityBuffer`]).
    pub max_held_packets: u64,
}

/// How much a cell buffers for its UEs' downlink.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferLimit {
    /// Each UE's queues have this limit of their own (DropTail).
    PerUe(QueueLimit),
    /// The cell's downlink packets share this limit, whichever UE they are for.
    Shared(QueueLimit),
}

/// Per-UE queue limit under a shared limit: the shared one decides.
const UNLIMITED: QueueLimit = QueueLimit::Packets(u32::MAX);

/// Which of a UE's downlink queues a packet goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Served,
    Forwarded,
    Held,
}

pub struct CellBuffers {
    /// Downlink queue per UE (by UE index), served by the cell's scheduler.
    pub queues: Vec<Queue>,
    /// Packets forwarded by a handover's source, per UE: served before `queues`. Under a
    /// per-UE limit they count with the UE's `queues`.
    pub forwarded: Vec<Queue>,
    /// Downlink packets held back per UE, not served until released.
    pub held: Vec<Queue>,
    /// The packets in `queues` and `held`, which those queues refer to by slot.
    pub store: PacketStore,
    /// Uplink packets of UEs attaching to this cell, sent on once they have attached.
    pub uplink: VecDeque<Packet>,
    pub limit: BufferLimit,
    pub stats: BufferStats,
    /// Downlink packets and bytes in `queues` and `held`, kept as they change so a shared
    /// limit costs no walk over every UE's queues.
    dl_packets: u64,
    dl_bytes: u64,
}

impl CellBuffers {
    pub fn new(n_ues: usize, limit: BufferLimit) -> CellBuffers {
        let per_ue = match limit {
            BufferLimit::PerUe(l) => l,
            BufferLimit::Shared(_) => UNLIMITED,
        };
        CellBuffers {
            queues: (0..n_ues).map(|_| Queue::new(per_ue, None)).collect(),
            forwarded: (0..n_ues).map(|_| Queue::new(UNLIMITED, None)).collect(),
            held: (0..n_ues).map(|_| Queue::new(per_ue, None)).collect(),
            store: PacketStore::default(),
            uplink: VecDeque::new(),
            limit,
            stats: BufferStats::default(),
            dl_packets: 0,
            dl_bytes: 0,
        }
    }

    /// Queues a downlink packet for UE `ue` to be served. Returns whether it was accepted (a
    /// refused packet is gone; the caller counts the drop in the world).
    pub fn offer(&mut self, ue: usize, now: SimTime, pkt: Packet, rng: &mut Rng) -> bool {
        if !self.forwarded[ue].is_empty() && !self.fits_per_ue(ue, &pkt) {
            self.stats.drops += 1;
            return false;
        }
        self.admit(Which::Served, ue, now, pkt, rng)
    }

    /// Queues a packet the source forwarded for UE `ue`, to be served before the UE's other
    /// packets (the 3GPP inter-RAT contribution's "partial reordering": the queue from the
    /// eNB has priority for RF transmission). Returns whether it was accepted.
    pub fn offer_forwarded(&mut self, ue: usize, now: SimTime, pkt: Packet, rng: &mut Rng) -> bool {
        if !self.fits_per_ue(ue, &pkt) {
            self.stats.drops += 1;
            return false;
        }
        self.admit(Which::Forwarded, ue, now, pkt, rng)
    }

    /// Whether `pkt` fits UE `ue`'s per-UE limit, counting its forwarded packets with its
    /// other queued ones (always, under a shared limit: `admit` checks that one).
    fn fits_per_ue(&self, ue: usize, pkt: &Packet) -> bool {
        let (q, f) = (&self.queues[ue], &self.forwarded[ue]);
        match self.limit {
            BufferLimit::PerUe(QueueLimit::Packets(n)) => (q.len_pkts() as u64 + f.len_pkts() as u64) < u64::from(n),
            BufferLimit::PerUe(QueueLimit::Bytes(b)) => q.len_bytes() + f.len_bytes() + pkt.size_bytes as u64 <= b,
            BufferLimit::Shared(_) => true,
        }
    }

    /// Holds a downlink packet for UE `ue` back until [`CellBuffers::release_held`].
    pub fn hold(&mut self, ue: usize, now: SimTime, pkt: Packet, rng: &mut Rng) -> bool {
        self.admit(Which::Held, ue, now, pkt, rng)
    }

    fn admit(&mut self, into: Which, ue: usize, now: SimTime, pkt: Packet, rng: &mut Rng) -> bool {
        if let BufferLimit::Shared(l) = self.limit {
            let full = match l {
                QueueLimit::Packets(n) => self.downlink_packets() + 1 > n as u64,
                QueueLimit::Bytes(b) => self.downlink_bytes() + pkt.size_bytes as u64 > b,
            };
            if full {
                self.stats.drops += 1;
                return false;
            }
        }
        let q = match into {
            Which::Served => &mut self.queues[ue],
            Which::Forwarded => &mut self.forwarded[ue],
            Which::Held => &mut self.held[ue],
        };
        let bytes = pkt.size_bytes as u64;
        match q.enqueue(now, pkt, rng, &mut self.store) {
            Verdict::Queued | Verdict::Marked => {
                self.stats.buffered += 1;
                self.dl_packets += 1;
                self.dl_bytes += bytes;
                true
            }
            Verdict::DroppedFull | Verdict::DroppedEarly => {
                self.stats.drops += 1;
                false
            }
        }
    }

    /// Whether `pkt` fits UE `ue`'s per-UE limit counting its held packets with its queued
    /// ones (a per-mobile buffer that both share, as Cohen & Levin's base station's); a
    /// shared limit counts held packets already.
    pub fn room_with_held(&self, ue: usize, pkt: &Packet) -> bool {
        let qs = [&self.queues[ue], &self.forwarded[ue], &self.held[ue]];
        let pkts = qs.iter().map(|q| q.len_pkts() as u64).sum::<u64>();
        let bytes = qs.iter().map(|q| q.len_bytes()).sum::<u64>();
        match self.limit {
            BufferLimit::PerUe(QueueLimit::Packets(n)) => pkts < u64::from(n),
            BufferLimit::PerUe(QueueLimit::Bytes(b)) => bytes + pkt.size_bytes as u64 <= b,
            BufferLimit::Shared(_) => true,
        }
    }

    /// UE `ue`'s packets to serve, in the order they will be served: forwarded ones first.
    pub fn queued(&self, ue: usize) -> impl Iterator<Item = &Packet> {
        self.forwarded[ue].iter(&self.store).chain(self.queues[ue].iter(&self.store))
    }

    /// The size of UE `ue`'s next packet to serve, if it has one.
    pub fn head_bytes(&self, ue: usize) -> Option<u32> {
        self.queued(ue).next().map(|p| p.size_bytes)
    }

    /// UE `ue`'s next packet to serve: one the source forwarded, else the oldest other one.
    pub fn pop(&mut self, ue: usize, now: SimTime) -> Option<Packet> {
        let pkt = match self.forwarded[ue].dequeue(now, &mut self.store) {
            Some(p) => p,
            None => self.queues[ue].dequeue(now, &mut self.store)?,
        };
        self.stats.unbuffered += 1;
        self.dl_packets -= 1;
        self.dl_bytes -= pkt.size_bytes as u64;
        Some(pkt)
    }

    /// Everything queued to serve UE `ue`, oldest first (it left: forward or drop it).
    pub fn drain(&mut self, ue: usize, now: SimTime) -> Vec<Packet> {
        let mut out = self.forwarded[ue].drain(now, &mut self.store);
        out.extend(self.queues[ue].drain(now, &mut self.store));
        self.left(&out);
        out
    }

    /// Packets drained from the downlink queues have left.
    fn left(&mut self, out: &[Packet]) {
        self.stats.unbuffered += out.len() as u64;
        self.dl_packets -= out.len() as u64;
        self.dl_bytes -= out.iter().map(|p| p.size_bytes as u64).sum::<u64>();
    }

    /// Everything held back for UE `ue`, oldest first.
    pub fn release_held(&mut self, ue: usize, now: SimTime) -> Vec<Packet> {
        let out = self.held[ue].drain(now, &mut self.store);
        self.left(&out);
        out
    }

    /// Holds an uplink packet of a UE still attaching here.
    pub fn hold_uplink(&mut self, pkt: Packet) {
        self.uplink.push_back(pkt);
        self.stats.buffered += 1;
    }

    /// The held uplink packets sent by UE node `ue`, oldest first; the others stay.
    pub fn release_uplink(&mut self, ue: NodeId) -> Vec<Packet> {
        let (mine, others): (Vec<Packet>, Vec<Packet>) = self.uplink.drain(..).partition(|p| p.src == ue);
        self.uplink.extend(others);
        self.stats.unbuffered += mine.len() as u64;
        mine
    }

    fn downlink_packets(&self) -> u64 {
        self.dl_packets
    }

    fn downlink_bytes(&self) -> u64 {
        self.dl_bytes
    }

    /// Packets in any of the buffers.
    pub fn held_packets(&self) -> u64 {
        self.downlink_packets() + self.uplink.len() as u64
    }

    /// The buffers hold what entered them minus what left, and the store holds exactly the
    /// queued packets. One line per violation, naming the cell.
    pub fn check(&self, cell: &str) -> Vec<String> {
        let mut bad = Vec::new();
        let (s, held) = (&self.stats, self.held_packets());
        if s.buffered != s.unbuffered + held {
            bad.push(format!("cell {cell}: buffered {} != left {} + held {held}", s.buffered, s.unbuffered));
        }
        let all = || self.queues.iter().chain(&self.forwarded).chain(&self.held);
        let queued = all().map(|q| q.len_pkts() as u64).sum::<u64>();
        let bytes = all().map(|q| q.len_bytes()).sum::<u64>();
        if self.store.in_use() != queued as usize {
            bad.push(format!("cell {cell}: {} packets stored, {queued} queued", self.store.in_use()));
        }
        if (self.dl_packets, self.dl_bytes) != (queued, bytes) {
            bad.push(format!(
                "cell {cell}: counted {} packets / {} bytes, queued {queued} / {bytes}",
                self.dl_packets, self.dl_bytes
            ));
        }
        bad
    }
}

/// A one-UE buffer: packets forwarded from the source cell go before new packets, whatever
/// the order they arrived in. New packets may be limited in bytes.
#[derive(Default)]
pub struct PriorityBuffer {
    /// Limit on new data queued, in bytes (None: unlimited), applied when asked to.
    pub limit_bytes: Option<u64>,
    forwarded: VecDeque<Packet>,
    fresh: VecDeque<Packet>,
    fresh_bytes: u64,
    pub stats: BufferStats,
}

impl PriorityBuffer {
    pub fn push_forwarded(&mut self, pkt: Packet) {
        self.forwarded.push_back(pkt);
        self.accepted();
    }

    /// Queues new data; with `limited`, refuses it (returns false) if the limit is reached.
    pub fn push_fresh(&mut self, pkt: Packet, limited: bool) -> bool {
        if limited && self.limit_bytes.is_some_and(|l| self.fresh_bytes + pkt.size_bytes as u64 > l) {
            self.stats.drops += 1;
            return false;
        }
        self.fresh_bytes += pkt.size_bytes as u64;
        self.fresh.push_back(pkt);
        self.accepted();
        true
    }

    fn accepted(&mut self) {
        self.stats.buffered += 1;
        self.stats.max_held_packets = self.stats.max_held_packets.max(self.held());
    }

    /// The next packet (forwarded first) and whether it was forwarded.
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
    use crate::engine::rng::{stream_rng, StreamKind};
    use crate::net::PacketKind;

    fn pkt(uid: u64) -> Packet {
        Packet::new(uid, 0, 0, 1, PacketKind::Data, 1500, 0)
    }

    #[test]
    fn forwarded_data_goes_before_new_data_whatever_the_arrival_order() {
        let mut r = PriorityBuffer::default();
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
        let mut r = PriorityBuffer { limit_bytes: Some(3000), ..PriorityBuffer::default() };
        assert!(r.push_fresh(pkt(1), true));
        assert!(r.push_fresh(pkt(2), true));
        assert!(!r.push_fresh(pkt(3), true));
        assert!(r.push_fresh(pkt(4), false), "buffering for an arriving UE is not limited");
        assert_eq!(r.held(), 3);
    }

    #[test]
    fn per_ue_limits_refuse_only_the_full_ues_packets() {
        let mut rng = stream_rng(1, StreamKind::Cell, 0);
        let mut b = CellBuffers::new(2, BufferLimit::PerUe(QueueLimit::Packets(2)));
        let accepted: Vec<bool> = (0..3).map(|i| b.offer(0, 0, pkt(i), &mut rng)).collect();
        assert_eq!(accepted, vec![true, true, false]);
        assert!(b.offer(1, 0, pkt(9), &mut rng), "UE 1 has a limit of its own");
        assert_eq!((b.stats.drops, b.held_packets()), (1, 3));
        assert!(b.check("c").is_empty());
    }

    #[test]
    fn forwarded_packets_are_served_first_and_share_the_ues_limit() {
        let mut rng = stream_rng(1, StreamKind::Cell, 0);
        let mut b = CellBuffers::new(1, BufferLimit::PerUe(QueueLimit::Packets(3)));
        assert!(b.offer(0, 0, pkt(1), &mut rng));
        assert!(b.offer_forwarded(0, 0, pkt(2), &mut rng));
        assert!(b.offer(0, 0, pkt(3), &mut rng));
        assert!(!b.offer_forwarded(0, 0, pkt(4), &mut rng), "three packets fill the UE's buffer");
        assert!(!b.offer(0, 0, pkt(5), &mut rng), "forwarded packets count against the limit");
        assert_eq!(b.queued(0).map(|p| p.uid).collect::<Vec<_>>(), vec![2, 1, 3]);
        let served: Vec<u64> = std::iter::from_fn(|| b.pop(0, 0)).map(|p| p.uid).collect();
        assert_eq!(served, vec![2, 1, 3]);
        assert_eq!(b.stats.drops, 2);
        assert!(b.check("c").is_empty(), "{:?}", b.check("c"));
    }

    #[test]
    fn a_shared_byte_limit_counts_every_ues_served_and_held_packets() {
        let mut rng = stream_rng(1, StreamKind::Cell, 0);
        let mut b = CellBuffers::new(2, BufferLimit::Shared(QueueLimit::Bytes(4500)));
        assert!(b.offer(0, 0, pkt(1), &mut rng));
        assert!(b.hold(1, 0, pkt(2), &mut rng));
        assert!(b.offer(1, 0, pkt(3), &mut rng));
        assert!(!b.offer(0, 0, pkt(4), &mut rng), "4500 bytes are taken, whichever UE's");
        assert_eq!(b.pop(0, 0).map(|p| p.uid), Some(1));
        assert!(b.offer(0, 0, pkt(5), &mut rng), "room again once a packet has left");
        let held: Vec<u64> = b.release_held(1, 0).iter().map(|p| p.uid).collect();
        assert_eq!(held, vec![2]);
        assert!(b.check("c").is_empty(), "{:?}", b.check("c"));
    }
}

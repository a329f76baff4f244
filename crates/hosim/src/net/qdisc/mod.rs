//! Link queues and their disciplines, behind one type, [`Queue`]. The discipline is an enum
//! ([`AnyQdisc`]) matched on the hot path, as `tcp::cc::AnyCc` is: DropTail (`droptail.rs`)
//! and RED with ECN marking (`red.rs`) keep their packets in the queue's own FIFO of store
//! slots. A discipline that is not built in (a test's, or a new one before it earns a variant)
//! implements [`Qdisc`] and sits behind [`AnyQdisc::Other`], called through a pointer, off the
//! path DropTail and RED take. It holds its own slots and may drop at dequeue; the queue
//! counts those drops and hands the slots to the link, which counts them in the run and tells
//! the observers (`World`'s `dequeue_other`).

mod droptail;
mod red;

pub use droptail::QueueLimit;
pub use red::{Red, RedParams};

use super::packet::{Ecn, Packet};
use super::store::{PacketStore, SlotFifo};
use crate::engine::rng::Rng;
use crate::engine::time::SimTime;
use red::Early;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Queued with CE set (RED; or a discipline of its own, which sets CE itself).
    Marked,
    /// Dropped because the queue was full.
    DroppedFull,
    /// Dropped early by RED (or by a discipline's own rule).
    DroppedEarly,
}

/// A queue discipline that is not built in. It keeps the slots of the [`PacketStore`] it
/// accepts (every call passes the same store) and gives each back once: from `dequeue`, to
/// be sent or in `dropped`, or from `drain`. The [`Queue`] around it keeps the common
/// counters, the byte count and the length integral.
pub trait Qdisc: std::fmt::Debug + Send {
    /// Its name in the run summary (`queues[].kind`).
    fn name(&self) -> &'static str;

    /// Offered the packet in `slot` at `now`: keeps it (`Queued`, or `Marked` after setting
    /// CE on it) or refuses it (`DroppedFull`, `DroppedEarly`; the slot is the caller's).
    fn enqueue(
        &mut self,
        now: SimTime,
        slot: u32,
        limit: QueueLimit,
        store: &mut PacketStore,
        rng: &mut Rng,
    ) -> Verdict;

    /// The next slot to transmit at `now`, if any; slots it drops on the way are pushed to
    /// `dropped` (still in use: the link frees them).
    fn dequeue(&mut self, now: SimTime, store: &mut PacketStore, rng: &mut Rng, dropped: &mut Vec<u32>) -> Option<u32>;

    /// Packets it holds.
    fn len_pkts(&self) -> usize;

    /// The slot it accepted last, while it still holds it (an observer of the link's
    /// enqueue point reads that packet).
    fn last_enqueued(&self) -> Option<u32>;

    /// Its slots (for the invariant checks and for agents that read a queue).
    fn slots(&self) -> Vec<u32>;

    /// Takes every slot out (a base station flushing a queue), oldest first where it keeps an
    /// order.
    fn drain(&mut self) -> Vec<u32>;

    /// Its own counters for the run summary, after the common ones.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// A queue's discipline. The tag is a byte of its own (`repr(u8)`), so that telling DropTail
/// from the others on the hot path is one compare.
#[derive(Debug)]
#[repr(u8)]
pub enum AnyQdisc {
    DropTail,
    /// Boxed: most queues are DropTail, and the parameters would spread the hot fields.
    Red(Box<Red>),
    Other(Box<dyn Qdisc>),
}

/// One cache line (`repr(C)`, aligned to 64 bytes), the second of a [`Queue`].
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct QueueStats {
    /// Integral of the queue length over time, in packet-nanoseconds.
    len_area: u128,
    last_change_ns: SimTime,
    pub enqueued: u64,
    /// Dropped at enqueue or, by a discipline of its own, at dequeue.
    pub dropped: u64,
    pub marked: u64,
    pub max_len_pkts: u32,
}

/// Laid out in declaration order (`repr(C)`) in two cache lines: what every enqueue and
/// dequeue touches (the packets, the discipline, the limit), then the counters
/// ([`QueueStats`]), so that a link's hot fields share few lines (see
/// [`Link`](super::Link)).
#[derive(Debug)]
#[repr(C)]
pub struct Queue {
    /// Slots of the [`PacketStore`] the caller passes in, holding the queued packets, oldest
    /// first, under DropTail and RED (empty under [`AnyQdisc::Other`]). Every call on one
    /// queue must pass the same store.
    pkts: SlotFifo,
    bytes: u64,
    disc: AnyQdisc,
    pub limit: QueueLimit,
    pub stats: QueueStats,
}

impl Queue {
    /// A DropTail queue, or RED with `red`.
    pub fn new(limit: QueueLimit, red: Option<RedParams>) -> Queue {
        let disc = match red {
            Some(params) => AnyQdisc::Red(Box::new(Red::new(params))),
            None => AnyQdisc::DropTail,
        };
        Queue::with_qdisc(limit, disc)
    }

    /// An empty queue with discipline `disc`.
    pub fn with_qdisc(limit: QueueLimit, disc: AnyQdisc) -> Queue {
        Queue { limit, pkts: SlotFifo::default(), bytes: 0, disc, stats: QueueStats::default() }
    }

    /// Replaces the discipline of an empty queue (a test installing its own on a built link).
    pub fn set_qdisc(&mut self, disc: AnyQdisc) {
        assert!(self.is_empty(), "the discipline of a queue holding packets cannot change");
        self.disc = disc;
    }

    /// The discipline's name, as the run summary gives it (`queues[].kind`).
    pub fn kind(&self) -> &'static str {
        match &self.disc {
            AnyQdisc::DropTail => "droptail",
            AnyQdisc::Red(_) => "red",
            AnyQdisc::Other(d) => d.name(),
        }
    }

    /// The discipline's own counters for the run summary (none for DropTail and RED, whose
    /// counts are the common ones).
    pub fn qdisc_counters(&self) -> Vec<(&'static str, u64)> {
        match &self.disc {
            AnyQdisc::Other(d) => d.counters(),
            _ => Vec::new(),
        }
    }

    /// Whether the discipline is one of its own ([`AnyQdisc::Other`]): its packets are not in
    /// the FIFO, and it may drop at dequeue ([`Queue::dequeue_other`]).
    #[inline]
    pub fn is_other(&self) -> bool {
        matches!(self.disc, AnyQdisc::Other(_))
    }

    #[inline]
    pub fn len_pkts(&self) -> u32 {
        if self.is_other() {
            return self.other_len_pkts() as u32;
        }
        self.pkts.len() as u32
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty() && (!self.is_other() || self.other_len_pkts() == 0)
    }

    /// Whether a dequeue may give a packet: the FIFO of DropTail and RED holds one, or the
    /// discipline is one of its own (which may hold none). Checked by a link at the end of
    /// every transmission, without a call.
    #[inline]
    pub fn may_dequeue(&self) -> bool {
        !self.pkts.is_empty() || self.is_other()
    }

    /// Packets held by a discipline of its own (out of line: a call through a pointer).
    #[cold]
    #[inline(never)]
    fn other_len_pkts(&self) -> usize {
        match &self.disc {
            AnyQdisc::Other(d) => d.len_pkts(),
            _ => 0,
        }
    }

    /// Adds the length `len` held since the last change to the length integral.
    #[inline]
    fn account(&mut self, now: SimTime, len: usize) {
        let dt = now.saturating_sub(self.stats.last_change_ns);
        self.stats.len_area += len as u128 * dt as u128;
        self.stats.last_change_ns = now;
    }

    /// Offers a packet to the queue. A dropped packet is gone; the caller counts it.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, rng: &mut Rng, store: &mut PacketStore) -> Verdict {
        let slot = store.put(pkt);
        let verdict = self.enqueue_slot(now, slot, rng, store);
        if matches!(verdict, Verdict::DroppedFull | Verdict::DroppedEarly) {
            store.release(slot);
        }
        verdict
    }

    /// Offers the packet already in `slot` of `store` to the queue (a packet forwarded from
    /// one link to the next stays in its slot). The queue keeps the slot unless the packet is
    /// dropped; then the slot is still in use and the caller frees it.
    #[inline]
    pub fn enqueue_slot(&mut self, now: SimTime, slot: u32, rng: &mut Rng, store: &mut PacketStore) -> Verdict {
        let pkt = store.get(slot);
        let early = match &mut self.disc {
            AnyQdisc::DropTail => Early::Pass,
            AnyQdisc::Red(red) => {
                let limit_pkts = match self.limit {
                    QueueLimit::Packets(n) => Some(n),
                    QueueLimit::Bytes(_) => None,
                };
                red.decide(now, self.pkts.len(), self.bytes, limit_pkts, pkt, rng)
            }
            AnyQdisc::Other(_) => return self.enqueue_other(now, slot, rng, store),
        };
        let verdict = match early {
            Early::Drop => Verdict::DroppedEarly,
            Early::Full => Verdict::DroppedFull,
            _ if !self.limit.admits(self.pkts.len(), self.bytes, pkt.size_bytes) => Verdict::DroppedFull,
            Early::Mark => Verdict::Marked,
            Early::Pass => Verdict::Queued,
        };
        match verdict {
            Verdict::DroppedEarly | Verdict::DroppedFull => self.stats.dropped += 1,
            Verdict::Queued | Verdict::Marked => {
                let size = pkt.size_bytes;
                if verdict == Verdict::Marked {
                    self.stats.marked += 1;
                    store.get_mut(slot).ecn = Ecn::Ce;
                }
                self.account(now, self.pkts.len());
                self.bytes += size as u64;
                self.pkts.push_back(store, now, slot);
                self.stats.enqueued += 1;
                self.stats.max_len_pkts = self.stats.max_len_pkts.max(self.pkts.len() as u32);
                if let AnyQdisc::Red(red) = &mut self.disc {
                    red.idle_since = None;
                }
            }
        }
        verdict
    }

    /// [`Queue::enqueue_slot`] under a discipline of its own.
    #[inline(never)]
    fn enqueue_other(&mut self, now: SimTime, slot: u32, rng: &mut Rng, store: &mut PacketStore) -> Verdict {
        let AnyQdisc::Other(d) = &mut self.disc else { unreachable!("called for Other only") };
        let size = store.get(slot).size_bytes;
        let len = d.len_pkts();
        let verdict = d.enqueue(now, slot, self.limit, store, rng);
        match verdict {
            Verdict::DroppedEarly | Verdict::DroppedFull => self.stats.dropped += 1,
            Verdict::Queued | Verdict::Marked => {
                self.stats.marked += (verdict == Verdict::Marked) as u64;
                let new_len = d.len_pkts();
                self.account(now, len);
                self.bytes += size as u64;
                self.stats.enqueued += 1;
                self.stats.max_len_pkts = self.stats.max_len_pkts.max(new_len as u32);
            }
        }
        verdict
    }

    /// A packet of `size_bytes` offered to an empty DropTail queue whose transmitter is idle
    /// and takes it at once: counts it as enqueued and dequeued at once (the queue is one
    /// packet long for no time, so its length integral does not change) and returns true;
    /// the caller transmits it. False, and nothing changed, if the queue is not empty, is not
    /// DropTail (RED's average must see the packet), or would not hold the packet: the caller
    /// offers it with [`Queue::enqueue_slot`] instead.
    #[inline]
    pub fn pass_through(&mut self, size_bytes: u32) -> bool {
        if !self.pkts.is_empty()
            || !matches!(self.disc, AnyQdisc::DropTail)
            || !self.limit.admits(self.pkts.len(), self.bytes, size_bytes)
        {
            return false;
        }
        // No `account`: the queue has been empty since its last change and stays empty, so
        // its length integral gains nothing, whenever that change was.
        self.stats.enqueued += 1;
        self.stats.max_len_pkts = self.stats.max_len_pkts.max(1);
        true
    }

    /// Takes the oldest packet out of a DropTail or RED queue (None from any other: see
    /// [`Queue::dequeue_other`]).
    pub fn dequeue(&mut self, now: SimTime, store: &mut PacketStore) -> Option<Packet> {
        debug_assert!(!self.is_other(), "a discipline of its own may drop at dequeue: use dequeue_other");
        let slot = self.dequeue_slot(now, store)?;
        Some(store.take(slot))
    }

    /// Takes the oldest packet out of a DropTail or RED queue but leaves it in its slot: the
    /// caller (the link's transmitter) reads it with [`PacketStore::get`] and frees the slot
    /// with [`PacketStore::take`] when the packet leaves the link. None if the queue is empty,
    /// or if its discipline is one of its own ([`Queue::dequeue_other`]).
    #[inline]
    pub fn dequeue_slot(&mut self, now: SimTime, store: &PacketStore) -> Option<u32> {
        // An empty queue changes nothing: its length integral gains nothing while it is empty.
        let len = self.pkts.len();
        let (_, slot) = self.pkts.pop_front(store)?;
        self.account(now, len);
        let size = store.get(slot).size_bytes;
        self.bytes -= size as u64;
        if self.pkts.is_empty() {
            if let AnyQdisc::Red(red) = &mut self.disc {
                red.idle_since = Some(red.idle_from(now, size));
            }
        }
        Some(slot)
    }

    /// Under a discipline of its own: the next slot to transmit, as [`Queue::dequeue_slot`],
    /// and the slots the discipline dropped on the way, pushed to `dropped`, counted here as
    /// dropped and still in use (the caller counts them in the run, tells the observers and
    /// frees them). None, and nothing dropped, under DropTail and RED.
    pub fn dequeue_other(
        &mut self,
        now: SimTime,
        store: &mut PacketStore,
        rng: &mut Rng,
        dropped: &mut Vec<u32>,
    ) -> Option<u32> {
        let AnyQdisc::Other(d) = &mut self.disc else { return None };
        let len = d.len_pkts();
        let first = dropped.len();
        let slot = d.dequeue(now, store, rng, dropped);
        if slot.is_none() && dropped.len() == first {
            return None;
        }
        self.account(now, len);
        for &s in &dropped[first..] {
            self.bytes -= store.get(s).size_bytes as u64;
            self.stats.dropped += 1;
        }
        if let Some(s) = slot {
            self.bytes -= store.get(s).size_bytes as u64;
        }
        slot
    }

    /// Removes every queued packet (e.g. a base station flushing a UE's queue), oldest first.
    pub fn drain(&mut self, now: SimTime, store: &mut PacketStore) -> Vec<Packet> {
        self.account(now, self.len_pkts() as usize);
        self.bytes = 0;
        let mut out = Vec::with_capacity(self.pkts.len());
        while let Some((_, slot)) = self.pkts.pop_front(store) {
            out.push(store.take(slot));
        }
        if let AnyQdisc::Other(d) = &mut self.disc {
            out.extend(d.drain().into_iter().map(|slot| store.take(slot)));
        }
        out
    }

    /// Time-averaged queue length in packets over [0, now].
    pub fn mean_len_pkts(&self, now: SimTime) -> f64 {
        if now == 0 {
            return 0.0;
        }
        let dt = now.saturating_sub(self.stats.last_change_ns);
        let area = self.stats.len_area + self.len_pkts() as u128 * dt as u128;
        area as f64 / now as f64
    }

    /// The queued packets, oldest first (in the discipline's order under one of its own).
    pub fn iter<'a>(&'a self, store: &'a PacketStore) -> impl Iterator<Item = &'a Packet> + 'a {
        let other = match &self.disc {
            AnyQdisc::Other(d) => d.slots(),
            _ => Vec::new(),
        };
        self.pkts.slots(store).chain(other).map(move |slot| store.get(slot))
    }

    /// The packet enqueued last, while the queue holds it.
    pub fn back<'a>(&self, store: &'a PacketStore) -> Option<&'a Packet> {
        match self.pkts.back() {
            Some(slot) => Some(store.get(slot)),
            None => self.other_back(store),
        }
    }

    /// [`Queue::back`] under a discipline of its own.
    #[cold]
    #[inline(never)]
    fn other_back<'a>(&self, store: &'a PacketStore) -> Option<&'a Packet> {
        match &self.disc {
            AnyQdisc::Other(d) => d.last_enqueued().map(|slot| store.get(slot)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;
    use crate::net::store::PacketStore;

    fn pkt(uid: u64) -> Packet {
        Packet::new(uid, 0, 0, 1, PacketKind::Data, 1000 + uid as u32, 0)
    }

    #[test]
    fn a_dequeued_slot_keeps_its_packet_until_taken_and_is_then_reused() {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        let mut q = Queue::new(QueueLimit::Packets(10), None);
        for uid in 0..3 {
            assert_eq!(q.enqueue(0, pkt(uid), &mut rng, &mut store), Verdict::Queued);
        }
        assert_eq!(q.len_bytes(), 1000 + 1001 + 1002);
        let a = q.dequeue_slot(1, &store).expect("queued");
        let b = q.dequeue_slot(1, &store).expect("queued");
        // Out of the queue (its bytes no longer count) but still stored, in FIFO order.
        assert_eq!((store.get(a).uid, store.get(b).uid), (0, 1));
        assert_eq!((q.len_pkts(), q.len_bytes(), store.in_use()), (1, 1002, 3));
        assert_eq!(store.take(a).uid, 0);
        assert_eq!(store.in_use(), 2);
        // The freed slot takes the next packet: the store does not grow.
        q.enqueue(2, pkt(7), &mut rng, &mut store);
        assert_eq!(q.iter(&store).map(|p| p.uid).collect::<Vec<_>>(), vec![2, 7]);
        assert_eq!(q.back(&store).map(|p| p.uid), Some(7));
        assert_eq!(store.capacity(), 3);
        assert_eq!(store.get(b).uid, 1, "a packet in service is not overwritten");
        let drained: Vec<u64> = q.drain(3, &mut store).iter().map(|p| p.uid).collect();
        assert_eq!(drained, vec![2, 7]);
        assert_eq!((store.in_use(), store.take(b).uid, store.in_use()), (1, 1, 0));
        assert_eq!(q.dequeue(4, &mut store).map(|p| p.uid), None);
    }

    #[test]
    fn a_packet_offered_in_its_slot_is_queued_there_or_left_to_the_caller_when_dropped() {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        let mut q = Queue::new(QueueLimit::Packets(1), None);
        let a = store.put(pkt(1));
        let b = store.put(pkt(2));
        assert_eq!(q.enqueue_slot(0, a, &mut rng, &mut store), Verdict::Queued);
        assert_eq!(q.enqueue_slot(0, b, &mut rng, &mut store), Verdict::DroppedFull);
        // The queue holds `a` in place; the dropped `b` is still the caller's.
        assert_eq!((q.len_pkts(), q.len_bytes(), q.stats.dropped), (1, 1001, 1));
        assert_eq!((store.in_use(), store.get(b).uid), (2, 2));
        store.release(b);
        assert_eq!(store.in_use(), 1);
        assert_eq!(q.dequeue_slot(1, &store), Some(a));
        // A packet dropped by `enqueue` frees the slot it was given: nothing leaks.
        q.enqueue(2, pkt(3), &mut rng, &mut store);
        assert_eq!(q.enqueue(2, pkt(4), &mut rng, &mut store), Verdict::DroppedFull);
        assert_eq!(store.in_use(), 2);
    }

    #[test]
    fn fit_decision_in_one_line_counters_in_the_next() {
        use std::mem::{offset_of, size_of};
        assert!(offset_of!(Queue, limit) + size_of::<QueueLimit>() <= 64);
        assert_eq!(offset_of!(Queue, stats), 64);
        assert!(size_of::<QueueStats>() <= 64);
    }

    #[test]
    fn passing_through_an_empty_queue_counts_as_enqueue_then_dequeue_at_once() {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        // The same offers through pass_through and through enqueue + dequeue: same statistics.
        let mut a = Queue::new(QueueLimit::Packets(2), None);
        let mut b = Queue::new(QueueLimit::Packets(2), None);
        for (t, uid) in [(5, 0), (9, 1), (20, 2)] {
            assert!(a.pass_through(1000));
            b.enqueue(t, pkt(uid), &mut rng, &mut store);
            b.dequeue(t, &mut store);
        }
        b.enqueue(30, pkt(3), &mut rng, &mut store);
        assert!(!b.pass_through(1000), "not with a packet waiting");
        a.enqueue(30, pkt(3), &mut rng, &mut store);
        assert_eq!((a.stats.enqueued, a.stats.max_len_pkts), (b.stats.enqueued, b.stats.max_len_pkts));
        assert_eq!(a.mean_len_pkts(40), b.mean_len_pkts(40));
        assert_eq!((a.stats.enqueued, a.stats.max_len_pkts), (4, 1));
        // Not through a queue that holds nothing, that is too small in bytes, or RED.
        assert!(!Queue::new(QueueLimit::Packets(0), None).pass_through(1000));
        assert!(!Queue::new(QueueLimit::Bytes(999), None).pass_through(1000));
        assert!(Queue::new(QueueLimit::Bytes(1000), None).pass_through(1000));
        let red = RedParams {
            min_th_pkts: 5.0,
            max_th_pkts: 15.0,
            max_p: 0.1,
            weight: 0.002,
            ecn: false,
            typical_tx_ns: 1,
            ns2_mean_pktsize_bytes: None,
        };
        assert!(!Queue::new(QueueLimit::Packets(10), Some(red)).pass_through(1000));
    }

    /// Offers `n` packets of 1500 B at time 0 (nothing leaves) and returns the verdicts.
    fn offer_1500(q: &mut Queue, n: u64) -> Vec<Verdict> {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        (0..n)
            .map(|uid| {
                let mut p = pkt(uid);
                p.size_bytes = 1500;
                q.enqueue(0, p, &mut rng, &mut store)
            })
            .collect()
    }

    #[test]
    fn red_in_ns2_byte_mode_holds_limit_times_mean_pktsize_bytes() {
        // ns-2.35's queue/red.cc, `enque`: `qlim = qlim_ * mean_pktsize` with the queue in
        // bytes; a packet is dropped once the bytes queued before it reach that. Thresholds
        // far above, so only the limit acts: 10 x 500 B holds four 1500-B packets.
        let red = |ns2| RedParams {
            min_th_pkts: 1000.0,
            max_th_pkts: 2000.0,
            max_p: 0.1,
            weight: 0.002,
            ecn: false,
            typical_tx_ns: 1,
            ns2_mean_pktsize_bytes: ns2,
        };
        let mut q = Queue::new(QueueLimit::Packets(10), Some(red(Some(500))));
        let v = offer_1500(&mut q, 6);
        assert_eq!(v[..4], [Verdict::Queued; 4]);
        assert_eq!(v[4..], [Verdict::DroppedFull; 2]);
        // In packets, the limit is ten packets whatever their size.
        let mut q = Queue::new(QueueLimit::Packets(10), Some(red(None)));
        assert_eq!(offer_1500(&mut q, 11).iter().filter(|v| **v == Verdict::Queued).count(), 10);
    }

    #[test]
    fn red_in_ns2_byte_mode_scales_the_thresholds_by_mean_pktsize() {
        // The average follows the queue (weight 1); max_p so small that no early drop comes
        // between the thresholds. ns-2's byte mode with `mean_pktsize_` 500 B puts max_th = 8
        // at 4000 B: the fourth 1500-B packet finds 4500 B queued and is dropped, as is every
        // one after it. In packets, max_th is 8 packets.
        let red = |ns2| RedParams {
            min_th_pkts: 4.0,
            max_th_pkts: 8.0,
            max_p: 1e-12,
            weight: 1.0,
            ecn: true,
            typical_tx_ns: 1,
            ns2_mean_pktsize_bytes: ns2,
        };
        let mut q = Queue::new(QueueLimit::Packets(100), Some(red(Some(500))));
        let v = offer_1500(&mut q, 10);
        assert_eq!(v[..3], [Verdict::Queued; 3]);
        assert_eq!(v[3..], [Verdict::DroppedEarly; 7]);
        let mut q = Queue::new(QueueLimit::Packets(100), Some(red(None)));
        let v = offer_1500(&mut q, 10);
        assert_eq!(v[..8], [Verdict::Queued; 8]);
        assert_eq!(v[8..], [Verdict::DroppedEarly; 2]);
    }

    #[test]
    fn red_in_ns2_byte_mode_waits_before_its_first_early_drop() {
        // ns-2.35's defaults (queue/red.cc `enque`, `modify_p`, `wait_` true): the first
        // arrival above `thresh_` restarts the count untested (`old`), and no packet is
        // dropped early until count1 x p_b reaches 1, count1 = bytes since / mean_pktsize_.
        // The average follows the queue (weight 1); min_th 1 x 500 B, max_th such that the
        // third 1500-B packet (3000 B queued, count1 6) has p_b 0.15: 6 x 0.15 < 1, so it
        // passes, where p_b / (1 - count1 p_b) x 3 > 1 would drop it for certain. The fourth
        // (count1 9, p_b 0.24: count1 x p_b > 2) is dropped.
        let red = RedParams {
            min_th_pkts: 1.0,
            max_th_pkts: 1.0 + 2500.0 / 0.15 / 500.0,
            max_p: 1.0,
            weight: 1.0,
            ecn: false,
            typical_tx_ns: 1,
            ns2_mean_pktsize_bytes: Some(500),
        };
        let mut q = Queue::new(QueueLimit::Packets(1000), Some(red));
        let v = offer_1500(&mut q, 4);
        assert_eq!(v, [Verdict::Queued, Verdict::Queued, Verdict::Queued, Verdict::DroppedEarly]);
    }

    #[test]
    fn red_marks_the_packet_in_its_slot() {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        // The average follows the queue (weight 1) and stays below max_th: ECN-capable packets
        // are marked with a probability that grows with the queue, never dropped.
        let red = RedParams {
            min_th_pkts: 0.0,
            max_th_pkts: 100.0,
            max_p: 1.0,
            weight: 1.0,
            ecn: true,
            typical_tx_ns: 1,
            ns2_mean_pktsize_bytes: None,
        };
        let mut q = Queue::new(QueueLimit::Packets(100), Some(red));
        for uid in 0..50 {
            let mut p = pkt(uid);
            p.ecn = Ecn::Ect;
            let slot = store.put(p);
            let v = q.enqueue_slot(0, slot, &mut rng, &mut store);
            assert_eq!(v == Verdict::Marked, store.get(slot).ecn == Ecn::Ce, "packet {uid}: {v:?}");
        }
        assert!(q.stats.marked > 0);
        assert_eq!(q.iter(&store).filter(|p| p.ecn == Ecn::Ce).count() as u64, q.stats.marked);
    }

    /// A discipline of its own, as a test writes one: a FIFO of slots that drops, at dequeue,
    /// every packet that waited longer than `max_wait_ns` (CoDel's idea without its control law).
    #[derive(Debug, Default)]
    struct DropStale {
        slots: std::collections::VecDeque<(SimTime, u32)>,
        max_wait_ns: SimTime,
        stale: u64,
    }

    impl Qdisc for DropStale {
        fn name(&self) -> &'static str {
            "drop-stale"
        }

        fn enqueue(&mut self, now: SimTime, slot: u32, limit: QueueLimit, _: &mut PacketStore, _: &mut Rng) -> Verdict {
            if !limit.admits(self.slots.len(), 0, 0) {
                return Verdict::DroppedFull;
            }
            self.slots.push_back((now, slot));
            Verdict::Queued
        }

        fn dequeue(&mut self, now: SimTime, _: &mut PacketStore, _: &mut Rng, dropped: &mut Vec<u32>) -> Option<u32> {
            while let Some((at, slot)) = self.slots.pop_front() {
                if now - at <= self.max_wait_ns {
                    return Some(slot);
                }
                self.stale += 1;
                dropped.push(slot);
            }
            None
        }

        fn len_pkts(&self) -> usize {
            self.slots.len()
        }

        fn last_enqueued(&self) -> Option<u32> {
            self.slots.back().map(|&(_, s)| s)
        }

        fn slots(&self) -> Vec<u32> {
            self.slots.iter().map(|&(_, s)| s).collect()
        }

        fn drain(&mut self) -> Vec<u32> {
            self.slots.drain(..).map(|(_, s)| s).collect()
        }

        fn counters(&self) -> Vec<(&'static str, u64)> {
            vec![("stale_drops", self.stale)]
        }
    }

    #[test]
    fn a_discipline_of_its_own_drops_at_dequeue_and_the_queue_counts_it() {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        let disc = DropStale { max_wait_ns: 10, ..Default::default() };
        let mut q = Queue::with_qdisc(QueueLimit::Packets(3), AnyQdisc::Other(Box::new(disc)));
        for (t, uid) in [(0, 0), (0, 1), (15, 2), (15, 3)] {
            q.enqueue(t, pkt(uid), &mut rng, &mut store);
        }
        assert_eq!((q.kind(), q.len_pkts(), q.len_bytes(), q.stats.dropped), ("drop-stale", 3, 3003, 1));
        assert_eq!(q.iter(&store).map(|p| p.uid).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(q.back(&store).map(|p| p.uid), Some(2), "the last one accepted");
        // Not through the FIFO path.
        assert_eq!(q.dequeue_slot(20, &store), None);
        assert!(!q.pass_through(1000));
        let mut dropped = Vec::new();
        let sent = q.dequeue_other(20, &mut store, &mut rng, &mut dropped).expect("packet 2 is fresh");
        assert_eq!(store.get(sent).uid, 2);
        assert_eq!(dropped.iter().map(|&s| store.get(s).uid).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!((q.len_pkts(), q.len_bytes(), q.stats.dropped, q.stats.enqueued), (0, 0, 3, 3));
        assert_eq!(q.qdisc_counters(), vec![("stale_drops", 2)]);
        // Two packets for 15 ns, three for 5: 45 packet-ns over 20 ns.
        assert_eq!(q.mean_len_pkts(20), 45.0 / 20.0);
        // DropTail and RED never take this path.
        let mut plain = Queue::new(QueueLimit::Packets(3), None);
        plain.enqueue(0, pkt(9), &mut rng, &mut store);
        assert_eq!(plain.dequeue_other(99, &mut store, &mut rng, &mut dropped), None);
        assert_eq!((plain.kind(), plain.qdisc_counters()), ("droptail", vec![]));
    }
}

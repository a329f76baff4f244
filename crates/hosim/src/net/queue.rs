//! Link queues: DropTail sized in packets or bytes, and RED (Floyd & Jacobson 1993) that
//! drops or, for ECN-capable packets, marks CE (RFC 3168 §5, §7).

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

/// One cache line (`repr(C)`, aligned to 64 bytes), the second of a [`Queue`].
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct QueueStats {
    /// Integral of the queue length over time, in packet-nanoseconds.
    len_area: u128,
    last_change_ns: SimTime,
    pub enqueued: u64,
    pub dropped: u64,
    pub marked: u64,
    pub max_len_pkts: u32,
}

/// Where packets wait while they are in the network: queued, in service or propagating. A
/// packet is written into a slot once, when a queue accepts it, and read out once, when it
/// leaves the link; in between only the slot's index moves (queue -> transmitter ->
/// pipeline), so a hop costs two packet copies instead of five. The run's links share one
/// store and reuse freed slots last-in first-out: the slot a packet leaves on arrival is the
/// one the next link's queue writes it into, so the slots in use stay few and warm in the cache
/// however many links there are. Steady state allocates nothing: the store grows to the
/// largest number of packets in the network and stays there.
#[derive(Clone, Debug, Default)]
pub struct PacketStore {
    slots: Vec<Packet>,
    free: Vec<u32>,
    /// Beside each slot: its entry on the [`SlotFifo`] it is on.
    chain: Vec<ChainEntry>,
}

impl PacketStore {
    /// Stores `pkt` and returns its slot.
    #[inline]
    pub fn put(&mut self, pkt: Packet) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = pkt;
                slot
            }
            None => {
                self.slots.push(pkt);
                self.chain.push(ChainEntry { at: 0, next: NO_SLOT, tag: NO_TAG });
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The packet in `slot`, which is in use.
    #[inline]
    pub fn get(&self, slot: u32) -> &Packet {
        &self.slots[slot as usize]
    }

    /// Takes the packet out of `slot`, which is free afterwards.
    #[inline]
    pub fn take(&mut self, slot: u32) -> Packet {
        self.free.push(slot);
        self.slots[slot as usize]
    }

    /// Frees `slot` without reading its packet (a packet dropped while in the store).
    #[inline]
    pub fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// The packet in `slot`, which is in use, to change in place.
    #[inline]
    pub fn get_mut(&mut self, slot: u32) -> &mut Packet {
        &mut self.slots[slot as usize]
    }

    /// Slots in use.
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots allocated (in use or free).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

/// No slot: the end of a [`SlotFifo`].
const NO_SLOT: u32 = u32::MAX;

/// The tag of an entry its owner did not tag ([`SlotFifo::push_back`]).
pub const NO_TAG: u32 = u32::MAX;

/// A slot's entry on its [`SlotFifo`]: 16 bytes, so four share a cache line.
#[derive(Clone, Copy, Debug)]
struct ChainEntry {
    /// The slot's time on the list.
    at: SimTime,
    /// The slot behind it.
    next: u32,
    /// What the list's owner keeps with the slot ([`SlotFifo::push_back_tagged`]).
    tag: u32,
}

/// Slots of the [`PacketStore`] in first-in first-out order, each with a time (a pipeline's
/// arrival time; a queue's enqueue time): a list threaded through the store, in which each
/// slot names the one behind it, so that the owner holds three numbers and no buffer of its
/// own. A slot is on at most one list at a time (a packet is queued or propagating), so one
/// link per slot in the store serves every list. Appending to an empty list touches only the
/// list and the slot's link, both at hand, where a ring buffer of its own adds a line, cold
/// when its link has been idle: with hundreds of links, most hops start on one; and neither
/// end checks for room to grow (bench/README.md). Every call on one list must pass the store
/// that holds its slots.
#[derive(Clone, Copy, Debug)]
pub struct SlotFifo {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for SlotFifo {
    fn default() -> Self {
        SlotFifo { head: NO_SLOT, tail: NO_SLOT, len: 0 }
    }
}

impl SlotFifo {
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `slot` with time `at`, untagged ([`NO_TAG`]).
    #[inline]
    pub fn push_back(&mut self, store: &mut PacketStore, at: SimTime, slot: u32) {
        self.push_back_tagged(store, at, slot, NO_TAG);
    }

    /// Appends `slot` with time `at` and a tag of the owner's ([`TaggedFifo`]).
    #[inline]
    pub fn push_back_tagged(&mut self, store: &mut PacketStore, at: SimTime, slot: u32, tag: u32) {
        store.chain[slot as usize] = ChainEntry { at, next: NO_SLOT, tag };
        // The link to the new slot: the head of an empty list, else the tail's (no branch to
        // mispredict where a queue empties and fills at random).
        let link = if self.len == 0 { &mut self.head } else { &mut store.chain[self.tail as usize].next };
        *link = slot;
        self.tail = slot;
        self.len += 1;
    }

    /// The oldest slot and its time.
    #[inline]
    pub fn front(&self, store: &PacketStore) -> Option<(SimTime, u32)> {
        if self.len == 0 {
            return None;
        }
        Some((store.chain[self.head as usize].at, self.head))
    }

    /// The newest slot.
    #[inline]
    pub fn back(&self) -> Option<u32> {
        (self.len > 0).then_some(self.tail)
    }

    /// Takes the oldest slot off the list (it stays in use) with its time.
    #[inline]
    pub fn pop_front(&mut self, store: &PacketStore) -> Option<(SimTime, u32)> {
        if self.len == 0 {
            return None;
        }
        let slot = self.head;
        let ChainEntry { at, next, .. } = store.chain[slot as usize];
        // `tail` is left as it is when the list empties: only a non-empty list reads it.
        self.head = next;
        self.len -= 1;
        Some((at, slot))
    }

    /// The slots, oldest first.
    pub fn slots<'a>(&self, store: &'a PacketStore) -> impl Iterator<Item = u32> + 'a {
        let mut slot = self.head;
        (0..self.len).map(move |_| {
            let this = slot;
            slot = store.chain[this as usize].next;
            this
        })
    }
}

/// A [`SlotFifo`] whose slots each carry a tag of the owner's, and which keeps its head's tag
/// beside the head: the owner learns what to do with the oldest slot from the list itself,
/// without reading the slot's entry in the store first. A link's pipeline is one, tagged with
/// what each packet does where it arrives (`World`'s `arrival_tag`), so that an arrival reads
/// the packet's next step on the link's own line.
#[derive(Clone, Copy, Debug)]
pub struct TaggedFifo {
    list: SlotFifo,
    /// The head's tag; unused while the list is empty.
    head_tag: u32,
}

impl Default for TaggedFifo {
    fn default() -> Self {
        TaggedFifo { list: SlotFifo::default(), head_tag: NO_TAG }
    }
}

impl TaggedFifo {
    #[inline]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Appends `slot` with time `at` and `tag`.
    #[inline]
    pub fn push_back(&mut self, store: &mut PacketStore, at: SimTime, slot: u32, tag: u32) {
        if self.list.is_empty() {
            self.head_tag = tag;
        }
        self.list.push_back_tagged(store, at, slot, tag);
    }

    /// The oldest slot and its time.
    #[inline]
    pub fn front(&self, store: &PacketStore) -> Option<(SimTime, u32)> {
        self.list.front(store)
    }

    /// Takes the oldest slot off the list (it stays in use) with its time and its tag.
    #[inline]
    pub fn pop_front(&mut self, store: &PacketStore) -> Option<(SimTime, u32, u32)> {
        let tag = self.head_tag;
        let (at, slot) = self.list.pop_front(store)?;
        if !self.list.is_empty() {
            self.head_tag = store.chain[self.list.head as usize].tag;
        }
        Some((at, slot, tag))
    }

    /// The slots, oldest first.
    pub fn slots<'a>(&self, store: &'a PacketStore) -> impl Iterator<Item = u32> + 'a {
        self.list.slots(store)
    }
}

/// Laid out in declaration order (`repr(C)`) in two cache lines: what every enqueue and
/// dequeue touches (the packets, the limit), then the counters ([`QueueStats`]), so that a
/// link's hot fields share few lines (see [`Link`](super::Link)).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Queue {
    /// Slots of the [`PacketStore`] the caller passes in, holding the queued packets, oldest
    /// first. Every call on one queue must pass the same store.
    pkts: SlotFifo,
    bytes: u64,
    /// Boxed: most queues are DropTail, and the parameters would spread the hot fields.
    red: Option<Box<RedState>>,
    pub limit: QueueLimit,
    pub stats: QueueStats,
}

impl Queue {
    pub fn new(limit: QueueLimit, red: Option<RedParams>) -> Queue {
        Queue {
            limit,
            pkts: SlotFifo::default(),
            bytes: 0,
            red: red.map(|params| Box::new(RedState { params, avg: 0.0, count: -1, idle_since: Some(0) })),
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

    /// Whether one more packet of `size_bytes` is within the limit.
    fn fits(&self, size_bytes: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.pkts.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + size_bytes as u64 <= b,
        }
    }

    fn account(&mut self, now: SimTime) {
        let dt = now.saturating_sub(self.stats.last_change_ns);
        self.stats.len_area += self.pkts.len() as u128 * dt as u128;
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
        let early = match self.red.as_mut() {
            Some(red) => red.decide(now, self.pkts.len(), pkt, rng),
            None => RedDecision::Pass,
        };
        let verdict = match early {
            RedDecision::Drop => Verdict::DroppedEarly,
            _ if !self.fits(pkt.size_bytes) => Verdict::DroppedFull,
            RedDecision::Mark => Verdict::Marked,
            RedDecision::Pass => Verdict::Queued,
        };
        match verdict {
            Verdict::DroppedEarly | Verdict::DroppedFull => self.stats.dropped += 1,
            Verdict::Queued | Verdict::Marked => {
                let size = pkt.size_bytes;
                if verdict == Verdict::Marked {
                    self.stats.marked += 1;
                    store.get_mut(slot).ecn = Ecn::Ce;
                }
                self.account(now);
                self.bytes += size as u64;
                self.pkts.push_back(store, now, slot);
                self.stats.enqueued += 1;
                self.stats.max_len_pkts = self.stats.max_len_pkts.max(self.pkts.len() as u32);
                if let Some(red) = self.red.as_mut() {
                    red.idle_since = None;
                }
            }
        }
        verdict
    }

    /// A packet of `size_bytes` offered to an empty DropTail queue whose transmitter is idle
    /// and takes it at once: counts it as enqueued and dequeued at once (the queue is one
    /// packet long for no time, so its length integral does not change) and returns true;
    /// the caller transmits it. False, and nothing changed, if the queue is not empty, is RED
    /// (its average must see the packet), or would not hold the packet: the caller offers it
    /// with [`Queue::enqueue_slot`] instead.
    #[inline]
    pub fn pass_through(&mut self, size_bytes: u32) -> bool {
        if !self.pkts.is_empty() || self.red.is_some() || !self.fits(size_bytes) {
            return false;
        }
        // No `account`: the queue has been empty since its last change and stays empty, so
        // its length integral gains nothing, whenever that change was.
        self.stats.enqueued += 1;
        self.stats.max_len_pkts = self.stats.max_len_pkts.max(1);
        true
    }

    pub fn dequeue(&mut self, now: SimTime, store: &mut PacketStore) -> Option<Packet> {
        let slot = self.dequeue_slot(now, store)?;
        Some(store.take(slot))
    }

    /// Takes the oldest packet out of the queue but leaves it in its slot: the caller (the
    /// link's transmitter) reads it with [`PacketStore::get`] and frees the slot with
    /// [`PacketStore::take`] when the packet leaves the link.
    #[inline]
    pub fn dequeue_slot(&mut self, now: SimTime, store: &PacketStore) -> Option<u32> {
        self.account(now);
        let (_, slot) = self.pkts.pop_front(store)?;
        self.bytes -= store.get(slot).size_bytes as u64;
        if self.pkts.is_empty() {
            if let Some(red) = self.red.as_mut() {
                red.idle_since = Some(now);
            }
        }
        Some(slot)
    }

    /// Removes every queued packet (e.g. a base station flushing a UE's queue), oldest first.
    pub fn drain(&mut self, now: SimTime, store: &mut PacketStore) -> Vec<Packet> {
        self.account(now);
        self.bytes = 0;
        let mut out = Vec::with_capacity(self.pkts.len());
        while let Some((_, slot)) = self.pkts.pop_front(store) {
            out.push(store.take(slot));
        }
        out
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

    /// The queued packets, oldest first.
    pub fn iter<'a>(&'a self, store: &'a PacketStore) -> impl Iterator<Item = &'a Packet> + 'a {
        self.pkts.slots(store).map(move |slot| store.get(slot))
    }

    /// The packet enqueued last.
    pub fn back<'a>(&self, store: &'a PacketStore) -> Option<&'a Packet> {
        self.pkts.back().map(|slot| store.get(slot))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

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

    proptest::proptest! {
        /// Three lists sharing one store, each checked against a VecDeque after every step:
        /// a slot moves from list to list (as a packet goes from a queue to a pipeline and on
        /// to the next link's queue) and is freed and reused, and every list keeps its order,
        /// its times, its length and its back.
        #[test]
        fn slot_lists_sharing_a_store_behave_as_fifos(ops in proptest::collection::vec((0u8..4, 0usize..3, 0usize..3), 1..300)) {
            use std::collections::VecDeque;
            let mut store = PacketStore::default();
            let mut lists = [SlotFifo::default(); 3];
            let mut model: [VecDeque<(SimTime, u32)>; 3] = Default::default();
            for (step, (op, a, b)) in ops.into_iter().enumerate() {
                let t = step as SimTime;
                match op {
                    // A new packet joins list a.
                    0 | 1 => {
                        let slot = store.put(pkt(step as u64));
                        lists[a].push_back(&mut store, t, slot);
                        model[a].push_back((t, slot));
                    }
                    // The oldest of list a moves to list b.
                    2 => {
                        let got = lists[a].pop_front(&store);
                        proptest::prop_assert_eq!(got, model[a].pop_front());
                        if let Some((_, slot)) = got {
                            lists[b].push_back(&mut store, t, slot);
                            model[b].push_back((t, slot));
                        }
                    }
                    // The oldest of list a leaves the store.
                    _ => {
                        let got = lists[a].pop_front(&store);
                        proptest::prop_assert_eq!(got, model[a].pop_front());
                        if let Some((_, slot)) = got {
                            store.take(slot);
                        }
                    }
                }
                for (list, m) in lists.iter().zip(&model) {
                    proptest::prop_assert_eq!(list.len(), m.len());
                    proptest::prop_assert_eq!(list.is_empty(), m.is_empty());
                    proptest::prop_assert_eq!(list.front(&store), m.front().copied());
                    proptest::prop_assert_eq!(list.back(), m.back().map(|&(_, s)| s));
                    let slots: Vec<u32> = list.slots(&store).collect();
                    let want: Vec<u32> = m.iter().map(|&(_, s)| s).collect();
                    proptest::prop_assert_eq!(slots, want);
                }
            }
            let held: usize = model.iter().map(VecDeque::len).sum();
            proptest::prop_assert_eq!(store.in_use(), held);
        }

        /// A tagged list gives back each slot with its time and its tag, oldest first, while
        /// an untagged list shares its store (a pipeline and the queues of other links).
        #[test]
        fn a_tagged_list_gives_back_each_slot_s_tag(ops in proptest::collection::vec((0u8..5, 0u32..1000), 1..300)) {
            use std::collections::VecDeque;
            let mut store = PacketStore::default();
            let mut tagged = TaggedFifo::default();
            let mut plain = SlotFifo::default();
            let mut model: VecDeque<(SimTime, u32, u32)> = VecDeque::new();
            for (step, (op, tag)) in ops.into_iter().enumerate() {
                let t = step as SimTime;
                match op {
                    0 | 1 => {
                        let slot = store.put(pkt(step as u64));
                        tagged.push_back(&mut store, t, slot, tag);
                        model.push_back((t, slot, tag));
                    }
                    // The untagged list takes a slot too, or gives its oldest back.
                    2 => {
                        let slot = store.put(pkt(step as u64));
                        plain.push_back(&mut store, t, slot);
                    }
                    3 => {
                        if let Some((_, slot)) = plain.pop_front(&store) {
                            store.take(slot);
                        }
                    }
                    _ => {
                        let got = tagged.pop_front(&store);
                        proptest::prop_assert_eq!(got, model.pop_front());
                        if let Some((_, slot, _)) = got {
                            store.take(slot);
                        }
                    }
                }
                proptest::prop_assert_eq!(tagged.len(), model.len());
                proptest::prop_assert_eq!(tagged.front(&store), model.front().map(|&(t, s, _)| (t, s)));
            }
        }
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
        let red =
            RedParams { min_th_pkts: 5.0, max_th_pkts: 15.0, max_p: 0.1, weight: 0.002, ecn: false, typical_tx_ns: 1 };
        assert!(!Queue::new(QueueLimit::Packets(10), Some(red)).pass_through(1000));
    }

    #[test]
    fn red_marks_the_packet_in_its_slot() {
        let mut rng = crate::engine::rng::stream_rng(1, crate::engine::rng::StreamKind::Link, 0);
        let mut store = PacketStore::default();
        // The average follows the queue (weight 1) and stays below max_th: ECN-capable packets
        // are marked with a probability that grows with the queue, never dropped.
        let red =
            RedParams { min_th_pkts: 0.0, max_th_pkts: 100.0, max_p: 1.0, weight: 1.0, ecn: true, typical_tx_ns: 1 };
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
}

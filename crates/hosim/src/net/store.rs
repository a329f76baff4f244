//! The packet store: where packets wait while they are in the network (queued, in service or
//! propagating), and the first-in first-out lists of its slots that a link's queue and its
//! pipeline are ([`SlotFifo`], [`TaggedFifo`]).

use super::packet::Packet;
use crate::engine::time::SimTime;

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
/// end checks for room to grow (bench/decisions.md). Every call on one list must pass the store
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn pkt(uid: u64) -> Packet {
        Packet::new(uid, 0, 0, 1, PacketKind::Data, 1000 + uid as u32, 0)
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
}

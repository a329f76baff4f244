//! The event queue, ordered by (time, insertion sequence), so simultaneous events always run
//! in the order they were scheduled, on every run and every machine.
//!
//! Three structures hold the pending events, and a pop takes the earlier of the run's front
//! and the heap's top (where the buckets are present by their fronts), so the order is the
//! same as one priority queue's ((time, sequence) keys are unique, so any correct one pops
//! them in the same order):
//! - a sorted run for link events ([`Lane::Near`]): an arrival is almost always due after all
//!   but the last few link events pending, so it is inserted from the back, passing a few
//!   entries, and the earliest is popped from the front. An insertion that would pass more
//!   than [`RUN_REACH`] entries from the back goes in from the front if it passes at most
//!   that many there (an event due before nearly every pending one: a transmission's end
//!   microseconds ahead), else to a bucket (below), so no insertion costs more than that.
//!   Its compares are predictable where a heap's sift is not: measured, a run loop 7–11 %
//!   faster than with the near events in a heap of their own (bench/decisions.md), for 1 %
//!   fewer instructions;
//! - a binary heap for timers ([`Lane::Timer`]: retransmission, delayed ACK, applications,
//!   agents, rate changes);
//! - for the link events the run did not take, sorted runs by how far ahead they are due
//!   ([`BUCKETS`]: one per power of two of the delay from now), each present in the heap by a
//!   single entry keyed by its front, which stands for the whole run. Where link delays differ
//!   (a cellular network: 15 ms to the servers, 5 ms over the radio, 1 and 2 ms in the core),
//!   an arrival due in 5 ms would pass every pending arrival due in 5 to 15 ms: hundreds with a
//!   hundred busy flows. Events due about as far ahead are scheduled in about the order they
//!   are due, so in its own run such an event passes few; the heap then holds one entry a run
//!   instead of every such event. Only events that would pass a run's front, or more than
//!   [`RUN_REACH`] of its entries, go into the heap themselves.
//!
//! Popping from the heap leaves the popped entry at its top until the next call: most events
//! schedule another, and a first schedule into the heap overwrites the top and sifts it down
//! once, instead of a pop (sift to the bottom and back up) followed by a push.

use super::time::SimTime;

/// Children per node of the heap. A 4-ary heap (half the depth, three compares per level) was
/// measured and lost at 8 and at 512 flows (bench/decisions.md).
const ARITY: usize = 2;

#[derive(Clone, Copy)]
struct Entry<E> {
    /// `time << 64 | seq`: one integer compare orders by time, then by sequence.
    key: u128,
    event: E,
}

#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    (time as u128) << 64 | seq as u128
}

#[inline]
fn key_time(key: u128) -> SimTime {
    (key >> 64) as SimTime
}

/// Where an event waits: a hint of how far ahead it is due. Both places draw keys from one
/// sequence counter, and a pop takes the smaller of their fronts, so the choice changes no
/// order: it keeps the many near link events (arrivals) in the sorted run, away from a heap
/// that holds every flow's far timers (a retransmission timeout one second ahead, most of them
/// stale by the time they fire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Link events: due within a transmission or propagation time (the sorted run).
    Near,
    /// Timers: retransmission, delayed ACK, application ticks, agents' timers, rate changes.
    Timer,
}

/// What a heap entry stands for: an event, or the front of a bucket's run (the entry's key is
/// that front's, so the run is popped from exactly where its front event belongs).
#[derive(Clone, Copy)]
enum Slot<E> {
    Event(E),
    Run(u32),
}

/// The earlier of the two fronts a pop compares: the run's event, or what the heap's top
/// stands for.
enum Top<E> {
    Run(E),
    Heap(Slot<E>),
}

/// A min-heap on `key` (`ARITY` children per node), sifted with a hole rather than swaps.
struct Heap<E> {
    entries: Vec<Entry<E>>,
}

impl<E: Copy> Heap<E> {
    #[inline]
    fn top_key(&self) -> Option<u128> {
        self.entries.first().map(|e| e.key)
    }

    #[inline]
    fn push(&mut self, entry: Entry<E>) {
        self.entries.push(entry);
        self.sift_up(self.entries.len() - 1, entry);
    }

    /// Puts `e` into the hole at `i`, moving it towards the root past larger parents.
    #[inline]
    fn sift_up(&mut self, mut i: usize, e: Entry<E>) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.entries[parent];
            if p.key < e.key {
                break;
            }
            self.entries[i] = p;
            i = parent;
        }
        self.entries[i] = e;
    }

    /// Puts `e` into the hole at `i`, moving it towards the leaves past smaller children.
    #[inline]
    fn sift_down(&mut self, mut i: usize, e: Entry<E>) {
        const { assert!(ARITY == 2, "sift_down walks a binary heap") };
        let heap = &mut self.entries[..];
        let n = heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let c = if right < n && heap[right].key < heap[left].key { right } else { left };
            if e.key < heap[c].key {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = e;
    }

    /// Fills the hole at the top with `e`, taken from the last leaf: the hole first moves
    /// down to a leaf along the smaller children, then `e` sifts up from there (Floyd's
    /// bottom-up variant). A former leaf is late, so it would sink most of the way anyway:
    /// one compare per level on the way down (between the two children) instead of two, and
    /// few levels back up. An entry scheduled at the top (`schedule`) is usually early and
    /// keeps the plain sift-down, which stops near the top (bench/decisions.md).
    #[inline]
    fn refill_top(&mut self, e: Entry<E>) {
        const { assert!(ARITY == 2, "refill_top walks a binary heap") };
        let heap = &mut self.entries[..];
        let n = heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            let right = left + 1;
            if right < n {
                let c = if heap[right].key < heap[left].key { right } else { left };
                heap[i] = heap[c];
                i = c;
            } else {
                if left < n {
                    heap[i] = heap[left];
                    i = left;
                }
                break;
            }
        }
        self.sift_up(i, e);
    }

    /// Removes the top entry.
    #[inline]
    fn remove_top(&mut self) {
        if let Some(last) = self.entries.pop() {
            if !self.entries.is_empty() {
                self.refill_top(last);
            }
        }
    }
}

/// Link events in order of their keys, earliest first from `head`. Most arrivals a link
/// schedules are due after all, or all but one or two, of the link events pending (on the
/// dumbbell, 1.4 entries passed on average at 8 flows, 2.8 at 512, with 6 and 10 pending), so
/// an insertion from the back passes a few entries, and the earliest is popped from the front.
struct SortedRun<E> {
    entries: Vec<Entry<E>>,
    /// The first entry still pending; those before it were popped. The pending entries move
    /// back to the start once half a [`RUN_CAPACITY`] and at least half the vector was
    /// popped, so they stay in the same few cache lines even after a burst grew the vector.
    head: usize,
}

/// How many pending entries an insertion into the [`SortedRun`] may pass, from the back. An
/// event that would go deeper goes to the heap instead (the split changes no order), so an
/// insertion costs O(1) however many link events are pending.
const RUN_REACH: usize = 8;

/// The [`SortedRun`]'s initial room, in entries (1 KiB); it grows only when it is full with
/// more than half of it pending.
const RUN_CAPACITY: usize = 32;

impl<E: Copy> SortedRun<E> {
    #[inline]
    fn front_key(&self) -> Option<u128> {
        self.entries.get(self.head).map(|e| e.key)
    }

    /// Removes the front entry (the caller has read it).
    #[inline]
    fn pop_front(&mut self) {
        self.head += 1;
        if self.head >= RUN_CAPACITY / 2 {
            self.move_back();
        }
    }

    /// Once half a [`RUN_CAPACITY`] and at least half the vector was popped, moves the pending
    /// entries back to the start: that costs no more than those pops did, and keeps the run
    /// in its first few cache lines instead of sliding through a vector that once grew.
    /// Otherwise the vector grows when it is full (doubling, so rarely). Tested here, at a pop,
    /// rather than at every insertion: one compare a pop, instead of a pop's compare (for an
    /// emptied run) and an insertion's two (bench/decisions.md).
    #[inline]
    fn move_back(&mut self) {
        if 2 * self.head >= self.entries.len() {
            self.entries.drain(..self.head);
            self.head = 0;
        }
    }

    /// Inserts `e` in key order if that is at most [`RUN_REACH`] entries from the back; false
    /// (and nothing changed) otherwise. `e` was scheduled last, so its sequence number is the
    /// largest: it goes after every pending entry due at its time or earlier, and the search
    /// compares times alone (one 64-bit compare a step instead of a 128-bit one).
    #[inline]
    fn insert(&mut self, e: Entry<E>) -> bool {
        self.insert_from(e, 0)
    }

    /// [`SortedRun::insert`], refused also if `e` would go before index `floor` (a bucket's
    /// run passes `head + 1`: its front is keyed in the heap, so it must not change).
    #[inline(always)]
    fn insert_from(&mut self, e: Entry<E>, floor: usize) -> bool {
        let len = self.entries.len();
        let time = key_time(e.key);
        let mut i = len;
        while i > self.head && key_time(self.entries[i - 1].key) > time {
            i -= 1;
            if len - i > RUN_REACH || i < floor {
                return false;
            }
        }
        self.entries.insert(i, e);
        true
    }

    /// Inserts `e` in key order if that is at most [`RUN_REACH`] entries from the front and
    /// a popped slot before the front is free to take the entries it passes; false (and
    /// nothing changed) otherwise. For an event due before nearly every pending one (a
    /// transmission's end microseconds ahead, among arrivals due over the next milliseconds).
    #[inline(always)]
    fn insert_front(&mut self, e: Entry<E>) -> bool {
        if self.head == 0 {
            return false;
        }
        let time = key_time(e.key);
        let (head, len) = (self.head, self.entries.len());
        let mut p = head;
        // `e` goes after every pending entry due at its time or earlier (its sequence number
        // is the largest).
        while p < len && key_time(self.entries[p].key) <= time {
            p += 1;
            if p - head > RUN_REACH {
                return false;
            }
        }
        self.entries.copy_within(head..p, head - 1);
        self.head = head - 1;
        self.entries[p - 1] = e;
        true
    }

    fn len(&self) -> usize {
        self.entries.len() - self.head
    }
}

/// Sorted runs for the link events the [`SortedRun`] did not take, one per power of two of
/// their delay from now (bucket `b` holds delays of `b` bits: 4.2 to 8.4 ms is bucket 23), the
/// last one for everything further. A nonempty run has one entry in the heap, keyed by its
/// front ([`Slot::Run`]).
const BUCKETS: usize = 40;

/// The bucket of an event due `delay` ns from now.
#[inline(always)]
fn bucket_of(delay: SimTime) -> usize {
    ((SimTime::BITS - delay.leading_zeros()) as usize).min(BUCKETS - 1)
}

pub struct EventQueue<E> {
    /// Link events ([`Lane::Near`]) that fit the sorted run.
    run: SortedRun<E>,
    /// Timers ([`Lane::Timer`]), the front of each nonempty bucket, and link events that fit
    /// neither the run nor their bucket.
    heap: Heap<Slot<E>>,
    /// Link events that did not fit the run, by their delay (see [`BUCKETS`]).
    buckets: Vec<SortedRun<E>>,
    next_seq: u64,
    executed: u64,
    /// Time of the last event popped: nothing may be scheduled before it.
    now: SimTime,
    /// The first attempt to schedule an event in the past, as (now, requested time).
    past: Option<(SimTime, SimTime)>,
    /// The event popped last came from the heap and is still at its top, to be removed (or
    /// overwritten by the next schedule into the heap).
    popped: bool,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            run: SortedRun { entries: Vec::with_capacity(RUN_CAPACITY), head: 0 },
            heap: Heap { entries: Vec::with_capacity(1024) },
            buckets: (0..BUCKETS).map(|_| SortedRun { entries: Vec::new(), head: 0 }).collect(),
            next_seq: 0,
            executed: 0,
            now: 0,
            past: None,
            popped: false,
        }
    }

    /// Schedules `event` at `time` in the near lane (see [`EventQueue::schedule_in`]). Out of
    /// line, one function a lane: the near lane's code tests no lane and keeps the heap's
    /// sift out of its registers (bench/decisions.md).
    #[inline(never)]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let Some(entry) = self.entry(time, event) else { return };
        if !self.run.insert(entry) {
            self.overflow(entry);
        }
    }

    /// Schedules `event` at `time` in the timer lane (see [`EventQueue::schedule_in`]).
    #[inline(never)]
    pub fn schedule_timer(&mut self, time: SimTime, event: E) {
        let Some(entry) = self.entry(time, event) else { return };
        self.push_heap(Entry { key: entry.key, event: Slot::Event(entry.event) });
    }

    /// Schedules `event` at `time`, kept in `lane` until it is due; the lane changes no
    /// order. A time before the last popped event (an overflowed or negative delay upstream)
    /// is a bug: the event is refused and the first such request is kept for
    /// [`EventQueue::past_request`], which the run loop turns into an internal error.
    #[inline]
    pub fn schedule_in(&mut self, lane: Lane, time: SimTime, event: E) {
        match lane {
            Lane::Near => self.schedule(time, event),
            Lane::Timer => self.schedule_timer(time, event),
        }
    }

    /// The entry for `event` at `time`, with the next sequence number; none (and the request
    /// kept) if `time` is in the past.
    #[inline(always)]
    fn entry(&mut self, time: SimTime, event: E) -> Option<Entry<E>> {
        if time < self.now {
            self.refuse_past(time);
            return None;
        }
        let entry = Entry { key: key(time, self.next_seq), event };
        self.next_seq += 1;
        Some(entry)
    }

    /// A link event beyond the run's reach from the back: into the run from its front if it
    /// is due among the first few (see [`SortedRun::insert_front`]); else into the run of
    /// its bucket, behind that run's front and within [`RUN_REACH`] of its back; an empty
    /// bucket's run takes it and enters the heap with its key. Otherwise the event goes into
    /// the heap itself.
    #[inline(never)]
    fn overflow(&mut self, entry: Entry<E>) {
        if self.run.insert_front(entry) {
            return;
        }
        let b = bucket_of(key_time(entry.key) - self.now);
        let run = &mut self.buckets[b];
        if run.len() == 0 {
            run.entries.clear();
            run.head = 0;
            run.entries.push(entry);
            self.push_heap(Entry { key: entry.key, event: Slot::Run(b as u32) });
            return;
        }
        let front = run.head + 1;
        if !run.insert_from(entry, front) {
            self.push_heap(Entry { key: entry.key, event: Slot::Event(entry.event) });
        }
    }

    /// Pops the front of bucket `b`, whose heap entry is at the top: that entry is keyed
    /// anew by the run's next front (one sift-down), or left to be removed if the run is
    /// now empty.
    #[inline(never)]
    fn pop_bucket(&mut self, b: u32) -> E {
        let run = &mut self.buckets[b as usize];
        let front = run.entries[run.head];
        debug_assert_eq!(Some(front.key), self.heap.top_key(), "a bucket's heap entry is keyed by its front");
        run.pop_front();
        match run.front_key() {
            Some(key) => self.heap.sift_down(0, Entry { key, event: Slot::Run(b) }),
            None => self.popped = true,
        }
        front.event
    }

    /// Into the heap: over the entry popped last if it still holds the top.
    #[inline(always)]
    fn push_heap(&mut self, entry: Entry<Slot<E>>) {
        if self.popped {
            self.popped = false;
            // The entry popped last is still at the top: overwrite it (one sift-down).
            self.heap.sift_down(0, entry);
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline(always)]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        if self.popped {
            self.popped = false;
            self.heap.remove_top();
        }
        // Each front read once: its key decides, and the winner is the event.
        let (key, top) = match (self.run.entries.get(self.run.head), self.heap.entries.first()) {
            (Some(run), Some(heap)) if run.key < heap.key => (run.key, Top::Run(run.event)),
            (_, Some(heap)) => (heap.key, Top::Heap(heap.event)),
            (Some(run), None) => (run.key, Top::Run(run.event)),
            (None, None) => return None,
        };
        let time = key_time(key);
        if time > limit {
            return None;
        }
        let event = match top {
            Top::Run(event) => {
                self.run.pop_front();
                event
            }
            Top::Heap(Slot::Event(event)) => {
                self.popped = true;
                event
            }
            Top::Heap(Slot::Run(b)) => self.pop_bucket(b),
        };
        self.executed += 1;
        self.now = time;
        Some((time, event))
    }

    /// The time of the earliest pending event, if any: a driver that follows the wall clock
    /// (`hosim-emulate`) sleeps until then. Not used by simulated runs.
    pub fn next_time(&mut self) -> Option<SimTime> {
        if self.popped {
            self.popped = false;
            self.heap.remove_top();
        }
        let key = match (self.run.front_key(), self.heap.top_key()) {
            (Some(run), Some(heap)) => run.min(heap),
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => return None,
        };
        Some(key_time(key))
    }

    #[cold]
    fn refuse_past(&mut self, time: SimTime) {
        self.past.get_or_insert((self.now, time));
    }

    /// The first refused request to schedule an event in the past: (now, requested time).
    pub fn past_request(&self) -> Option<(SimTime, SimTime)> {
        self.past
    }

    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Events pending (the one popped last is not).
    pub fn len(&self) -> usize {
        let (held, runs) = self.buckets.iter().fold((0, 0), |(n, r), b| (n + b.len(), r + (b.len() > 0) as usize));
        self.run.len() + self.heap.entries.len() - self.popped as usize - runs + held
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pop_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule(20, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(100).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
    }

    #[test]
    fn simultaneous_events_keep_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.schedule(5, i);
        }
        let order: Vec<i32> = std::iter::from_fn(|| q.pop_until(5).map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn simultaneous_events_in_both_lanes_keep_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..40 {
            if i % 3 == 0 {
                q.schedule_timer(5, i);
            } else {
                q.schedule(5, i);
            }
        }
        let mut order = Vec::new();
        while let Some((_, e)) = q.pop_until(5) {
            order.push(e);
            // A schedule after each pop overwrites the top of the popped lane or pushes.
            if e < 20 {
                if e % 2 == 0 {
                    q.schedule_timer(6, 100 + e);
                } else {
                    q.schedule(6, 100 + e);
                }
            }
        }
        assert_eq!(order, (0..40).collect::<Vec<_>>());
        let later: Vec<i32> = std::iter::from_fn(|| q.pop_until(6).map(|(_, e)| e)).collect();
        assert_eq!(later, (100..120).collect::<Vec<_>>());
    }

    #[test]
    fn scheduling_before_the_last_popped_event_is_refused_and_recorded() {
        let mut q = EventQueue::new();
        q.schedule(10, 1);
        assert_eq!(q.pop_until(100), Some((10, 1)));
        q.schedule(9, 2);
        q.schedule(3, 3);
        q.schedule(10, 4);
        assert_eq!(q.past_request(), Some((10, 9)));
        assert_eq!(q.pop_until(100), Some((10, 4)));
        assert_eq!(q.pop_until(100), None);
    }

    /// Pops interleaved with schedules (the top overwritten in place, ties, a growing and
    /// shrinking heap, events spread over both lanes) come out in (time, insertion) order, as
    /// a sorted list gives them. `delay` draws an event's delay from a random word.
    fn check_against_a_sorted_reference(delay: impl Fn(u64, u64) -> SimTime) {
        let mut q = EventQueue::new();
        let mut reference: Vec<(SimTime, u64)> = Vec::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = 0u64;
        let mut now = 0;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Bursts of schedules, then of pops.
            let pushes = if (step / 500) % 2 == 0 { x % 3 } else { x % 2 };
            for k in 0..pushes {
                let t = now + delay(x, k);
                // Both lanes, as the run mixes them: the order must not depend on the lane.
                if (x >> (20 + k)).is_multiple_of(3) {
                    q.schedule_timer(t, next);
                } else {
                    q.schedule(t, next);
                }
                reference.push((t, next));
                next += 1;
            }
            reference.sort();
            let got = q.pop_until(SimTime::MAX);
            let want = if reference.is_empty() { None } else { Some(reference.remove(0)) };
            assert_eq!(got, want, "step {step}");
            if let Some((t, _)) = got {
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
    }

    #[test]
    fn interleaved_pops_and_schedules_match_a_sorted_reference() {
        // Small delays make many equal times.
        check_against_a_sorted_reference(|x, k| (x >> (8 + k)) % 4);
    }

    #[test]
    fn link_events_of_many_delays_match_a_sorted_reference() {
        // Delays in several buckets, with jitter within each, and some in the same one.
        check_against_a_sorted_reference(|x, k| {
            [0, 3, 40, 1_000, 1_100, 5_000, 15_000][((x >> (30 + k)) % 7) as usize] + (x >> (8 + k)) % 64
        });
    }

    #[test]
    fn link_events_of_two_delays_wait_in_their_buckets_not_in_the_heap() {
        let mut q = EventQueue::new();
        // A hundred flows' arrivals due in 15 us, and as many due in 5 us (a cellular
        // network's server links and radio links): each short one would pass some 60 long
        // ones in a single run.
        let mut now = 0;
        let mut n = 0u64;
        for i in 0..200u64 {
            q.schedule(now + 15_000 + i, n);
            n += 1;
        }
        let mut last = (0, 0);
        for i in 0..20_000u64 {
            let (t, e) = q.pop_until(SimTime::MAX).expect("pending");
            assert!((t, e) > last, "in (time, insertion) order");
            last = (t, e);
            now = t;
            let delay = if i % 2 == 0 { 15_000 } else { 5_000 };
            q.schedule(now + delay, n);
            n += 1;
            // The heap holds one entry a bucket, not the short arrivals themselves.
            assert!(q.heap.entries.len() <= 2, "step {i}: {} heap entries", q.heap.entries.len());
        }
        assert_eq!(q.len(), 200);
    }

    #[test]
    fn link_events_beyond_the_runs_reach_wait_in_the_heap_and_keep_their_order() {
        let mut q = EventQueue::new();
        // Descending times: each would pass every pending entry; past RUN_REACH they cannot.
        for i in 0..100u64 {
            q.schedule(1_000 - i, i);
        }
        // The first of them starts the run of its bucket; each later one would pass that
        // run's front, so it waits in the heap.
        assert_eq!(q.run.len(), RUN_REACH + 1);
        assert_eq!(q.buckets[bucket_of(1_000 - RUN_REACH as u64 - 1)].len(), 1);
        assert_eq!(q.heap.entries.len(), 1 + 100 - RUN_REACH - 2);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop_until(SimTime::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).rev().collect::<Vec<_>>());
    }

    #[test]
    fn a_link_event_due_before_nearly_every_pending_one_goes_into_the_run_from_its_front() {
        let mut q = EventQueue::new();
        for i in 0..100u64 {
            q.schedule(1_000 + 10 * i, i);
        }
        for i in 0..4u64 {
            assert_eq!(q.pop_until(SimTime::MAX), Some((1_000 + 10 * i, i)));
        }
        // Due before all 96 pending, after the first two, and at the same time as the third
        // (after it: scheduled later): each passes more than RUN_REACH from the back.
        q.schedule(1_031, 100);
        q.schedule(1_045, 101);
        q.schedule(1_060, 102);
        q.schedule(1_060, 103);
        assert_eq!((q.run.len(), q.heap.entries.len()), (100, 0), "all in the run, none in a bucket");
        let order: Vec<u64> = std::iter::from_fn(|| q.pop_until(1_070).map(|(_, e)| e)).collect();
        assert_eq!(order, vec![100, 4, 101, 5, 6, 102, 103, 7]);
        // With no popped slot before the front, such an event waits in its bucket.
        let mut q = EventQueue::new();
        for i in 0..100u64 {
            q.schedule(1_000 + 10 * i, i);
        }
        q.schedule(999, 100);
        assert_eq!((q.run.len(), q.heap.entries.len()), (100, 1));
        assert_eq!(q.pop_until(SimTime::MAX), Some((999, 100)));
    }

    #[test]
    fn the_run_moves_its_pending_entries_back_instead_of_growing() {
        let mut q = EventQueue::new();
        let room = q.run.entries.capacity();
        for t in 0..10 * RUN_CAPACITY as u64 {
            q.schedule(t + 5, t);
            if t >= 4 {
                assert_eq!(q.pop_until(SimTime::MAX), Some((t + 1, t - 4)));
            }
        }
        assert_eq!(q.run.entries.capacity(), room);
        assert_eq!((q.run.len(), q.heap.entries.len()), (4, 0));
    }

    #[test]
    fn a_long_run_keeps_its_order_and_a_room_in_proportion() {
        let mut q = EventQueue::new();
        // Many link events pending, each new one due after all of them, pops and schedules
        // alternating: the run must not move its pending entries back on every insertion.
        let n = 3 * RUN_CAPACITY as u64;
        for t in 0..n {
            q.schedule(t + 1, t);
        }
        for t in n..n + 10_000 {
            assert_eq!(q.pop_until(SimTime::MAX), Some((t - n + 1, t - n)));
            q.schedule(t + 1, t);
        }
        assert_eq!((q.run.len(), q.heap.entries.len()), (n as usize, 0));
        assert!(q.run.entries.capacity() <= 4 * n as usize, "the room stays proportional to what is pending");
    }

    #[test]
    fn after_a_burst_the_run_stays_at_the_start_of_its_grown_vector() {
        let mut q = EventQueue::new();
        // A burst grows the vector well past its initial room ...
        for t in 0..8 * RUN_CAPACITY as u64 {
            q.schedule(t + 1, t);
        }
        let grown = q.run.entries.capacity();
        assert!(grown >= 8 * RUN_CAPACITY);
        while q.run.len() > 4 {
            q.pop_until(SimTime::MAX);
        }
        // ... then few are pending: pops and schedules must not walk through all of it (cold
        // lines at every step when many flows share the cache), but stay in its first lines.
        for next in 0..10 * grown as u64 {
            let (t, _) = q.pop_until(SimTime::MAX).expect("pending");
            q.schedule(t + 5, 8 * RUN_CAPACITY as u64 + next);
            assert!(q.run.head + q.run.len() <= RUN_CAPACITY, "head {} len {}", q.run.head, q.run.len());
        }
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        q.schedule(10, 1);
        q.schedule(11, 2);
        assert_eq!(q.pop_until(10), Some((10, 1)));
        assert_eq!(q.pop_until(10), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.executed(), 1);
    }
}

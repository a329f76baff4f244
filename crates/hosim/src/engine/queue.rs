//! The event queue: a binary heap ordered by (time, insertion sequence), so simultaneous
//! events always run in the order they were scheduled, on every run and every machine.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::time::SimTime;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    executed: u64,
    /// Time of the last event popped: nothing may be scheduled before it.
    now: SimTime,
    /// The first attempt to schedule an event in the past, as (now, requested time).
    past: Option<(SimTime, SimTime)>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0, executed: 0, now: 0, past: None }
    }

    /// Schedules `event` at `time`. A time before the last popped event (an overflowed or
    /// negative delay upstream) is a bug: the event is refused and the first such request is
    /// kept for [`EventQueue::past_request`], which the run loop turns into an internal error.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        if time < self.now {
            self.refuse_past(time);
            return;
        }
        self.heap.push(Entry { time, seq: self.next_seq, event });
        self.next_seq += 1;
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        if self.heap.peek()?.time > limit {
            return None;
        }
        let e = self.heap.pop()?;
        self.executed += 1;
        self.now = e.time;
        Some((e.time, e.event))
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

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

//! Typed agent timers. Each agent declares what its timers are for as its own type
//! (`Agent::Timer`, usually an enum; a mechanism built from parts nests the parts' timer
//! types as variants, `impl From<ran::Timer> for Timer`). A pending timer's value waits in
//! its agent's [`TimerSlab`]; the event carries an index into [`super::World::agent_timers`]
//! (agent and slab entry), so every event stays 8 bytes whatever the timer types hold, and no
//! mechanism packs its timers into bits.

/// An agent's pending timers, by entry. An entry is freed when its timer fires and reused
/// last-in first-out, so the entries, like everything else, depend only on the run.
#[derive(Debug)]
pub struct TimerSlab<T> {
    entries: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for TimerSlab<T> {
    fn default() -> Self {
        TimerSlab { entries: Vec::new(), free: Vec::new() }
    }
}

impl<T> TimerSlab<T> {
    /// Files `timer`; the entry its event refers to.
    pub fn file(&mut self, timer: T) -> u64 {
        match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = Some(timer);
                i as u64
            }
            None => {
                self.entries.push(Some(timer));
                (self.entries.len() - 1) as u64
            }
        }
    }

    /// The timer filed at `entry`, which has fired: the entry is free afterwards.
    pub fn take(&mut self, entry: u64) -> T {
        let t = self.entries[entry as usize].take().expect("a timer fires once");
        self.free.push(entry as u32);
        t
    }

    /// Timers filed and not yet fired.
    pub fn pending(&self) -> usize {
        self.entries.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum T {
        Radio { cell: usize },
        Step(String),
    }

    #[test]
    fn a_slab_gives_back_each_timer_once_and_reuses_fired_entries() {
        let mut s = TimerSlab::default();
        let a = s.file(T::Radio { cell: 3 });
        let b = s.file(T::Step("attach".into()));
        assert_eq!(s.pending(), 2);
        assert_eq!(s.take(a), T::Radio { cell: 3 });
        let c = s.file(T::Radio { cell: 1 });
        assert_eq!(c, a, "the fired entry is reused");
        assert_eq!(s.take(b), T::Step("attach".into()));
        assert_eq!(s.take(c), T::Radio { cell: 1 });
        assert_eq!(s.pending(), 0);
    }
}

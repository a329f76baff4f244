//! The UE's PDCP receive side for one downlink bearer (3GPP TS 38.323 §5.2.2): in-order
//! delivery by sequence number, duplicate discard, and the t-Reordering timer.
//!
//! State variables keep the specification's names (§7.1): `rx_next` is the SN after the
//! highest one received, `rx_deliv` the first SN not yet delivered, `rx_reord` the SN after
//! the highest one received when t-Reordering started. SNs are counts here (no wrap-around:
//! a 64-bit COUNT never wraps in a run).
//!
//! Two delays are measured. A packet's wait here can approach twice t-Reordering: a packet
//! behind a second gap that opened while the timer ran for the first waits for that expiry
//! and the next (§5.2.2.2 restarts the timer with RX_REORD = RX_NEXT). In-order delivery,
//! though, never stalls longer than t-Reordering: `max_stall_ns` is the longest time packets
//! were held without RX_DELIV advancing, measured apart from the timer.
//!
//! With `outOfOrderDelivery` (TS 38.331 PDCP-Config; §5.2.2.1 "if outOfOrderDelivery is
//! configured, deliver the resulting PDCP SDU to upper layers") each new packet goes up on
//! arrival; the state variables and t-Reordering run as before, so that duplicates are still
//! discarded and a gap is given up at an expiry, and `seen` keeps the SNs above RX_DELIV
//! delivered so far.
//!
//! The struct takes `now` and returns what to deliver and whether to (re)start the timer:
//! the agent owns the clock and the timer, so the rules can be tested without a scenario.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::time::SimTime;

/// What the receiver asks of its owner after a packet or a timer expiry.
#[derive(Debug, Default)]
pub struct Outcome<T> {
    /// Packets to deliver to the upper layer, in SN order, with the time each waited here.
    pub deliver: Vec<(T, SimTime)>,
    /// t-Reordering must be (re)started now.
    pub start_timer: bool,
    /// The packet was discarded: a duplicate, or late (its SN was given up at an expiry).
    pub discarded: bool,
}

pub struct PdcpRx<T> {
    rx_next: u64,
    rx_deliv: u64,
    rx_reord: u64,
    /// t-Reordering runs; `generation` tells a stale expiry from the running one.
    timer_running: bool,
    pub generation: u64,
    /// Received and not yet delivered: SN -> (packet, arrival time).
    buffer: BTreeMap<u64, (T, SimTime)>,
    /// SNs given up at an expiry and not received since.
    skipped: BTreeSet<u64>,
    /// `outOfOrderDelivery`: packets go up on arrival; the SNs at or above RX_DELIV so far.
    out_of_order: bool,
    seen: BTreeSet<u64>,
    /// Packets discarded as duplicates of a received SN (§5.2.2.1).
    pub duplicates: u64,
    /// Packets discarded because their SN had been given up (§5.2.2.1, COUNT < RX_DELIV).
    pub late: u64,
    /// The longest time a packet waited here, in ns.
    pub max_wait_ns: SimTime,
    /// Since when packets are held with RX_DELIV not advancing, and the longest such stall.
    stalled_since: Option<SimTime>,
    pub max_stall_ns: SimTime,
}

impl<T> Default for PdcpRx<T> {
    fn default() -> Self {
        PdcpRx::new(false)
    }
}

impl<T> PdcpRx<T> {
    /// A receiver that delivers in SN order, or (`out_of_order`) on arrival.
    pub fn new(out_of_order: bool) -> Self {
        PdcpRx {
            rx_next: 0,
            rx_deliv: 0,
            rx_reord: 0,
            timer_running: false,
            generation: 0,
            buffer: BTreeMap::new(),
            skipped: BTreeSet::new(),
            out_of_order,
            seen: BTreeSet::new(),
            duplicates: 0,
            late: 0,
            max_wait_ns: 0,
            stalled_since: None,
            max_stall_ns: 0,
        }
    }
}

impl<T> PdcpRx<T> {
    /// Packets waiting for a gap to close.
    pub fn held(&self) -> u64 {
        self.buffer.len() as u64
    }

    /// §5.2.2.1: a PDCP data PDU with SN `sn` arrives at `now`.
    pub fn receive(&mut self, sn: u64, pkt: T, now: SimTime) -> Outcome<T> {
        let mut out = Outcome { deliver: Vec::new(), start_timer: false, discarded: false };
        // "if RCVD_COUNT < RX_DELIV, or if the PDCP Data PDU with COUNT = RCVD_COUNT has been
        // received before: discard the PDCP Data PDU".
        if sn < self.rx_deliv || self.buffer.contains_key(&sn) || self.seen.contains(&sn) {
            if self.skipped.remove(&sn) {
                self.late += 1;
            } else {
                self.duplicates += 1;
            }
            out.discarded = true;
            return out;
        }
        // "if RCVD_COUNT >= RX_NEXT: update RX_NEXT to RCVD_COUNT + 1".
        self.rx_next = self.rx_next.max(sn + 1);
        if self.out_of_order {
            // "if outOfOrderDelivery is configured: deliver the resulting PDCP SDU".
            out.deliver.push((pkt, 0));
            self.seen.insert(sn);
            self.advance_seen();
        } else {
            self.buffer.insert(sn, (pkt, now));
            // "if RCVD_COUNT = RX_DELIV: deliver ... all stored SDUs with consecutive COUNT
            // values starting from COUNT = RX_DELIV".
            if sn == self.rx_deliv {
                self.deliver_consecutive(now, &mut out);
            }
        }
        self.note_stall(now);
        // "if t-Reordering is running, and if RX_DELIV >= RX_REORD: stop and reset it".
        if self.timer_running && self.rx_deliv >= self.rx_reord {
            self.stop_timer();
        }
        // "if t-Reordering is not running and RX_DELIV < RX_NEXT: set RX_REORD to RX_NEXT and
        // start t-Reordering".
        if !self.timer_running && self.rx_deliv < self.rx_next {
            self.start_timer(&mut out);
        }
        out
    }

    /// §5.2.2.2: t-Reordering (of `generation`) expired at `now`. A stale expiry (the timer
    /// was stopped or restarted since) does nothing.
    pub fn expire(&mut self, generation: u64, now: SimTime) -> Outcome<T> {
        let mut out = Outcome { deliver: Vec::new(), start_timer: false, discarded: false };
        if !self.timer_running || generation != self.generation {
            return out;
        }
        self.timer_running = false;
        self.end_stall(now);
        // "deliver ... all stored SDUs with associated COUNT value(s) < RX_REORD".
        let later = self.buffer.split_off(&self.rx_reord);
        let before = std::mem::replace(&mut self.buffer, later);
        let mut next = self.rx_deliv;
        for (sn, (p, at)) in before {
            self.skipped.extend(next..sn);
            next = sn + 1;
            self.note_wait(now - at);
            out.deliver.push((p, now - at));
        }
        // "... and all stored SDUs with consecutive COUNT values starting from RX_REORD";
        // "update RX_DELIV to the COUNT of the first SDU not delivered with COUNT >= RX_REORD".
        if self.out_of_order {
            // Delivered already: only the gaps below RX_REORD are given up.
            let later = self.seen.split_off(&self.rx_reord);
            let below = std::mem::replace(&mut self.seen, later);
            self.skipped.extend((next..self.rx_reord).filter(|sn| !below.contains(sn)));
            self.rx_deliv = self.rx_deliv.max(self.rx_reord);
            self.advance_seen();
        } else {
            self.skipped.extend(next..self.rx_reord);
            self.rx_deliv = self.rx_deliv.max(self.rx_reord);
            self.deliver_consecutive(now, &mut out);
        }
        self.note_stall(now);
        // "if RX_DELIV < RX_NEXT: set RX_REORD to RX_NEXT and start t-Reordering".
        if self.rx_deliv < self.rx_next {
            self.start_timer(&mut out);
        }
        out
    }

    /// `outOfOrderDelivery`: RX_DELIV moves past the consecutive SNs delivered already.
    fn advance_seen(&mut self) {
        while self.seen.remove(&self.rx_deliv) {
            self.rx_deliv += 1;
        }
    }

    fn deliver_consecutive(&mut self, now: SimTime, out: &mut Outcome<T>) {
        if self.buffer.contains_key(&self.rx_deliv) {
            self.end_stall(now);
        }
        while let Some((p, at)) = self.buffer.remove(&self.rx_deliv) {
            self.note_wait(now - at);
            out.deliver.push((p, now - at));
            self.rx_deliv += 1;
        }
    }

    /// RX_DELIV advances (or the held packets are given up to): a stall ends now.
    fn end_stall(&mut self, now: SimTime) {
        if let Some(since) = self.stalled_since.take() {
            self.max_stall_ns = self.max_stall_ns.max(now - since);
        }
    }

    /// Packets are held with RX_DELIV where it is: a stall begins, unless one runs.
    fn note_stall(&mut self, now: SimTime) {
        if !self.buffer.is_empty() && self.stalled_since.is_none() {
            self.stalled_since = Some(now);
        }
    }

    fn note_wait(&mut self, w: SimTime) {
        self.max_wait_ns = self.max_wait_ns.max(w);
    }

    fn start_timer(&mut self, out: &mut Outcome<T>) {
        self.rx_reord = self.rx_next;
        self.timer_running = true;
        self.generation += 1;
        out.start_timer = true;
    }

    fn stop_timer(&mut self) {
        self.timer_running = false;
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sns(o: &Outcome<u64>) -> Vec<u64> {
        o.deliver.iter().map(|(p, _)| *p).collect()
    }

    #[test]
    fn in_order_packets_are_delivered_at_once_without_a_timer() {
        let mut rx = PdcpRx::default();
        for sn in 0..3 {
            let o = rx.receive(sn, sn, 10);
            assert_eq!((sns(&o), o.start_timer), (vec![sn], false));
        }
        assert_eq!(rx.held(), 0);
    }

    #[test]
    fn a_gap_holds_later_packets_until_it_closes() {
        let mut rx = PdcpRx::default();
        rx.receive(0, 0, 0);
        let o = rx.receive(2, 2, 5);
        assert!(sns(&o).is_empty() && o.start_timer, "SN 1 missing: hold 2, start t-Reordering");
        let o = rx.receive(1, 1, 8);
        assert_eq!(sns(&o), vec![1, 2]);
        assert_eq!(rx.max_wait_ns, 3, "SN 2 waited from 5 to 8");
        let g = rx.generation;
        assert!(rx.expire(g - 1, 100).deliver.is_empty(), "the stopped timer's expiry is stale");
    }

    #[test]
    fn duplicates_are_discarded_whether_delivered_or_still_held() {
        let mut rx = PdcpRx::default();
        rx.receive(0, 0, 0);
        rx.receive(2, 2, 0);
        assert!(rx.receive(0, 0, 1).discarded, "already delivered");
        assert!(rx.receive(2, 2, 1).discarded, "already held");
        assert_eq!(rx.duplicates, 2);
    }

    #[test]
    fn expiry_gives_up_the_gap_and_delivers_up_to_rx_reord_then_consecutive() {
        let mut rx = PdcpRx::default();
        rx.receive(0, 0, 0);
        rx.receive(2, 2, 10); // gap at 1: timer with RX_REORD = 3
        rx.receive(3, 3, 20);
        rx.receive(5, 5, 30); // gap at 4
        let o = rx.expire(rx.generation, 60);
        assert_eq!(sns(&o), vec![2, 3], "SN 1 given up; 2 and 3 delivered; 5 still waits for 4");
        assert!(o.start_timer, "RX_DELIV (4) < RX_NEXT (6): restart");
        assert!(rx.receive(1, 1, 61).discarded, "a late SN below RX_DELIV is discarded");
        let o = rx.expire(rx.generation, 110);
        assert_eq!(sns(&o), vec![5]);
        assert_eq!(rx.held(), 0);
        assert_eq!((rx.late, rx.duplicates), (1, 0), "SN 1 came after it was given up");
        assert_eq!(rx.max_wait_ns, 80, "SN 5 waited two timer runs (from 30 to 110)");
        assert_eq!(rx.max_stall_ns, 50, "delivery stalled at most one t-Reordering (60 -> 110)");
    }

    #[test]
    fn out_of_order_delivery_passes_packets_on_arrival_and_still_discards_copies() {
        let mut rx = PdcpRx::new(true);
        rx.receive(0, 0, 0);
        let o = rx.receive(2, 2, 5);
        assert_eq!((sns(&o), o.start_timer), (vec![2], true), "SN 1 missing: 2 goes up at once");
        assert!(rx.receive(2, 2, 6).discarded, "a copy of a delivered SN above the gap");
        assert_eq!(sns(&rx.receive(1, 1, 8)), vec![1]);
        assert!(rx.receive(1, 1, 9).discarded && rx.receive(0, 0, 9).discarded);
        assert_eq!((rx.duplicates, rx.held()), (3, 0));
        // A gap that never closes is given up at the expiry; its late copy is discarded.
        rx.receive(4, 4, 10);
        let o = rx.expire(rx.generation, 60);
        assert!(o.deliver.is_empty() && !o.start_timer, "nothing held, nothing past RX_REORD");
        assert!(rx.receive(3, 3, 61).discarded);
        assert_eq!(rx.late, 1);
        assert_eq!(sns(&rx.receive(5, 5, 62)), vec![5]);
    }
}

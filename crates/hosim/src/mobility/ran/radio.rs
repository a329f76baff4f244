//! The radio transmitter of a cell: one packet at a time, the cell busy for the packet's
//! transmission time at the radio rate. The packet goes on the UE's radio link (a graph link
//! `cell->ue`, which adds the radio delay); the transmitter's own timer
//! ([`super::Timer::RadioDone`]) frees the radio, and the cell serves its next packet.
//!
//! Time-sharing one transmitter among the UEs of a cell makes them share the cell's capacity,
//! whatever the number of radio links.

use crate::engine::time::tx_time_ns;
use crate::net::{LinkId, Packet};
use crate::sim::Cx;

use super::Timer;

#[derive(Clone, Debug, Default)]
pub struct Radio {
    /// A packet is being transmitted.
    pub busy: bool,
    /// Packets sent on the radio.
    pub packets: u64,
}

impl Radio {
    /// Sends `pkt` on radio link `link` at `rate_bps`: the radio is busy until cell `cell`'s
    /// [`Timer::RadioDone`] fires.
    pub fn transmit<T: From<Timer>>(&mut self, cx: &mut Cx<T>, cell: usize, link: LinkId, rate_bps: u64, pkt: Packet) {
        debug_assert!(!self.busy, "one packet at a time");
        self.busy = true;
        self.send(cx, Timer::RadioDone { cell }, link, rate_bps, pkt);
    }

    /// Sends `pkt` on radio link `link` at `rate_bps`; `done` fires at the end of its
    /// transmission (the caller keeps the transmitter's busy state).
    pub fn send<T: From<Timer>>(&mut self, cx: &mut Cx<T>, done: Timer, link: LinkId, rate_bps: u64, pkt: Packet) {
        self.packets += 1;
        let at = cx.now() + tx_time_ns(pkt.size_bytes, rate_bps);
        cx.schedule(at, done);
        cx.enqueue(link, pkt);
    }

    /// The packet in transmission has left: the radio is free.
    pub fn done(&mut self) {
        self.busy = false;
    }
}

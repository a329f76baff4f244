//! The radio transmitter of a cell: one packet at a time, the cell busy for the packet's
//! transmission time at the radio rate. The packet goes on the UE's radio link (a graph link
//! `cell->ue`, which adds the radio delay); the transmitter's own timer
//! ([`super::Timer::RadioDone`]) frees the radio, and the cell serves its next packet.
//!
//! Time-sharing one transmitter among the UEs of a cell makes them share the cell's capacity,
//! whatever the number of radio links.

use crate::engine::time::{tx_time_ns, SimTime, NS_PER_S};
use crate::net::{LinkId, Packet};
use crate::sim::Cx;

use super::Timer;

#[derive(Clone, Debug, Default)]
pub struct Radio {
    /// A packet is being transmitted.
    pub busy: bool,
    /// Packets sent on the radio.
    pub packets: u64,
    /// Variable rates: the packet in service, held here until it is sent.
    pub in_service: Option<InService>,
    /// Variable rates: counts rate changes, so that a superseded completion timer is ignored.
    generation: u32,
}

/// A packet the radio sends at a rate that may change while it does (a cell capacity
/// process or trace, a UE's rate trace). The work left is kept in bits * 1e9, so progress at
/// rate r over dt ns is exactly r * dt (as `net::rate::VarRate` does for a link).
#[derive(Clone, Copy, Debug)]
pub struct InService {
    pub link: LinkId,
    pub ue: usize,
    pkt: Packet,
    work_left: u128,
    since_ns: SimTime,
    rate_bps: u64,
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

    /// Variable rates: starts sending `pkt` for UE `ue` at `rate_bps`. The radio holds it
    /// and puts it on radio link `link` once all its bits are sent
    /// ([`Timer::RadioVarDone`]); a rate change in between moves that time
    /// ([`Radio::rate_changed`]). At rate 0 it waits for a change.
    pub fn transmit_var<T: From<Timer>>(
        &mut self,
        cx: &mut Cx<T>,
        cell: usize,
        (link, ue): (LinkId, usize),
        rate_bps: u64,
        pkt: Packet,
    ) {
        debug_assert!(!self.busy, "one packet at a time");
        self.busy = true;
        self.packets += 1;
        let work_left = pkt.size_bytes as u128 * 8 * NS_PER_S as u128;
        self.in_service = Some(InService { link, ue, pkt, work_left, since_ns: cx.now(), rate_bps });
        self.schedule_done(cx, cell);
    }

    /// The rate of the packet in service changed to `rate_bps`: the bits sent at the old rate
    /// are charged, the rest goes at the new one.
    pub fn rate_changed<T: From<Timer>>(&mut self, cx: &mut Cx<T>, cell: usize, rate_bps: u64) {
        let now = cx.now();
        let Some(s) = self.in_service.as_mut() else { return };
        if s.rate_bps == rate_bps {
            return;
        }
        s.work_left = s.work_left.saturating_sub(s.rate_bps as u128 * (now - s.since_ns) as u128);
        s.since_ns = now;
        s.rate_bps = rate_bps;
        self.schedule_done(cx, cell);
    }

    fn schedule_done<T: From<Timer>>(&mut self, cx: &mut Cx<T>, cell: usize) {
        self.generation = self.generation.wrapping_add(1);
        let Some(s) = &self.in_service else { return };
        if s.rate_bps == 0 {
            return;
        }
        let dt = s.work_left.div_ceil(s.rate_bps as u128).min(u64::MAX as u128 / 4) as SimTime;
        cx.schedule(s.since_ns + dt, Timer::RadioVarDone { cell, generation: self.generation });
    }

    /// A completion timer fired: if it is the current one, the packet goes on its radio link
    /// and the radio is free (returns true).
    pub fn finish_var<T: From<Timer>>(&mut self, cx: &mut Cx<T>, generation: u32) -> bool {
        if generation != self.generation {
            return false;
        }
        let Some(s) = self.in_service.take() else { return false };
        self.busy = false;
        cx.enqueue(s.link, s.pkt);
        true
    }

    /// Packets the radio holds (one in service at a variable rate).
    pub fn held(&self) -> u64 {
        self.in_service.is_some() as u64
    }
}

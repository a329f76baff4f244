//! Probes at the link points and the traces they feed.
//!
//! Every link calls one hook, [`Observers::link`], at five points of a packet's passage:
//! enqueue, drop (queue full or early drop), transmit (leaves the queue, serialization
//! starts), lost (on the link) and receive (reaches the far node). A mask holds the points
//! anybody listens to, so a point nobody wants costs one branch and no call. The built-in
//! queue trace listens at enqueue and transmit of traced links; further observers (a packet
//! capture, a test probe) implement [`Observer`] and are added to the simulation.

pub mod pcap;
pub mod trace;

pub use trace::{TraceKind, TraceTable, Traces};

use crate::engine::time::SimTime;
use crate::net::{Link, LinkId, Packet};

/// Where on a link a packet is seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkPoint {
    /// Accepted into the link's queue (the queue length includes it).
    Enqueue,
    /// Refused by the queue (full, or an early drop of RED).
    Drop,
    /// Taken from the queue: its serialization starts.
    Transmit,
    /// Lost on the link by its loss model after serialization.
    Lost,
    /// Reached the node at the far end.
    Receive,
}

impl LinkPoint {
    /// This point's bit in an observer mask.
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A probe at the link points. `points` is read once, when the observer is added.
pub trait Observer {
    /// The points this observer wants, as `LinkPoint::bit`s or-ed together.
    fn points(&self) -> u8;
    fn on_link(&mut self, point: LinkPoint, now: SimTime, l: LinkId, link: &Link, pkt: &Packet);
    /// Called once when the run has ended: flush what is buffered, report a failed write.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The traces and the observers of one run.
#[derive(Default)]
pub struct Observers {
    pub traces: Traces,
    extra: Vec<Box<dyn Observer>>,
    /// Points somebody listens to.
    mask: u8,
}

const QUEUE_TRACE_POINTS: u8 = LinkPoint::Enqueue.bit() | LinkPoint::Transmit.bit();

impl Observers {
    /// Turns the traces on or off.
    pub fn set_tracing(&mut self, on: bool) {
        self.traces.enabled = on;
        self.update_mask();
    }

    pub fn add(&mut self, o: Box<dyn Observer>) {
        self.extra.push(o);
        self.update_mask();
    }

    fn update_mask(&mut self) {
        let traces = if self.traces.enabled { QUEUE_TRACE_POINTS } else { 0 };
        self.mask = self.extra.iter().fold(traces, |m, o| m | o.points());
    }

    /// Whether anybody listens at any link point (traces, captures, observers).
    pub fn listens_to_links(&self) -> bool {
        self.mask != 0
    }

    /// Whether anybody listens at `point`.
    #[inline]
    pub fn wants(&self, point: LinkPoint) -> bool {
        self.mask & point.bit() != 0
    }

    /// The link hook: one branch when nobody listens at `point`.
    #[inline]
    pub fn link(&mut self, point: LinkPoint, now: SimTime, l: LinkId, link: &Link, pkt: &Packet) {
        if self.wants(point) {
            self.notify(point, now, l, link, pkt);
        }
    }

    #[cold]
    fn notify(&mut self, point: LinkPoint, now: SimTime, l: LinkId, link: &Link, pkt: &Packet) {
        if link.traced && point.bit() & QUEUE_TRACE_POINTS != 0 {
            self.traces.record(TraceKind::Queue, now, l, link.queue.len_pkts() as f64);
        }
        for o in self.extra.iter_mut() {
            if o.points() & point.bit() != 0 {
                o.on_link(point, now, l, link, pkt);
            }
        }
    }

    /// Ends every observer ([`Observer::finish`]); the first error is returned.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.extra.iter_mut().try_for_each(|o| o.finish())
    }

    /// Hands over the recorded traces.
    pub fn take_traces(&mut self) -> Traces {
        std::mem::take(&mut self.traces)
    }
}

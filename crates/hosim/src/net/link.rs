//! A unidirectional point-to-point link: a queue, a transmitter of fixed or variable rate
//! (`rate.rs`), a propagation delay and optional random loss. Packets leave the transmitter in FIFO order and, since the
//! delay is constant, arrive in the same order: the link keeps them in a FIFO pipeline and the
//! world only schedules "next arrival on link L" events.

use std::collections::VecDeque;

use super::loss::LossModel;
use super::packet::Packet;
use super::queue::{PacketStore, Queue};
use super::rate::VarRate;
use super::NodeId;
use crate::engine::rng::Rng;
use crate::engine::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets offered to the link (queued or dropped at the queue).
    pub offered: u64,
    /// Packets that finished transmission.
    pub transmitted: u64,
    pub tx_bytes: u64,
    /// Packets lost on the wire by the loss model.
    pub lost: u64,
    /// Extra copies made by the duplication impairment.
    pub duplicated: u64,
    /// Packets handed to the far node.
    pub delivered: u64,
    /// Packets taken out of the queue untransmitted by a mechanism (e.g. a base station
    /// handing a departed mobile's packets to its handover scheme).
    pub withdrawn: u64,
}

/// Impairments for robustness testing: duplication and reordering after transmission.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Impairments {
    /// Probability that a transmitted packet arrives twice.
    pub duplicate: f64,
    /// Probability that a packet takes `reorder_delay_ns` longer, arriving after later ones.
    pub reorder: f64,
    pub reorder_delay_ns: SimTime,
}

/// Laid out in declaration order (`repr(C)`) and aligned to a cache line: the fields a packet
/// touches on every hop (queue, transmitter, pipeline, counters) come first and share five
/// lines, the rest (name, loss model state, reordering path) follows. With hundreds of links a
/// link is usually cold when a packet reaches it, so the lines it spans are misses
/// (bench/README.md).
#[repr(C, align(64))]
pub struct Link {
    pub queue: Queue,
    /// The packet being serialized, if any: its slot in the world's packet store
    /// ([`Link::in_service_packet`]). On a link whose packets depart at the start of their
    /// transmission (`departs_at_start`) the slot is in `pipeline` too.
    pub in_service: Option<u32>,
    /// When the packet in service finishes serialization (valid while `in_service` is set on
    /// a link whose packets depart at the start of transmission).
    pub tx_done_ns: SimTime,
    /// A fixed-rate link without random loss or impairments: the end of serialization and
    /// the arrival of a packet are known when its transmission starts, so the packet enters
    /// the pipeline, and its arrival event is scheduled, then (as ns-3's point-to-point
    /// channel schedules the reception at the start of transmission). Other links decide at
    /// the end of transmission (the loss draw, a rate change, a duplication) and put the
    /// packet into the pipeline then. Set when the link is built; see `World::departure_first`.
    pub departs_at_start: bool,
    pub to: NodeId,
    /// Packets propagating, with their arrival times, oldest first: slots in the world's
    /// packet store ([`Link::propagating`]).
    pub pipeline: VecDeque<(SimTime, u32)>,
    pub rate_bps: u64,
    pub delay_ns: SimTime,
    /// Variable rate (None: fixed at `rate_bps`). While set, `rate_bps` is the current rate.
    pub var: Option<Box<VarRate>>,
    /// Duplication/reordering, or None for an ordinary link (the fast path).
    pub impair: Option<Box<Impairments>>,
    pub loss: LossModel,
    pub stats: LinkStats,
    /// Record this link's queue length in the `queue` trace.
    pub traced: bool,
    pub from: NodeId,
    pub rng: Rng,
    /// Packets on the slow (reordered) path; FIFO too, since its extra delay is constant.
    pub late_pipeline: VecDeque<(SimTime, Packet)>,
    pub name: String,
}

impl Link {
    /// Whether a link of this rate model, impairments and loss model is fixed-rate and
    /// loss-free, so that its packets depart at the start of transmission (`departs_at_start`).
    pub fn fixed_and_loss_free(
        var: &Option<Box<VarRate>>,
        impair: &Option<Box<Impairments>>,
        loss: &LossModel,
    ) -> bool {
        var.is_none() && impair.is_none() && matches!(loss, LossModel::None)
    }

    /// The packet being serialized, if any.
    pub fn in_service_packet<'a>(&self, store: &'a PacketStore) -> Option<&'a Packet> {
        self.in_service.map(|slot| store.get(slot))
    }

    /// The packets propagating on the ordinary (not reordered) path, oldest first.
    pub fn propagating<'a>(&'a self, store: &'a PacketStore) -> impl Iterator<Item = &'a Packet> + 'a {
        self.pipeline.iter().map(move |&(_, slot)| store.get(slot))
    }

    /// Every packet on the link for which it holds a slot of the store: queued, in service,
    /// propagating (the reordered path keeps its packets by value).
    pub fn packets<'a>(&'a self, store: &'a PacketStore) -> impl Iterator<Item = &'a Packet> + 'a {
        let serializing = if self.departs_at_start { None } else { self.in_service_packet(store) };
        self.queue.iter(store).chain(serializing).chain(self.propagating(store))
    }

    /// Packets in the pipeline whose transmission has ended (the pipeline of a link whose
    /// packets depart at the start of transmission also holds the one in service).
    pub fn propagating_len(&self) -> usize {
        self.pipeline.len() - (self.in_service.is_some() && self.departs_at_start) as usize
    }

    /// Slots of the store the link holds: queued, in service, propagating.
    pub fn slots_held(&self) -> usize {
        self.queue.len_pkts() as usize + self.in_service.is_some() as usize + self.propagating_len()
    }

    /// Packets on the link: those in slots of the store and those on the reordered path.
    pub fn in_flight(&self) -> u64 {
        (self.slots_held() + self.late_pipeline.len()) as u64
    }

    /// A variable-rate link reaches the end of its rate segment at `now` and moves to the next
    /// rate; a packet being serialized is charged the bits it sent at the old rate. The
    /// caller schedules what this returns (see [`RateStep`]); the superseded completion event
    /// is ignored when it fires (`VarRate::tx_done_at` no longer matches).
    pub fn next_rate(&mut self, now: SimTime) -> RateStep {
        let busy = self.in_service.is_some();
        let v = self.var.as_mut().expect("rate events only for variable-rate links");
        let old = v.rate_bps;
        let tx_done = v.change(now, busy);
        self.rate_bps = v.rate_bps;
        RateStep { changed: v.rate_bps != old, tx_done, segment_end_ns: v.segment_end_ns }
    }

    /// Bits the transmitter could have sent over [0, t]: rate * t, or the integral of a
    /// variable rate.
    pub fn capacity_bits(&self, t: SimTime) -> f64 {
        match &self.var {
            None => self.rate_bps as f64 * t as f64 / 1e9,
            Some(v) => v.capacity_bits(t),
        }
    }
}

/// What a rate change of a variable-rate link asks of the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateStep {
    /// The rate differs from the previous segment's (traced).
    pub changed: bool,
    /// New completion time of the packet in service, if it moved.
    pub tx_done: Option<SimTime>,
    /// When the new segment ends: the next rate change.
    pub segment_end_ns: SimTime,
}

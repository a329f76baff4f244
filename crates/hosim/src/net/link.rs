//! A unidirectional point-to-point link: a queue, a transmitter of fixed or variable rate
//! (`rate.rs`), a propagation delay and optional random loss. Packets leave the transmitter in FIFO order and, since the
//! delay is constant, arrive in the same order: the link keeps them in a FIFO pipeline and the
//! world only schedules "next arrival on link L" events.

use std::collections::VecDeque;

use super::loss::LossModel;
use super::packet::Packet;
use super::qdisc::Queue;
use super::rate::VarRate;
use super::store::{PacketStore, TaggedFifo};
use super::{NodeClass, NodeId};
use crate::engine::rng::Rng;
use crate::engine::time::SimTime;

/// In declaration order: the counters every hop adds to first (see [`Link`]).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    /// Packets that finished transmission.
    pub transmitted: u64,
    pub tx_bytes: u64,
    /// Packets handed to the far node.
    pub delivered: u64,
    /// Packets offered to the link (queued or dropped at the queue).
    pub offered: u64,
    /// Packets lost on the wire by the loss model.
    pub lost: u64,
    /// Extra copies made by the duplication impairment.
    pub duplicated: u64,
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

/// Laid out in declaration order (`repr(C)`) and aligned to a cache line, so that a packet's
/// hop touches as few lines as possible: with hundreds of links a link is usually cold when a
/// packet reaches it, and every line it spans is a miss (bench/decisions.md).
/// - lines 0–1: the queue (its packets and limit, then its counters);
/// - line 2: the transmitter, the pipeline (with its head's arrival tag) and the rate: what
///   every hop reads and writes;
/// - line 3: the counters every hop adds to;
/// - the rest: what the fast path never reads (loss, impairments, reordering, name).
///
/// So a hop reads two lines of its link (0 and 2) and only adds to the other two.
#[repr(C, align(64))]
pub struct Link {
    pub queue: Queue,
    /// The packet being serialized, if any: its slot in the world's packet store
    /// ([`Link::in_service_packet`]). On a link whose packets depart at the start of their
    /// transmission (`departs_at_start`) the slot is in `pipeline` too.
    pub in_service: Option<u32>,
    pub to: NodeId,
    /// A fixed-rate link without random loss or impairments: the end of serialization and
    /// the arrival of a packet are known when its transmission starts, so the packet enters
    /// the pipeline, and its arrival event is scheduled, then (as ns-3's point-to-point
    /// channel schedules the reception at the start of transmission). Other links decide at
    /// the end of transmission (the loss draw, a rate change, a duplication) and put the
    /// packet into the pipeline then. Set when the link is built; see `World::departure_first`.
    pub departs_at_start: bool,
    /// Record this link's queue length in the `queue` trace.
    pub traced: bool,
    /// The kind of node `to` is ([`NodeKind::class`](super::NodeKind::class)), kept here
    /// because with hundreds of hosts the node itself is usually cold when a packet arrives;
    /// `Cx::own` updates it, the only change of a node's kind.
    pub to_class: NodeClass,
    /// The link leaves a host whose flows hold back while their packets fill it (Linux TCP
    /// Small Queues, `tcp.small_queues`): the end of each transmission is an event, and tells
    /// the sender of a data packet of its flow that the packet has gone (`World::start`).
    pub wakes_senders: bool,
    /// When the packet in service finishes serialization, on a link whose packets depart at
    /// the start of transmission; [`SimTime::MAX`] while no such transmission is under way,
    /// so that one compare with now tells whether a transmission has ended unseen
    /// (`World::end_transmissions_due`, on every hop).
    pub tx_done_ns: SimTime,
    /// Packets propagating, with their arrival times, oldest first: slots in the world's
    /// packet store ([`Link::propagating`]), each tagged with what it does at `to` when routes
    /// cannot change (the link it leaves a router by, or its flow at its host), and the
    /// head's tag kept here, on the transmitter's line (`World`'s `arrival_tag`).
    pub pipeline: TaggedFifo,
    pub delay_ns: SimTime,
    pub rate_bps: u64,
    /// Variable rate (None: fixed at `rate_bps`). While set, `rate_bps` is the current rate.
    pub var: Option<Box<VarRate>>,
    pub stats: LinkStats,
    /// Duplication/reordering, or None for an ordinary link (the fast path).
    pub impair: Option<Box<Impairments>>,
    pub loss: LossModel,
    pub from: NodeId,
    pub rng: Rng,
    /// Packets on the slow (reordered) path; FIFO too, since its extra delay is constant.
    pub late_pipeline: VecDeque<(SimTime, Packet)>,
    pub name: String,
    /// A link of an 802.11 medium: its transmitter is a station's DCF (`sim/wifi.rs`).
    pub wifi: Option<super::wifi::WifiPort>,
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
        self.pipeline.slots(store).map(move |slot| store.get(slot))
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

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// The layout [`Link`] documents: a pass-through hop reads the queue's first line (fit
    /// check) and the transmitter's line (with the rate), adds to the queue's counters and the
    /// link's, and touches nothing else of the link.
    #[test]
    fn a_hop_touches_four_lines_of_a_link() {
        let line = |offset: usize| offset / 64;
        let last = |offset: usize, size: usize| line(offset + size - 1);
        assert_eq!(offset_of!(Link, queue), 0);
        assert_eq!(size_of::<Queue>(), 128, "the queue: its packets and limit, then its counters");
        let transmitter = [
            (offset_of!(Link, in_service), 8),
            (offset_of!(Link, to), 4),
            (offset_of!(Link, departs_at_start), 1),
            (offset_of!(Link, to_class), 1),
            (offset_of!(Link, wakes_senders), 1),
            (offset_of!(Link, tx_done_ns), 8),
            (offset_of!(Link, pipeline), size_of::<TaggedFifo>()),
            (offset_of!(Link, delay_ns), 8),
            (offset_of!(Link, rate_bps), 8),
            (offset_of!(Link, var), 8),
        ];
        for (offset, size) in transmitter {
            assert_eq!((line(offset), last(offset, size)), (2, 2), "field at {offset} is off the transmitter's line");
        }
        let stats = offset_of!(Link, stats);
        let counters = [
            (stats + offset_of!(LinkStats, transmitted), 8),
            (stats + offset_of!(LinkStats, tx_bytes), 8),
            (stats + offset_of!(LinkStats, delivered), 8),
            (stats + offset_of!(LinkStats, offered), 8),
        ];
        for (offset, size) in counters {
            assert_eq!((line(offset), last(offset, size)), (3, 3), "field at {offset} is off the counters' line");
        }
    }
}

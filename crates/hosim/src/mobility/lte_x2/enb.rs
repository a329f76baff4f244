//! The eNodeB: one downlink queue per UE, a scheduler that shares the cell's radio among the
//! attached UEs, and the radio links it feeds.
//!
//! The radio is time-shared: the scheduler hands one packet at a time to the chosen UE's
//! radio link (a graph link `enb->ue` whose rate is the UE's radio rate) and keeps the cell
//! busy for that packet's transmission time. So the UEs of a cell share the cell's capacity
//! and each UE's link adds its own radio delay.

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::net::queue::{PacketStore, Queue, QueueLimit};
use crate::net::{LinkId, NodeId};

pub use crate::net::drr::{Scheduler, SchedulerKind, WFQ_QUANTUM_BYTES};

/// Packet counts through one eNodeB's buffers, for the conservation check.
#[derive(Clone, Debug, Default)]
pub struct EnbStats {
    /// Packets accepted into any buffer of this eNodeB.
    pub buffered: u64,
    /// Packets that left a buffer (to the radio, forwarded, released upstream).
    pub unbuffered: u64,
    /// Packets sent on the radio.
    pub radio_packets: u64,
    /// Downlink packets dropped because a UE queue was full.
    pub queue_drops: u64,
    /// Packets dropped at the tunnel end because their outer CE mark could not be passed on.
    pub tunnel_ce_drops: u64,
    /// CE marks copied from the outer into the inner header.
    pub tunnel_ce_copied: u64,
}

pub struct Enb {
    pub node: NodeId,
    pub name: String,
    /// Downlink queue per UE (indexed by UE), served only while the UE is attached here.
    pub queues: Vec<Queue>,
    /// Direct packets held by the target's reordering function until the end marker.
    pub held_direct: Vec<Queue>,
    /// The packets in `queues` and `held_direct`, which those queues refer to by slot.
    pub store: PacketStore,
    /// Uplink packets of UEs that are attaching here, sent on once they have attached.
    pub held_uplink: VecDeque<Packet>,
    /// Radio downlink `enb->ue` per UE, where the UE can attach to this eNodeB.
    pub downlinks: Vec<Option<LinkId>>,
    pub radio_bps: u64,
    pub scheduler: Scheduler,
    /// The radio is transmitting a packet.
    pub busy: bool,
    pub stats: EnbStats,
}

impl Enb {
    pub fn new(
        node: NodeId,
        name: String,
        n_ues: usize,
        limit: QueueLimit,
        radio_bps: u64,
        scheduler: Scheduler,
    ) -> Enb {
        Enb {
            node,
            name,
            queues: (0..n_ues).map(|_| Queue::new(limit, None)).collect(),
            held_direct: (0..n_ues).map(|_| Queue::new(limit, None)).collect(),
            store: PacketStore::default(),
            held_uplink: VecDeque::new(),
            downlinks: vec![None; n_ues],
            radio_bps,
            scheduler,
            busy: false,
            stats: EnbStats::default(),
        }
    }

    /// Packets waiting in this eNodeB's buffers.
    pub fn held(&self) -> u64 {
        let q: u64 = self.queues.iter().chain(self.held_direct.iter()).map(|q| q.len_pkts() as u64).sum();
        q + self.held_uplink.len() as u64
    }
}

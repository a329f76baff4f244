//! The network: packets, queues, links with (fixed or variable) rate, delay and loss, and nodes with static routes.

pub mod link;
pub mod loss;
pub mod packet;
pub mod queue;
pub mod rate;

pub use link::{Impairments, Link};
pub use loss::LossModel;
pub use packet::{Ecn, Packet, PacketKind, SackBlocks, Tunnel};
pub use queue::{Queue, QueueLimit, RedParams};

/// Index of a node in the world's node arena.
pub type NodeId = u32;
/// Index of a (unidirectional) link in the world's link arena.
pub type LinkId = u32;
/// Index of a TCP flow in the world's flow arena.
pub type FlowId = u32;

/// What a node does with a packet addressed to somebody else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end host: terminates flows, forwards nothing.
    Host,
    /// A router: forwards along its static route table.
    Router,
    /// A base station of the drop/forward/rearrange handover schemes (`crate::cell::fcp`):
    /// a router that hands packets for mobiles to the handover mechanism.
    FcpBaseStation,
    /// An LTE element (serving gateway or eNodeB) that handles packets itself (`crate::cell::lte`).
    Lte(crate::cell::lte::LteRole),
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// `routes[dst]` is the outgoing link towards node `dst` (None: unreachable or self).
    pub routes: Vec<Option<LinkId>>,
}

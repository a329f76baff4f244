//! The network: packets, queues, links with (fixed or variable) rate, delay and loss, and
//! nodes with static routes. A variable-rate link (a radio downlink) moves through the rates of
//! its model (`rate.rs`) at rate events of the event loop (`Link::next_rate`).

pub mod link;
pub mod loss;
pub mod packet;
pub mod queue;
pub mod rate;

pub use link::{Impairments, Link, RateStep};
pub use loss::LossModel;
pub use packet::{Ecn, Packet, PacketKind, SackBlocks, Tunnel};
pub use queue::{Queue, QueueLimit, RedParams};

/// Index of a node in the world's node arena.
pub type NodeId = u32;
/// Index of a (unidirectional) link in the world's link arena.
pub type LinkId = u32;
/// Index of a TCP flow in the world's flow arena.
pub type FlowId = u32;
/// Index of an agent (a component of a mobility mechanism) in the simulation.
pub type AgentId = u32;

/// What a node does with a packet addressed to somebody else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end host: terminates flows, forwards nothing.
    Host,
    /// A router: forwards along its static route table.
    Router,
    /// A node whose packets an agent handles (a base station, a gateway): every packet that
    /// reaches it goes to that agent.
    Owned(AgentId),
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// `routes[dst]` is the outgoing link towards node `dst` (None: unreachable or self).
    pub routes: Vec<Option<LinkId>>,
}

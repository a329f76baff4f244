//! The network: packets, the packet store (`store.rs`), queues and their disciplines
//! (`qdisc/`), the deficit round robin scheduler (`drr.rs`), links with (fixed or variable)
//! rate, delay and loss, and nodes with static routes. A variable-rate link (a radio downlink) moves through the rates of
//! its model (`rate.rs`) at rate events of the event loop (`Link::next_rate`).

pub mod drr;
pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod rate;
pub mod store;
pub mod wifi;

pub use link::{Impairments, Link, RateStep};
pub use loss::LossModel;
pub use packet::{Ecn, Packet, PacketKind, SackBlocks, Tunnel};
pub use qdisc::{AnyQdisc, Qdisc, Queue, QueueLimit, RedParams, Verdict};
pub use store::{PacketStore, SlotFifo, TaggedFifo, NO_TAG};

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

/// A [`NodeKind`] without the agent: one byte, which a [`Link`] keeps of its far node
/// (`Link::to_class`) so that an arrival knows where it is without reading the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NodeClass {
    Host,
    Router,
    Owned,
}

impl NodeKind {
    pub fn class(self) -> NodeClass {
        match self {
            NodeKind::Host => NodeClass::Host,
            NodeKind::Router => NodeClass::Router,
            NodeKind::Owned(_) => NodeClass::Owned,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// `routes[dst]` is the outgoing link towards node `dst` (None: unreachable or self).
    /// Empty for a node with a single outgoing link (`via`), which needs no table.
    pub routes: Vec<Option<LinkId>>,
    /// The only outgoing link of a node without a table: every packet leaves through it
    /// (one that cannot reach its destination is dropped as unroutable further on).
    pub via: Option<LinkId>,
}

impl Node {
    /// The outgoing link towards `dst`.
    #[inline]
    pub fn route(&self, dst: NodeId) -> Option<LinkId> {
        match self.routes.get(dst as usize) {
            Some(r) => *r,
            None => self.via,
        }
    }
}

/// Minimum-hop static routes from `src`: the first link of a shortest path to every node
/// (breadth-first search; ties go to the link declared first). Hosts other than `src` never
/// relay.
pub fn min_hop_routes(nodes: &[Node], links: &[Link], out_links: &[Vec<LinkId>], src: usize) -> Vec<Option<LinkId>> {
    let n = nodes.len();
    let mut first: Vec<Option<LinkId>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[src] = true;
    let mut queue = std::collections::VecDeque::new();
    for &l in &out_links[src] {
        let to = links[l as usize].to as usize;
        if !seen[to] {
            seen[to] = true;
            first[to] = Some(l);
            queue.push_back(to);
        }
    }
    while let Some(u) = queue.pop_front() {
        if nodes[u].kind == NodeKind::Host {
            continue;
        }
        for &l in &out_links[u] {
            let to = links[l as usize].to as usize;
            if !seen[to] {
                seen[to] = true;
                first[to] = first[u];
                queue.push_back(to);
            }
        }
    }
    first
}

/// The outgoing links of every node, in link order.
pub fn out_links(nodes: &[Node], links: &[Link]) -> Vec<Vec<LinkId>> {
    let mut out: Vec<Vec<LinkId>> = vec![Vec::new(); nodes.len()];
    for (i, l) in links.iter().enumerate() {
        out[l.from as usize].push(i as LinkId);
    }
    out
}

//! Topology templates expand named parameters into an explicit graph.

mod dumbbell;
pub mod fcp;
pub mod hsdpa;
pub mod lte_x2;

use super::error::ScenarioError;
use super::schema::{Check, FlowSpec, LinkSpec, NodeKindName, NodeSpec, QueueKind, Scenario, Topology};
use crate::world::World;

/// An explicit graph: what a `topology = "graph"` scenario states and what templates produce.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// Names of links whose queue is traced by default.
    pub traced_queues: Vec<String>,
}

pub fn expand(s: &Scenario) -> Graph {
    match s.topology {
        Topology::Graph => {
            Graph { nodes: s.nodes.clone(), links: s.links.clone(), flows: s.flows.clone(), traced_queues: Vec::new() }
        }
        Topology::Dumbbell => dumbbell::expand(&s.dumbbell.clone().unwrap_or_default()),
        Topology::Fcp => fcp::expand(&s.fcp.clone().unwrap_or_default()),
        Topology::LteX2 => lte_x2::expand(&s.lte_x2.clone().unwrap_or_default()),
        Topology::Hsdpa => hsdpa::expand(&s.hsdpa.clone().unwrap_or_default()),
    }
}

/// Mechanism-specific components (base stations, handover procedures, proxies) that a
/// template adds after the plain graph is built. Plain graphs and the dumbbell add none.
pub fn install(s: &Scenario, world: &mut World, c: &Check) -> Result<(), ScenarioError> {
    match s.topology {
        Topology::Graph | Topology::Dumbbell => Ok(()),
        Topology::Fcp => crate::cell::fcp::install(&s.fcp.clone().unwrap_or_default(), s.duration_s, world, c),
        Topology::LteX2 => {
            lte_x2::install(&s.lte_x2.clone().unwrap_or_default(), world);
            Ok(())
        }
        Topology::Hsdpa => {
            let seed = world.seed;
            hsdpa::install(&s.hsdpa.clone().unwrap_or_default(), world, seed)
        }
    }
}

pub(crate) fn node(name: String, kind: NodeKindName) -> NodeSpec {
    NodeSpec { name, kind }
}

pub(crate) fn link(from: &str, to: &str, rate_bps: f64, delay_s: f64, queue_packets: u32) -> LinkSpec {
    LinkSpec {
        name: None,
        from: from.to_string(),
        to: to.to_string(),
        rate_bps,
        delay_s,
        queue: QueueKind::DropTail,
        queue_packets: Some(queue_packets),
        queue_bytes: None,
        red: None,
        loss: None,
        gilbert_elliott: None,
        duplicate: 0.0,
        reorder: 0.0,
        reorder_delay_s: 0.005,
        bidirectional: true,
        trace: false,
        rate_model: None,
    }
}

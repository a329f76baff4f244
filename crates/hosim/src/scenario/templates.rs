//! Topology templates expand named parameters into an explicit graph.

use super::schema::{AppKind, DumbbellSection, FlowSpec, LinkSpec, NodeKindName, NodeSpec, QueueKind, Scenario, Topology};

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
        Topology::Graph => Graph {
            nodes: s.nodes.clone(),
            links: s.links.clone(),
            flows: s.flows.clone(),
            traced_queues: Vec::new(),
        },
        Topology::Dumbbell => dumbbell(&s.dumbbell.clone().unwrap_or_default()),
    }
}

fn node(name: String, kind: NodeKindName) -> NodeSpec {
    NodeSpec { name, kind }
}

fn link(from: &str, to: &str, rate_bps: f64, delay_s: f64, queue_packets: u32) -> LinkSpec {
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
        bidirectional: true,
        trace: false,
    }
}

/// N senders -> `left` router -> bottleneck -> `right` router -> N receivers.
/// Access links are given queues large enough never to drop (1000 packets).
fn dumbbell(d: &DumbbellSection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node("left".into(), NodeKindName::Router));
    g.nodes.push(node("right".into(), NodeKindName::Router));
    let mut bottleneck = link("left", "right", d.bottleneck_bps, d.bottleneck_delay_s, d.queue_packets);
    if d.loss > 0.0 {
        bottleneck.loss = Some(d.loss);
    }
    bottleneck.trace = true;
    g.links.push(bottleneck);
    for i in 0..d.flows {
        let (s, r) = (format!("s{i}"), format!("d{i}"));
        g.nodes.push(node(s.clone(), NodeKindName::Host));
        g.nodes.push(node(r.clone(), NodeKindName::Host));
        g.links.push(link(&s, "left", d.access_bps, d.access_delay_s, 1000));
        g.links.push(link("right", &r, d.access_bps, d.access_delay_s, 1000));
        g.flows.push(FlowSpec {
            name: Some(format!("flow{i}")),
            src: s,
            dst: r,
            app: d.app,
            bytes: d.bytes,
            rate_bps: if d.app == AppKind::Rate { d.rate_bps } else { None },
            start_s: i as f64 * d.start_stagger_s,
            tcp: None,
            drop_segments: Vec::new(),
            drop_retransmissions: Vec::new(),
        });
    }
    g.traced_queues.push("left->right".into());
    g
}

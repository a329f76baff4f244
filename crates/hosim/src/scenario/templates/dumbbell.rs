//! The dumbbell template.

use super::{link, node, Graph};
use crate::scenario::schema::{AppKind, DumbbellSection, FlowSpec, NodeKindName};

/// N senders -> `left` router -> bottleneck -> `right` router -> N receivers.
/// Access links are given queues large enough never to drop (1000 packets).
pub fn expand(d: &DumbbellSection) -> Graph {
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

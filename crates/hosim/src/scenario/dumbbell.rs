//! The dumbbell template and its `[dumbbell]` section.

use serde::Deserialize;

use crate::spec::graph::{link, node, validate_app, AppKind, FlowSpec, Graph, NodeKindName, MAX_LINK_RATE_BPS};
use crate::spec::template::{no_agents, Preset, Sectioned};
use crate::spec::{Check, ScenarioError};

/// `topology = "dumbbell"` with its `[dumbbell]` section.
pub const TEMPLATE: Sectioned<DumbbellSection> = Sectioned {
    topology: "dumbbell",
    section: "dumbbell",
    validate: |d, _, c| d.validate(c),
    expand,
    install: no_agents,
    flows: |d| d.flows,
};

pub const PRESET: Preset = (
    "dumbbell",
    "Dumbbell: N bulk TCP flows share a 12 Mb/s, 20 ms bottleneck with a 90-packet DropTail queue",
    include_str!("../../../../presets/dumbbell.toml"),
);

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
    g.start_jitter_s = d.start_jitter_s;
    g
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSection {
    #[serde(default = "d_flows")]
    pub flows: u32,
    #[serde(default = "d_bottleneck_bps")]
    pub bottleneck_bps: f64,
    #[serde(default = "d_bottleneck_delay_s")]
    pub bottleneck_delay_s: f64,
    #[serde(default = "d_queue_packets")]
    pub queue_packets: u32,
    /// Bernoulli loss probability on the bottleneck, each direction.
    #[serde(default)]
    pub loss: f64,
    #[serde(default = "d_access_bps")]
    pub access_bps: f64,
    #[serde(default = "d_access_delay_s")]
    pub access_delay_s: f64,
    #[serde(default)]
    pub app: AppKind,
    /// Size of each flow's file (app = "file") or total (app = "rate", optional).
    pub bytes: Option<u64>,
    /// Rate of each flow's source (app = "rate").
    pub rate_bps: Option<f64>,
    /// Flow i starts at i * start_stagger_s (plus the jitter).
    #[serde(default)]
    pub start_stagger_s: f64,
    /// Each flow starts a uniform random time in [0, start_jitter_s) later, drawn per seed
    /// (the preset's random element: without it every seed gives the same run).
    #[serde(default = "d_start_jitter_s")]
    pub start_jitter_s: f64,
}

fn d_start_jitter_s() -> f64 {
    0.01
}

fn d_flows() -> u32 {
    2
}
fn d_bottleneck_bps() -> f64 {
    12e6
}
fn d_bottleneck_delay_s() -> f64 {
    0.02
}
fn d_queue_packets() -> u32 {
    90
}
fn d_access_bps() -> f64 {
    100e6
}
fn d_access_delay_s() -> f64 {
    0.002
}

impl Default for DumbbellSection {
    fn default() -> Self {
        toml::from_str("").expect("all dumbbell keys have defaults")
    }
}

impl DumbbellSection {
    pub fn validate(&self, c: &Check) -> Result<(), ScenarioError> {
        c.at_least("dumbbell.flows", self.flows as u64, 1)?;
        if self.flows > 10_000 {
            return Err(c.err("dumbbell.flows", &format!("must be <= 10000, got {}", self.flows)));
        }
        c.positive("dumbbell.bottleneck_bps", self.bottleneck_bps)?;
        c.non_negative("dumbbell.bottleneck_delay_s", self.bottleneck_delay_s)?;
        c.at_least("dumbbell.queue_packets", self.queue_packets as u64, 1)?;
        c.probability("dumbbell.loss", self.loss)?;
        if self.loss >= 1.0 {
            return Err(c.err("dumbbell.loss", "must be < 1 (every packet lost)"));
        }
        c.positive("dumbbell.access_bps", self.access_bps)?;
        for (key, v) in [("dumbbell.bottleneck_bps", self.bottleneck_bps), ("dumbbell.access_bps", self.access_bps)] {
            if v > MAX_LINK_RATE_BPS {
                return Err(c.err(key, &format!("must be <= {MAX_LINK_RATE_BPS:e} bit/s, got {v:e}")));
            }
        }
        c.non_negative("dumbbell.access_delay_s", self.access_delay_s)?;
        c.non_negative("dumbbell.start_stagger_s", self.start_stagger_s)?;
        // The last flow starts at (flows - 1) x start_stagger_s: a time like any other.
        let last_start_s = (self.flows - 1) as f64 * self.start_stagger_s;
        if last_start_s > crate::engine::time::MAX_TIME_S {
            let m = format!(
                "the last flow would start at (flows - 1) x start_stagger_s = {last_start_s:e} s, beyond the longest time ({:e} s)",
                crate::engine::time::MAX_TIME_S
            );
            return Err(c.err("dumbbell.start_stagger_s", &m));
        }
        c.non_negative("dumbbell.start_jitter_s", self.start_jitter_s)?;
        validate_app(c, "dumbbell", self.app, self.bytes, self.rate_bps)
    }
}

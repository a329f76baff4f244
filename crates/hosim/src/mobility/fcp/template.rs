//! The `fcp` template: the network of Fig. 1 of Cohen & Levin, "To Drop or Not to Drop"
//! (docs/reproductions/drop-or-forward.md), and the handover agent installed on it.
//!
//! ```text
//!                              +-- bs1 --+-- m0 ... m{N-1}   (private wireless links)
//!   sender --- fcp ------------+    |    |
//!                              +-- bs2 --+-- m0 ... m{N-1}
//!                  (bs1 <-> bs2: the forwarding path)
//! ```
//!
//! Every mobile has a private wireless link to each base station; only the one of the base
//! station it is attached to carries traffic (the handover agent sets the routes of the FCP
//! and of the mobile). One bulk TCP flow runs from the sender to each mobile.

use std::collections::{HashSet, VecDeque};

use rand::Rng as _;

use super::config::{mobile_name, FcpSection, IntervalDistribution, BS, FCP, SENDER};
use super::{report, FcpHandover, Mobile, Timer, RNG_BASE};
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::{s_to_ns, SimTime};
use crate::net::{FlowId, LinkId, NodeId};
use crate::sim::Sim;
use crate::spec::graph::{link, node, AppKind, FlowSpec, Graph, NodeKindName};
use crate::spec::{Check, ScenarioError};

pub fn expand(f: &FcpSection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node(SENDER.into(), NodeKindName::Host));
    g.nodes.push(node(FCP.into(), NodeKindName::Router));
    for bs in BS {
        g.nodes.push(node(bs.into(), NodeKindName::Router));
    }
    let q = f.backbone_queue_pkts;
    g.links.push(link(SENDER, FCP, f.backbone_bps, f.sender_fcp_delay_s, q));
    for bs in BS {
        g.links.push(link(FCP, bs, f.backbone_bps, f.fcp_bs_delay_s, q));
    }
    let fwd_bps = f.forward_bps.unwrap_or(f.backbone_bps);
    g.links.push(link(BS[0], BS[1], fwd_bps, f.forward_delay_s, f.forward_queue_pkts.unwrap_or(q)));
    for i in 0..f.mobiles {
        let m = mobile_name(i);
        g.nodes.push(node(m.clone(), NodeKindName::Host));
        for bs in BS {
            g.links.push(link(bs, &m, f.wireless_bps, f.bs_mobile_delay_s, f.bs_buffer_pkts));
        }
        g.flows.push(FlowSpec {
            name: Some(format!("flow{i}")),
            src: SENDER.into(),
            dst: m,
            app: AppKind::Bulk,
            bytes: None,
            rate_bps: None,
            start_s: f.start_s + i as f64 * f.start_stagger_s,
            tcp: None,
            drop_segments: Vec::new(),
            drop_retransmissions: Vec::new(),
        });
    }
    g.traced_queues.push(format!("{SENDER}->{FCP}"));
    g
}

/// Installs the handover agent on a world expanded from the `fcp` template: it owns both base
/// stations and schedules the first handovers, the warm-up and the end-of-run snapshot.
pub fn install(f: &FcpSection, sim: &mut Sim, c: &Check) -> Result<(), ScenarioError> {
    let w = &sim.world;
    let node = |name: &str| w.nodes.iter().position(|n| n.name == name).map(|i| i as NodeId);
    let link = |from: &str, to: &str| {
        let name = format!("{from}->{to}");
        w.links.iter().position(|l| l.name == name).map(|i| i as LinkId)
    };
    let missing = || c.err("topology", "the fcp template's graph is incomplete");
    let fcp = node(FCP).ok_or_else(missing)?;
    let bs = [node(BS[0]).ok_or_else(missing)?, node(BS[1]).ok_or_else(missing)?];
    let fcp_to_bs = [link(FCP, BS[0]).ok_or_else(missing)?, link(FCP, BS[1]).ok_or_else(missing)?];
    let forward = [link(BS[0], BS[1]).ok_or_else(missing)?, link(BS[1], BS[0]).ok_or_else(missing)?];
    let mut mobiles = Vec::new();
    let mut mobile_of_node = vec![None; w.nodes.len()];
    for i in 0..f.mobiles {
        let name = mobile_name(i);
        let n = node(&name).ok_or_else(missing)?;
        let flow = w.flows.iter().position(|fl| fl.dst == n).ok_or_else(missing)? as FlowId;
        let down = [link(BS[0], &name).ok_or_else(missing)?, link(BS[1], &name).ok_or_else(missing)?];
        let up = [link(&name, BS[0]).ok_or_else(missing)?, link(&name, BS[1]).ok_or_else(missing)?];
        mobile_of_node[n as usize] = Some(i);
        mobiles.push(Mobile {
            node: n,
            flow,
            at: 0,
            down,
            up,
            hold: VecDeque::new(),
            holding: false,
            draining: None,
            direct_seq_end: 0,
            delivered_at_warmup: 0,
            handovers: 0,
        });
    }
    let interval_s = f.interval_s();
    let seed = w.seed;
    let h = FcpHandover {
        scheme: f.scheme,
        overflow: f.rearrange_overflow,
        rearrange_buffer: f.rearrange_buffer,
        old_bs_queue: f.old_bs_queue,
        fcp,
        bs,
        fcp_to_bs,
        forward,
        mobiles,
        mobile_of_node,
        forwarded: HashSet::new(),
        interval_ns: interval_s.map(|s| s_to_ns(s).max(1)),
        distribution: f.handover_distribution,
        rngs: (0..f.mobiles as u64).map(|i| stream_rng(seed, StreamKind::Cell, RNG_BASE + i)).collect(),
        buffer_pkts: f.bs_buffer_pkts,
        warmup_ns: s_to_ns(f.warmup_s),
        params: report::Params {
            interval_s,
            rtt_unit_s: f.rtt_unit_s(),
            available_bps: f.available_bps(),
            fcp_bs_delay_s: f.fcp_bs_delay_s,
            forward_delay_s: f.forward_delay_s,
        },
        record_uids: false,
        log: Vec::new(),
        forward_queue_drops: 0,
        finished: None,
    };
    sim.add_agent(|cx| start(h, cx, f.first_handover_s));
    Ok(())
}

/// Owns the base stations, attaches every mobile to bs1 and sets the first timers.
fn start(mut h: FcpHandover, cx: &mut crate::sim::Cx<Timer>, first_handover_s: Option<f64>) -> FcpHandover {
    for b in h.bs {
        cx.own(b);
    }
    for m in 0..h.mobiles.len() {
        h.attach_routes(cx, m, 0);
        let first = match (first_handover_s, h.interval_ns) {
            (_, None) => None,
            (Some(t), Some(_)) => Some(s_to_ns(t)),
            (None, Some(mean)) => {
                let phase = match h.distribution {
                    IntervalDistribution::Fixed => (h.rngs[m].gen::<f64>() * mean as f64) as SimTime,
                    IntervalDistribution::Exponential => h.next_interval_ns(m).expect("handovers are on"),
                };
                Some(h.warmup_ns + phase)
            }
        };
        if let Some(t) = first {
            cx.schedule(t, Timer::Handover(m as u32));
        }
    }
    cx.schedule(h.warmup_ns, Timer::Warmup);
    let end = cx.end_ns();
    cx.schedule(end, Timer::Finish);
    h
}

/// `topology = "fcp"` with its `[fcp]` section: the one line of this mechanism in
/// `Registry::builtin`.
pub const TEMPLATE: crate::spec::Sectioned<FcpSection> = crate::spec::Sectioned {
    topology: "fcp",
    section: "fcp",
    validate: |f, s, c| f.validate(c, s.duration_s),
    expand,
    install,
    flows: |f| f.mobiles,
};

/// The preset of this mechanism's paper (`hosim presets`).
pub const PRESET: crate::spec::Preset = (
    "fcp",
    "Cohen & Levin drop/forward/rearrange handovers: sender, FCP, 2 BSs, 10 mobiles (100/10 Mb/s), NewReno",
    include_str!("../../../../../presets/fcp.toml"),
);

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(g: &'a Graph, from: &str, to: &str) -> &'a crate::spec::graph::LinkSpec {
        g.links.iter().find(|l| l.from == from && l.to == to).unwrap_or_else(|| panic!("no link {from}->{to}"))
    }

    #[test]
    fn default_expansion_is_fig_1_with_ten_mobiles() {
        let f = FcpSection::default();
        let g = expand(&f);
        assert_eq!(g.nodes.len(), 4 + 10);
        assert_eq!(g.flows.len(), 10);
        assert!(g.flows.iter().all(|fl| fl.src == SENDER && fl.app == AppKind::Bulk));
        let s_fcp = find(&g, SENDER, FCP);
        assert_eq!((s_fcp.rate_bps, s_fcp.delay_s), (100e6, 0.010));
        for bs in BS {
            let l = find(&g, FCP, bs);
            assert_eq!((l.rate_bps, l.delay_s), (100e6, 0.025));
            for i in 0..10 {
                let w = find(&g, bs, &mobile_name(i));
                assert_eq!((w.rate_bps, w.delay_s, w.queue_packets), (10e6, 0.005, Some(100)));
                assert!(w.bidirectional, "the uplink shares the private link's parameters");
            }
        }
        let fwd = find(&g, BS[0], BS[1]);
        assert_eq!((fwd.delay_s, fwd.bidirectional), (0.050, true));
        assert!((f.rtt_unit_s() - 0.080).abs() < 1e-12, "propagation RTT 2 x 40 ms");
        assert_eq!(f.available_bps(), 10e6);
    }

    #[test]
    fn interval_in_rtts_uses_the_rtt_unit_and_handovers_false_turns_it_off() {
        let mut f: FcpSection = toml::from_str("handover_interval_rtt = 50.0").unwrap();
        assert!((f.interval_s().unwrap() - 4.0).abs() < 1e-12);
        f.rtt_s = Some(0.1);
        assert!((f.interval_s().unwrap() - 5.0).abs() < 1e-12);
        f.handovers = false;
        assert_eq!(f.interval_s(), None);
    }
}

//! The `inter-rat` template: the Fig. A.1 system and the agent installed on it.
//!
//! Nodes `server`, `anchor`, `enb`, `utran` (the 2G/3G node) and `ue`. Links: server <->
//! anchor at `core_bps` with half the Internet RTT each way; anchor <-> enb (S1) at `s1_bps`;
//! anchor <-> utran at `core_bps`; enb <-> utran, the forwarding path through the core, at
//! `core_bps`; and each RAN's radio links to and from the UE at that RAT's rate. Queues on
//! wired links never overflow (`WIRED_QUEUE_PACKETS`, far above the 64 kB receiver window):
//! the only losses are the handover's and Note 1's buffer limit.

use super::config::{Direction, InterRatSection};
use super::{HandoverCounts, InterRat, InterRatConfig, Timer, UidLog, SOURCE, TARGET};
use crate::engine::time::s_to_ns;
use crate::mobility::ran::{AccessNode, CellSet};
use crate::sim::{Cx, Sim};
use crate::spec::graph::{link, node, AppKind, FlowSpec, Graph, NodeKindName};

const WIRED_QUEUE_PACKETS: u32 = 10_000;
/// The radio link queue: the RAN hands it one packet at a time.
const RADIO_LINK_QUEUE_PACKETS: u32 = 4;

/// (source RAN, target RAN) node names by direction.
fn rans(d: &InterRatSection) -> [&'static str; 2] {
    match d.direction {
        Direction::LteToUmts => ["enb", "utran"],
        Direction::UmtsToLte => ["utran", "enb"],
    }
}

pub fn expand(d: &InterRatSection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node("server".into(), NodeKindName::Host));
    for n in ["anchor", "enb", "utran"] {
        g.nodes.push(node(n.into(), NodeKindName::Router));
    }
    g.nodes.push(node("ue".into(), NodeKindName::Host));
    g.links.push(link("server", "anchor", d.core_bps, d.internet_rtt_s / 2.0, WIRED_QUEUE_PACKETS));
    let mut s1 = link("anchor", "enb", d.s1_rate_bps(), d.access_delay_s, WIRED_QUEUE_PACKETS);
    s1.trace = true;
    g.links.push(s1);
    let mut iu = link("anchor", "utran", d.core_bps, d.access_delay_s, WIRED_QUEUE_PACKETS);
    iu.trace = true;
    g.links.push(iu);
    let [src, tgt] = rans(d);
    g.links.push(link(src, tgt, d.core_bps, d.forward_delay_s, WIRED_QUEUE_PACKETS));
    // The source's radio links first, so that the UE's initial uplink route uses them.
    for (ran, rate) in [(src, d.source_rate_bps), (tgt, d.target_rate_bps)] {
        let mut down = link(ran, "ue", rate, d.radio_delay_s, RADIO_LINK_QUEUE_PACKETS);
        down.bidirectional = false;
        g.links.push(down);
        let mut up = link("ue", ran, rate, d.radio_delay_s, WIRED_QUEUE_PACKETS);
        up.bidirectional = false;
        g.links.push(up);
    }
    let (app, bytes) = if d.file_bytes == 0 { (AppKind::Bulk, None) } else { (AppKind::File, Some(d.file_bytes)) };
    g.flows.push(FlowSpec {
        name: Some("ftp".into()),
        src: "server".into(),
        dst: "ue".into(),
        app,
        bytes,
        rate_bps: None,
        start_s: d.ftp_start_s,
        tcp: None,
        drop_segments: Vec::new(),
        drop_retransmissions: Vec::new(),
    });
    g
}

/// Installs the inter-RAT agent: it owns the anchor and both RAN nodes and sets the
/// handover's timers.
pub fn install(d: &InterRatSection, sim: &mut Sim) {
    sim.add_agent(|cx| {
        let agent = system(d, cx);
        let cfg = &agent.cfg;
        if let Some(b) = cfg.bicast_start_ns {
            cx.schedule(b, Timer::BicastStart);
        }
        cx.schedule(cfg.detach_ns, Timer::Detach);
        cx.schedule(cfg.switch_ns, Timer::Switch);
        cx.schedule(cfg.samples_from_ns, Timer::Sample);
        agent
    });
}

/// The rate of the anchor's link to RAN node `ran`.
fn access_bps(d: &InterRatSection, ran: &str) -> u64 {
    (if ran == "enb" { d.s1_rate_bps() } else { d.core_bps }).round() as u64
}

fn system(d: &InterRatSection, cx: &mut Cx<Timer>) -> InterRat {
    let id = |cx: &Cx<Timer>, name: &str| cx.node_id(name).expect("template node");
    let link_id = |cx: &Cx<Timer>, name: &str| cx.link_id(name).expect("template link");
    let anchor = id(cx, "anchor");
    cx.own(anchor);
    let names = rans(d);
    let rates = [d.source_rate_bps, d.target_rate_bps];
    let make = |cx: &mut Cx<Timer>, i: usize| {
        let n = id(cx, names[i]);
        cx.own(n);
        let radio = link_id(cx, &format!("{}->ue", names[i]));
        let uplink = link_id(cx, &format!("ue->{}", names[i]));
        let mut ran = AccessNode::new(n, names[i], radio, uplink, rates[i].round() as u64);
        if d.ran_buffer_s > 0.0 {
            ran.buffer.limit_bytes = Some((d.ran_buffer_s * rates[i] / 8.0).round().max(1.0) as u64);
        }
        ran
    };
    let rans = [make(cx, SOURCE), make(cx, TARGET)];
    let to_ran =
        [link_id(cx, &format!("anchor->{}", names[SOURCE])), link_id(cx, &format!("anchor->{}", names[TARGET]))];
    let forward_link = link_id(cx, &format!("{}->{}", names[SOURCE], names[TARGET]));
    let detach_ns = s_to_ns(d.handover_at_s);
    let pre_window_ns = s_to_ns(d.pre_window_s);
    let cfg = InterRatConfig {
        scheme: d.scheme,
        direction: d.direction,
        bicast_start_ns: (d.scheme == super::Scheme::Bicasting).then(|| s_to_ns(d.handover_at_s - d.bicast_lead_s)),
        detach_ns,
        switch_ns: s_to_ns(d.handover_at_s + d.interruption_s),
        sample_ns: s_to_ns(d.sample_s).max(1),
        samples_from_ns: detach_ns.saturating_sub(pre_window_ns),
        pre_window_ns,
        convergence_window_ns: s_to_ns(d.convergence_window_s),
        convergence_fraction: d.convergence_fraction,
        slack_bytes: cx.flows()[0].sender.cfg.mss_bytes as u64,
    };
    InterRat {
        cfg,
        anchor,
        ue: id(cx, "ue"),
        flow: 0,
        rans,
        to_ran,
        forward_link,
        path: SOURCE,
        anchor_queue: Default::default(),
        anchor_busy: false,
        access_bps: [access_bps(d, names[SOURCE]), access_bps(d, names[TARGET])],
        anchor_stats: (0, 0),
        attached: CellSet::one(SOURCE),
        bicasting: false,
        record_uids: false,
        uids: UidLog::default(),
        counts: HandoverCounts::default(),
        in_forwarding: Default::default(),
        bicast_originals: Default::default(),
        deliveries: Vec::new(),
        retransmits: Vec::new(),
        snap: None,
    }
}

/// `topology = "inter-rat"` with its `[inter_rat]` section: the one line of this mechanism in
/// `Registry::builtin`.
pub const TEMPLATE: crate::spec::Sectioned<InterRatSection> = crate::spec::Sectioned {
    topology: "inter-rat",
    section: "inter_rat",
    validate: |i, s, c| i.validate(c, s.duration_s),
    expand,
    install: |i, sim, _| {
        install(i, sim);
        Ok(())
    },
    flows: crate::spec::template::one_flow,
};

/// The preset of this mechanism's paper (`hosim presets`).
pub const PRESET: crate::spec::Preset = (
    "inter-rat",
    "Inter-RAT handover LTE <-> UMTS (3GPP, back-to-back loss): forwarding / bicasting / none, TCP SACK recovery and convergence time",
    include_str!("../../../../../presets/inter-rat.toml"),
);

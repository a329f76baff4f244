//! The `lte-x2` template: the system of Pacifico et al. (Fig. 1, Table I), and the LTE agent
//! installed on it.
//!
//! ```text
//!  srv_ue_ref ─┐                      ┌─ senb ─ radio ─ ue_ref (hands over), ue_s1 ...
//!  srv_ue_s1  ─┼─ sgw ══ router ══════┤
//!  srv_ue_t1  ─┘                      └─ tenb ─ radio ─ ue_t1 ...
//! ```
//!
//! One server per UE (a bulk "FTP" flow server -> UE); server links 100 Mb/s 2 ms; the
//! serving gateway sits next to the core router (10 Gb/s, no delay); router <-> eNodeB links
//! 12 Mb/s 2 ms with 90-packet router queues named `router->senb` and `router->tenb`.
//! The reference UE `ue_ref` starts in the source cell and hands over to the target.

use rand::Rng as _;

use super::config::{LteX2Section, PathSwitchName, RouterQueueName, SchedulerName};
use super::{LteConfig, LteX2, PathSwitch};
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::s_to_ns;
use crate::mobility::ran::{BufferLimit, Cell, CellSet, Ran, Scheduler, SchedulerKind, Ue};
use crate::net::QueueLimit;
use crate::sim::{Cx, Sim};
use crate::spec::graph::{link, node, AppKind, FlowSpec, Graph, NodeKindName, QueueKind, RedSpec, TcpSection};

/// The eNodeB's own queue towards the router (X2 forwarding and uplink), in packets.
const ENB_UPLINK_QUEUE_PACKETS: u32 = 1000;
/// Server and S-GW links never drop.
const CORE_QUEUE_PACKETS: u32 = 1000;
const SGW_ROUTER_BPS: f64 = 10e9;

/// The UEs: (UE node name, serving eNodeB index, flow name).
fn ues(d: &LteX2Section) -> Vec<(String, usize, String)> {
    let mut v = vec![("ue_ref".to_string(), 0, "ref".to_string())];
    for i in 1..d.source_ues {
        v.push((format!("ue_s{i}"), 0, format!("src{i}")));
    }
    for i in 1..=d.target_ues {
        v.push((format!("ue_t{i}"), 1, format!("tgt{i}")));
    }
    v
}

const ENBS: [&str; 2] = ["senb", "tenb"];

pub fn expand(d: &LteX2Section) -> Graph {
    let mut g = Graph::default();
    for n in ["sgw", "router", "senb", "tenb"] {
        g.nodes.push(node(n.into(), NodeKindName::Router));
    }
    let mut core = link("sgw", "router", SGW_ROUTER_BPS, 0.0, CORE_QUEUE_PACKETS);
    core.name = None;
    g.links.push(core);
    for enb in ENBS {
        let mut down = link("router", enb, d.router_bps, d.router_delay_s, d.router_queue_packets);
        down.bidirectional = false;
        down.trace = true;
        if d.router_queue == RouterQueueName::Red {
            down.queue = QueueKind::Red;
            down.red = Some(RedSpec {
                min_th_pkts: d.red_min_th_pkts,
                max_th_pkts: d.red_max_th_pkts,
                max_p: d.red_max_p,
                weight: d.red_weight,
                ecn: d.ecn,
                ns2_mean_pktsize_bytes: d.red_ns2_mean_pktsize_bytes,
            });
        }
        g.links.push(down);
        let mut up = link(enb, "router", d.router_bps, d.router_delay_s, ENB_UPLINK_QUEUE_PACKETS);
        up.bidirectional = false;
        g.links.push(up);
        g.traced_queues.push(format!("router->{enb}"));
    }
    for (ue, cell, flow) in ues(d) {
        let server = format!("srv_{ue}");
        g.nodes.push(node(server.clone(), NodeKindName::Host));
        g.nodes.push(node(ue.clone(), NodeKindName::Host));
        g.links.push(link(&server, "sgw", d.server_bps, d.server_delay_s, CORE_QUEUE_PACKETS));
        // The reference UE can attach to both cells; its serving cell's links come first so
        // that the initial routes use them.
        let cells: Vec<usize> = if ue == "ue_ref" { vec![0, 1] } else { vec![cell] };
        for c in cells {
            let mut down = link(ENBS[c], &ue, d.radio_bps, d.radio_delay_s, 4);
            down.bidirectional = false;
            g.links.push(down);
            let mut up = link(&ue, ENBS[c], d.uplink_bps, d.radio_delay_s, CORE_QUEUE_PACKETS);
            up.bidirectional = false;
            g.links.push(up);
        }
        g.flows.push(FlowSpec {
            name: Some(flow),
            src: server,
            dst: ue,
            app: AppKind::Bulk,
            bytes: None,
            rate_bps: None,
            start_s: 0.0,
            tcp: Some(TcpSection { ecn: Some(d.ecn), ..TcpSection::default() }),
            drop_segments: Vec::new(),
            drop_retransmissions: Vec::new(),
        });
    }
    g
}

/// Installs the LTE agent: it owns the S-GW and the eNodeBs, builds the eNodeBs and UEs,
/// draws the flows' start times and plans the reference UE's handover.
pub fn install(d: &LteX2Section, sim: &mut Sim) {
    sim.add_agent(|cx| {
        let mut lte = system(d, cx);
        // Per-run randomness: flow start times and the prediction error, from this system's
        // own streams (derived from the scenario seed).
        let sub_seed: u64 = cx.rng().clone().gen();
        let mut starts = stream_rng(sub_seed, StreamKind::Cell, 0);
        for f in cx.flows_mut() {
            f.start_ns = s_to_ns(starts.gen::<f64>() * d.start_window_s);
        }
        let mut err_rng = stream_rng(sub_seed, StreamKind::Cell, 1);
        let error_s = d.prediction_error_s + d.prediction_error_std_s * standard_normal(&mut err_rng);
        lte.plan_handover(cx, 0, (0, 1), s_to_ns(d.handover_at_s), (error_s * 1e9).round() as i64);
        lte
    });
}

/// The S-GW, eNodeBs and UEs of the template's graph, owned by the agent `cx` belongs to.
fn system(d: &LteX2Section, cx: &mut Cx<super::Timer>) -> LteX2 {
    let node_id = |cx: &Cx<super::Timer>, name: &str| cx.node_id(name).expect("template node");
    let sgw = node_id(cx, "sgw");
    cx.own(sgw);
    let ue_specs = ues(d);
    let limit = match d.enb_queue_bytes {
        Some(b) => QueueLimit::Bytes(b),
        None => QueueLimit::Packets(d.enb_queue_packets.unwrap_or(200)),
    };
    let kind = match d.scheduler {
        SchedulerName::Wfq => SchedulerKind::Wfq,
        SchedulerName::Rr => SchedulerKind::RoundRobin,
    };
    let mut cells = Vec::new();
    for name in ENBS {
        let n = node_id(cx, name);
        cx.own(n);
        let scheduler = Scheduler::new(kind, vec![1.0; ue_specs.len()]);
        let radio_bps = d.radio_bps.round() as u64;
        let mut cell = Cell::new(n, name.to_string(), ue_specs.len(), BufferLimit::PerUe(limit), radio_bps, scheduler);
        for (u, (ue, _, _)) in ue_specs.iter().enumerate() {
            cell.downlinks[u] = cx.link_id(&format!("{name}->{ue}"));
        }
        cells.push(cell);
    }
    let mut ues = Vec::new();
    for (ue, cell, flow) in &ue_specs {
        let n = node_id(cx, ue);
        let uplinks: Vec<Option<u32>> = ENBS.iter().map(|e| cx.link_id(&format!("{ue}->{e}"))).collect();
        let f = cx.flows().iter().position(|fl| &fl.name == flow).map(|i| i as u32);
        ues.push(Ue { node: n, name: ue.clone(), flow: f, cells: CellSet::one(*cell), path: *cell, uplinks });
    }
    LteX2 {
        cfg: config(d),
        sgw,
        ran: Ran::new(cells, ues, cx.nodes().len()),
        handovers: Vec::new(),
        sgw_tunnelled: vec![0; ENBS.len()],
    }
}

fn config(d: &LteX2Section) -> LteConfig {
    let path_switch = match d.path_switch {
        PathSwitchName::Standard => PathSwitch::Standard,
        PathSwitchName::Fast => PathSwitch::Fast,
        PathSwitchName::Predicted => PathSwitch::Predicted,
    };
    LteConfig {
        path_switch,
        x2_latency_ns: s_to_ns(d.x2_latency_s),
        path_switch_latency_ns: s_to_ns(d.path_switch_latency_s),
        detach_ns: s_to_ns(d.detach_s),
        prediction_lead_ns: s_to_ns(d.prediction_lead_s),
        reordering: d.reordering,
        reorder_timeout_ns: s_to_ns(d.reorder_timeout_s),
        outer_ect: d.ecn,
        ecn_through_tunnel: d.ecn_through_tunnel,
    }
}

/// A standard normal draw (Box-Muller).
fn standard_normal(rng: &mut crate::engine::rng::Rng) -> f64 {
    let u1: f64 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// `topology = "lte-x2"` with its `[lte_x2]` section: the one line of this mechanism in
/// `Registry::builtin`.
pub const TEMPLATE: crate::spec::Sectioned<LteX2Section> = crate::spec::Sectioned {
    topology: "lte-x2",
    section: "lte_x2",
    validate: |l, s, c| l.validate(c, s.duration_s),
    expand,
    install: |l, sim, _| {
        install(l, sim);
        Ok(())
    },
    flows: |l| l.source_ues.max(1).saturating_add(l.target_ues),
};

/// The preset of this mechanism's paper (`hosim presets`).
pub const PRESET: crate::spec::Preset = (
    "lte-x2",
    "LTE X2 handover with forwarding through the core router (Pacifico et al.): path switch standard/fast/predicted, DropTail/RED/ECN",
    include_str!("../../../../../presets/lte-x2.toml"),
);

//! The `lte-x2` template: the system of Pacifico et al. (Fig. 1, Table I).
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
use serde::Deserialize;

use super::{link, node, Graph};
use crate::cell::lte::enb::{Enb, Scheduler, SchedulerKind};
use crate::cell::lte::{LteConfig, LteRole, LteX2, PathSwitch, Ue};
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::s_to_ns;
use crate::net::queue::QueueLimit;
use crate::net::NodeKind;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{AppKind, Check, FlowSpec, NodeKindName, QueueKind, RedSpec, TcpSection};
use crate::world::World;

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PathSwitchName {
    #[default]
    Standard,
    Fast,
    Predicted,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RouterQueueName {
    #[default]
    DropTail,
    Red,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerName {
    #[default]
    Wfq,
    Rr,
}

/// `[lte_x2]`: every key has a default; see docs/reproductions/lte-intra-handover.md for
/// where each value comes from.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteX2Section {
    #[serde(default)]
    pub path_switch: PathSwitchName,
    #[serde(default)]
    pub router_queue: RouterQueueName,
    /// End-to-end ECN: flows are ECN-capable, tunnel entries mark outer headers ECT, and RED
    /// marks instead of dropping.
    #[serde(default)]
    pub ecn: bool,
    /// Tunnel ends copy CE into ECN-capable inner headers (else a marked packet is dropped).
    #[serde(default = "yes")]
    pub ecn_through_tunnel: bool,
    /// UEs in the source cell, the reference UE included.
    #[serde(default = "d_source_ues")]
    pub source_ues: u32,
    #[serde(default = "d_target_ues")]
    pub target_ues: u32,
    /// Handover decision time of the reference UE (handover start).
    #[serde(default = "d_handover_at_s")]
    pub handover_at_s: f64,
    #[serde(default = "d_x2_latency_s")]
    pub x2_latency_s: f64,
    #[serde(default = "d_path_switch_latency_s")]
    pub path_switch_latency_s: f64,
    #[serde(default = "d_detach_s")]
    pub detach_s: f64,
    #[serde(default = "d_prediction_lead_s")]
    pub prediction_lead_s: f64,
    /// Actual minus predicted HO command time (mean, if `prediction_error_std_s` > 0).
    #[serde(default)]
    pub prediction_error_s: f64,
    /// Standard deviation of a Gaussian prediction error, drawn per run.
    #[serde(default)]
    pub prediction_error_std_s: f64,
    #[serde(default = "yes")]
    pub reordering: bool,
    /// The target waits at most this long for the end marker once it holds direct packets
    /// of an attached UE.
    #[serde(default = "d_reorder_timeout_s")]
    pub reorder_timeout_s: f64,
    #[serde(default)]
    pub scheduler: SchedulerName,
    /// Per-UE eNodeB queue in packets (default 200) or bytes.
    pub enb_queue_packets: Option<u32>,
    pub enb_queue_bytes: Option<u64>,
    /// Cell radio capacity, shared by the cell's UEs.
    #[serde(default = "d_radio_bps")]
    pub radio_bps: f64,
    #[serde(default = "d_radio_delay_s")]
    pub radio_delay_s: f64,
    /// Per-UE uplink (ACKs).
    #[serde(default = "d_uplink_bps")]
    pub uplink_bps: f64,
    #[serde(default = "d_router_bps")]
    pub router_bps: f64,
    #[serde(default = "d_wired_delay_s")]
    pub router_delay_s: f64,
    #[serde(default = "d_router_queue_packets")]
    pub router_queue_packets: u32,
    #[serde(default = "d_server_bps")]
    pub server_bps: f64,
    #[serde(default = "d_wired_delay_s")]
    pub server_delay_s: f64,
    #[serde(default = "d_red_min_th")]
    pub red_min_th_pkts: f64,
    #[serde(default = "d_red_max_th")]
    pub red_max_th_pkts: f64,
    #[serde(default = "d_red_max_p")]
    pub red_max_p: f64,
    #[serde(default = "d_red_weight")]
    pub red_weight: f64,
    /// Each flow starts at a uniform random time in [0, start_window_s] (per seed).
    #[serde(default = "d_start_window_s")]
    pub start_window_s: f64,
}

fn yes() -> bool {
    true
}
fn d_source_ues() -> u32 {
    1
}
fn d_target_ues() -> u32 {
    5
}
fn d_handover_at_s() -> f64 {
    2.3
}
fn d_x2_latency_s() -> f64 {
    0.01
}
fn d_path_switch_latency_s() -> f64 {
    0.02
}
fn d_detach_s() -> f64 {
    0.03
}
fn d_prediction_lead_s() -> f64 {
    0.13
}
fn d_reorder_timeout_s() -> f64 {
    0.1
}
fn d_radio_bps() -> f64 {
    50e6
}
fn d_radio_delay_s() -> f64 {
    0.005
}
fn d_uplink_bps() -> f64 {
    10e6
}
fn d_router_bps() -> f64 {
    12e6
}
fn d_wired_delay_s() -> f64 {
    0.002
}
fn d_router_queue_packets() -> u32 {
    90
}
fn d_server_bps() -> f64 {
    100e6
}
fn d_red_min_th() -> f64 {
    20.0
}
fn d_red_max_th() -> f64 {
    65.0
}
fn d_red_max_p() -> f64 {
    0.1
}
fn d_red_weight() -> f64 {
    0.002
}
fn d_start_window_s() -> f64 {
    1.0
}

impl Default for LteX2Section {
    fn default() -> Self {
        toml::from_str("").expect("all lte_x2 keys have defaults")
    }
}

/// Most UEs per cell.
const MAX_UES: u32 = 200;
/// The eNodeB's own queue towards the router (X2 forwarding and uplink), in packets.
const ENB_UPLINK_QUEUE_PACKETS: u32 = 1000;
/// Server and S-GW links never drop.
const CORE_QUEUE_PACKETS: u32 = 1000;
const SGW_ROUTER_BPS: f64 = 10e9;

impl LteX2Section {
    pub fn validate(&self, c: &Check, duration_s: f64) -> Result<(), ScenarioError> {
        let k = |name: &str| format!("lte_x2.{name}");
        c.at_least(&k("source_ues"), self.source_ues as u64, 1)?;
        for (name, v) in [("source_ues", self.source_ues), ("target_ues", self.target_ues)] {
            if v > MAX_UES {
                return Err(c.err(&k(name), &format!("must be <= {MAX_UES}, got {v}")));
            }
        }
        c.non_negative(&k("handover_at_s"), self.handover_at_s)?;
        if self.handover_at_s >= duration_s {
            return Err(c.err(
                &k("handover_at_s"),
                &format!("must be before the end of the run (duration_s = {duration_s}), got {}", self.handover_at_s),
            ));
        }
        for (name, v) in [
            ("x2_latency_s", self.x2_latency_s),
            ("path_switch_latency_s", self.path_switch_latency_s),
            ("detach_s", self.detach_s),
            ("prediction_lead_s", self.prediction_lead_s),
            ("prediction_error_std_s", self.prediction_error_std_s),
            ("radio_delay_s", self.radio_delay_s),
            ("router_delay_s", self.router_delay_s),
            ("server_delay_s", self.server_delay_s),
            ("start_window_s", self.start_window_s),
            ("reorder_timeout_s", self.reorder_timeout_s),
            ("red_min_th_pkts", self.red_min_th_pkts),
        ] {
            c.non_negative(&k(name), v)?;
        }
        c.finite(&k("prediction_error_s"), self.prediction_error_s)?;
        for (name, v) in [
            ("radio_bps", self.radio_bps),
            ("uplink_bps", self.uplink_bps),
            ("router_bps", self.router_bps),
            ("server_bps", self.server_bps),
        ] {
            c.finite(&k(name), v)?;
            if v < 1.0 {
                return Err(c.err(&k(name), &format!("must be >= 1 bit/s, got {v}")));
            }
        }
        c.at_least(&k("router_queue_packets"), self.router_queue_packets as u64, 1)?;
        match (self.enb_queue_packets, self.enb_queue_bytes) {
            (Some(_), Some(_)) => {
                return Err(c.err(&k("enb_queue_bytes"), "give enb_queue_packets or enb_queue_bytes, not both"))
            }
            (Some(p), None) => c.at_least(&k("enb_queue_packets"), p as u64, 1)?,
            (None, Some(b)) => c.at_least(&k("enb_queue_bytes"), b, 1600)?,
            (None, None) => {}
        }
        c.finite(&k("red_max_th_pkts"), self.red_max_th_pkts)?;
        if self.red_max_th_pkts <= self.red_min_th_pkts {
            return Err(c.err(
                &k("red_max_th_pkts"),
                &format!("must be > red_min_th_pkts ({}), got {}", self.red_min_th_pkts, self.red_max_th_pkts),
            ));
        }
        c.probability(&k("red_max_p"), self.red_max_p)?;
        c.probability(&k("red_weight"), self.red_weight)?;
        if self.red_weight == 0.0 {
            return Err(c.err(&k("red_weight"), "must be > 0"));
        }
        if self.ecn && self.router_queue != RouterQueueName::Red {
            return Err(c.err(&k("ecn"), "needs router_queue = \"red\" (only RED marks packets)"));
        }
        if self.path_switch == PathSwitchName::Predicted {
            let sent = self.handover_at_s + 2.0 * self.x2_latency_s - self.prediction_error_s - self.prediction_lead_s;
            if sent < 0.0 {
                return Err(c.err(
                    &k("handover_at_s"),
                    &format!("too early for the predicted path switch: it would be sent at {sent:.3} s (handover_at_s + 2 x2_latency_s - prediction_error_s - prediction_lead_s must be >= 0)"),
                ));
            }
        }
        Ok(())
    }
}

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

/// Turns the S-GW and eNodeB nodes into LTE elements, builds the eNodeBs and UEs, draws the
/// flows' start times and plans the reference UE's handover.
pub fn install(d: &LteX2Section, world: &mut World) {
    let node_id = |w: &World, name: &str| w.nodes.iter().position(|n| n.name == name).expect("template node") as u32;
    let link_id = |w: &World, name: &str| w.links.iter().position(|l| l.name == name).map(|i| i as u32);
    let sgw = node_id(world, "sgw");
    world.nodes[sgw as usize].kind = NodeKind::Lte(LteRole::Sgw);
    let ue_specs = ues(d);
    let limit = match d.enb_queue_bytes {
        Some(b) => QueueLimit::Bytes(b),
        None => QueueLimit::Packets(d.enb_queue_packets.unwrap_or(200)),
    };
    let kind = match d.scheduler {
        SchedulerName::Wfq => SchedulerKind::Wfq,
        SchedulerName::Rr => SchedulerKind::RoundRobin,
    };
    let mut enbs = Vec::new();
    for (e, name) in ENBS.iter().enumerate() {
        let n = node_id(world, name);
        world.nodes[n as usize].kind = NodeKind::Lte(LteRole::Enb(e as u8));
        let mut enb = Enb::new(
            n,
            name.to_string(),
            ue_specs.len(),
            limit,
            d.radio_bps.round() as u64,
            Scheduler::new(kind, vec![1.0; ue_specs.len()]),
        );
        for (u, (ue, _, _)) in ue_specs.iter().enumerate() {
            enb.downlinks[u] = link_id(world, &format!("{name}->{ue}"));
        }
        enbs.push(enb);
    }
    let mut ue_of_node = vec![None; world.nodes.len()];
    let mut ue_list = Vec::new();
    for (u, (ue, cell, flow)) in ue_specs.iter().enumerate() {
        let n = node_id(world, ue);
        ue_of_node[n as usize] = Some(u);
        let uplinks: Vec<Option<u32>> = ENBS.iter().map(|e| link_id(world, &format!("{ue}->{e}"))).collect();
        let f = world.flows.iter().position(|fl| &fl.name == flow).map(|i| i as u32);
        ue_list.push(Ue { node: n, name: ue.clone(), flow: f, attached: Some(*cell), path: *cell, uplinks });
    }
    // Per-run randomness: flow start times and the prediction error, from this system's own
    // streams (derived from the scenario seed).
    let sub_seed: u64 = world.rng.clone().gen();
    let mut starts = stream_rng(sub_seed, StreamKind::Cell, 0);
    for f in world.flows.iter_mut() {
        f.start_ns = s_to_ns(starts.gen::<f64>() * d.start_window_s);
    }
    let mut err_rng = stream_rng(sub_seed, StreamKind::Cell, 1);
    let error_s = d.prediction_error_s + d.prediction_error_std_s * standard_normal(&mut err_rng);
    let path_switch = match d.path_switch {
        PathSwitchName::Standard => PathSwitch::Standard,
        PathSwitchName::Fast => PathSwitch::Fast,
        PathSwitchName::Predicted => PathSwitch::Predicted,
    };
    let cfg = LteConfig {
        path_switch,
        x2_latency_ns: s_to_ns(d.x2_latency_s),
        path_switch_latency_ns: s_to_ns(d.path_switch_latency_s),
        detach_ns: s_to_ns(d.detach_s),
        prediction_lead_ns: s_to_ns(d.prediction_lead_s),
        reordering: d.reordering,
        reorder_timeout_ns: s_to_ns(d.reorder_timeout_s),
        outer_ect: d.ecn,
        ecn_through_tunnel: d.ecn_through_tunnel,
    };
    world.lte = Some(Box::new(LteX2 {
        cfg,
        sgw,
        enbs,
        ues: ue_list,
        ue_of_node,
        handovers: Vec::new(),
        sgw_tunnelled: vec![0; ENBS.len()],
    }));
    world.plan_lte_handover(0, 0, 1, s_to_ns(d.handover_at_s), (error_s * 1e9).round() as i64);
}

/// A standard normal draw (Box-Muller).
fn standard_normal(rng: &mut crate::engine::rng::Rng) -> f64 {
    let u1: f64 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

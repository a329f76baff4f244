//! The `cellular` template: N cells in a line or a grid, M UEs, and the network around them.
//!
//! ```text
//!  srv0 ─┐                       ┌─ cell0 ═X2═ cell1 ═X2═ cell2 ...
//!  srv1 ─┼─ core ── gw (S-GW) ═S1┤      radio links to every UE, which attach by the rules
//!  ...  ─┘                       └─ ...
//! ```
//!
//! Node and link names: servers `srv{u}`, the core router `core`, the gateway `gw`, cells
//! `cell{i}`, UEs `ue{u}`; the core's queue is `core->gw`, the S1 links `gw<->cell{i}`, the X2
//! links `cell{i}<->cell{i+1}` (a grid: between neighbours in a row and in a column), radio
//! links `cell{i}->ue{u}` and `ue{u}->cell{i}`. A server's link carries half the server RTT
//! each way. Flows `ue{u}.f{k}` are bulk downloads `srv{u}` -> `ue{u}` (`one_server`: all
//! from `srv0`), each starting at a random time in `[0, start_window_s)`.

use super::config::{
    BufferSharing, CellularSection, ChoForwarding, ForwardingPath, GatewayBuffer, Layout, Movement, QueueDiscipline,
    Radios, ReorderRelease, SchedulerName, UplinkSwitch,
};
use super::movement::{TraceRow, Walk, WALK_STREAM};
use super::{Cellular, Motion, Params, Rates, Timer};
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::s_to_ns;
use crate::mobility::ran::{self, BufferLimit, Cell, CellSet, PropFair, Ran, Scheduler, SchedulerKind, Ue};
use crate::net::rate::RateModel;
use crate::net::QueueLimit;
use crate::sim::{Cx, Sim};
use crate::spec::graph::{link, node, AppKind, FlowSpec, Graph, LinkSpec, NodeKindName, QueueKind, MAX_LINK_RATE_BPS};
use crate::spec::{Check, ScenarioError};

/// Radio link queue: the cell's radio sends one packet at a time, so this never fills.
const RADIO_QUEUE_PACKETS: u32 = 4;
/// A UE's uplink queue (ACKs).
const UPLINK_QUEUE_PACKETS: u32 = 1000;

pub fn cell_name(c: usize) -> String {
    format!("cell{c}")
}

pub fn ue_name(u: usize) -> String {
    format!("ue{u}")
}

fn flow_name(u: usize, k: u32) -> String {
    format!("ue{u}.f{k}")
}

pub fn expand(d: &CellularSection) -> Graph {
    let mut g = Graph { start_jitter_s: d.start_window_s, ..Graph::default() };
    for n in ["core", "gw"] {
        g.nodes.push(node(n.into(), NodeKindName::Router));
    }
    let mut core = link("core", "gw", d.core_bps, d.core_delay_s, d.core_queue_packets);
    core.trace = true;
    if d.core_queue == QueueDiscipline::Red {
        // The core router's queue towards the gateway; the reverse direction stays DropTail.
        core.bidirectional = false;
        let mut up = link("gw", "core", d.core_bps, d.core_delay_s, d.core_queue_packets);
        up.bidirectional = false;
        red(&mut core, d);
        g.links.push(core);
        g.links.push(up);
    } else {
        g.links.push(core);
    }
    g.traced_queues.push("core->gw".into());
    for c in 0..d.cells as usize {
        let name = cell_name(c);
        g.nodes.push(node(name.clone(), NodeKindName::Router));
        // The two directions of S1, in the order a bidirectional link makes them.
        let mut down = link("gw", &name, d.s1_bps.at(c), d.s1_delay_s, d.s1_queue_packets);
        down.bidirectional = false;
        if d.s1_queue == QueueDiscipline::Red {
            red(&mut down, d);
        }
        g.links.push(down);
        let up_queue = d.s1_uplink_queue_packets.unwrap_or(d.s1_queue_packets);
        let mut up = link(&name, "gw", d.s1_bps.at(c), d.s1_delay_s, up_queue);
        up.bidirectional = false;
        g.links.push(up);
        // X2/Xn to the neighbour before it in the line, or in its row and its column.
        let cols = d.grid_columns() as usize;
        let grid = d.layout == Layout::Grid;
        let left = if grid { c % cols > 0 } else { c > 0 };
        if left {
            g.links.push(link(&cell_name(c - 1), &name, d.x2_bps, d.x2_delay_s, d.x2_queue_packets));
        }
        if grid && c >= cols {
            g.links.push(link(&cell_name(c - cols), &name, d.x2_bps, d.x2_delay_s, d.x2_queue_packets));
        }
    }
    for u in 0..d.ues as usize {
        let (srv, ue) = (format!("srv{}", if d.one_server { 0 } else { u }), ue_name(u));
        if u == 0 || !d.one_server {
            g.nodes.push(node(srv.clone(), NodeKindName::Host));
        }
        g.nodes.push(node(ue.clone(), NodeKindName::Host));
        if u == 0 || !d.one_server {
            g.links.push(link(&srv, "core", d.server_bps, d.server_rtt_s / 2.0, d.server_queue_packets));
        }
        for c in 0..d.cells as usize {
            // Variable rates: the cell's radio times each packet; the link only adds the delay.
            let radio_link_bps = if d.variable_rates() { MAX_LINK_RATE_BPS } else { d.cell_bps.at(c) };
            let mut down = link(&cell_name(c), &ue, radio_link_bps, d.radio_delay_s, RADIO_QUEUE_PACKETS);
            down.bidirectional = false;
            g.links.push(down);
            let mut up = link(&ue, &cell_name(c), d.uplink_bps.at(c), d.radio_delay_s, UPLINK_QUEUE_PACKETS);
            up.bidirectional = false;
            g.links.push(up);
        }
        for k in 0..d.flows_per_ue {
            g.flows.push(FlowSpec {
                name: Some(flow_name(u, k)),
                src: srv.clone(),
                dst: ue.clone(),
                app: AppKind::Bulk,
                bytes: None,
                rate_bps: None,
                start_s: 0.0,
                tcp: None,
                drop_segments: Vec::new(),
                drop_retransmissions: Vec::new(),
            });
        }
    }
    g
}

/// Makes `l`'s queue RED with the section's parameters.
fn red(l: &mut LinkSpec, d: &CellularSection) {
    l.queue = QueueKind::Red;
    l.red = d.red.clone();
}

/// Installs the cellular agent: it owns the gateway, the cells and the UEs (whose PDCP
/// reorders), attaches each UE to the cell nearest to its start, and plans the handovers.
pub fn install(d: &CellularSection, sim: &mut Sim, check: &Check) -> Result<(), ScenarioError> {
    let trace = match d.movement {
        Movement::Trace => d.movement_rows(check)?,
        _ => Vec::new(),
    };
    let models = if d.variable_rates() { Some((d.capacity_models(check)?, d.ue_rate_models(check)?)) } else { None };
    sim.add_agent(|cx| {
        let mut cellular = system(d, cx, &trace, models);
        cellular.start(cx, d, &trace);
        cellular
    });
    Ok(())
}

/// Each cell's capacity model and each UE's rate model, when some rate is variable.
type Models = Option<(Vec<Option<RateModel>>, Vec<Option<RateModel>>)>;

fn system(d: &CellularSection, cx: &mut Cx<Timer>, trace: &[TraceRow], models: Models) -> Cellular {
    let id = |cx: &Cx<Timer>, name: &str| cx.node_id(name).expect("template node");
    let gw = id(cx, "gw");
    cx.own(gw);
    let (n_cells, n_ues) = (d.cells as usize, d.ues as usize);
    let size = match (d.buffer_packets, d.buffer_bytes) {
        (_, Some(b)) => QueueLimit::Bytes(b),
        (p, None) => QueueLimit::Packets(p.unwrap_or(200)),
    };
    let limit = match d.buffer {
        BufferSharing::PerUe => BufferLimit::PerUe(size),
        BufferSharing::Shared => BufferLimit::Shared(size),
    };
    let kind = match d.scheduler {
        SchedulerName::Wfq | SchedulerName::Pf => SchedulerKind::Wfq,
        SchedulerName::Rr => SchedulerKind::RoundRobin,
    };
    let radio_bps: Vec<u64> = (0..n_cells).map(|c| d.cell_bps.at(c).round() as u64).collect();
    let rates = models.map(|(cap, ue)| Rates::new(cx.seed(), radio_bps.clone(), cap, ue));
    let mut cells = Vec::with_capacity(n_cells);
    for (c, &bps) in radio_bps.iter().enumerate() {
        let name = cell_name(c);
        let n = id(cx, &name);
        cx.own(n);
        let mut cell = Cell::new(n, name.clone(), n_ues, limit, bps, Scheduler::new(kind, vec![1.0; n_ues]));
        if d.radios == Radios::Private {
            cell = cell.with_private_radios();
        }
        for u in 0..n_ues {
            cell.downlinks[u] = cx.link_id(&format!("{name}->{}", ue_name(u)));
        }
        if d.scheduler == SchedulerName::Pf {
            cell.pf = Some(PropFair::new(n_ues, d.pf_time_constant_s));
        }
        if rates.is_some() {
            cell.var_rates = Some(vec![bps; n_ues]);
        }
        cells.push(cell);
    }
    let mut ues = Vec::with_capacity(n_ues);
    let mut ue_flows = Vec::with_capacity(n_ues);
    let mut motion = Vec::with_capacity(n_ues);
    let mut walks: Vec<Walk> = match d.movement {
        Movement::RandomWaypoint => (0..n_ues).map(|u| walk(d, cx.seed(), u)).collect(),
        _ => Vec::new(),
    };
    for u in 0..n_ues {
        let name = ue_name(u);
        let n = id(cx, &name);
        cx.own(n);
        let at_zero = trace.iter().rev().find(|r| r.ue as usize == u && r.at_s == 0.0);
        let start = match (walks.get_mut(u), at_zero) {
            (Some(w), _) if d.ue_cells.is_none() => d.nearest_cell_xy(w.at(0)),
            (_, Some(r)) if d.ue_cells.is_none() => r.cell as usize,
            _ => d.ue_first_cell(u),
        };
        let uplinks: Vec<Option<u32>> =
            (0..n_cells).map(|c| cx.link_id(&format!("{name}->{}", cell_name(c)))).collect();
        ran::route_uplink(cx, n, uplinks[start].expect("uplink to every cell"));
        let prefix = format!("{name}.f");
        let flows: Vec<u32> =
            cx.flows().iter().enumerate().filter(|(_, f)| f.name.starts_with(&prefix)).map(|(i, _)| i as u32).collect();
        ues.push(Ue { node: n, name, flow: flows.first().copied(), cells: CellSet::one(start), path: start, uplinks });
        ue_flows.push(flows);
        let speed_mps = if d.movement == Movement::Line { d.ue_speed_mps(u) } else { 0.0 };
        motion.push(Motion { x0_m: d.ue_x0_m(u), speed_mps });
    }
    let params = Params {
        scheme: d.scheme,
        x2_delay_ns: s_to_ns(d.x2_control_delay_s()),
        interruption_ns: s_to_ns(d.interruption_s()),
        path_switch_delay_ns: s_to_ns(d.path_switch_delay_s),
        target_access_delay_ns: s_to_ns(d.target_access_delay_s),
        source_release_delay_ns: s_to_ns(d.source_release_delay_s),
        t_reordering_ns: s_to_ns(d.t_reordering_s),
        hysteresis_m: d.hysteresis_m,
        time_to_trigger_ns: s_to_ns(d.time_to_trigger_s),
        cell_x_m: (0..n_cells).map(|c| d.cell_x_m(c)).collect(),
        cell_xy_m: (0..n_cells).map(|c| d.cell_xy_m(c)).collect(),
        two_d: d.two_d(),
        measure_period_ns: s_to_ns(d.measure_period_s).max(1),
        target_reordering: d.target_reordering(),
        end_marker: d.end_marker.unwrap_or(d.reorder_release == ReorderRelease::EndMarker),
        release_on_empty: d.reorder_release == ReorderRelease::PathEmpty,
        end_marker_always: d.end_marker == Some(true),
        reorder_timeout_ns: s_to_ns(d.reorder_timeout_s),
        prediction_lead_ns: s_to_ns(d.prediction_lead_s),
        bicast_lead_ns: s_to_ns(d.bicast_lead_s),
        via_core: d.forwarding_path() == ForwardingPath::Core,
        cho_candidates: d.cho_candidates as usize,
        cho_prepare_offset_m: d.cho_prepare_offset_m,
        cho_early: d.cho_forwarding == ChoForwarding::Early,
        rlf_offset_m: d.rlf_offset_m,
        rlf_interruption_ns: s_to_ns(d.rlf_interruption_s),
        radio_rate_table: d.radio_rate_table.clone(),
        rate_update_ns: s_to_ns(d.rate_update_s).max(1),
        gtp_header: d.gtp_header,
        outer_ect: d.outer_ect(),
        ecn_through_tunnel: d.ecn_through_tunnel,
        gateway_buffer: d.gateway_buffer == GatewayBuffer::PerUe,
        s1_bps: (0..n_cells).map(|c| d.s1_bps.at(c).round() as u64).collect(),
        forwarded_first: d.forwarded_first,
        uplink_at_attach: d.uplink_switch == UplinkSwitch::Attach,
        pdcp_discard_duplicates: d.pdcp_discard_duplicates,
    };
    let ran = Ran::new(cells, ues, cx.nodes().len());
    let mut cellular = Cellular::new(params, gw, ran, ue_flows, motion, d.pdcp_out_of_order_delivery);
    cellular.walks = walks;
    cellular.rates = rates;
    if d.two_d() {
        cellular.a3_since = vec![vec![None; n_cells]; n_ues];
    }
    cellular
}

/// UE `u`'s random waypoint walk over the cells' bounding box widened by half a spacing.
fn walk(d: &CellularSection, seed: u64, u: usize) -> Walk {
    let xy: Vec<(f64, f64)> = (0..d.cells as usize).map(|c| d.cell_xy_m(c)).collect();
    let m = d.cell_spacing_m / 2.0;
    let lo = xy.iter().fold((f64::INFINITY, f64::INFINITY), |a, p| (a.0.min(p.0), a.1.min(p.1)));
    let hi = xy.iter().fold((f64::NEG_INFINITY, f64::NEG_INFINITY), |a, p| (a.0.max(p.0), a.1.max(p.1)));
    let speeds = (d.speed_mps, d.speed_max_mps.unwrap_or(d.speed_mps));
    let rng = stream_rng(seed, StreamKind::Cell, WALK_STREAM + u as u64);
    Walk::new(rng, ((lo.0 - m, lo.1 - m), (hi.0 + m, hi.1 + m)), speeds, s_to_ns(d.pause_s))
}

/// `topology = "cellular"` with its `[cellular]` section: the one line of this mechanism in
/// `Registry::builtin`.
pub const TEMPLATE: crate::spec::Sectioned<CellularSection> = crate::spec::Sectioned {
    topology: "cellular",
    section: "cellular",
    validate: |d, s, c| d.validate(c, s.duration_s),
    expand,
    install,
    flows: |d| d.ues.saturating_mul(d.flows_per_ue),
};

/// The preset (`hosim presets`).
pub const PRESET: crate::spec::Preset = (
    "cellular",
    "Cells in a line, UEs moving along it, handovers by an A3-like rule or a schedule: drop / forward / DAPS",
    include_str!("../../../../../presets/cellular.toml"),
);

/// The `highway` preset: 7 cells, 20 UEs at 60 to 120 km/h (issue 37, section 5).
pub const HIGHWAY_PRESET: crate::spec::Preset = (
    "highway",
    "Seven cells along a highway, 20 UEs at 60-120 km/h handing over every 15-30 s: any scheme",
    include_str!("../../../../../presets/highway.toml"),
);

//! The `[cellular]` scenario section: cells in a line, UEs, the network around them, how
//! handovers come about and the handover scheme. docs/scenarios.md lists every key with its
//! default and unit.

use serde::Deserialize;

use crate::net::rate::RateModel;
use crate::spec::graph::{RedSpec, MAX_LINK_RATE_BPS};
use crate::spec::rate::{RateChange, RateSpec};
use crate::spec::{Check, ScenarioError};

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeName {
    /// The source drops what it holds for the UE at the HO command.
    Drop,
    /// The source forwards what it holds, and what still arrives, to the target over X2.
    #[default]
    Forward,
    /// As `forward`, through the gateway instead of the X2 link (Pacifico et al., Fig. 1).
    ForwardViaCore,
    /// As `forward`, and the target holds direct packets until the end marker (Cohen &
    /// Levin's forward-and-rearrange).
    Rearrange,
    /// As `forward`, with the path switch requested at the HO command (Pacifico et al., Fig. 5).
    FastPathSwitch,
    /// As `forward`, with the path switch requested a prediction lead before the HO command
    /// (Pacifico et al., Fig. 6).
    Predicted,
    /// The gateway sends a copy of every downlink packet to the target from a bicast lead
    /// before the HO command; the source drops what it holds (the 3GPP inter-RAT contribution).
    Bicast,
    /// Dual active protocol stack handover (TS 38.300 §9.2.3.2).
    Daps,
    /// Conditional handover (TS 38.300 §9.2.3.4): candidates prepared early, executed by the UE.
    Cho,
}

impl SchemeName {
    pub fn name(self) -> &'static str {
        match self {
            SchemeName::Drop => "drop",
            SchemeName::Forward => "forward",
            SchemeName::ForwardViaCore => "forward-via-core",
            SchemeName::Rearrange => "rearrange",
            SchemeName::FastPathSwitch => "fast-path-switch",
            SchemeName::Predicted => "predicted",
            SchemeName::Bicast => "bicast",
            SchemeName::Daps => "daps",
            SchemeName::Cho => "cho",
        }
    }

    /// The source forwards (originals, not copies) what it holds for a UE that left it.
    pub fn forwards(self) -> bool {
        matches!(
            self,
            SchemeName::Forward
                | SchemeName::ForwardViaCore
                | SchemeName::Rearrange
                | SchemeName::FastPathSwitch
                | SchemeName::Predicted
                | SchemeName::Cho
        )
    }

    /// The source drops what it holds, and what still arrives, for a UE that left it.
    pub fn drops_at_source(self) -> bool {
        matches!(self, SchemeName::Drop | SchemeName::Bicast)
    }
}

/// `cho_forwarding`: when the source starts forwarding to CHO candidates.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ChoForwarding {
    /// From the preparation on, copies to every candidate (TS 38.300 §9.2.3.4.2, early).
    #[default]
    Early,
    /// Once the target reports the UE's access (HANDOVER SUCCESS), to that target only.
    Late,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerName {
    #[default]
    Wfq,
    Rr,
    /// Proportional fair: the UE with the largest r_i(t) / R_i(t) (`ran/scheduler.rs`).
    Pf,
}

/// `layout`: where the cells stand.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Along the x axis: `cell_spacing_m` apart, or at `cell_positions_m` (which may also
    /// place them in the plane).
    #[default]
    Line,
    /// Row by row, `grid_columns` to a row, `cell_spacing_m` apart in x and y.
    Grid,
}

/// `movement`: how the UEs move.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Movement {
    /// Along the x axis at `speed_mps` (y = 0).
    #[default]
    Line,
    /// Random waypoint over the cells' area (`movement.rs`).
    RandomWaypoint,
    /// The cells a `movement_trace` file names, at its times.
    Trace,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BufferSharing {
    /// Each UE has a buffer of the given size in each cell.
    #[default]
    PerUe,
    /// A cell's UEs share one buffer of the given size.
    Shared,
}

/// `core_queue`, `s1_queue`: a queue's discipline.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum QueueDiscipline {
    #[default]
    Droptail,
    /// RED with `red`'s parameters (marking ECN-capable packets with `red.ecn`).
    Red,
}

/// `radios`: how a cell's UEs share its radio.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Radios {
    /// One transmitter per cell: its scheduler shares `cell_bps` among the UEs it serves.
    #[default]
    Shared,
    /// One transmitter per UE in each cell, each at `cell_bps`: private radio links, as the
    /// wireless links of Cohen & Levin's network (no scheduler between UEs).
    Private,
}

/// `forwarding_path`: the way the source's data forwarding takes to the target.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ForwardingPath {
    /// Over the X2/Xn link between the two cells.
    X2,
    /// Through the gateway, where forwarded packets queue a second time on the S1 link to the
    /// target, together with its direct traffic (Pacifico et al., Fig. 1).
    Core,
}

/// `cell_positions_m`: the cells' positions, along the line or in the plane.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum CellPositions {
    /// `[x0, x1, ...]`: along the x axis, increasing.
    Line(Vec<f64>),
    /// `[[x0, y0], [x1, y1], ...]`: anywhere in the plane (decisions by measurement).
    Plane(Vec<[f64; 2]>),
}

impl CellPositions {
    pub fn len(&self) -> usize {
        match self {
            CellPositions::Line(xs) => xs.len(),
            CellPositions::Plane(ps) => ps.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `reorder_release`: when a reordering target releases the direct packets it holds.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ReorderRelease {
    /// When the GTP-U end marker has come through the source (TS 36.300 §10.1.2.2.1).
    #[default]
    EndMarker,
    /// When the old path is empty: once the path has switched, no packet for the UE is left
    /// on the old S1 link nor on the forwarding path (Cohen & Levin's forward-and-rearrange,
    /// as the `fcp` template's base station). The held packets then share the UE's buffer
    /// with its queue, as the base station's per-mobile buffer.
    PathEmpty,
}

/// `cell_bps`, `uplink_bps`, `s1_bps`: one rate for every cell, or a list of one per cell
/// (cells of different radio access technologies, as the inter-RAT contribution's LTE and
/// UMTS).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged, expecting = "expected a rate in bit/s, or a list with one rate per cell")]
pub enum PerCell {
    All(f64),
    Each(Vec<f64>),
}

impl PerCell {
    /// Cell `c`'s value.
    pub fn at(&self, c: usize) -> f64 {
        match self {
            PerCell::All(v) => *v,
            PerCell::Each(vs) => vs[c],
        }
    }
}

/// `gateway_buffer`: where the gateway keeps a UE's downlink before its S1 link.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GatewayBuffer {
    /// Nowhere: each packet is tunnelled to the UE's path cell as it arrives and waits in
    /// that cell's S1 queue, below the path switch.
    #[default]
    None,
    /// In a buffer per UE above the path switch and the bicasting point, released one
    /// packet at a time at the S1 rate of the UE's path cell (the inter-RAT contribution's
    /// anchor: with S1 at the radio rate "buffering takes place mainly above the eNB").
    PerUe,
}

/// `uplink_switch`: when a hard handover moves the UE's uplink from the source to the target.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum UplinkSwitch {
    /// At the HO command: the target holds what the UE sends until the UE has attached.
    #[default]
    Command,
    /// At the attach (`cho`: the access to the target it executes towards): until then the
    /// UE's uplink goes through the source, which passes it on; the interruption stops the
    /// downlink only (the inter-RAT contribution's timeline, Appendix A, stops the eNB's
    /// downlink at the HO and says nothing of the uplink). `daps` moves the uplink at the
    /// target access either way.
    Attach,
}

/// One entry of `[[cellular.handovers]]`: UE `ue` hands over to cell `target` at `at_s`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledHandover {
    pub at_s: f64,
    pub ue: u32,
    pub target: u32,
    /// Ping-pong: the UE hands over again every `every_s` after `at_s`, back to the cell it
    /// left each time (Cohen & Levin's handover every Δ).
    pub every_s: Option<f64>,
}

/// `[cellular]`: every key has a default.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellularSection {
    #[serde(default = "d_cells")]
    pub cells: u32,
    /// Distance between neighbouring cells along the line; cell i sits at i * spacing.
    #[serde(default = "d_cell_spacing_m")]
    pub cell_spacing_m: f64,
    /// An explicit list of cell positions (instead of `cells` at `cell_spacing_m`; `cells`
    /// must equal its length): along the line, increasing, or `[x, y]` pairs in the plane.
    pub cell_positions_m: Option<CellPositions>,
    #[serde(default)]
    pub scheduler: SchedulerName,
    /// Each cell's downlink radio capacity, shared by the UEs it serves: one rate for every
    /// cell, or a list of one per cell.
    #[serde(default = "d_cell_bps")]
    pub cell_bps: PerCell,
    /// `line` (default) or `grid` (`grid_columns` cells to a row).
    #[serde(default)]
    pub layout: Layout,
    pub grid_columns: Option<u32>,
    /// Every cell's capacity from a rate process (`[cellular.capacity]`, the keys of a graph
    /// link's `rate_model`), each cell with its own random stream.
    pub capacity: Option<RateSpec>,
    /// One Mahimahi trace per cell: its capacity (instead of `cell_bps` or `capacity`).
    pub capacity_traces: Option<Vec<String>>,
    /// Mahimahi traces of the UEs' radio rates: one per UE, or one for every UE.
    pub ue_rate_traces: Option<Vec<String>>,
    /// Proportional fair: the time constant of each UE's average served rate.
    #[serde(default = "d_pf_time_constant_s")]
    pub pf_time_constant_s: f64,
    #[serde(default)]
    pub buffer: BufferSharing,
    #[serde(default)]
    pub radios: Radios,
    /// Tunnels add their 36-byte outer IPv4/UDP/GTP-U header on S1 and X2 (false: an
    /// IP-routed network whose links carry the packets as they are, as the `fcp` template's).
    #[serde(default = "d_true")]
    pub gtp_header: bool,
    /// Downlink buffer limit in packets (default 200) or bytes, per UE or per cell (`buffer`).
    pub buffer_packets: Option<u32>,
    pub buffer_bytes: Option<u64>,
    #[serde(default = "d_radio_delay_s")]
    pub radio_delay_s: f64,
    /// Each UE's uplink radio rate (ACKs) to a cell: one for every cell, or one per cell.
    #[serde(default = "d_uplink_bps")]
    pub uplink_bps: PerCell,
    /// Each cell's S1 link (both directions): one rate for every cell, or one per cell.
    #[serde(default = "d_s1_bps")]
    pub s1_bps: PerCell,
    /// `none` (default) or `per-ue`: the gateway keeps each UE's downlink in a buffer above
    /// its path switch, released at the S1 rate of the UE's path cell.
    #[serde(default)]
    pub gateway_buffer: GatewayBuffer,
    /// A cell serves the packets the source forwarded to it before new packets from the
    /// gateway (the contribution's "partial reordering" at the 2G/3G node).
    #[serde(default)]
    pub forwarded_first: bool,
    /// Hard handovers: `command` (default) or `attach`, when the UE's uplink moves to the
    /// target.
    #[serde(default)]
    pub uplink_switch: UplinkSwitch,
    /// The UE's PDCP discards a copy of a packet it has received (TS 38.323 §5.2.2.1); false:
    /// the copy goes on to TCP, as in a UE whose source and target have PDCP entities of their
    /// own (an inter-RAT handover: nothing at the UE recognises the gateway's bicast copy).
    #[serde(default = "d_true")]
    pub pdcp_discard_duplicates: bool,
    #[serde(default = "d_s1_delay_s")]
    pub s1_delay_s: f64,
    #[serde(default = "d_queue_packets")]
    pub s1_queue_packets: u32,
    /// The queue of a cell's S1 link towards the gateway (ACKs, forwarding through the
    /// core); unset: `s1_queue_packets`.
    pub s1_uplink_queue_packets: Option<u32>,
    /// X2/Xn links between neighbouring cells (data forwarding).
    #[serde(default = "d_gbps")]
    pub x2_bps: f64,
    #[serde(default = "d_x2_delay_s")]
    pub x2_delay_s: f64,
    /// One-way latency of a handover's X2/Xn control messages (HO request, its ack); unset:
    /// `x2_delay_s`. 0 with `interruption_s = 0` and `path_switch_delay_s = 0`: a handover
    /// completes at its decision, as the `fcp` template's.
    pub x2_control_delay_s: Option<f64>,
    #[serde(default = "d_queue_packets")]
    pub x2_queue_packets: u32,
    /// The discipline of the gateway's S1 downlink queues (Pacifico et al.'s router queues,
    /// which see the tunnels' outer headers) and of the core router's queue to the gateway.
    #[serde(default)]
    pub s1_queue: QueueDiscipline,
    #[serde(default)]
    pub core_queue: QueueDiscipline,
    /// RED's parameters for the queues above that are `"red"`. With `ecn`, RED marks
    /// ECN-capable packets and the tunnel entries declare outer headers ECN-capable.
    pub red: Option<RedSpec>,
    /// A tunnel end copies CE from the outer header into an ECN-capable inner header (RFC
    /// 6040 §4.2); false: it drops the marked packet.
    #[serde(default = "d_true")]
    pub ecn_through_tunnel: bool,
    /// The core router's link to the gateway, and its queue.
    #[serde(default = "d_gbps")]
    pub core_bps: f64,
    #[serde(default = "d_core_delay_s")]
    pub core_delay_s: f64,
    #[serde(default = "d_queue_packets")]
    pub core_queue_packets: u32,
    /// Round-trip propagation delay between each server and the core router.
    #[serde(default = "d_server_rtt_s")]
    pub server_rtt_s: f64,
    #[serde(default = "d_gbps")]
    pub server_bps: f64,
    /// A server's own NIC queue: large enough not to drop by default.
    #[serde(default = "d_server_queue_packets")]
    pub server_queue_packets: u32,
    /// One server `srv0` for every UE's flows, whose one link to the core they all share (as
    /// the `fcp` template's sender); false: a server per UE.
    #[serde(default)]
    pub one_server: bool,
    /// Number of UEs, each with its own server (unless `one_server`).
    #[serde(default = "d_ues")]
    pub ues: u32,
    /// Each flow starts at a uniform random time in [0, start_window_s) (per seed).
    #[serde(default = "d_start_window_s")]
    pub start_window_s: f64,
    /// Bulk TCP downloads per UE (server -> UE), each with the scenario's `[tcp]`.
    #[serde(default = "d_flows_per_ue")]
    pub flows_per_ue: u32,
    /// UE u starts at ue_start_m + u * ue_spacing_m along the line and moves at speed_mps
    /// (negative: towards cell 0). It starts in the cell nearest to it.
    #[serde(default)]
    pub ue_start_m: f64,
    #[serde(default)]
    pub ue_spacing_m: f64,
    #[serde(default)]
    pub speed_mps: f64,
    /// `line` (default), `random-waypoint` or `trace`.
    #[serde(default)]
    pub movement: Movement,
    /// Random waypoint: the pause at each waypoint.
    #[serde(default)]
    pub pause_s: f64,
    /// `movement = "trace"`: a CSV file of `time_s,ue,cell` rows.
    pub movement_trace: Option<String>,
    /// Off the line (a grid, random waypoint): how often a UE measures its distances.
    #[serde(default = "d_measure_period_s")]
    pub measure_period_s: f64,
    /// Each UE's first cell, one entry per UE (instead of the cell nearest to its start).
    pub ue_cells: Option<Vec<u32>>,
    /// If set, UE speeds spread evenly from `speed_mps` (UE 0) to this (the last UE).
    pub speed_max_mps: Option<f64>,
    /// A3-like rule on distance: a neighbour closer than the serving cell by more than the
    /// hysteresis, for the time to trigger, starts a handover to it.
    #[serde(default = "d_hysteresis_m")]
    pub hysteresis_m: f64,
    #[serde(default = "d_time_to_trigger_s")]
    pub time_to_trigger_s: f64,
    /// Each UE's radio rate from a cell by its distance to it: rows `[distance_m, bps]`, the
    /// first at 0 m, distances increasing; a UE gets the rate of the last row not beyond its
    /// distance (empty: every UE at `cell_bps`).
    #[serde(default)]
    pub radio_rate_table: Vec<[f64; 2]>,
    /// How often the radio rates follow the UEs' movement.
    #[serde(default = "d_rate_update_s")]
    pub rate_update_s: f64,
    /// Explicit handovers, in addition to those movement triggers.
    #[serde(default)]
    pub handovers: Vec<ScheduledHandover>,
    #[serde(default)]
    pub scheme: SchemeName,
    /// Where forwarded packets go: `core` by default for `forward-via-core`, else `x2`.
    pub forwarding_path: Option<ForwardingPath>,
    /// Time the UE is served by no cell: 0.03 s for drop and forward, 0 for daps.
    pub interruption_s: Option<f64>,
    /// From the UE's attach (daps: target access) to the gateway switching its path.
    #[serde(default = "d_path_switch_delay_s")]
    pub path_switch_delay_s: f64,
    /// daps: from the HO command to the UE's successful access to the target.
    #[serde(default = "d_target_access_delay_s")]
    pub target_access_delay_s: f64,
    /// daps: from target access to the release of the source.
    #[serde(default = "d_source_release_delay_s")]
    pub source_release_delay_s: f64,
    /// The UE's PDCP t-Reordering (TS 38.323 §5.2.2.2).
    #[serde(default = "d_t_reordering_s")]
    pub t_reordering_s: f64,
    /// The UE's PDCP delivers each packet on arrival (`outOfOrderDelivery`, TS 38.331
    /// PDCP-Config; TS 38.323 §5.2.2.1) and still discards duplicates.
    #[serde(default)]
    pub pdcp_out_of_order_delivery: bool,
    /// The target holds direct packets from the gateway until the end marker has come
    /// through the source (or `reorder_timeout_s` after the path switch): default on for
    /// `rearrange`, off for the other forwarding schemes.
    pub target_reordering: Option<bool>,
    /// The gateway sends a GTP-U end marker on the old path at the path switch: unset, when
    /// the target reorders; `true`, at every path switch (as `lte_x2`'s S-GW, TS 36.300
    /// §10.1.2.2.1); `false`, never (a reordering target then waits for its timeout).
    pub end_marker: Option<bool>,
    #[serde(default = "d_reorder_timeout_s")]
    pub reorder_timeout_s: f64,
    /// When the reordering target releases what it holds: `end-marker` (default) or
    /// `path-empty` (Cohen & Levin: "until the old path is empty").
    #[serde(default)]
    pub reorder_release: ReorderRelease,
    /// `predicted`: how long before the HO command the path switch is requested.
    #[serde(default = "d_prediction_lead_s")]
    pub prediction_lead_s: f64,
    /// `bicast`: how long before the HO command the gateway starts copying to the target.
    #[serde(default = "d_bicast_lead_s")]
    pub bicast_lead_s: f64,
    /// `cho`: candidates prepared at most (the closest cells meeting the prepare condition).
    #[serde(default = "d_cho_candidates")]
    pub cho_candidates: u32,
    /// `cho`: a cell is prepared when it is closer than the serving one by more than this
    /// offset (negative: before the border).
    #[serde(default = "d_cho_prepare_offset_m")]
    pub cho_prepare_offset_m: f64,
    #[serde(default)]
    pub cho_forwarding: ChoForwarding,
    /// `cho`: the serving cell's radio link fails when a neighbour is closer than it by more
    /// than this offset, if the UE has not executed by then (unset: it never fails).
    pub rlf_offset_m: Option<f64>,
    /// `cho`: after a radio link failure, the time until the UE re-establishes in the best
    /// cell (T310 expiry, cell selection and re-establishment).
    #[serde(default = "d_rlf_interruption_s")]
    pub rlf_interruption_s: f64,
}

fn d_true() -> bool {
    true
}
fn d_cells() -> u32 {
    3
}
fn d_cell_spacing_m() -> f64 {
    1000.0
}
fn d_cell_bps() -> PerCell {
    PerCell::All(50e6)
}
fn d_radio_delay_s() -> f64 {
    0.005
}
fn d_uplink_bps() -> PerCell {
    PerCell::All(10e6)
}
fn d_s1_bps() -> PerCell {
    PerCell::All(1e9)
}
fn d_gbps() -> f64 {
    1e9
}
fn d_s1_delay_s() -> f64 {
    0.002
}
fn d_x2_delay_s() -> f64 {
    0.005
}
fn d_core_delay_s() -> f64 {
    0.001
}
fn d_queue_packets() -> u32 {
    1000
}
fn d_server_rtt_s() -> f64 {
    0.03
}
fn d_server_queue_packets() -> u32 {
    100_000
}
fn d_ues() -> u32 {
    1
}
fn d_start_window_s() -> f64 {
    1.0
}
fn d_flows_per_ue() -> u32 {
    1
}
fn d_pf_time_constant_s() -> f64 {
    0.1
}
fn d_measure_period_s() -> f64 {
    0.04
}
fn d_hysteresis_m() -> f64 {
    20.0
}
fn d_time_to_trigger_s() -> f64 {
    0.256
}
fn d_path_switch_delay_s() -> f64 {
    0.02
}
fn d_target_access_delay_s() -> f64 {
    0.03
}
fn d_source_release_delay_s() -> f64 {
    0.02
}
fn d_t_reordering_s() -> f64 {
    0.05
}
fn d_rate_update_s() -> f64 {
    0.1
}
fn d_reorder_timeout_s() -> f64 {
    0.1
}
fn d_prediction_lead_s() -> f64 {
    0.13
}
fn d_bicast_lead_s() -> f64 {
    0.01
}
fn d_cho_candidates() -> u32 {
    2
}
fn d_cho_prepare_offset_m() -> f64 {
    -40.0
}
fn d_rlf_interruption_s() -> f64 {
    0.2
}

/// Shortest measurement period off the line (an LTE TTI), and fastest random waypoint leg:
/// bounds on the events a run makes.
const MIN_MEASURE_PERIOD_S: f64 = 0.001;
const MAX_WALK_SPEED_MPS: f64 = 1000.0;

/// Default hard-handover interruption (drop, forward).
pub const HARD_INTERRUPTION_S: f64 = 0.03;
/// Most cells and UEs.
const MAX_CELLS: u32 = 100;
const MAX_UES: u32 = 1000;
const MAX_FLOWS_PER_UE: u32 = 100;
/// Most UE-cell pairs (each has two radio links) and flows.
const MAX_RADIO_PAIRS: u64 = 20_000;
const MAX_FLOWS: u64 = 10_000;

impl Default for CellularSection {
    fn default() -> Self {
        toml::from_str("").expect("all cellular keys have defaults")
    }
}

impl CellularSection {
    /// The interruption of this scheme: the key's value, else the scheme's default.
    pub fn interruption_s(&self) -> f64 {
        self.interruption_s.unwrap_or(match self.scheme {
            SchemeName::Daps => 0.0,
            _ => HARD_INTERRUPTION_S,
        })
    }

    /// Tunnel entries declare outer headers ECN-capable: RED marks with ECN.
    pub fn outer_ect(&self) -> bool {
        self.red.as_ref().is_some_and(|r| r.ecn)
    }

    /// The latency of a handover's X2/Xn control messages.
    pub fn x2_control_delay_s(&self) -> f64 {
        self.x2_control_delay_s.unwrap_or(self.x2_delay_s)
    }

    /// The forwarding path: the key's value, else `core` for `forward-via-core` only.
    pub fn forwarding_path(&self) -> ForwardingPath {
        self.forwarding_path.unwrap_or(match self.scheme {
            SchemeName::ForwardViaCore => ForwardingPath::Core,
            _ => ForwardingPath::X2,
        })
    }

    /// Whether the target holds direct packets until the end marker: the key's value, else
    /// on for `rearrange` only.
    pub fn target_reordering(&self) -> bool {
        self.target_reordering.unwrap_or(self.scheme == SchemeName::Rearrange)
    }

    pub fn validate(&self, c: &Check, duration_s: f64) -> Result<(), ScenarioError> {
        let k = |name: &str| format!("cellular.{name}");
        for (name, v, max) in [
            ("cells", self.cells, MAX_CELLS),
            ("ues", self.ues, MAX_UES),
            ("flows_per_ue", self.flows_per_ue, MAX_FLOWS_PER_UE),
        ] {
            c.at_least(&k(name), v as u64, 1)?;
            if v > max {
                return Err(c.err(&k(name), &format!("must be <= {max}, got {v}")));
            }
        }
        let pairs = self.cells as u64 * self.ues as u64;
        if pairs > MAX_RADIO_PAIRS {
            return Err(c.err(&k("ues"), &format!("cells x ues must be <= {MAX_RADIO_PAIRS}, got {pairs}")));
        }
        let flows = self.ues as u64 * self.flows_per_ue as u64;
        if flows > MAX_FLOWS {
            return Err(c.err(&k("flows_per_ue"), &format!("ues x flows_per_ue must be <= {MAX_FLOWS}, got {flows}")));
        }
        c.positive(&k("cell_spacing_m"), self.cell_spacing_m)?;
        if let Some(ps) = &self.cell_positions_m {
            if ps.len() != self.cells as usize {
                return Err(c.err(
                    &k("cell_positions_m"),
                    &format!("must list one position per cell ({} cells), got {}", self.cells, ps.len()),
                ));
            }
            match ps {
                CellPositions::Line(xs) => {
                    for (i, &x) in xs.iter().enumerate() {
                        c.finite(&format!("cellular.cell_positions_m[{i}]"), x)?;
                        if i > 0 && x <= xs[i - 1] {
                            return Err(c.err(&format!("cellular.cell_positions_m[{i}]"), "positions must increase"));
                        }
                    }
                }
                CellPositions::Plane(ps) => {
                    for (i, p) in ps.iter().enumerate() {
                        c.finite(&format!("cellular.cell_positions_m[{i}][0]"), p[0])?;
                        c.finite(&format!("cellular.cell_positions_m[{i}][1]"), p[1])?;
                        if let Some(j) = ps[..i].iter().position(|q| q == p) {
                            return Err(c.err(
                                &format!("cellular.cell_positions_m[{i}]"),
                                &format!("is cell {j}'s position too ({}, {})", p[0], p[1]),
                            ));
                        }
                    }
                }
            }
        }
        for (name, rates) in [("cell_bps", &self.cell_bps), ("uplink_bps", &self.uplink_bps), ("s1_bps", &self.s1_bps)]
        {
            self.validate_per_cell(c, name, rates)?;
        }
        for (name, v) in [("x2_bps", self.x2_bps), ("core_bps", self.core_bps), ("server_bps", self.server_bps)] {
            c.finite(&k(name), v)?;
            if v < 1.0 {
                return Err(c.err(&k(name), &format!("must be >= 1 bit/s, got {v}")));
            }
        }
        for (name, v) in [
            ("radio_delay_s", self.radio_delay_s),
            ("s1_delay_s", self.s1_delay_s),
            ("x2_delay_s", self.x2_delay_s),
            ("x2_control_delay_s", self.x2_control_delay_s()),
            ("core_delay_s", self.core_delay_s),
            ("server_rtt_s", self.server_rtt_s),
            ("hysteresis_m", self.hysteresis_m),
            ("time_to_trigger_s", self.time_to_trigger_s),
            ("path_switch_delay_s", self.path_switch_delay_s),
            ("target_access_delay_s", self.target_access_delay_s),
            ("source_release_delay_s", self.source_release_delay_s),
            ("interruption_s", self.interruption_s()),
            ("start_window_s", self.start_window_s),
            ("reorder_timeout_s", self.reorder_timeout_s),
            ("prediction_lead_s", self.prediction_lead_s),
            ("bicast_lead_s", self.bicast_lead_s),
            ("rlf_interruption_s", self.rlf_interruption_s),
        ] {
            c.non_negative(&k(name), v)?;
        }
        c.positive(&k("t_reordering_s"), self.t_reordering_s)?;
        c.positive(&k("rate_update_s"), self.rate_update_s)?;
        for (i, &[d, bps]) in self.radio_rate_table.iter().enumerate() {
            let key = format!("cellular.radio_rate_table[{i}]");
            c.finite(&key, d)?;
            c.finite(&key, bps)?;
            let first = i == 0;
            if (first && d != 0.0) || (!first && d <= self.radio_rate_table[i - 1][0]) {
                return Err(c.err(&key, "distances must start at 0 and increase"));
            }
            if bps < 1.0 {
                return Err(c.err(&key, &format!("the rate must be >= 1 bit/s, got {bps}")));
            }
        }
        c.finite(&k("cho_prepare_offset_m"), self.cho_prepare_offset_m)?;
        c.at_least(&k("cho_candidates"), self.cho_candidates as u64, 1)?;
        if let Some(r) = self.rlf_offset_m {
            c.finite(&k("rlf_offset_m"), r)?;
            if r <= self.cho_prepare_offset_m {
                return Err(c.err(
                    &k("rlf_offset_m"),
                    &format!("must be above cho_prepare_offset_m ({}), got {r}", self.cho_prepare_offset_m),
                ));
            }
        }
        let red_queue = self.s1_queue == QueueDiscipline::Red || self.core_queue == QueueDiscipline::Red;
        match &self.red {
            None if red_queue => {
                return Err(c.err(&k("red"), "required with a \"red\" queue (min_th_pkts, max_th_pkts, max_p)"))
            }
            Some(_) if !red_queue => {
                return Err(c.err(&k("red"), "needs s1_queue or core_queue = \"red\""));
            }
            Some(r) => {
                c.non_negative(&k("red.min_th_pkts"), r.min_th_pkts)?;
                if r.max_th_pkts.partial_cmp(&r.min_th_pkts) != Some(std::cmp::Ordering::Greater) {
                    return Err(c.err(&k("red.max_th_pkts"), "must be > min_th_pkts"));
                }
                c.probability(&k("red.max_p"), r.max_p)?;
                c.probability(&k("red.weight"), r.weight)?;
                if let Some(m) = r.ns2_mean_pktsize_bytes {
                    c.at_least(&k("red.ns2_mean_pktsize_bytes"), m as u64, 1)?;
                }
            }
            None => {}
        }
        if self.target_reordering == Some(true) && !self.scheme.forwards() {
            return Err(
                c.err(&k("target_reordering"), &format!("needs a scheme that forwards (not {})", self.scheme.name()))
            );
        }
        if self.reorder_release == ReorderRelease::PathEmpty && !self.target_reordering() {
            return Err(c.err(&k("reorder_release"), "\"path-empty\" needs target_reordering (on for rearrange)"));
        }
        if self.forwarding_path.is_some() && !(self.scheme.forwards() || self.scheme == SchemeName::Daps) {
            return Err(
                c.err(&k("forwarding_path"), &format!("needs a scheme that forwards (not {})", self.scheme.name()))
            );
        }
        if self.forwarding_path() == ForwardingPath::X2 && self.scheme == SchemeName::ForwardViaCore {
            return Err(c.err(&k("forwarding_path"), "forward-via-core forwards through the core (use forward for x2)"));
        }
        if let Some(cells) = &self.ue_cells {
            if cells.len() != self.ues as usize {
                return Err(c.err(
                    &k("ue_cells"),
                    &format!("must list one cell per UE ({} UEs), got {}", self.ues, cells.len()),
                ));
            }
            if let Some((i, &cell)) = cells.iter().enumerate().find(|(_, &cell)| cell >= self.cells) {
                return Err(c.err(
                    &format!("cellular.ue_cells[{i}]"),
                    &format!("must be a cell index below cells ({}), got {cell}", self.cells),
                ));
            }
        }
        if self.target_reordering == Some(true) && self.scheme == SchemeName::Cho {
            return Err(c.err(&k("target_reordering"), "is not available with cho"));
        }
        for (name, v) in [
            ("ue_start_m", self.ue_start_m),
            ("ue_spacing_m", self.ue_spacing_m),
            ("speed_mps", self.speed_mps),
            ("speed_max_mps", self.speed_max_mps.unwrap_or(0.0)),
        ] {
            c.finite(&k(name), v)?;
        }
        if self.speed_max_mps.is_some_and(|m| m * self.speed_mps < 0.0) {
            return Err(c.err(&k("speed_max_mps"), "must have the sign of speed_mps (one direction of travel)"));
        }
        for (name, v) in [
            ("s1_queue_packets", self.s1_queue_packets),
            ("x2_queue_packets", self.x2_queue_packets),
            ("core_queue_packets", self.core_queue_packets),
            ("s1_uplink_queue_packets", self.s1_uplink_queue_packets.unwrap_or(1)),
            ("server_queue_packets", self.server_queue_packets),
        ] {
            c.at_least(&k(name), v as u64, 1)?;
        }
        match (self.buffer_packets, self.buffer_bytes) {
            (Some(_), Some(_)) => {
                return Err(c.err(&k("buffer_bytes"), "give buffer_packets or buffer_bytes, not both"))
            }
            (Some(p), None) => c.at_least(&k("buffer_packets"), p as u64, 1)?,
            (None, Some(b)) => c.at_least(&k("buffer_bytes"), b, 1600)?,
            (None, None) => {}
        }
        self.validate_movement(c)?;
        self.validate_rates(c)?;
        if self.scheduler == SchedulerName::Pf {
            c.positive(&k("pf_time_constant_s"), self.pf_time_constant_s)?;
        }
        for (i, h) in self.handovers.iter().enumerate() {
            let hk = |name: &str| format!("cellular.handovers[{i}].{name}");
            c.non_negative(&hk("at_s"), h.at_s)?;
            if h.at_s >= duration_s {
                return Err(
                    c.err(&hk("at_s"), &format!("must be before the end of the run ({duration_s} s), got {}", h.at_s))
                );
            }
            if let Some(every) = h.every_s {
                c.finite(&hk("every_s"), every)?;
                let most = crate::mobility::MAX_HANDOVERS_PER_RUN;
                let min_s = (duration_s / most).max(1e-6);
                if every < min_s {
                    return Err(c.err(
                        &hk("every_s"),
                        &format!("must be >= {min_s:e} s (>= 1 us, at most {most:e} handovers), got {every}"),
                    ));
                }
            }
            if h.ue >= self.ues {
                return Err(c.err(&hk("ue"), &format!("must be a UE index below ues ({}), got {}", self.ues, h.ue)));
            }
            if h.target >= self.cells {
                return Err(c.err(
                    &hk("target"),
                    &format!("must be a cell index below cells ({}), got {}", self.cells, h.target),
                ));
            }
        }
        Ok(())
    }

    /// A rate for every cell, or a list of one per cell: each from 1 bit/s to a link's most.
    fn validate_per_cell(&self, c: &Check, name: &str, rates: &PerCell) -> Result<(), ScenarioError> {
        let one = |key: &str, v: f64| -> Result<(), ScenarioError> {
            c.finite(key, v)?;
            if v < 1.0 {
                return Err(c.err(key, &format!("must be >= 1 bit/s, got {v}")));
            }
            if v > MAX_LINK_RATE_BPS {
                return Err(c.err(key, &format!("must be <= {MAX_LINK_RATE_BPS:e} bit/s, got {v:e}")));
            }
            Ok(())
        };
        match rates {
            PerCell::All(v) => one(&format!("cellular.{name}"), *v),
            PerCell::Each(vs) if vs.len() != self.cells as usize => Err(c.err(
                &format!("cellular.{name}"),
                &format!("must list one rate per cell ({} cells), got {}", self.cells, vs.len()),
            )),
            PerCell::Each(vs) => vs.iter().enumerate().try_for_each(|(i, &v)| one(&format!("cellular.{name}[{i}]"), v)),
        }
    }

    /// The layout, the movement and its trace.
    fn validate_movement(&self, c: &Check) -> Result<(), ScenarioError> {
        let k = |name: &str| format!("cellular.{name}");
        if self.layout == Layout::Grid {
            if self.cell_positions_m.is_some() {
                return Err(c.err(
                    &k("cell_positions_m"),
                    "is for layout = \"line\" (a grid is set by cell_spacing_m and grid_columns)",
                ));
            }
            let cols = self.grid_columns();
            if cols == 0 || cols > self.cells {
                return Err(c.err(&k("grid_columns"), &format!("must be 1 to cells ({}), got {cols}", self.cells)));
            }
        } else if self.grid_columns.is_some() {
            return Err(c.err(&k("grid_columns"), "is for layout = \"grid\""));
        }
        c.finite(&k("measure_period_s"), self.measure_period_s)?;
        if self.measure_period_s < MIN_MEASURE_PERIOD_S {
            return Err(c.err(
                &k("measure_period_s"),
                &format!("must be >= {MIN_MEASURE_PERIOD_S} s (one TTI), got {}", self.measure_period_s),
            ));
        }
        c.non_negative(&k("pause_s"), self.pause_s)?;
        match self.movement {
            Movement::RandomWaypoint => {
                if self.speed_mps <= 0.0 {
                    return Err(c.err(
                        &k("speed_mps"),
                        &format!("random waypoint needs a speed > 0 (the lowest of the range), got {}", self.speed_mps),
                    ));
                }
                if let Some(max) = self.speed_max_mps.filter(|&m| m < self.speed_mps) {
                    return Err(
                        c.err(&k("speed_max_mps"), &format!("must be >= speed_mps ({}), got {max}", self.speed_mps))
                    );
                }
                for (name, v) in [("speed_mps", self.speed_mps), ("speed_max_mps", self.speed_max_mps.unwrap_or(0.0))] {
                    if v > MAX_WALK_SPEED_MPS {
                        return Err(c.err(
                            &k(name),
                            &format!("random waypoint speeds must be <= {MAX_WALK_SPEED_MPS} m/s, got {v}"),
                        ));
                    }
                }
            }
            Movement::Trace => {
                if self.speed_mps != 0.0 {
                    return Err(c.err(
                        &k("speed_mps"),
                        "movement = \"trace\" takes the cells from the trace: leave speed_mps at 0",
                    ));
                }
                if !self.radio_rate_table.is_empty() {
                    return Err(
                        c.err(&k("radio_rate_table"), "needs UE positions, which movement = \"trace\" does not have")
                    );
                }
                self.movement_rows(c)?;
            }
            Movement::Line => {}
        }
        if self.movement != Movement::Trace && self.movement_trace.is_some() {
            return Err(c.err(&k("movement_trace"), "is for movement = \"trace\""));
        }
        Ok(())
    }

    /// The rows of `movement_trace` (`movement = "trace"`), checked against the cells and UEs.
    pub fn movement_rows(&self, c: &Check) -> Result<Vec<super::movement::TraceRow>, ScenarioError> {
        let key = "cellular.movement_trace";
        let Some(path) = &self.movement_trace else {
            return Err(c.err(key, "required with movement = \"trace\" (a CSV file of time_s,ue,cell rows)"));
        };
        let text = std::fs::read_to_string(path).map_err(|e| c.err(key, &format!("cannot read \"{path}\": {e}")))?;
        super::movement::parse_trace(&text, self.ues, self.cells).map_err(|e| c.err(key, &format!("\"{path}\" {e}")))
    }

    /// Cell capacities and UE rates from rate processes and traces.
    fn validate_rates(&self, c: &Check) -> Result<(), ScenarioError> {
        let k = |name: &str| format!("cellular.{name}");
        if self.capacity.is_some() && self.capacity_traces.is_some() {
            return Err(c.err(&k("capacity_traces"), "give capacity or capacity_traces, not both"));
        }
        if self.radios == Radios::Private && self.variable_rates() {
            // A private radio sends at its link's fixed rate; variable rates are timed by the
            // cell's one shared radio (`Radio::transmit_var`).
            return Err(
                c.err(&k("radios"), "\"private\" cannot be combined with capacity, capacity_traces or ue_rate_traces")
            );
        }
        if self.capacity.as_ref().is_some_and(|c| c.rate_change != RateChange::Reschedule) {
            return Err(c.err(&k("capacity.rate_change"), "does not apply: a change acts on the packet in service"));
        }
        if let Some(t) = &self.capacity_traces {
            if t.len() != self.cells as usize {
                return Err(c.err(
                    &k("capacity_traces"),
                    &format!("must list one trace per cell ({} cells), got {}", self.cells, t.len()),
                ));
            }
        }
        if let Some(t) = &self.ue_rate_traces {
            if t.len() != 1 && t.len() != self.ues as usize {
                return Err(c.err(
                    &k("ue_rate_traces"),
                    &format!("must list one trace, or one per UE ({} UEs), got {}", self.ues, t.len()),
                ));
            }
        }
        self.capacity_models(c)?;
        self.ue_rate_models(c)?;
        Ok(())
    }

    /// Each cell's capacity model (None: fixed at `cell_bps`).
    pub fn capacity_models(&self, c: &Check) -> Result<Vec<Option<RateModel>>, ScenarioError> {
        let n = self.cells as usize;
        if let Some(spec) = &self.capacity {
            let m = spec.params().to_model(spec.model, c, "cellular.capacity", "cellular.capacity.model")?;
            return Ok(vec![Some(m); n]);
        }
        match &self.capacity_traces {
            Some(files) => files
                .iter()
                .enumerate()
                .map(|(i, f)| trace_model(c, &format!("cellular.capacity_traces[{i}]"), f).map(Some))
                .collect(),
            None => Ok(vec![None; n]),
        }
    }

    /// Each UE's radio rate model from its trace (None: no trace).
    pub fn ue_rate_models(&self, c: &Check) -> Result<Vec<Option<RateModel>>, ScenarioError> {
        let n = self.ues as usize;
        match &self.ue_rate_traces {
            Some(files) => {
                let models: Vec<RateModel> = (files.iter().enumerate())
                    .map(|(i, f)| trace_model(c, &format!("cellular.ue_rate_traces[{i}]"), f))
                    .collect::<Result<_, _>>()?;
                Ok((0..n).map(|u| Some(models[u.min(models.len() - 1)].clone())).collect())
            }
            None => Ok(vec![None; n]),
        }
    }

    /// Some radio rate changes with time (a capacity process or trace, UE rate traces).
    pub fn variable_rates(&self) -> bool {
        self.capacity.is_some() || self.capacity_traces.is_some() || self.ue_rate_traces.is_some()
    }

    /// Cells and UEs off a line: a grid, cells listed in the plane, or random waypoint
    /// (decisions by measurement).
    pub fn two_d(&self) -> bool {
        self.cells_in_plane() || self.movement == Movement::RandomWaypoint
    }

    /// The cells stand off the x axis: a grid, or `[x, y]` positions.
    pub fn cells_in_plane(&self) -> bool {
        self.layout == Layout::Grid || matches!(self.cell_positions_m, Some(CellPositions::Plane(_)))
    }

    /// Cells to a row of the grid: `grid_columns`, else the ceiling of the square root.
    pub fn grid_columns(&self) -> u32 {
        self.grid_columns.unwrap_or_else(|| (self.cells as f64).sqrt().ceil() as u32)
    }

    /// Position of cell `c` in the plane, in metres.
    pub fn cell_xy_m(&self, c: usize) -> (f64, f64) {
        match self.layout {
            Layout::Line => match &self.cell_positions_m {
                Some(CellPositions::Plane(ps)) => (ps[c][0], ps[c][1]),
                _ => (self.cell_x_m(c), 0.0),
            },
            Layout::Grid => {
                let cols = self.grid_columns().max(1) as usize;
                ((c % cols) as f64 * self.cell_spacing_m, (c / cols) as f64 * self.cell_spacing_m)
            }
        }
    }

    /// The radio rate of a UE `d_m` from cell `c` (the table's step, else its `cell_bps`).
    pub fn radio_bps_at(&self, c: usize, d_m: f64) -> f64 {
        radio_bps_at(&self.radio_rate_table, self.cell_bps.at(c), d_m)
    }

    /// Position of cell `c` along the line, in metres.
    pub fn cell_x_m(&self, c: usize) -> f64 {
        match &self.cell_positions_m {
            Some(CellPositions::Line(xs)) => xs[c],
            Some(CellPositions::Plane(ps)) => ps[c][0],
            None => c as f64 * self.cell_spacing_m,
        }
    }

    /// UE `u`'s speed along the line.
    pub fn ue_speed_mps(&self, u: usize) -> f64 {
        match self.speed_max_mps {
            Some(max) if self.ues > 1 => self.speed_mps + (max - self.speed_mps) * u as f64 / (self.ues - 1) as f64,
            _ => self.speed_mps,
        }
    }

    /// Start position of UE `u`, in metres.
    pub fn ue_x0_m(&self, u: usize) -> f64 {
        self.ue_start_m + u as f64 * self.ue_spacing_m
    }

    /// UE `u`'s first cell: its `ue_cells` entry, else the cell nearest to its start (on the
    /// x axis).
    pub fn ue_first_cell(&self, u: usize) -> usize {
        match &self.ue_cells {
            Some(cells) => cells[u] as usize,
            None if self.cells_in_plane() => self.nearest_cell_xy((self.ue_x0_m(u), 0.0)),
            None => self.nearest_cell(self.ue_x0_m(u)),
        }
    }

    /// The cell nearest to point `p` of the plane (the lower index on a tie).
    pub fn nearest_cell_xy(&self, p: (f64, f64)) -> usize {
        let d = |c: usize| {
            let (x, y) = self.cell_xy_m(c);
            (p.0 - x).hypot(p.1 - y)
        };
        (0..self.cells as usize).min_by(|&a, &b| d(a).total_cmp(&d(b))).unwrap_or(0)
    }

    /// The cell nearest to position `x` (the lower index on a tie).
    pub fn nearest_cell(&self, x: f64) -> usize {
        if self.cell_positions_m.is_some() {
            let d = |c: usize| (x - self.cell_x_m(c)).abs();
            return (0..self.cells as usize).min_by(|&a, &b| d(a).total_cmp(&d(b))).unwrap_or(0);
        }
        let i = (x / self.cell_spacing_m).round();
        i.clamp(0.0, (self.cells - 1) as f64) as usize
    }
}

/// A Mahimahi trace file as a rate model; errors name `key`, the file and the line.
fn trace_model(c: &Check, key: &str, path: &str) -> Result<RateModel, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| c.err(key, &format!("cannot read \"{path}\": {e}")))?;
    RateModel::from_mahimahi(&text).map_err(|e| c.err(key, &format!("\"{path}\": {e}")))
}

/// The rate of the last row of `table` not beyond `d_m` (`fixed_bps` for an empty table).
pub fn radio_bps_at(table: &[[f64; 2]], fixed_bps: f64, d_m: f64) -> f64 {
    table.iter().take_while(|r| r[0] <= d_m).last().map_or(fixed_bps, |r| r[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_table_steps_down_with_distance() {
        let table = [[0.0, 50e6], [100.0, 20e6], [300.0, 5e6]];
        let rates = [0.0, 99.9, 100.0, 299.0, 1e4].map(|d| radio_bps_at(&table, 1.0, d));
        assert_eq!(rates, [50e6, 50e6, 20e6, 20e6, 5e6]);
        assert_eq!(radio_bps_at(&[], 7.0, 123.0), 7.0);
    }

    #[test]
    fn daps_defaults_to_no_interruption_and_hard_schemes_to_30_ms() {
        let mut s = CellularSection::default();
        assert_eq!(s.interruption_s(), HARD_INTERRUPTION_S);
        s.scheme = SchemeName::Daps;
        assert_eq!(s.interruption_s(), 0.0);
        s.interruption_s = Some(0.01);
        assert_eq!(s.interruption_s(), 0.01);
    }

    #[test]
    fn a_ue_starts_in_the_nearest_cell_of_the_line() {
        let mut s = CellularSection::default();
        assert_eq!([-50.0, 499.0, 501.0, 5000.0].map(|x| s.nearest_cell(x)), [0, 0, 1, 2]);
        s.cell_positions_m = Some(CellPositions::Line(vec![0.0, 100.0, 1000.0]));
        assert_eq!([49.0, 51.0, 549.0, 551.0].map(|x| s.nearest_cell(x)), [0, 1, 1, 2]);
        assert_eq!(s.cell_x_m(2), 1000.0);
    }
}

//! The `[lte_x2]` scenario section: the system of Pacifico et al. (Fig. 1, Table I).

use serde::Deserialize;

use crate::spec::{Check, ScenarioError};

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
    /// RED in ns-2.35's byte mode with this `mean_pktsize_` (absent: packets).
    #[serde(default)]
    pub red_ns2_mean_pktsize_bytes: Option<u32>,
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
        if let Some(m) = self.red_ns2_mean_pktsize_bytes {
            c.at_least(&k("red_ns2_mean_pktsize_bytes"), m as u64, 1)?;
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

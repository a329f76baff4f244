//! The `[hsdpa]` scenario section: the network of Fig. 2 of Ren et al. 2008 and the window
//! adaptation proxy of Figs. 5-6, with the choices the paper leaves open as keys.

use serde::Deserialize;

use crate::spec::rate::{RateChange, RateModelName, RateParams};
use crate::spec::{Check, ScenarioError};

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WindowName {
    Quota,
    Inflight,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HsdpaSection {
    /// Downlink rate model: square | random | arma | trace.
    #[serde(default = "d_bandwidth")]
    pub bandwidth: RateModelName,
    /// Square: time at each level; random: T; arma: step. Default per model (10 s, 0.2 s, 10 ms).
    pub period_s: Option<f64>,
    pub high_bps: Option<f64>,
    pub low_bps: Option<f64>,
    pub min_bps: Option<f64>,
    pub max_bps: Option<f64>,
    pub levels_bps: Option<Vec<f64>>,
    pub mean_bps: Option<f64>,
    pub std_bps: Option<f64>,
    /// ARMA: the rate is clamped to [floor_bps, ceiling_bps] (default 0 and 1e12).
    pub floor_bps: Option<f64>,
    pub ceiling_bps: Option<f64>,
    pub alpha: Option<Vec<f64>>,
    pub beta: Option<Vec<f64>>,
    pub trace_file: Option<String>,
    /// What a rate change does to the packet in service: reschedule | next_packet.
    #[serde(default)]
    pub rate_change: RateChange,
    /// Insert the window adaptation proxy.
    #[serde(default)]
    pub proxy: bool,
    /// The Node-B's per-flow queue, packets.
    #[serde(default = "d_buffer")]
    pub buffer_packets: u32,
    #[serde(default = "d_wired_bps")]
    pub wired_bps: f64,
    #[serde(default = "d_wired_delay")]
    pub wired_delay_s: f64,
    /// Link between the gateway (proxy) and the RNC/Node-B.
    #[serde(default = "d_ran_bps")]
    pub ran_bps: f64,
    #[serde(default = "d_ran_delay")]
    pub ran_delay_s: f64,
    /// One-way delay of the radio downlink and of the uplink.
    #[serde(default = "d_radio_delay")]
    pub radio_delay_s: f64,
    #[serde(default = "d_uplink_bps")]
    pub uplink_bps: f64,
    /// Size of the transfer; absent: a bulk (infinite) source.
    pub bytes: Option<u64>,
    /// Proxy: update interval tau, reference queues q0 (Node-B) and q20 (proxy), packets.
    #[serde(default = "d_tau")]
    pub tau_s: f64,
    #[serde(default = "d_q0")]
    pub q0_pkts: f64,
    #[serde(default = "d_q20")]
    pub q20_pkts: f64,
    /// How w(n) limits the proxy's sender: a per-step quota (eq. 1) or a cap on outstanding data.
    #[serde(default = "d_window")]
    pub window: WindowName,
    #[serde(default = "d_min_adv")]
    pub min_adv_window_pkts: f64,
    /// Not in the paper: count packets on their way to the Node-B in q_hat (Smith predictor).
    #[serde(default)]
    pub compensate_in_flight: bool,
    /// Signalling path Node-B -> proxy (eqs. 3-4). b(n) reported: the rate at the sampling
    /// instant ("instant") or the mean over the last tau ("mean"). Delay default: ran_delay_s.
    #[serde(default = "d_fb_bandwidth")]
    pub feedback_bandwidth: BandwidthName,
    pub feedback_delay_s: Option<f64>,
    #[serde(default)]
    pub feedback_loss: f64,
    #[serde(default)]
    pub feedback_bw_noise_pkts_per_s: f64,
    #[serde(default)]
    pub feedback_queue_noise_pkts: f64,
    #[serde(default = "d_fb_timeout")]
    pub feedback_timeout_s: f64,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BandwidthName {
    Instant,
    Mean,
}

fn d_fb_bandwidth() -> BandwidthName {
    BandwidthName::Instant
}

fn d_bandwidth() -> RateModelName {
    RateModelName::Square
}
fn d_buffer() -> u32 {
    20
}
fn d_wired_bps() -> f64 {
    10e6
}
fn d_wired_delay() -> f64 {
    0.02
}
fn d_ran_bps() -> f64 {
    100e6
}
fn d_ran_delay() -> f64 {
    0.002
}
fn d_radio_delay() -> f64 {
    0.01
}
fn d_uplink_bps() -> f64 {
    96e3
}
fn d_tau() -> f64 {
    0.01
}
fn d_q0() -> f64 {
    15.0
}
fn d_q20() -> f64 {
    50.0
}
fn d_window() -> WindowName {
    WindowName::Quota
}
fn d_min_adv() -> f64 {
    1.0
}
fn d_fb_timeout() -> f64 {
    0.2
}

impl Default for HsdpaSection {
    fn default() -> Self {
        toml::from_str("").expect("all hsdpa keys have defaults")
    }
}

impl HsdpaSection {
    pub fn rate_params(&self) -> RateParams {
        RateParams {
            period_s: self.period_s,
            high_bps: self.high_bps,
            low_bps: self.low_bps,
            min_bps: self.min_bps,
            max_bps: self.max_bps,
            levels_bps: self.levels_bps.clone(),
            mean_bps: self.mean_bps,
            std_bps: self.std_bps,
            floor_bps: self.floor_bps,
            ceiling_bps: self.ceiling_bps,
            alpha: self.alpha.clone(),
            beta: self.beta.clone(),
            trace_file: self.trace_file.clone(),
        }
    }

    pub fn validate(&self, c: &Check) -> Result<(), ScenarioError> {
        self.rate_params().to_model(self.bandwidth, c, "hsdpa", "hsdpa.bandwidth")?;
        c.at_least("hsdpa.buffer_packets", self.buffer_packets as u64, 1)?;
        for (k, v) in [
            ("hsdpa.wired_bps", self.wired_bps),
            ("hsdpa.ran_bps", self.ran_bps),
            ("hsdpa.uplink_bps", self.uplink_bps),
        ] {
            c.positive(k, v)?;
            if v < 1.0 {
                return Err(c.err(k, &format!("must be >= 1 bit/s, got {v}")));
            }
        }
        for (k, v) in [
            ("hsdpa.wired_delay_s", self.wired_delay_s),
            ("hsdpa.ran_delay_s", self.ran_delay_s),
            ("hsdpa.radio_delay_s", self.radio_delay_s),
        ] {
            c.non_negative(k, v)?;
        }
        if self.bytes == Some(0) {
            return Err(c.err("hsdpa.bytes", "must be > 0 (omit it for a bulk transfer)"));
        }
        c.positive("hsdpa.tau_s", self.tau_s)?;
        if self.tau_s < 1e-6 {
            return Err(c.err("hsdpa.tau_s", &format!("must be >= 1e-6 s, got {}", self.tau_s)));
        }
        c.non_negative("hsdpa.q0_pkts", self.q0_pkts)?;
        c.non_negative("hsdpa.q20_pkts", self.q20_pkts)?;
        c.positive("hsdpa.min_adv_window_pkts", self.min_adv_window_pkts)?;
        if let Some(d) = self.feedback_delay_s {
            c.non_negative("hsdpa.feedback_delay_s", d)?;
        }
        c.probability("hsdpa.feedback_loss", self.feedback_loss)?;
        c.non_negative("hsdpa.feedback_bw_noise_pkts_per_s", self.feedback_bw_noise_pkts_per_s)?;
        c.non_negative("hsdpa.feedback_queue_noise_pkts", self.feedback_queue_noise_pkts)?;
        c.positive("hsdpa.feedback_timeout_s", self.feedback_timeout_s)?;
        Ok(())
    }
}

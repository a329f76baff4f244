//! The HSDPA template: the network of Fig. 2 of Ren et al. 2008, with or without the window
//! adaptation proxy of Figs. 5-6.
//!
//! ```text
//! server --wired (10 Mb/s, wired_delay_s)-- gw --ran (ran_bps, ran_delay_s)-- rnc/Node-B
//! rnc --downlink (varying rate, radio_delay_s, buffer_packets)--> ue
//! ue  --uplink (96 kb/s, radio_delay_s)--> rnc
//! ```
//!
//! Without the proxy `gw` is a router and one TCP flow `tcp` runs server -> ue. With the proxy
//! `gw` is the proxy host: flow `server-proxy` ends there, flow `proxy-ue` carries the same
//! bytes on to the UE, and the Node-B reports the downlink's rate and queue to the proxy.
//! Choices the paper leaves open are keys with documented defaults (see
//! docs/reproductions/hsdpa-proxy.md): the wired delay 20 ms, the RNC-side link 100 Mb/s 2 ms,
//! the radio one-way delay 10 ms each way, 1000-packet queues elsewhere.

use serde::Deserialize;

use super::{link, node, Graph};
use crate::app::App;
use crate::cell::proxy::{BandwidthReport, FeedbackConfig, Proxy, ProxyConfig, WindowSemantics};
use crate::cell::CellEvent;
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::s_to_ns;
use crate::net::{FlowId, LinkId, NodeKind};
use crate::scenario::error::ScenarioError;
use crate::scenario::rate::{RateChange, RateModelName, RateParams, RateSpec};
use crate::scenario::schema::{AppKind, Check, FlowSpec, NodeKindName};
use crate::tcp::sender::WindowControl;
use crate::world::{DropRules, Event, Flow, World};

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

pub const DOWNLINK: &str = "downlink";

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

fn flow(name: &str, src: &str, dst: &str, h: &HsdpaSection) -> FlowSpec {
    FlowSpec {
        name: Some(name.into()),
        src: src.into(),
        dst: dst.into(),
        app: if h.bytes.is_some() { AppKind::File } else { AppKind::Bulk },
        bytes: h.bytes,
        rate_bps: None,
        start_s: 0.0,
        tcp: None,
        drop_segments: Vec::new(),
        drop_retransmissions: Vec::new(),
    }
}

pub fn expand(h: &HsdpaSection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node("server".into(), NodeKindName::Host));
    g.nodes.push(node("gw".into(), if h.proxy { NodeKindName::Host } else { NodeKindName::Router }));
    g.nodes.push(node("rnc".into(), NodeKindName::Router));
    g.nodes.push(node("ue".into(), NodeKindName::Host));
    let mut wired = link("server", "gw", h.wired_bps, h.wired_delay_s, 1000);
    wired.name = Some("wired".into());
    let mut ran = link("gw", "rnc", h.ran_bps, h.ran_delay_s, 1000);
    ran.name = Some("ran".into());
    let mut down = link("rnc", "ue", 0.0, h.radio_delay_s, h.buffer_packets);
    down.name = Some(DOWNLINK.into());
    down.bidirectional = false;
    down.rate_model = Some(RateSpec::new(h.bandwidth, h.rate_params(), h.rate_change));
    let mut up = link("ue", "rnc", h.uplink_bps, h.radio_delay_s, 1000);
    up.name = Some("uplink".into());
    up.bidirectional = false;
    g.links.extend([wired, ran, down, up]);
    if h.proxy {
        g.flows.push(flow("server-proxy", "server", "gw", h));
        g.flows.push(flow("proxy-ue", "gw", "ue", h));
    } else {
        g.flows.push(flow("tcp", "server", "ue", h));
    }
    g.traced_queues.push(DOWNLINK.into());
    g
}

/// Adds the proxy (split connection, Node-B feedback) and the end-of-run radio report.
pub fn install(h: &HsdpaSection, world: &mut World, seed: u64) -> Result<(), ScenarioError> {
    let downlink = world.links.iter().position(|l| l.name == DOWNLINK).expect("template has a downlink") as LinkId;
    let end = world.end_ns;
    let ue_flow = (world.flows.len() - 1) as FlowId;
    if h.proxy {
        debug_assert_eq!(world.nodes[world.flows[0].dst as usize].kind, NodeKind::Host);
        let (up, down) = (0usize, 1usize);
        // The downstream sender's data is what the proxy receives in order.
        let old = &world.flows[down];
        let cfg = old.sender.cfg.clone();
        let mss = cfg.mss_bytes as f64;
        let pkt_bytes = cfg.mss_bytes + cfg.header_bytes;
        world.flows[down] =
            Flow::new(old.name.clone(), old.src, old.dst, App::Relay, old.start_ns, cfg, DropRules::default());
        world.flows[up].relay_to = Some(down as FlowId);
        let pcfg = ProxyConfig {
            tau_ns: s_to_ns(h.tau_s),
            q0_pkts: h.q0_pkts,
            q20_pkts: h.q20_pkts,
            semantics: match h.window {
                WindowName::Quota => WindowSemantics::Quota,
                WindowName::Inflight => WindowSemantics::InFlight,
            },
            min_adv_window_pkts: h.min_adv_window_pkts,
            compensate_in_flight: h.compensate_in_flight,
            feedback: FeedbackConfig {
                bandwidth: match h.feedback_bandwidth {
                    BandwidthName::Instant => BandwidthReport::Instant,
                    BandwidthName::Mean => BandwidthReport::Mean,
                },
                delay_ns: s_to_ns(h.feedback_delay_s.unwrap_or(h.ran_delay_s)),
                loss: h.feedback_loss,
                bw_noise_pkts_per_s: h.feedback_bw_noise_pkts_per_s,
                queue_noise_pkts: h.feedback_queue_noise_pkts,
                timeout_ns: s_to_ns(h.feedback_timeout_s),
            },
        };
        // Until the first report: q0 packets (fill the Node-B queue to its reference), and
        // aw(0) = w(0) + q20 towards the server.
        let w0 = (h.q0_pkts * mss).round() as u64;
        let mut out = Vec::new();
        world.flows[down].sender.set_window_control(0, WindowControl::Quota { bytes: w0, left: w0 }, &mut out);
        debug_assert!(out.is_empty(), "not connected yet");
        let proxy =
            Proxy::new(pcfg, up as FlowId, down as FlowId, downlink, pkt_bytes, stream_rng(seed, StreamKind::Cell, 0));
        world.flows[up].receiver.rwnd_bytes = (proxy.adv_window_pkts * mss).round().max(mss) as u64;
        world.proxies.push(proxy);
        let tau = s_to_ns(h.tau_s);
        if tau <= end {
            world.events.schedule(tau, Event::Cell(CellEvent::ProxySample(0)));
        }
    }
    world.events.schedule(end, Event::Cell(CellEvent::HsdpaSummary { downlink, server_flow: 0, ue_flow }));
    Ok(())
}

//! The scenario schema. Unknown keys are rejected everywhere (`deny_unknown_fields`).
//! Rates are in bit/s, times in seconds, sizes in bytes unless a name says otherwise.

use serde::Deserialize;

use super::error::ScenarioError;
use crate::engine::time::s_to_ns;
use crate::tcp::{CaGrowth, NewRenoReentry, NewRenoTimer, Profile, ProfileKeys, Recovery, RtoSsthresh, TcpConfig};

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Topology {
    /// Explicit `nodes`, `links` and `flows`.
    Graph,
    Dumbbell,
    /// Cohen & Levin's Fig. 1: sender, FCP, two base stations, mobiles (`[fcp]`).
    Fcp,
    /// LTE X2 handover with forwarding through the core router (`templates/lte_x2.rs`).
    #[serde(rename = "lte-x2")]
    LteX2,
    /// Fig. 2 of Ren et al. 2008, optionally with the window adaptation proxy (`[hsdpa]`).
    Hsdpa,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(default = "default_topology")]
    pub topology: Topology,
    pub duration_s: f64,
    pub seed: Option<u64>,
    #[serde(default)]
    pub tcp: TcpSection,
    #[serde(default)]
    pub trace: TraceSection,
    pub dumbbell: Option<DumbbellSection>,
    pub fcp: Option<super::templates::fcp::FcpSection>,
    pub lte_x2: Option<super::templates::lte_x2::LteX2Section>,
    pub hsdpa: Option<super::templates::hsdpa::HsdpaSection>,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
}

fn default_topology() -> Topology {
    Topology::Graph
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryName {
    Reno,
    NewReno,
    Sack,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NewRenoTimerName {
    Impatient,
    SlowButSteady,
}

/// TCP parameters. In `[tcp]` they are defaults for every flow; a flow's `tcp` table
/// overrides them for that flow. Missing keys keep the profile's values (`profile`, default
/// "rfc"; `tcp/profile.rs`); a key wins over any profile, and a flow's `profile` keeps the
/// keys set in `[tcp]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSection {
    pub profile: Option<Profile>,
    pub ca_growth: Option<CaGrowth>,
    pub rto_ssthresh: Option<RtoSsthresh>,
    pub newreno_reentry: Option<NewRenoReentry>,
    pub rescue_retransmission: Option<bool>,
    pub quickack_segments: Option<u32>,
    pub recovery: Option<RecoveryName>,
    pub newreno_timer: Option<NewRenoTimerName>,
    pub mss_bytes: Option<u32>,
    pub header_bytes: Option<u32>,
    pub initial_window_segments: Option<u32>,
    pub initial_ssthresh_bytes: Option<u64>,
    pub dupack_threshold: Option<u32>,
    pub limited_transmit: Option<bool>,
    pub min_rto_s: Option<f64>,
    pub initial_rto_s: Option<f64>,
    pub max_rto_s: Option<f64>,
    pub clock_granularity_s: Option<f64>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_segments: Option<u32>,
    pub delayed_ack_timeout_s: Option<f64>,
    pub rwnd_bytes: Option<u64>,
    pub ecn: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSection {
    /// Width of the goodput-trace bins.
    pub interval_s: Option<f64>,
    /// Link queues whose length is traced, by link name. Default: the template's choice.
    pub queues: Option<Vec<String>>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AppKind {
    #[default]
    Bulk,
    File,
    Rate,
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
    /// Flow i starts at i * start_stagger_s.
    #[serde(default)]
    pub start_stagger_s: f64,
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

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeKindName {
    Host,
    Router,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKindName,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum QueueKind {
    #[default]
    DropTail,
    Red,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    pub min_th_pkts: f64,
    pub max_th_pkts: f64,
    pub max_p: f64,
    #[serde(default = "d_red_weight")]
    pub weight: f64,
    /// Mark ECN-capable packets instead of dropping them.
    #[serde(default)]
    pub ecn: bool,
}

fn d_red_weight() -> f64 {
    0.002
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    pub p_good_to_bad: f64,
    pub p_bad_to_good: f64,
    #[serde(default)]
    pub loss_good: f64,
    #[serde(default = "d_one")]
    pub loss_bad: f64,
}

fn d_one() -> f64 {
    1.0
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to "from->to" (and "to->from" for the reverse direction).
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// Fixed rate. With `rate_model` it is only used by the reverse direction (and may be
    /// omitted when `bidirectional = false`).
    #[serde(default)]
    pub rate_bps: f64,
    pub delay_s: f64,
    #[serde(default)]
    pub queue: QueueKind,
    /// Queue limit in packets (default 100 when neither limit is given).
    pub queue_packets: Option<u32>,
    pub queue_bytes: Option<u64>,
    pub red: Option<RedSpec>,
    /// Bernoulli loss probability.
    pub loss: Option<f64>,
    pub gilbert_elliott: Option<GilbertElliottSpec>,
    /// Probability that a packet is delivered twice (robustness testing).
    #[serde(default)]
    pub duplicate: f64,
    /// Probability that a packet is delayed by `reorder_delay_s` extra (reordering).
    #[serde(default)]
    pub reorder: f64,
    #[serde(default = "d_reorder_delay_s")]
    pub reorder_delay_s: f64,
    /// Also create the reverse direction with the same parameters.
    #[serde(default = "d_true")]
    pub bidirectional: bool,
    /// Trace this link's queue length.
    #[serde(default)]
    pub trace: bool,
    /// Variable rate of the forward direction (`from` -> `to`).
    pub rate_model: Option<super::rate::RateSpec>,
}

fn d_reorder_delay_s() -> f64 {
    0.005
}

fn d_true() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub app: AppKind,
    pub bytes: Option<u64>,
    pub rate_bps: Option<f64>,
    #[serde(default)]
    pub start_s: f64,
    pub tcp: Option<TcpSection>,
    /// Drop the first transmission of these segments (index = byte offset / MSS).
    #[serde(default)]
    pub drop_segments: Vec<u64>,
    /// Drop the first retransmission of these segments.
    #[serde(default)]
    pub drop_retransmissions: Vec<u64>,
}

// ---- validation -----------------------------------------------------------------------

pub struct Check<'a> {
    pub source: &'a str,
}

impl Check<'_> {
    pub fn err(&self, key: &str, problem: &str) -> ScenarioError {
        ScenarioError::new(self.source, key, problem)
    }

    pub fn finite(&self, key: &str, v: f64) -> Result<(), ScenarioError> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be a finite number, got {v}")))
        }
    }

    pub fn positive(&self, key: &str, v: f64) -> Result<(), ScenarioError> {
        self.finite(key, v)?;
        if v > 0.0 {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be > 0, got {v}")))
        }
    }

    pub fn non_negative(&self, key: &str, v: f64) -> Result<(), ScenarioError> {
        self.finite(key, v)?;
        if v >= 0.0 {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be >= 0, got {v}")))
        }
    }

    pub fn probability(&self, key: &str, v: f64) -> Result<(), ScenarioError> {
        self.finite(key, v)?;
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be a probability in [0, 1], got {v}")))
        }
    }

    pub fn at_least(&self, key: &str, v: u64, min: u64) -> Result<(), ScenarioError> {
        if v >= min {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be >= {min}, got {v}")))
        }
    }
}

impl TcpSection {
    /// Applies this section on top of `base`, validating each given value. `prefix` is the
    /// dotted path of the section, for messages.
    pub fn apply(&self, base: &TcpConfig, c: &Check, prefix: &str) -> Result<TcpConfig, ScenarioError> {
        let k = |name: &str| format!("{prefix}.{name}");
        // The profile first: it moves every field no key has set; then the keys.
        let mut cfg = match self.profile {
            Some(p) => p.rebase(base),
            None => base.clone(),
        };
        if let Some(r) = self.recovery {
            cfg.recovery = match r {
                RecoveryName::Reno => Recovery::Reno,
                RecoveryName::NewReno => Recovery::NewReno,
                RecoveryName::Sack => Recovery::Sack,
            };
        }
        let mut set = ProfileKeys::default();
        if let Some(t) = self.newreno_timer {
            cfg.newreno_timer = match t {
                NewRenoTimerName::Impatient => NewRenoTimer::Impatient,
                NewRenoTimerName::SlowButSteady => NewRenoTimer::SlowButSteady,
            };
            set.insert(ProfileKeys::NEWRENO_TIMER);
        }
        if let Some(v) = self.newreno_reentry {
            cfg.newreno_reentry = v;
            set.insert(ProfileKeys::NEWRENO_REENTRY);
        }
        if let Some(v) = self.ca_growth {
            cfg.ca_growth = v;
            set.insert(ProfileKeys::CA_GROWTH);
        }
        if let Some(v) = self.rto_ssthresh {
            cfg.rto_ssthresh = v;
            set.insert(ProfileKeys::RTO_SSTHRESH);
        }
        if let Some(v) = self.rescue_retransmission {
            cfg.rescue_retransmission = v;
            set.insert(ProfileKeys::RESCUE);
        }
        if let Some(v) = self.quickack_segments {
            cfg.quickack_segments = v;
            set.insert(ProfileKeys::QUICKACK);
        }
        if let Some(v) = self.mss_bytes {
            c.at_least(&k("mss_bytes"), v as u64, 1)?;
            cfg.mss_bytes = v;
            set.insert(ProfileKeys::MSS);
        }
        if let Some(v) = self.header_bytes {
            cfg.header_bytes = v;
            set.insert(ProfileKeys::HEADER);
        }
        if let Some(v) = self.initial_window_segments {
            c.at_least(&k("initial_window_segments"), v as u64, 1)?;
            cfg.initial_window_segments = v;
            set.insert(ProfileKeys::INITIAL_WINDOW);
        }
        if let Some(v) = self.initial_ssthresh_bytes {
            c.at_least(&k("initial_ssthresh_bytes"), v, 1)?;
            cfg.initial_ssthresh_bytes = v;
        }
        if let Some(v) = self.dupack_threshold {
            c.at_least(&k("dupack_threshold"), v as u64, 1)?;
            cfg.dupack_threshold = v;
        }
        if let Some(v) = self.limited_transmit {
            cfg.limited_transmit = v;
            set.insert(ProfileKeys::LIMITED_TRANSMIT);
        }
        if let Some(v) = self.min_rto_s {
            c.non_negative(&k("min_rto_s"), v)?;
            cfg.min_rto_ns = s_to_ns(v);
            set.insert(ProfileKeys::MIN_RTO);
        }
        if let Some(v) = self.initial_rto_s {
            c.positive(&k("initial_rto_s"), v)?;
            cfg.initial_rto_ns = s_to_ns(v);
            set.insert(ProfileKeys::INITIAL_RTO);
        }
        if let Some(v) = self.max_rto_s {
            c.positive(&k("max_rto_s"), v)?;
            cfg.max_rto_ns = s_to_ns(v);
            set.insert(ProfileKeys::MAX_RTO);
        }
        if let Some(v) = self.clock_granularity_s {
            c.non_negative(&k("clock_granularity_s"), v)?;
            cfg.clock_granularity_ns = s_to_ns(v);
            set.insert(ProfileKeys::CLOCK_GRANULARITY);
        }
        if let Some(v) = self.delayed_ack {
            cfg.delayed_ack = v;
            set.insert(ProfileKeys::DELAYED_ACK);
        }
        if let Some(v) = self.delayed_ack_segments {
            c.at_least(&k("delayed_ack_segments"), v as u64, 1)?;
            cfg.delayed_ack_segments = v;
            set.insert(ProfileKeys::DELAYED_ACK_SEGMENTS);
        }
        if let Some(v) = self.delayed_ack_timeout_s {
            c.non_negative(&k("delayed_ack_timeout_s"), v)?;
            cfg.delayed_ack_timeout_ns = s_to_ns(v);
            set.insert(ProfileKeys::DELAYED_ACK_TIMEOUT);
        }
        if let Some(v) = self.rwnd_bytes {
            cfg.rwnd_bytes = v;
            set.insert(ProfileKeys::RWND);
        }
        if let Some(v) = self.ecn {
            cfg.ecn = v;
        }
        cfg.explicit.insert(set);
        if cfg.max_rto_ns < cfg.min_rto_ns {
            return Err(c.err(&k("max_rto_s"), "must be >= min_rto_s"));
        }
        if cfg.rwnd_bytes < cfg.mss_bytes as u64 {
            return Err(
                c.err(&k("rwnd_bytes"), &format!("must be >= mss_bytes ({}), got {}", cfg.mss_bytes, cfg.rwnd_bytes))
            );
        }
        Ok(cfg)
    }
}

impl Scenario {
    pub fn validate(&self, source: &str) -> Result<(), ScenarioError> {
        let c = Check { source };
        c.positive("duration_s", self.duration_s)?;
        if self.duration_s > 1e6 {
            return Err(c.err("duration_s", &format!("must be <= 1e6 s, got {}", self.duration_s)));
        }
        self.tcp.apply(&TcpConfig::default(), &c, "tcp")?;
        if let Some(i) = self.trace.interval_s {
            c.positive("trace.interval_s", i)?;
        }
        if self.lte_x2.is_some() && self.topology != Topology::LteX2 {
            return Err(c.err("lte_x2", "only allowed with topology = \"lte-x2\""));
        }
        if self.fcp.is_some() && self.topology != Topology::Fcp {
            return Err(c.err("fcp", "only allowed with topology = \"fcp\""));
        }
        match self.topology {
            Topology::LteX2 => {
                for (key, given) in [
                    ("nodes", !self.nodes.is_empty()),
                    ("links", !self.links.is_empty()),
                    ("flows", !self.flows.is_empty()),
                    ("dumbbell", self.dumbbell.is_some()),
                ] {
                    if given {
                        return Err(
                            c.err(key, "not allowed with topology = \"lte-x2\" (the template builds the graph)")
                        );
                    }
                }
                self.lte_x2.clone().unwrap_or_default().validate(&c, self.duration_s)?;
            }
            Topology::Hsdpa => {
                for (key, given) in [
                    ("nodes", !self.nodes.is_empty()),
                    ("links", !self.links.is_empty()),
                    ("flows", !self.flows.is_empty()),
                    ("dumbbell", self.dumbbell.is_some()),
                ] {
                    if given {
                        return Err(c.err(key, "not allowed with topology = \"hsdpa\" (the template builds the graph)"));
                    }
                }
                self.hsdpa.clone().unwrap_or_default().validate(&c)?;
            }
            Topology::Dumbbell => {
                if self.hsdpa.is_some() {
                    return Err(c.err("hsdpa", "only allowed with topology = \"hsdpa\""));
                }
                for (key, given) in [
                    ("nodes", !self.nodes.is_empty()),
                    ("links", !self.links.is_empty()),
                    ("flows", !self.flows.is_empty()),
                ] {
                    if given {
                        return Err(
                            c.err(key, "not allowed with topology = \"dumbbell\" (the template builds the graph)")
                        );
                    }
                }
                self.dumbbell.clone().unwrap_or_default().validate(&c)?;
            }
            Topology::Fcp => {
                for (key, given) in [
                    ("nodes", !self.nodes.is_empty()),
                    ("links", !self.links.is_empty()),
                    ("flows", !self.flows.is_empty()),
                    ("dumbbell", self.dumbbell.is_some()),
                    ("hsdpa", self.hsdpa.is_some()),
                ] {
                    if given {
                        return Err(c.err(key, "not allowed with topology = \"fcp\" (the template builds the graph)"));
                    }
                }
                self.fcp.clone().unwrap_or_default().validate(&c, self.duration_s)?;
            }
            Topology::Graph => {
                if self.dumbbell.is_some() {
                    return Err(c.err("dumbbell", "only allowed with topology = \"dumbbell\""));
                }
                if self.hsdpa.is_some() {
                    return Err(c.err("hsdpa", "only allowed with topology = \"hsdpa\""));
                }
                if self.nodes.is_empty() {
                    return Err(c.err(
                        "nodes",
                        "a graph scenario needs at least one [[nodes]] entry (or set topology = \"dumbbell\")",
                    ));
                }
            }
        }
        Ok(())
    }
}

impl DumbbellSection {
    fn validate(&self, c: &Check) -> Result<(), ScenarioError> {
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
        c.non_negative("dumbbell.access_delay_s", self.access_delay_s)?;
        c.non_negative("dumbbell.start_stagger_s", self.start_stagger_s)?;
        validate_app(c, "dumbbell", self.app, self.bytes, self.rate_bps)
    }
}

pub(crate) fn validate_app(
    c: &Check,
    prefix: &str,
    app: AppKind,
    bytes: Option<u64>,
    rate_bps: Option<f64>,
) -> Result<(), ScenarioError> {
    match app {
        AppKind::Bulk => Ok(()),
        AppKind::File => match bytes {
            Some(b) if b > 0 => Ok(()),
            Some(_) => Err(c.err(&format!("{prefix}.bytes"), "must be > 0")),
            None => Err(c.err(&format!("{prefix}.bytes"), "required when app = \"file\"")),
        },
        AppKind::Rate => match rate_bps {
            Some(r) => c.positive(&format!("{prefix}.rate_bps"), r),
            None => Err(c.err(&format!("{prefix}.rate_bps"), "required when app = \"rate\"")),
        },
    }
}

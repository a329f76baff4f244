//! The explicit graph a scenario describes: nodes, links, flows and the TCP tables, as
//! `topology = "graph"` states them and as every template produces them. These types sit
//! below the mechanisms so that a mechanism's template can describe its network with them.

use serde::Deserialize;

use super::error::{Check, ScenarioError};
use crate::engine::time::{ns_to_s, s_to_ns};
use crate::tcp::{
    CaGrowth, CcKind, LossDetection, NewRenoReentry, NewRenoTimer, Profile, ProfileKeys, Recovery, RecoveryRate,
    RtoRearm, RtoSsthresh, SackPipe, TcpConfig,
};
use crate::tcp::{
    CubicAlpha, FastRetransmitWindow, GoBackN, GrowthGate, NewRenoExit, ReductionBasis, RenoReentry, RtoFormula,
    RttSampling, SackEntry, SackRetransmit, SlowStartGrowth, SynTimeout,
};

/// Largest packet: `mss_bytes + header_bytes` (the IPv4 total length; sizes are u32 inside).
pub const MAX_PACKET_BYTES: u64 = 65_535;

/// Largest receive window and initial ssthresh a scenario may give (1 TiB): window arithmetic
/// in bytes stays far from u64 overflow.
pub const MAX_WINDOW_BYTES: u64 = 1 << 40;

/// The smallest `max_rto_s`: 1 ms, far below any stack's (Linux's `tcp_rto_max_ms` takes
/// 1-120 s), and the backed-off retransmission timer fires at most a thousand times a second.
pub const MIN_MAX_RTO_NS: u64 = 1_000_000;

/// The largest `timer_wheel_hz`: a 100 us jiffy (kernels build with HZ 100 to 1000).
pub const MAX_TIMER_WHEEL_HZ: u32 = 10_000;

/// The largest initial window, in segments: it is sent in one burst, with a record of each
/// segment, and the SACK recovery that follows its losses scans the records per ACK (a 2 s
/// dumbbell run took 1 s at 10,000 and over a minute at 100,000, unoptimized build). RFC 6928
/// allows 10.
pub const MAX_INITIAL_WINDOW_SEGMENTS: u32 = 10_000;

/// The fastest link (1 Tb/s), as for rate models and rate sources.
pub const MAX_LINK_RATE_BPS: f64 = 1e12;

/// An explicit graph: what a `topology = "graph"` scenario states and what templates produce.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// Names of links whose queue is traced by default.
    pub traced_queues: Vec<String>,
    /// Every flow starts up to this much after its `start_s`: a uniform draw in
    /// `[0, start_jitter_s)` from the flow's own random stream (so it changes with the seed).
    pub start_jitter_s: f64,
    /// 802.11 networks (`[[media]]`, `spec/wifi.rs`).
    pub media: Vec<super::wifi::MediumSpec>,
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
/// keys set in `[tcp]`. A congestion controller's own settings are its `[tcp.<algorithm>]`
/// table (`tcp/cc/table.rs`), taken out of the TOML before serde reads these keys and put
/// back in `tables` (`super::tcp_tables`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSection {
    pub profile: Option<Profile>,
    /// The name of a congestion controller (`tcp::cc::ALGORITHMS`, or one a registry adds),
    /// found in `cc_kind` when the scenario is read.
    pub cc: Option<String>,
    #[serde(skip)]
    pub cc_kind: Option<CcKind>,
    /// The `[tcp.<algorithm>]` tables given here, in the order of their names.
    #[serde(skip)]
    pub tables: Vec<(CcKind, toml::Table)>,
    pub recovery_rate: Option<RecoveryRate>,
    pub loss_detection: Option<LossDetection>,
    pub frto: Option<bool>,
    pub frto_in_recovery: Option<bool>,
    pub hystart: Option<bool>,
    pub ca_growth: Option<CaGrowth>,
    pub rto_ssthresh: Option<RtoSsthresh>,
    pub newreno_reentry: Option<NewRenoReentry>,
    pub rescue_retransmission: Option<bool>,
    pub sack_pipe: Option<SackPipe>,
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
    // ns-2 dialect
    pub fast_retransmit_window: Option<FastRetransmitWindow>,
    pub newreno_exit: Option<NewRenoExit>,
    pub sack_entry: Option<SackEntry>,
    pub sack_retransmit: Option<SackRetransmit>,
    pub fast_retransmit_restarts_timer: Option<bool>,
    pub rtt_sampling: Option<RttSampling>,
    pub reno_reentry: Option<RenoReentry>,
    pub exit_ack_opens_window: Option<bool>,
    pub syn_timeout: Option<SynTimeout>,
    pub go_back_n: Option<GoBackN>,
    // Linux dialect.
    pub rto_rearm: Option<RtoRearm>,
    pub slow_start_growth: Option<SlowStartGrowth>,
    pub rto_formula: Option<RtoFormula>,
    pub cubic_alpha: Option<CubicAlpha>,
    pub growth_gate: Option<GrowthGate>,
    pub linux_hystart: Option<bool>,
    pub small_queues: Option<bool>,
    pub dsack: Option<bool>,
    pub dsack_undo: Option<bool>,
    pub timestamps: Option<bool>,
    pub pipe_outside_recovery: Option<bool>,
    pub reduction_basis: Option<ReductionBasis>,
    pub whole_segment_windows: Option<bool>,
    pub cubic_growth_floor: Option<bool>,
    pub psh_quickack: Option<bool>,
    pub grow_window_quickack: Option<bool>,
    pub rcvbuf_autotune: Option<bool>,
    pub timer_wheel_hz: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AppKind {
    #[default]
    Bulk,
    File,
    Rate,
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
    /// ns-2.35's byte mode with this `mean_pktsize_` (docs/scenarios.md, RED); absent:
    /// packets.
    #[serde(default)]
    pub ns2_mean_pktsize_bytes: Option<u32>,
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
        if let Some(name) = &self.cc {
            cfg.cc = match self.cc_kind.filter(|kind| kind.name() == *name) {
                Some(kind) => kind,
                None => super::tcp_tables::algorithm(name, crate::tcp::cc::ALGORITHMS)
                    .map_err(|problem| c.err(&k("cc"), &problem))?,
            };
            set.insert(ProfileKeys::CC);
        }
        for (kind, layer) in &self.tables {
            cfg.cc_settings.apply(kind.algorithm(), layer).map_err(|e| {
                let key = if e.key.is_empty() { k(kind.name()) } else { format!("{prefix}.{}.{}", kind.name(), e.key) };
                c.err(&key, &e.problem)
            })?;
        }
        if let Some(v) = self.recovery_rate {
            cfg.recovery_rate = v;
            set.insert(ProfileKeys::RECOVERY_RATE);
        }
        if let Some(v) = self.loss_detection {
            cfg.loss_detection = v;
            set.insert(ProfileKeys::LOSS_DETECTION);
        }
        if let Some(v) = self.frto {
            cfg.frto = v;
            set.insert(ProfileKeys::FRTO);
        }
        if let Some(v) = self.frto_in_recovery {
            cfg.frto_in_recovery = v;
        }
        if let Some(v) = self.hystart {
            cfg.hystart = v;
            set.insert(ProfileKeys::HYSTART);
        }
        if let Some(v) = self.rto_rearm {
            cfg.rto_rearm = v;
            set.insert(ProfileKeys::RTO_REARM);
        }
        if let Some(v) = self.slow_start_growth {
            cfg.slow_start_growth = v;
            set.insert(ProfileKeys::SLOW_START_GROWTH);
        }
        if let Some(v) = self.rto_formula {
            cfg.rto_formula = v;
            set.insert(ProfileKeys::RTO_FORMULA);
        }
        if let Some(v) = self.cubic_alpha {
            cfg.cubic_alpha = v;
            set.insert(ProfileKeys::CUBIC_ALPHA);
        }
        if let Some(v) = self.growth_gate {
            cfg.growth_gate = v;
            set.insert(ProfileKeys::GROWTH_GATE);
        }
        if let Some(v) = self.linux_hystart {
            cfg.linux_hystart = v;
            set.insert(ProfileKeys::LINUX_HYSTART);
        }
        if let Some(v) = self.small_queues {
            cfg.small_queues = v;
            set.insert(ProfileKeys::SMALL_QUEUES);
        }
        if let Some(v) = self.dsack {
            cfg.dsack = v;
            set.insert(ProfileKeys::DSACK);
        }
        if let Some(v) = self.dsack_undo {
            cfg.dsack_undo = v;
            set.insert(ProfileKeys::DSACK_UNDO);
        }
        if let Some(v) = self.timestamps {
            cfg.timestamps = v;
            set.insert(ProfileKeys::TIMESTAMPS);
        }
        if let Some(v) = self.pipe_outside_recovery {
            cfg.pipe_outside_recovery = v;
            set.insert(ProfileKeys::PIPE_OUTSIDE_RECOVERY);
        }
        if let Some(v) = self.reduction_basis {
            cfg.reduction_basis = v;
            set.insert(ProfileKeys::REDUCTION_BASIS);
        }
        if let Some(v) = self.whole_segment_windows {
            cfg.whole_segment_windows = v;
            set.insert(ProfileKeys::WHOLE_SEGMENT_WINDOWS);
        }
        if let Some(v) = self.cubic_growth_floor {
            cfg.cubic_growth_floor = v;
            set.insert(ProfileKeys::CUBIC_GROWTH_FLOOR);
        }
        if let Some(v) = self.psh_quickack {
            cfg.psh_quickack = v;
            set.insert(ProfileKeys::PSH_QUICKACK);
        }
        if let Some(v) = self.grow_window_quickack {
            cfg.grow_window_quickack = v;
            set.insert(ProfileKeys::GROW_WINDOW_QUICKACK);
        }
        if let Some(v) = self.rcvbuf_autotune {
            cfg.rcvbuf_autotune = v;
            set.insert(ProfileKeys::RCVBUF_AUTOTUNE);
        }
        if let Some(v) = self.timer_wheel_hz {
            if v > MAX_TIMER_WHEEL_HZ {
                let m =
                    format!("must be 0 (exact timers) or a kernel's CONFIG_HZ, at most {MAX_TIMER_WHEEL_HZ}, got {v}");
                return Err(c.err(&k("timer_wheel_hz"), &m));
            }
            cfg.timer_wheel_hz = v;
            set.insert(ProfileKeys::TIMER_WHEEL_HZ);
        }
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
        if let Some(v) = self.sack_pipe {
            cfg.sack_pipe = v;
            set.insert(ProfileKeys::SACK_PIPE);
        }
        // ns-2 dialect
        if let Some(v) = self.fast_retransmit_window {
            cfg.fast_retransmit_window = v;
            set.insert(ProfileKeys::FAST_RETRANSMIT_WINDOW);
        }
        if let Some(v) = self.newreno_exit {
            cfg.newreno_exit = v;
            set.insert(ProfileKeys::NEWRENO_EXIT);
        }
        if let Some(v) = self.sack_entry {
            cfg.sack_entry = v;
            set.insert(ProfileKeys::SACK_ENTRY);
        }
        if let Some(v) = self.sack_retransmit {
            cfg.sack_retransmit = v;
            set.insert(ProfileKeys::SACK_RETRANSMIT);
        }
        if let Some(v) = self.fast_retransmit_restarts_timer {
            cfg.fast_retransmit_restarts_timer = v;
            set.insert(ProfileKeys::FAST_RETRANSMIT_TIMER);
        }
        if let Some(v) = self.rtt_sampling {
            cfg.rtt_sampling = v;
            set.insert(ProfileKeys::RTT_SAMPLING);
        }
        if let Some(v) = self.reno_reentry {
            cfg.reno_reentry = v;
            set.insert(ProfileKeys::RENO_REENTRY);
        }
        if let Some(v) = self.exit_ack_opens_window {
            cfg.exit_ack_opens_window = v;
            set.insert(ProfileKeys::EXIT_ACK_OPENS);
        }
        if let Some(v) = self.syn_timeout {
            cfg.syn_timeout = v;
            set.insert(ProfileKeys::SYN_TIMEOUT);
        }
        if let Some(v) = self.go_back_n {
            cfg.go_back_n = v;
            set.insert(ProfileKeys::GO_BACK_N);
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
            if v > MAX_INITIAL_WINDOW_SEGMENTS {
                // The initial window leaves in one burst, a record per segment.
                return Err(c.err(
                    &k("initial_window_segments"),
                    &format!("must be <= {MAX_INITIAL_WINDOW_SEGMENTS} (the first burst of segments), got {v}"),
                ));
            }
            cfg.initial_window_segments = v;
            set.insert(ProfileKeys::INITIAL_WINDOW);
        }
        if let Some(v) = self.initial_ssthresh_bytes {
            c.at_least(&k("initial_ssthresh_bytes"), v, 1)?;
            if v > MAX_WINDOW_BYTES {
                return Err(c.err(&k("initial_ssthresh_bytes"), &format!("must be <= {MAX_WINDOW_BYTES}, got {v}")));
            }
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
            if v > MAX_WINDOW_BYTES {
                return Err(c.err(&k("rwnd_bytes"), &format!("must be <= {MAX_WINDOW_BYTES}, got {v}")));
            }
            cfg.rwnd_bytes = v;
            set.insert(ProfileKeys::RWND);
        }
        if let Some(v) = self.ecn {
            cfg.ecn = v;
        }
        cfg.explicit.insert(set);
        if cfg.mss_bytes as u64 + cfg.header_bytes as u64 > MAX_PACKET_BYTES {
            // Name the one that is out of proportion.
            let key = if cfg.header_bytes > cfg.mss_bytes { "header_bytes" } else { "mss_bytes" };
            return Err(c.err(
                &k(key),
                &format!(
                    "mss_bytes + header_bytes must be <= {MAX_PACKET_BYTES} (an IP packet), got {} + {}",
                    cfg.mss_bytes, cfg.header_bytes
                ),
            ));
        }
        if cfg.max_rto_ns < cfg.min_rto_ns {
            return Err(c.err(&k("max_rto_s"), "must be >= min_rto_s"));
        }
        if cfg.max_rto_ns < MIN_MAX_RTO_NS {
            // The backed-off timer fires every max_rto_s while nothing gets through: at 1 ns
            // that was 1e9 timeouts per simulated second and flow.
            return Err(c.err(
                &k("max_rto_s"),
                &format!(
                    "must be >= 0.001 s (RFC 6298 (2.5) allows a maximum of at least 60 s), got {} s",
                    ns_to_s(cfg.max_rto_ns)
                ),
            ));
        }
        if cfg.rwnd_bytes < cfg.mss_bytes as u64 {
            return Err(
                c.err(&k("rwnd_bytes"), &format!("must be >= mss_bytes ({}), got {}", cfg.mss_bytes, cfg.rwnd_bytes))
            );
        }
        Ok(cfg)
    }
}

pub fn validate_app(
    c: &Check,
    prefix: impl std::fmt::Display,
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
            Some(r) => {
                c.positive(&format!("{prefix}.rate_bps"), r)?;
                if r > crate::app::MAX_RATE_BPS {
                    let m = format!("must be at most {:e} bit/s, got {r}", crate::app::MAX_RATE_BPS);
                    return Err(c.err(&format!("{prefix}.rate_bps"), &m));
                }
                Ok(())
            }
            None => Err(c.err(&format!("{prefix}.rate_bps"), "required when app = \"rate\"")),
        },
    }
}

/// A node entry.
pub fn node(name: String, kind: NodeKindName) -> NodeSpec {
    NodeSpec { name, kind }
}

/// A bidirectional DropTail link entry with no loss; templates adjust the fields they need.
pub fn link(from: &str, to: &str, rate_bps: f64, delay_s: f64, queue_packets: u32) -> LinkSpec {
    LinkSpec {
        name: None,
        from: from.to_string(),
        to: to.to_string(),
        rate_bps,
        delay_s,
        queue: QueueKind::DropTail,
        queue_packets: Some(queue_packets),
        queue_bytes: None,
        red: None,
        loss: None,
        gilbert_elliott: None,
        duplicate: 0.0,
        reorder: 0.0,
        reorder_delay_s: 0.005,
        bidirectional: true,
        trace: false,
        rate_model: None,
    }
}

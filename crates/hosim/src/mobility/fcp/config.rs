//! The `[fcp]` scenario section: the Fig. 1 network of Cohen & Levin, "To Drop or Not to
//! Drop" (docs/reproductions/drop-or-forward.md), its handovers and their scheme.

use serde::Deserialize;

use crate::spec::{Check, ScenarioError};

/// What the old base station does with packets for a mobile that has left it (Sec. III).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FcpScheme {
    /// Silently drop them.
    Drop,
    /// Send them to the new base station over the forwarding path; they may arrive out of order.
    Forward,
    /// Forward them, and let the new base station hold direct packets until the forwarded
    /// ones have been passed on ("forward-and-rearrange").
    Rearrange,
}

impl FcpScheme {
    pub fn name(self) -> &'static str {
        match self {
            FcpScheme::Drop => "drop",
            FcpScheme::Forward => "forward",
            FcpScheme::Rearrange => "rearrange",
        }
    }
}

/// Under `rearrange`, what the new base station does when a packet finds its buffer for the
/// mobile (wireless queue + held packets) full.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RearrangeOverflow {
    /// Drop the arriving packet, forwarded or direct (DropTail).
    Tail,
    /// A forwarded packet pushes out the newest held direct packet; an arriving direct
    /// packet is dropped ("drop new packets rather than old ones", Chou & Shin, ref. \[17\]).
    EvictHeld,
}

/// Under `rearrange`, where the new base station keeps the direct packets it holds back.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RearrangeBuffer {
    /// In its buffer for the mobile, shared with the wireless queue: "the direct packets
    /// consume important buffer space at BS2 while waiting for the forwarded packets"
    /// (Sec. VI); `rearrange_overflow` says what a full buffer drops.
    Shared,
    /// In a buffer of their own of `bs_buffer_pkts`, beside the wireless queue's: forwarded
    /// packets meet only the wireless queue's limit, a direct packet only the held ones'; at
    /// the release the held packets enter the wireless queue, which drops (DropTail) what
    /// does not fit. The ns-2.35 stand-in's held queue (bench/ns2/papers/drop_forward.tcl).
    Separate,
}

/// What happens at the handover instant to the packets queued in the old base station's
/// buffer for the mobile.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OldBsQueue {
    /// They are past the FCP on the old path: the scheme handles them (dropped or forwarded).
    Scheme,
    /// The old base station still transmits them to the mobile (only the FCP->BS link's
    /// packets and later arrivals meet the scheme, as in the paper's Dropped = D x Θ).
    Deliver,
}

/// How the times between one mobile's handovers are drawn.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IntervalDistribution {
    /// Every interval equals the mean.
    Fixed,
    /// Exponential intervals (Poisson handovers) with the given mean.
    Exponential,
}

/// `[fcp]`: the Fig. 1 network and its handovers. Rates in bit/s, times in seconds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FcpSection {
    /// Number of mobile nodes, each with one bulk flow from the sender.
    #[serde(default = "d_mobiles")]
    pub mobiles: u32,
    /// Rate of the wired links: sender-FCP, FCP-BS1, FCP-BS2.
    #[serde(default = "d_backbone_bps")]
    pub backbone_bps: f64,
    /// Rate of each private wireless link (both directions).
    #[serde(default = "d_wireless_bps")]
    pub wireless_bps: f64,
    #[serde(default = "d_sender_fcp_delay_s")]
    pub sender_fcp_delay_s: f64,
    /// D_FCP->BS of the paper (both base stations).
    #[serde(default = "d_fcp_bs_delay_s")]
    pub fcp_bs_delay_s: f64,
    #[serde(default = "d_bs_mobile_delay_s")]
    pub bs_mobile_delay_s: f64,
    /// DropTail limit of the wired links' queues, packets.
    #[serde(default = "d_backbone_queue_pkts")]
    pub backbone_queue_pkts: u32,
    /// A base station's buffer for one mobile, packets: the queue of its wireless link and,
    /// under `rearrange`, the direct packets it holds back.
    #[serde(default = "d_bs_buffer_pkts")]
    pub bs_buffer_pkts: u32,
    #[serde(default = "d_scheme")]
    pub scheme: FcpScheme,
    #[serde(default = "d_old_bs_queue")]
    pub old_bs_queue: OldBsQueue,
    #[serde(default = "d_rearrange_overflow")]
    pub rearrange_overflow: RearrangeOverflow,
    #[serde(default = "d_rearrange_buffer")]
    pub rearrange_buffer: RearrangeBuffer,
    /// Propagation delay of the forwarding path between the base stations (each direction).
    /// Default 50 ms: the tree path BS1 -> FCP -> BS2 of Fig. 1 (2 x 25 ms).
    #[serde(default = "d_forward_delay_s")]
    pub forward_delay_s: f64,
    /// Rate of the forwarding path; default `backbone_bps`.
    pub forward_bps: Option<f64>,
    /// Queue limit of the forwarding path, packets; default `backbone_queue_pkts`.
    pub forward_queue_pkts: Option<u32>,
    /// Turn handovers off (the no-handover reference run of the model).
    #[serde(default = "d_true")]
    pub handovers: bool,
    /// Mean interval Δ between two handovers of one mobile, in units of `rtt_s`.
    pub handover_interval_rtt: Option<f64>,
    /// Mean interval Δ in seconds (instead of `handover_interval_rtt`).
    pub handover_interval_s: Option<f64>,
    #[serde(default = "d_distribution")]
    pub handover_distribution: IntervalDistribution,
    /// The RTT unit of `handover_interval_rtt`; default the propagation RTT
    /// 2 * (sender_fcp + fcp_bs + bs_mobile delays), 80 ms in the paper.
    pub rtt_s: Option<f64>,
    /// Time of every mobile's first handover. Default: `warmup_s` plus a per-mobile random
    /// phase (uniform in [0, Δ) for fixed intervals, one exponential interval otherwise).
    pub first_handover_s: Option<f64>,
    /// No handovers before this time, and `throughput_fraction` is measured after it.
    #[serde(default = "d_warmup_s")]
    pub warmup_s: f64,
    /// Flow i starts at start_s + i * start_stagger_s.
    #[serde(default)]
    pub start_stagger_s: f64,
    /// The first flow's start.
    #[serde(default)]
    pub start_s: f64,
}

fn d_mobiles() -> u32 {
    10
}
fn d_backbone_bps() -> f64 {
    100e6
}
fn d_wireless_bps() -> f64 {
    10e6
}
fn d_sender_fcp_delay_s() -> f64 {
    0.010
}
fn d_fcp_bs_delay_s() -> f64 {
    0.025
}
fn d_bs_mobile_delay_s() -> f64 {
    0.005
}
fn d_backbone_queue_pkts() -> u32 {
    500
}
fn d_bs_buffer_pkts() -> u32 {
    100
}
fn d_scheme() -> FcpScheme {
    FcpScheme::Forward
}
fn d_old_bs_queue() -> OldBsQueue {
    OldBsQueue::Scheme
}
fn d_rearrange_overflow() -> RearrangeOverflow {
    RearrangeOverflow::Tail
}
fn d_rearrange_buffer() -> RearrangeBuffer {
    RearrangeBuffer::Shared
}
fn d_forward_delay_s() -> f64 {
    0.050
}
fn d_true() -> bool {
    true
}
fn d_distribution() -> IntervalDistribution {
    IntervalDistribution::Fixed
}
fn d_warmup_s() -> f64 {
    2.0
}

impl Default for FcpSection {
    fn default() -> Self {
        toml::from_str("").expect("all fcp keys have defaults")
    }
}

impl FcpSection {
    /// The RTT unit of `handover_interval_rtt`, seconds.
    pub fn rtt_unit_s(&self) -> f64 {
        self.rtt_s.unwrap_or(2.0 * (self.sender_fcp_delay_s + self.fcp_bs_delay_s + self.bs_mobile_delay_s))
    }

    /// Mean handover interval Δ in seconds; None when handovers are off.
    pub fn interval_s(&self) -> Option<f64> {
        if !self.handovers {
            return None;
        }
        self.handover_interval_s.or(self.handover_interval_rtt.map(|r| r * self.rtt_unit_s()))
    }

    /// Bandwidth available to one flow: its wireless link or its share of the backbone.
    pub fn available_bps(&self) -> f64 {
        self.wireless_bps.min(self.backbone_bps / self.mobiles as f64)
    }

    pub fn validate(&self, c: &Check, duration_s: f64) -> Result<(), ScenarioError> {
        c.at_least("fcp.mobiles", self.mobiles as u64, 1)?;
        if self.mobiles > 1000 {
            return Err(c.err("fcp.mobiles", &format!("must be <= 1000, got {}", self.mobiles)));
        }
        c.positive("fcp.backbone_bps", self.backbone_bps)?;
        c.positive("fcp.wireless_bps", self.wireless_bps)?;
        for (k, v) in [("wireless_bps", self.wireless_bps), ("backbone_bps", self.backbone_bps)] {
            if v < 1.0 {
                return Err(c.err(&format!("fcp.{k}"), &format!("must be >= 1 bit/s, got {v}")));
            }
        }
        c.non_negative("fcp.sender_fcp_delay_s", self.sender_fcp_delay_s)?;
        c.non_negative("fcp.fcp_bs_delay_s", self.fcp_bs_delay_s)?;
        c.non_negative("fcp.bs_mobile_delay_s", self.bs_mobile_delay_s)?;
        c.at_least("fcp.backbone_queue_pkts", self.backbone_queue_pkts as u64, 1)?;
        c.at_least("fcp.bs_buffer_pkts", self.bs_buffer_pkts as u64, 1)?;
        c.non_negative("fcp.forward_delay_s", self.forward_delay_s)?;
        if let Some(r) = self.forward_bps {
            c.positive("fcp.forward_bps", r)?;
            if r < 1.0 {
                return Err(c.err("fcp.forward_bps", &format!("must be >= 1 bit/s, got {r}")));
            }
        }
        if let Some(q) = self.forward_queue_pkts {
            c.at_least("fcp.forward_queue_pkts", q as u64, 1)?;
        }
        if let Some(r) = self.rtt_s {
            c.positive("fcp.rtt_s", r)?;
        }
        if self.rtt_s.is_none() && self.rtt_unit_s() <= 0.0 && self.handover_interval_rtt.is_some() {
            return Err(c.err("fcp.rtt_s", "required when every delay is 0 and handover_interval_rtt is given"));
        }
        match (self.handover_interval_rtt, self.handover_interval_s) {
            (Some(_), Some(_)) => {
                return Err(c.err(
                    "fcp.handover_interval_s",
                    "give handover_interval_rtt or handover_interval_s, not both (the fcp preset sets handover_interval_rtt, in units of fcp.rtt_s = 0.08 s)",
                ));
            }
            (Some(r), None) => c.positive("fcp.handover_interval_rtt", r)?,
            (None, Some(s)) => c.positive("fcp.handover_interval_s", s)?,
            (None, None) if self.handovers => {
                return Err(c.err(
                    "fcp.handover_interval_rtt",
                    "required (or handover_interval_s); set fcp.handovers = false for a run without handovers",
                ));
            }
            (None, None) => {}
        }
        if let (true, Some(iv)) = (self.handovers, self.interval_s()) {
            // Each handover is an event and a log record: bound their number in the run.
            let key = if self.handover_interval_s.is_some() {
                "fcp.handover_interval_s"
            } else {
                "fcp.handover_interval_rtt"
            };
            let most = crate::mobility::MAX_HANDOVERS_PER_RUN;
            let min_s = (duration_s * self.mobiles as f64 / most).max(MIN_HANDOVER_INTERVAL_S);
            if iv.is_nan() || iv < min_s {
                return Err(c.err(
                    key,
                    &format!(
                        "the mean handover interval must be >= {min_s:e} s (>= 1 us, and at most {most:e} handovers in the run: mobiles x duration_s / interval), got {iv:e} s"
                    ),
                ));
            }
            c.time(key, iv)?;
        }
        if let Some(t) = self.first_handover_s {
            c.non_negative("fcp.first_handover_s", t)?;
        }
        c.non_negative("fcp.warmup_s", self.warmup_s)?;
        if self.warmup_s >= duration_s {
            return Err(c.err("fcp.warmup_s", &format!("must be < duration_s ({duration_s}), got {}", self.warmup_s)));
        }
        c.non_negative("fcp.start_s", self.start_s)?;
        if self.start_s >= duration_s {
            return Err(c.err("fcp.start_s", &format!("must be < duration_s ({duration_s}), got {}", self.start_s)));
        }
        c.non_negative("fcp.start_stagger_s", self.start_stagger_s)?;
        // The last flow starts at start_s + (mobiles - 1) x start_stagger_s: a time like any other.
        let last_start_s = self.start_s + self.mobiles.saturating_sub(1) as f64 * self.start_stagger_s;
        if last_start_s > crate::engine::time::MAX_TIME_S {
            let m = format!(
                "the last flow would start at start_s + (mobiles - 1) x start_stagger_s = {last_start_s:e} s, beyond the longest time ({:e} s)",
                crate::engine::time::MAX_TIME_S
            );
            return Err(c.err("fcp.start_stagger_s", &m));
        }
        Ok(())
    }
}

/// Shortest mean handover interval.
const MIN_HANDOVER_INTERVAL_S: f64 = 1e-6;

/// Node names of the template, used by the handover mechanism.
pub const SENDER: &str = "sender";
pub const FCP: &str = "fcp";
pub const BS: [&str; 2] = ["bs1", "bs2"];

pub fn mobile_name(i: u32) -> String {
    format!("m{i}")
}

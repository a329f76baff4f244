//! The `[inter_rat]` scenario section: the LTE / UMTS system of the 3GPP contribution
//! "TCP recovery after the back-to-back loss of an inter-RAT handover", Appendix A. Defaults
//! are the Appendix A values; values the paper leaves unstated are marked "(unstated)" and
//! listed in docs/reproductions/inter-rat.md.

use serde::Deserialize;

use crate::spec::{Check, ScenarioError};

/// How data left in the source RAN reaches the UE (Appendix A).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// The source forwards what it buffered and did not deliver to the target.
    #[default]
    Forwarding,
    /// The anchor sends every downlink packet to both RATs from "HO preparation complete".
    Bicasting,
    /// Everything left in the source RAN is lost.
    None,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Forwarding => "forwarding",
            Scheme::Bicasting => "bicasting",
            Scheme::None => "none",
        }
    }
}

/// Which RAT the UE leaves.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum Direction {
    /// The paper's case.
    #[default]
    #[serde(rename = "lte-umts")]
    LteToUmts,
    #[serde(rename = "umts-lte")]
    UmtsToLte,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::LteToUmts => "lte-umts",
            Direction::UmtsToLte => "umts-lte",
        }
    }
}

/// The S1 rate: a number of bit/s, or "rf" for the LTE radio rate ("same as RF").
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum S1Rate {
    Bps(f64),
    Name(String),
}

impl Default for S1Rate {
    fn default() -> Self {
        S1Rate::Name("rf".to_string())
    }
}

/// `[inter_rat]`: every key has a default (Appendix A where the paper gives one).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterRatSection {
    #[serde(default)]
    pub scheme: Scheme,
    #[serde(default)]
    pub direction: Direction,
    /// Radio rate of the RAT the UE leaves.
    #[serde(default = "d_rate")]
    pub source_rate_bps: f64,
    /// Radio rate of the RAT the UE moves to.
    #[serde(default = "d_rate")]
    pub target_rate_bps: f64,
    /// Anchor -> eNodeB (S1) rate: bit/s or "rf" (the LTE radio rate).
    #[serde(default)]
    pub s1_bps: S1Rate,
    /// Every other wired link (Appendix A: 155 Mb/s).
    #[serde(default = "d_core_bps")]
    pub core_bps: f64,
    /// Round-trip propagation delay of the server <-> anchor path ("Internet RTT").
    #[serde(default = "d_internet_rtt_s")]
    pub internet_rtt_s: f64,
    /// One-way delay of the anchor <-> RAN links (unstated).
    #[serde(default = "d_access_delay_s")]
    pub access_delay_s: f64,
    /// One-way delay of each radio link (unstated).
    #[serde(default = "d_radio_delay_s")]
    pub radio_delay_s: f64,
    /// One-way delay of the forwarding path source RAN -> target RAN through the core
    /// (unstated; default two access delays).
    #[serde(default = "d_forward_delay_s")]
    pub forward_delay_s: f64,
    /// When the source RAN stops its downlink and the UE leaves (Appendix A: 90 s).
    #[serde(default = "d_handover_at_s")]
    pub handover_at_s: f64,
    /// From the UE leaving to the anchor's path switch and the target's first downlink
    /// (Appendix A: 100 ms).
    #[serde(default = "d_interruption_s")]
    pub interruption_s: f64,
    /// Bicasting starts this long before the UE leaves (Appendix A: 10 ms, or 50 ms).
    #[serde(default = "d_bicast_lead_s")]
    pub bicast_lead_s: f64,
    /// FTP download start (Appendix A: 60 s).
    #[serde(default = "d_ftp_start_s")]
    pub ftp_start_s: f64,
    /// FTP file size (Appendix A: 20 MB); 0 = unlimited (bulk).
    #[serde(default = "d_file_bytes")]
    pub file_bytes: u64,
    /// Note 1: a RAN drops a new packet for an attached UE when this much radio time is
    /// queued already (0 = unlimited, the paper's simulations).
    #[serde(default)]
    pub ran_buffer_s: f64,
    /// Convergence time: length of the sliding window over the receiver's delivery.
    #[serde(default = "d_conv_window_s")]
    pub convergence_window_s: f64,
    /// Convergence time: the window's rate must reach this fraction of the pre-handover rate.
    #[serde(default = "d_conv_fraction")]
    pub convergence_fraction: f64,
    /// The pre-handover rate is the delivery rate over this long before the UE leaves.
    #[serde(default = "d_pre_window_s")]
    pub pre_window_s: f64,
    /// Delivery is sampled at this interval from `pre_window_s` before the handover.
    #[serde(default = "d_sample_s")]
    pub sample_s: f64,
}

fn d_rate() -> f64 {
    1e6
}
fn d_core_bps() -> f64 {
    155e6
}
fn d_internet_rtt_s() -> f64 {
    0.010
}
fn d_access_delay_s() -> f64 {
    0.001
}
fn d_radio_delay_s() -> f64 {
    0.002
}
fn d_forward_delay_s() -> f64 {
    0.002
}
fn d_handover_at_s() -> f64 {
    90.0
}
fn d_interruption_s() -> f64 {
    0.1
}
fn d_bicast_lead_s() -> f64 {
    0.010
}
fn d_ftp_start_s() -> f64 {
    60.0
}
fn d_file_bytes() -> u64 {
    20_000_000
}
fn d_conv_window_s() -> f64 {
    0.2
}
fn d_conv_fraction() -> f64 {
    0.9
}
fn d_pre_window_s() -> f64 {
    5.0
}
fn d_sample_s() -> f64 {
    0.001
}

impl Default for InterRatSection {
    fn default() -> Self {
        toml::from_str("").expect("all inter_rat keys have defaults")
    }
}

impl InterRatSection {
    /// The S1 rate in bit/s (validated).
    pub fn s1_rate_bps(&self) -> f64 {
        match &self.s1_bps {
            S1Rate::Bps(v) => *v,
            S1Rate::Name(_) => self.lte_rate_bps(),
        }
    }

    /// The LTE radio rate: the source's or the target's, by direction.
    pub fn lte_rate_bps(&self) -> f64 {
        match self.direction {
            Direction::LteToUmts => self.source_rate_bps,
            Direction::UmtsToLte => self.target_rate_bps,
        }
    }

    pub fn validate(&self, c: &Check, duration_s: f64) -> Result<(), ScenarioError> {
        let k = |name: &str| format!("inter_rat.{name}");
        let rate = |name: &str, v: f64| -> Result<(), ScenarioError> {
            c.finite(&k(name), v)?;
            if v < 1e3 {
                return Err(c.err(&k(name), &format!("must be >= 1000 bit/s, got {v}")));
            }
            Ok(())
        };
        rate("source_rate_bps", self.source_rate_bps)?;
        rate("target_rate_bps", self.target_rate_bps)?;
        rate("core_bps", self.core_bps)?;
        match &self.s1_bps {
            S1Rate::Bps(v) => rate("s1_bps", *v)?,
            S1Rate::Name(n) if n == "rf" => {}
            S1Rate::Name(n) => {
                return Err(c.err(&k("s1_bps"), &format!("must be a rate in bit/s or \"rf\", got \"{n}\"")))
            }
        }
        for (name, v) in [
            ("internet_rtt_s", self.internet_rtt_s),
            ("access_delay_s", self.access_delay_s),
            ("radio_delay_s", self.radio_delay_s),
            ("forward_delay_s", self.forward_delay_s),
            ("interruption_s", self.interruption_s),
            ("bicast_lead_s", self.bicast_lead_s),
            ("ftp_start_s", self.ftp_start_s),
            ("ran_buffer_s", self.ran_buffer_s),
            ("handover_at_s", self.handover_at_s),
        ] {
            c.non_negative(&k(name), v)?;
        }
        for (name, v) in [
            ("convergence_window_s", self.convergence_window_s),
            ("pre_window_s", self.pre_window_s),
            ("sample_s", self.sample_s),
        ] {
            c.positive(&k(name), v)?;
        }
        c.finite(&k("convergence_fraction"), self.convergence_fraction)?;
        if self.convergence_fraction <= 0.0 || self.convergence_fraction > 1.0 {
            return Err(
                c.err(&k("convergence_fraction"), &format!("must be in (0, 1], got {}", self.convergence_fraction))
            );
        }
        if self.sample_s > self.convergence_window_s {
            return Err(c.err(
                &k("sample_s"),
                &format!("must be <= convergence_window_s ({}), got {}", self.convergence_window_s, self.sample_s),
            ));
        }
        // Delivery is sampled every sample_s from pre_window_s before the handover to the end.
        let sampled_s = duration_s - (self.handover_at_s - self.pre_window_s).max(0.0);
        let most = crate::mobility::MAX_SAMPLES_PER_RUN;
        if sampled_s / self.sample_s > most {
            let m = format!(
                "at most {most:e} samples in a run: (duration_s - handover_at_s + pre_window_s) / sample_s = {:e}; make it longer",
                sampled_s / self.sample_s
            );
            return Err(c.err(&k("sample_s"), &m));
        }
        if self.handover_at_s + self.interruption_s >= duration_s {
            return Err(c.err(
                &k("handover_at_s"),
                &format!(
                    "handover_at_s + interruption_s must be before the end of the run (duration_s = {duration_s}), got {}",
                    self.handover_at_s + self.interruption_s
                ),
            ));
        }
        if self.ftp_start_s >= self.handover_at_s {
            return Err(c.err(
                &k("ftp_start_s"),
                &format!("must be before handover_at_s ({}), got {}", self.handover_at_s, self.ftp_start_s),
            ));
        }
        if self.bicast_lead_s > self.handover_at_s - self.ftp_start_s {
            return Err(c.err(
                &k("bicast_lead_s"),
                &format!(
                    "must be <= handover_at_s - ftp_start_s ({}), got {}",
                    self.handover_at_s - self.ftp_start_s,
                    self.bicast_lead_s
                ),
            ));
        }
        Ok(())
    }
}

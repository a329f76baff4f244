//! Per-flow TCP parameters. Every knob the papers vary is here and reachable from a scenario.

use serde::Serialize;

use crate::engine::time::{s_to_ns, SimTime};

/// Loss-recovery algorithm, independent of window growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// RFC 5681 §3.2: fast recovery ends on the first ACK of new data.
    Reno,
    /// RFC 6582: stays in fast recovery across partial ACKs until `recover` is acknowledged.
    NewReno,
    /// RFC 6675: SACK scoreboard, pipe and NextSeg.
    Sack,
}

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// Congestion controller (window growth), independent of loss recovery. One arm per file in
/// `tcp/cc/`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// RFC 5681 slow start and congestion avoidance (AIMD).
    #[default]
    Reno,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::Reno => "reno",
        }
    }
}

/// RFC 6582 §4: when a partial ACK restarts the retransmit timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewRenoTimer {
    /// Only the first partial ACK of a recovery restarts the timer.
    Impatient,
    /// Every partial ACK restarts the timer.
    SlowButSteady,
}

#[derive(Clone, Debug)]
pub struct TcpConfig {
    pub cc: CcKind,
    pub recovery: Recovery,
    pub newreno_timer: NewRenoTimer,
    pub mss_bytes: u32,
    /// IP + TCP header bytes added to every segment (without SACK options).
    pub header_bytes: u32,
    pub initial_window_segments: u32,
    /// Initial slow-start threshold; u64::MAX means "arbitrarily high" (RFC 5681 §3.1).
    pub initial_ssthresh_bytes: u64,
    pub dupack_threshold: u32,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    pub min_rto_ns: SimTime,
    pub initial_rto_ns: SimTime,
    pub max_rto_ns: SimTime,
    /// Clock granularity G of RFC 6298 §2.
    pub clock_granularity_ns: SimTime,
    pub delayed_ack: bool,
    /// Acknowledge at least every this many full-sized segments (RFC 5681 §4.2: 2).
    pub delayed_ack_segments: u32,
    pub delayed_ack_timeout_ns: SimTime,
    pub rwnd_bytes: u64,
    pub ecn: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcKind::Reno,
            recovery: Recovery::Sack,
            newreno_timer: NewRenoTimer::Impatient,
            mss_bytes: 1460,
            header_bytes: 40,
            initial_window_segments: 3,
            initial_ssthresh_bytes: u64::MAX,
            dupack_threshold: 3,
            limited_transmit: true,
            min_rto_ns: s_to_ns(1.0),
            initial_rto_ns: s_to_ns(1.0),
            max_rto_ns: s_to_ns(60.0),
            clock_granularity_ns: s_to_ns(0.001),
            delayed_ack: true,
            delayed_ack_segments: 2,
            delayed_ack_timeout_ns: s_to_ns(0.2),
            rwnd_bytes: 4 * 1024 * 1024,
            ecn: false,
        }
    }
}

impl TcpConfig {
    pub fn sack(&self) -> bool {
        self.recovery == Recovery::Sack
    }
}

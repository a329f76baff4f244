//! Congestion control: window growth and the response to a congestion signal, behind one
//! trait. Loss *detection* and the choice of what to retransmit live in `tcp/recovery/`; a
//! controller only owns cwnd and ssthresh (and whatever state its algorithm needs).
//!
//! Adding a controller: one file here implementing `Controller`, one arm in `AnyCc` (and in
//! each of its `match`es), one value in `config::CcKind`.

mod cubic;
pub mod hystart;
pub mod hystart_linux;
mod reno;

pub use cubic::{Cubic, ALPHA_CUBIC};
pub use reno::Reno;

use super::config::{CcKind, TcpConfig};
use super::path::PathChange;
use super::rto::RtoEstimator;
use crate::engine::time::SimTime;

/// Hooks named after events. The sender calls them with the time of the event and its RTT
/// estimator (srtt, rttvar, min and latest sample), and reads `cwnd()` / `ssthresh()`.
pub trait Controller {
    fn cwnd(&self) -> u64;
    fn ssthresh(&self) -> u64;
    /// New data was cumulatively acknowledged outside loss recovery.
    fn on_ack(&mut self, now: SimTime, acked_bytes: u64, rtt: &RtoEstimator);
    /// A loss (or an ECN echo) was detected with `flight_size` bytes outstanding. Sets and
    /// returns the new ssthresh; the caller then sets cwnd as its recovery algorithm says.
    fn on_congestion_event(&mut self, now: SimTime, flight_size: u64, rtt: &RtoEstimator) -> u64;
    /// The retransmission timer expired. `flight_size` is the amount the sender's
    /// `config::RtoSsthresh` rule halves; `set_ssthresh` is false when that rule keeps
    /// ssthresh (e.g. a repeated timeout of the same segment, RFC 5681 §3.1).
    fn on_timeout(&mut self, now: SimTime, flight_size: u64, set_ssthresh: bool, rtt: &RtoEstimator);
    /// Direct write of cwnd by loss recovery (inflation, deflation, exit) and by the sender
    /// after a lost SYN.
    fn set_cwnd(&mut self, cwnd: u64);
    /// The sender's packets now take another path. Standard TCP ignores it.
    fn on_path_change(&mut self, _now: SimTime, _change: &PathChange, _rtt: &RtoEstimator) {}
    /// The last timeout was spurious (RFC 5682 F-RTO): RFC 4015 §2 step (4) restores
    /// `cwnd` and `ssthresh`; a controller also undoes the timeout's own state changes.
    fn on_spurious_timeout(&mut self, cwnd: u64, ssthresh: u64);
    /// Direct write of ssthresh: HyStart++ (RFC 9406 §4.2) ends Conservative Slow Start with
    /// ssthresh = cwnd; a cross-layer reaction to a path change (Daniel & Kojo) lowers it.
    fn set_ssthresh(&mut self, ssthresh: u64);
}

/// The configured controller, dispatched by `match` (no boxing on the hot path).
#[derive(Clone, Debug)]
pub enum AnyCc {
    Reno(Reno),
    Cubic(Cubic),
}

impl AnyCc {
    pub fn new(cfg: &TcpConfig) -> Self {
        let iw = cfg.initial_window_segments as u64 * cfg.mss_bytes as u64;
        match cfg.cc {
            CcKind::Reno => AnyCc::Reno(
                Reno::new(cfg.mss_bytes, iw, cfg.initial_ssthresh_bytes, cfg.ca_growth)
                    .with_slow_start(cfg.slow_start_growth),
            ),
            CcKind::Cubic => AnyCc::Cubic(
                Cubic::new(cfg.mss_bytes, iw, cfg.initial_ssthresh_bytes)
                    .with_rules(cfg.slow_start_growth, cfg.cubic_alpha),
            ),
        }
    }
}

impl Controller for AnyCc {
    fn cwnd(&self) -> u64 {
        match self {
            AnyCc::Reno(c) => c.cwnd(),
            AnyCc::Cubic(c) => c.cwnd(),
        }
    }

    fn ssthresh(&self) -> u64 {
        match self {
            AnyCc::Reno(c) => c.ssthresh(),
            AnyCc::Cubic(c) => c.ssthresh(),
        }
    }

    fn on_ack(&mut self, now: SimTime, acked_bytes: u64, rtt: &RtoEstimator) {
        match self {
            AnyCc::Reno(c) => c.on_ack(now, acked_bytes, rtt),
            AnyCc::Cubic(c) => c.on_ack(now, acked_bytes, rtt),
        }
    }

    fn on_congestion_event(&mut self, now: SimTime, flight_size: u64, rtt: &RtoEstimator) -> u64 {
        match self {
            AnyCc::Reno(c) => c.on_congestion_event(now, flight_size, rtt),
            AnyCc::Cubic(c) => c.on_congestion_event(now, flight_size, rtt),
        }
    }

    fn on_timeout(&mut self, now: SimTime, flight_size: u64, set_ssthresh: bool, rtt: &RtoEstimator) {
        match self {
            AnyCc::Reno(c) => c.on_timeout(now, flight_size, set_ssthresh, rtt),
            AnyCc::Cubic(c) => c.on_timeout(now, flight_size, set_ssthresh, rtt),
        }
    }

    fn set_cwnd(&mut self, cwnd: u64) {
        match self {
            AnyCc::Reno(c) => c.set_cwnd(cwnd),
            AnyCc::Cubic(c) => c.set_cwnd(cwnd),
        }
    }

    fn set_ssthresh(&mut self, ssthresh: u64) {
        match self {
            AnyCc::Reno(c) => c.set_ssthresh(ssthresh),
            AnyCc::Cubic(c) => c.set_ssthresh(ssthresh),
        }
    }

    fn on_spurious_timeout(&mut self, cwnd: u64, ssthresh: u64) {
        match self {
            AnyCc::Reno(c) => c.on_spurious_timeout(cwnd, ssthresh),
            AnyCc::Cubic(c) => c.on_spurious_timeout(cwnd, ssthresh),
        }
    }

    fn on_path_change(&mut self, now: SimTime, change: &PathChange, rtt: &RtoEstimator) {
        match self {
            AnyCc::Reno(c) => c.on_path_change(now, change, rtt),
            AnyCc::Cubic(c) => c.on_path_change(now, change, rtt),
        }
    }
}

//! Congestion control: window growth and the response to a congestion signal, behind one
//! trait. Loss *detection* and the choice of what to retransmit live in `tcp/recovery/`; a
//! controller only owns cwnd and ssthresh (and whatever state its algorithm needs), and may
//! set a pacing rate.
//!
//! Adding a controller: one file here implementing `Controller` and declaring its settings
//! (its `[tcp.<name>]` table, `table.rs`) and a `pub const ALGORITHM: Table<..>`, and one line
//! in [`ALGORITHMS`]. Its controller sits behind `AnyCc::Other` (called through a pointer)
//! until it earns an arm in `AnyCc`, in `inner()`/`inner_mut()` and in the `each!` macro. A
//! test's controller registers with `scenario::Registry::with_algorithm`
//! (`tests/bbr_stub.rs`).

mod cubic;
pub mod hystart;
pub mod hystart_linux;
mod reno;
mod slow_start;
pub mod table;

pub use cubic::{Cubic, CubicSettings, ALGORITHM as CUBIC, ALPHA_CUBIC};
pub use reno::{Reno, RenoSettings, ALGORITHM as RENO};
pub use slow_start::{GrowthGateState, NewAck, SlowStartExit, SlowStartExits};
pub use table::{Algorithm, CcSettings, KeyError, Table};

use super::config::TcpConfig;
use super::path::PathChange;
use super::rate::RateSample;
use super::rto::RtoEstimator;
use crate::engine::time::SimTime;

/// The built-in controllers: `tcp.cc` names one, `[tcp.<name>]` holds its settings. One line
/// per algorithm.
pub const ALGORITHMS: &[&dyn Algorithm] = &[
    &RENO,  // RFC 5681
    &CUBIC, // RFC 9438
];

/// Hooks named after events. The sender calls them with the time of the event and its RTT
/// estimator (srtt, rttvar, min and latest sample), and reads `cwnd()` / `ssthresh()`.
pub trait Controller {
    fn cwnd(&self) -> u64;
    fn ssthresh(&self) -> u64;
    /// New data was cumulatively acknowledged outside loss recovery. The controller runs its
    /// slow-start exits (HyStart++, Linux HyStart: `slow_start.rs`) and grows cwnd if
    /// `ack.may_grow` allows.
    fn on_ack(&mut self, now: SimTime, ack: &NewAck, rtt: &RtoEstimator);
    /// A loss (or an ECN echo) was detected with `flight_size` bytes outstanding. Sets and
    /// returns the new ssthresh; the caller then sets cwnd as its recovery algorithm says.
    fn on_congestion_event(&mut self, now: SimTime, flight_size: u64, rtt: &RtoEstimator) -> u64;
    /// The retransmission timer expired. `flight_size` is the amount the sender's
    /// `config::RtoSsthresh` rule halves; `set_ssthresh` is false when that rule keeps
    /// ssthresh (e.g. a repeated timeout of the same segment, RFC 5681 §3.1). `snd_max`
    /// starts a slow-start exit's next round.
    fn on_timeout(&mut self, now: SimTime, flight_size: u64, set_ssthresh: bool, snd_max: u64, rtt: &RtoEstimator);
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
    /// Slow starts this controller ended without a loss, by signal.
    fn slow_start_exits(&self) -> SlowStartExits {
        SlowStartExits::default()
    }

    // ---- rate-based control: hooks a window-based controller leaves alone ----------------

    /// Whether the controller reads delivery-rate samples (`tcp/rate.rs`). Asked once, when
    /// the controller is put on the sender: only then does the sender keep per-segment
    /// transmission records and call `on_sent`, `on_app_limited` and `on_rate_sample`.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// A segment of `bytes` left at `now` (new data or a retransmission); `in_flight_bytes`
    /// are outstanding after it. Only with `wants_rate_samples`.
    fn on_sent(&mut self, _now: SimTime, _bytes: u64, _in_flight_bytes: u64) {}
    /// The sender ran out of application data with room in its window (draft "Delivery Rate
    /// Estimation" §3.4; Linux `tcp_rate_check_app_limited`). Only with `wants_rate_samples`.
    fn on_app_limited(&mut self, _now: SimTime) {}
    /// An ACK delivered data and gave a rate sample; called after the window hooks for that
    /// ACK. Only with `wants_rate_samples`.
    fn on_rate_sample(&mut self, _now: SimTime, _sample: &RateSample, _rtt: &RtoEstimator) {}
    /// The rate the sender paces its segments at, in bit/s of IP packets (payload and
    /// headers), or None: segments leave as the window allows (every built-in controller).
    fn pacing_rate_bps(&self) -> Option<u64> {
        None
    }
}

/// The configured controller, dispatched by `match` (no boxing on the hot path for the
/// built-in ones). `Other` holds a controller the crate does not know (a test's stub),
/// called through a pointer.
pub enum AnyCc {
    Reno(Reno),
    Cubic(Cubic),
    Other(Box<dyn Controller>),
}

impl std::fmt::Debug for AnyCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyCc::Reno(c) => c.fmt(f),
            AnyCc::Cubic(c) => c.fmt(f),
            AnyCc::Other(_) => f.write_str("Other"),
        }
    }
}

impl AnyCc {
    /// The controller `cfg.cc` makes, with its settings (`cfg.cc_settings`).
    pub fn new(cfg: &TcpConfig) -> Self {
        cfg.cc.algorithm().controller(cfg)
    }

    /// The variant as a trait object (smoltcp's `AnyController::inner`), for code that
    /// works on any controller. The sender's hot path goes through the `Controller` impl
    /// below instead, which dispatches statically.
    pub fn inner(&self) -> &dyn Controller {
        match self {
            AnyCc::Reno(c) => c,
            AnyCc::Cubic(c) => c,
            AnyCc::Other(c) => c.as_ref(),
        }
    }

    /// The variant as a mutable trait object.
    pub fn inner_mut(&mut self) -> &mut dyn Controller {
        match self {
            AnyCc::Reno(c) => c,
            AnyCc::Cubic(c) => c,
            AnyCc::Other(c) => c.as_mut(),
        }
    }
}

/// Forwards a call to the variant, statically: a call through `inner()` stays an indirect
/// call after inlining (the compiler does not fold the vtable), so every `cwnd()` on the hot
/// path became a call (bench/decisions.md).
macro_rules! each {
    ($self:ident, $c:ident => $call:expr) => {
        match $self {
            AnyCc::Reno($c) => $call,
            AnyCc::Cubic($c) => $call,
            AnyCc::Other($c) => $call,
        }
    };
}

impl Controller for AnyCc {
    #[inline]
    fn cwnd(&self) -> u64 {
        each!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> u64 {
        each!(self, c => c.ssthresh())
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &NewAck, rtt: &RtoEstimator) {
        each!(self, c => c.on_ack(now, ack, rtt))
    }
    fn on_congestion_event(&mut self, now: SimTime, flight_size: u64, rtt: &RtoEstimator) -> u64 {
        each!(self, c => c.on_congestion_event(now, flight_size, rtt))
    }
    fn on_timeout(&mut self, now: SimTime, flight_size: u64, set_ssthresh: bool, snd_max: u64, rtt: &RtoEstimator) {
        each!(self, c => c.on_timeout(now, flight_size, set_ssthresh, snd_max, rtt))
    }
    #[inline]
    fn set_cwnd(&mut self, cwnd: u64) {
        each!(self, c => c.set_cwnd(cwnd))
    }
    #[inline]
    fn set_ssthresh(&mut self, ssthresh: u64) {
        each!(self, c => c.set_ssthresh(ssthresh))
    }
    fn on_spurious_timeout(&mut self, cwnd: u64, ssthresh: u64) {
        each!(self, c => c.on_spurious_timeout(cwnd, ssthresh))
    }
    fn on_path_change(&mut self, now: SimTime, change: &PathChange, rtt: &RtoEstimator) {
        each!(self, c => c.on_path_change(now, change, rtt))
    }
    fn slow_start_exits(&self) -> SlowStartExits {
        each!(self, c => c.slow_start_exits())
    }
    fn wants_rate_samples(&self) -> bool {
        each!(self, c => c.wants_rate_samples())
    }
    fn on_sent(&mut self, now: SimTime, bytes: u64, in_flight_bytes: u64) {
        each!(self, c => c.on_sent(now, bytes, in_flight_bytes))
    }
    fn on_app_limited(&mut self, now: SimTime) {
        each!(self, c => c.on_app_limited(now))
    }
    fn on_rate_sample(&mut self, now: SimTime, sample: &RateSample, rtt: &RtoEstimator) {
        each!(self, c => c.on_rate_sample(now, sample, rtt))
    }
    #[inline]
    fn pacing_rate_bps(&self) -> Option<u64> {
        each!(self, c => c.pacing_rate_bps())
    }
}

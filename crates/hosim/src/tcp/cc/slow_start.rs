//! What a controller learns from an ACK of new data outside recovery (`NewAck`), and the
//! ways of ending the initial slow start before a loss that a window-based controller runs on
//! it: RFC 9406 HyStart++ (`hystart.rs`, `tcp.hystart`) and Linux's HyStart (`hystart_linux.rs`,
//! `tcp.linux_hystart`, CUBIC only as in Linux's `tcp_cubic.c`).

use super::hystart::{Growth, HyStart, CSS_GROWTH_DIVISOR};
use super::hystart_linux::{Exit, LinuxHyStart};
use crate::engine::time::SimTime;
use crate::tcp::rto::RtoEstimator;

/// An ACK of new data outside recovery, as the sender saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAck {
    /// Bytes newly acknowledged.
    pub bytes: u64,
    /// The cumulative ACK (snd_una after it) and snd_max.
    pub snd_una: u64,
    pub snd_max: u64,
    /// The RTT sample this ACK gave, if Karn's rule allowed one.
    pub rtt_sample_ns: Option<SimTime>,
    /// The sender's growth gate (`config::GrowthGate`): `Always`, or Linux's
    /// `tcp_is_cwnd_limited` with the window's cwnd-limited flag and most bytes outstanding.
    pub gate: GrowthGateState,
}

/// Whether an ACK may grow cwnd (`config::GrowthGate`), as of this ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrowthGateState {
    Open,
    /// Linux `tcp_is_cwnd_limited`: grow while the window is cwnd-limited, and in slow start
    /// while cwnd is below twice the most bytes outstanding.
    CwndLimited {
        limited: bool,
        max_flight_bytes: u64,
    },
}

impl NewAck {
    /// A plain ACK of `bytes` (tests, and controllers driven without a sender).
    pub fn of(bytes: u64) -> NewAck {
        NewAck { bytes, snd_una: 0, snd_max: 0, rtt_sample_ns: None, gate: GrowthGateState::Open }
    }

    /// Whether cwnd may grow for this ACK, given cwnd and ssthresh after any slow-start exit.
    #[inline]
    pub fn may_grow(&self, cwnd: u64, ssthresh: u64) -> bool {
        match self.gate {
            GrowthGateState::Open => true,
            GrowthGateState::CwndLimited { limited, max_flight_bytes } => {
                limited || (cwnd < ssthresh && cwnd < 2 * max_flight_bytes)
            }
        }
    }
}

/// Slow starts ended without a loss, by signal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlowStartExits {
    /// RFC 9406 HyStart++: through CSS.
    pub css: u64,
    /// Linux HyStart: by ACK train (`TCPHystartTrainDetect`) and by delay
    /// (`TCPHystartDelayDetect`).
    pub train: u64,
    pub delay: u64,
}

/// The slow-start exits a controller runs, each off unless configured.
#[derive(Clone, Debug, Default)]
pub struct SlowStartExit {
    /// RFC 9406 HyStart++, until the initial slow start ends.
    hystart: Option<HyStart>,
    linux: Option<LinuxHyStart>,
    /// HyStart++ runs only in the initial slow start: while ssthresh is still this.
    initial_ssthresh: u64,
    mss: u64,
    pub exits: SlowStartExits,
}

impl SlowStartExit {
    pub fn new(hystart: bool, linux_hystart: bool, initial_ssthresh: u64, mss_bytes: u32) -> Self {
        SlowStartExit {
            hystart: hystart.then(HyStart::default),
            linux: linux_hystart.then(LinuxHyStart::default),
            initial_ssthresh,
            mss: mss_bytes as u64,
            exits: SlowStartExits::default(),
        }
    }

    /// Both exits, in this order, for an ACK of new data outside recovery; either may set
    /// `*ssthresh = cwnd`. Returns the bytes the controller's slow start counts for the ACK.
    #[inline]
    pub fn on_ack(&mut self, now: SimTime, ack: &NewAck, cwnd: u64, ssthresh: &mut u64, rtt: &RtoEstimator) -> u64 {
        let mut acked = ack.bytes;
        if self.hystart.is_some() {
            acked = self.hystart_growth(ack, cwnd, ssthresh);
        }
        if self.linux.is_some() {
            self.linux_check(now, ack, cwnd, ssthresh, rtt);
        }
        acked
    }

    /// Linux `bictcp_reset` on a timeout; `snd_max` starts the next round.
    pub fn on_timeout(&mut self, now: SimTime, snd_max: u64) {
        if let Some(h) = self.linux.as_mut() {
            h.on_timeout(now, snd_max);
        }
    }

    /// RFC 9406 HyStart++ in the initial slow start: the bytes slow start counts for this ACK
    /// (a quarter of the RFC 5681 increase min(N, SMSS) in CSS), and ssthresh = cwnd when CSS
    /// ends. Off for good after the first congestion event.
    #[inline(never)]
    fn hystart_growth(&mut self, ack: &NewAck, cwnd: u64, ssthresh: &mut u64) -> u64 {
        let Some(h) = self.hystart.as_mut() else { return ack.bytes };
        if *ssthresh != self.initial_ssthresh || cwnd >= *ssthresh {
            self.hystart = None;
            return ack.bytes;
        }
        match h.on_ack(ack.snd_una, ack.snd_max, ack.rtt_sample_ns) {
            Growth::SlowStart => ack.bytes,
            Growth::Conservative => (ack.bytes.min(self.mss) / CSS_GROWTH_DIVISOR).max(1),
            Growth::EnterCongestionAvoidance => {
                self.exits.css += 1;
                self.hystart = None;
                *ssthresh = cwnd;
                ack.bytes
            }
        }
    }

    /// Linux's HyStart (`cubictcp_acked`): an exit sets ssthresh = cwnd. Linux's pacing rate
    /// (`tcp_update_pacing_rate`, 200 % in slow start) sizes the ACK-train cushion.
    #[inline(never)]
    fn linux_check(&mut self, now: SimTime, ack: &NewAck, cwnd: u64, ssthresh: &mut u64, rtt: &RtoEstimator) {
        let Some(h) = self.linux.as_mut() else { return };
        let pacing = rtt.srtt_ns().map_or(0, |s| (2 * cwnd as u128 * 1_000_000_000 / s.max(1) as u128) as u64);
        match h.on_ack(now, ack.snd_una, ack.snd_max, cwnd, *ssthresh, self.mss, ack.rtt_sample_ns, pacing) {
            Some(Exit::AckTrain) => self.exits.train += 1,
            Some(Exit::Delay) => self.exits.delay += 1,
            None => return,
        }
        *ssthresh = cwnd;
    }
}

//! TCP: a byte-sequence sender and receiver.
//!
//! Reading list, and where each is followed:
//! - RFC 5681 TCP Congestion Control: slow start and congestion avoidance `cc/reno.rs`; fast
//!   retransmit and fast recovery (Reno) `recovery/reno.rs`; delayed ACKs (§4.2)
//!   `receiver.rs`.
//! - RFC 6582 NewReno: partial ACKs, `recover`, the impatient and slow-but-steady timer
//!   variants (§3.2, §4). `recovery/newreno.rs`.
//! - RFC 6675 SACK-based loss recovery: scoreboard, IsLost, SetPipe `scoreboard.rs`; entry,
//!   RecoveryPoint, NextSeg `recovery/sack.rs`.
//! - RFC 2018 SACK option: block generation at the receiver (§4) `receiver.rs`, dropping SACK
//!   state after a timeout (§8) `recovery/sack.rs`.
//! - RFC 6298 retransmission timer: estimator, Karn's rule, backoff `rto.rs`; timer
//!   management `sender.rs`.
//! - RFC 3042 Limited Transmit. `sender.rs`.
//! - Where the RFCs leave room: named profiles (`rfc`, `ns2`, `ns3`, `linux`). `profile.rs`.
//! - RFC 8985 RACK-TLP: per-segment send times, time-based loss marking and the reorder
//!   timer `recovery/rack.rs`; the tail loss probe and the shared timer `sender/rack_tlp.rs`.
//! - RFC 5682 F-RTO and the RFC 4015 Eifel response to a spurious timeout `sender/frto.rs`.
//! - RFC 3168 ECN: ECT on data, ECE/CWR, one reduction per window. `sender.rs`, `receiver.rs`.
//! - Delivery-rate samples (IETF draft "Delivery Rate Estimation"; Linux `tcp_rate.c`, ns-3
//!   `TcpRateLinux`) `rate.rs`; pacing and the hooks of a rate-based controller
//!   `sender/rate_based.rs`.
//!
//! Window growth (`cc::Controller`) and loss recovery (`recovery::LossRecovery`) are separate
//! plug-ins, each dispatched by an enum (`AnyCc`, `AnyRecovery`). A window set from outside by
//! a network element is `window.rs`; a path change reported by a mobility mechanism is
//! `path.rs`.
//!
//! Sequence numbers are 64-bit byte offsets starting at 0 for the first data byte; the SYN
//! and SYN-ACK are control packets outside that space. Nothing wraps.
//!
//! Protocol objects do no I/O and read no clock: they take `now` and inputs and push the
//! segments to send into an output buffer owned by the caller.

pub mod cc;
pub mod config;
pub mod path;
pub mod profile;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod scoreboard;
pub mod sender;
pub mod timer_wheel;
pub mod window;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod linux_dialect_tests;
#[cfg(test)]
mod newreno_timer_tests;
#[cfg(test)]
mod ns2_dialect_tests;
#[cfg(test)]
mod rack_frto_tests;

pub use config::{
    CaGrowth, CcKind, CubicAlpha, FastRetransmitWindow, GoBackN, GrowthGate, LossDetection, NewRenoExit,
    NewRenoReentry, NewRenoTimer, Recovery, RecoveryRate, ReductionBasis, RenoReentry, RtoFormula, RtoRearm,
    RtoSsthresh, RttSampling, SackEntry, SackPipe, SackRetransmit, SlowStartGrowth, SynTimeout, TcpConfig,
};
pub use path::{AccessKind, DelayShift, Handoff, PathChange};
pub use profile::{Profile, ProfileKeys};
pub use receiver::TcpReceiver;
pub use sender::{Segment, TcpSender};

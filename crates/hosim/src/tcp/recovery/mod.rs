//! Loss recovery behind one trait: loss detection (counting duplicate ACKs, RFC 6675 IsLost),
//! the window response while recovering, and the choice of what to retransmit. Window growth
//! outside recovery belongs to the congestion controller (`tcp/cc/`); sending belongs to the
//! sender. Hooks take what they read as explicit arguments (the controller, the scoreboard,
//! snd_una/snd_max) and return what the sender must transmit.
//!
//! One file per variant: `reno.rs` (RFC 5681 §3.2), `newreno.rs` (RFC 6582), `sack.rs`
//! (RFC 6675). The phases follow ns-3's `TcpRecoveryOps`: `enter`, `on_ack` while
//! recovering, `exit`.

mod newreno;
mod prr;
mod rack;
mod reno;
mod sack;

pub use newreno::NewReno;
pub use prr::{Prr, ReductionBound};
pub use rack::{Marked, Rack};
pub use reno::Reno;
pub use sack::Sack;

use super::cc::AnyCc;
use super::config::{LossDetection, Recovery, RecoveryRate, TcpConfig};
use super::path::PathChange;
use super::rto::RtoEstimator;
use super::scoreboard::Scoreboard;
use crate::engine::time::SimTime;

/// The sender's sequence state a hook reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outstanding {
    /// Oldest unacknowledged byte (RFC 6675 HighACK + 1).
    pub snd_una: u64,
    /// One past the highest byte sent (RFC 6675 HighData + 1).
    pub snd_max: u64,
}

impl Outstanding {
    /// RFC 5681 FlightSize, bytes.
    pub fn flight_size(self) -> u64 {
        self.snd_max - self.snd_una
    }
}

/// What the sender does after an ACK of new data arrived during recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckInRecovery {
    /// Recovery goes on. `retransmit`: the scoreboard index to resend now; `restart_timer`:
    /// whether RFC 6298 (5.3) restarts the retransmission timer for this ACK.
    Continue { retransmit: Option<usize>, restart_timer: bool },
    /// The ACK ends recovery; the sender calls `exit`.
    Exit,
}

/// RFC 6675 NextSeg(): what to send next while the recovery chooses transmissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Resend the segment at this scoreboard index.
    Retransmit(usize),
    /// Send one segment of new data.
    NewData,
}

pub trait LossRecovery {
    /// Whether a loss-recovery episode is in progress.
    fn in_recovery(&self) -> bool;

    /// Duplicate ACKs in a row since the last ACK of new data (RFC 5681 §2).
    fn dupacks(&self) -> u32;

    /// Whether the sender reads SACK blocks (RFC 2018) into the scoreboard.
    fn uses_sack(&self) -> bool {
        false
    }

    /// Whether an ACK that leaves snd_una unchanged while data is outstanding is a duplicate
    /// ACK. `window_changed`: it advertises another receive window.
    fn is_duplicate(&self, newly_sacked_bytes: u64, window_changed: bool) -> bool;

    /// Loss detection only: counts one duplicate ACK and returns the run length.
    fn count_dupack(&mut self) -> u32;

    /// An ACK of new data outside recovery ends the run of duplicate ACKs.
    fn reset_dupacks(&mut self);

    /// The response to a duplicate ACK just counted, under congestion control. True when loss
    /// recovery must begin now (the sender then calls `enter`).
    fn on_dupack(&mut self, now: SimTime, cc: &mut AnyCc, board: &mut Scoreboard, seq: Outstanding) -> bool;

    /// Enters recovery. `flight_size` excludes the data Limited Transmit sent. Sets ssthresh
    /// and cwnd through `cc`; returns the scoreboard index to retransmit first.
    fn enter(
        &mut self,
        now: SimTime,
        cc: &mut AnyCc,
        rtt: &RtoEstimator,
        board: &Scoreboard,
        seq: Outstanding,
        flight_size: u64,
    ) -> Option<usize>;

    /// An ACK of `acked_bytes` new data during recovery; `board` and `seq` already reflect it.
    fn on_ack(
        &mut self,
        now: SimTime,
        cc: &mut AnyCc,
        board: &Scoreboard,
        seq: Outstanding,
        acked_bytes: u64,
    ) -> AckInRecovery;

    /// Leaves recovery (or stays out of it) and forgets the run of duplicate ACKs.
    fn exit(&mut self);

    /// Every ACK, after the sender has processed it and before it sends: `board` and `seq`
    /// reflect it. PRR (RFC 6937) sets cwnd here.
    fn on_ack_processed(&mut self, _cc: &mut AnyCc, _board: &mut Scoreboard, _seq: Outstanding) {}

    /// The retransmission timer expired; `exit` has been called.
    fn on_rto(&mut self, _seq: Outstanding, _board: &mut Scoreboard) {}

    /// With RACK (RFC 8985): whether a segment RACK marked lost may start recovery now
    /// (not already recovering, and past an RTO's RecoveryPoint, RFC 6675 §5.1).
    fn may_enter(&self, _seq: Outstanding) -> bool {
        false
    }

    /// F-RTO (RFC 5682) declared the last timeout spurious: the RTO's `recover` point no
    /// longer holds fast recovery back.
    fn on_spurious_timeout(&mut self, _seq: Outstanding) {}

    /// RFC 6675 §4 pipe when the retransmission timer fires, before `exit`: the bytes the
    /// sender estimates are still in the network. Without SACK every duplicate ACK stands for
    /// one segment that left the network (Linux `tcp_add_reno_sack`, ns-3
    /// `TcpTxBuffer::AddRenoSack`).
    fn pipe_at_timeout(&mut self, _board: &mut Scoreboard, seq: Outstanding) -> u64 {
        seq.flight_size()
    }

    /// Whether the recovery chooses every transmission now (`next_seg`) instead of the
    /// sender's window loop.
    fn drives_transmission(&self) -> bool {
        false
    }

    /// RFC 6675 SetPipe() while the recovery drives transmission.
    fn pipe(&self) -> Option<u64> {
        None
    }

    /// The next transmission while the recovery drives them, or None when the window is full
    /// or nothing is eligible. `new_data_bytes`: the length of the next new segment if it fits
    /// the receiver's window, else 0. `continuing`: since the previous call, which chose a
    /// transmission, the sender has made that transmission and nothing else (the calls of one
    /// sending loop), so the recovery may carry its state over instead of recomputing it.
    fn next_seg(
        &mut self,
        _board: &mut Scoreboard,
        _cwnd: u64,
        _snd_una: u64,
        _new_data_bytes: u64,
        _continuing: bool,
    ) -> Option<NextSeg> {
        None
    }

    /// The sender's packets now take another path. Standard recovery ignores it.
    fn on_path_change(&mut self, _now: SimTime, _change: &PathChange) {}
}

/// The configured recovery, dispatched by `match` (no boxing on the hot path).
#[derive(Clone, Debug)]
pub enum AnyRecovery {
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
}

impl AnyRecovery {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.recovery {
            Recovery::Reno => AnyRecovery::Reno(Reno::new(cfg.dupack_threshold, cfg.mss_bytes, cfg.reno_reentry)),
            Recovery::NewReno => AnyRecovery::NewReno(NewReno::new(
                cfg.dupack_threshold,
                cfg.mss_bytes,
                cfg.newreno_timer,
                cfg.newreno_reentry,
                cfg.newreno_exit,
            )),
            Recovery::Sack => {
                let prr = match cfg.recovery_rate {
                    RecoveryRate::Classic => None,
                    RecoveryRate::PrrSsrb => Some(ReductionBound::SlowStart),
                    RecoveryRate::PrrCrb => Some(ReductionBound::Conservative),
                    RecoveryRate::PrrLinux => Some(ReductionBound::Linux),
                };
                let rack = cfg.loss_detection == LossDetection::RackTlp;
                AnyRecovery::Sack(
                    Sack::new(cfg.dupack_threshold, cfg.mss_bytes, cfg.rescue_retransmission, prr, cfg.sack_pipe, rack)
                        .with_ns2_dialect(cfg.sack_entry, cfg.sack_retransmit)
                        .with_reduction_basis(cfg.reduction_basis),
                )
            }
        }
    }
}

/// Forwards a call to the variant.
macro_rules! each {
    ($self:ident, $r:ident => $call:expr) => {
        match $self {
            AnyRecovery::Reno($r) => $call,
            AnyRecovery::NewReno($r) => $call,
            AnyRecovery::Sack($r) => $call,
        }
    };
}

impl LossRecovery for AnyRecovery {
    fn in_recovery(&self) -> bool {
        each!(self, r => r.in_recovery())
    }

    fn dupacks(&self) -> u32 {
        each!(self, r => r.dupacks())
    }

    fn uses_sack(&self) -> bool {
        each!(self, r => r.uses_sack())
    }

    fn is_duplicate(&self, newly_sacked_bytes: u64, window_changed: bool) -> bool {
        each!(self, r => r.is_duplicate(newly_sacked_bytes, window_changed))
    }

    fn count_dupack(&mut self) -> u32 {
        each!(self, r => r.count_dupack())
    }

    fn reset_dupacks(&mut self) {
        each!(self, r => r.reset_dupacks())
    }

    fn on_dupack(&mut self, now: SimTime, cc: &mut AnyCc, board: &mut Scoreboard, seq: Outstanding) -> bool {
        each!(self, r => r.on_dupack(now, cc, board, seq))
    }

    fn enter(
        &mut self,
        now: SimTime,
        cc: &mut AnyCc,
        rtt: &RtoEstimator,
        board: &Scoreboard,
        seq: Outstanding,
        flight_size: u64,
    ) -> Option<usize> {
        each!(self, r => r.enter(now, cc, rtt, board, seq, flight_size))
    }

    fn on_ack(
        &mut self,
        now: SimTime,
        cc: &mut AnyCc,
        board: &Scoreboard,
        seq: Outstanding,
        acked_bytes: u64,
    ) -> AckInRecovery {
        each!(self, r => r.on_ack(now, cc, board, seq, acked_bytes))
    }

    fn exit(&mut self) {
        each!(self, r => r.exit())
    }

    fn on_rto(&mut self, seq: Outstanding, board: &mut Scoreboard) {
        each!(self, r => r.on_rto(seq, board))
    }

    fn may_enter(&self, seq: Outstanding) -> bool {
        each!(self, r => r.may_enter(seq))
    }

    fn on_spurious_timeout(&mut self, seq: Outstanding) {
        each!(self, r => r.on_spurious_timeout(seq))
    }

    fn pipe_at_timeout(&mut self, board: &mut Scoreboard, seq: Outstanding) -> u64 {
        each!(self, r => r.pipe_at_timeout(board, seq))
    }

    fn drives_transmission(&self) -> bool {
        each!(self, r => r.drives_transmission())
    }

    fn pipe(&self) -> Option<u64> {
        each!(self, r => r.pipe())
    }

    fn next_seg(
        &mut self,
        board: &mut Scoreboard,
        cwnd: u64,
        snd_una: u64,
        new_data_bytes: u64,
        continuing: bool,
    ) -> Option<NextSeg> {
        each!(self, r => r.next_seg(board, cwnd, snd_una, new_data_bytes, continuing))
    }

    fn on_ack_processed(&mut self, cc: &mut AnyCc, board: &mut Scoreboard, seq: Outstanding) {
        each!(self, r => r.on_ack_processed(cc, board, seq))
    }

    fn on_path_change(&mut self, now: SimTime, change: &PathChange) {
        each!(self, r => r.on_path_change(now, change))
    }
}

/// HighACK + 1, the segment every variant retransmits first (RFC 5681 §3.2 step 2,
/// RFC 6582 §3.2 step 4, RFC 6675 (4.3)).
fn first_unacked(board: &Scoreboard) -> Option<usize> {
    (!board.is_empty()).then_some(0)
}

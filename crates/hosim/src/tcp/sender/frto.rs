//! F-RTO, RFC 5682: after a retransmission timeout, send new data instead of going back N
//! and see whether the next two ACKs acknowledge data that was not retransmitted; if so the
//! timeout was spurious. The basic algorithm (§2) without SACK, the SACK-enhanced one (§3)
//! with it. A spurious timeout gets the Eifel response, RFC 4015 §2: resume with new data and
//! restore the congestion state.
//!
//! Choices (docs/tcp.md, "F-RTO"): F-RTO starts only on a timeout outside fast recovery (Linux
//! `tcp_enter_loss`: `tp->frto` only when the state is below `TCP_CA_Recovery`) unless
//! `frto_in_recovery` is set; the Eifel
//! response restores cwnd and ssthresh (steps (1), (3), (4)) but not the RTO estimator
//! (steps (2), (5), which need a timestamp-based RTT after the timeout).

use super::{Segment, TcpSender};
use crate::engine::time::SimTime;
use crate::tcp::cc::Controller;
use crate::tcp::recovery::LossRecovery;

/// Where the sender is in RFC 5682's steps. `recover`: one past the highest byte sent when
/// the timer expired (the RFC's "recover" + 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Frto {
    #[default]
    Off,
    /// Step 2: waiting for the first ACK after the timeout.
    AwaitFirst { recover: u64 },
    /// Step 3: two new segments sent; waiting for the next ACK.
    AwaitSecond { recover: u64 },
}

/// What an ACK told F-RTO, read in `on_ack`.
#[derive(Clone, Copy, Debug)]
pub(super) struct FrtoAck {
    /// snd_una before the ACK.
    pub snd_una_before: u64,
    /// Bytes the ACK acknowledged cumulatively.
    pub acked: u64,
    /// A duplicate ACK as the recovery defines it (RFC 5681 §2, RFC 6675 §2).
    pub duplicate: bool,
    /// Bytes the ACK newly SACKed.
    pub newly_sacked: u64,
    /// The highest end of its SACK blocks (0 without).
    pub sack_high: u64,
    pub ece: bool,
}

impl TcpSender {
    /// Step 1, at the timeout, before the controller reacts: whether F-RTO starts (not on a
    /// repeated timeout or one during RTO recovery: "If the TCP sender is already in RTO
    /// recovery AND recover >= SND.UNA, do not enter step 2"), and RFC 4015 §2 step (1):
    /// pipe_prev = max(FlightSize, ssthresh).
    pub(super) fn frto_on_timeout(&mut self, in_fast_recovery: bool) {
        let start = self.cfg.frto
            && self.consecutive_timeouts == 0
            && !self.in_rto_recovery()
            && (self.cfg.frto_in_recovery || !in_fast_recovery);
        self.frto = if start { Frto::AwaitFirst { recover: self.snd_max } } else { Frto::Off };
        self.eifel_pipe_prev = (self.snd_max - self.snd_una).max(self.cc.ssthresh());
    }

    /// Whether F-RTO holds the go-back-N retransmissions back (between steps 2b and 3).
    pub(super) fn frto_holds_retransmissions(&self) -> bool {
        matches!(self.frto, Frto::AwaitSecond { .. })
    }

    /// Steps 2 and 3 for an ACK the sender has processed, before it sends.
    pub(super) fn frto_on_ack(&mut self, now: SimTime, a: FrtoAck, out: &mut Vec<Segment>) {
        let advanced = self.snd_una > a.snd_una_before;
        let sack = self.cfg.sack();
        match self.frto {
            Frto::Off => {}
            Frto::AwaitFirst { recover } => {
                if !advanced {
                    // Basic (2a): a duplicate ACK means conventional recovery. SACK (2): stay
                    // in step 2, the scoreboard has taken the SACK information.
                    if a.duplicate && !sack {
                        self.frto = Frto::Off;
                    }
                } else if self.snd_una >= recover {
                    // (2a) the ACK covers "recover": conventional RTO recovery; §3 step 2a:
                    // cwnd no more than 2 * MSS.
                    self.frto = Frto::Off;
                    if sack {
                        self.cc.set_cwnd(self.cc.cwnd().min(2 * self.cfg.mss_bytes as u64));
                    }
                } else {
                    self.frto_send_two_new(now, recover, out);
                }
            }
            Frto::AwaitSecond { recover } => {
                let verdict = if sack { self.frto_sack_step3(a, recover) } else { self.frto_basic_step3(a) };
                match verdict {
                    Some(true) => self.on_spurious_timeout(now, a),
                    Some(false) => {
                        // (3a) cwnd no more than 3 * MSS; go on with slow-start retransmissions.
                        self.frto = Frto::Off;
                        self.cc.set_cwnd(self.cc.cwnd().min(3 * self.cfg.mss_bytes as u64));
                    }
                    None => {}
                }
            }
        }
    }

    /// (2b): transmit up to two new segments and enter step 3; without new data to send (or
    /// room in the receiver's window), stay with the conventional recovery.
    fn frto_send_two_new(&mut self, now: SimTime, recover: u64, out: &mut Vec<Segment>) {
        // New data goes out at snd_max; the go-back-N point stays for step 3a.
        let go_back_n_at = self.snd_nxt;
        let mut sent = 0;
        while sent < 2 {
            let len = self.new_segment_within_rwnd();
            if len == 0 {
                break;
            }
            self.send_new(len as u32, now, out);
            sent += 1;
        }
        self.snd_nxt = go_back_n_at;
        self.frto = if sent > 0 { Frto::AwaitSecond { recover } } else { Frto::Off };
    }

    /// Basic F-RTO step 3: Some(true) spurious (3b: the ACK acknowledges data that was not
    /// retransmitted), Some(false) not (3a: a duplicate ACK), None: not an ACK step 3 reads.
    fn frto_basic_step3(&self, a: FrtoAck) -> Option<bool> {
        if self.snd_una > a.snd_una_before {
            Some(true)
        } else if a.duplicate {
            Some(false)
        } else {
            None
        }
    }

    /// SACK-enhanced F-RTO step 3 (RFC 5682 §3): (3a) if the cumulative ACK or the SACK
    /// information covers more than "recover", or a duplicate ACK acknowledges nothing new
    /// below it; (3b) if it covers no more than "recover" and acknowledges data not
    /// acknowledged before. Other ACKs are ignored.
    fn frto_sack_step3(&self, a: FrtoAck, recover: u64) -> Option<bool> {
        let advanced = self.snd_una > a.snd_una_before;
        if !advanced && a.newly_sacked == 0 && !a.duplicate {
            return None;
        }
        if self.snd_una > recover || a.sack_high > recover {
            return Some(false);
        }
        Some(advanced || a.newly_sacked > 0)
    }

    /// (3b) the timeout was spurious: RFC 5682 sets "recover" to SND.UNA; RFC 4015 §2 step
    /// (3) SND.NXT = SND.MAX, step (4) unless the ACK echoes ECN: cwnd = FlightSize +
    /// min(bytes_acked, IW), ssthresh = pipe_prev.
    fn on_spurious_timeout(&mut self, now: SimTime, a: FrtoAck) {
        self.frto = Frto::Off;
        self.stats.frto_spurious += 1;
        self.snd_nxt = self.snd_max;
        if !a.ece {
            let iw = self.cfg.initial_window_segments as u64 * self.cfg.mss_bytes as u64;
            let cwnd = (self.snd_max - self.snd_una) + a.acked.min(iw);
            self.cc.on_spurious_timeout(cwnd, self.eifel_pipe_prev);
        }
        let seq = self.outstanding();
        self.recovery.on_spurious_timeout(seq);
        self.timeout_recover_end = self.snd_una;
        self.close_episode(now);
    }
}

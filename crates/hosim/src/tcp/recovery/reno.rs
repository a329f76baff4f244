//! Reno fast retransmit and fast recovery, RFC 5681 §3.2: the DupThresh-th duplicate ACK
//! retransmits the missing segment and halves the window; the first ACK of new data ends
//! recovery. With `reno_reentry = "beyond-recover"` (ns-2 `bug_fix_`) a new fast retransmit
//! waits until the ACK passes the data outstanding at the last one or at the last timeout.

use super::{first_unacked, AckInRecovery, LossRecovery, Outstanding};
use crate::engine::time::SimTime;
use crate::tcp::cc::{AnyCc, Controller};
use crate::tcp::config::RenoReentry;
use crate::tcp::rto::RtoEstimator;
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug)]
pub struct Reno {
    dupthresh: u32,
    /// SMSS, bytes.
    mss: u64,
    dupacks: u32,
    in_recovery: bool,
    /// Bytes presumed delivered above snd_una: one SMSS per duplicate ACK, less what later
    /// cumulative ACKs covered (Linux `tcp_add_reno_sack` / `tcp_remove_reno_sacks`).
    dup_delivered: u64,
    reentry: RenoReentry,
    /// ns-2 `recover_`, stored as one past the highest byte sent at the last fast
    /// retransmit or timeout; read only under `RenoReentry::BeyondRecover`.
    recover_end: Option<u64>,
}

impl Reno {
    pub fn new(dupthresh: u32, mss_bytes: u32, reentry: RenoReentry) -> Self {
        Reno {
            dupthresh,
            mss: mss_bytes as u64,
            dupacks: 0,
            in_recovery: false,
            dup_delivered: 0,
            reentry,
            recover_end: None,
        }
    }

    /// ns-2 `RenoTcpAgent::dupack_action`: with `bug_fix_`, a fast retransmit only once
    /// `highest_ack_ > recover_`, i.e. snd_una beyond the end recorded at the last one.
    fn may_enter(&self, snd_una: u64) -> bool {
        match (self.reentry, self.recover_end) {
            (RenoReentry::BeyondRecover, Some(end)) => snd_una > end,
            _ => true,
        }
    }

    /// A cumulative ACK of `acked_bytes` during recovery: all of it but the retransmitted
    /// hole (one SMSS) had been counted by duplicate ACKs.
    pub(super) fn forget_delivered(&mut self, acked_bytes: u64) {
        self.dup_delivered -= self.dup_delivered.min(acked_bytes.saturating_sub(self.mss));
    }
}

impl LossRecovery for Reno {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn dupacks(&self) -> u32 {
        self.dupacks
    }

    fn is_duplicate(&self, _newly_sacked_bytes: u64, window_changed: bool) -> bool {
        // RFC 5681 §2 duplicate ACK: outstanding data, same ACK, same window.
        !window_changed
    }

    fn count_dupack(&mut self) -> u32 {
        self.dupacks += 1;
        self.dup_delivered += self.mss;
        self.dupacks
    }

    fn reset_dupacks(&mut self) {
        self.dupacks = 0;
        self.dup_delivered = 0;
    }

    fn on_dupack(&mut self, _now: SimTime, cc: &mut AnyCc, _board: &mut Scoreboard, seq: Outstanding) -> bool {
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
            cc.set_cwnd(cc.cwnd() + self.mss);
            return false;
        }
        // RFC 5681 §3.2 step 2: the DupThresh-th duplicate ACK starts recovery (ns-2 with
        // `bug_fix_`: only past `recover_`; the rest of the run neither inflates the window,
        // `exitFastRetrans_`, nor retransmits).
        self.dupacks == self.dupthresh && self.may_enter(seq.snd_una)
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
        // ns-2 `dupack_action`: `recover_ = maxseq_`.
        self.recover_end = Some(seq.snd_max);
        // RFC 5681 §3.2 step 2: ssthresh = max(FlightSize / 2, 2*SMSS).
        let ssthresh = cc.on_congestion_event(now, flight_size, rtt);
        // Step 3: cwnd = ssthresh + 3*SMSS, inflated for the segments that left the network.
        cc.set_cwnd(ssthresh + self.dupthresh as u64 * self.mss);
        self.in_recovery = true;
        first_unacked(board)
    }

    fn on_ack(
        &mut self,
        _now: SimTime,
        cc: &mut AnyCc,
        _board: &Scoreboard,
        _seq: Outstanding,
        _acked_bytes: u64,
    ) -> AckInRecovery {
        // RFC 5681 §3.2 step 6: the first ACK of new data deflates the window.
        cc.set_cwnd(cc.ssthresh());
        AckInRecovery::Exit
    }

    fn exit(&mut self) {
        self.in_recovery = false;
        self.dupacks = 0;
        self.dup_delivered = 0;
    }

    fn on_rto(&mut self, seq: Outstanding, _board: &mut Scoreboard) {
        // ns-2 `RenoTcpAgent::timeout`: `if (bug_fix_) recover_ = maxseq_`.
        self.recover_end = Some(seq.snd_max);
    }

    fn on_spurious_timeout(&mut self, seq: Outstanding) {
        // RFC 5682 §2 step 3b: "set the value of recover variable to SND.UNA".
        self.recover_end = Some(seq.snd_una);
    }

    fn pipe_at_timeout(&mut self, _board: &mut Scoreboard, seq: Outstanding) -> u64 {
        // RFC 6675 §4 pipe without SACK: the retransmitted hole at least stays in flight.
        let flight = seq.flight_size();
        flight - self.dup_delivered.min(flight.saturating_sub(self.mss))
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::config::Recovery;
    use crate::tcp::fixtures::*;

    #[test]
    fn reno_recovery_partial_ack_exits_at_ssthresh_without_retransmitting() {
        let mut s = reno_in_fast_recovery();
        let out = ack(&mut s, 300, 4 * MSS);
        assert!(!s.in_recovery(), "RFC 5681 §3.2 step 6: the first ACK of new data ends recovery");
        assert_eq!(s.cwnd(), 5000);
        assert!(out.is_empty(), "segment 4 waits for new duplicate ACKs or the timer: {out:?}");
    }

    #[test]
    fn after_rto_reno_three_dupacks_enter_fast_recovery() {
        let mut s = after_rto(Recovery::Reno);
        assert!(ack(&mut s, 1200, 0).is_empty());
        assert!(ack(&mut s, 1200, 0).is_empty());
        let out = ack(&mut s, 1200, 0);
        assert_eq!(out.first(), Some(&retx(0)));
        assert!(s.in_recovery(), "Reno has no `recover` to wait for");
        assert_eq!((s.ssthresh(), s.stats.fast_recoveries), (5000, 1));
    }
}

//! NewReno, RFC 6582: Reno's fast recovery (RFC 5681 §3.2), kept across partial ACKs until
//! `recover`, the highest byte sent at entry, is acknowledged; each partial ACK retransmits
//! the next hole. The retransmit timer after a partial ACK follows the configured variant of
//! §4 (Impatient or Slow-but-Steady).

use super::{first_unacked, AckInRecovery, LossRecovery, Outstanding, Reno};
use crate::engine::time::SimTime;
use crate::tcp::cc::{AnyCc, Controller};
use crate::tcp::config::{NewRenoExit, NewRenoReentry, NewRenoTimer, RenoReentry};
use crate::tcp::rto::RtoEstimator;
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug)]
pub struct NewReno {
    /// Duplicate-ACK counting, entry and inflation are Reno's.
    reno: Reno,
    /// SMSS, bytes.
    mss: u64,
    timer: NewRenoTimer,
    reentry: NewRenoReentry,
    /// RFC 6582 §3.2 `recover`, stored as one past the highest byte sent.
    recover_end: Option<u64>,
    partial_acks: u32,
    /// cwnd on a full ACK (RFC 6582, or ns-2's).
    exit_rule: NewRenoExit,
    /// The inflation part of cwnd during recovery, ns-2's `dupwnd_`: DupThresh*SMSS at
    /// entry, one SMSS per further duplicate ACK, deflated first by partial ACKs
    /// (`NewRenoTcpAgent::partialnewack`). Only `NewRenoExit::KeepWindow` reads it.
    dupwnd: u64,
}

impl NewReno {
    pub fn new(
        dupthresh: u32,
        mss_bytes: u32,
        timer: NewRenoTimer,
        reentry: NewRenoReentry,
        exit_rule: NewRenoExit,
    ) -> Self {
        NewReno {
            // NewReno's own `recover` (RFC 6582) gates entry; Reno's stays open.
            reno: Reno::new(dupthresh, mss_bytes, RenoReentry::Always),
            mss: mss_bytes as u64,
            timer,
            reentry,
            recover_end: None,
            partial_acks: 0,
            exit_rule,
            dupwnd: 0,
        }
    }

    /// RFC 6582 §3.2 step 4, partial ACK: retransmit the first unacknowledged segment,
    /// deflate cwnd by the amount acked and add back one SMSS if that was >= SMSS.
    fn on_partial_ack(&mut self, cc: &mut AnyCc, board: &Scoreboard, acked_bytes: u64) -> AckInRecovery {
        let mut cwnd = cc.cwnd().saturating_sub(acked_bytes);
        if acked_bytes >= self.mss {
            cwnd += self.mss;
        }
        cc.set_cwnd(cwnd.max(self.mss));
        // ns-2 `partialnewack` with `partial_window_deflation_`: the same total, taken from
        // dupwnd_ first (less one SMSS), then from cwnd_ with dupwnd_ left at one SMSS.
        let deflate = acked_bytes.max(self.mss);
        self.dupwnd = if self.dupwnd > deflate { self.dupwnd - (deflate - self.mss) } else { self.mss };
        self.reno.forget_delivered(acked_bytes);
        self.partial_acks += 1;
        // RFC 6582 §4: Impatient restarts the timer on the first partial ACK only;
        // Slow-but-Steady on every partial ACK.
        let restart_timer = self.partial_acks == 1 || self.timer == NewRenoTimer::SlowButSteady;
        AckInRecovery::Continue { retransmit: first_unacked(board), restart_timer }
    }

    /// RFC 6582 §3.2 step 2: a new fast recovery only once the ACK has passed `recover`.
    fn may_enter(&self, snd_una: u64) -> bool {
        let Some(recover_end) = self.recover_end else { return true };
        match self.reentry {
            // The ACK covers more than `recover` (the basic rule).
            NewRenoReentry::BeyondRecover => snd_una > recover_end,
            // ns-3: the ACK reaches `recover` + 1.
            NewRenoReentry::AtRecover => snd_una >= recover_end,
        }
    }
}

impl LossRecovery for NewReno {
    fn in_recovery(&self) -> bool {
        self.reno.in_recovery()
    }

    fn dupacks(&self) -> u32 {
        self.reno.dupacks()
    }

    fn is_duplicate(&self, newly_sacked_bytes: u64, window_changed: bool) -> bool {
        self.reno.is_duplicate(newly_sacked_bytes, window_changed)
    }

    fn count_dupack(&mut self) -> u32 {
        self.reno.count_dupack()
    }

    fn reset_dupacks(&mut self) {
        self.reno.reset_dupacks()
    }

    fn on_dupack(&mut self, now: SimTime, cc: &mut AnyCc, board: &mut Scoreboard, seq: Outstanding) -> bool {
        if self.reno.in_recovery() {
            // Reno inflates cwnd by one SMSS (ns-2: ++dupwnd_).
            self.dupwnd += self.mss;
        }
        self.reno.on_dupack(now, cc, board, seq) && self.may_enter(seq.snd_una)
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
        // RFC 6582 §3.2 step 2: recover = HighData.
        self.recover_end = Some(seq.snd_max);
        self.partial_acks = 0;
        let first = self.reno.enter(now, cc, rtt, board, seq, flight_size);
        // ns-2: dupwnd_ = numdupacks_.
        self.dupwnd = cc.cwnd().saturating_sub(cc.ssthresh());
        first
    }

    fn on_ack(
        &mut self,
        _now: SimTime,
        cc: &mut AnyCc,
        board: &Scoreboard,
        seq: Outstanding,
        acked_bytes: u64,
    ) -> AckInRecovery {
        if seq.snd_una < self.recover_end.unwrap_or(0) {
            return self.on_partial_ack(cc, board, acked_bytes);
        }
        match self.exit_rule {
            NewRenoExit::Rfc6582 => {
                // RFC 6582 §3.2 step 3, full ACK, option (1):
                // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
                let flight = seq.flight_size();
                cc.set_cwnd(cc.ssthresh().min(flight.max(self.mss) + self.mss));
            }
            NewRenoExit::KeepWindow => {
                // ns-2 `NewRenoTcpAgent::recv`, `exit_recovery_fix_` 0: dupwnd_ = 0 and cwnd_
                // kept, whatever is in flight.
                cc.set_cwnd(cc.cwnd().saturating_sub(self.dupwnd).max(self.mss));
            }
        }
        self.dupwnd = 0;
        AckInRecovery::Exit
    }

    fn exit(&mut self) {
        self.reno.exit();
        self.partial_acks = 0;
    }

    fn pipe_at_timeout(&mut self, board: &mut Scoreboard, seq: Outstanding) -> u64 {
        self.reno.pipe_at_timeout(board, seq)
    }

    fn on_rto(&mut self, seq: Outstanding, _board: &mut Scoreboard) {
        // RFC 6582 §3.2 step 1: after a retransmission timeout, recover = HighData.
        self.recover_end = Some(seq.snd_max);
    }

    fn on_spurious_timeout(&mut self, seq: Outstanding) {
        // RFC 5682 §2 step 3b: "set the value of recover variable to SND.UNA".
        self.recover_end = Some(seq.snd_una);
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::config::{NewRenoReentry, Recovery, TcpConfig};
    use crate::tcp::fixtures::*;

    #[test]
    fn newreno_recovery_partial_ack_retransmits_next_hole() {
        let mut s = newreno_in_fast_recovery();
        // The retransmitted segment 0 filled the first hole; the ACK stops at the second.
        let out = ack(&mut s, 300, 4 * MSS);
        assert_eq!(out, vec![retx(4)]);
        assert!(s.in_recovery(), "recover = 10000 is not yet acknowledged");
        assert_eq!(s.cwnd(), 5000, "RFC 6582 §3.2 step 4: 8000 - 4000 acked + 1 SMSS");
    }

    #[test]
    fn newreno_recovery_full_ack_exits_with_flight_plus_one_mss() {
        let mut s = newreno_in_fast_recovery();
        ack(&mut s, 300, 4 * MSS);
        let out = ack(&mut s, 400, 10 * MSS);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), 2000, "min(ssthresh, max(FlightSize = 0, SMSS) + SMSS)");
        assert_eq!(out, vec![new_data(10), new_data(11)]);
        assert_eq!(s.stats.episodes[0].end_ns, Some(ms(400)));
    }

    #[test]
    fn newreno_recovery_dupacks_inflate_cwnd_and_release_new_data() {
        let mut s = newreno_in_fast_recovery();
        assert!(ack(&mut s, 210, 0).is_empty());
        assert!(ack(&mut s, 210, 0).is_empty());
        assert_eq!(s.cwnd(), 10_000, "RFC 5681 §3.2 step 4: one SMSS per duplicate ACK");
        assert_eq!(ack(&mut s, 210, 0), vec![new_data(10)]);
    }

    /// After a full ACK of exactly `recover` (10000) the sender sent 10 and 11; three
    /// duplicate ACKs of 10000 follow.
    fn dupacks_at_recover(reentry: NewRenoReentry) -> crate::tcp::sender::TcpSender {
        let mut s = in_fast_recovery(TcpConfig { newreno_reentry: reentry, ..config(Recovery::NewReno) });
        ack(&mut s, 300, 4 * MSS);
        assert_eq!(ack(&mut s, 400, 10 * MSS), vec![new_data(10), new_data(11)]);
        for _ in 0..3 {
            ack(&mut s, 500, 10 * MSS);
        }
        s
    }

    #[test]
    fn newreno_after_full_ack_dupacks_at_recover_do_not_reenter_by_the_basic_rule() {
        let s = dupacks_at_recover(NewRenoReentry::BeyondRecover);
        assert!(!s.in_recovery(), "RFC 6582 §3.2 step 2: the ACK does not cover more than recover");
        assert_eq!(s.stats.fast_recoveries, 1);
    }

    #[test]
    fn newreno_after_full_ack_dupacks_at_recover_reenter_under_ns3_rule() {
        let s = dupacks_at_recover(NewRenoReentry::AtRecover);
        assert!(s.in_recovery(), "ns-3: m_highRxAckMark >= m_recover");
        assert_eq!(s.stats.fast_recoveries, 2);
    }

    #[test]
    fn after_rto_newreno_dupacks_below_recover_do_not_enter_fast_recovery() {
        let mut s = after_rto(Recovery::NewReno);
        for _ in 0..3 {
            ack(&mut s, 1200, 0);
        }
        assert!(!s.in_recovery(), "RFC 6582 §3.2 step 2: snd_una does not exceed recover");
        assert_eq!(s.stats.fast_recoveries, 0);
    }
}

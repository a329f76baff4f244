//! SACK-based loss recovery, RFC 6675: loss is detected from the scoreboard (IsLost, §4)
//! as well as from DupThresh duplicate ACKs carrying new SACK information (§5); during
//! recovery pipe (SetPipe) replaces FlightSize and NextSeg() chooses every transmission.

use super::{first_unacked, AckInRecovery, LossRecovery, NextSeg, Outstanding};
use crate::engine::time::SimTime;
use crate::tcp::cc::{AnyCc, Controller};
use crate::tcp::rto::RtoEstimator;
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug)]
pub struct Sack {
    dupthresh: u32,
    /// SMSS, bytes.
    mss: u32,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6675 RecoveryPoint, one past HighData at entry.
    recovery_point: u64,
    /// RFC 6675 §5.1: no new recovery until HighACK reaches this after an RTO.
    blocked_until: u64,
    /// One past RFC 6675 HighRxt.
    high_rxt_end: u64,
    /// RFC 6675 RescueRxt.
    rescue_rxt: Option<u64>,
    /// Last SetPipe() value, bytes.
    pipe: u64,
}

impl Sack {
    pub fn new(dupthresh: u32, mss_bytes: u32) -> Self {
        Sack {
            dupthresh,
            mss: mss_bytes,
            dupacks: 0,
            in_recovery: false,
            recovery_point: 0,
            blocked_until: 0,
            high_rxt_end: 0,
            rescue_rxt: None,
            pipe: 0,
        }
    }

    /// RFC 6675 §4 IsLost() for every segment, then SetPipe().
    fn set_pipe(&mut self, board: &mut Scoreboard) -> u64 {
        self.pipe = board.update_loss(self.dupthresh, self.mss, self.high_rxt_end);
        self.pipe
    }
}

impl LossRecovery for Sack {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn dupacks(&self) -> u32 {
        self.dupacks
    }

    fn uses_sack(&self) -> bool {
        true
    }

    fn is_duplicate(&self, newly_sacked_bytes: u64, _window_changed: bool) -> bool {
        // RFC 6675 §2: with SACK, a duplicate ACK must carry new SACK information.
        newly_sacked_bytes > 0
    }

    fn count_dupack(&mut self) -> u32 {
        self.dupacks += 1;
        self.dupacks
    }

    fn reset_dupacks(&mut self) {
        self.dupacks = 0;
    }

    fn on_dupack(&mut self, _now: SimTime, _cc: &mut AnyCc, board: &mut Scoreboard, seq: Outstanding) -> bool {
        // RFC 6675 §5: enter on DupThresh duplicate ACKs or IsLost(HighACK + 1), unless an
        // RTO's RecoveryPoint has not yet been reached (§5.1).
        if self.in_recovery || seq.snd_una < self.blocked_until {
            return false;
        }
        if self.dupacks >= self.dupthresh {
            return true;
        }
        board.update_loss(self.dupthresh, self.mss, self.high_rxt_end);
        !board.is_empty() && board.get(0).lost
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
        // (4.1) RecoveryPoint = HighData.
        self.recovery_point = seq.snd_max;
        // (4.2) ssthresh = cwnd = FlightSize / 2 (with RFC 5681's 2*SMSS floor).
        let ssthresh = cc.on_congestion_event(now, flight_size, rtt);
        cc.set_cwnd(ssthresh);
        self.in_recovery = true;
        self.rescue_rxt = None;
        // (4.3) Retransmit the first segment presumed lost (HighACK + 1); HighRxt follows it.
        // (4.4), sending more while cwnd - pipe >= 1 SMSS, is the sender's next `next_seg` loop.
        let first = first_unacked(board);
        self.high_rxt_end = first.map_or(seq.snd_una, |i| board.get(i).end.max(seq.snd_una));
        first
    }

    fn on_ack(
        &mut self,
        _now: SimTime,
        _cc: &mut AnyCc,
        _board: &Scoreboard,
        seq: Outstanding,
        _acked_bytes: u64,
    ) -> AckInRecovery {
        // RFC 6675 §5: a cumulative ACK resets DupAcks; recovery ends once the ACK covers
        // RecoveryPoint. cwnd stays at the ssthresh set on entry.
        self.dupacks = 0;
        if seq.snd_una >= self.recovery_point {
            return AckInRecovery::Exit;
        }
        AckInRecovery::Continue { retransmit: None, restart_timer: true }
    }

    fn exit(&mut self) {
        self.in_recovery = false;
        self.dupacks = 0;
    }

    fn on_rto(&mut self, seq: Outstanding, board: &mut Scoreboard) {
        // RFC 6675 §5.1: RecoveryPoint = HighData after an RTO; no new recovery before it.
        self.blocked_until = seq.snd_max;
        // RFC 2018 §8: forget SACK state after a timeout.
        board.clear_sacked();
        self.high_rxt_end = seq.snd_una;
        self.rescue_rxt = None;
    }

    fn drives_transmission(&self) -> bool {
        self.in_recovery
    }

    fn pipe(&self) -> Option<u64> {
        self.in_recovery.then_some(self.pipe)
    }

    /// RFC 6675 §5 (C): nothing while cwnd - pipe < 1 SMSS; otherwise NextSeg() (§4),
    /// rules (1)–(4).
    fn next_seg(&mut self, board: &mut Scoreboard, cwnd: u64, snd_una: u64, new_data: bool) -> Option<NextSeg> {
        if cwnd < self.set_pipe(board) + self.mss as u64 {
            return None;
        }
        let n = board.len();
        // (1) the first unSACKed S2 > HighRxt with IsLost(S2).
        let first_after_rxt =
            (board.first_starting_at(self.high_rxt_end)..n).find(|&i| !board.get(i).sacked);
        let lost_after_rxt = first_after_rxt.and_then(|i0| {
            (i0..n).find(|&i| {
                let s = board.get(i);
                !s.sacked && s.lost
            })
        });
        if let Some(i) = lost_after_rxt {
            self.high_rxt_end = board.get(i).end;
            return Some(NextSeg::Retransmit(i));
        }
        // (2) new data, if the receiver window allows.
        if new_data {
            return Some(NextSeg::NewData);
        }
        // (3) the first unSACKed S3 > HighRxt, lost or not.
        if let Some(i) = first_after_rxt {
            self.high_rxt_end = board.get(i).end;
            return Some(NextSeg::Retransmit(i));
        }
        // (4) one rescue retransmission per recovery of the highest unSACKed segment;
        // HighRxt is not updated.
        if self.rescue_rxt.is_none_or(|r| snd_una > r) {
            if let Some(i) = (0..n).rev().find(|&i| !board.get(i).sacked) {
                self.rescue_rxt = Some(self.recovery_point);
                return Some(NextSeg::Retransmit(i));
            }
        }
        None
    }
}

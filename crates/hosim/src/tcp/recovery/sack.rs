//! SACK-based loss recovery, RFC 6675: loss is detected from the scoreboard (IsLost, §4)
//! as well as from DupThresh duplicate ACKs carrying new SACK information (§5); during
//! recovery pipe (SetPipe) replaces FlightSize and NextSeg() chooses every transmission.
//! With PRR (RFC 6937, `prr.rs`) cwnd is set to pipe + sndcnt on every ACK during recovery
//! instead of to ssthresh at entry.

use super::prr::{Prr, ReductionBound};
use super::{first_unacked, AckInRecovery, LossRecovery, NextSeg, Outstanding};
use crate::engine::time::SimTime;
use crate::tcp::cc::{AnyCc, Controller};
use crate::tcp::config::{ReductionBasis, SackEntry, SackPipe, SackRetransmit};
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
    /// Whether NextSeg() rule (4), the rescue retransmission, is on (ns-3 omits it).
    rescue: bool,
    /// Last SetPipe() value, bytes.
    pipe: u64,
    /// RFC 6937 PRR's reduction bound, or None for RFC 6675's cwnd = ssthresh at entry.
    prr_bound: Option<ReductionBound>,
    /// The PRR state of the current recovery.
    prr: Option<Prr>,
    /// snd.una + SACKd after the last ACK: RFC 6937 DeliveredData is its change.
    delivered_mark: u64,
    /// snd.una after the last ACK: whether an ACK advanced it (PRR's `Linux` bound).
    una_mark: u64,
    /// RFC 6675 IsLost() in SetPipe(), or pipe from SACKs alone.
    pipe_rule: SackPipe,
    /// RFC 8985: RACK marks lost segments (the sender runs it); IsLost() and the DupThresh
    /// entry rule are off, SetPipe reads RACK's marks.
    rack: bool,
    /// ns-2 dialect: what starts recovery (RFC 6675 §5, or ns-2's third duplicate ACK only).
    entry: SackEntry,
    /// Dialect: NextSeg(), ns-3's NextSeg() without (1.b) in rule (3), ns-2's holes below
    /// SACKed data, or Linux's lost segments only.
    retransmit: SackRetransmit,
    /// ns-2 dialect (`SackPipe::Ns2Counter`): Sack1's `pipe_`, bytes; an int in ns-2, it may
    /// go below 0 (then more than cwnd is sent).
    ns2_pipe: i64,
    /// The ACK being processed started this recovery (ns-2 counts it outside recovery).
    ns2_entry_ack: bool,
    /// snd.una after the last ACK, to tell a partial ACK.
    ns2_last_una: u64,
    reduction_basis: ReductionBasis,
}

impl Sack {
    pub fn new(
        dupthresh: u32,
        mss_bytes: u32,
        rescue: bool,
        prr_bound: Option<ReductionBound>,
        pipe_rule: SackPipe,
        rack: bool,
    ) -> Self {
        Sack {
            dupthresh,
            mss: mss_bytes,
            dupacks: 0,
            in_recovery: false,
            recovery_point: 0,
            blocked_until: 0,
            high_rxt_end: 0,
            rescue_rxt: None,
            rescue,
            pipe: 0,
            prr_bound,
            prr: None,
            delivered_mark: 0,
            una_mark: 0,
            pipe_rule,
            rack,
            reduction_basis: ReductionBasis::FlightSize,
            entry: SackEntry::DupthreshOrIsLost,
            retransmit: SackRetransmit::NextSeg,
            ns2_pipe: 0,
            ns2_entry_ack: false,
            ns2_last_una: 0,
        }
    }

    /// The dialect keys `tcp.sack_entry` (ns-2) and `tcp.sack_retransmit` (ns-2, ns-3, Linux).
    pub fn with_ns2_dialect(mut self, entry: SackEntry, retransmit: SackRetransmit) -> Self {
        self.entry = entry;
        self.retransmit = retransmit;
        self
    }

    /// Linux dialect: PRR's RecoverFS is the window the reduction starts from (`prior_cwnd`,
    /// `tcp_init_cwnd_reduction`), not snd.nxt - snd.una (`ReductionBasis::Cwnd`).
    pub fn with_reduction_basis(mut self, basis: ReductionBasis) -> Self {
        self.reduction_basis = basis;
        self
    }

    /// RFC 6937 §3 RecoverFS = snd.nxt - snd.una; with `ReductionBasis::Cwnd` the window the
    /// sender handed to `enter` (cwnd at the loss).
    fn recover_fs(&self, seq: Outstanding, reduced_from: u64) -> u64 {
        match self.reduction_basis {
            ReductionBasis::FlightSize => seq.flight_size(),
            ReductionBasis::Cwnd => reduced_from,
        }
    }

    /// RFC 6675 §4 IsLost() for every segment, then SetPipe(); with `SackPipe::SackedOnly`
    /// SetPipe() alone, every unSACKed hole counted as in flight. With RACK, SetPipe() over
    /// the segments RACK marked lost (RFC 8985 §6.2, "RACK... and RFC 6675 ... choose what to
    /// send"); RACK's marks replace both IsLost() rules.
    fn set_pipe(&mut self, board: &mut Scoreboard) -> u64 {
        self.pipe = if self.rack {
            board.pipe_from_marks()
        } else {
            match self.pipe_rule {
                SackPipe::IsLost => board.update_loss(self.dupthresh, self.mss, self.high_rxt_end),
                SackPipe::SackedOnly => board.pipe_without_loss(self.high_rxt_end),
                SackPipe::Ns2Counter => {
                    // IsLost() marks still serve NextSeg(); the counter is the pipe.
                    board.update_loss(self.dupthresh, self.mss, self.high_rxt_end);
                    self.ns2_pipe.max(0) as u64
                }
            }
        };
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
        if self.in_recovery || seq.snd_una < self.blocked_until || self.rack {
            // With RACK the sender enters when RACK marks a segment lost (`may_enter`).
            return false;
        }
        if self.dupacks >= self.dupthresh {
            return true;
        }
        if self.pipe_rule != SackPipe::IsLost || self.entry == SackEntry::Dupacks {
            // Without IsLost() only DupThresh duplicate ACKs start recovery (ns-2 Sack1:
            // `++dupacks_ == numdupacks(cwnd_)`, never the scoreboard).
            return false;
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
        // (4.2) ssthresh = cwnd = FlightSize / 2 (with RFC 5681's 2*SMSS floor). With PRR
        // (RFC 6937 §3) cwnd is set per ACK by `on_ack_processed` from RecoverFS =
        // snd.nxt - snd.una instead.
        let ssthresh = cc.on_congestion_event(now, flight_size, rtt);
        match self.prr_bound {
            Some(bound) => self.prr = Some(Prr::start(bound, self.mss, self.recover_fs(seq, flight_size))),
            None => cc.set_cwnd(ssthresh),
        }
        self.in_recovery = true;
        self.rescue_rxt = None;
        // ns-2 dupack_action: pipe_ = maxseq_ - highest_ack_ - numdupacks(cwnd_); the fast
        // retransmit itself (`output`, not `send_much`) is not counted.
        self.ns2_pipe = seq.flight_size() as i64 - (self.dupthresh as u64 * self.mss as u64) as i64;
        self.ns2_entry_ack = true;
        self.ns2_last_una = seq.snd_una;
        // (4.3) Retransmit the first segment presumed lost (HighACK + 1); HighRxt follows it.
        // (4.4), sending more while cwnd - pipe >= 1 SMSS, is the sender's next `next_seg` loop.
        // With RACK: the first segment RACK marked lost.
        let first = if self.rack { board.first_lost_unsent().or(first_unacked(board)) } else { first_unacked(board) };
        self.high_rxt_end = first.map_or(seq.snd_una, |i| board.get(i).end.max(seq.snd_una));
        if let (Some(prr), Some(i)) = (self.prr.as_mut(), first) {
            // RFC 6937 §3: prr_out counts every transmission, the fast retransmit too.
            prr.on_fast_retransmit(board.get(i).len());
        }
        first
    }

    fn on_ack(
        &mut self,
        _now: SimTime,
        cc: &mut AnyCc,
        _board: &Scoreboard,
        seq: Outstanding,
        _acked_bytes: u64,
    ) -> AckInRecovery {
        // RFC 6675 §5: a cumulative ACK resets DupAcks; recovery ends once the ACK covers
        // RecoveryPoint. cwnd stays at the ssthresh set on entry.
        self.dupacks = 0;
        if seq.snd_una >= self.recovery_point {
            if self.prr.take().is_some() {
                // RFC 6937 §3: on exiting recovery, cwnd = ssthresh.
                cc.set_cwnd(cc.ssthresh());
            }
            return AckInRecovery::Exit;
        }
        AckInRecovery::Continue { retransmit: None, restart_timer: true }
    }

    fn exit(&mut self) {
        self.in_recovery = false;
        self.dupacks = 0;
        self.prr = None;
    }

    fn on_ack_processed(&mut self, cc: &mut AnyCc, board: &mut Scoreboard, seq: Outstanding) {
        if self.pipe_rule == SackPipe::Ns2Counter {
            self.ns2_count_ack(seq);
        }
        // RFC 6937 §3: DeliveredData = change_in(snd.una) + change_in(SACKd).
        let mark = seq.snd_una + board.sacked_bytes();
        let delivered = mark.saturating_sub(self.delivered_mark);
        self.delivered_mark = mark;
        let una_advanced = seq.snd_una > self.una_mark;
        self.una_mark = seq.snd_una;
        if delivered == 0 || !self.in_recovery {
            if let Some(prr) = self.prr.as_mut() {
                prr.on_ack_without_delivery();
            }
            return;
        }
        if let Some(mut prr) = self.prr {
            let pipe = self.set_pipe(board);
            // Linux `tcp_cwnd_reduction`'s `FLAG_SND_UNA_ADVANCED && !newly_lost`, after
            // SetPipe() (its IsLost() marks count as RACK's do).
            let safe_ack = una_advanced && board.lost_this_ack() == 0;
            let sndcnt = prr.on_ack(delivered, pipe, cc.ssthresh(), safe_ack);
            // RFC 6937 §3: cwnd = pipe + sndcnt; NextSeg() then sends while
            // cwnd - pipe >= 1 SMSS.
            cc.set_cwnd(pipe + sndcnt);
            self.prr = Some(prr);
        }
    }

    fn may_enter(&self, seq: Outstanding) -> bool {
        !self.in_recovery && seq.snd_una >= self.blocked_until
    }

    fn on_spurious_timeout(&mut self, seq: Outstanding) {
        // RFC 5682 §2 step 3b / §3: "recover" = SND.UNA: fast recovery may start again.
        self.blocked_until = seq.snd_una;
    }

    fn on_rto(&mut self, seq: Outstanding, board: &mut Scoreboard) {
        // RFC 6675 §5.1: RecoveryPoint = HighData after an RTO; no new recovery before it.
        self.blocked_until = seq.snd_max;
        // RFC 2018 §8: forget SACK state after a timeout.
        board.clear_sacked();
        self.high_rxt_end = seq.snd_una;
        self.rescue_rxt = None;
    }

    fn pipe_at_timeout(&mut self, board: &mut Scoreboard, _seq: Outstanding) -> u64 {
        // RFC 6675 §4 SetPipe(), after IsLost() for every segment.
        self.set_pipe(board)
    }

    fn drives_transmission(&self) -> bool {
        self.in_recovery
    }

    fn pipe(&self) -> Option<u64> {
        self.in_recovery.then_some(self.pipe)
    }

    /// RFC 6675 §5 (C): nothing while cwnd - pipe < 1 SMSS; otherwise NextSeg() (§4),
    /// rules (1)–(4).
    fn next_seg(
        &mut self,
        board: &mut Scoreboard,
        cwnd: u64,
        snd_una: u64,
        new_data_bytes: u64,
        continuing: bool,
    ) -> Option<NextSeg> {
        if !continuing {
            self.set_pipe(board);
        } else if cfg!(debug_assertions) {
            let carried = self.pipe;
            assert_eq!(self.set_pipe(board), carried, "SetPipe carried over a sending loop");
        }
        let full = if self.pipe_rule == SackPipe::Ns2Counter && !self.rack {
            // ns-2 send_much: while pipe_ < int(cwnd_), pipe_ possibly below 0.
            (cwnd as i64) < self.ns2_pipe + self.mss as i64
        } else {
            cwnd < self.pipe + self.mss as u64
        };
        if full {
            return None;
        }
        let high_rxt_end = self.high_rxt_end;
        let next = self.choose(board, snd_una, new_data_bytes > 0);
        if let Some(prr) = self.prr.as_mut() {
            // RFC 6937 §3: prr_out += (data sent).
            prr.on_sent(match next {
                Some(NextSeg::Retransmit(i)) => board.get(i).len(),
                Some(NextSeg::NewData) => new_data_bytes,
                None => 0,
            });
        }
        let added = if self.pipe_rule == SackPipe::Ns2Counter && !self.rack {
            // ns-2 send_much: pipe_++ per segment sent.
            let added = match next {
                Some(NextSeg::Retransmit(i)) => board.get(i).len(),
                Some(NextSeg::NewData) => new_data_bytes,
                None => 0,
            };
            self.ns2_pipe += added as i64;
            self.pipe = self.ns2_pipe.max(0) as u64;
            0
        } else {
            self.pipe_added(board, next, high_rxt_end, new_data_bytes)
        };
        self.pipe += added;
        next
    }
}

impl Sack {
    /// ns-2 Sack1 `recv` in fast recovery: `--pipe_` for every ACK, and again for a partial
    /// ACK (`partial_ack_` 0). The ACK that started recovery and the one that ends it are
    /// counted outside recovery.
    fn ns2_count_ack(&mut self, seq: Outstanding) {
        let mss = self.mss as i64;
        if std::mem::take(&mut self.ns2_entry_ack) || !self.in_recovery {
            self.ns2_last_una = seq.snd_una;
            return;
        }
        let partial = seq.snd_una > self.ns2_last_una;
        self.ns2_last_una = seq.snd_una;
        self.ns2_pipe -= if partial { 2 * mss } else { mss };
    }

    /// What SetPipe() gains once the sender has made the transmission `next` (chosen while
    /// HighRxt ended at `high_rxt_end`), without a pass over the scoreboard: the sender's next
    /// call in the same loop starts from it (`continuing`). No SACK or ACK arrives in between,
    /// so every IsLost() mark stands.
    /// - New data: one more segment in flight, not lost (nothing is SACKed above it).
    /// - A retransmission, with RACK: its segment counts once more unless a retransmission of
    ///   it was already in the network.
    /// - A retransmission otherwise: every unSACKed segment that HighRxt has just passed
    ///   counts once more (the retransmitted one; rule (4) moves nothing).
    fn pipe_added(&self, board: &Scoreboard, next: Option<NextSeg>, high_rxt_end: u64, new_data_bytes: u64) -> u64 {
        match next {
            None => 0,
            Some(NextSeg::NewData) => new_data_bytes,
            Some(NextSeg::Retransmit(i)) if self.rack => {
                let s = board.get(i);
                if s.rexmit_out {
                    0
                } else {
                    s.len()
                }
            }
            Some(NextSeg::Retransmit(_)) => (board.first_starting_at(high_rxt_end)..board.len())
                .map(|j| board.get(j))
                .take_while(|s| s.start < self.high_rxt_end)
                .filter(|s| !s.sacked)
                .map(|s| s.len())
                .sum(),
        }
    }

    /// RFC 6675 §4 NextSeg() rules (1)–(4).
    fn choose(&mut self, board: &Scoreboard, snd_una: u64, new_data: bool) -> Option<NextSeg> {
        let n = board.len();
        if self.rack {
            // (1) with RACK: the first segment marked lost and not resent since, wherever it
            // is (a lost retransmission sits below HighRxt; RFC 8985 §9.2).
            if let Some(i) = board.first_lost_unsent() {
                self.high_rxt_end = self.high_rxt_end.max(board.get(i).end);
                return Some(NextSeg::Retransmit(i));
            }
        }
        // (1) the first unSACKed S2 > HighRxt with IsLost(S2).
        let first_after_rxt = (board.first_starting_at(self.high_rxt_end)..n).find(|&i| !board.get(i).sacked);
        if self.retransmit == SackRetransmit::HolesBelowSacked && !self.rack {
            return self.choose_ns2(board, first_after_rxt, new_data);
        }
        let scan = || first_after_rxt.and_then(|i0| (i0..n).find(|&i| board.get(i).lost && !board.get(i).sacked));
        let lost_after_rxt = if self.rack {
            // RACK's marks may fall anywhere.
            scan()
        } else {
            // IsLost() marks, all from the last SetPipe() pass, cover a prefix of the unSACKed
            // segments: IsLost(S) counts the SACKed segments and bytes above S, which only
            // grow towards the front (segments sent since are unmarked, at the back). So if
            // the first unSACKed segment above HighRxt is not lost, none above it is.
            let first = first_after_rxt.filter(|&i| board.get(i).lost);
            debug_assert_eq!(first, scan(), "IsLost() marks cover a prefix of the unSACKed segments");
            first
        };
        if let Some(i) = lost_after_rxt {
            self.high_rxt_end = board.get(i).end;
            return Some(NextSeg::Retransmit(i));
        }
        // (2) new data, if the receiver window allows.
        if new_data {
            return Some(NextSeg::NewData);
        }
        if self.retransmit == SackRetransmit::LostOnly {
            // Linux `tcp_xmit_retransmit_queue`: only segments marked lost are resent.
            return None;
        }
        // (3) the first unSACKed S3 that meets (1.a), S3 > HighRxt, and (1.b), S3 below the
        // highest octet covered by any received SACK; lost or not ((1.c) excluded). A segment
        // above every SACK is left to rule (4). ns-3 (`next-seg-any-unsacked`) skips (1.b).
        let below_a_sack = |i: usize| {
            self.retransmit == SackRetransmit::NextSegAnyUnsacked || highest_sacked(board).is_some_and(|h| i < h)
        };
        if let Some(i) = first_after_rxt.filter(|&i| below_a_sack(i)) {
            self.high_rxt_end = board.get(i).end;
            return Some(NextSeg::Retransmit(i));
        }
        // (4) one rescue retransmission per recovery of the highest unSACKed segment;
        // HighRxt is not updated.
        if self.rescue && self.rescue_rxt.is_none_or(|r| snd_una > r) {
            if let Some(i) = (0..n).rev().find(|&i| !board.get(i).sacked) {
                self.rescue_rxt = Some(self.recovery_point);
                return Some(NextSeg::Retransmit(i));
            }
        }
        None
    }

    /// ns-2 dialect (`SackRetransmit::HolesBelowSacked`): `Sack1TcpAgent::send_much` takes
    /// `ScoreBoardRQ::GetNextRetran()`, the next hole above the last one retransmitted
    /// (`h_seqno_`, HighRxt here) with SACKed data above it, lost by IsLost() or not; else new
    /// data; else nothing: no NextSeg() rule (3) and no rescue retransmission.
    fn choose_ns2(&mut self, board: &Scoreboard, first_after_rxt: Option<usize>, new_data: bool) -> Option<NextSeg> {
        if let (Some(i), Some(h)) = (first_after_rxt, highest_sacked(board)) {
            if i < h {
                self.high_rxt_end = board.get(i).end;
                return Some(NextSeg::Retransmit(i));
            }
        }
        new_data.then_some(NextSeg::NewData)
    }
}

/// The index of the highest SACKed segment: the one holding RFC 6675's "highest octet
/// covered by any received SACK" (NextSeg() (1.b)).
fn highest_sacked(board: &Scoreboard) -> Option<usize> {
    (0..board.len()).rev().find(|&i| board.get(i).sacked)
}

#[cfg(test)]
mod tests {
    use crate::tcp::config::{Recovery, RecoveryRate, SackPipe, SackRetransmit, TcpConfig};
    use crate::tcp::fixtures::*;

    #[test]
    fn sack_recovery_entry_retransmits_first_hole_and_halves_flight() {
        // Segment 0's ACK grew cwnd to 11 segments and released 10 and 11; the third
        // duplicate ACK (segment 4) starts recovery with FlightSize = 11000.
        let (s, _, sent) = sack_in_recovery(&[1, 5]);
        assert_eq!(sent, vec![new_data(10), new_data(11), retx(1)]);
        assert_eq!((s.cwnd(), s.ssthresh()), (5500, 5500), "RFC 6675 (4.2)");
        assert_eq!(s.inflight_bytes(), 8000, "SetPipe: segments 5..12 plus the retransmitted 1");
    }

    #[test]
    fn sack_recovery_new_sack_marks_lost_by_dupthresh() {
        let (mut s, mut peer, _) = sack_in_recovery(&[1, 5]);
        assert!(peer.deliver(&mut s, 210, 6).is_empty());
        assert!(peer.deliver(&mut s, 210, 7).is_empty(), "two SACKed segments above 5: not lost yet");
        assert_eq!(peer.deliver(&mut s, 210, 8), vec![retx(5)], "IsLost(5): DupThresh SACKed segments above");
        assert_eq!(s.inflight_bytes(), 5000);
    }

    #[test]
    fn sack_recovery_shrinking_pipe_sends_new_data_before_unlost_segments() {
        let (mut s, mut peer, _) = sack_in_recovery(&[1]);
        for seg in 5..=7 {
            assert!(peer.deliver(&mut s, 210, seg).is_empty());
        }
        // NextSeg rule (2) comes before rule (3): segment 9 is not lost, so new data goes first.
        assert_eq!(peer.deliver(&mut s, 210, 8), vec![new_data(12)]);
    }

    #[test]
    fn sack_recovery_ack_of_recovery_point_exits_keeping_ssthresh() {
        let (mut s, mut peer, _) = sack_in_recovery(&[1]);
        for seg in 5..=11 {
            peer.deliver(&mut s, 210, seg);
        }
        assert!(s.in_recovery());
        peer.deliver(&mut s, 300, 1);
        assert!(!s.in_recovery(), "the ACK covers RecoveryPoint = 12000");
        assert_eq!(s.cwnd(), 5500, "cwnd stays at the ssthresh set on entry");
        assert_eq!((s.stats.fast_recoveries, s.stats.episodes[0].end_ns), (1, Some(ms(300))));
        assert_eq!(s.inflight_bytes(), s.snd_max() - s.snd_una());
    }

    type Sent = Vec<crate::tcp::sender::Segment>;

    /// An application with ten segments, holes 1 and 8: recovery starts at segment 4's ACK
    /// (ssthresh = cwnd = 4500) and resends 1; 5–7 arrive, then the original 9. What the
    /// sender sent while 7 was the highest SACKed segment (nothing new left to send, 8 and 9
    /// unSACKed above every SACK), and after 9's SACK (8 unSACKed below it, not lost).
    fn sack_tail(retransmit: SackRetransmit, rescue: bool) -> (Sent, Sent) {
        let cfg = TcpConfig { sack_retransmit: retransmit, rescue_retransmission: rescue, ..config(Recovery::Sack) };
        let mut s = established_with_data(cfg, 10 * MSS);
        let mut peer = SackPeer::default();
        let mut before_9 = Vec::new();
        for seg in [0, 2, 3, 4, 5, 6, 7] {
            before_9.extend(peer.deliver(&mut s, 200, seg));
        }
        assert_eq!((s.cwnd(), s.ssthresh()), (4500, 4500));
        (before_9, peer.deliver(&mut s, 210, 9))
    }

    #[test]
    fn sack_recovery_rule_3_leaves_a_segment_above_every_sack_to_the_rescue_retransmission() {
        // 8 and 9 lie above the highest SACKed octet (7): not rule (3)'s (RFC 6675 §4, (1.b));
        // rule (4) resends the highest unSACKed segment, 9, once per recovery.
        let (before, after) = sack_tail(SackRetransmit::NextSeg, true);
        assert_eq!(before, vec![retx(1), retx(9)], "RFC 6675 NextSeg rule (4)");
        // 9's SACK puts 8 below SACKed data: rule (3) resends it, lost or not.
        assert_eq!(after, vec![retx(8)], "RFC 6675 NextSeg rule (3)");
    }

    #[test]
    fn sack_recovery_without_rescue_resends_nothing_above_every_sack() {
        let (before, after) = sack_tail(SackRetransmit::NextSeg, false);
        assert_eq!(before, vec![retx(1)], "8 and 9 above every SACK: no rule (3), no rule (4)");
        assert_eq!(after, vec![retx(8)], "rule (3) once 9 is SACKed above 8");
    }

    /// Holes 1 and 6 of ten segments: 0, 2–5, 7 and 8 arrive (recovery starts at 4's ACK
    /// and resends 1); 9 is still in flight above every SACK.
    fn hole_below_two_sacks(retransmit: SackRetransmit) -> Sent {
        let cfg = TcpConfig { sack_retransmit: retransmit, rescue_retransmission: false, ..config(Recovery::Sack) };
        let mut s = established_with_data(cfg, 10 * MSS);
        let mut peer = SackPeer::default();
        [0, 2, 3, 4, 5, 7, 8].iter().flat_map(|&seg| peer.deliver(&mut s, 200, seg)).collect()
    }

    #[test]
    fn sack_recovery_rule_3_resends_an_unlost_segment_below_a_sack() {
        // IsLost(6) is false: two SACKed segments above it, DupThresh 3 (the Linux dialect,
        // which resends only lost segments, leaves it alone). With pipe below cwnd and no new
        // data, rule (3) resends it: 6 is above HighRxt and below the highest SACK, 8.
        assert_eq!(hole_below_two_sacks(SackRetransmit::LostOnly), vec![retx(1)]);
        assert_eq!(hole_below_two_sacks(SackRetransmit::NextSeg), vec![retx(1), retx(6)]);
    }

    #[test]
    fn sack_recovery_ns3_rule_3_resends_a_segment_above_every_sack() {
        // ns-3.44 `TcpTxBuffer::NextSeg`: rule (3) is the first unSACKed segment not yet
        // retransmitted, without (1.b); no rule (4) (rescue off in the `ns3` profile).
        let (before, after) = sack_tail(SackRetransmit::NextSegAnyUnsacked, false);
        assert_eq!(before, vec![retx(1), retx(8)]);
        assert!(after.is_empty(), "8 already resent; nothing unSACKed above HighRxt");
    }

    fn prr(rate: RecoveryRate) -> TcpConfig {
        TcpConfig { recovery_rate: rate, ..config(Recovery::Sack) }
    }

    #[test]
    fn sack_prr_recovery_entry_keeps_cwnd_at_pipe_and_sends_only_the_retransmission() {
        // ssthresh = 5500, RecoverFS = 11000, prr_out = 1000 (the fast retransmit); the entry
        // ACK delivered 1000: sndcnt = CEIL(1000 * 5500 / 11000) - 1000 = 0, cwnd = pipe.
        let (s, _, sent) = sack_in_recovery_with(prr(RecoveryRate::PrrSsrb), &[1]);
        assert_eq!(sent, vec![new_data(10), new_data(11), retx(1)]);
        assert_eq!((s.cwnd(), s.ssthresh()), (8000, 5500), "RFC 6937 §3: cwnd = pipe + sndcnt");
    }

    #[test]
    fn sack_prr_recovery_sends_in_proportion_to_delivery_then_exits_at_ssthresh() {
        let (mut s, mut peer, _) = sack_in_recovery_with(prr(RecoveryRate::PrrSsrb), &[1]);
        let sent: Vec<Vec<_>> = (5..=9).map(|seg| peer.deliver(&mut s, 210, seg)).collect();
        // prr_delivered 2000: 1000 - 1000 = 0; 3000: CEIL(1500) - 1000 → one segment;
        // 4000: 0; then pipe = 5000 <= ssthresh: SSRB sndcnt = MIN(5500 - 5000, 4000) = 500,
        // less than a segment; 6000: MIN(5500 - 4000, 5000) → one segment.
        assert_eq!(sent, vec![vec![], vec![new_data(12)], vec![], vec![], vec![new_data(13)]]);
        for seg in [10, 11, 12, 13] {
            peer.deliver(&mut s, 220, seg);
        }
        peer.deliver(&mut s, 300, 1);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), 5500, "RFC 6937 §3: cwnd = ssthresh on exit");
    }

    /// Six of the ten segments of the initial flight lost (0..=5): recovery starts at the
    /// third duplicate ACK (segment 8), ssthresh = cwnd = 5000; segment 9 arrives after.
    fn six_of_ten_lost(rule: SackPipe) -> (crate::tcp::sender::TcpSender, Vec<Vec<crate::tcp::sender::Segment>>) {
        let (mut s, mut peer, sent) =
            sack_in_recovery_with(TcpConfig { sack_pipe: rule, ..config(Recovery::Sack) }, &[0, 1, 2, 3, 4, 5]);
        assert_eq!((s.cwnd(), s.ssthresh()), (5000, 5000));
        let later = peer.deliver(&mut s, 210, 9);
        (s, vec![sent, later])
    }

    #[test]
    fn sack_recovery_is_lost_resends_every_hole_within_the_halved_window() {
        // IsLost: three SACKed segments above every hole; pipe = the fast retransmission and
        // segment 9, so three more holes go at once and one more when 9's SACK arrives.
        let (s, sent) = six_of_ten_lost(SackPipe::IsLost);
        assert_eq!(sent, vec![vec![retx(0), retx(1), retx(2), retx(3)], vec![retx(4)]]);
        assert_eq!(s.inflight_bytes(), 5000);
    }

    #[test]
    fn sack_recovery_sacked_only_pipe_sends_nothing_after_losing_more_than_half_the_window() {
        // Without IsLost every hole stays in pipe: 6 holes + segment 9 + the retransmission
        // of 0 = 8000 > cwnd 5000, and 9's SACK leaves 7000. Only the timer can go on.
        let (mut s, sent) = six_of_ten_lost(SackPipe::SackedOnly);
        assert_eq!(sent, vec![vec![retx(0)], vec![]]);
        assert_eq!(s.inflight_bytes(), 7000);
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1200), &mut out), Some(0), "RTO 1 s after the last restart");
        assert_eq!(s.stats.timeouts, 1);
    }

    #[test]
    fn after_rto_sack_dupacks_below_recovery_point_do_not_enter_recovery() {
        let mut s = after_rto(Recovery::Sack);
        let mut peer = SackPeer::default();
        for seg in 1..=3 {
            assert!(peer.deliver(&mut s, 1200, seg).is_empty());
        }
        assert!(!s.in_recovery(), "RFC 6675 §5.1: not before RecoveryPoint after an RTO");
        // The resent segment 0 arrives: go-back-N goes on after the SACKed segments.
        assert_eq!(peer.deliver(&mut s, 1300, 0), vec![retx(4), retx(5)]);
    }
}

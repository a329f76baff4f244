//! The ns-2 dialect keys (docs/tcp.md, "ns-2 dialect"): each test sets one key on an
//! otherwise `rfc` sender and shows what ns-2.35 does differently; the same scenario with the
//! RFC value is checked beside it, so each test fails under the RFC behaviour.

use super::config::{
    CaGrowth, FastRetransmitWindow, GoBackN, NewRenoExit, Recovery, RenoReentry, RttSampling, SackEntry, SackPipe,
    SackRetransmit, SynTimeout, TcpConfig,
};
use super::fixtures::*;
use super::sender::TcpSender;
use crate::engine::time::s_to_ns;
use crate::net::packet::SackBlocks;

/// One ACK of cumulative point 0 that SACKs segments `lo..hi` at once.
fn sack_range(s: &mut TcpSender, at_ms: u64, lo: u64, hi: u64) -> Vec<crate::tcp::sender::Segment> {
    let mut blocks = SackBlocks::default();
    blocks.push((lo * MSS, hi * MSS));
    ack_with(s, at_ms, 0, &blocks)
}

#[test]
fn fast_retransmit_restarts_timer_moves_the_deadline_to_the_retransmission() {
    // The initial flight went at 100 ms (timer due at 1100 ms); segment 0 is lost and the
    // third duplicate ACK arrives at 200 ms.
    let run = |restart| {
        let s = in_fast_recovery(TcpConfig { fast_retransmit_restarts_timer: restart, ..config(Recovery::NewReno) });
        s.rto_deadline()
    };
    assert_eq!(run(false), Some(ms(1100)), "RFC 6298 (5.1): the running timer is kept");
    assert_eq!(run(true), Some(ms(1200)), "ns-2 reset_rtx_timer(1, 0) at the fast retransmit");
}

#[test]
fn rtt_sampling_timed_segment_takes_one_sample_per_timed_segment() {
    // Segments 0..10 went at 100 ms (the SYN's sample: SRTT 100 ms). Segment 0's ACK comes at
    // 300 ms (R = 200 ms), segment 1's at 400 ms (R = 300 ms).
    let run = |sampling| {
        let mut s = established(TcpConfig { rtt_sampling: sampling, ..config(Recovery::NewReno) });
        ack(&mut s, 300, MSS);
        let first = s.srtt_ns();
        ack(&mut s, 400, 2 * MSS);
        (first, s.srtt_ns())
    };
    // RFC 6298 (2.3): 7/8 * 100 + 1/8 * 200 = 112.5 ms, then 7/8 * 112.5 + 1/8 * 300.
    assert_eq!(run(RttSampling::EveryAck), (Some(112_500_000), Some(135_937_500)), "one sample per ACK");
    // ns-2: segment 0 was the timed one; the next timed segment is the first sent after its
    // ACK (segment 10, at 300 ms), so segment 1's ACK gives no sample.
    assert_eq!(run(RttSampling::TimedSegment), (Some(112_500_000), Some(112_500_000)), "one per timed segment");
}

#[test]
fn sack_entry_dupacks_ignores_three_segments_sacked_by_one_ack() {
    // Segment 0 lost; one ACK SACKs 1..4 (three segments above the hole).
    let rfc = {
        let mut s = established(config(Recovery::Sack));
        let out = sack_range(&mut s, 200, 1, 4);
        (out, s.in_recovery())
    };
    assert_eq!(rfc, (vec![retx(0)], true), "RFC 6675 §5: IsLost(HighACK + 1) starts recovery");

    let cfg = TcpConfig { sack_entry: SackEntry::Dupacks, ..config(Recovery::Sack) };
    let mut s = established(cfg);
    assert!(sack_range(&mut s, 200, 1, 4).is_empty(), "ns-2 Sack1: one duplicate ACK, no recovery");
    assert!(!s.in_recovery());
    assert!(sack_range(&mut s, 201, 1, 5).is_empty(), "the second duplicate ACK");
    assert_eq!(sack_range(&mut s, 202, 1, 6), vec![retx(0)], "the third duplicate ACK");
    assert!(s.in_recovery());
}

/// Ten segments of application data, holes 1 and 8: segments 0, 2..7 arrive (recovery
/// starts at segment 4's ACK and resends 1), then the original 9. Returns what the sender
/// sent after the entry.
fn window_limited_tail(
    retransmit: SackRetransmit,
) -> (Vec<crate::tcp::sender::Segment>, Vec<crate::tcp::sender::Segment>) {
    let cfg = TcpConfig { sack_retransmit: retransmit, ..config(Recovery::Sack) };
    let (before_9, after_9, _) = holes_1_and_8_of_ten(cfg);
    (before_9, after_9)
}

#[test]
fn sack_retransmit_holes_below_sacked_never_resends_the_highest_unsacked_segment() {
    // RFC 6675 NextSeg rule (4) resends 9, the highest unSACKed segment, while 7 is the
    // highest SACKed one (8 and 9 above every SACK: not rule (3)'s, `sack.rs` tests).
    let (before, _) = window_limited_tail(SackRetransmit::NextSeg);
    assert_eq!(before, vec![retx(1), retx(9)]);
    // ns-2 Sack1 (ScoreBoardRQ::GetNextRetran) resends only holes below SACKed data, and has
    // no rescue: 8 once 9 is SACKed above it, never 9.
    let (before, after) = window_limited_tail(SackRetransmit::HolesBelowSacked);
    assert_eq!(before, vec![retx(1)]);
    assert_eq!(after, vec![retx(8)]);
}

/// A SACK or NewReno sender with an initial window of 3 and Limited Transmit: segment 0 is
/// lost; the duplicate ACKs of 1 and 2 release 3 and 4 (RFC 3042), the third (segment 3)
/// starts recovery with cwnd = 3 segments before the loss.
fn small_window_recovery(recovery: Recovery, window: FastRetransmitWindow) -> TcpSender {
    let cfg = TcpConfig {
        fast_retransmit_window: window,
        initial_window_segments: 3,
        limited_transmit: true,
        ..config(recovery)
    };
    let mut s = TcpSender::new(cfg, u64::MAX);
    let mut out = Vec::new();
    s.connect(0, &mut out);
    s.on_syn_ack(ms(100), &mut out);
    let mut peer = SackPeer::default();
    for seg in 1..=3 {
        let out = if recovery == Recovery::Sack { peer.deliver(&mut s, 200, seg) } else { ack(&mut s, 200, 0) };
        if seg == 3 {
            assert_eq!(out.first(), Some(&retx(0)), "fast retransmit");
        }
    }
    assert!(s.in_recovery());
    s
}

#[test]
fn fast_retransmit_cwnd_half_leaves_half_the_window_without_a_floor() {
    // RFC 5681 §3.2 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS) = 2000 and cwnd =
    // ssthresh with SACK.
    let s = small_window_recovery(Recovery::Sack, FastRetransmitWindow::FlightHalf);
    assert_eq!((s.cwnd(), s.ssthresh()), (2000, 2000));
    // ns-2 slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF): cwnd_ = 3 / 2 = 1.5 packets,
    // ssthresh_ = (int) 1.5 = 1, raised to 2.
    let s = small_window_recovery(Recovery::Sack, FastRetransmitWindow::CwndHalf);
    assert_eq!((s.cwnd(), s.ssthresh()), (1500, 2000));
    // NewReno keeps dupwnd_ = numdupacks_ on top: 1.5 + 3 packets.
    let s = small_window_recovery(Recovery::NewReno, FastRetransmitWindow::CwndHalf);
    assert_eq!((s.cwnd(), s.ssthresh()), (4500, 2000));
}

#[test]
fn fast_retransmit_cwnd_half_keeps_ssthresh_in_whole_segments() {
    // Segment 0's ACK grew cwnd to 11 segments before the loss of 1 and 5.
    let (s, _, _) = sack_in_recovery_with(config(Recovery::Sack), &[1, 5]);
    assert_eq!((s.cwnd(), s.ssthresh()), (5500, 5500));
    let cfg = TcpConfig { fast_retransmit_window: FastRetransmitWindow::CwndHalf, ..config(Recovery::Sack) };
    let (s, _, _) = sack_in_recovery_with(cfg, &[1, 5]);
    assert_eq!((s.cwnd(), s.ssthresh()), (5500, 5000), "ssthresh_ = (int) 5.5 packets");
}

/// `newreno_in_fast_recovery` (losses 0 and 4, cwnd 8000 = ssthresh 5000 + 3 SMSS) with
/// `exit`: segments 5..9 raise five more duplicate ACKs (cwnd 13000, segments 10..12 sent),
/// the retransmitted 0 brings a partial ACK of 4000 (segment 4 resent, 13 sent), then an ACK
/// of everything up to 13 leaves one segment in flight. Returns cwnd after it.
fn newreno_exit_cwnd(exit: NewRenoExit) -> u64 {
    newreno_exit_cwnd_with(TcpConfig { newreno_exit: exit, ..config(Recovery::NewReno) })
}

fn newreno_exit_cwnd_with(cfg: TcpConfig) -> u64 {
    let mut s = in_fast_recovery(cfg);
    let mut sent = Vec::new();
    for t in 0..5 {
        sent.extend(ack(&mut s, 210 + t, 0));
    }
    assert_eq!(sent, vec![new_data(10), new_data(11), new_data(12)]);
    assert_eq!(s.cwnd(), 13_000);
    assert_eq!(ack(&mut s, 300, 4 * MSS), vec![retx(4), new_data(13)]);
    assert_eq!(s.cwnd(), 10_000, "RFC 6582 §3.2 step 4 deflation, the same in ns-2");
    ack(&mut s, 400, 13 * MSS);
    assert!(!s.in_recovery());
    s.cwnd()
}

#[test]
fn newreno_exit_keep_window_keeps_the_halved_window_whatever_is_in_flight() {
    // RFC 6582 §3.2 step 3 option (1): min(ssthresh, FlightSize + SMSS) = 1000 + 1000.
    assert_eq!(newreno_exit_cwnd(NewRenoExit::Rfc6582), 2000);
    // ns-2: dupwnd_ (8000 less the partial ACK's deflation, 5000) dropped, cwnd_ = 5 packets
    // kept, with one in flight: four go at once.
    assert_eq!(newreno_exit_cwnd(NewRenoExit::KeepWindow), 5000);
}

#[test]
fn exit_ack_opens_window_grows_cwnd_on_the_ack_that_ends_newreno_recovery() {
    // ns-2's NewReno with its per-ACK growth (`opencwnd`: cwnd_ += 1/cwnd_).
    let run = |opens| {
        newreno_exit_cwnd_with(TcpConfig {
            newreno_exit: NewRenoExit::KeepWindow,
            ca_growth: CaGrowth::PerAckExact,
            exit_ack_opens_window: opens,
            ..config(Recovery::NewReno)
        })
    };
    // RFC 5681 §3.2 step 6: the ACK that ends recovery only deflates the window.
    assert_eq!(run(false), 5000);
    // ns-2 `recv_newack_helper` -> `opencwnd`: cwnd (5000) = ssthresh, congestion
    // avoidance: + SMSS * SMSS / cwnd = 200 bytes.
    assert_eq!(run(true), 5200);
}

#[test]
fn exit_ack_opens_window_leaves_sack_recovery_alone() {
    // Sack1 leaves recovery through `newack` only: no growth on that ACK.
    let run = |opens| {
        let cfg = TcpConfig { exit_ack_opens_window: opens, ..config(Recovery::Sack) };
        let (mut s, _, _) = sack_in_recovery_with(cfg, &[0]);
        ack(&mut s, 300, 10 * MSS);
        assert!(!s.in_recovery());
        s.cwnd()
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn sack_pipe_ns2_counter_counts_acks_not_the_scoreboard() {
    // Holes 1 and 5 of the initial flight; recovery starts at segment 4's ACK with cwnd 11
    // segments before the loss (cwnd = ssthresh = 5500 under the RFC halving).
    // RFC 6675 SetPipe(): segments 5..12 less the lost hole, plus the retransmitted 1.
    let (s, _, _) = sack_in_recovery(&[1, 5]);
    assert_eq!(s.inflight_bytes(), 8000);
    // ns-2 Sack1: pipe_ = maxseq_ - highest_ack_ - numdupacks = 11 - 3 segments, the fast
    // retransmit not counted.
    let cfg = TcpConfig { sack_pipe: SackPipe::Ns2Counter, ..config(Recovery::Sack) };
    let (mut s, mut peer, _) = sack_in_recovery_with(cfg, &[1, 5]);
    assert_eq!(s.inflight_bytes(), 8000, "11000 outstanding less 3 segments (here SetPipe's value too)");
    // Each further ACK takes one segment off pipe_, SACKed data or not: at 5 segments with
    // cwnd 5.5, the next two ACKs make room for one segment each.
    // (SetPipe() would resend 5 at segment 8's ACK, IsLost(5): `sack.rs` tests.)
    for seg in 6..=8 {
        assert!(peer.deliver(&mut s, 210, seg).is_empty(), "pipe_ still >= int(cwnd_)");
    }
    assert_eq!(s.inflight_bytes(), 5000);
    let out = peer.deliver(&mut s, 211, 9);
    assert_eq!(out, vec![retx(5)], "pipe_ 4 < 5: one segment, the lost hole");
    assert_eq!(s.inflight_bytes(), 5000);
}

/// Reno, segments 0 and 4 lost: the partial ACK for segment 4 ends recovery (RFC 5681 §3.2
/// step 6), and three more duplicate ACKs follow. RFC 5681 fast-retransmits segment 4 and
/// halves the window again; ns-2's `RenoTcpAgent::dupack_action` with `bug_fix_` does nothing,
/// since the ACK has not passed `recover_` (segment 9): segment 4 waits for the timer.
#[test]
fn reno_reentry_beyond_recover_ignores_dupacks_below_recover() {
    let run = |reentry| {
        let mut s = in_fast_recovery(TcpConfig { reno_reentry: reentry, ..config(Recovery::Reno) });
        assert!(ack(&mut s, 300, 4 * MSS).is_empty());
        assert!(!s.in_recovery());
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend(ack(&mut s, 310, 4 * MSS));
        }
        (out, s.stats.fast_recoveries, s.ssthresh(), s.in_recovery())
    };
    assert_eq!(run(RenoReentry::Always), (vec![retx(4)], 2, 3000, true), "RFC 5681 §3.2 step 2");
    assert_eq!(run(RenoReentry::BeyondRecover), (vec![], 1, 5000, false), "ns-2 bug_fix_");
}

/// After a timeout, ns-2's Reno sets `recover_ = maxseq_` (`RenoTcpAgent::timeout`): three
/// duplicate ACKs of the data sent before it start no fast retransmit.
#[test]
fn reno_reentry_beyond_recover_holds_after_a_timeout() {
    let run = |reentry| {
        let mut s = established(TcpConfig { reno_reentry: reentry, ..config(Recovery::Reno) });
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1100), &mut out), Some(0));
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend(ack(&mut s, 1200, 0));
        }
        (out.first().cloned(), s.stats.fast_recoveries)
    };
    assert_eq!(run(RenoReentry::Always), (Some(retx(0)), 1));
    assert_eq!(run(RenoReentry::BeyondRecover), (None, 0));
}

/// The SYN sent at 0 is lost; the timer (initial RTO 1 s) resends it at 1 s and its answer
/// comes at 1.1 s. RFC 6298 (5.7) times the first data with a 3 s RTO and leaves ssthresh
/// alone; ns-2's SYN is packet 0 and its timeout an ordinary one (`TcpAgent::timeout`):
/// ssthresh_ = 2 packets (`slowdown`'s floor), the timer backed off to 2 s until the first
/// RTT sample. Both open with one segment (RFC 5681 §3.1; ns-2 `bugfix_ss_`).
#[test]
fn syn_timeout_ns2_sets_ssthresh_two_and_keeps_the_backed_off_rto() {
    let run = |rule| {
        let mut s = TcpSender::new(TcpConfig { syn_timeout: rule, ..config(Recovery::Sack) }, u64::MAX);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        s.on_timer(ms(1000), &mut out);
        assert_eq!(s.stats.syn_retransmits, 1);
        let mut out = Vec::new();
        s.on_syn_ack(ms(1100), &mut out);
        assert_eq!(out, vec![new_data(0)], "one segment");
        (s.cwnd(), s.ssthresh(), s.rto_deadline())
    };
    assert_eq!(run(SynTimeout::Rfc6298), (MSS, u64::MAX, Some(ms(1100) + s_to_ns(3.0))), "RFC 6298 (5.7)");
    assert_eq!(run(SynTimeout::Ns2), (MSS, 2 * MSS, Some(ms(1100) + s_to_ns(2.0))), "ns-2 slowdown()");
}

/// SACK, the initial flight (segments 0..10) unanswered: the timer fires at 1100 ms and resends
/// segment 0. Its ACK at 1200 ms also SACKs segments 2 and 3, and slow start opens cwnd to
/// two segments: snd_una + cwnd ends at segment 3. hosim skips what that ACK SACKed (and
/// segment 4 is beyond the window); ns-2's Sack1 goes back N over it as well (its scoreboard,
/// cleared by the timeout, is cleared again by every new ACK outside recovery).
#[test]
fn go_back_n_all_resends_segments_sacked_after_the_timeout() {
    let run = |rule| {
        let mut s = established(TcpConfig { go_back_n: rule, ..config(Recovery::Sack) });
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1100), &mut out), Some(0));
        assert_eq!(out, vec![retx(0)]);
        let mut blocks = SackBlocks::default();
        blocks.push((2 * MSS, 4 * MSS));
        ack_with(&mut s, 1200, MSS, &blocks)
    };
    assert_eq!(run(GoBackN::SkipSacked), vec![retx(1)], "2 SACKed after the timeout");
    assert_eq!(run(GoBackN::All), vec![retx(1), retx(2)], "ns-2: t_seqno_++ whatever is SACKed");
}

/// SACK with Limited Transmit, the initial flight (segments 0..10) unanswered: the timer fires
/// at 1100 ms. Two ACKs that SACK segments 8 and 9 arrive before any ACK of new data. RFC 3042
/// lets each send a segment (go-back-N's next, 1 and 2); ns-2's Sack1 ignores them (`timeout_` is set until an ACK of new
/// data), so the go-back-N waits for the ACK of segment 0.
#[test]
fn go_back_n_all_ignores_duplicate_acks_until_new_data_is_acked() {
    let run = |rule| {
        let cfg = TcpConfig { go_back_n: rule, limited_transmit: true, ..config(Recovery::Sack) };
        let mut s = established(cfg);
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1100), &mut out), Some(0));
        let mut sent = Vec::new();
        for k in 9..11 {
            let mut blocks = SackBlocks::default();
            blocks.push((8 * MSS, k * MSS));
            sent.extend(ack_with(&mut s, 1150, 0, &blocks));
        }
        sent
    };
    assert_eq!(run(GoBackN::SkipSacked), vec![retx(1), retx(2)], "RFC 3042: one segment per duplicate ACK");
    assert_eq!(run(GoBackN::All), vec![], "ns-2 Sack1: timeout_ ignores them");
}

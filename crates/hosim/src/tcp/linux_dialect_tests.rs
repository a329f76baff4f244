//! The Linux dialect keys (docs/tcp.md, "Linux dialect"), each against the RFC behaviour it
//! replaces; the `rto_rearm` key is pinned on a whole run in tests/linux_dialect.rs.

use super::cc::{Controller, Cubic, NewAck, ALPHA_CUBIC};
use super::config::{
    CcKind, CubicAlpha, GrowthGate, Recovery, ReductionBasis, RtoFormula, SackRetransmit, SlowStartGrowth, TcpConfig,
};
use super::fixtures::{ack, config, established, holes_1_and_8_of_ten, ms, retx, MSS};
use super::rto::RtoEstimator;
use crate::net::packet::SackBlocks;

#[test]
fn slow_start_acked_grows_cwnd_by_both_segments_of_a_delayed_ack() {
    // A delayed ACK of segments 0 and 1: RFC 5681 eq. (2) adds min(N, SMSS), Linux
    // `tcp_slow_start` the packets acked.
    for (rule, want) in [(SlowStartGrowth::Smss, 11 * MSS), (SlowStartGrowth::Acked, 12 * MSS)] {
        let mut s = established(TcpConfig { slow_start_growth: rule, ..config(Recovery::Sack) });
        super::fixtures::ack(&mut s, 200, 2 * MSS);
        assert_eq!(s.cwnd(), want, "{rule:?}");
    }
}

#[test]
fn slow_start_acked_stops_at_ssthresh_and_counts_the_rest_in_congestion_avoidance() {
    let cfg = TcpConfig {
        slow_start_growth: SlowStartGrowth::Acked,
        initial_ssthresh_bytes: 11 * MSS,
        ..config(Recovery::Sack)
    };
    let mut s = established(cfg);
    super::fixtures::ack(&mut s, 200, 2 * MSS);
    assert_eq!(s.cwnd(), 11 * MSS, "one segment to reach ssthresh, the other to byte counting");
}

/// RTO after `n` samples of `rtt_ms`, each taken one round trip after the last.
fn rto_after(formula: RtoFormula, samples: &[u64]) -> u64 {
    let mut r = RtoEstimator::new(ms(200), ms(1000), ms(120_000), ms(1)).with_formula(formula);
    for (i, &rtt) in samples.iter().enumerate() {
        let round = (i as u64 + 1) * 100;
        r.sample_at(0, ms(rtt), round, round + 50);
    }
    r.rto_ns()
}

#[test]
fn linux_rto_is_srtt_plus_rttvar_floored_at_the_minimum_rto() {
    // A steady 40 ms path: RFC 6298 gives SRTT + 4 RTTVAR -> 40 ms, raised to the 200 ms
    // minimum; Linux keeps rttvar >= tcp_rto_min, so SRTT + 200 ms.
    let steady = [40; 30];
    assert_eq!(rto_after(RtoFormula::Rfc6298, &steady), ms(200));
    assert_eq!(rto_after(RtoFormula::Linux, &steady), ms(240));
    // The first sample: RFC 3 R (raised to 200 ms), Linux R + max(2 R, 200 ms).
    assert_eq!(rto_after(RtoFormula::Rfc6298, &[40]), ms(200));
    assert_eq!(rto_after(RtoFormula::Linux, &[40]), ms(240));
    assert_eq!(rto_after(RtoFormula::Linux, &[150]), ms(450));
}

#[test]
fn linux_rto_follows_a_large_variation_then_decays_towards_the_floor() {
    // RTT jumping between 40 and 240 ms: 4 mdev exceeds 200 ms and rttvar follows it.
    let jumpy: Vec<u64> = (0..20).map(|i| if i % 2 == 0 { 40 } else { 240 }).collect();
    let high = rto_after(RtoFormula::Linux, &jumpy);
    assert!(high > ms(450), "{high}");
    let mut calm = jumpy.clone();
    calm.extend([90; 40]);
    let settled = rto_after(RtoFormula::Linux, &calm);
    assert!((ms(289)..=ms(291)).contains(&settled), "decays to SRTT + 200 ms: {settled} from {high}");
}

/// Reno-friendly W_est after `rounds` round trips of 10 ms in congestion avoidance, starting
/// from a loss at 100 segments (cwnd = ssthresh = 70, W_max = cwnd_prior = 100).
fn w_est_after(alpha: CubicAlpha, rounds: u64) -> f64 {
    let mut rtt = RtoEstimator::new(ms(200), ms(1000), ms(60_000), ms(1));
    rtt.sample(ms(10));
    let mut cc = Cubic::new(MSS as u32, 100 * MSS, u64::MAX).with_rules(SlowStartGrowth::Smss, alpha);
    let ssthresh = cc.on_congestion_event(0, 100 * MSS, &rtt);
    cc.set_cwnd(ssthresh);
    for r in 0..rounds {
        let segs = cc.cwnd() / MSS;
        for _ in 0..segs {
            cc.on_ack(ms(10 * r + 1), &NewAck::of(MSS), &rtt);
        }
    }
    cc.w_est().expect("in congestion avoidance")
}

#[test]
fn cubic_alpha_fixed_keeps_the_reno_friendly_increase_at_0_53() {
    // W_est reaches cwnd_prior = 100 after about 30 / 0.53 = 57 rounds; RFC 9438 §4.3 then
    // grows it by one segment per round, Linux by α_cubic still.
    let fixed = w_est_after(CubicAlpha::Fixed, 100);
    let rfc = w_est_after(CubicAlpha::Rfc9438, 100);
    assert!((fixed - (70.0 + 100.0 * ALPHA_CUBIC)).abs() < 1.0, "{fixed}");
    assert!(rfc > fixed + 15.0, "rfc {rfc}, fixed {fixed}");
}

/// ACKs of one segment each from a receiver whose window is 5 segments, `n` of them.
fn rwnd_limited_cwnd(gate: GrowthGate, n: u64) -> u64 {
    let mut s = established(TcpConfig { growth_gate: gate, ..config(Recovery::Sack) });
    let mut acked = 0;
    let mut out = Vec::new();
    for i in 0..n {
        acked += MSS;
        out.clear();
        s.on_ack(ms(200 + i), acked, &SackBlocks::default(), false, 5 * MSS, &mut out);
    }
    s.cwnd()
}

#[test]
fn growth_gate_cwnd_limited_stops_growth_behind_a_small_receive_window() {
    // RFC 5681 grows cwnd on every ACK of new data; Linux `tcp_is_cwnd_limited` lets slow
    // start grow it only to twice the most that was in flight (the initial window, 10
    // segments), and nothing while the receive window holds the flow at 5.
    assert_eq!(rwnd_limited_cwnd(GrowthGate::Always, 200), 210 * MSS);
    assert_eq!(rwnd_limited_cwnd(GrowthGate::CwndLimited, 200), 20 * MSS);
}

/// CUBIC in slow start, every segment acknowledged on its own `rtt_ms(k)` after it was sent
/// (the ACKs of one flight arrive together), until 300 segments are acknowledged.
fn cubic_slow_start(linux_hystart: bool, rtt_ms: impl Fn(u64) -> u64) -> super::sender::TcpSender {
    let cfg = TcpConfig { cc: CcKind::CUBIC, linux_hystart, ..config(Recovery::Sack) };
    let mut s = established(cfg);
    let mut sent_at: Vec<u64> = vec![100; 10];
    let mut now = 0;
    for k in 0..300 {
        now = (sent_at[k as usize] + rtt_ms(k)).max(now);
        for _ in super::fixtures::ack(&mut s, now, (k + 1) * MSS) {
            sent_at.push(now);
        }
    }
    s
}

#[test]
fn linux_hystart_leaves_slow_start_at_once_on_a_delay_increase() {
    // RTT 100 ms, then 120 ms from segment 40: above 100 + clamp(100/8, 4, 16) = 112.5 ms
    // (tcp_cubic.c HYSTART_DELAY): ssthresh = cwnd at the ninth sample of that round.
    let s = cubic_slow_start(true, |k| if k < 40 { 100 } else { 120 });
    assert_eq!((s.slow_start_exits().delay, s.slow_start_exits().train), (1, 0));
    assert!(s.ssthresh() < 100 * MSS && s.ssthresh() <= s.cwnd(), "{} {}", s.ssthresh(), s.cwnd());
    let s = cubic_slow_start(true, |k| if k < 40 { 100 } else { 110 });
    assert_eq!(s.ssthresh(), u64::MAX, "10 ms is below the 12.5 ms threshold");
    let s = cubic_slow_start(false, |k| if k < 40 { 100 } else { 120 });
    assert_eq!(s.ssthresh(), u64::MAX, "RFC 5681 slow start has no delay signal");
}

/// SACK recovery for the lost `holes` of the initial flight; the rest of the flight arrives,
/// then the holes' originals, late (reordered, not lost): the cumulative ACK passes the
/// recovery point and the retransmissions are still to arrive. Returns the sender and the
/// segments it retransmitted.
fn recovery_with_late_originals(dsack_undo: bool, holes: &[u64]) -> (super::sender::TcpSender, Vec<u64>) {
    let cfg = TcpConfig { dsack_undo, ..config(Recovery::Sack) };
    let (mut s, mut peer, mut sent) = super::fixtures::sack_in_recovery_with(cfg, holes);
    for k in (0..10).filter(|k| !holes.contains(k)) {
        sent.extend(peer.deliver(&mut s, 210, k));
    }
    for &k in holes {
        sent.extend(peer.deliver(&mut s, 250, k));
    }
    assert!(!s.in_recovery());
    let resent = sent.iter().filter(|g| g.is_retx).map(|g| g.seq / MSS).collect();
    (s, resent)
}

/// The ACK a duplicate of segment `k` triggers: the cumulative ACK of the whole flight
/// and a D-SACK block below it (RFC 2883 §4.1.1).
fn dsack_of(s: &mut super::sender::TcpSender, at_ms: u64, k: u64) {
    let mut d = SackBlocks::default();
    d.push((k * MSS, (k + 1) * MSS));
    let una = s.snd_una();
    super::fixtures::ack_with(s, at_ms, una, &d);
}

#[test]
fn dsack_undo_restores_the_window_when_every_retransmission_was_a_duplicate() {
    // Segment 0 was only late: its retransmission comes back as a DSACK. Linux
    // `tcp_try_undo_dsack` restores cwnd and ssthresh (here the initial, infinite one) even
    // after the recovery ended; without the key the reduction stays.
    for undo in [false, true] {
        let (mut s, resent) = recovery_with_late_originals(undo, &[0]);
        assert_eq!(resent, vec![0]);
        let reduced = (s.cwnd(), s.ssthresh());
        assert!(reduced.0 < 10 * MSS && reduced.1 == 5 * MSS, "{reduced:?}");
        dsack_of(&mut s, 300, 0);
        if undo {
            assert_eq!((s.cwnd() >= 10 * MSS, s.ssthresh()), (true, u64::MAX));
            assert_eq!((s.stats.dsacks_received, s.stats.dsack_undos), (1, 1));
        } else {
            assert_eq!((s.cwnd(), s.ssthresh()), reduced);
            assert_eq!((s.stats.dsacks_received, s.stats.dsack_undos), (1, 0));
        }
    }
}

#[test]
fn dsack_undo_waits_for_every_retransmission_of_the_episode() {
    let (mut s, resent) = recovery_with_late_originals(true, &[0, 5]);
    assert_eq!(resent, vec![0, 5]);
    let reduced = s.cwnd();
    dsack_of(&mut s, 300, 0);
    assert_eq!((s.cwnd(), s.ssthresh(), s.stats.dsack_undos), (reduced, 5 * MSS, 0), "segment 5's is out");
    dsack_of(&mut s, 301, 5);
    assert_eq!((s.cwnd() >= 10 * MSS, s.stats.dsack_undos), (true, 1));
}

/// `recovery_with_late_originals` with `timestamps`: the late originals' ACKs echo the
/// TSval of their first transmission (100 ms), older than the retransmissions (200 ms on).
fn recovery_with_echoed_originals(timestamps: bool, holes: &[u64]) -> super::sender::TcpSender {
    use super::sender::ts_clock;
    let cfg = TcpConfig { timestamps, ..config(Recovery::Sack) };
    let (mut s, mut peer, _) = super::fixtures::sack_in_recovery_with(cfg, holes);
    for k in (0..10).filter(|k| !holes.contains(k)) {
        peer.deliver(&mut s, 210, k);
    }
    for &k in holes {
        s.set_ack_ts_ecr(ts_clock(ms(100)));
        peer.deliver(&mut s, 250, k);
    }
    s
}

#[test]
fn timestamps_undo_a_recovery_whose_hole_the_original_filled() {
    // Linux `tcp_try_undo_recovery` with `tcp_packet_delayed`: the ACK ending the recovery
    // echoes a TSval older than the first retransmission, so the original arrived: cwnd and
    // ssthresh go back (here ssthresh to the initial, infinite one). Without the key the
    // reduction stands.
    for ts in [false, true] {
        let s = recovery_with_echoed_originals(ts, &[0]);
        assert!(!s.in_recovery());
        if ts {
            assert_eq!((s.cwnd() >= 10 * MSS, s.ssthresh()), (true, u64::MAX));
            assert_eq!((s.stats.ts_undos, s.stats.ts_partial_undos), (1, 0));
        } else {
            assert_eq!((s.cwnd() < 10 * MSS, s.ssthresh()), (true, 5 * MSS));
            assert_eq!(s.stats.ts_undos, 0);
        }
    }
}

#[test]
fn timestamps_echo_of_the_retransmission_undoes_nothing() {
    // The hole filled by the retransmission (sent at 200 ms): its echo is not older than
    // `retrans_stamp`, the loss was real.
    use super::sender::ts_clock;
    let cfg = TcpConfig { timestamps: true, ..config(Recovery::Sack) };
    let (mut s, mut peer, _) = super::fixtures::sack_in_recovery_with(cfg, &[0]);
    for k in 4..10 {
        peer.deliver(&mut s, 210, k);
    }
    s.set_ack_ts_ecr(ts_clock(ms(200)));
    peer.deliver(&mut s, 260, 0);
    assert_eq!((s.in_recovery(), s.ssthresh(), s.stats.ts_undos), (false, 5 * MSS, 0));
}

#[test]
fn timestamps_give_an_rtt_sample_where_karns_rule_gives_none() {
    // After the RTO at 1100 ms only the retransmission of segment 0 is out; its ACK is
    // ambiguous by Karn's rule (RFC 6298 §3), but its echo (the retransmission's TSval) times
    // it: 60 ms (Linux `tcp_ack_update_rtt`, `tcp_rtt_tsopt_us`).
    use super::sender::ts_clock;
    for ts in [false, true] {
        let mut s = established(TcpConfig { timestamps: ts, ..config(Recovery::Sack) });
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1100), &mut out), Some(0));
        let before = s.stats.rtt_samples;
        s.set_ack_ts_ecr(ts_clock(ms(1100)));
        super::fixtures::ack(&mut s, 1160, MSS);
        assert_eq!(s.stats.rtt_samples - before, ts as u64, "timestamps {ts}");
    }
}

#[test]
fn timestamps_partial_undo_when_no_retransmission_is_left_out() {
    // Holes 0 and 9: only 0 is resent (nothing is SACKed above 9). The late original of 0
    // is a partial ACK echoing 100 ms: Linux `tcp_try_undo_partial` undoes the reduction and
    // leaves recovery (TCPPartialUndo), as no retransmission is in the network.
    let s = recovery_with_echoed_originals(true, &[0, 9]);
    assert_eq!((s.stats.ts_undos, s.stats.ts_partial_undos), (1, 1));
    assert_eq!(s.ssthresh(), u64::MAX);
}

#[test]
fn timestamps_hold_the_undo_while_a_retransmission_is_out() {
    // Holes 0 and 5, both resent: the original of 0 shows reordering but the retransmission
    // of 5 is still out, so the sender stays in recovery ("clock out new packets but do not
    // mark more packets lost"); the original of 5 ends it, and the whole recovery is undone.
    use super::sender::ts_clock;
    let cfg = TcpConfig { timestamps: true, ..config(Recovery::Sack) };
    let (mut s, mut peer, mut sent) = super::fixtures::sack_in_recovery_with(cfg, &[0, 5]);
    for k in [4, 6, 7, 8, 9] {
        sent.extend(peer.deliver(&mut s, 210, k));
    }
    assert!(sent.iter().any(|g| g.is_retx && g.seq == 5 * MSS), "5 resent");
    s.set_ack_ts_ecr(ts_clock(ms(100)));
    peer.deliver(&mut s, 250, 0);
    assert_eq!((s.in_recovery(), s.stats.ts_undos), (true, 0));
    s.set_ack_ts_ecr(ts_clock(ms(100)));
    peer.deliver(&mut s, 251, 5);
    assert_eq!((s.in_recovery(), s.stats.ts_undos, s.stats.ts_partial_undos), (false, 1, 0));
    assert_eq!(s.ssthresh(), u64::MAX);
}

/// Ten segments of application data, holes 1 and 8: segments 0 and 2..7 arrive (recovery
/// starts at segment 4's ACK and resends 1), then the original 9, then 8. What the sender
/// sent before 9's ACK, and after it.
fn nothing_new_to_send(retransmit: SackRetransmit) -> (Vec<super::sender::Segment>, Vec<super::sender::Segment>) {
    let cfg = TcpConfig { sack_retransmit: retransmit, rescue_retransmission: false, ..config(Recovery::Sack) };
    let (before_9, after_9, _) = holes_1_and_8_of_ten(cfg);
    (before_9, after_9)
}

#[test]
fn sack_retransmit_lost_only_never_resends_a_segment_not_marked_lost() {
    // With no new data to send, NextSeg() rule (3) resends segment 8 once 9 is SACKed above
    // it, though IsLost(8) is false (RFC 6675 §4). Linux resends only segments marked lost
    // (`tcp_xmit_retransmit_queue`: TCPCB_LOST), so the original 8 is left to arrive.
    assert_eq!(nothing_new_to_send(SackRetransmit::NextSeg), (vec![retx(1)], vec![retx(8)]));
    let (before, after) = nothing_new_to_send(SackRetransmit::LostOnly);
    assert_eq!(before, vec![retx(1)]);
    assert_eq!(after, vec![], "one SACKed segment above 8 does not make it lost");
}

/// SACK blocks reporting segments `from..to` of the flight.
fn sacked(from: u64, to: u64) -> SackBlocks {
    let mut b = SackBlocks::default();
    b.push((from * MSS, to * MSS));
    b
}

/// New segments (by number) in what the sender put out.
fn new_segments(out: &[super::sender::Segment]) -> Vec<u64> {
    out.iter().filter(|g| g.len > 0 && !g.is_retx).map(|g| g.seq / MSS).collect()
}

#[test]
fn pipe_outside_recovery_sends_a_new_segment_per_sack_while_a_hole_waits() {
    // Segment 0 of the initial flight is late (reordered, not lost): segments 1 and 2 are
    // SACKed, fewer than DupThresh, so no recovery starts. RFC 5681 counts all ten segments
    // in flight (Limited Transmit is off in the fixtures): nothing leaves. Linux's
    // `tcp_packets_in_flight` leaves the SACKed ones out: one new segment per SACK. When the
    // late original fills the hole, RFC 5681 sends the whole freed window at once, Linux
    // only what the ACK freed beyond what it already sent.
    for pipe in [false, true] {
        let mut s = established(TcpConfig { pipe_outside_recovery: pipe, ..config(Recovery::Sack) });
        let first = super::fixtures::ack_with(&mut s, 200, 0, &sacked(1, 2));
        let second = super::fixtures::ack_with(&mut s, 201, 0, &sacked(1, 3));
        assert!(!s.in_recovery());
        let filled = ack(&mut s, 210, 3 * MSS);
        let during: Vec<u64> = new_segments(&first).into_iter().chain(new_segments(&second)).collect();
        if pipe {
            assert_eq!(during, vec![10, 11], "one per SACKed segment");
            assert_eq!(new_segments(&filled).len(), 2, "slow start's growth for 3 segments acked: {filled:?}");
        } else {
            assert!(during.is_empty(), "{during:?}");
            assert_eq!(new_segments(&filled).len(), 4, "3 segments freed and 1 of growth: {filled:?}");
        }
    }
}

#[test]
fn reduction_basis_cwnd_halves_cwnd_not_a_flight_swollen_by_sacked_data() {
    // Outside recovery Linux sends per SACK (`pipe_outside_recovery`), so at the loss more
    // than cwnd is outstanding. RFC 5681 §3.2 (eq. 4) halves that FlightSize; Linux's
    // `tcp_reno_ssthresh` halves cwnd.
    for basis in [ReductionBasis::FlightSize, ReductionBasis::Cwnd] {
        let cfg = TcpConfig { pipe_outside_recovery: true, reduction_basis: basis, ..config(Recovery::Sack) };
        let mut s = established(cfg);
        // Segment 0 arrives, 1 is lost; 2 is SACKed, then the new ACK of 0 grows cwnd to 11.
        super::fixtures::ack_with(&mut s, 200, 0, &sacked(2, 3));
        super::fixtures::ack_with(&mut s, 201, MSS, &sacked(2, 3));
        super::fixtures::ack_with(&mut s, 202, MSS, &sacked(2, 4));
        let cwnd_before = s.cwnd();
        assert!(s.snd_max() - s.snd_una() > cwnd_before, "more than cwnd outstanding");
        super::fixtures::ack_with(&mut s, 203, MSS, &sacked(2, 5));
        assert!(s.in_recovery(), "three SACKed segments above the hole");
        match basis {
            ReductionBasis::Cwnd => assert_eq!(s.ssthresh(), cwnd_before / 2),
            ReductionBasis::FlightSize => assert!(s.ssthresh() > cwnd_before / 2, "{}", s.ssthresh()),
        }
    }
}

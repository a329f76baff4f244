//! Sender scenarios for RFC 8985 RACK-TLP and RFC 5682 F-RTO with the RFC 4015 Eifel
//! response, built on the fixtures of `fixtures.rs` (SRTT = min RTT = 100 ms from the SYN,
//! RTO = 1 s, ten segments in flight since 100 ms).

use super::config::{LossDetection, Recovery, TcpConfig};
use super::fixtures::*;
use super::sender::TcpSender;

fn rack(recovery_cfg: TcpConfig) -> TcpConfig {
    TcpConfig { loss_detection: LossDetection::RackTlp, ..recovery_cfg }
}

fn fire(s: &mut TcpSender, at_ms: u64) -> (Option<u64>, Vec<crate::tcp::sender::Segment>) {
    let mut out = Vec::new();
    let r = s.on_timer(ms(at_ms), &mut out);
    (r, out)
}

// ---- RACK --------------------------------------------------------------------------------

#[test]
fn rack_one_sacked_segment_marks_the_hole_lost_only_after_the_reordering_window() {
    // Segment 0 is missing; 1 arrives at 200 ms. One SACKed segment, no reordering seen:
    // reo_wnd = min_RTT / 4 = 25 ms (RFC 8985 §6.2 step 4). Segment 0, sent at 100 ms like
    // 1, is lost at 100 + RACK.rtt (100) + 25 = 225 ms, by the reorder timer.
    let mut s = established(rack(config(Recovery::Sack)));
    let mut peer = SackPeer::default();
    assert!(peer.deliver(&mut s, 200, 1).is_empty());
    assert!(!s.in_recovery());
    assert_eq!(s.rto_deadline(), Some(ms(225)), "the RACK reorder timer");
    assert_eq!(fire(&mut s, 224).1, vec![], "not before reo_wnd has passed");
    let (rto, out) = fire(&mut s, 225);
    assert_eq!((rto, out), (None, vec![retx(0)]), "lost by time: fast recovery, not an RTO");
    assert!(s.in_recovery());
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn rack_reordering_within_the_window_does_not_trigger_recovery() {
    // Segment 0 is late, not lost: 1 arrives at 200 ms, 0 at 210 ms (within 25 ms).
    let mut s = established(rack(config(Recovery::Sack)));
    let mut peer = SackPeer::default();
    peer.deliver(&mut s, 200, 1);
    peer.deliver(&mut s, 210, 0);
    assert!(!s.in_recovery());
    assert_eq!(s.stats.fast_recoveries, 0);
    assert!(s.rto_deadline().unwrap() > ms(225), "the reorder timer is disarmed");
}

#[test]
fn dupthresh_one_sacked_segment_never_marks_the_hole() {
    // The same single SACK under DupThresh: IsLost needs three SACKed segments above.
    let mut s = established(config(Recovery::Sack));
    let mut peer = SackPeer::default();
    peer.deliver(&mut s, 200, 1);
    assert_eq!(s.rto_deadline(), Some(ms(1100)), "only the RTO is armed");
}

#[test]
fn tlp_probe_after_two_srtt_turns_a_tail_loss_into_fast_recovery() {
    // A ten-segment transfer whose last three segments (7–9) are lost. The ACKs of 0–6 come
    // at 200 ms; nothing raises a duplicate ACK. RFC 8985 §7.2: PTO = 2·SRTT = 200 ms, so the
    // probe (the last segment: no new data) goes at 400 ms, long before the RTO at 1200 ms.
    let mut s = established_with_data(rack(config(Recovery::Sack)), 10 * MSS);
    let mut peer = SackPeer::default();
    for seg in 0..7 {
        assert!(peer.deliver(&mut s, 200, seg).is_empty());
    }
    assert_eq!(s.rto_deadline(), Some(ms(400)));
    assert!(fire(&mut s, 399).1.is_empty());
    let (rto, out) = fire(&mut s, 400);
    assert_eq!((rto, out), (None, vec![retx(9)]), "§7.3: retransmit the highest segment");
    assert_eq!(s.stats.tlp_probes, 1);
    assert_eq!(s.rto_deadline(), Some(ms(1400)), "§7.3: the RTO timer is re-armed");
    // The probe arrives; its SACK lets RACK mark 7 and 8 (sent before it) lost at once.
    let out = peer.deliver(&mut s, 500, 9);
    assert!(s.in_recovery());
    assert_eq!(out, vec![retx(7), retx(8)]);
    peer.deliver(&mut s, 600, 7);
    peer.deliver(&mut s, 600, 8);
    assert!(s.is_done());
    assert_eq!((s.stats.timeouts, s.stats.fast_recoveries), (0, 1), "repaired without an RTO");
}

#[test]
fn timer_wheel_puts_the_reorder_timer_two_ms_later_on_the_next_tick() {
    // The reorder timer of `rack_one_sacked_segment_marks_the_hole_lost_only_after_the_
    // reordering_window` (25 ms left at 200 ms) as Linux arms it at HZ 250:
    // `tcp_rack_mark_lost` converts 25 ms + TCP_TIMEOUT_MIN_US = 27 ms to 7 jiffies from jiffy
    // 50, and the wheel fires it on the tick after jiffy 57: 232 ms, not 225 ms.
    let mut s = established(TcpConfig { timer_wheel_hz: 250, ..rack(config(Recovery::Sack)) });
    let mut peer = SackPeer::default();
    assert!(peer.deliver(&mut s, 200, 1).is_empty());
    assert_eq!(s.rto_deadline(), Some(ms(232)));
    assert_eq!(fire(&mut s, 231).1, vec![]);
    assert_eq!(fire(&mut s, 232), (None, vec![retx(0)]));
}

#[test]
fn timer_wheel_arms_the_loss_probe_and_the_rto_in_jiffies() {
    // The tail loss of `tlp_probe_after_two_srtt_turns_a_tail_loss_into_fast_recovery` at
    // HZ 250. The PTO: 2 SRTT + 2 ms (`tcp_schedule_loss_probe`) = 202 ms, 51 jiffies from
    // jiffy 50, fired at tick 102 = 408 ms. The RTO the probe re-arms: 1 s = 250 jiffies from
    // jiffy 102, 63 or more jiffies ahead, so on the second level of the wheel: the multiple
    // of 8 jiffies after 352, 360 = 1440 ms.
    let mut s = established_with_data(TcpConfig { timer_wheel_hz: 250, ..rack(config(Recovery::Sack)) }, 10 * MSS);
    let mut peer = SackPeer::default();
    for seg in 0..7 {
        peer.deliver(&mut s, 200, seg);
    }
    assert_eq!(s.rto_deadline(), Some(ms(408)));
    assert!(fire(&mut s, 407).1.is_empty());
    assert_eq!(fire(&mut s, 408), (None, vec![retx(9)]));
    assert_eq!(s.rto_deadline(), Some(ms(1440)));
}

#[test]
fn tlp_pto_adds_the_max_ack_delay_when_one_segment_is_in_flight() {
    // RFC 8985 §7.2: "If FlightSize is one segment: PTO += TLP.max_ack_delay" (200 ms).
    let mut s = established_with_data(rack(config(Recovery::Sack)), 10 * MSS);
    let mut peer = SackPeer::default();
    for seg in 0..9 {
        peer.deliver(&mut s, 200, seg);
    }
    assert_eq!(s.rto_deadline(), Some(ms(200 + 200 + 200)));
}

#[test]
fn tlp_probe_sends_new_data_when_there_is_some() {
    let mut s = established(rack(config(Recovery::Sack)));
    let mut peer = SackPeer::default();
    let mut sent = Vec::new();
    for seg in 0..7 {
        sent.extend(peer.deliver(&mut s, 200, seg));
    }
    let next = s.snd_max() / MSS;
    let deadline = s.rto_deadline().unwrap();
    assert_eq!(deadline, ms(400));
    let mut out = Vec::new();
    s.on_timer(deadline, &mut out);
    assert_eq!(out, vec![new_data(next)], "§7.3: the lowest unsent segment");
}

/// SACK recovery of hole 1 whose retransmission (at 200 ms) is lost too; 2–9 and the new
/// segments arrive. Returns the sender and what it sent from 300 ms on.
fn lost_retransmission(cfg: TcpConfig) -> (TcpSender, Vec<crate::tcp::sender::Segment>) {
    let (mut s, mut peer, sent) = sack_in_recovery_with(cfg, &[1]);
    assert_eq!(sent.last(), Some(&retx(1)));
    let mut later = Vec::new();
    for seg in 5..10 {
        peer.deliver(&mut s, 210, seg);
    }
    let high = s.snd_max() / MSS;
    for seg in 10..high {
        later.extend(peer.deliver(&mut s, 300 + seg, seg));
    }
    (s, later)
}

#[test]
fn rack_recovers_a_lost_retransmission_without_an_rto() {
    let (mut s, later) = lost_retransmission(rack(config(Recovery::Sack)));
    assert!(later.contains(&retx(1)), "RACK marks the retransmission lost by time: {later:?}");
    assert_eq!(s.stats.lost_retransmissions, 1);
    let mut peer_done = SackPeer::default();
    for seg in 0..s.snd_max() / MSS {
        peer_done.deliver(&mut s, 400, seg);
    }
    assert_eq!((s.stats.timeouts, s.in_recovery()), (0, false));
}

#[test]
fn dupthresh_sack_needs_an_rto_for_a_lost_retransmission() {
    let (s, later) = lost_retransmission(config(Recovery::Sack));
    assert!(!later.contains(&retx(1)), "RFC 6675 never resends below HighRxt: {later:?}");
    assert!(s.in_recovery());
}

// ---- F-RTO and Eifel -------------------------------------------------------------------

fn frto(cfg: TcpConfig) -> TcpConfig {
    TcpConfig { frto: true, ..cfg }
}

/// The timer fires at 1100 ms with nothing acknowledged; F-RTO (step 1) resends segment 0.
fn after_rto_with(cfg: TcpConfig) -> TcpSender {
    let mut s = established(cfg);
    assert_eq!(fire(&mut s, 1100), (Some(0), vec![retx(0)]));
    s
}

#[test]
fn frto_two_acks_of_new_data_declare_the_timeout_spurious() {
    // The originals were only delayed: their ACKs arrive after the timeout.
    let mut s = after_rto_with(frto(config(Recovery::NewReno)));
    assert_eq!(ack(&mut s, 1200, MSS), vec![new_data(10), new_data(11)], "RFC 5682 step 2b");
    ack(&mut s, 1210, 2 * MSS);
    assert_eq!(s.stats.frto_spurious, 1, "step 3b: data never retransmitted was acknowledged");
    assert_eq!(s.stats.episodes[0].end_ns, Some(ms(1210)));
}

#[test]
fn frto_duplicate_second_ack_is_not_spurious_and_goes_back_n() {
    let mut s = after_rto_with(frto(config(Recovery::NewReno)));
    assert_eq!(ack(&mut s, 1200, MSS), vec![new_data(10), new_data(11)]);
    let out = ack(&mut s, 1210, MSS);
    assert_eq!(s.stats.frto_spurious, 0, "step 3a");
    assert_eq!(out, vec![retx(1), retx(2)], "slow-start retransmissions, cwnd = 2 SMSS <= 3 SMSS");
}

#[test]
fn frto_duplicate_first_ack_falls_back_to_conventional_recovery() {
    let mut s = after_rto_with(frto(config(Recovery::NewReno)));
    assert!(ack(&mut s, 1200, 0).is_empty(), "step 2a: a duplicate ACK");
    assert_eq!(ack(&mut s, 1300, MSS), vec![retx(1), retx(2)], "go-back-N, no new data");
    ack(&mut s, 1310, 3 * MSS);
    assert_eq!(s.stats.frto_spurious, 0);
}

#[test]
fn frto_off_goes_back_n_at_the_first_ack() {
    let mut s = after_rto_with(config(Recovery::NewReno));
    assert_eq!(ack(&mut s, 1200, MSS), vec![retx(1), retx(2)]);
}

#[test]
fn eifel_restores_cwnd_and_ssthresh_after_a_spurious_timeout() {
    // In congestion avoidance (ssthresh 5000 < cwnd 10000) when the timer fires: RFC 4015 §2
    // (1) pipe_prev = max(FlightSize 10000, ssthresh 5000) = 10000; on detection (4) cwnd =
    // FlightSize (12000 - 2000) + min(bytes_acked 1000, IW 10000) = 11000, ssthresh = 10000.
    let cfg = TcpConfig { initial_ssthresh_bytes: 5000, ..frto(config(Recovery::NewReno)) };
    let mut s = after_rto_with(cfg);
    assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 5000));
    ack(&mut s, 1200, MSS);
    let out = ack(&mut s, 1210, 2 * MSS);
    assert_eq!((s.cwnd(), s.ssthresh()), (11_000, 10_000));
    assert_eq!(out, vec![new_data(12)], "(3) SND.NXT = SND.MAX: no go-back-N");
}

#[test]
fn frto_sack_ack_above_recover_is_not_spurious() {
    // SACK-enhanced F-RTO (RFC 5682 §3): segments 1–9 really were lost; after step 2b the
    // new segment 10 arrives and its SACK covers more than "recover".
    let mut s = after_rto_with(frto(config(Recovery::Sack)));
    let mut peer = SackPeer::default();
    assert_eq!(peer.deliver(&mut s, 1200, 0), vec![new_data(10), new_data(11)]);
    let out = peer.deliver(&mut s, 1300, 10);
    assert_eq!(s.stats.frto_spurious, 0, "step 3a");
    assert!(out.contains(&retx(1)), "back to slow-start retransmissions: {out:?}");
}

#[test]
fn frto_sack_new_cumulative_ack_below_recover_is_spurious() {
    let mut s = after_rto_with(frto(config(Recovery::Sack)));
    let mut peer = SackPeer::default();
    peer.deliver(&mut s, 1200, 0);
    peer.deliver(&mut s, 1210, 1);
    assert_eq!(s.stats.frto_spurious, 1, "step 3b");
}

// ---- HyStart++ ---------------------------------------------------------------------------

/// Segments acknowledged in `slow_start_with_rtt`.
const ACKED: u64 = 1000;

/// Every segment is acknowledged on its own, `rtt_ms(k)` after it was sent, until ACKED
/// segments are acknowledged; no loss. Returns the sender.
fn slow_start_with_rtt(hystart: bool, rtt_ms: impl Fn(u64) -> u64) -> TcpSender {
    let mut s = established(TcpConfig { hystart, ..config(Recovery::Sack) });
    let mut sent_at: Vec<u64> = vec![100; 10];
    let mut now = 0;
    for k in 0..ACKED {
        now = (sent_at[k as usize] + rtt_ms(k)).max(now);
        for seg in ack(&mut s, now, (k + 1) * MSS) {
            assert!(!seg.is_retx);
            sent_at.push(now);
        }
    }
    s
}

#[test]
fn hystart_leaves_slow_start_through_css_on_an_rtt_increase() {
    // RTT 100 ms, then 120 ms from segment 40 on: 20 ms > RttThresh = 100/8 = 12.5 ms
    // (RFC 9406 §4.2). After CSS_ROUNDS rounds of CSS, ssthresh = cwnd.
    let s = slow_start_with_rtt(true, |k| if k < 40 { 100 } else { 120 });
    assert_eq!(s.slow_start_exits().css, 1);
    assert!(s.ssthresh() < u64::MAX && s.ssthresh() <= s.cwnd(), "{} {}", s.ssthresh(), s.cwnd());
}

#[test]
fn hystart_stays_in_slow_start_on_an_rtt_increase_below_the_threshold() {
    let s = slow_start_with_rtt(true, |k| if k < 40 { 100 } else { 112 });
    assert_eq!((s.slow_start_exits().css, s.ssthresh()), (0, u64::MAX));
    assert_eq!(s.cwnd(), (ACKED + 10) * MSS, "standard slow start: one SMSS per ACK");
}

#[test]
fn without_hystart_the_rtt_increase_changes_nothing() {
    let s = slow_start_with_rtt(false, |k| if k < 40 { 100 } else { 120 });
    assert_eq!((s.ssthresh(), s.cwnd()), (u64::MAX, (ACKED + 10) * MSS));
}

#[test]
fn frto_on_a_timeout_during_fast_recovery_only_when_asked() {
    // `newreno_in_fast_recovery`'s losses; the timer fires at 1200 ms during the recovery
    // and the delayed ACK of 1..2 arrives.
    for (in_recovery, want) in [(false, vec![retx(1), retx(2)]), (true, vec![new_data(10), new_data(11)])] {
        let cfg = TcpConfig { frto_in_recovery: in_recovery, ..frto(config(Recovery::NewReno)) };
        let mut s = in_fast_recovery(cfg);
        assert_eq!(fire(&mut s, 1200).0, Some(0));
        assert_eq!(ack(&mut s, 1300, MSS), want, "frto_in_recovery = {in_recovery}");
    }
}

//! RFC 6582 §4, "Resetting the Retransmit Timer in Response to Partial Acknowledgments":
//! the Slow-but-Steady variant resets the retransmit timer after every partial ACK, the
//! Impatient variant only after the first one, so that with many losses in one window it
//! times out and slow-starts instead of recovering one segment per RTT.

use super::config::{NewRenoTimer, Recovery, TcpConfig};
use super::sender::{Segment, TcpSender};
use crate::engine::time::s_to_ns;
use crate::net::packet::SackBlocks;

const MSS: u64 = 1000;

fn ms(v: u64) -> u64 {
    v * 1_000_000
}

/// A NewReno sender with ten segments outstanding and RTO = 1 s, its SYN answered at 100 ms.
fn established(timer: NewRenoTimer) -> TcpSender {
    let cfg = TcpConfig {
        recovery: Recovery::NewReno,
        newreno_timer: timer,
        mss_bytes: MSS as u32,
        initial_window_segments: 10,
        min_rto_ns: s_to_ns(1.0),
        initial_rto_ns: s_to_ns(1.0),
        limited_transmit: false,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, 10 * MSS);
    let mut out = Vec::new();
    s.connect(0, &mut out);
    s.on_syn_ack(ms(100), &mut out);
    assert_eq!(out.iter().filter(|seg| seg.len > 0).count(), 10);
    s
}

fn ack(s: &mut TcpSender, at_ms: u64, ack: u64) -> Vec<Segment> {
    let mut out = Vec::new();
    let rwnd = s.cfg.rwnd_bytes;
    s.on_ack(ms(at_ms), ack, &SackBlocks::default(), false, rwnd, &mut out);
    out
}

/// Segments 0, 2, 4 and 6 lost: three duplicate ACKs start fast recovery at 200 ms, the
/// first partial ACK (up to segment 2) comes at 300 ms, the second (up to 4) at 400 ms.
fn after_two_partial_acks(timer: NewRenoTimer) -> TcpSender {
    let mut s = established(timer);
    for _ in 0..3 {
        ack(&mut s, 200, 0);
    }
    assert!(s.in_recovery());
    let first = ack(&mut s, 300, 2 * MSS);
    assert_eq!(first.first().map(|seg| (seg.seq, seg.is_retx)), Some((2 * MSS, true)), "partial ACK retransmits");
    assert_eq!(s.rto_deadline(), Some(ms(300) + s_to_ns(1.0)), "the first partial ACK resets the timer");
    let second = ack(&mut s, 400, 4 * MSS);
    assert_eq!(second.first().map(|seg| seg.seq), Some(4 * MSS));
    assert!(s.in_recovery());
    s
}

#[test]
fn impatient_second_partial_ack_keeps_timer() {
    let s = after_two_partial_acks(NewRenoTimer::Impatient);
    assert_eq!(s.rto_deadline(), Some(ms(300) + s_to_ns(1.0)));
}

#[test]
fn slow_but_steady_second_partial_ack_resets_timer() {
    let s = after_two_partial_acks(NewRenoTimer::SlowButSteady);
    assert_eq!(s.rto_deadline(), Some(ms(400) + s_to_ns(1.0)));
}

#[test]
fn impatient_times_out_one_rto_after_first_partial_ack_and_slow_starts() {
    for timer in [NewRenoTimer::Impatient, NewRenoTimer::SlowButSteady] {
        let mut s = after_two_partial_acks(timer);
        let mut out = Vec::new();
        let fired = s.on_timer(ms(1300), &mut out);
        match timer {
            NewRenoTimer::Impatient => {
                assert_eq!(fired, Some(4 * MSS), "timeout retransmits from snd_una");
                assert_eq!(s.stats.timeouts, 1);
                assert_eq!(s.cwnd(), MSS, "RFC 5681 §3.1: loss window of one segment");
                assert!(!s.in_recovery());
            }
            NewRenoTimer::SlowButSteady => {
                assert_eq!(fired, None, "the timer was reset at 400 ms");
                assert_eq!(s.stats.timeouts, 0);
                assert!(s.in_recovery());
            }
        }
    }
}

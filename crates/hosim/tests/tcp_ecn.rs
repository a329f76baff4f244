//! RFC 3168 ECN at the TCP endpoints: the sender halves its window on ECE at most once per
//! window of data and tells the receiver with CWR; the receiver echoes CE until CWR.

use hosim::net::packet::SackBlocks;
use hosim::tcp::{Recovery, Segment, TcpConfig, TcpReceiver, TcpSender};

const MSS: u64 = 1000;

fn cfg(ecn: bool) -> TcpConfig {
    TcpConfig {
        recovery: Recovery::Reno,
        mss_bytes: MSS as u32,
        initial_window_segments: 10,
        ecn,
        delayed_ack: false,
        ..TcpConfig::default()
    }
}

/// An established sender with ten segments in flight.
fn established(ecn: bool) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(cfg(ecn), u64::MAX);
    let mut out = Vec::new();
    s.connect(0, &mut out);
    out.clear();
    s.on_syn_ack(1_000_000, &mut out);
    (s, out)
}

fn ack(s: &mut TcpSender, t: u64, ack: u64, ece: bool) -> Vec<Segment> {
    let mut out = Vec::new();
    s.on_ack(t, ack, &SackBlocks::default(), ece, 1 << 30, &mut out);
    out
}

#[test]
fn established_ecn_sender_marks_new_data_ect() {
    let (_, out) = established(true);
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|seg| seg.ect && !seg.cwr));
    let (_, out) = established(false);
    assert!(out.iter().all(|seg| !seg.ect));
}

#[test]
fn sender_ece_halves_window_once_per_window_and_sets_cwr() {
    let (mut s, _) = established(true);
    let cwnd0 = s.cwnd();
    let mut sent = ack(&mut s, 2_000_000, MSS, true);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert!(s.cwnd() <= cwnd0 / 2, "cwnd {} after ECE, was {cwnd0}", s.cwnd());
    // ECE keeps coming on the ACKs of the rest of the window (sent before the receiver saw
    // CWR), up to and including the ACK that covers exactly that window: no second reduction.
    let window_end = 10 * MSS;
    for k in 2..=10 {
        sent.extend(ack(&mut s, 2_000_000 + k, k * MSS, true));
    }
    assert_eq!(s.snd_una(), window_end);
    assert_eq!(s.stats.ecn_reductions, 1, "one reduction per window");
    assert!(!sent.is_empty());
    assert!(
        sent[0].cwr && sent[0].seq == window_end,
        "the first new segment after the reduction carries CWR: {sent:?}"
    );
    assert!(sent.iter().skip(1).all(|seg| !seg.cwr));
    // An ECE on an ACK of data sent after the reduction is new congestion.
    ack(&mut s, 3_000_000, window_end + MSS, true);
    assert_eq!(s.stats.ecn_reductions, 2);
}

#[test]
fn sender_without_ecn_ignores_ece() {
    let (mut s, _) = established(false);
    let cwnd0 = s.cwnd();
    ack(&mut s, 2_000_000, MSS, true);
    assert_eq!(s.stats.ecn_reductions, 0);
    assert!(s.cwnd() > cwnd0, "slow start continues");
}

#[test]
fn receiver_echoes_ce_until_cwr() {
    let mut r = TcpReceiver::new(&cfg(true));
    let a = r.on_data(0, 0, MSS as u32, true, false, false).ack.expect("ack every segment");
    assert!(a.ece);
    let a = r.on_data(1, MSS, MSS as u32, false, false, false).ack.expect("ack");
    assert!(a.ece, "echo persists until CWR");
    let a = r.on_data(2, 2 * MSS, MSS as u32, false, true, false).ack.expect("ack");
    assert!(!a.ece, "CWR stops the echo");
}

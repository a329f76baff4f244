//! Sender fixtures, one per state, so each test reads like a scenario (smoltcp's
//! `socket_established()` style). All use SMSS = 1000 bytes, an initial window of ten
//! segments, a bulk source, RTO = 1 s, Limited Transmit off, and an SYN answered at 100 ms.

use super::config::{Recovery, TcpConfig};
use super::sender::{Segment, TcpSender};
use crate::engine::time::{s_to_ns, SimTime};
use crate::net::packet::SackBlocks;

pub const MSS: u64 = 1000;

pub fn ms(v: u64) -> SimTime {
    v * 1_000_000
}

pub fn config(recovery: Recovery) -> TcpConfig {
    TcpConfig {
        recovery,
        mss_bytes: MSS as u32,
        initial_window_segments: 10,
        min_rto_ns: s_to_ns(1.0),
        initial_rto_ns: s_to_ns(1.0),
        limited_transmit: false,
        ..TcpConfig::default()
    }
}

/// Established with an open window: segments 0..10 in flight since 100 ms, none acknowledged.
pub fn established(cfg: TcpConfig) -> TcpSender {
    established_with_data(cfg, u64::MAX)
}

/// `established`, with an application that hands over `app_bytes` in all.
pub fn established_with_data(cfg: TcpConfig, app_bytes: u64) -> TcpSender {
    let mut s = TcpSender::new(cfg, app_bytes);
    let mut out = Vec::new();
    s.connect(0, &mut out);
    s.on_syn_ack(ms(100), &mut out);
    assert_eq!(out.iter().filter(|seg| seg.len > 0).count(), 10, "the initial window");
    s
}

/// A plain cumulative ACK (no SACK blocks, the window unchanged).
pub fn ack(s: &mut TcpSender, at_ms: u64, ack: u64) -> Vec<Segment> {
    ack_with(s, at_ms, ack, &SackBlocks::default())
}

pub fn ack_with(s: &mut TcpSender, at_ms: u64, ack: u64, sack: &SackBlocks) -> Vec<Segment> {
    let mut out = Vec::new();
    let rwnd = s.cfg.rwnd_bytes;
    s.on_ack(ms(at_ms), ack, sack, false, rwnd, &mut out);
    out
}

/// NewReno in fast recovery: of the initial flight, segments 0 and 4 were lost; the three
/// duplicate ACKs raised by segments 1–3 arrived at 200 ms and segment 0 was retransmitted.
/// ssthresh = FlightSize / 2 = 5000, cwnd = ssthresh + 3*SMSS = 8000, recover = 10000.
pub fn newreno_in_fast_recovery() -> TcpSender {
    fast_recovery(Recovery::NewReno)
}

/// The same losses and duplicate ACKs with Reno.
pub fn reno_in_fast_recovery() -> TcpSender {
    fast_recovery(Recovery::Reno)
}

fn fast_recovery(recovery: Recovery) -> TcpSender {
    in_fast_recovery(config(recovery))
}

/// The losses and duplicate ACKs of `newreno_in_fast_recovery`, with any configuration
/// (Reno or NewReno recovery).
pub fn in_fast_recovery(cfg: TcpConfig) -> TcpSender {
    let mut s = established(cfg);
    assert!(ack(&mut s, 200, 0).is_empty());
    assert!(ack(&mut s, 200, 0).is_empty());
    let out = ack(&mut s, 200, 0);
    assert_eq!(out, vec![retx(0)], "fast retransmit of segment 0");
    assert!(s.in_recovery());
    s
}

/// A receiver that SACKs whole segments (RFC 2018 §4: the block holding the newest segment
/// first), for driving a SACK sender segment by segment.
#[derive(Default)]
pub struct SackPeer {
    received: Vec<bool>,
}

impl SackPeer {
    /// Segment `seg` (index, SMSS-sized) arrives at `at_ms`; the sender gets the ACK.
    pub fn deliver(&mut self, s: &mut TcpSender, at_ms: u64, seg: u64) -> Vec<Segment> {
        let seg = seg as usize;
        if self.received.len() <= seg {
            self.received.resize(seg + 1, false);
        }
        self.received[seg] = true;
        let cum = self.received.iter().position(|r| !r).unwrap_or(self.received.len());
        let mut runs = Vec::new();
        let mut i = cum;
        while i < self.received.len() {
            if self.received[i] {
                let start = i;
                while i < self.received.len() && self.received[i] {
                    i += 1;
                }
                runs.push((start as u64 * MSS, i as u64 * MSS));
            } else {
                i += 1;
            }
        }
        let newest = seg as u64 * MSS;
        runs.sort_by_key(|&(a, b)| !(a <= newest && newest < b));
        let mut blocks = SackBlocks::default();
        for run in runs {
            blocks.push(run);
        }
        ack_with(s, at_ms, cum as u64 * MSS, &blocks)
    }
}

/// SACK recovery with `holes` (segment indices) lost from the initial flight: the other
/// segments arrive in order at 200 ms until the sender enters recovery. Returns the sender,
/// the receiver, and what the sender sent on the way.
pub fn sack_in_recovery(holes: &[u64]) -> (TcpSender, SackPeer, Vec<Segment>) {
    sack_in_recovery_with(config(Recovery::Sack), holes)
}

/// `sack_in_recovery` with any SACK configuration (e.g. PRR).
pub fn sack_in_recovery_with(cfg: TcpConfig, holes: &[u64]) -> (TcpSender, SackPeer, Vec<Segment>) {
    let mut s = established(cfg);
    let mut peer = SackPeer::default();
    let mut sent = Vec::new();
    for seg in (0..10).filter(|k| !holes.contains(k)) {
        sent.extend(peer.deliver(&mut s, 200, seg));
        if s.in_recovery() {
            return (s, peer, sent);
        }
    }
    panic!("holes {holes:?} never start SACK recovery");
}

/// An application with ten segments, holes 1 and 8, under `cfg` (SACK recovery): segments 0
/// and 2..7 arrive at 200 ms (recovery starts at segment 4's ACK and resends 1), then the
/// original 9 at 210 ms. What the sender sent before 9's SACK (7 the highest SACKed segment,
/// nothing new left to send, 8 and 9 unSACKed above every SACK), what it sent on 9's SACK
/// (8 unSACKed below it, not lost), and the sender.
pub fn holes_1_and_8_of_ten(cfg: TcpConfig) -> (Vec<Segment>, Vec<Segment>, TcpSender) {
    let mut s = established_with_data(cfg, 10 * MSS);
    let mut peer = SackPeer::default();
    let mut before_9 = Vec::new();
    for seg in [0, 2, 3, 4, 5, 6, 7] {
        before_9.extend(peer.deliver(&mut s, 200, seg));
    }
    let after_9 = peer.deliver(&mut s, 210, 9);
    (before_9, after_9, s)
}

/// After an RTO: nothing of the initial flight was acknowledged and the timer fired at
/// 1100 ms. ssthresh = 5000, cwnd = 1 SMSS, segment 0 resent, RTO backed off to 2 s.
pub fn after_rto(recovery: Recovery) -> TcpSender {
    let mut s = established(config(recovery));
    let mut out = Vec::new();
    assert_eq!(s.on_timer(ms(1100), &mut out), Some(0));
    assert_eq!(out, vec![retx(0)]);
    s
}

/// A retransmission of segment `k`.
pub fn retx(k: u64) -> Segment {
    Segment { is_retx: true, ..new_data(k) }
}

/// Segment `k` sent for the first time (not ECN-capable: ECN is off in these fixtures).
pub fn new_data(k: u64) -> Segment {
    Segment {
        kind: crate::net::packet::PacketKind::Data,
        seq: k * MSS,
        len: MSS as u32,
        is_retx: false,
        ect: false,
        cwr: false,
        psh: false,
    }
}

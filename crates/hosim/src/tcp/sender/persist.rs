//! A zero receive window: the persist timer and zero-window probes (RFC 9293 §3.8.6.1,
//! RFC 1122 §4.2.2.17), the sender side of Freeze-TCP (Goff, Moronski, Phatak, Gupta,
//! "Freeze-TCP: a true end-to-end TCP enhancement mechanism for mobile environments").
//!
//! - RFC 9293 §3.8.6.1: "The sending TCP peer must regularly transmit at least one octet of new
//!   data (if available), or retransmit to the receiving TCP peer even if the send window is
//!   zero"; RFC 1122 §4.2.2.17: the first probe SHOULD go out when the zero window "has existed
//!   for the retransmission timeout period", and the interval between probes SHOULD increase
//!   exponentially. The interval starts at the current RTO and doubles up to the maximum RTO
//!   (Linux `tcp_probe_timer` caps it the same way); the RTO estimator itself is not backed off.
//! - The probe is a segment the receiver has already seen: no payload, sequence number snd_una.
//!   RFC 9293 §3.10.7.4 makes the receiver answer it with an ACK carrying its current window
//!   (Linux `tcp_xmit_probe_skb` sends such a segment; no byte beyond the window is needed).
//! - While the window is zero the retransmission timer is frozen, not backed off: 4.4BSD
//!   `tcp_output`, on which Freeze-TCP was built, cancels the retransmission timer when the
//!   window closes and starts the persist timer; Freeze-TCP relies on this ("the sender ...
//!   freezes all retransmit timers"). cwnd and ssthresh are untouched, so a window update
//!   resumes at the old cwnd. Unlike 4.4BSD, data already sent is not pulled back (snd_nxt
//!   stays): it was sent within the window advertised before and the receiver accepts it.
//! - A window update reopening the window ends persist mode and restarts the retransmission
//!   timer if data is outstanding (RFC 6298 (5.1)).
//! - Window updates follow RFC 9293 §3.10.7.4: the window is taken only from an ACK that is not
//!   older than the one the window was last taken from (SND.WL2 <= SEG.ACK; ACK-only segments
//!   all carry the same SEG.SEQ, so SND.WL1 does not order them). A late ACK from before a
//!   window update cannot undo it.

use super::TcpSender;
use crate::engine::time::SimTime;
use crate::net::packet::PacketKind;

use super::Segment;

/// The persist timer while the peer's window is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Persist {
    deadline_ns: SimTime,
    /// Probes sent in this zero-window period: the interval is RTO x 2^probes.
    probes: u32,
    since_ns: SimTime,
}

impl TcpSender {
    /// Whether the peer advertises a zero window (the persist timer runs).
    pub fn in_persist(&self) -> bool {
        self.persist.is_some()
    }

    pub fn persist_deadline(&self) -> Option<SimTime> {
        self.persist.map(|p| p.deadline_ns)
    }

    /// The window the peer advertised last.
    pub fn peer_rwnd(&self) -> u64 {
        self.peer_rwnd
    }

    /// The earliest time `on_timer` has work: the retransmission timer (with RACK-TLP also the
    /// loss probe or the reorder timer, `rto_deadline()`), the persist timer, or the pacing
    /// timer while a paced segment waits (`rate_based.rs`).
    pub fn timer_deadline(&self) -> Option<SimTime> {
        let d = super::earliest(self.rto_deadline(), self.persist_deadline());
        match self.rate.as_deref() {
            None => d,
            Some(r) => super::earliest(d, r.pacing_deadline()),
        }
    }

    /// RFC 9293 §3.10.7.4: take the window from an ACK no older than the last one it was taken
    /// from. Returns whether the window changed (for the duplicate-ACK test, RFC 5681 §2).
    pub(super) fn update_peer_window(&mut self, ack: u64, rwnd: u64) -> bool {
        if ack < self.snd_wl2 {
            return false;
        }
        self.snd_wl2 = ack;
        let changed = rwnd != self.peer_rwnd;
        self.peer_rwnd = rwnd;
        changed
    }

    /// After an ACK: enter persist mode on a zero window, leave it when the window reopens,
    /// and keep the retransmission timer frozen meanwhile.
    pub(super) fn update_persist(&mut self, now: SimTime) {
        match (self.peer_rwnd == 0, self.persist) {
            (true, None) => {
                let deadline_ns = now + self.rto.rto_ns();
                self.persist = Some(Persist { deadline_ns, probes: 0, since_ns: now });
                self.rto_deadline = None;
            }
            (true, Some(_)) => self.rto_deadline = None,
            (false, Some(p)) => {
                self.persist = None;
                self.stats.persist_ns += now - p.since_ns;
                if self.snd_max > self.snd_una {
                    // RFC 6298 (5.1): data is outstanding and the timer is not running.
                    self.restart_timer(now);
                }
            }
            (false, None) => {}
        }
    }

    /// The persist timer may have expired: send a probe and back off. True if it did.
    pub(super) fn on_persist_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) -> bool {
        let Some(p) = self.persist.filter(|p| p.deadline_ns <= now) else { return false };
        out.push(Segment {
            kind: PacketKind::Data,
            seq: self.snd_una,
            len: 0,
            is_retx: false,
            ect: false,
            cwr: false,
            psh: false,
        });
        self.stats.zero_window_probes += 1;
        let probes = p.probes + 1;
        // RFC 1122 §4.2.2.17: exponential backoff of the probe interval.
        let interval = self.rto.rto_ns().saturating_mul(1 << probes.min(30)).min(self.cfg.max_rto_ns);
        self.persist = Some(Persist { deadline_ns: now + interval, probes, since_ns: p.since_ns });
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::time::s_to_ns;
    use crate::net::packet::SackBlocks;
    use crate::tcp::config::{Recovery, TcpConfig};
    use crate::tcp::fixtures::{ack, config, established, ms, MSS};
    use crate::tcp::sender::{Segment, TcpSender};

    fn window_ack(s: &mut TcpSender, at_ms: u64, ack: u64, rwnd: u64) -> Vec<Segment> {
        let mut out = Vec::new();
        s.on_ack(ms(at_ms), ack, &SackBlocks::default(), false, rwnd, &mut out);
        out
    }

    /// Established NewReno (srtt 100 ms, RTO 1 s, cwnd 10 segments), the initial flight acked by
    /// ACKs carrying a zero window at 200 ms (the last one, for 0..10, is the ZWA).
    fn frozen() -> TcpSender {
        let mut s = established(TcpConfig { max_rto_ns: s_to_ns(60.0), ..config(Recovery::NewReno) });
        assert!(window_ack(&mut s, 200, 5 * MSS, 0).is_empty(), "a zero window stops sending");
        assert!(window_ack(&mut s, 200, 10 * MSS, 0).is_empty());
        s
    }

    #[test]
    fn zero_window_stops_sending_without_rto_or_window_reduction() {
        let mut s = frozen();
        assert!(s.in_persist());
        assert_eq!(s.rto_deadline(), None, "the retransmission timer is frozen");
        assert_eq!(s.persist_deadline(), Some(ms(200) + s_to_ns(1.0)), "first probe after one RTO");
        let cwnd = s.cwnd();
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1200), &mut out), None, "a probe is not a timeout");
        assert_eq!(out, vec![probe(10)]);
        assert_eq!((s.stats.timeouts, s.cwnd(), s.rto_ns()), (0, cwnd, s_to_ns(1.0)));
    }

    #[test]
    fn zero_window_probes_back_off_exponentially_up_to_max_rto() {
        let mut s = frozen();
        let mut at = ms(1200);
        let mut gaps = Vec::new();
        for _ in 0..8 {
            let mut out = Vec::new();
            s.on_timer(at, &mut out);
            assert_eq!(out.len(), 1);
            let next = s.persist_deadline().unwrap();
            gaps.push((next - at) / s_to_ns(1.0));
            at = next;
        }
        assert_eq!(gaps, vec![2, 4, 8, 16, 32, 60, 60, 60], "RFC 1122 §4.2.2.17");
        assert_eq!(s.stats.zero_window_probes, 8);
    }

    #[test]
    fn window_update_resumes_at_the_old_cwnd() {
        let mut s = frozen();
        let cwnd = s.cwnd();
        // Three TR-ACKs (Freeze-TCP): the first reopens the window, the others change nothing.
        let out = window_ack(&mut s, 3000, 10 * MSS, 1 << 20);
        assert_eq!(out.len() as u64, cwnd / MSS, "a full cwnd released at once");
        assert_eq!((out[0].seq, s.cwnd()), (10 * MSS, cwnd));
        assert!(!s.in_persist());
        assert_eq!(s.rto_deadline(), Some(ms(3000) + s_to_ns(1.0)), "RFC 6298 (5.1): timer restarted");
        assert!(window_ack(&mut s, 3000, 10 * MSS, 1 << 20).is_empty());
        assert!(window_ack(&mut s, 3000, 10 * MSS, 1 << 20).is_empty());
        assert!(!s.in_recovery());
        assert_eq!(s.stats.persist_ns, ms(2800));
    }

    #[test]
    fn a_late_ack_older_than_the_window_update_does_not_close_the_window() {
        let mut s = established(config(Recovery::NewReno));
        window_ack(&mut s, 200, 4 * MSS, 1 << 20);
        window_ack(&mut s, 210, 3 * MSS, 0);
        assert!(!s.in_persist(), "RFC 9293 §3.10.7.4: SEG.ACK < SND.WL2");
        window_ack(&mut s, 220, 4 * MSS, 0);
        assert!(s.in_persist());
    }

    #[test]
    fn zero_window_acks_of_outstanding_data_keep_the_timer_frozen() {
        let mut s = established(config(Recovery::NewReno));
        window_ack(&mut s, 200, 2 * MSS, 0);
        assert_eq!(s.rto_deadline(), None);
        ack(&mut s, 250, 2 * MSS);
        assert!(!s.in_persist(), "the configured window reopens it");
        assert_eq!(s.rto_deadline(), Some(ms(250) + s_to_ns(1.0)));
    }

    fn probe(seg: u64) -> Segment {
        Segment {
            kind: crate::net::packet::PacketKind::Data,
            seq: seg * MSS,
            len: 0,
            is_retx: false,
            ect: false,
            cwr: false,
            psh: false,
        }
    }
}

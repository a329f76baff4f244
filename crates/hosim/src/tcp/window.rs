//! The sending window set from outside the TCP sender, by the window adaptation proxy of
//! Ren et al. 2008, §IV.A: "all the schemes and algorithms related with congestion window
//! adjustment in the standard TCP will be disabled", while "3 duplicate ACKs trigger the
//! retransmission of the corresponding packet". The sender reads it in one place
//! (`TcpSender::send_window`); `ExternalRepair` is what remains of loss recovery meanwhile.

/// Who sets the sending window. `Congestion` is standard TCP; the other two are set from
/// outside by a network element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowControl {
    /// RFC 5681 congestion control and the configured loss recovery.
    Congestion,
    /// Congestion control off: at most `bytes` outstanding (snd_max - snd_una).
    InFlight { bytes: u64 },
    /// Congestion control off: at most `bytes` sent (new data and retransmissions) until the
    /// next update; `left` is what remains.
    Quota { bytes: u64, left: u64 },
}

impl WindowControl {
    /// Whether a network element sets the window.
    pub fn is_external(self) -> bool {
        self != WindowControl::Congestion
    }

    /// The window as reported (`TcpSender::cwnd`): cwnd, or the window set from outside.
    pub fn reported(self, cwnd: u64) -> u64 {
        match self {
            WindowControl::Congestion => cwnd,
            WindowControl::InFlight { bytes } | WindowControl::Quota { bytes, .. } => bytes,
        }
    }

    /// How far past snd_una the sender may send, given what congestion control allows. A
    /// quota limits bytes sent, not bytes outstanding (`allows`).
    pub fn send_window(self, congestion_window: u64) -> u64 {
        match self {
            WindowControl::Congestion => congestion_window,
            WindowControl::InFlight { bytes } => bytes,
            WindowControl::Quota { .. } => u64::MAX,
        }
    }

    /// Whether a quota leaves room for `len` more bytes.
    pub fn allows(self, len: u64) -> bool {
        match self {
            WindowControl::Quota { left, .. } => left >= len,
            _ => true,
        }
    }

    /// Charges `len` bytes sent against a quota.
    pub fn charge(&mut self, len: u64) {
        if let WindowControl::Quota { left, .. } = self {
            *left = left.saturating_sub(len);
        }
    }
}

/// Loss repair while the window is set from outside: no window changes, only
/// retransmissions, so several losses in one flight cost one RTT each, not an RTO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExternalRepair {
    /// One past the highest byte sent when the last fast retransmission happened (the
    /// NewReno `recover` of that episode).
    recover_end: Option<u64>,
}

impl ExternalRepair {
    /// The DupThresh-th duplicate ACK retransmits the missing segment (RFC 5681 §3.2 step 2
    /// without its window changes). True: retransmit the first unacknowledged segment.
    pub fn on_dupack(&mut self, dupacks: u32, dupthresh: u32, snd_max: u64) -> bool {
        if dupacks != dupthresh {
            return false;
        }
        self.recover_end = Some(snd_max);
        true
    }

    /// A cumulative ACK. A partial ACK of a fast retransmission points at the next hole:
    /// true, resend it at once (RFC 6582 §3.2 step 4 without the window deflation).
    pub fn on_new_ack(&mut self, ack: u64) -> bool {
        match self.recover_end {
            Some(r) if ack < r => true,
            _ => {
                self.recover_end = None;
                false
            }
        }
    }

    /// The retransmission timer resent the first unacknowledged segment; ACKs below
    /// `snd_max` are partial ACKs of it.
    pub fn on_timeout(&mut self, snd_max: u64) {
        self.recover_end = Some(snd_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_is_charged_and_refuses_what_does_not_fit() {
        let mut wc = WindowControl::Quota { bytes: 3000, left: 3000 };
        wc.charge(2500);
        assert_eq!(wc, WindowControl::Quota { bytes: 3000, left: 500 });
        assert!(wc.allows(500) && !wc.allows(501));
        assert_eq!((wc.send_window(10), wc.reported(10)), (u64::MAX, 3000));
    }

    #[test]
    fn congestion_window_passes_through() {
        let mut wc = WindowControl::Congestion;
        wc.charge(1000);
        assert!(!wc.is_external() && wc.allows(u64::MAX));
        assert_eq!((wc.send_window(7000), wc.reported(7000)), (7000, 7000));
    }

    #[test]
    fn repair_resends_on_partial_acks_until_the_recover_point() {
        let mut r = ExternalRepair::default();
        assert!(!r.on_dupack(2, 3, 10_000));
        assert!(r.on_dupack(3, 3, 10_000));
        assert!(r.on_new_ack(4000), "partial ACK");
        assert!(!r.on_new_ack(10_000), "full ACK ends the episode");
        assert!(!r.on_new_ack(11_000));
    }
}

/// The sender under a window set from outside.
#[cfg(test)]
mod sender_tests {
    use super::WindowControl;
    use crate::engine::time::SimTime;
    use crate::net::packet::SackBlocks;
    use crate::tcp::config::{Recovery, TcpConfig};
    use crate::tcp::sender::{Segment, TcpSender};

    const MSS: u64 = 1000;

    /// An established NewReno sender with a bulk source whose window is `wc` from the start.
    fn sender_with(wc: WindowControl) -> (TcpSender, Vec<Segment>) {
        let cfg = TcpConfig { recovery: Recovery::NewReno, mss_bytes: MSS as u32, ..TcpConfig::default() };
        let mut s = TcpSender::new(cfg, u64::MAX);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        s.set_window_control(0, wc, &mut out);
        out.clear();
        s.on_syn_ack(10, &mut out);
        (s, out)
    }

    fn ack(s: &mut TcpSender, now: SimTime, ack: u64) -> Vec<Segment> {
        let mut out = Vec::new();
        s.on_ack(now, ack, &SackBlocks::default(), false, 1 << 30, &mut out);
        out
    }

    #[test]
    fn quota_sends_whole_segments_until_spent_and_refills_on_update() {
        let (mut s, out) = sender_with(WindowControl::Quota { bytes: 3500, left: 3500 });
        assert_eq!(out.len(), 3);
        assert_eq!(s.window_control(), WindowControl::Quota { bytes: 3500, left: 500 });
        assert!(ack(&mut s, 20, 3 * MSS).is_empty(), "ACKs do not refill a quota");
        let mut out = Vec::new();
        s.set_window_control(30, WindowControl::Quota { bytes: 2000, left: 2000 }, &mut out);
        assert_eq!(out.iter().map(|g| g.seq).collect::<Vec<_>>(), vec![3 * MSS, 4 * MSS]);
    }

    #[test]
    fn in_flight_window_caps_outstanding_data_and_acks_do_not_grow_it() {
        let (mut s, out) = sender_with(WindowControl::InFlight { bytes: 4 * MSS });
        assert_eq!(out.len(), 4);
        for k in 1..=20 {
            let out = ack(&mut s, 20 + k, k * MSS);
            assert_eq!(out.len(), 1, "one ACKed segment releases one");
        }
        assert_eq!(s.cwnd(), 4 * MSS);
    }

    #[test]
    fn three_dupacks_retransmit_without_touching_the_window() {
        let (mut s, _) = sender_with(WindowControl::InFlight { bytes: 8 * MSS });
        assert!(ack(&mut s, 20, MSS).len() == 1);
        for _ in 0..2 {
            assert!(ack(&mut s, 21, MSS).is_empty());
        }
        let out = ack(&mut s, 22, MSS);
        assert_eq!(out.len(), 1);
        assert!(out[0].is_retx && out[0].seq == MSS);
        assert_eq!(s.cwnd(), 8 * MSS);
        assert!(!s.in_recovery());
        assert!(ack(&mut s, 23, MSS).is_empty(), "one retransmission per loss");
    }

    #[test]
    fn partial_ack_after_a_fast_retransmission_resends_the_next_hole() {
        // Segments 1 and 4 lost out of 0..8.
        let (mut s, _) = sender_with(WindowControl::InFlight { bytes: 8 * MSS });
        assert_eq!(ack(&mut s, 20, MSS).len(), 1, "segment 8");
        for t in 21..=22 {
            assert!(ack(&mut s, t, MSS).is_empty());
        }
        assert_eq!(ack(&mut s, 23, MSS)[0].seq, MSS, "fast retransmission of segment 1");
        // The retransmission fills the first hole; the ACK stops at the second.
        let out = ack(&mut s, 24, 4 * MSS);
        assert!(out.iter().any(|g| g.is_retx && g.seq == 4 * MSS), "{out:?}");
        assert_eq!(s.cwnd(), 8 * MSS);
        // A full ACK ends the episode: later ACKs only release new data.
        let out = ack(&mut s, 25, 9 * MSS);
        assert!(out.iter().all(|g| !g.is_retx));
    }

    #[test]
    fn timeout_resends_only_the_first_segment_and_keeps_the_window() {
        let (mut s, out) = sender_with(WindowControl::InFlight { bytes: 5 * MSS });
        assert_eq!(out.len(), 5);
        let deadline = s.rto_deadline().expect("timer runs");
        let mut out = Vec::new();
        assert_eq!(s.on_timer(deadline, &mut out), Some(0));
        assert_eq!(out.len(), 1);
        assert!(out[0].is_retx && out[0].seq == 0);
        assert_eq!(s.cwnd(), 5 * MSS);
        assert!(s.rto_deadline().unwrap() > deadline + s.rto_ns() / 2, "timer backed off and restarted");
    }

    #[test]
    fn handing_control_back_resumes_congestion_control() {
        let (mut s, _) = sender_with(WindowControl::InFlight { bytes: 10 * MSS });
        let mut out = Vec::new();
        s.set_window_control(20, WindowControl::Congestion, &mut out);
        assert_eq!(s.cwnd(), 3 * MSS, "the initial window of the congestion controller");
    }

    #[test]
    fn app_data_is_sent_without_counting_a_duplicate_ack() {
        let cfg = TcpConfig { recovery: Recovery::NewReno, mss_bytes: MSS as u32, ..TcpConfig::default() };
        let mut s = TcpSender::new(cfg, 0);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        s.on_syn_ack(10, &mut out);
        out.clear();
        for k in 0..5 {
            s.on_app_data(20 + k, MSS, &mut out);
        }
        assert_eq!(out.len(), 3, "initial window of 3 segments");
        assert_eq!(s.stats.fast_recoveries, 0);
    }
}

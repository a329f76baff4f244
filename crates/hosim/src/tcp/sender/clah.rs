//! The sender's own reaction to a cross-layer path-change notification, beyond the
//! controller's and the recovery's `on_path_change` hooks: TCP-CLAH of Sinky & Hamdaoui,
//! "Cross-Layer Assisted TCP for Seamless Handoff in Heterogeneous Mobile Wireless Systems"
//! (docs/reproductions/vertical-handoff.md).
//!
//! - Algorithm 1 (handoff to low delay): reset RTT and RTO estimations; temporarily disable
//!   dupacks; obtain the path BDP; set cwnd = path BDP.
//! - Algorithm 2 (handoff to high delay): reset RTT and RTO estimations; obtain the path BDP;
//!   set cwnd = path BDP.
//!
//! The path BDP is BDP_UB = S x N (eq. 3, N = n + m hops) or, as a variant, rate x base RTT
//! (`PathChange::bdp_bytes`). ssthresh is left alone: the paper criticises Daniel & Kojo for
//! setting ssthresh = cwnd, which "unnecessarily places TCP in the congestion avoidance phase"
//! (Sec. II). The paper does not say when dupacks come back; `DupackResume` makes it a choice.
//!
//! The baseline of Daniel & Kojo, "Employing cross-layer assisted TCP algorithms to improve
//! TCP performance with vertical handoffs", as Sinky & Hamdaoui summarise it (Sec. II): "RTT
//! and RTO estimations are reset only until all packets sent before the handoff have been
//! acknowledged. A reduction in congestion window is done only when needed. In addition, the
//! slow start threshold is set to the congestion window". Here: on the notification the RTT
//! estimator is reset (RFC 6298 (2.1)) and RTT samples of segments sent before the handoff are
//! ignored (they measured the old path, or both); when the new path's BDP (rate x base RTT,
//! `PathChange::bdp_bytes`) is below cwnd, cwnd = ssthresh = that BDP (at least 2 SMSS, the
//! floor of RFC 5681 eq. (4)); otherwise cwnd and ssthresh stay.
//!
//! Both resets forget the RTO estimation only: RACK.min_RTT (RFC 8985 §6.2) stays
//! (`RtoEstimator::reset`).

use super::TcpSender;
use crate::engine::time::SimTime;
use crate::tcp::cc::Controller;
use crate::tcp::path::{DelayShift, PathChange};

/// How the sender reacts to a path-change notification.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum PathReaction {
    /// Standard TCP (TCP-NR in the paper): nothing beyond the controller and recovery hooks.
    #[default]
    None,
    Clah(ClahConfig),
    /// Daniel & Kojo's cross-layer TCP (see the module comment).
    DanielKojo,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClahConfig {
    pub bdp: BdpEstimate,
    pub dupack_resume: DupackResume,
}

/// What "obtain path BDP" (Algorithms 1-2) computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BdpEstimate {
    /// BDP_UB = S x N, eq. (3): one segment per hop of the forward and backward path.
    UpperBound,
    /// Bottleneck rate x base RTT of the new path, eq. (1) with propagation included.
    Path,
}

/// When duplicate-ACK loss detection, disabled by Algorithm 1, comes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupackResume {
    /// When everything sent before the handoff has been cumulatively acknowledged: the
    /// reordering between the old and the new path is over.
    PreHandoffAcked,
    /// This long after the handoff.
    After(SimTime),
}

/// Dupack suppression in force since a handoff to low delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DupackHold {
    /// snd_max at the handoff.
    until_seq: u64,
    until_ns: Option<SimTime>,
}

/// The reaction and its state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HandoffState {
    reaction: PathReaction,
    hold: Option<DupackHold>,
    /// Daniel & Kojo: RTT samples of segments sent before this time are ignored.
    rtt_ignore_before_ns: Option<SimTime>,
    /// Duplicate ACKs ignored while dupack detection was off.
    pub suppressed_dupacks: u64,
    /// Path changes the reaction acted on.
    pub reactions: u64,
}

impl TcpSender {
    /// Selects the reaction to path-change notifications (default: none).
    pub fn set_path_reaction(&mut self, reaction: PathReaction) {
        self.handoff.reaction = reaction;
    }

    pub fn handoff_state(&self) -> &HandoffState {
        &self.handoff
    }

    /// Whether duplicate-ACK loss detection is on at `now` (off after a CLAH handoff to low
    /// delay until `DupackResume` says).
    pub fn dupack_detection_on(&self, now: SimTime) -> bool {
        self.handoff.hold.is_none_or(|h| self.hold_over(h, now))
    }

    fn hold_over(&self, h: DupackHold, now: SimTime) -> bool {
        match h.until_ns {
            Some(t) => now >= t,
            None => self.snd_una >= h.until_seq,
        }
    }

    /// Called for each duplicate ACK before it is counted: true when it must be ignored.
    pub(super) fn dupack_suppressed(&mut self, now: SimTime) -> bool {
        let Some(h) = self.handoff.hold else { return false };
        if self.hold_over(h, now) {
            self.handoff.hold = None;
            return false;
        }
        self.handoff.suppressed_dupacks += 1;
        true
    }

    /// Whether an RTT sample of a segment sent at `sent_ns` counts (Daniel & Kojo ignore those
    /// of segments sent before the last handoff).
    pub(super) fn accepts_rtt_sample(&self, sent_ns: SimTime) -> bool {
        self.handoff.rtt_ignore_before_ns.is_none_or(|t| sent_ns >= t)
    }

    /// The reaction to `change`, after the controller and recovery hooks.
    pub(super) fn react_to_path_change(&mut self, now: SimTime, change: &PathChange) {
        match self.handoff.reaction {
            PathReaction::None => {}
            PathReaction::Clah(cfg) => self.react_clah(now, change, cfg),
            PathReaction::DanielKojo => self.react_daniel_kojo(now, change),
        }
    }

    fn react_daniel_kojo(&mut self, now: SimTime, change: &PathChange) {
        self.handoff.reactions += 1;
        self.rto.reset();
        self.handoff.rtt_ignore_before_ns = Some(now);
        let floor = 2 * self.cfg.mss_bytes as u64;
        if let Some(bdp) = change.bdp_bytes().map(|b| b.max(floor)) {
            if bdp < self.cc.cwnd() {
                self.cc.set_cwnd(bdp);
                self.cc.set_ssthresh(bdp);
            }
        }
    }

    fn react_clah(&mut self, now: SimTime, change: &PathChange, cfg: ClahConfig) {
        self.handoff.reactions += 1;
        // Algorithms 1 and 2, line 1: reset RTT and RTO estimations (RFC 6298 (2.1) state).
        self.rto.reset();
        if change.delay == DelayShift::ToLowDelay {
            // Algorithm 1, line 2: temporarily disable dupacks.
            let until_ns = match cfg.dupack_resume {
                DupackResume::PreHandoffAcked => None,
                DupackResume::After(d) => Some(now + d),
            };
            self.handoff.hold = Some(DupackHold { until_seq: self.snd_max, until_ns });
        }
        // Algorithm 1 lines 3-4, Algorithm 2 lines 2-3: obtain path BDP; set cwnd = path BDP.
        if let Some(bdp) = clah_bdp_bytes(cfg.bdp, change, self.cfg.mss_bytes as u64) {
            self.cc.set_cwnd(bdp.max(self.cfg.mss_bytes as u64));
        }
    }
}

/// The path BDP CLAH sets cwnd to, in bytes of payload; None when the notification lacks what
/// the estimate needs. S is the segment size (payload per packet).
pub fn clah_bdp_bytes(estimate: BdpEstimate, change: &PathChange, mss_bytes: u64) -> Option<u64> {
    match estimate {
        // BDP_UB = S x N, N = n + m (eq. 3).
        BdpEstimate::UpperBound => change.hops.map(|n| mss_bytes * n as u64),
        BdpEstimate::Path => change.bdp_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::s_to_ns;
    use crate::tcp::config::{LossDetection, Recovery, TcpConfig};
    use crate::tcp::fixtures::{ack, config, established, ms, SackPeer, MSS};
    use crate::tcp::path::{AccessKind, Handoff};

    fn change(delay: DelayShift) -> PathChange {
        PathChange {
            handoff: Handoff::Vertical,
            access: AccessKind::Wlan,
            base_rtt_ns: Some(ms(30)),
            rate_hint_bps: Some(8_000_000),
            hops: Some(4),
            delay,
        }
    }

    fn clah(resume: DupackResume) -> PathReaction {
        PathReaction::Clah(ClahConfig { bdp: BdpEstimate::UpperBound, dupack_resume: resume })
    }

    /// Established NewReno with CLAH, srtt 100 ms, segments 0..10 outstanding, notified at 150 ms.
    fn clah_after_handoff(delay: DelayShift, resume: DupackResume) -> TcpSender {
        let mut s = established(TcpConfig { initial_rto_ns: s_to_ns(3.0), ..config(Recovery::NewReno) });
        s.set_path_reaction(clah(resume));
        s.on_path_change(ms(150), &change(delay), &mut Vec::new());
        s
    }

    #[test]
    fn clah_handoff_resets_rtt_and_rto_to_the_initial_state() {
        for delay in [DelayShift::ToLowDelay, DelayShift::ToHighDelay] {
            let s = clah_after_handoff(delay, DupackResume::PreHandoffAcked);
            assert_eq!((s.srtt_ns(), s.rto_ns()), (None, s_to_ns(3.0)), "RFC 6298 (2.1) after {delay:?}");
            assert_eq!(s.rtt().min_rtt_ns(), Some(ms(100)), "RACK.min_RTT (RFC 8985 §6.2) stays");
        }
    }

    #[test]
    fn clah_handoff_sets_cwnd_to_s_times_n_and_keeps_ssthresh() {
        for delay in [DelayShift::ToLowDelay, DelayShift::ToHighDelay] {
            let s = clah_after_handoff(delay, DupackResume::PreHandoffAcked);
            assert_eq!(s.cwnd(), 4 * MSS, "BDP_UB = S x N with N = 4 hops (eq. 3)");
            assert_eq!(s.ssthresh(), u64::MAX);
        }
    }

    #[test]
    fn clah_path_variant_sets_cwnd_to_rate_times_base_rtt() {
        let c = change(DelayShift::ToHighDelay);
        assert_eq!(clah_bdp_bytes(BdpEstimate::Path, &c, MSS), Some(30_000), "8 Mb/s x 30 ms");
        assert_eq!(clah_bdp_bytes(BdpEstimate::UpperBound, &PathChange { hops: None, ..c }, MSS), None);
    }

    #[test]
    fn clah_to_low_delay_ignores_dupacks_until_pre_handoff_data_is_acked() {
        let mut s = clah_after_handoff(DelayShift::ToLowDelay, DupackResume::PreHandoffAcked);
        assert!(!s.dupack_detection_on(ms(160)));
        for t in [200, 201, 202, 203] {
            ack(&mut s, t, 0);
        }
        assert!(!s.in_recovery(), "four dupacks after the handoff do not start fast retransmit");
        assert_eq!(s.handoff_state().suppressed_dupacks, 4);
        ack(&mut s, 210, 10 * MSS);
        assert!(s.dupack_detection_on(ms(210)), "everything sent before the handoff is acknowledged");
    }

    #[test]
    fn clah_dupack_detection_resumes_after_the_configured_time() {
        let mut s = clah_after_handoff(DelayShift::ToLowDelay, DupackResume::After(ms(100)));
        ack(&mut s, 200, 0);
        assert!(!s.dupack_detection_on(ms(249)));
        assert!(s.dupack_detection_on(ms(250)));
        for t in [260, 261, 262] {
            ack(&mut s, t, 0);
        }
        assert!(s.in_recovery(), "three dupacks after the hold start fast retransmit again");
        assert_eq!(s.handoff_state().suppressed_dupacks, 1);
    }

    #[test]
    fn clah_to_high_delay_keeps_dupack_detection() {
        let mut s = clah_after_handoff(DelayShift::ToHighDelay, DupackResume::PreHandoffAcked);
        assert!(s.dupack_detection_on(ms(160)));
        for t in [200, 201, 202] {
            ack(&mut s, t, 0);
        }
        assert!(s.in_recovery());
    }

    /// Established NewReno with Daniel & Kojo, srtt 100 ms, cwnd 10 segments, notified at 150 ms
    /// of a path whose BDP (8 Mb/s x base RTT) is `rtt_ms` x 1000 bytes.
    fn daniel_kojo_after_handoff(rtt_ms: u64) -> TcpSender {
        let mut s = established(TcpConfig { initial_rto_ns: s_to_ns(3.0), ..config(Recovery::NewReno) });
        s.set_path_reaction(PathReaction::DanielKojo);
        let c = PathChange { base_rtt_ns: Some(ms(rtt_ms)), ..change(DelayShift::ToHighDelay) };
        s.on_path_change(ms(150), &c, &mut Vec::new());
        s
    }

    #[test]
    fn daniel_kojo_reduces_cwnd_and_ssthresh_only_to_a_smaller_bdp() {
        let s = daniel_kojo_after_handoff(4);
        assert_eq!((s.cwnd(), s.ssthresh()), (4 * MSS, 4 * MSS), "BDP 4000 < cwnd 10000");
        let s = daniel_kojo_after_handoff(30);
        assert_eq!((s.cwnd(), s.ssthresh()), (10 * MSS, u64::MAX), "BDP 30000 >= cwnd: untouched");
        assert_eq!((s.srtt_ns(), s.rto_ns()), (None, s_to_ns(3.0)), "RFC 6298 (2.1)");
    }

    #[test]
    fn daniel_kojo_ignores_rtt_samples_of_pre_handoff_data() {
        let mut s = daniel_kojo_after_handoff(30);
        let sent = ack(&mut s, 300, 10 * MSS);
        assert_eq!(s.srtt_ns(), None, "segments 0..10 were sent before the handoff");
        assert!(!sent.is_empty());
        ack(&mut s, 380, 11 * MSS);
        assert_eq!(s.srtt_ns(), Some(ms(80)), "the first segment sent after it gives a sample");
    }

    #[test]
    fn daniel_kojo_reset_keeps_racks_reordering_window() {
        // A RACK-TLP SACK sender (min RTT 100 ms) with Daniel & Kojo's reaction, notified at
        // 150 ms. Segment 1 is SACKed at 200 ms, 0 is still on the old path: RACK waits
        // reo_wnd = min_RTT / 4 = 25 ms (RFC 8985 §6.2 step 4) before marking it lost. With
        // min_RTT forgotten by the reset, reo_wnd was 0 and segment 0 was resent at once.
        let cfg = TcpConfig {
            loss_detection: LossDetection::RackTlp,
            initial_rto_ns: s_to_ns(3.0),
            ..config(Recovery::Sack)
        };
        let mut s = established(cfg);
        s.set_path_reaction(PathReaction::DanielKojo);
        s.on_path_change(ms(150), &change(DelayShift::ToLowDelay), &mut Vec::new());
        assert_eq!((s.srtt_ns(), s.rtt().min_rtt_ns()), (None, Some(ms(100))));
        let mut peer = SackPeer::default();
        assert_eq!(peer.deliver(&mut s, 200, 1), vec![], "no retransmission within reo_wnd");
        assert_eq!(s.rto_deadline(), Some(ms(225)), "the RACK reorder timer");
        let sent = peer.deliver(&mut s, 210, 0);
        assert!(sent.iter().all(|seg| !seg.is_retx), "the late original fills the hole: {sent:?}");
        assert_eq!((s.in_recovery(), s.stats.retransmits), (false, 0));
    }

    #[test]
    fn no_reaction_leaves_the_sender_as_standard_tcp() {
        let mut s = established(config(Recovery::NewReno));
        s.on_path_change(ms(150), &change(DelayShift::ToLowDelay), &mut Vec::new());
        assert_eq!((s.cwnd(), s.srtt_ns(), s.handoff_state().reactions), (10 * MSS, Some(ms(100)), 0));
        assert!(s.dupack_detection_on(ms(150)));
    }
}

//! RACK, the time-based half of RFC 8985 RACK-TLP: a segment is lost once a segment sent
//! after it has been delivered and more than RACK.rtt + RACK.reo_wnd has passed since it was
//! sent. RACK only marks segments lost (`SegRec::lost`); SACK recovery (RFC 6675, `sack.rs`)
//! still chooses what to send, with SetPipe over these marks. The tail loss probe lives in
//! the sender (`sender/rack_tlp.rs`), where transmission does.
//!
//! Choices where the RFC leaves room (docs/tcp.md, "RACK-TLP"):
//! - RACK.rtt is the RTT of the most recently sent segment among those one ACK delivers (all
//!   of them were delivered at the same moment; §6.2 step 2 visits them in no stated order).
//! - The reordering window grows by min_RTT/4 for each round trip with a DSACK (§6.2 step 4,
//!   RACK.reo_wnd_mult), and falls back to min_RTT/4 after 16 recoveries without one. Only a
//!   receiver with `tcp.dsack` (the `linux` profile) sends DSACKs (RFC 2883); with any other
//!   reo_wnd_mult stays 1.
//! - No TCP timestamps: the spurious-retransmission filter of step 2 uses the RACK.min_RTT
//!   test alone.
//!
//! Per-ACK work is allocation-free: the scoreboard calls `on_delivered` for each newly
//! delivered segment and `detect_loss` walks the scoreboard once, up to the first segment
//! sent after RACK.xmit_ts that was never retransmitted.

use crate::engine::time::SimTime;
use crate::tcp::scoreboard::{Scoreboard, SegRec};

/// RFC 8985 §6.2 RACK_sent_after(t1, seq1, t2, seq2).
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// What one RACK_detect_loss() pass marked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marked {
    /// Segments newly marked lost.
    pub segments: u32,
    /// Of those, segments whose retransmission was in the network: lost retransmissions.
    pub retransmissions: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the latest send time (and its end) among the segments
    /// delivered so far; None before the first delivery.
    xmit: Option<(SimTime, u64)>,
    /// RACK.rtt, ns.
    rtt_ns: SimTime,
    /// RACK.fack: the highest end sequence delivered.
    fack: u64,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// The ACK being processed: the most recently sent valid delivered segment (step 2).
    ack_newest: Option<(SimTime, u64)>,
    /// The ACK being processed: highest end delivered, and lowest end of a delivered segment
    /// never retransmitted (step 3).
    ack_max_end: u64,
    ack_min_end_original: u64,
    /// When the RACK reorder timer fires (§6.2 step 5), if armed.
    pub timer_ns: Option<SimTime>,
    /// §6.2 step 4: RACK.reo_wnd_mult (1 when no DSACK has been seen), RACK.reo_wnd_persist
    /// and RACK.dsack_round (the SND.NXT at the last growth, until SND.UNA passes it).
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
}

/// RFC 8985 §6.2 step 4: reo_wnd_mult stays grown for this many loss recoveries after the
/// last DSACK (Linux `TCP_RACK_RECOVERY_THRESH`).
const REO_WND_PERSIST: u32 = 16;

impl Rack {
    pub fn new() -> Self {
        Rack { ack_min_end_original: u64::MAX, reo_wnd_mult: 1, ..Rack::default() }
    }

    /// RACK.reo_wnd_mult.
    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }

    /// §6.2 step 4 for an ACK, before its loss detection: `dsack` says it carried a DSACK
    /// (RFC 2883 §4). reo_wnd_mult grows by one at most once per round trip (until SND.UNA
    /// passes the SND.NXT of the last growth).
    pub fn on_ack_dsack(&mut self, dsack: bool, snd_una: u64, snd_nxt: u64) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if dsack && self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult = self.reo_wnd_mult.saturating_add(1);
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// A recovery was undone as spurious (Linux `tcp_try_undo_dsack`): one more recovery
    /// before reo_wnd_mult falls back; its end is not an exit that counts.
    pub fn on_spurious_recovery(&mut self) {
        self.reo_wnd_persist = (self.reo_wnd_persist + 1).min(REO_WND_PERSIST);
    }

    /// §6.2 step 4, "exiting loss recovery": after REO_WND_PERSIST recoveries without a
    /// DSACK, reo_wnd_mult falls back to 1.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// Reordering shown another way than step 3 (Linux `tcp_check_sack_reordering` from
    /// `tcp_try_undo_partial`: a timestamp echo proves an original filled the hole at
    /// `low_seq`): seen if data above `low_seq` was delivered. Returns whether it was.
    pub fn note_reordering_above(&mut self, low_seq: u64) -> bool {
        let seen = self.fack > low_seq;
        self.reordering_seen |= seen;
        seen
    }

    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// RACK.xmit_ts, if any segment has been delivered.
    pub fn xmit_ts_ns(&self) -> Option<SimTime> {
        self.xmit.map(|x| x.0)
    }

    /// RACK.rtt, ns.
    pub fn rtt_ns(&self) -> SimTime {
        self.rtt_ns
    }

    /// §6.2 steps 2 and 3 for one segment the ACK being processed delivers (cumulatively or
    /// by SACK) at `now`. `min_rtt_ns`: RACK.min_RTT (step 1, the sender's minimum RTT).
    pub fn on_delivered(&mut self, now: SimTime, seg: &SegRec, min_rtt_ns: Option<SimTime>) {
        let retransmitted = seg.tx_count > 1;
        // Step 3 inputs: RACK.fack and reordering, settled in `end_ack`.
        self.ack_max_end = self.ack_max_end.max(seg.end);
        if !retransmitted {
            self.ack_min_end_original = self.ack_min_end_original.min(seg.end);
        }
        // Step 2: a retransmitted segment delivered sooner than min_RTT after it was resent was
        // delivered by its original transmission: its xmit_ts says nothing.
        if retransmitted && min_rtt_ns.is_some_and(|m| now.saturating_sub(seg.last_sent_ns) < m) {
            return;
        }
        if self.ack_newest.is_none_or(|(t, e)| sent_after(seg.last_sent_ns, seg.end, t, e)) {
            self.ack_newest = Some((seg.last_sent_ns, seg.end));
        }
    }

    /// Closes the ACK's steps 2 and 3: RACK.rtt, RACK.xmit_ts/end_seq, RACK.fack and
    /// RACK.reordering_seen.
    fn end_ack(&mut self, now: SimTime) {
        if let Some((t, e)) = self.ack_newest.take() {
            self.rtt_ns = now.saturating_sub(t);
            if self.xmit.is_none_or(|(xt, xe)| sent_after(t, e, xt, xe)) {
                self.xmit = Some((t, e));
            }
        }
        // Step 3: a never-retransmitted segment below RACK.fack was delivered out of order.
        if self.ack_min_end_original < self.fack {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(self.ack_max_end);
        self.ack_max_end = 0;
        self.ack_min_end_original = u64::MAX;
    }

    /// §6.2 step 4, RACK.reo_wnd: min_RTT / 4 × reo_wnd_mult, at most SRTT; zero while no reordering has been seen and the sender is recovering or
    /// DupThresh segments are SACKed, so that RACK then marks as fast as DupThresh would.
    pub fn reo_wnd_ns(
        &self,
        in_recovery: bool,
        sacked_segs: u32,
        dupthresh: u32,
        min_rtt_ns: Option<SimTime>,
        srtt_ns: Option<SimTime>,
    ) -> SimTime {
        if !self.reordering_seen && (in_recovery || sacked_segs >= dupthresh) {
            return 0;
        }
        let wnd = min_rtt_ns.unwrap_or(0) / 4 * self.reo_wnd_mult as u64;
        srtt_ns.map_or(wnd, |s| wnd.min(s))
    }

    /// An ACK has been processed (its segments fed to `on_delivered`), or the reorder timer
    /// fired (`acked` false): §6.2 step 5, RACK_detect_loss_and_arm_timer(). Marks lost every
    /// outstanding segment sent before RACK.xmit_ts more than RACK.rtt + `reo_wnd_ns` ago and
    /// arms the timer for the latest of the rest (the RFC's max(remaining)).
    pub fn detect_loss(&mut self, now: SimTime, acked: bool, board: &mut Scoreboard, reo_wnd_ns: SimTime) -> Marked {
        if acked {
            self.end_ack(now);
        }
        self.timer_ns = None;
        let mut marked = Marked::default();
        let Some((xt, xe)) = self.xmit else { return marked };
        let mut timeout: SimTime = 0;
        for i in 0..board.len() {
            let s = board.get_mut(i);
            // Delivered, or lost with no retransmission since (Segment.xmit_ts = INFINITE_TS).
            if s.sacked || (s.lost && !s.rexmit_out) {
                continue;
            }
            if !sent_after(xt, xe, s.last_sent_ns, s.end) {
                // Original transmissions go out in sequence order and a retransmission only
                // moves a segment's time later, so once a never-retransmitted segment is not
                // before RACK.xmit_ts no later segment is either (Linux walks its
                // time-sorted queue and stops at the same point). Without this, every ACK
                // would walk the whole window.
                if s.tx_count == 1 {
                    break;
                }
                continue;
            }
            let deadline = s.last_sent_ns + self.rtt_ns + reo_wnd_ns;
            if deadline <= now {
                marked.segments += 1;
                marked.retransmissions += s.rexmit_out as u32;
                s.lost = true;
                s.rexmit_out = false;
            } else {
                timeout = timeout.max(deadline - now);
            }
        }
        if timeout > 0 {
            self.timer_ns = Some(now + timeout);
        }
        marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Five segments of 1000 bytes sent 1 ms apart from t = 0.
    fn board() -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..5 {
            b.push_new(i * 1000, (i + 1) * 1000, i * MS);
        }
        b
    }

    /// SACK of segment `k` at `now`, fed through RACK.
    fn sack(rack: &mut Rack, b: &mut Scoreboard, now: SimTime, k: u64) {
        b.mark_sacked_with([(k * 1000, (k + 1) * 1000)].into_iter(), &mut |s| {
            rack.on_delivered(now, s, Some(100 * MS))
        });
    }

    #[test]
    fn sent_after_breaks_ties_by_sequence() {
        assert!(sent_after(2, 0, 1, 9));
        assert!(sent_after(1, 9, 1, 8));
        assert!(!sent_after(1, 8, 1, 8));
    }

    #[test]
    fn rack_marks_an_earlier_segment_lost_only_after_rtt_plus_reo_wnd() {
        // Segment 4 (sent at 4 ms) is SACKed at 104 ms: RACK.rtt = 100 ms. Segment 0 (sent at
        // 0 ms) is lost at 0 + 100 + 25 = 125 ms, not before; the timer is armed for then.
        let (mut rack, mut b) = (Rack::new(), board());
        sack(&mut rack, &mut b, 104 * MS, 4);
        let reo = rack.reo_wnd_ns(false, 1, 3, Some(100 * MS), Some(100 * MS));
        assert_eq!(reo, 25 * MS, "RFC 8985 §6.2 step 4: min_RTT / 4");
        assert_eq!(rack.detect_loss(104 * MS, true, &mut b, reo).segments, 0);
        assert_eq!((rack.rtt_ns(), rack.xmit_ts_ns()), (100 * MS, Some(4 * MS)));
        assert!(!b.get(0).lost);
        assert_eq!(rack.timer_ns, Some(128 * MS), "segment 3 is the last to expire: 3 + 125 ms");
        assert_eq!(rack.detect_loss(124 * MS, false, &mut b, reo).segments, 0, "one ms early");
        assert_eq!(rack.detect_loss(125 * MS, false, &mut b, reo).segments, 1);
        assert!(b.get(0).lost && !b.get(1).lost);
        assert_eq!(rack.detect_loss(128 * MS, false, &mut b, reo).segments, 3);
        assert!((0..4).all(|i| b.get(i).lost) && !b.get(4).lost);
        assert_eq!(rack.timer_ns, None);
    }

    #[test]
    fn rack_reordering_within_the_window_marks_nothing() {
        // Segment 1 arrives after 2 (both within the reordering window): reordering is seen,
        // nothing is lost, and the window stays min_RTT / 4 even with DupThresh SACKed.
        let (mut rack, mut b) = (Rack::new(), board());
        sack(&mut rack, &mut b, 102 * MS, 2);
        let reo = rack.reo_wnd_ns(false, 1, 3, Some(100 * MS), Some(100 * MS));
        assert_eq!(rack.detect_loss(102 * MS, true, &mut b, reo).segments, 0);
        sack(&mut rack, &mut b, 110 * MS, 1);
        assert_eq!(rack.detect_loss(110 * MS, true, &mut b, reo).segments, 0);
        assert!(rack.reordering_seen(), "RFC 8985 §6.2 step 3: 1 delivered below RACK.fack = 3000");
        assert_eq!(rack.reo_wnd_ns(true, 3, 3, Some(100 * MS), Some(100 * MS)), 25 * MS);
        assert!(!b.get(0).lost);
    }

    #[test]
    fn rack_reo_wnd_is_zero_with_dupthresh_sacked_and_no_reordering() {
        let rack = Rack::new();
        assert_eq!(rack.reo_wnd_ns(false, 3, 3, Some(100 * MS), Some(100 * MS)), 0);
        assert_eq!(rack.reo_wnd_ns(true, 0, 3, Some(100 * MS), Some(100 * MS)), 0);
        assert_eq!(rack.reo_wnd_ns(false, 2, 3, Some(100 * MS), Some(20 * MS)), 20 * MS, "capped by SRTT");
    }

    #[test]
    fn dsack_grows_reo_wnd_once_per_round_trip_up_to_srtt() {
        // RFC 8985 §6.2 step 4 with reordering seen: min_RTT/4 per DSACK round, at most SRTT.
        let (mut rack, mut b) = (Rack::new(), board());
        sack(&mut rack, &mut b, 102 * MS, 2);
        rack.detect_loss(102 * MS, true, &mut b, 0);
        sack(&mut rack, &mut b, 110 * MS, 1);
        rack.detect_loss(110 * MS, true, &mut b, 0);
        let wnd = |r: &Rack| r.reo_wnd_ns(true, 3, 3, Some(100 * MS), Some(120 * MS));
        assert_eq!(wnd(&rack), 25 * MS);
        rack.on_ack_dsack(true, 0, 5000);
        assert_eq!((rack.reo_wnd_mult(), wnd(&rack)), (2, 50 * MS));
        rack.on_ack_dsack(true, 4000, 9000);
        assert_eq!(rack.reo_wnd_mult(), 2, "a second DSACK in the same round trip");
        rack.on_ack_dsack(false, 5000, 9000);
        rack.on_ack_dsack(true, 5000, 9000);
        rack.on_ack_dsack(true, 9000, 12000);
        assert_eq!((rack.reo_wnd_mult(), wnd(&rack)), (4, 100 * MS));
        rack.on_ack_dsack(true, 12000, 15000);
        assert_eq!((rack.reo_wnd_mult(), wnd(&rack)), (5, 120 * MS), "capped at SRTT");
    }

    #[test]
    fn reo_wnd_mult_falls_back_after_16_recoveries_without_dsack() {
        let mut rack = Rack::new();
        rack.on_ack_dsack(true, 0, 5000);
        assert_eq!(rack.reo_wnd_mult(), 2);
        for _ in 0..15 {
            rack.on_recovery_exit();
        }
        assert_eq!(rack.reo_wnd_mult(), 2);
        rack.on_recovery_exit();
        assert_eq!(rack.reo_wnd_mult(), 1);
    }

    #[test]
    fn rack_ignores_a_retransmission_delivered_sooner_than_min_rtt() {
        // Segment 0 resent at 150 ms and "delivered" at 160 ms: its original arrived, the
        // retransmission's send time must not become RACK.xmit_ts.
        let (mut rack, mut b) = (Rack::new(), board());
        b.mark_resent(0, 150 * MS);
        let info = b.ack_to_with(1000, &mut |s| rack.on_delivered(160 * MS, s, Some(100 * MS)));
        assert_eq!(info.bytes, 1000);
        rack.detect_loss(160 * MS, true, &mut b, 0);
        assert_eq!(rack.xmit_ts_ns(), None);
    }
}

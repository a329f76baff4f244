//! What the sender does with RFC 7323 timestamps, the `timestamps` dialect key of the `linux`
//! profile (Linux `net.ipv4.tcp_timestamps = 1`). Only what Linux uses them for
//! (net/ipv4/tcp_input.c):
//!
//! * The timestamp clock ticks in milliseconds (Linux `TCP_TS_HZ` = 1000, `tcp_time_stamp_ts`
//!   without `tcp_usec_ts`); a data segment's TSval is the tick of its transmission, and the
//!   receiver echoes TS.Recent (RFC 7323 §4.3, `receiver.rs`).
//! * `retrans_stamp`: the tick of the first retransmission of a loss episode
//!   (`tcp_retransmit_skb`: "Save stamp of the first (attempted) retransmit"). A tail loss
//!   probe does not set it (`tcp_send_loss_probe` calls `__tcp_retransmit_skb`). It is
//!   forgotten at the next recovery's entry when no retransmission is outstanding any more
//!   (`tcp_fastretrans_alert` clears it in state Open, `tcp_try_to_open` when
//!   `tcp_any_retrans_done` is false).
//! * `tcp_packet_delayed`: the ACK echoes a TSval older than `retrans_stamp`, so an original
//!   transmission, not a retransmission, filled the hole (RFC 3522's Eifel detection). Then
//!   `tcp_may_undo` holds: at the recovery's end (`tcp_try_undo_recovery`) the window
//!   reduction is undone (`TCPFullUndo`); on a partial ACK (`tcp_try_undo_partial`) the
//!   sender has seen reordering (`tcp_check_sack_reordering` with `ts` = 1,
//!   `TCPTSReorder`, which opens RACK's reordering window, `tcp_rack_reo_wnd`), and if no
//!   retransmission is outstanding it undoes the reduction, forgets its loss marks
//!   (`tcp_undo_cwnd_reduction(sk, true)`) and leaves recovery (`TCPPartialUndo`,
//!   `tcp_try_keep_open`); with retransmissions outstanding it marks nothing lost on that
//!   ACK ("we clock out new packets but do not mark more packets lost or retransmit more").
//! * RTT: an ACK of new data that gives no sample by Karn's rule (it acknowledges a
//!   retransmitted or earlier-SACKed segment) gives one from its echo, now − TSecr in whole
//!   ticks, at least one (`tcp_ack_update_rtt`, `tcp_rtt_tsopt_us`).
//!
//! Not modelled: undo of a timeout by timestamps (`tcp_try_undo_loss` with
//! `tcp_packet_delayed`; F-RTO, `frto.rs`, answers spurious timeouts); the undo when nothing
//! was retransmitted yet (`retrans_stamp` zero: hosim's recovery retransmits at its entry);
//! PAWS (RFC 7323 §5: sequence numbers here never wrap); on an ACK where Linux holds back
//! (retransmissions outstanding), hosim's recovery still sends what it chooses.

use super::TcpSender;
use crate::engine::time::SimTime;

/// One tick of the timestamp clock: 1 ms (Linux `TCP_TS_HZ`).
pub const TS_TICK_NS: SimTime = 1_000_000;

/// The timestamp clock at `ns`: whole milliseconds, counted from 1 so that no TSval is zero
/// (Linux reads a zero TSecr as no echo; its clock starts at a random offset).
#[inline]
pub fn ts_clock(ns: SimTime) -> u32 {
    (ns / TS_TICK_NS + 1) as u32
}

/// RFC 7323 §5.2 / Linux `before()`: `a` is earlier than `b` on the wrapping 32-bit clock.
#[inline]
fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

impl TcpSender {
    /// The TSecr of the ACK about to be passed to `on_ack` (0: none). Ignored without
    /// `timestamps`.
    pub fn set_ack_ts_ecr(&mut self, ts_ecr: u32) {
        self.ack_ts_ecr = if self.cfg.timestamps { ts_ecr } else { 0 };
    }

    /// A retransmission goes out (`tcp_retransmit_skb`).
    #[inline]
    pub(super) fn ts_on_retransmit(&mut self, now: SimTime) {
        if self.cfg.timestamps && self.retrans_stamp == 0 {
            self.retrans_stamp = ts_clock(now);
        }
    }

    /// Fast recovery starts: a stamp from an episode whose retransmissions are all gone is
    /// forgotten (`tcp_fastretrans_alert` in state Open, `tcp_try_to_open`).
    pub(super) fn ts_on_enter_recovery(&mut self) {
        if self.retrans_stamp != 0 && !self.any_retrans_done() {
            self.retrans_stamp = 0;
        }
    }

    /// Linux `tcp_any_retrans_done`: a retransmission is in the network (`retrans_out`), or the
    /// first unacknowledged segment was ever retransmitted.
    fn any_retrans_done(&self) -> bool {
        (!self.board.is_empty() && self.board.get(0).tx_count > 1)
            || self.board.iter().any(|s| s.rexmit_out && !s.sacked)
    }

    /// Linux `tcp_packet_delayed`: the ACK echoes a TSval sent before the episode's first
    /// retransmission.
    pub(super) fn packet_delayed(&self) -> bool {
        self.cfg.timestamps
            && self.retrans_stamp != 0
            && self.ack_ts_ecr != 0
            && ts_before(self.ack_ts_ecr, self.retrans_stamp)
    }

    /// `tcp_ack_update_rtt` when Karn's rule gave no sample: now − TSecr in ticks (at least
    /// one), if the echoed transmission is one the sender takes samples from.
    pub(super) fn ts_rtt_sample(&self, now: SimTime) -> Option<SimTime> {
        if self.ack_ts_ecr == 0 {
            return None;
        }
        let ticks = ts_clock(now).wrapping_sub(self.ack_ts_ecr);
        if ticks as i32 <= 0 && ticks != 0 {
            return None;
        }
        let echoed_ns = (self.ack_ts_ecr as SimTime - 1) * TS_TICK_NS;
        self.accepts_rtt_sample(echoed_ns).then(|| ticks.max(1) as SimTime * TS_TICK_NS)
    }

    /// At the end of fast recovery (`tcp_try_undo_recovery`): if the ACK shows the hole was
    /// filled by an original, undo the reduction. Returns whether it did (the recovery then
    /// ends as an undone one).
    pub(super) fn ts_undo_at_exit(&mut self) -> bool {
        if !self.packet_delayed() || !self.undo_cwnd_reduction(false) {
            return false;
        }
        self.stats.ts_undos += 1;
        true
    }

    /// A partial ACK in fast recovery (`tcp_try_undo_partial`), after the recovery took it.
    /// `snd_una_before`: the cumulative ACK before it. Returns true when the sender left
    /// recovery (undone).
    pub(super) fn ts_partial_ack(&mut self, snd_una_before: u64) -> bool {
        if self.undo.is_none() || !self.packet_delayed() {
            return false;
        }
        // tcp_check_sack_reordering(sk, prior_snd_una, 1): data above the old snd_una was
        // SACKed, so the segment that filled the hole was reordered.
        if let Some(rack) = self.rack.as_mut() {
            if rack.note_reordering_above(snd_una_before) {
                self.stats.ts_reorders += 1;
            }
        }
        if self.board.iter().any(|s| s.rexmit_out && !s.sacked) {
            // "If there are no retransmits out then we can undo. Otherwise we clock out new
            // packets but do not mark more packets lost or retransmit more."
            self.ts_hold = true;
            return false;
        }
        if !self.undo_cwnd_reduction(true) {
            return false;
        }
        self.stats.ts_undos += 1;
        self.stats.ts_partial_undos += 1;
        // tcp_try_keep_open: Open or Disorder, not Recovery.
        self.leave_recovery(false);
        true
    }

    /// Whether the current ACK may run loss detection (false on an ACK where
    /// `tcp_try_undo_partial` holds back); resets the hold for the next ACK.
    pub(super) fn take_ts_hold(&mut self) -> bool {
        std::mem::take(&mut self.ts_hold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_ticks_in_milliseconds_from_one_and_wraps() {
        assert_eq!(ts_clock(0), 1);
        assert_eq!(ts_clock(999_999), 1);
        assert_eq!(ts_clock(1_000_000), 2);
        assert!(ts_before(5, 6) && !ts_before(6, 6) && !ts_before(7, 6));
        assert!(ts_before(u32::MAX, 1), "RFC 7323 §5.2: comparison modulo 2^32");
    }
}

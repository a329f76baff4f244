//! Undo of a fast recovery that DSACKs prove spurious, the `dsack_undo` dialect key of the
//! `linux` profile (net/ipv4/tcp_input.c: `tcp_init_undo`, `tcp_check_dsack` and
//! `tcp_sacktag_one` counting `undo_retrans` down, `tcp_try_undo_dsack`,
//! `tcp_try_undo_recovery`, `tcp_undo_cwnd_reduction`, `tcp_try_to_open`). RFC 3708 §3
//! describes the detection.
//!
//! At the entry of fast recovery the sender keeps the window it had (`prior_cwnd`, and
//! `prior_ssthresh` = Linux `tcp_current_ssthresh`: max(ssthresh, 3/4 cwnd)) and counts the
//! segments it retransmits in the episode. Each DSACK (RFC 2883) of a retransmitted segment
//! sent after the entry counts one down; when every retransmission has been reported as a
//! duplicate, the originals had all arrived: the reduction was spurious. cwnd and ssthresh go
//! back to at least what they were, and the sender leaves recovery (Linux: state Open or
//! Disorder, not Recovery). Segments still marked lost start a new recovery at once, as
//! `tcp_time_to_recover` does ("the loss is proven").
//!
//! The same record serves the timestamp-based undo (`timestamps`, `timestamps.rs`: Linux
//! `tcp_may_undo` with `tcp_packet_delayed`). Not modelled: undo after a timeout
//! (`tcp_try_undo_loss`; F-RTO, `frto.rs`, answers spurious timeouts).

use super::{Segment, TcpSender};
use crate::engine::time::SimTime;
use crate::net::packet::SackBlocks;
use crate::tcp::cc::Controller;
use crate::tcp::recovery::LossRecovery;

/// Linux `undo_marker`, `undo_retrans`, `prior_cwnd` and `prior_ssthresh` of one fast
/// recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Undo {
    /// snd_una at the entry: DSACKs of data below it say nothing about this episode.
    marker: u64,
    /// Retransmissions of the episode not yet reported by a DSACK; None before the first.
    retrans: Option<u32>,
    prior_cwnd: u64,
    prior_ssthresh: u64,
}

impl TcpSender {
    /// Fast recovery starts: remember the window before its reduction (`tcp_init_undo`).
    pub(super) fn undo_on_enter(&mut self, cwnd_before: u64, ssthresh_before: u64) {
        if self.cfg.dsack_undo || self.cfg.timestamps {
            let three_quarters = (cwnd_before >> 1) + (cwnd_before >> 2);
            self.undo = Some(Undo {
                marker: self.snd_una,
                retrans: None,
                prior_cwnd: cwnd_before,
                prior_ssthresh: ssthresh_before.max(three_quarters),
            });
        }
    }

    /// A timeout ends what a DSACK could undo (Linux sets a new undo point there, for
    /// `tcp_try_undo_loss`, which is not modelled).
    pub(super) fn undo_on_timeout(&mut self) {
        self.undo = None;
    }

    /// A retransmission after the entry (`tcp_retransmit_skb`: `undo_retrans += pcount`).
    pub(super) fn undo_on_retransmit(&mut self) {
        if let Some(u) = self.undo.as_mut() {
            u.retrans = Some(u.retrans.map_or(1, |r| r + 1));
        }
    }

    /// An ACK whose first SACK block is a DSACK, before the ACK's other processing:
    /// `snd_una_before` is the cumulative ACK before it. Counts the duplicates down
    /// (`tcp_check_dsack` for data below snd_una, `tcp_sacktag_one` for data above it: only a
    /// retransmitted segment's).
    pub(super) fn undo_on_dsack(&mut self, sack: &SackBlocks, snd_una_before: u64) {
        if !self.cfg.dsack_undo {
            return;
        }
        let Some(u) = self.undo.as_mut() else { return };
        let Some(r) = u.retrans.filter(|&r| r > 0) else { return };
        let Some((start, end)) = sack.iter().next() else { return };
        if end <= u.marker {
            return;
        }
        let dups = if end <= snd_una_before {
            end.saturating_sub(start.max(u.marker)).div_ceil(self.cfg.mss_bytes as u64)
        } else {
            self.board.iter().filter(|s| s.start < end && start < s.end && s.tx_count > 1).count() as u64
        };
        u.retrans = Some(r.saturating_sub(dups.min(u32::MAX as u64) as u32));
    }

    /// After the ACK's DSACK accounting: every retransmission of the episode was a duplicate
    /// (`tcp_try_undo_dsack`, `tcp_try_undo_recovery`): undo the reduction and leave
    /// recovery if still in it (`tcp_undo_cwnd_reduction`, `tcp_try_to_open`). Linux undoes
    /// also after the recovery ended (in state Open or Disorder), until the next recovery or
    /// timeout.
    pub(super) fn undo_if_spurious(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let Some(u) = self.undo else { return };
        if !self.cfg.dsack_undo || u.retrans != Some(0) {
            return;
        }
        self.undo_cwnd_reduction(false);
        self.stats.dsack_undos += 1;
        // `tcp_try_undo_dsack`: reo_wnd_persist grows.
        if let Some(rack) = self.rack.as_mut() {
            rack.on_spurious_recovery();
        }
        if !self.recovery.in_recovery() {
            return;
        }
        self.leave_recovery(false);
        if self.board.first_lost_unsent().is_some() && self.recovery.may_enter(self.outstanding()) {
            self.enter_recovery(now, out);
        }
    }
}

impl TcpSender {
    /// Linux `tcp_undo_cwnd_reduction`: cwnd = max(cwnd, the kept one) (`tcp_reno_undo_cwnd`,
    /// CUBIC's too), ssthresh = max(ssthresh, the kept one); with `unmark_loss`, RACK's loss
    /// marks are forgotten (it marks again on the ACK's own detection). False if there is
    /// no reduction to undo.
    pub(super) fn undo_cwnd_reduction(&mut self, unmark_loss: bool) -> bool {
        let Some(u) = self.undo.take() else { return false };
        let cwnd = self.cc.cwnd().max(u.prior_cwnd);
        if u.prior_ssthresh > self.cc.ssthresh() {
            self.cc.set_ssthresh(u.prior_ssthresh);
        }
        self.cc.set_cwnd(cwnd);
        if unmark_loss && self.rack.is_some() {
            self.board.clear_lost_marks();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::carries_dsack;
    use crate::net::packet::SackBlocks;

    fn blocks(b: &[(u64, u64)]) -> SackBlocks {
        let mut out = SackBlocks::default();
        for &x in b {
            out.push(x);
        }
        out
    }

    #[test]
    fn a_dsack_is_a_first_block_below_the_ack_or_within_the_second() {
        // RFC 2883 §4: below the cumulative ACK (§4.1.1), inside the next block (§4.1.2).
        assert!(carries_dsack(&blocks(&[(0, 1000)]), 5000));
        assert!(carries_dsack(&blocks(&[(7000, 8000), (6000, 9000)]), 5000));
        assert!(carries_dsack(&blocks(&[(7000, 8000), (7000, 8000)]), 5000));
        // Plain SACK: disjoint blocks above the ACK, the newest first.
        assert!(!carries_dsack(&blocks(&[(8000, 9000), (6000, 7000)]), 5000));
        assert!(!carries_dsack(&blocks(&[]), 5000));
    }
}

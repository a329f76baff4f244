//! The sender's side of RFC 8985 RACK-TLP: feeding delivered segments to RACK
//! (`recovery/rack.rs`), starting SACK recovery when RACK marks a segment lost, and the tail
//! loss probe (§7). The PTO and the RACK reorder timer share the sender's one timer with the
//! RTO, as in Linux (`icsk_retransmit_timer`): `TcpSender::rto_deadline` is the earliest.

use super::{Segment, TcpSender};
use crate::engine::time::{s_to_ns, SimTime};
use crate::tcp::cc::Controller;
use crate::tcp::config::RecoveryRate;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::timer_wheel;

/// RFC 8985 §7.2 TLP.max_ack_delay, added to the PTO when one segment is in flight: the
/// worst-case delayed-ACK timer, 200 ms (RFC 5681 §4.2's bound; Linux `TCP_DELACK_MAX`).
pub const TLP_MAX_ACK_DELAY_NS: SimTime = 200_000_000;

/// The TLP episode of RFC 8985 §7.4: TLP.end_seq and TLP.is_retrans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TlpEpisode {
    pub end_seq: u64,
    pub is_retrans: bool,
}

impl TcpSender {
    /// RFC 8985 §6.2 step 5 after an ACK (`acked`) or on the reorder timer: RACK marks, and a
    /// new mark starts SACK recovery (the RFC 6675 machinery then chooses what to send).
    pub(super) fn rack_detect(&mut self, now: SimTime, acked: bool, out: &mut Vec<Segment>) {
        let in_recovery = self.recovery.in_recovery() || self.in_rto_recovery();
        let (min_rtt, srtt) = (self.rto.min_rtt_ns(), self.rto.srtt_ns());
        let dupthresh = self.cfg.dupack_threshold;
        let external = self.window.is_external();
        let Some(rack) = self.rack.as_mut() else { return };
        if external {
            // The window is set from outside; its own repair handles losses.
            rack.timer_ns = None;
            return;
        }
        let reo_wnd = rack.reo_wnd_ns(in_recovery, self.board.sacked_segs(), dupthresh, min_rtt, srtt);
        let marked = rack.detect_loss(now, acked, &mut self.board, reo_wnd);
        let hz = self.cfg.timer_wheel_hz;
        if let Some(at) = rack.timer_ns.filter(|_| hz > 0) {
            // Linux `tcp_rack_mark_lost`: `usecs_to_jiffies(timeout + TCP_TIMEOUT_MIN_US)`.
            rack.timer_ns = Some(timer_wheel::expiry(now, at - now + timer_wheel::TCP_TIMEOUT_MIN_NS, hz));
        }
        self.board.note_marked_lost(marked.segments);
        if marked.segments == 0 {
            return;
        }
        if self.recovery.in_recovery() {
            if marked.retransmissions > 0 {
                self.on_lost_retransmission(now);
            }
        } else if self.recovery.may_enter(self.outstanding()) {
            self.enter_recovery(now, out);
        }
    }

    /// RFC 8985 §9.3: "In the absence of PRR, when RACK-TLP detects a lost retransmission,
    /// the congestion control MUST trigger an additional congestion response": ssthresh from
    /// the current cwnd as RFC 5681 eq. (4), cwnd = ssthresh. With PRR the reduction stays
    /// PRR's.
    fn on_lost_retransmission(&mut self, now: SimTime) {
        self.stats.lost_retransmissions += 1;
        if self.cfg.recovery_rate == RecoveryRate::Classic {
            let ssthresh = self.cc.on_congestion_event(now, self.cc.cwnd(), &self.rto);
            self.cc.set_cwnd(ssthresh);
        }
    }

    /// After an RTO, until the cumulative ACK passes the data outstanding at the timeout.
    pub(super) fn in_rto_recovery(&self) -> bool {
        self.snd_una < self.timeout_recover_end
    }

    /// RFC 8985 §7.2: whether a PTO may be armed now: not in fast or RTO recovery, nothing
    /// SACKed ("RACK.segs_sacked is not zero"), data outstanding, TCP's own window in force.
    fn pto_allowed(&self) -> bool {
        self.rack.is_some()
            && !self.window.is_external()
            && !self.recovery.in_recovery()
            && !self.in_rto_recovery()
            && self.board.sacked_segs() == 0
            && self.snd_max > self.snd_una
    }

    /// RFC 8985 §7.2 TLP_calc_PTO(), armed when `pto_rearm` says new data went out or an ACK
    /// acknowledged new data; cancelled whenever arming is no longer allowed.
    pub(super) fn update_pto(&mut self, now: SimTime) {
        if !self.pto_allowed() {
            self.pto_deadline = None;
            self.pto_rearm = false;
            return;
        }
        if !std::mem::take(&mut self.pto_rearm) {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        let hz = self.cfg.timer_wheel_hz;
        let mut pto = match self.rto.srtt_ns() {
            Some(srtt) if flight <= self.cfg.mss_bytes as u64 => 2 * srtt + TLP_MAX_ACK_DELAY_NS,
            // Linux `tcp_schedule_loss_probe`: `srtt_us >> 2` plus `TCP_TIMEOUT_MIN_US`.
            Some(srtt) if hz > 0 => 2 * srtt + timer_wheel::TCP_TIMEOUT_MIN_NS,
            Some(srtt) => 2 * srtt,
            None => s_to_ns(1.0),
        };
        if hz > 0 {
            // Linux: the probe replaces the retransmission timer, armed in jiffies on the timer
            // wheel; when the RTO would come first it is the RTO's expiry (`timer_wheel.rs`).
            let at = timer_wheel::expiry(now, pto, hz);
            self.pto_deadline = Some(self.rto_deadline.map_or(at, |rto_at| at.min(rto_at)));
            return;
        }
        // "If Now() + PTO > TCP_RTO_expiration(): PTO = TCP_RTO_expiration() - Now()".
        if let Some(rto_at) = self.rto_deadline {
            pto = pto.min(rto_at.saturating_sub(now));
        }
        self.pto_deadline = Some(now + pto);
    }

    /// RFC 8985 §7.3, the PTO fired: probe with new data if the receiver window allows, else
    /// (once per episode) retransmit the highest-sequence segment; then re-arm the RTO timer,
    /// not the PTO. The probe is sent whatever cwnd says.
    pub(super) fn on_pto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.pto_deadline = None;
        let new_len = self.new_segment_within_rwnd();
        let is_retrans = if new_len > 0 {
            self.send_new(new_len as u32, now, out);
            Some(false)
        } else if self.tlp.is_none() && !self.board.is_empty() {
            // Linux `tcp_send_loss_probe` resends through `__tcp_retransmit_skb`, which
            // leaves `retrans_stamp` as it was.
            let stamp = self.retrans_stamp;
            self.resend(self.board.len() - 1, now, out);
            self.retrans_stamp = stamp;
            Some(true)
        } else {
            None
        };
        // A probe does not re-arm the PTO (§7.2: "new data (that was not itself a loss probe)").
        self.pto_rearm = false;
        if let Some(is_retrans) = is_retrans {
            self.stats.tlp_probes += 1;
            if self.tlp.is_none() {
                self.tlp = Some(TlpEpisode { end_seq: self.snd_max, is_retrans });
            }
        }
        if self.snd_max > self.snd_una {
            self.restart_timer(now);
        }
    }

    /// RFC 8985 §7.4.2 TLP_process_ack(), before the ACK moves snd_una. hosim's receiver
    /// sends no DSACK, so a redundant probe shows only as a duplicate ACK without SACK.
    pub(super) fn tlp_on_ack(&mut self, now: SimTime, ack: u64, has_sack: bool) {
        let Some(ep) = self.tlp else { return };
        if ack < ep.end_seq {
            return;
        }
        if !ep.is_retrans {
            // TLP of new data delivered.
            self.tlp = None;
        } else if ack > ep.end_seq {
            // The probe repaired the single loss: congestion control reacts to it.
            self.tlp = None;
            self.stats.tlp_loss_repairs += 1;
            if !self.recovery.in_recovery() {
                let flight = self.reduced_from(self.snd_max - self.snd_una);
                let ssthresh = self.cc.on_congestion_event(now, flight, &self.rto);
                self.cc.set_cwnd(ssthresh);
            }
        } else if ack == self.snd_una && !has_sack {
            // A duplicate ACK without SACK: original and probe both arrived.
            self.tlp = None;
        }
    }
}

//! Linux TCP Small Queues (TSQ), the `small_queues` dialect key of the `linux` profile.
//!
//! Linux charges every segment a socket sends to `sk_wmem_alloc` until the device has sent
//! it (the skb is freed at TX completion, `tcp_wfree`). Before each segment,
//! `tcp_small_queue_check` (net/ipv4/tcp_output.c) compares that charge with a limit,
//!
//! ```text
//! limit = max(2 * skb->truesize, sk_pacing_rate >> sk_pacing_shift)   (shift 10: ~1 ms)
//! limit = min(limit, tcp_limit_output_bytes)        unless the flow is paced (SK_PACING_NONE)
//! limit <<= factor                                  (1 when walking the retransmission queue)
//! ```
//!
//! and, above it, stops sending and sets `TSQ_THROTTLED`, unless the retransmission queue is
//! empty or holds one skb. When the device frees one of the socket's skbs, `tcp_wfree` queues
//! the socket for `tcp_tsq_handler`, which calls `tcp_write_xmit` (and
//! `tcp_xmit_retransmit_queue`) again. So a sender does not overfill its own host's outgoing
//! queue: it waits instead of being dropped there.
//!
//! Modelled: the charge in packet bytes (header + payload) of every data segment from its
//! emission until its transmission ends on the link leaving the sending host (or it is dropped
//! or withdrawn before that); the limit above with 2 packets for `2 * truesize`,
//! `sk_pacing_rate` as `tcp_update_pacing_rate` sets it for an unpaced flow
//! (max(cwnd, packets out) / srtt times `tcp_pacing_ss_ratio` 200 % while cwnd < ssthresh / 2,
//! else `tcp_pacing_ca_ratio` 120 %; unlimited before the first RTT sample), or the
//! controller's own pacing rate, and `tcp_limit_output_bytes` = 4 MiB (its value in Linux
//! 6.18, `net.ipv4.tcp_limit_output_bytes`); factor 1 while in loss recovery or resending after
//! a timeout; the wake-up at the end of each transmission of a throttled sender, at the same
//! instant. Not modelled: skb truesize overhead and GSO/TSO (one skb is one segment here), the
//! per-CPU tasklet's delay, `tcp_tx_delay`, pure ACKs (never held back), an 802.11 station's
//! queue (its segments are released as they are handed to the medium).

use super::TcpSender;
use crate::engine::time::SimTime;
use crate::tcp::cc::Controller;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::Segment;

/// `net.ipv4.tcp_limit_output_bytes` in Linux 6.18 (4 MiB).
pub const LIMIT_OUTPUT_BYTES: u64 = 4 * 1024 * 1024;

/// `sk_pacing_shift`'s default, 10: the rate-based limit is about 1 ms of the pacing rate.
const PACING_SHIFT: u32 = 10;

/// The socket's bytes on its host's outgoing link, and whether it is waiting for them to drain.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SmallQueues {
    /// `sk_wmem_alloc`: bytes of data segments emitted and not yet sent by the host's link.
    queued_bytes: u64,
    /// `TSQ_THROTTLED`: held back by the limit; the next release wakes the sender.
    throttled: bool,
    /// A wake-up is scheduled and has not run (`TSQ_QUEUED`).
    wake_pending: bool,
    /// How often the limit held the sender back.
    pub(super) throttles: u64,
}

impl TcpSender {
    /// `tcp_small_queue_check`: whether the bytes the flow has on its host's link leave room
    /// for one more segment. Called only with `small_queues` on.
    #[cold]
    #[inline(never)]
    pub(super) fn small_queue_allows(&mut self) -> bool {
        let retransmitting = self.recovery.in_recovery() || self.snd_nxt < self.snd_max;
        let limit = self.small_queue_limit(retransmitting);
        let sq = self.small_queues.as_mut().expect("checked only with small_queues on");
        if sq.queued_bytes <= limit {
            return true;
        }
        // "Always send skb if rtx queue is empty or has one skb."
        if self.board.len() <= 1 {
            return true;
        }
        if !sq.throttled {
            sq.throttles += 1;
        }
        sq.throttled = true;
        false
    }

    /// The limit of `tcp_small_queue_check`, in bytes (see the module's comment).
    pub(super) fn small_queue_limit(&self, retransmitting: bool) -> u64 {
        let packet = (self.cfg.mss_bytes + self.cfg.header_bytes) as u64;
        let (rate_bytes_per_s, paced) = match self.cc.pacing_rate_bps() {
            Some(bps) => (bps / 8, true),
            None => (self.linux_pacing_rate_bytes_per_s(), false),
        };
        let mut limit = (2 * packet).max(rate_bytes_per_s >> PACING_SHIFT);
        if !paced {
            limit = limit.min(LIMIT_OUTPUT_BYTES);
        }
        limit << retransmitting as u32
    }

    /// `tcp_update_pacing_rate` (net/ipv4/tcp_input.c) for a flow without pacing of its own:
    /// max(cwnd, packets out) per srtt, times 200 % in the first half of slow start (cwnd <
    /// ssthresh / 2), else 120 %; `~0UL` (unlimited) before the first RTT sample.
    pub(super) fn linux_pacing_rate_bytes_per_s(&self) -> u64 {
        let Some(srtt) = self.rtt().srtt_ns().filter(|&s| s > 0) else { return u64::MAX };
        let cwnd = self.cc.cwnd();
        let ratio_pct: u128 = if cwnd < self.cc.ssthresh() / 2 { 200 } else { 120 };
        let window = cwnd.max(self.snd_max - self.snd_una) as u128;
        (window * ratio_pct * 1_000_000_000 / (100 * srtt as u128)).min(u64::MAX as u128) as u64
    }

    /// A data segment of `bytes` (header included) goes to the host's link.
    #[inline(always)]
    pub(super) fn small_queue_charge(&mut self, bytes: u64) {
        if let Some(sq) = self.small_queues.as_mut() {
            sq.queued_bytes += bytes;
        }
    }

    /// `tcp_wfree`: a data segment of `bytes` left the host's link (sent, dropped or
    /// withdrawn). Returns whether to schedule a wake-up ([`TcpSender::on_small_queue_wake`]):
    /// the sender is held back and none is pending.
    pub fn small_queue_release(&mut self, bytes: u64) -> bool {
        let Some(sq) = self.small_queues.as_mut() else { return false };
        sq.queued_bytes = sq.queued_bytes.saturating_sub(bytes);
        let wake = sq.throttled && !sq.wake_pending;
        sq.wake_pending |= wake;
        wake
    }

    /// `tcp_tsq_handler`: the wake-up after a release; sends what the window and the limit
    /// now allow.
    pub fn on_small_queue_wake(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let Some(sq) = self.small_queues.as_mut() else { return };
        sq.wake_pending = false;
        if !std::mem::take(&mut sq.throttled) {
            return;
        }
        self.send_allowed(now, out);
    }

    /// Bytes the flow has on its host's link, and how often the limit held it back; `None`
    /// without `small_queues`.
    pub fn small_queue_state(&self) -> Option<(u64, u64)> {
        self.small_queues.map(|sq| (sq.queued_bytes, sq.throttles))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures::{config, ms, MSS};
    use crate::tcp::Recovery;

    /// One data packet of the fixtures: SMSS 1000 + 40 header bytes.
    const PACKET: u64 = MSS + 40;

    fn small_queues_sender() -> (TcpSender, Vec<Segment>) {
        let cfg = TcpConfig { small_queues: true, ..config(Recovery::Sack) };
        let mut s = TcpSender::new(cfg, u64::MAX);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        out.clear();
        s.on_syn_ack(ms(100), &mut out);
        (s, out)
    }

    use crate::tcp::TcpConfig;

    #[test]
    fn without_an_rtt_sample_the_limit_is_tcp_limit_output_bytes_doubled_for_retransmissions() {
        let s = TcpSender::new(TcpConfig { small_queues: true, ..config(Recovery::Sack) }, u64::MAX);
        assert_eq!(s.small_queue_limit(false), LIMIT_OUTPUT_BYTES);
        assert_eq!(s.small_queue_limit(true), 2 * LIMIT_OUTPUT_BYTES);
    }

    #[test]
    fn the_initial_window_stops_at_two_packets_queued_and_each_release_wakes_the_sender_for_more() {
        let (mut s, out) = small_queues_sender();
        // srtt 100 ms, cwnd 10 segments in slow start: 200 % of 100 kB/s is 195 bytes per
        // ~1 ms, below the floor of two packets. Sent while at most the limit is queued: 3.
        assert_eq!(s.small_queue_limit(false), 2 * PACKET);
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(s.small_queue_state(), Some((3 * PACKET, 1)));
        // The host's link sends one: the sender is woken once, and sends one more.
        assert!(s.small_queue_release(PACKET));
        assert!(!s.small_queue_release(0), "one wake-up pending at a time");
        let mut more = Vec::new();
        s.on_small_queue_wake(ms(100), &mut more);
        assert_eq!((more.len(), more[0].seq), (1, 3 * MSS));
        assert_eq!(s.small_queue_state(), Some((3 * PACKET, 2)));
        // A wake-up without a hold-back sends nothing.
        let mut none = Vec::new();
        s.on_small_queue_wake(ms(100), &mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn without_small_queues_the_whole_initial_window_goes_at_once() {
        let mut s = TcpSender::new(config(Recovery::Sack), u64::MAX);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        out.clear();
        s.on_syn_ack(ms(100), &mut out);
        assert_eq!((out.len(), s.small_queue_state()), (10, None));
        assert!(!s.small_queue_release(PACKET));
    }
}

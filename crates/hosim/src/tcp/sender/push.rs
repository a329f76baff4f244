//! The sender's half of Linux's push-flag acknowledgment, the `psh_quickack` dialect key of the
//! `linux` profile: which new segments carry PSH. (The receiver's half is in `receiver.rs`.)
//!
//! Linux hands its device TSO/GSO units of `tcp_tso_autosize` segments (net/ipv4/tcp_output.c:
//! `sk_pacing_rate >> sk_pacing_shift` bytes, plus `sk_gso_max_size >> (min_rtt_us >>
//! tcp_tso_rtt_log)` on short paths, at most `sk_gso_max_size`, at least `tcp_min_tso_segs` =
//! 2 segments). GSO keeps PSH on the last segment of a unit only (`tcp_gso_segment`). Which
//! units carry it is measured, not derived: in a capture of the kernel's CUBIC sending to a 10
//! Mb/s mobile (drop-or-forward, docs/reproductions/drop-or-forward.md) every two-segment unit
//! after 4 s ended with PSH (4101 in one run, 4201 in another) and no lone segment had it
//! (1655, 1697), while the application's writes went into skbs of up to 45 segments
//! (`tcp:tcp_sendmsg_locked`: `size_goal` 65160 bytes, 55-72 events a second against about
//! 260 PSH units a second), so the marks are not `tcp_push`'s at the end of each write; the
//! function that sets them was not found (`tso_fragment` clears PSH on the part it sends).
//!
//! Modelled: the new segments one transmission opportunity sends in a row are cut into units
//! of that size from the first; each unit of two or more ends with PSH, a lone segment has
//! none. Not modelled: where the application's writes end (a writer that is not always
//! ahead of the window puts PSH elsewhere), retransmissions (never marked here).

use super::{Segment, TcpSender};
use crate::net::packet::PacketKind;
use crate::tcp::cc::Controller;

/// `tcp_min_tso_segs` (net.ipv4.tcp_min_tso_segs = 2).
const MIN_TSO_SEGS: u64 = 2;
/// `sk_gso_max_size`: `GSO_LEGACY_MAX_SIZE`, 64 KiB.
const GSO_MAX_SIZE: u64 = 65_536;
/// `sk_pacing_shift`'s default: about 1 ms of the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `net.ipv4.tcp_tso_rtt_log` = 9: paths with a minimum RTT below 2^9 µs · 32 get more.
const TSO_RTT_LOG: u32 = 9;

impl TcpSender {
    /// `tcp_tso_autosize`: segments per TSO/GSO unit at the current pacing rate.
    fn tso_segs(&self) -> u64 {
        let rate = match self.cc.pacing_rate_bps() {
            Some(bps) => bps / 8,
            None => self.linux_pacing_rate_bytes_per_s(),
        };
        let mut bytes = rate >> PACING_SHIFT;
        if let Some(min_rtt) = self.rtt().min_rtt_ns() {
            let r = (min_rtt / 1_000) >> TSO_RTT_LOG;
            if r < 32 {
                bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
            }
        }
        (bytes.min(GSO_MAX_SIZE) / self.cfg.mss_bytes as u64).max(MIN_TSO_SEGS)
    }

    /// Sets PSH on the new segments of `sent` (what one transmission opportunity sent) as
    /// Linux's GSO units carry it. Called only with `psh_quickack` on.
    pub(super) fn mark_push(&self, sent: &mut [Segment]) {
        let unit = self.tso_segs() as usize;
        let is_new = |s: &Segment| s.kind == PacketKind::Data && !s.is_retx && s.len > 0;
        let mut i = 0;
        while i < sent.len() {
            if !is_new(&sent[i]) {
                i += 1;
                continue;
            }
            let run = sent[i..].iter().take_while(|s| is_new(s)).count();
            for unit_start in (i..i + run).step_by(unit) {
                let end = (unit_start + unit).min(i + run);
                if end - unit_start >= 2 {
                    sent[end - 1].psh = true;
                }
            }
            i += run;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::fixtures::*;
    use crate::tcp::{Recovery, TcpConfig};

    fn linux_push() -> TcpConfig {
        TcpConfig { psh_quickack: true, ..config(Recovery::Sack) }
    }

    #[test]
    fn established_ack_of_two_sends_a_pair_with_psh_on_the_second() {
        let mut s = established(linux_push());
        // Slow start (RFC 5681 eq. (2)): the ACK of two segments frees two and adds one to
        // cwnd; a unit of two with PSH last, then a lone segment without.
        let out = ack(&mut s, 200, 2 * MSS);
        assert_eq!(out.iter().map(|x| x.psh).collect::<Vec<_>>(), [false, true, false]);
    }

    #[test]
    fn established_lone_new_segment_has_no_psh() {
        let s = established(linux_push());
        let mut sent = vec![new_data(7)];
        s.mark_push(&mut sent);
        assert!(!sent[0].psh);
        let mut five = (0..5).map(new_data).collect::<Vec<_>>();
        s.mark_push(&mut five);
        assert_eq!(five.iter().map(|x| x.psh).collect::<Vec<_>>(), [false, true, false, true, false]);
    }

    #[test]
    fn without_the_key_no_segment_carries_psh() {
        let mut s = established(config(Recovery::Sack));
        let out = ack(&mut s, 200, 2 * MSS);
        assert!(out.len() == 3 && out.iter().all(|x| !x.psh));
    }
}

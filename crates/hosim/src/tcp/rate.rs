//! Delivery-rate samples, as Linux keeps them (`net/ipv4/tcp_rate.c`) and ns-3 after it
//! (`TcpRateLinux`, the `TcpRateOps` interface); the method is the IETF draft "Delivery Rate
//! Estimation" (draft-cheng-iccrg-delivery-rate-estimation).
//!
//! The connection counts the bytes delivered so far (`delivered`) and when the count last
//! moved (`delivered_time`). Each transmission records, for its segment, that count, its time,
//! the send time of the first segment of the current flight (`first_tx_time`) and whether the
//! sender was application-limited (`TxState`). When an ACK delivers segments (cumulatively or
//! by SACK), the most recently sent of them names the sample's start: the sample's rate is the
//! bytes delivered since that segment was sent, over the longer of two intervals, the time the
//! flight took to send (send elapsed) and the time its ACKs took to come back (ACK elapsed),
//! draft §3.3. Byte counts, as ns-3 keeps them (Linux counts packets).
//!
//! Only a controller that asks for samples (`cc::Controller::wants_rate_samples`) pays for
//! them: otherwise the sender keeps no `RateSampler` at all.

use std::collections::VecDeque;

use super::scoreboard::SegRec;
use crate::engine::time::SimTime;

/// What a transmission recorded for its segment (Linux `tcp_skb_cb.tx`, plus the segment's end
/// and the time of this transmission).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxState {
    /// One past the segment's last byte: the key the scoreboard's records are found by.
    end: u64,
    /// When this (re)transmission left.
    sent_ns: SimTime,
    /// `first_tx_mstamp`: when the first segment of this flight was sent.
    first_tx_ns: SimTime,
    /// `delivered_mstamp`: the connection's `delivered_time` at this transmission.
    delivered_time_ns: SimTime,
    /// `delivered`: bytes delivered when this segment was sent.
    delivered: u64,
    is_app_limited: bool,
    is_retrans: bool,
    /// Already counted as delivered (Linux clears `delivered_mstamp` of a SACKed segment so
    /// that its cumulative ACK does not count it again).
    counted: bool,
}

/// One delivery-rate sample, generated for an ACK that delivered data (draft §3.3; Linux
/// `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered between the sampled segment's transmission and this ACK.
    pub delivered_bytes: u64,
    /// max(send elapsed, ACK elapsed), nanoseconds.
    pub interval_ns: SimTime,
    /// The time the flight took to send: from `first_tx_time` to the sampled segment's send.
    pub send_elapsed_ns: SimTime,
    /// The time its ACKs took: from the `delivered_time` recorded with the segment to now.
    pub ack_elapsed_ns: SimTime,
    /// `prior_delivered`: the connection's count when the sampled segment was sent.
    pub prior_delivered: u64,
    /// Bytes this ACK delivered (newly ACKed or SACKed).
    pub newly_delivered_bytes: u64,
    /// The sampled segment was sent while the sender was application-limited: the rate may
    /// understate what the path carries (draft §3.4).
    pub is_app_limited: bool,
    /// The sampled segment was a retransmission.
    pub is_retrans: bool,
    /// Bytes the sender counts in flight once this ACK is processed (SetPipe() in SACK
    /// recovery, else snd_nxt - snd_una).
    pub in_flight_bytes: u64,
}

impl RateSample {
    /// `delivered_bytes / interval_ns`, in bit/s.
    pub fn delivery_rate_bps(&self) -> u64 {
        if self.interval_ns == 0 {
            return 0;
        }
        (self.delivered_bytes as u128 * 8 * 1_000_000_000 / self.interval_ns as u128) as u64
    }
}

/// The connection's side of the estimate (Linux `tp->delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`) and the per-segment transmission records.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Bytes delivered so far (`tp->delivered`).
    delivered: u64,
    /// When `delivered` last grew (`tp->delivered_mstamp`).
    delivered_time_ns: SimTime,
    /// Send time of the first segment of the current flight, later of the most recently
    /// delivered segment (`tp->first_tx_mstamp`).
    first_tx_ns: SimTime,
    /// `tp->app_limited`: nonzero while the sender is application-limited, the `delivered`
    /// count at which that period's data will all have been delivered.
    app_limited_until: u64,
    /// One record per outstanding segment, in sequence order, as the scoreboard's.
    tx: VecDeque<TxState>,
    /// The sample being built by the current ACK.
    pending: Pending,
}

/// `rate_sample`'s fields that `tcp_rate_skb_delivered` sets, segment by segment.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    /// Whether any segment delivered by this ACK had a transmission record.
    found: bool,
    prior_delivered: u64,
    prior_time_ns: SimTime,
    send_elapsed_ns: SimTime,
    /// Send time and end of the sampled segment (`tcp_skb_sent_after` tie-break).
    sent_ns: SimTime,
    end: u64,
    is_app_limited: bool,
    is_retrans: bool,
    newly_delivered: u64,
}

impl RateSampler {
    /// Bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Whether the sender is application-limited now (draft §3.4).
    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until != 0
    }

    /// Linux `tcp_rate_skb_sent`: segment `[start, end)` leaves now; `new` when it is new data
    /// (appended to the records), otherwise a retransmission of a recorded segment.
    /// `flight_empty`: nothing was outstanding before it, so a new flight starts and the
    /// interval clocks restart (draft §3.2: "if there are no packets in flight").
    pub fn on_sent(&mut self, now: SimTime, start: u64, end: u64, new: bool, flight_empty: bool) {
        if flight_empty {
            self.first_tx_ns = now;
            self.delivered_time_ns = now;
        }
        let rec = TxState {
            end,
            sent_ns: now,
            first_tx_ns: self.first_tx_ns,
            delivered_time_ns: self.delivered_time_ns,
            delivered: self.delivered,
            is_app_limited: self.app_limited_until != 0,
            is_retrans: !new,
            counted: false,
        };
        if new {
            self.tx.push_back(rec);
        } else if let Some(i) = self.index_of(start) {
            self.tx[i] = rec;
        }
    }

    /// An ACK begins: forget the last sample.
    pub fn begin_ack(&mut self) {
        self.pending = Pending::default();
    }

    /// Linux `tcp_rate_skb_delivered`: `seg` was delivered by this ACK (cumulatively or by a
    /// SACK). The most recently sent of the ACK's segments (ties by the higher end) gives the
    /// sample's start.
    pub fn on_delivered(&mut self, seg: &SegRec) {
        let Some(i) = self.index_of(seg.start) else { return };
        let t = &mut self.tx[i];
        if t.counted {
            return;
        }
        t.counted = true;
        let t = *t;
        self.delivered += seg.len();
        let p = &mut self.pending;
        p.newly_delivered += seg.len();
        let later = t.sent_ns > p.sent_ns || (t.sent_ns == p.sent_ns && t.end > p.end);
        if !p.found || later {
            p.found = true;
            p.prior_delivered = t.delivered;
            p.prior_time_ns = t.delivered_time_ns;
            p.is_app_limited = t.is_app_limited;
            p.is_retrans = t.is_retrans;
            p.sent_ns = t.sent_ns;
            p.end = t.end;
            // Draft §3.3: the flight's send elapsed ends at the sampled segment's send; the
            // next flight's starts there ("Record send time of most recently ACKed packet").
            p.send_elapsed_ns = t.sent_ns - t.first_tx_ns;
            self.first_tx_ns = t.sent_ns;
        }
    }

    /// Linux `tcp_rate_gen`, after the ACK has been processed: the sample, or None when this
    /// ACK delivered nothing with a record, or when the interval is shorter than the minimum
    /// RTT (draft §3.3: such a sample comes from ACK compression and overstates the rate).
    /// `snd_una`: records below it are dropped; `in_flight_bytes` is passed on to the sample.
    pub fn generate(
        &mut self,
        now: SimTime,
        snd_una: u64,
        in_flight_bytes: u64,
        min_rtt_ns: Option<SimTime>,
    ) -> Option<RateSample> {
        while self.tx.front().is_some_and(|t| t.end <= snd_una) {
            self.tx.pop_front();
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            // The data sent while application-limited has been delivered.
            self.app_limited_until = 0;
        }
        let p = self.pending;
        if p.newly_delivered > 0 {
            self.delivered_time_ns = now;
        }
        if !p.found {
            return None;
        }
        let ack_elapsed_ns = now - p.prior_time_ns;
        let interval_ns = p.send_elapsed_ns.max(ack_elapsed_ns);
        if min_rtt_ns.is_some_and(|m| interval_ns < m) {
            return None;
        }
        Some(RateSample {
            delivered_bytes: self.delivered - p.prior_delivered,
            interval_ns,
            send_elapsed_ns: p.send_elapsed_ns,
            ack_elapsed_ns,
            prior_delivered: p.prior_delivered,
            newly_delivered_bytes: p.newly_delivered,
            is_app_limited: p.is_app_limited,
            is_retrans: p.is_retrans,
            in_flight_bytes,
        })
    }

    /// Linux `tcp_rate_check_app_limited`: the sender has no full segment of new data to send,
    /// has room in cwnd and nothing presumed lost: mark the bytes now in flight as sent while
    /// application-limited (draft §3.4). Samples taken until they are delivered say so.
    pub fn mark_app_limited(&mut self, in_flight_bytes: u64) {
        self.app_limited_until = (self.delivered + in_flight_bytes).max(1);
    }

    fn index_of(&self, start: u64) -> Option<usize> {
        let i = self.tx.partition_point(|t| t.end <= start);
        (i < self.tx.len()).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn seg(k: u64) -> SegRec {
        SegRec {
            start: k * MSS,
            end: (k + 1) * MSS,
            sacked: false,
            lost: false,
            tx_count: 1,
            last_sent_ns: 0,
            rexmit_out: false,
        }
    }

    fn ms(v: u64) -> SimTime {
        v * 1_000_000
    }

    /// Sends segments `from..to`, one every `gap_ms` starting at `at_ms`.
    fn send(r: &mut RateSampler, from: u64, to: u64, at_ms: u64, gap_ms: u64) {
        for k in from..to {
            let empty = r.tx.is_empty();
            r.on_sent(ms(at_ms + (k - from) * gap_ms), k * MSS, (k + 1) * MSS, true, empty);
        }
    }

    fn ack(r: &mut RateSampler, now_ms: u64, segs: impl IntoIterator<Item = u64>, snd_una: u64) -> Option<RateSample> {
        r.begin_ack();
        for k in segs {
            r.on_delivered(&seg(k));
        }
        r.generate(ms(now_ms), snd_una, 0, Some(ms(50)))
    }

    #[test]
    fn steady_flight_samples_the_ack_rate() {
        // Ten segments sent 1 ms apart; their ACKs return 100 ms later, also 1 ms apart.
        let mut r = RateSampler::default();
        send(&mut r, 0, 10, 0, 1);
        let mut last = None;
        for k in 0..10 {
            last = ack(&mut r, 100 + k, [k], (k + 1) * MSS);
        }
        let s = last.expect("a sample for the tenth ACK");
        // Segment 9 was sent at 9 ms with delivered = 0, delivered_time = 0 (one flight);
        // at 109 ms 10000 bytes are delivered: ACK elapsed 109 ms, send elapsed 9 ms.
        assert_eq!((s.delivered_bytes, s.send_elapsed_ns, s.ack_elapsed_ns), (10 * MSS, ms(9), ms(109)));
        assert_eq!(s.interval_ns, ms(109), "interval = max(send elapsed, ACK elapsed)");
        assert_eq!(s.delivery_rate_bps(), 10 * MSS * 8 * 1000 / 109);
    }

    #[test]
    fn long_transfer_measures_one_segment_per_ms() {
        // One segment sent per ms, each ACKed 100 ms later (the ACK before the send at the same
        // ms): from the second round on each sample spans one RTT of deliveries, 100 segments
        // in 100 ms, 8 Mb/s.
        let mut r = RateSampler::default();
        let mut samples = Vec::new();
        for t in 0..300 {
            if t >= 100 {
                samples.push(ack(&mut r, t, [t - 100], (t - 99) * MSS));
            }
            let empty = r.tx.is_empty();
            r.on_sent(ms(t), t * MSS, (t + 1) * MSS, true, empty);
        }
        let s = samples[150].expect("sample");
        assert_eq!((s.send_elapsed_ns, s.ack_elapsed_ns), (ms(100), ms(100)));
        assert_eq!(s.delivered_bytes, 100 * MSS);
        assert_eq!(s.delivery_rate_bps(), 8_000_000);
    }

    #[test]
    fn interval_below_min_rtt_gives_no_sample() {
        let mut r = RateSampler::default();
        send(&mut r, 0, 2, 0, 1);
        assert_eq!(ack(&mut r, 10, [0, 1], 2 * MSS), None, "10 ms interval < 50 ms min RTT");
        assert_eq!(r.delivered(), 2 * MSS, "the count moves even without a sample");
    }

    #[test]
    fn sacked_segment_counts_once_and_cumulative_ack_does_not_recount() {
        let mut r = RateSampler::default();
        send(&mut r, 0, 3, 0, 1);
        let s = ack(&mut r, 100, [2], 0).expect("SACK of 2 samples");
        assert_eq!((s.newly_delivered_bytes, r.delivered()), (MSS, MSS));
        let s = ack(&mut r, 101, [0, 1, 2], 3 * MSS).expect("cumulative ACK samples");
        assert_eq!(s.newly_delivered_bytes, 2 * MSS, "segment 2 was counted at its SACK");
        assert_eq!(r.delivered(), 3 * MSS);
        assert!(r.tx.is_empty(), "records below snd_una are dropped");
    }

    #[test]
    fn app_limited_mark_lasts_until_its_flight_is_delivered() {
        let mut r = RateSampler::default();
        send(&mut r, 0, 2, 0, 1);
        r.mark_app_limited(2 * MSS);
        send(&mut r, 2, 3, 2, 1);
        assert!(r.is_app_limited());
        let s = ack(&mut r, 100, [0, 1], 2 * MSS).expect("sample");
        assert!(!s.is_app_limited, "segments 0 and 1 were sent before the mark");
        assert!(r.is_app_limited(), "2000 delivered, the mark holds until more than 2000");
        let s = ack(&mut r, 102, [2], 3 * MSS).expect("sample");
        assert!(s.is_app_limited, "segment 2 went out while application-limited");
        assert!(!r.is_app_limited(), "the flight sent while limited is delivered");
    }

    #[test]
    fn retransmission_restamps_its_record() {
        let mut r = RateSampler::default();
        send(&mut r, 0, 3, 0, 1);
        r.on_sent(ms(200), 0, MSS, false, false);
        let s = ack(&mut r, 300, [0, 1, 2], 3 * MSS).expect("sample");
        assert!(s.is_retrans, "the latest sent of the three is the retransmission of 0");
        assert_eq!(s.send_elapsed_ns, ms(200));
    }
}

//! Proportional Rate Reduction, RFC 6937: how much SACK recovery may send per ACK. While
//! pipe is above ssthresh, transmissions follow the delivery rate scaled by
//! ssthresh / RecoverFS; once pipe falls below ssthresh, a reduction bound lets it grow back:
//! PRR-CRB (conservative, no more than delivered) or PRR-SSRB (slow start, one SMSS more per
//! ACK). The result replaces RFC 6675's "send while cwnd - pipe >= 1 SMSS" with
//! cwnd = pipe + sndcnt on every ACK.

/// RFC 6937 §3: the reduction bound used once pipe <= ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionBound {
    /// PRR-CRB: limit = prr_delivered - prr_out.
    Conservative,
    /// PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS.
    SlowStart,
    /// Linux `tcp_cwnd_reduction` (net/ipv4/tcp_input.c, since 5.12): limit =
    /// MAX(prr_delivered - prr_out, DeliveredData), + MSS only on a "safe" ACK, one that
    /// advances snd.una and marks nothing newly lost (`FLAG_SND_UNA_ADVANCED && !newly_lost`).
    Linux,
}

/// The PRR state of one recovery episode (RFC 6937 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    bound: ReductionBound,
    /// SMSS, bytes.
    mss: u64,
    /// RecoverFS = snd.nxt - snd.una at the start of recovery, bytes.
    recover_fs: u64,
    /// Bytes delivered to the receiver since recovery began.
    prr_delivered: u64,
    /// Bytes sent (new or retransmitted) since recovery began.
    prr_out: u64,
    /// The fast retransmit's bytes, sent on entry before the entry ACK's sndcnt is computed
    /// (`on_fast_retransmit`), until that computation (`on_ack`) takes them in.
    entry_out: u64,
}

impl Prr {
    /// RFC 6937 §3, initialization on entering recovery: prr_delivered = prr_out = 0,
    /// RecoverFS = snd.nxt - snd.una.
    pub fn start(bound: ReductionBound, mss_bytes: u32, recover_fs: u64) -> Self {
        Prr { bound, mss: mss_bytes as u64, recover_fs: recover_fs.max(1), prr_delivered: 0, prr_out: 0, entry_out: 0 }
    }

    /// The fast retransmit on entering recovery (RFC 6675 (4.3)): prr_out += its bytes, as
    /// `on_sent`. With the `Linux` bound it is also remembered: Linux sends it as part of the
    /// entry ACK's sndcnt (`on_ack`).
    pub fn on_fast_retransmit(&mut self, bytes: u64) {
        self.prr_out += bytes;
        self.entry_out = bytes;
    }

    /// An ACK in recovery that delivered nothing: no sndcnt (Linux `tcp_cwnd_reduction`
    /// returns at once), and the fast retransmit counts as sent before the next one.
    pub fn on_ack_without_delivery(&mut self) {
        self.entry_out = 0;
    }

    /// RFC 6937 §3, "on any data transmission or retransmission": prr_out += (data sent).
    pub fn on_sent(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }

    /// RFC 6937 §3, "on every ACK during recovery": counts `delivered_data`
    /// (DeliveredData = change_in(snd.una) + change_in(SACKd)) and returns sndcnt, the bytes
    /// this ACK allows the sender to transmit. `safe_ack`: the ACK advanced snd.una and
    /// marked nothing newly lost (read by the `Linux` bound only).
    ///
    /// With the `Linux` bound the entry ACK's sndcnt includes the fast retransmit already
    /// sent: `tcp_cwnd_reduction` runs before `tcp_xmit_retransmit_queue` sends it, with
    /// prr_out = 0 and the retransmission not yet in flight, and ends with
    /// `sndcnt = max(sndcnt, prr_out ? 0 : 1)`; here sndcnt is computed from the pipe and
    /// prr_out before the fast retransmit, at least one segment while nothing had been sent,
    /// and the fast retransmit is taken off it.
    pub fn on_ack(&mut self, delivered_data: u64, pipe: u64, ssthresh: u64, safe_ack: bool) -> u64 {
        self.prr_delivered += delivered_data;
        if self.bound != ReductionBound::Linux {
            return self.sndcnt(delivered_data, pipe, ssthresh, safe_ack);
        }
        let early = std::mem::take(&mut self.entry_out);
        self.prr_out -= early;
        let mut sndcnt = self.sndcnt(delivered_data, pipe.saturating_sub(early), ssthresh, safe_ack);
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(self.mss);
        }
        self.prr_out += early;
        sndcnt.saturating_sub(early)
    }

    /// RFC 6937 §3's sndcnt from the current prr_delivered and prr_out.
    fn sndcnt(&self, delivered_data: u64, pipe: u64, ssthresh: u64, safe_ack: bool) -> u64 {
        if pipe > ssthresh {
            // Proportional Rate Reduction:
            // sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            // Rounded up to whole segments: Linux `tcp_cwnd_reduction` computes it in packets
            // (DIV_ROUND_UP), and a sender of full-sized segments could not use a fraction.
            let allowed = (self.prr_delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128);
            (allowed as u64).saturating_sub(self.prr_out).div_ceil(self.mss) * self.mss
        } else {
            let owed = self.prr_delivered.saturating_sub(self.prr_out);
            let limit = match self.bound {
                ReductionBound::Conservative => owed,
                ReductionBound::SlowStart => owed.max(delivered_data) + self.mss,
                ReductionBound::Linux => owed.max(delivered_data) + if safe_ack { self.mss } else { 0 },
            };
            // Attempt to catch up, as permitted by limit: sndcnt = MIN(ssthresh - pipe, limit).
            (ssthresh - pipe).min(limit)
        }
    }

    pub fn prr_delivered(&self) -> u64 {
        self.prr_delivered
    }

    pub fn prr_out(&self) -> u64 {
        self.prr_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 §5's example: a 20-segment window, ssthresh = 10 segments (Reno's halving),
    /// RecoverFS = 20 segments; the fast retransmit has been sent (prr_out = 1 segment).
    fn twenty_segment_window(bound: ReductionBound) -> Prr {
        let mut p = Prr::start(bound, MSS as u32, 20 * MSS);
        p.on_sent(MSS);
        p
    }

    #[test]
    fn prr_one_loss_sends_one_segment_per_two_delivered_while_pipe_exceeds_ssthresh() {
        // One loss: every ACK delivers one segment and takes one out of pipe (19 after the
        // fast retransmit); sndcnt = CEIL(prr_delivered * 10 / 20) - prr_out.
        let mut p = twenty_segment_window(ReductionBound::SlowStart);
        let mut pipe = 19 * MSS;
        let mut sent = Vec::new();
        for _ in 0..18 {
            pipe -= MSS;
            let sndcnt = p.on_ack(MSS, pipe, 10 * MSS, true);
            let segs = sndcnt / MSS;
            p.on_sent(segs * MSS);
            pipe += segs * MSS;
            sent.push(segs);
        }
        // prr_delivered = 1: CEIL(0.5) - 1 = 0; 2: 1 - 1 = 0; 3: CEIL(1.5) - 1 = 1; then one
        // every other ACK, half the delivery rate (ssthresh / RecoverFS), while pipe falls by
        // one segment per two ACKs. At the 15th ACK pipe = ssthresh: sndcnt = MIN(0, limit);
        // from then on the bound sends one per ACK delivered, holding pipe at ssthresh.
        assert_eq!(sent, [0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1]);
        assert_eq!(p.prr_out(), 10 * MSS);
        assert_eq!(pipe, 10 * MSS, "pipe reaches ssthresh");
    }

    #[test]
    fn prr_sndcnt_is_proportional_when_pipe_above_ssthresh() {
        let mut p = twenty_segment_window(ReductionBound::Conservative);
        // prr_delivered = 8 segments at once: CEIL(8 * 10 / 20) - 1 = 3 segments.
        assert_eq!(p.on_ack(8 * MSS, 12 * MSS, 10 * MSS, true), 3 * MSS);
    }

    /// Several losses: pipe has fallen to 6 segments, below ssthresh = 10, with
    /// prr_delivered - prr_out = 2 segments owed, when an ACK delivers 1 segment.
    fn below_ssthresh(bound: ReductionBound) -> u64 {
        below_ssthresh_on(bound, true)
    }

    /// The same, on an ACK that is `safe` (advanced snd.una, marked nothing newly lost) or not.
    fn below_ssthresh_on(bound: ReductionBound, safe: bool) -> u64 {
        let mut p = twenty_segment_window(bound);
        p.on_ack(2 * MSS, 15 * MSS, 10 * MSS, true);
        p.on_sent(0);
        // prr_delivered = 3 after this ACK, prr_out = 1: owed = 2 segments.
        p.on_ack(MSS, 6 * MSS, 10 * MSS, safe)
    }

    #[test]
    fn prr_crb_below_ssthresh_sends_no_more_than_delivered() {
        // limit = prr_delivered - prr_out = 2; sndcnt = MIN(10 - 6, 2) = 2 segments.
        assert_eq!(below_ssthresh(ReductionBound::Conservative), 2 * MSS);
    }

    #[test]
    fn prr_ssrb_below_ssthresh_sends_one_more_segment_than_crb() {
        // limit = MAX(2, 1) + 1 = 3; sndcnt = MIN(10 - 6, 3) = 3 segments.
        assert_eq!(below_ssthresh(ReductionBound::SlowStart), 3 * MSS);
    }

    #[test]
    fn prr_linux_below_ssthresh_adds_a_segment_only_on_a_safe_ack() {
        // tcp_cwnd_reduction: MAX(2, 1) = 2, + 1 when snd.una advanced and nothing was newly
        // marked lost: 3 segments, as SSRB; on any other ACK 2, where SSRB still sends 3.
        assert_eq!(below_ssthresh_on(ReductionBound::Linux, true), 3 * MSS);
        assert_eq!(below_ssthresh_on(ReductionBound::Linux, false), 2 * MSS);
        assert_eq!(below_ssthresh_on(ReductionBound::SlowStart, false), 3 * MSS);
    }

    #[test]
    fn prr_linux_below_ssthresh_sends_what_the_ack_delivered_when_nothing_is_owed() {
        // Linux takes MAX(prr_delivered - prr_out, DeliveredData), where CRB takes the
        // first alone: after sending ahead (prr_out 6 > prr_delivered 4), an unsafe ACK
        // delivering 2 segments still releases 2.
        let mut p = twenty_segment_window(ReductionBound::Linux);
        p.on_sent(5 * MSS);
        p.on_ack(2 * MSS, 15 * MSS, 10 * MSS, true);
        assert_eq!(p.on_ack(2 * MSS, 6 * MSS, 10 * MSS, false), 2 * MSS);
        let mut crb = twenty_segment_window(ReductionBound::Conservative);
        crb.on_sent(5 * MSS);
        crb.on_ack(2 * MSS, 15 * MSS, 10 * MSS, true);
        assert_eq!(crb.on_ack(2 * MSS, 6 * MSS, 10 * MSS, false), 0);
    }

    /// The ACK that starts recovery after a whole flight was lost: pipe 0 before the fast
    /// retransmit (1 segment after it), ssthresh 2 segments, the ACK SACKed 1 segment (a
    /// loss probe) and marked the flight lost (not a safe ACK).
    fn entry_after_a_lost_flight(bound: ReductionBound) -> u64 {
        let mut p = Prr::start(bound, MSS as u32, 3 * MSS);
        p.on_fast_retransmit(MSS);
        p.on_ack(MSS, MSS, 2 * MSS, false)
    }

    #[test]
    fn prr_linux_counts_the_fast_retransmit_in_the_entry_acks_sndcnt() {
        // tcp_cwnd_reduction before the retransmission: MIN(2 - 0, MAX(1 - 0, 1)) = 1
        // segment, the fast retransmit itself: nothing more. RFC 6937 with the fast
        // retransmit in prr_out first: MIN(2 - 1, MAX(1 - 1, 1) + ...) = 1 more (SSRB 1).
        assert_eq!(entry_after_a_lost_flight(ReductionBound::Linux), 0);
        assert_eq!(entry_after_a_lost_flight(ReductionBound::SlowStart), MSS);
        assert_eq!(entry_after_a_lost_flight(ReductionBound::Conservative), 0);
    }

    #[test]
    fn prr_linux_entry_ack_delivering_more_sends_the_rest_of_its_sndcnt() {
        // The entry ACK SACKs 2 segments, pipe 0 before the fast retransmit, ssthresh 3:
        // sndcnt = MIN(3, MAX(2, 2)) = 2, one of them the fast retransmit; later ACKs as before.
        let mut p = Prr::start(ReductionBound::Linux, MSS as u32, 4 * MSS);
        p.on_fast_retransmit(MSS);
        assert_eq!(p.on_ack(2 * MSS, MSS, 3 * MSS, false), MSS);
        p.on_sent(MSS);
        assert_eq!(p.prr_out(), 2 * MSS);
        // prr_delivered 3, prr_out 2, pipe 2 after a SACK: MIN(3 - 2, MAX(1, 1)) = 1.
        assert_eq!(p.on_ack(MSS, 2 * MSS, 3 * MSS, false), MSS);
    }

    #[test]
    fn prr_linux_entry_ack_above_ssthresh_is_proportional_with_the_fast_retransmit_in_it() {
        // pipe 12 before the fast retransmit > ssthresh 10, RecoverFS 20, 8 delivered:
        // Linux CEIL(8 * 10 / 20) = 4 with prr_out 0, the fast retransmit one of them: 3,
        // as RFC 6937 with it in prr_out (CEIL(4) - 1).
        let mut p = Prr::start(ReductionBound::Linux, MSS as u32, 20 * MSS);
        p.on_fast_retransmit(MSS);
        assert_eq!(p.on_ack(8 * MSS, 13 * MSS, 10 * MSS, false), 3 * MSS);
    }

    #[test]
    fn prr_below_ssthresh_never_exceeds_ssthresh_minus_pipe() {
        let mut p = twenty_segment_window(ReductionBound::SlowStart);
        // limit = MAX(9 - 1, 9) + 1 = 10 segments, but ssthresh - pipe = 1.
        assert_eq!(p.on_ack(9 * MSS, 9 * MSS, 10 * MSS, true), MSS);
    }
}

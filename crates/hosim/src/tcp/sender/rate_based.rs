//! The sender's side of rate-based congestion control: delivery-rate samples (`tcp/rate.rs`)
//! fed from transmissions and ACKs, the application-limited mark, and pacing.
//!
//! All of it exists only for a controller that asks for it (`Controller::wants_rate_samples`):
//! a window-based controller costs one branch per transmission and per ACK.
//!
//! Pacing follows Linux's internal pacing (`tcp_update_skb_after_send`,
//! net/ipv4/tcp_output.c, the `tcp_wstamp_ns` departure clock) and ns-3's pacing timer
//! (`TcpSocketBase::m_pacingTimer`): after a segment of L bytes leaves, the next may leave
//! L / rate later (`next_send = max(next_send, now) + L / rate`), L counting the IP and TCP
//! headers (`tcp.header_bytes`). A segment the window allows but the pacing clock holds back
//! waits for the sender's timer (`timer_deadline`), which sends it when due.

use super::TcpSender;
use crate::engine::time::SimTime;
use crate::tcp::cc::Controller;
use crate::tcp::rate::RateSampler;
use crate::tcp::recovery::LossRecovery;

/// Rate samples and the pacing clock.
#[derive(Clone, Debug, Default)]
pub(super) struct RateBased {
    pub(super) sampler: RateSampler,
    /// When the next segment may leave (Linux `tcp_wstamp_ns`).
    next_send_ns: SimTime,
    /// A segment is waiting for `next_send_ns`.
    held: bool,
}

impl RateBased {
    /// Whether a segment may leave at `now` under pacing at `rate_bps` (None: not paced).
    /// When it may not, the sender's timer is armed for `next_send_ns`.
    #[inline]
    pub(super) fn pacing_allows(&mut self, now: SimTime, rate_bps: Option<u64>) -> bool {
        if rate_bps.is_none() || now >= self.next_send_ns {
            return true;
        }
        self.held = true;
        false
    }

    /// The pacing timer's deadline, while a segment waits.
    pub(super) fn pacing_deadline(&self) -> Option<SimTime> {
        self.held.then_some(self.next_send_ns)
    }
}

impl TcpSender {
    /// The sending rate the controller asks for, in bit/s, if it paces.
    pub fn pacing_rate_bps(&self) -> Option<u64> {
        self.rate.as_ref().and(self.cc.pacing_rate_bps())
    }

    /// Bytes delivered so far by the delivery-rate count, with a rate-based controller.
    pub fn delivered_bytes(&self) -> Option<u64> {
        self.rate.as_ref().map(|r| r.sampler.delivered())
    }

    /// Linux `tcp_rate_skb_sent` and the pacing clock, for a segment `[start, end)` that just
    /// left (`new`: new data; `flight_empty`: nothing was outstanding before it). Out of line:
    /// only rate-based controllers come here.
    #[inline(never)]
    pub(super) fn rate_on_sent(&mut self, now: SimTime, start: u64, end: u64, new: bool, flight_empty: bool) {
        let Some(r) = self.rate.as_deref_mut() else { return };
        r.sampler.on_sent(now, start, end, new, flight_empty);
        if let Some(rate) = self.cc.pacing_rate_bps().filter(|&b| b > 0) {
            let bytes = end - start + self.cfg.header_bytes as u64;
            let gap_ns = (bytes as u128 * 8 * 1_000_000_000).div_ceil(rate as u128) as SimTime;
            r.next_send_ns = r.next_send_ns.max(now) + gap_ns;
        }
        let in_flight = self.snd_max - self.snd_una;
        self.cc.on_sent(now, end - start, in_flight);
    }

    /// The pacing timer: a held segment may leave now. Returns whether it fired.
    pub(super) fn on_pacing_timer(&mut self, now: SimTime, out: &mut Vec<super::Segment>) -> bool {
        let Some(r) = self.rate.as_deref_mut() else { return false };
        if !r.held || now < r.next_send_ns {
            return false;
        }
        r.held = false;
        self.send_allowed(now, out);
        true
    }

    /// After an ACK was processed: Linux `tcp_rate_gen`, and the sample to the controller.
    #[inline(never)]
    pub(super) fn rate_on_ack_processed(&mut self, now: SimTime) {
        let in_flight = self.inflight_bytes();
        let Some(r) = self.rate.as_deref_mut() else { return };
        if let Some(sample) = r.sampler.generate(now, self.snd_una, in_flight, self.rto.min_rtt_ns()) {
            self.cc.on_rate_sample(now, &sample, &self.rto);
        }
    }

    /// Linux `tcp_rate_check_app_limited` after a transmission attempt: less than a full
    /// segment of new data left to send, room in cwnd, and nothing being repaired (Linux:
    /// `lost_out` zero; here: not in loss recovery).
    #[inline(never)]
    pub(super) fn rate_check_app_limited(&mut self, now: SimTime) {
        let in_flight = self.inflight_bytes();
        let unsent = self.app_limit.saturating_sub(self.snd_max);
        if unsent >= self.cfg.mss_bytes as u64 || in_flight >= self.cc.cwnd() || self.recovery.in_recovery() {
            return;
        }
        let Some(r) = self.rate.as_deref_mut() else { return };
        r.sampler.mark_app_limited(in_flight);
        self.cc.on_app_limited(now);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::engine::time::SimTime;
    use crate::net::packet::SackBlocks;
    use crate::tcp::cc::{AnyCc, Controller, NewAck};
    use crate::tcp::config::{Recovery, TcpConfig};
    use crate::tcp::fixtures::{config, ms, MSS};
    use crate::tcp::rate::RateSample;
    use crate::tcp::rto::RtoEstimator;
    use crate::tcp::sender::{Segment, TcpSender};

    /// What the test controller was told.
    #[derive(Default)]
    struct Log {
        sent: Vec<(SimTime, u64)>,
        samples: Vec<RateSample>,
        app_limited: u32,
    }

    /// A fixed window and a fixed pacing rate; records its hooks.
    struct Paced {
        cwnd: u64,
        rate_bps: Option<u64>,
        log: Rc<RefCell<Log>>,
    }

    impl Controller for Paced {
        fn cwnd(&self) -> u64 {
            self.cwnd
        }
        fn ssthresh(&self) -> u64 {
            u64::MAX
        }
        fn on_ack(&mut self, _: SimTime, _: &NewAck, _: &RtoEstimator) {}
        fn on_congestion_event(&mut self, _: SimTime, flight_size: u64, _: &RtoEstimator) -> u64 {
            flight_size / 2
        }
        fn on_timeout(&mut self, _: SimTime, _: u64, _: bool, _: u64, _: &RtoEstimator) {}
        fn set_cwnd(&mut self, cwnd: u64) {
            self.cwnd = cwnd;
        }
        fn on_spurious_timeout(&mut self, _: u64, _: u64) {}
        fn set_ssthresh(&mut self, _: u64) {}
        fn wants_rate_samples(&self) -> bool {
            true
        }
        fn on_sent(&mut self, now: SimTime, bytes: u64, _: u64) {
            self.log.borrow_mut().sent.push((now, bytes));
        }
        fn on_app_limited(&mut self, _: SimTime) {
            self.log.borrow_mut().app_limited += 1;
        }
        fn on_rate_sample(&mut self, _: SimTime, sample: &RateSample, _: &RtoEstimator) {
            self.log.borrow_mut().samples.push(*sample);
        }
        fn pacing_rate_bps(&self) -> Option<u64> {
            self.rate_bps
        }
    }

    /// A sender with the test controller (window 20 segments), header 40 bytes, its SYN
    /// answered at 100 ms. Returns the sender, its log and the first burst.
    fn paced(rate_bps: Option<u64>, app_bytes: u64) -> (TcpSender, Rc<RefCell<Log>>, Vec<Segment>) {
        let log = Rc::new(RefCell::new(Log::default()));
        let cfg = TcpConfig { header_bytes: 40, ..config(Recovery::Sack) };
        let mut s = TcpSender::new(cfg, app_bytes);
        s.set_controller(AnyCc::Other(Box::new(Paced { cwnd: 20 * MSS, rate_bps, log: log.clone() })));
        let mut out = Vec::new();
        s.connect(0, &mut out);
        out.clear();
        s.on_syn_ack(ms(100), &mut out);
        (s, log, out)
    }

    /// Runs the sender's timer until it has nothing to do or `until` passes; returns the
    /// segments it sent with their times.
    fn run_timer(s: &mut TcpSender, until: SimTime) -> Vec<(SimTime, Segment)> {
        let mut sent = Vec::new();
        while let Some(d) = s.timer_deadline().filter(|&d| d <= until) {
            let mut out = Vec::new();
            s.on_timer(d, &mut out);
            sent.extend(out.into_iter().map(|seg| (d, seg)));
        }
        sent
    }

    #[test]
    fn paced_sender_spaces_segments_at_the_set_rate() {
        // 1040-byte packets at 8.32 Mb/s: one per ms.
        let (mut s, log, burst) = paced(Some(8_320_000), u64::MAX);
        assert_eq!(burst.len(), 1, "the first segment leaves; the next waits for the pacing clock");
        assert_eq!(s.timer_deadline(), Some(ms(101)), "the pacing timer is armed for 1 ms later");
        let sent = run_timer(&mut s, ms(150));
        let times: Vec<SimTime> = sent.iter().map(|(t, _)| *t).collect();
        let want: Vec<SimTime> = (1..20).map(|k| ms(100 + k)).collect();
        assert_eq!(times, want, "the rest of the window, one segment per ms");
        assert_eq!(log.borrow().sent.len(), 20, "on_sent for every segment");
        assert_eq!(s.timer_deadline(), Some(ms(1100)), "window full: only the retransmission timer");
    }

    #[test]
    fn unpaced_rate_based_sender_sends_the_window_at_once() {
        let (_, log, burst) = paced(None, u64::MAX);
        assert_eq!(burst.len(), 20);
        assert_eq!(log.borrow().sent.len(), 20);
    }

    #[test]
    fn acks_give_the_controller_delivery_rate_samples() {
        // Unpaced window of 20 segments sent at 100 ms; ACKs return 100 ms later, one per ms.
        let (mut s, log, _) = paced(None, u64::MAX);
        for k in 1..=20 {
            let mut out = Vec::new();
            s.on_ack(ms(200 + k), k * MSS, &SackBlocks::default(), false, s.cfg.rwnd_bytes, &mut out);
        }
        let log = log.borrow();
        let last = log.samples.last().expect("samples");
        // All 20 segments went out at 100 ms with nothing delivered: 20000 bytes over the
        // 120 ms from the flight's start to the last ACK.
        assert_eq!((last.delivered_bytes, last.interval_ns), (20 * MSS, ms(120)));
        assert_eq!(last.delivery_rate_bps(), 20 * MSS * 8 * 1000 / 120);
        assert_eq!(s.delivered_bytes(), Some(20 * MSS));
    }

    #[test]
    fn sender_out_of_data_with_room_in_cwnd_is_app_limited() {
        let (mut s, log, burst) = paced(None, 5 * MSS);
        assert_eq!(burst.len(), 5);
        assert!(log.borrow().app_limited > 0, "five segments in a window of twenty");
        // As Linux: the mark covers what is sent after it, not the segments already out.
        let mut out = Vec::new();
        s.on_app_data(ms(150), 2 * MSS, &mut out);
        assert_eq!(out.len(), 2);
        s.on_ack(ms(200), 5 * MSS, &SackBlocks::default(), false, s.cfg.rwnd_bytes, &mut out);
        s.on_ack(ms(250), 7 * MSS, &SackBlocks::default(), false, s.cfg.rwnd_bytes, &mut out);
        let log = log.borrow();
        let flags: Vec<bool> = log.samples.iter().map(|r| r.is_app_limited).collect();
        assert_eq!(flags, [false, true], "only the segments sent after the mark are app-limited");
    }

    #[test]
    fn window_based_controller_keeps_no_rate_state() {
        let s = TcpSender::new(config(Recovery::Sack), u64::MAX);
        assert_eq!((s.delivered_bytes(), s.pacing_rate_bps()), (None, None));
    }
}

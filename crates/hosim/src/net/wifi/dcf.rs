//! The 802.11 distributed coordination function (IEEE Std 802.11-2016, 10.3) on one shared
//! half-duplex medium: every station (the AP and its mobiles) contends for it with a random
//! backoff, so data frames and the TCP ACKs going the other way queue for the same airtime.
//!
//! The model takes `now` and returns what happens; it owns no clock and no packets. A station
//! with a frame waits until the medium has been idle for DIFS (EIFS after a frame it could
//! not receive), then counts down its backoff one idle slot at a time; the station whose
//! count reaches zero first sends its frame, and every other station freezes its count. Two
//! stations whose counts reach zero in the same slot collide: neither frame is received, both
//! double their contention window and retry, up to the retry limit. A frame received intact
//! (not collided, not lost to the frame error rate) is acknowledged SIFS after its end.

use rand::Rng as _;

use super::phy::Timing;
use crate::engine::rng::Rng;
use crate::engine::time::SimTime;

/// Stations per medium: the set of stations in one exchange is a 64-bit mask.
pub const MAX_STATIONS: usize = 64;

/// One station's DCF state.
#[derive(Clone, Debug)]
pub struct Station {
    /// Size of the IP packet at the head of its queue (the frame it contends for), if any.
    pub head_bytes: Option<u32>,
    /// Contention window CW, from aCWmin to aCWmax (10.3.3).
    pub cw: u32,
    /// Idle slots left to count. A count drawn after a transmission runs on without a frame
    /// (post-backoff, 10.3.4.3); at zero a station with a frame sends once it may.
    pub backoff_slots: u32,
    /// When the countdown starts (or resumes): the end of the IFS after the last busy period.
    pub count_from_ns: SimTime,
    /// Failed attempts of the head frame so far.
    pub attempts: u32,
}

/// What the medium counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MediumStats {
    /// Frames received and acknowledged.
    pub successes: u64,
    /// Busy periods in which two or more stations sent at once.
    pub collisions: u64,
    /// Frames lost to the frame error rate.
    pub frame_errors: u64,
    /// Transmission attempts that were retries.
    pub retries: u64,
    /// Frames discarded at the retry limit.
    pub discarded: u64,
    /// Time the medium carried a frame or an ACK, ns.
    pub busy_ns: SimTime,
}

/// One access to the medium and its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// First bit of the frame(s).
    pub start_ns: SimTime,
    /// The stations that sent (bit `i` for station `i`); one on a success.
    pub senders: u64,
    /// The frame was received (one sender, no frame error): it is delivered at `rx_end_ns`.
    pub received: bool,
    /// End of the (longest) data frame: when the receiver has the packet.
    pub rx_end_ns: SimTime,
    /// The medium's busy period ends (the ACK's last bit, or the last colliding frame's).
    pub end_ns: SimTime,
    /// Senders whose frame was given up at the retry limit: their head is gone.
    pub discarded: u64,
}

impl Exchange {
    /// Senders whose head frame left them (received, or discarded).
    pub fn heads_done(&self) -> u64 {
        if self.received {
            self.senders
        } else {
            self.discarded
        }
    }
}

pub struct Medium {
    pub timing: Timing,
    pub stations: Vec<Station>,
    /// Probability that a frame sent alone is not received (no ACK follows).
    pub frame_error_rate: f64,
    /// Transmission attempts of a frame before it is discarded (dot11ShortRetryLimit).
    pub retry_limit: u32,
    /// The medium is busy until then (the end of the last exchange).
    pub busy_until_ns: SimTime,
    pub stats: MediumStats,
    pub rng: Rng,
}

impl Medium {
    pub fn new(timing: Timing, stations: usize, frame_error_rate: f64, retry_limit: u32, rng: Rng) -> Medium {
        assert!((1..=MAX_STATIONS).contains(&stations), "a medium has 1 to {MAX_STATIONS} stations");
        let cw = timing.standard.cw_min();
        let station = Station { head_bytes: None, cw, backoff_slots: 0, count_from_ns: 0, attempts: 0 };
        Medium {
            timing,
            stations: vec![station; stations],
            frame_error_rate,
            retry_limit: retry_limit.max(1),
            busy_until_ns: 0,
            stats: MediumStats::default(),
            rng,
        }
    }

    /// Backoff count drawn uniformly from [0, CW] (10.3.3).
    fn draw(&mut self, s: usize) -> u32 {
        let cw = self.stations[s].cw;
        self.rng.gen_range(0..=cw)
    }

    /// Idle slots station `s` has counted by `t`, at most its remaining count.
    fn slots_counted(&self, s: usize, t: SimTime) -> u32 {
        let st = &self.stations[s];
        if t <= st.count_from_ns {
            return 0;
        }
        let slots = (t - st.count_from_ns) / self.timing.slot_ns;
        slots.min(st.backoff_slots as u64) as u32
    }

    /// Station `s` has a frame at the head of its queue (the packet of `ip_bytes`) at `now`,
    /// which it had not: a frame reaching an idle station, or the next one after its last
    /// exchange. A station whose count has run out sends as soon as the medium has been idle
    /// for DIFS; one that finds the medium busy draws a backoff first (10.3.4.2).
    pub fn frame_ready(&mut self, s: usize, ip_bytes: u32, now: SimTime) {
        debug_assert!(self.stations[s].head_bytes.is_none(), "one head frame per station");
        self.stations[s].head_bytes = Some(ip_bytes);
        let left = self.stations[s].backoff_slots - self.slots_counted(s, now);
        if left > 0 {
            return; // the running count goes on
        }
        if now < self.busy_until_ns {
            let b = self.draw(s);
            let st = &mut self.stations[s];
            st.backoff_slots = b;
            st.count_from_ns = self.busy_until_ns + self.timing.difs_ns;
        } else {
            let st = &mut self.stations[s];
            st.backoff_slots = 0;
            st.count_from_ns = st.count_from_ns.max(now);
        }
    }

    /// When the next frame goes on the air if no frame arrives meanwhile: the earliest end of
    /// a count among the stations with a frame. None if none has one.
    pub fn next_access(&self) -> Option<SimTime> {
        (0..self.stations.len()).filter(|&s| self.stations[s].head_bytes.is_some()).map(|s| self.access_at(s)).min()
    }

    fn access_at(&self, s: usize) -> SimTime {
        let st = &self.stations[s];
        st.count_from_ns + st.backoff_slots as u64 * self.timing.slot_ns
    }

    /// The frames whose counts end at `at` (= `next_access()`) go on the air: one is a
    /// transmission, several a collision. Returns the exchange; the medium is busy until its
    /// `end_ns`, and each sender whose head is done (`Exchange::heads_done`) has none until
    /// `frame_ready` gives it the next.
    pub fn access(&mut self, at: SimTime) -> Exchange {
        debug_assert_eq!(Some(at), self.next_access());
        let n = self.stations.len();
        let mut senders = 0u64;
        let mut longest = 0;
        for s in 0..n {
            if let Some(bytes) = self.stations[s].head_bytes {
                if self.access_at(s) == at {
                    senders |= 1 << s;
                    longest = longest.max(self.timing.data_ns(bytes));
                }
            }
        }
        // Every other station freezes its count at the slots it counted (10.3.4.3).
        for s in 0..n {
            if senders & (1 << s) == 0 {
                let counted = self.slots_counted(s, at);
                self.stations[s].backoff_slots -= counted;
            }
        }
        let rx_end_ns = at + longest;
        let alone = senders.count_ones() == 1;
        let received = alone && !(self.frame_error_rate > 0.0 && self.rng.gen::<f64>() < self.frame_error_rate);
        let mut ex = Exchange { start_ns: at, senders, received, rx_end_ns, end_ns: rx_end_ns, discarded: 0 };
        if received {
            ex.end_ns = rx_end_ns + self.timing.sifs_ns + self.timing.ack_ns;
            self.stats.successes += 1;
            self.stats.busy_ns += longest + self.timing.ack_ns;
        } else {
            if alone {
                self.stats.frame_errors += 1;
            } else {
                self.stats.collisions += 1;
            }
            self.stats.busy_ns += longest;
        }
        self.busy_until_ns = ex.end_ns;
        self.after_exchange(&mut ex);
        ex
    }

    /// Counts after a busy period: senders of a received frame reset CW and draw a new
    /// backoff; senders of a lost frame wait for the ACK timeout, double CW and draw (or give
    /// the frame up at the retry limit); the others resume after DIFS, or after EIFS when
    /// they heard a frame they could not receive (10.3.2.3.7).
    fn after_exchange(&mut self, ex: &mut Exchange) {
        let t = self.timing;
        let (cw_min, cw_max) = (t.standard.cw_min(), t.standard.cw_max());
        for s in 0..self.stations.len() {
            if ex.senders & (1 << s) == 0 {
                let ifs = if ex.received { t.difs_ns } else { t.eifs_ns };
                self.stations[s].count_from_ns = ex.end_ns + ifs;
                continue;
            }
            let st = &mut self.stations[s];
            if ex.received {
                st.head_bytes = None;
                st.attempts = 0;
                st.cw = cw_min;
                st.count_from_ns = ex.end_ns + t.difs_ns;
            } else {
                let own_end = ex.start_ns + t.data_ns(st.head_bytes.expect("a sender has a frame"));
                st.attempts += 1;
                st.count_from_ns = (own_end + t.ack_timeout_ns).max(ex.end_ns) + t.difs_ns;
                if st.attempts >= self.retry_limit {
                    st.head_bytes = None;
                    st.attempts = 0;
                    st.cw = cw_min;
                    ex.discarded |= 1 << s;
                    self.stats.discarded += 1;
                } else {
                    st.cw = (2 * (st.cw + 1) - 1).min(cw_max);
                    self.stats.retries += 1;
                }
            }
            let b = self.draw(s);
            self.stations[s].backoff_slots = b;
        }
        // The colliders' ACK timeouts may end after the busy period: nobody sends before.
        ex.end_ns = ex.end_ns.max(self.busy_until_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::super::phy::Standard;
    use super::*;
    use crate::engine::rng::{stream_rng, StreamKind};

    const G54: fn() -> Timing =
        || Timing::new(Standard::G { short_slot: true }, 54_000_000, &[6_000_000, 12_000_000, 24_000_000]);

    fn medium(timing: Timing, stations: usize, fer: f64) -> Medium {
        Medium::new(timing, stations, fer, 7, stream_rng(1, StreamKind::Link, 0))
    }

    /// Runs every station saturated (a frame of `bytes` always waiting) for `span_ns`;
    /// returns the frames each delivered.
    fn saturate(m: &mut Medium, bytes: u32, span_ns: SimTime) -> Vec<u64> {
        let mut got = vec![0; m.stations.len()];
        for s in 0..m.stations.len() {
            m.frame_ready(s, bytes, 0);
        }
        while let Some(at) = m.next_access() {
            if at > span_ns {
                break;
            }
            let ex = m.access(at);
            for (s, got) in got.iter_mut().enumerate() {
                if ex.heads_done() & (1 << s) != 0 {
                    *got += ex.received as u64;
                    m.frame_ready(s, bytes, ex.end_ns);
                }
            }
        }
        got
    }

    #[test]
    fn one_saturated_station_gets_the_exchange_rate_of_the_standard() {
        // Per frame: DIFS + mean backoff CWmin/2 slots + data + SIFS + ACK
        // = 28 + 7.5 × 9 + 254 + 10 + 34 = 393.5 µs at 54 Mb/s, 12 000 bits of IP packet.
        let mut m = medium(G54(), 1, 0.0);
        let span = 2_000_000_000;
        let got = saturate(&mut m, 1500, span);
        let bps = got[0] as f64 * 12_000.0 / 2.0;
        let expected = 12_000.0 / 393.5e-6;
        assert!((bps / expected - 1.0).abs() < 0.01, "{bps} vs {expected}");
        assert_eq!(m.stats.collisions, 0);
    }

    #[test]
    fn two_saturated_stations_share_the_medium_and_collide() {
        let span = 2_000_000_000;
        let one = saturate(&mut medium(G54(), 1, 0.0), 1500, span)[0];
        let mut m = medium(G54(), 2, 0.0);
        let got = saturate(&mut m, 1500, span);
        let share = got[0] as f64 / (got[0] + got[1]) as f64;
        assert!((share - 0.5).abs() < 0.02, "fair shares: {got:?}");
        // Two stations count down in parallel (less idle backoff per frame) but lose
        // airtime to collisions: the total stays near one station's.
        let total = (got[0] + got[1]) as f64 / one as f64;
        assert!((0.95..1.15).contains(&total), "two stations deliver {total} × one's");
        // Both draw from [0, 15] after each collision-free exchange: a collision about once
        // in 16 accesses (Bianchi's model gives p ≈ 0.06 for n = 2, CW 15).
        let p = m.stats.collisions as f64 / (m.stats.collisions + m.stats.successes) as f64;
        assert!((0.03..0.09).contains(&p), "collision share {p}");
        assert_eq!(m.stats.retries, 2 * m.stats.collisions, "each collision is a retry for both");
    }

    #[test]
    fn lost_frames_are_retried_then_discarded_at_the_retry_limit() {
        let mut m = medium(G54(), 1, 1.0);
        m.frame_ready(0, 1500, 0);
        let mut exchanges = 0;
        let mut cws = Vec::new();
        loop {
            let at = m.next_access().expect("the frame waits");
            let ex = m.access(at);
            exchanges += 1;
            cws.push(m.stations[0].cw);
            if ex.discarded != 0 {
                break;
            }
        }
        assert_eq!(exchanges, 7, "dot11ShortRetryLimit attempts");
        assert_eq!(cws, [31, 63, 127, 255, 511, 1023, 15], "CW doubles, then resets");
        assert_eq!((m.stats.frame_errors, m.stats.discarded, m.stats.successes), (7, 1, 0));
        assert_eq!(m.next_access(), None);
    }

    #[test]
    fn a_frame_reaching_an_idle_medium_goes_at_once_and_one_finding_it_busy_backs_off() {
        let t = G54();
        let mut m = medium(t, 2, 0.0);
        m.frame_ready(0, 1500, 1_000_000);
        assert_eq!(m.next_access(), Some(1_000_000), "idle for DIFS already: no backoff");
        let ex = m.access(1_000_000);
        assert_eq!(ex.end_ns, 1_000_000 + t.exchange_ns(1500));
        m.frame_ready(1, 1500, 1_100_000);
        let at = m.next_access().unwrap();
        assert!(at >= ex.end_ns + t.difs_ns, "deferred to DIFS after the busy period");
        assert_eq!((at - ex.end_ns - t.difs_ns) % t.slot_ns, 0, "on the slot grid");
    }
}

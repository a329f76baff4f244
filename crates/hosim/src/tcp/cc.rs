//! Congestion control: window growth and the responses to congestion, behind one trait.
//! Loss *detection and recovery* live in the sender; this part only owns cwnd and ssthresh.

/// Hooks named after events; the sender calls them and reads `cwnd()` / `ssthresh()`.
pub trait CongestionControl {
    fn cwnd(&self) -> u64;
    fn ssthresh(&self) -> u64;
    /// New data was cumulatively acknowledged outside loss recovery.
    fn on_ack(&mut self, acked_bytes: u64, mss: u32);
    /// A loss (or ECN echo) was detected: RFC 5681 eq. (4), ssthresh = max(FlightSize/2, 2*SMSS).
    /// Returns the new ssthresh; the caller then sets cwnd as its recovery algorithm says.
    fn on_congestion_event(&mut self, flight_size: u64, mss: u32) -> u64;
    /// The retransmission timer expired. `first` is false for a repeated timeout of the same
    /// segment, for which RFC 5681 §3.1 holds ssthresh constant.
    fn on_timeout(&mut self, flight_size: u64, mss: u32, first: bool);
    /// Direct write of cwnd by the recovery algorithm (inflation, deflation, exit).
    fn set_cwnd(&mut self, cwnd: u64);
}

/// Standard AIMD of RFC 5681: slow start and congestion avoidance.
#[derive(Clone, Debug)]
pub struct Aimd {
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since cwnd last grew by one SMSS in congestion avoidance.
    ca_acked: u64,
}

impl Aimd {
    pub fn new(initial_window_bytes: u64, initial_ssthresh: u64) -> Self {
        Aimd { cwnd: initial_window_bytes, ssthresh: initial_ssthresh, ca_acked: 0 }
    }
}

impl CongestionControl for Aimd {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn on_ack(&mut self, acked_bytes: u64, mss: u32) {
        let mss = mss as u64;
        if self.cwnd < self.ssthresh {
            // RFC 5681 §3.1 eq. (2): cwnd += min(N, SMSS) per ACK in slow start.
            self.cwnd += acked_bytes.min(mss);
        } else {
            // RFC 5681 §3.1, congestion avoidance by byte counting: cwnd grows by one SMSS
            // once a full cwnd of bytes has been acknowledged (the RFC's preferred form).
            self.ca_acked += acked_bytes;
            if self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += mss;
            }
        }
    }

    fn on_congestion_event(&mut self, flight_size: u64, mss: u32) -> u64 {
        self.ssthresh = (flight_size / 2).max(2 * mss as u64);
        self.ca_acked = 0;
        self.ssthresh
    }

    fn on_timeout(&mut self, flight_size: u64, mss: u32, first: bool) {
        if first {
            self.ssthresh = (flight_size / 2).max(2 * mss as u64);
        }
        // RFC 5681 §3.1: cwnd is set to the loss window, one full-sized segment.
        self.cwnd = mss as u64;
        self.ca_acked = 0;
    }

    fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_grows_one_mss_per_ack_up_to_ssthresh() {
        let mut cc = Aimd::new(3000, 6000);
        cc.on_ack(2000, 1000);
        assert_eq!(cc.cwnd(), 4000, "min(N, SMSS) with N = 2000");
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut cc = Aimd::new(10_000, 5000);
        for _ in 0..9 {
            cc.on_ack(1000, 1000);
        }
        assert_eq!(cc.cwnd(), 10_000);
        cc.on_ack(1000, 1000);
        assert_eq!(cc.cwnd(), 11_000);
    }

    #[test]
    fn congestion_event_halves_flight_with_two_mss_floor() {
        let mut cc = Aimd::new(20_000, u64::MAX);
        assert_eq!(cc.on_congestion_event(20_000, 1000), 10_000);
        assert_eq!(cc.on_congestion_event(3000, 1000), 2000);
    }

    #[test]
    fn repeated_timeout_holds_ssthresh() {
        let mut cc = Aimd::new(20_000, u64::MAX);
        cc.on_timeout(20_000, 1000, true);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 10_000));
        cc.on_timeout(1000, 1000, false);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 10_000));
    }
}

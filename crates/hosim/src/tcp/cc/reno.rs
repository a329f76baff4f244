//! Reno/NewReno window growth: the AIMD of RFC 5681, slow start and congestion avoidance.
//! The same controller serves the Reno, NewReno and SACK loss recoveries.
//!
//! Its `[tcp.reno]` table has no keys: RFC 5681 fixes its constants (the halving of §3.1
//! eq. (4)), and where stacks grow the window differently the choice is the dialect key
//! `tcp.ca_growth`, which the `ns2` and `ns3` profiles set.

use serde::{Deserialize, Serialize};

use super::table::{KeyError, Table};
use super::{AnyCc, Controller, NewAck, SlowStartExit, SlowStartExits};
use crate::engine::time::SimTime;
use crate::tcp::config::{CaGrowth, SlowStartGrowth, TcpConfig};
use crate::tcp::rto::RtoEstimator;

/// `[tcp.reno]`: no keys (an unknown key is refused like anywhere else).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenoSettings {}

/// `tcp.cc = "reno"` and its `[tcp.reno]` table.
pub const ALGORITHM: Table<RenoSettings> = Table { name: "reno", validate, controller };

fn validate(_: &RenoSettings) -> Result<(), KeyError> {
    Ok(())
}

fn controller(cfg: &TcpConfig, _: &RenoSettings) -> AnyCc {
    let iw = cfg.initial_window_segments as u64 * cfg.mss_bytes as u64;
    // Reno has no Linux HyStart (tcp_cubic.c's); HyStart++ (RFC 9406) if `tcp.hystart`.
    let exit = SlowStartExit::new(cfg.hystart, false, cfg.initial_ssthresh_bytes, cfg.mss_bytes);
    AnyCc::Reno(
        Reno::new(cfg.mss_bytes, iw, cfg.initial_ssthresh_bytes, cfg.ca_growth)
            .with_slow_start(cfg.slow_start_growth)
            .with_slow_start_exit(exit)
            .with_whole_segments(cfg.whole_segment_windows),
    )
}

#[derive(Clone, Debug)]
pub struct Reno {
    /// SMSS, bytes.
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    growth: CaGrowth,
    slow_start: SlowStartGrowth,
    /// Bytes acknowledged since cwnd last grew by one SMSS in congestion avoidance; with
    /// `PerAckExact`, the remainder of SMSS*SMSS/cwnd carried to the next ACK (in 1/cwnd
    /// bytes).
    ca_acked: u64,
    /// HyStart++ (`slow_start.rs`).
    exit: SlowStartExit,
    /// `tcp.whole_segment_windows`: a reduction's ssthresh in whole segments, rounded down
    /// (Linux `tcp_reno_ssthresh`: max(snd_cwnd >> 1, 2)).
    whole_segments: bool,
}

impl Reno {
    pub fn new(mss_bytes: u32, initial_window_bytes: u64, initial_ssthresh: u64, growth: CaGrowth) -> Self {
        Reno {
            mss: mss_bytes as u64,
            cwnd: initial_window_bytes,
            ssthresh: initial_ssthresh,
            growth,
            slow_start: SlowStartGrowth::Smss,
            ca_acked: 0,
            exit: SlowStartExit::default(),
            whole_segments: false,
        }
    }

    /// ssthresh in whole segments (`tcp.whole_segment_windows`).
    pub fn with_whole_segments(mut self, on: bool) -> Self {
        self.whole_segments = on;
        self
    }

    /// RFC 5681 §3.2 eq. (4): max(FlightSize / 2, 2*SMSS); in whole segments, rounded down,
    /// with `whole_segments`.
    fn half(&self, flight_size: u64) -> u64 {
        if self.whole_segments {
            (flight_size / self.mss / 2).max(2) * self.mss
        } else {
            (flight_size / 2).max(2 * self.mss)
        }
    }

    /// The slow-start exits it runs (`tcp.hystart`).
    pub fn with_slow_start_exit(mut self, exit: SlowStartExit) -> Self {
        self.exit = exit;
        self
    }

    /// The slow-start growth rule (`tcp.slow_start_growth`).
    pub fn with_slow_start(mut self, rule: SlowStartGrowth) -> Self {
        self.slow_start = rule;
        self
    }

    fn congestion_avoidance(&mut self, acked_bytes: u64) {
        match self.growth {
            CaGrowth::Bytes => self.grow_by_bytes(acked_bytes),
            CaGrowth::PerAck => self.grow_per_ack(),
            CaGrowth::PerAckExact => self.grow_per_ack_exact(),
        }
    }

    /// RFC 5681 §3.1, congestion avoidance by byte counting: cwnd grows by one SMSS once a
    /// full cwnd of bytes has been acknowledged (the RECOMMENDED form).
    fn grow_by_bytes(&mut self, acked_bytes: u64) {
        self.ca_acked += acked_bytes;
        if self.ca_acked >= self.cwnd {
            self.ca_acked -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    /// RFC 5681 §3.1 eq. (3): cwnd += SMSS*SMSS/cwnd per ACK, at least one byte, whatever the
    /// ACK covers (ns-3 `TcpNewReno::CongestionAvoidance`, truncated to whole bytes as there).
    fn grow_per_ack(&mut self) {
        self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
    }

    /// RFC 5681 §3.1 eq. (3) without rounding, as ns-2's floating-point cwnd_ (in packets)
    /// grows: `TcpAgent::opencwnd`, `cwnd_ += increase_num_ / cwnd_` with `windowOption_` 1.
    /// SMSS*SMSS/cwnd bytes exactly: the part of a byte left over is carried to the next ACK.
    fn grow_per_ack_exact(&mut self) {
        let num = self.mss * self.mss + self.ca_acked.min(self.cwnd - 1);
        self.ca_acked = num % self.cwnd;
        self.cwnd += num / self.cwnd;
    }
}

impl Controller for Reno {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &NewAck, rtt: &RtoEstimator) {
        let acked_bytes = self.exit.on_ack(now, ack, self.cwnd, &mut self.ssthresh, rtt);
        if !ack.may_grow(self.cwnd, self.ssthresh) {
            return;
        }
        if self.cwnd >= self.ssthresh {
            self.congestion_avoidance(acked_bytes);
            return;
        }
        match self.slow_start {
            // RFC 5681 §3.1 eq. (2): cwnd += min(N, SMSS) per ACK in slow start.
            SlowStartGrowth::Smss => self.cwnd += acked_bytes.min(self.mss),
            // Linux `tcp_slow_start`: cwnd += N up to ssthresh; `tcp_reno_cong_avoid` gives
            // the rest to congestion avoidance.
            SlowStartGrowth::Acked => {
                let grown = acked_bytes.min(self.ssthresh - self.cwnd);
                self.cwnd += grown;
                if acked_bytes > grown {
                    self.congestion_avoidance(acked_bytes - grown);
                }
            }
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, flight_size: u64, _rtt: &RtoEstimator) -> u64 {
        // RFC 5681 §3.2 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
        self.ssthresh = self.half(flight_size);
        self.ca_acked = 0;
        self.ssthresh
    }

    fn on_timeout(&mut self, _now: SimTime, flight_size: u64, set_ssthresh: bool, _: u64, _rtt: &RtoEstimator) {
        if set_ssthresh {
            // RFC 5681 §3.1 eq. (4).
            self.ssthresh = self.half(flight_size);
        }
        // RFC 5681 §3.1: cwnd is set to the loss window, one full-sized segment.
        self.cwnd = self.mss;
        self.ca_acked = 0;
    }

    fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
        if self.growth == CaGrowth::PerAckExact {
            self.ca_acked = 0;
        }
    }

    fn set_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }

    fn slow_start_exits(&self) -> SlowStartExits {
        self.exit.exits
    }

    fn on_spurious_timeout(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
        self.ca_acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtt() -> RtoEstimator {
        RtoEstimator::new(1_000_000_000, 1_000_000_000, 60_000_000_000, 1_000_000)
    }

    #[test]
    fn slow_start_grows_one_mss_per_ack_up_to_ssthresh() {
        let mut cc = Reno::new(1000, 3000, 6000, CaGrowth::Bytes);
        cc.on_ack(0, &NewAck::of(2000), &rtt());
        assert_eq!(cc.cwnd(), 4000, "min(N, SMSS) with N = 2000");
    }

    /// `tcp.whole_segment_windows` (Linux `tcp_reno_ssthresh`: max(snd_cwnd >> 1, 2)): half
    /// of 11 segments is 5, not 5.5; a timeout halves the same way.
    #[test]
    fn whole_segments_halve_to_whole_segments() {
        for (whole, ssthresh) in [(false, 5500), (true, 5000)] {
            let mut cc = Reno::new(1000, 11_000, u64::MAX, CaGrowth::Bytes).with_whole_segments(whole);
            assert_eq!(cc.on_congestion_event(0, 11_000, &rtt()), ssthresh, "whole {whole}");
            cc.on_timeout(0, 11_000, true, 0, &rtt());
            assert_eq!(cc.ssthresh(), ssthresh, "timeout, whole {whole}");
        }
        let mut cc = Reno::new(1000, 3_000, u64::MAX, CaGrowth::Bytes).with_whole_segments(true);
        assert_eq!(cc.on_congestion_event(0, 3_000, &rtt()), 2_000, "at least 2 segments");
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut cc = Reno::new(1000, 10_000, 5000, CaGrowth::Bytes);
        for _ in 0..9 {
            cc.on_ack(0, &NewAck::of(1000), &rtt());
        }
        assert_eq!(cc.cwnd(), 10_000);
        cc.on_ack(0, &NewAck::of(1000), &rtt());
        assert_eq!(cc.cwnd(), 11_000);
    }

    /// cwnd after `rtts` round trips of congestion avoidance from cwnd = ssthresh = 10 SMSS
    /// (SMSS = 1000): each round trip delivers cwnd / SMSS segments, acknowledged
    /// `segs_per_ack` at a time (2: delayed ACKs).
    fn cwnd_after_rtts(growth: CaGrowth, segs_per_ack: u64, rtts: u32) -> u64 {
        let mut cc = Reno::new(1000, 10_000, 10_000, growth);
        for _ in 0..rtts {
            let mut segs = cc.cwnd() / 1000;
            while segs > 0 {
                let n = segs.min(segs_per_ack);
                cc.on_ack(0, &NewAck::of(n * 1000), &rtt());
                segs -= n;
            }
        }
        cc.cwnd()
    }

    #[test]
    fn congestion_avoidance_byte_counting_adds_one_mss_per_rtt_with_or_without_delayed_ack() {
        assert_eq!(cwnd_after_rtts(CaGrowth::Bytes, 1, 10), 20_000);
        assert_eq!(cwnd_after_rtts(CaGrowth::Bytes, 2, 10), 20_000);
    }

    #[test]
    fn congestion_avoidance_per_ack_grows_half_as_fast_with_delayed_ack() {
        // SMSS*SMSS/cwnd per ACK: just under one SMSS per RTT with an ACK per segment,
        // just under half of that with an ACK per two segments.
        assert_eq!(cwnd_after_rtts(CaGrowth::PerAck, 1, 10), 19_254);
        assert_eq!(cwnd_after_rtts(CaGrowth::PerAck, 2, 10), 14_824);
    }

    #[test]
    fn congestion_avoidance_per_ack_exact_grows_like_ns2_float_cwnd() {
        // ns-2: cwnd_ += 1/cwnd_ packets per ACK, a double. From 300 packets, 300 ACKs give
        // 300 + sum of 1/cwnd_ = 300.998... packets; `per-ack` drops 1000*1000/cwnd's
        // fraction on every ACK (3 bytes of 3.33) and falls 10 % short.
        let run = |growth| {
            let mut cc = Reno::new(1000, 300_000, 1000, growth);
            for _ in 0..300 {
                cc.on_ack(0, &NewAck::of(1000), &rtt());
            }
            cc.cwnd()
        };
        let mut ns2 = 300.0_f64;
        for _ in 0..300 {
            ns2 += 1.0 / ns2;
        }
        assert_eq!(run(CaGrowth::PerAckExact), (ns2 * 1000.0) as u64);
        assert_eq!(run(CaGrowth::PerAck), 300_900);
    }

    #[test]
    fn congestion_event_halves_flight_with_two_mss_floor() {
        let mut cc = Reno::new(1000, 20_000, u64::MAX, CaGrowth::Bytes);
        assert_eq!(cc.on_congestion_event(0, 20_000, &rtt()), 10_000);
        assert_eq!(cc.on_congestion_event(0, 3000, &rtt()), 2000);
    }

    #[test]
    fn repeated_timeout_holds_ssthresh() {
        let mut cc = Reno::new(1000, 20_000, u64::MAX, CaGrowth::Bytes);
        cc.on_timeout(0, 20_000, true, 0, &rtt());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 10_000));
        cc.on_timeout(0, 1000, false, 0, &rtt());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 10_000));
    }
}

//! CUBIC, RFC 9438: window growth as a cubic function of the time since the last congestion
//! event (eq. 1), with a Reno-friendly lower bound (eq. 4), multiplicative decrease by
//! β_cubic = 0.7 and fast convergence (§4.6–4.8). Slow start is RFC 5681's.
//!
//! The window functions work in segments and seconds, the units of the RFC's equations;
//! cwnd and ssthresh are kept in bytes like every controller's.
//!
//! Its settings are the `[tcp.cubic]` table ([`CubicSettings`]); the Linux dialect keys
//! `tcp.cubic_alpha` and `tcp.linux_hystart` stay in `[tcp]`, where the `linux` profile sets
//! them.

use serde::{Deserialize, Serialize};

use super::table::{KeyError, Table};
use super::{AnyCc, Controller, NewAck, SlowStartExit, SlowStartExits};
use crate::engine::time::SimTime;
use crate::tcp::config::{CubicAlpha, SlowStartGrowth, TcpConfig};
use crate::tcp::rto::RtoEstimator;

/// RFC 9438 §4.1: C = 0.4 (segments / s³).
pub const C: f64 = 0.4;
/// RFC 9438 §4.6: β_cubic = 0.7.
pub const BETA_CUBIC: f64 = 0.7;
/// RFC 9438 §4.3: α_cubic = 3 (1 - β_cubic) / (1 + β_cubic), the additive increase that makes
/// W_est match Reno's average window under the same loss rate.
pub const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);

/// `[tcp.cubic]`: RFC 9438's constants, each the RFC's value by default in every profile
/// (ns-3's `TcpCubic` attributes `Beta`, `C` and `FastConvergence` have the same defaults;
/// Linux's `tcp_cubic.c` module parameters are `beta` = 717/1024, `bic_scale` = 41, that is
/// C = 41 · 10 / 1024 = 0.4004, and `fast_convergence` = 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicSettings {
    /// β_cubic, the multiplicative decrease factor (RFC 9438 §4.6), in (0, 1). α_cubic
    /// follows from it (§4.3).
    pub beta: f64,
    /// C, segments / s³ (RFC 9438 §4.1), > 0.
    pub c: f64,
    /// Fast convergence (RFC 9438 §4.7): a loss below the last W_max lowers W_max to
    /// cwnd (1 + β_cubic) / 2.
    pub fast_convergence: bool,
}

impl Default for CubicSettings {
    fn default() -> Self {
        CubicSettings { beta: BETA_CUBIC, c: C, fast_convergence: true }
    }
}

/// `tcp.cc = "cubic"` and its `[tcp.cubic]` table.
pub const ALGORITHM: Table<CubicSettings> = Table { name: "cubic", validate, controller };

fn validate(s: &CubicSettings) -> Result<(), KeyError> {
    if !(s.beta > 0.0 && s.beta < 1.0) {
        return Err(KeyError::new("beta", format!("must be in (0, 1) (RFC 9438 §4.6: 0.7), got {}", s.beta)));
    }
    if !(s.c.is_finite() && s.c > 0.0) {
        return Err(KeyError::new("c", format!("must be a finite number > 0 (RFC 9438 §4.1: 0.4), got {}", s.c)));
    }
    Ok(())
}

fn controller(cfg: &TcpConfig, s: &CubicSettings) -> AnyCc {
    let iw = cfg.initial_window_segments as u64 * cfg.mss_bytes as u64;
    // Linux's HyStart is CUBIC's (tcp_cubic.c).
    let exit = SlowStartExit::new(cfg.hystart, cfg.linux_hystart, cfg.initial_ssthresh_bytes, cfg.mss_bytes);
    AnyCc::Cubic(
        Cubic::new(cfg.mss_bytes, iw, cfg.initial_ssthresh_bytes)
            .with_settings(s)
            .with_rules(cfg.slow_start_growth, cfg.cubic_alpha)
            .with_slow_start_exit(exit)
            .with_whole_segments(cfg.whole_segment_windows)
            .with_growth_floor(cfg.cubic_growth_floor),
    )
}

/// K = cbrt((W_max - cwnd_epoch) / C) (eq. 2), seconds; windows in segments, C in
/// segments / s³.
pub fn k_s(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch) / c).cbrt()
}

/// W_cubic(t) = C (t - K)³ + W_max (eq. 1), segments; t and K in seconds.
pub fn w_cubic(t_s: f64, k_s: f64, w_max: f64, c: f64) -> f64 {
    c * (t_s - k_s).powi(3) + w_max
}

/// One congestion-avoidance stage (RFC 9438 §4.2): from the first ACK after a reduction to
/// the next congestion event.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    /// t_epoch, when the stage began.
    start_ns: SimTime,
    /// K (eq. 2), seconds.
    k_s: f64,
    /// W_est (eq. 4), segments.
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    /// SMSS, bytes.
    mss: u64,
    /// cwnd, bytes; fractional so that growth of less than a byte per ACK accumulates.
    cwnd: f64,
    ssthresh: u64,
    /// W_max (§4.7), segments: the window just before the last reduction, lowered by fast
    /// convergence.
    w_max: f64,
    /// cwnd_prior (§4.6), segments: cwnd just before the last reduction.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// W_max and cwnd_prior before the last timeout's reduction, for RFC 9438 §4.9.
    before_timeout: Option<(f64, f64)>,
    slow_start: SlowStartGrowth,
    alpha: CubicAlpha,
    /// C (§4.1), β_cubic (§4.6), α_cubic (§4.3) and fast convergence (§4.7).
    c: f64,
    beta: f64,
    alpha_cubic: f64,
    fast_convergence: bool,
    /// HyStart++ and Linux's HyStart (`slow_start.rs`).
    exit: SlowStartExit,
    /// `tcp.whole_segment_windows`: the window the sender uses is the whole segments of
    /// `cwnd` (Linux's `snd_cwnd`; the fraction is its `snd_cwnd_cnt`), and a reduction's
    /// ssthresh is whole segments, rounded down as `bictcp_recalc_ssthresh` does.
    whole_segments: bool,
    /// `tcp.cubic_growth_floor`: before the first reduction, at least one segment of growth
    /// per 20 acknowledged (Linux `bictcp_update`, `last_max_cwnd == 0`).
    growth_floor: bool,
    /// A reduction has happened (Linux: `last_max_cwnd` is no longer 0).
    reduced: bool,
}

impl Cubic {
    pub fn new(mss_bytes: u32, initial_window_bytes: u64, initial_ssthresh: u64) -> Self {
        Cubic {
            mss: mss_bytes as u64,
            cwnd: initial_window_bytes as f64,
            ssthresh: initial_ssthresh,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            before_timeout: None,
            slow_start: SlowStartGrowth::Smss,
            alpha: CubicAlpha::Rfc9438,
            c: C,
            beta: BETA_CUBIC,
            alpha_cubic: ALPHA_CUBIC,
            fast_convergence: true,
            exit: SlowStartExit::default(),
            whole_segments: false,
            growth_floor: false,
            reduced: false,
        }
    }

    /// Linux's growth floor before the first loss (`tcp.cubic_growth_floor`).
    pub fn with_growth_floor(mut self, on: bool) -> Self {
        self.growth_floor = on;
        self
    }

    /// cwnd and ssthresh in whole segments (`tcp.whole_segment_windows`).
    pub fn with_whole_segments(mut self, on: bool) -> Self {
        self.whole_segments = on;
        self
    }

    /// The window the sender uses, bytes: cwnd, or its whole segments (at least one).
    fn window(&self) -> u64 {
        let bytes = self.cwnd as u64;
        if self.whole_segments {
            (bytes / self.mss).max(1) * self.mss
        } else {
            bytes
        }
    }

    /// The constants of `[tcp.cubic]`.
    pub fn with_settings(mut self, s: &CubicSettings) -> Self {
        self.c = s.c;
        self.beta = s.beta;
        // §4.3: α_cubic = 3 (1 - β_cubic) / (1 + β_cubic).
        self.alpha_cubic = 3.0 * (1.0 - s.beta) / (1.0 + s.beta);
        self.fast_convergence = s.fast_convergence;
        self
    }

    /// The slow-start exits it runs (`tcp.hystart`, `tcp.linux_hystart`).
    pub fn with_slow_start_exit(mut self, exit: SlowStartExit) -> Self {
        self.exit = exit;
        self
    }

    /// The slow-start growth rule (`tcp.slow_start_growth`) and the Reno-friendly α rule
    /// (`tcp.cubic_alpha`).
    pub fn with_rules(mut self, slow_start: SlowStartGrowth, alpha: CubicAlpha) -> Self {
        self.slow_start = slow_start;
        self.alpha = alpha;
        self
    }

    /// W_max, segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// W_est of the current congestion-avoidance stage, segments.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    /// K of the current congestion-avoidance stage, seconds.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k_s)
    }

    fn segs(&self, bytes: f64) -> f64 {
        bytes / self.mss as f64
    }

    /// RFC 9438 §4.2: a new stage starts at the first ACK in congestion avoidance; K from
    /// eq. 2 when cwnd is below W_max, else K = 0 and W_max = cwnd. W_est = cwnd_epoch (§4.3).
    fn start_epoch(&mut self, now: SimTime) -> Epoch {
        let cwnd_epoch = self.segs(self.window() as f64);
        let k = if cwnd_epoch < self.w_max {
            k_s(self.w_max, cwnd_epoch, self.c)
        } else {
            self.w_max = cwnd_epoch;
            0.0
        };
        Epoch { start_ns: now, k_s: k, w_est: cwnd_epoch }
    }

    /// RFC 9438 §4.2–4.5, one ACK of `acked_bytes` in congestion avoidance.
    fn congestion_avoidance(&mut self, now: SimTime, acked_bytes: u64, rtt: &RtoEstimator) {
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        let cwnd = self.segs(self.cwnd);
        // Linux's `bictcp_update` computes its count from the whole-segment `snd_cwnd`.
        let used = self.segs(self.window() as f64);
        let acked = self.segs(acked_bytes as f64);
        // §4.3 eq. 4: W_est += α_cubic · segments_acked / cwnd; α_cubic becomes 1 once W_est
        // has reached cwnd_prior (Linux's `tcp_cubic.c` keeps α_cubic: `cubic_alpha = fixed`).
        let alpha =
            if e.w_est >= self.cwnd_prior && self.alpha == CubicAlpha::Rfc9438 { 1.0 } else { self.alpha_cubic };
        e.w_est += alpha * acked / used;
        let t = (now - e.start_ns) as f64 / 1e9;
        let rtt_s = rtt.srtt_ns().unwrap_or(0) as f64 / 1e9;
        let next = if w_cubic(t, e.k_s, self.w_max, self.c) < e.w_est {
            // §4.3: the Reno-friendly region, cwnd = W_est.
            e.w_est
        } else {
            // §4.4/4.5: target = W_cubic(t + RTT), bounded to [cwnd, 1.5 cwnd]; cwnd grows
            // by (target - cwnd) / cwnd per segment acknowledged.
            let target = w_cubic(t + rtt_s, e.k_s, self.w_max, self.c).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / used * acked
        };
        // Linux `bictcp_update`: while `last_max_cwnd` is 0 (no loss yet) its per-ACK count
        // is at most 20, one segment per 20 acknowledged (about 5 % per round trip).
        let next = if self.growth_floor && !self.reduced { next.max(cwnd + acked / 20.0) } else { next };
        self.cwnd = next.max(cwnd) * self.mss as f64;
        self.epoch = Some(e);
    }

    /// RFC 9438 §4.6 and §4.7: ssthresh = max(flight_size · β_cubic, 2 SMSS); W_max is the
    /// window before the reduction, lowered to cwnd (1 + β_cubic) / 2 by fast convergence
    /// when it did not reach the previous W_max (if `fast_convergence`); the stage ends.
    /// With whole segments (`tcp.whole_segment_windows`), `bictcp_recalc_ssthresh`'s integer
    /// arithmetic: ssthresh = max(segments · β·1024 / 1024, 2) with β·1024 = 717, rounded down,
    /// from the whole-segment window.
    fn reduce(&mut self, flight_size: u64) {
        let cwnd = self.segs(self.window() as f64);
        self.cwnd_prior = cwnd;
        self.reduced = true;
        self.w_max = if cwnd < self.w_max && self.fast_convergence { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
        self.ssthresh = if self.whole_segments {
            let beta_1024 = (self.beta * 1024.0).round() as u64;
            ((flight_size / self.mss) * beta_1024 / 1024).max(2) * self.mss
        } else {
            ((flight_size as f64 * self.beta) as u64).max(2 * self.mss)
        };
        self.epoch = None;
    }
}

impl Controller for Cubic {
    fn cwnd(&self) -> u64 {
        self.window()
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn on_ack(&mut self, now: SimTime, ack: &NewAck, rtt: &RtoEstimator) {
        let cwnd = self.window();
        let acked_bytes = self.exit.on_ack(now, ack, cwnd, &mut self.ssthresh, rtt);
        if !ack.may_grow(cwnd, self.ssthresh) {
            return;
        }
        if self.window() >= self.ssthresh {
            self.congestion_avoidance(now, acked_bytes, rtt);
            return;
        }
        match self.slow_start {
            // RFC 9438 §4.10 → RFC 5681 §3.1 eq. (2): cwnd += min(N, SMSS) in slow start.
            SlowStartGrowth::Smss => self.cwnd += acked_bytes.min(self.mss) as f64,
            // Linux `tcp_slow_start` from `bictcp_cong_avoid`: cwnd += N up to ssthresh, the
            // rest to congestion avoidance.
            SlowStartGrowth::Acked => {
                let grown = acked_bytes.min(self.ssthresh.saturating_sub(self.cwnd as u64));
                self.cwnd += grown as f64;
                if acked_bytes > grown {
                    self.congestion_avoidance(now, acked_bytes - grown, rtt);
                }
            }
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, flight_size: u64, _rtt: &RtoEstimator) -> u64 {
        self.reduce(flight_size);
        self.ssthresh
    }

    fn on_timeout(&mut self, now: SimTime, flight_size: u64, set_ssthresh: bool, snd_max: u64, _rtt: &RtoEstimator) {
        // RFC 9438 §4.8: as Reno, cwnd = 1 SMSS, but ssthresh by β_cubic (§4.6).
        if set_ssthresh {
            self.before_timeout = Some((self.w_max, self.cwnd_prior));
            self.reduce(flight_size);
        }
        self.epoch = None;
        self.cwnd = self.mss as f64;
        self.exit.on_timeout(now, snd_max);
    }

    fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd as f64;
    }

    fn set_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }

    fn slow_start_exits(&self) -> SlowStartExits {
        self.exit.exits
    }

    /// RFC 9438 §4.9: after a spurious congestion event CUBIC restores W_max and cwnd_prior
    /// as they were before it; cwnd and ssthresh come from the Eifel response (RFC 4015).
    fn on_spurious_timeout(&mut self, cwnd: u64, ssthresh: u64) {
        if let Some((w_max, cwnd_prior)) = self.before_timeout.take() {
            self.w_max = w_max;
            self.cwnd_prior = cwnd_prior;
        }
        self.epoch = None;
        self.cwnd = cwnd as f64;
        self.ssthresh = ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    /// SRTT = 100 ms.
    fn rtt() -> RtoEstimator {
        let mut r = RtoEstimator::new(200 * MS, 1000 * MS, 60_000 * MS, MS);
        r.sample(100 * MS);
        r
    }

    /// cwnd = `segs` segments, then a loss with that flight: ssthresh = cwnd = 0.7 · segs.
    fn after_loss_at(segs: u64) -> Cubic {
        let mut cc = Cubic::new(MSS as u32, segs * MSS, u64::MAX);
        let ssthresh = cc.on_congestion_event(0, segs * MSS, &rtt());
        cc.set_cwnd(ssthresh);
        cc
    }

    #[test]
    fn k_follows_eq2_for_w_max_100_and_cwnd_epoch_70() {
        // K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s.
        assert!((k_s(100.0, 70.0, C) - 4.2172).abs() < 1e-4);
        let mut cc = after_loss_at(100);
        cc.on_ack(0, &NewAck::of(MSS), &rtt());
        assert!((cc.k().unwrap() - 4.2172).abs() < 1e-4);
    }

    #[test]
    fn w_cubic_follows_eq1_at_chosen_times() {
        let k = k_s(100.0, 70.0, C);
        // t = 0: cwnd_epoch; t = K: W_max; t = 2 s: 0.4 (2 - 4.2172)³ + 100 = 95.640.
        assert!((w_cubic(0.0, k, 100.0, C) - 70.0).abs() < 1e-9);
        assert!((w_cubic(k, k, 100.0, C) - 100.0).abs() < 1e-9);
        assert!((w_cubic(2.0, k, 100.0, C) - 95.640).abs() < 1e-3);
        // t = 6 s: 0.4 (6 - 4.2172)³ + 100 = 102.267.
        assert!((w_cubic(6.0, k, 100.0, C) - 102.267).abs() < 1e-3);
    }

    #[test]
    fn congestion_event_sets_ssthresh_to_beta_cubic_flight_and_w_max_to_cwnd() {
        let cc = after_loss_at(100);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (70_000, 70_000), "β_cubic = 0.7 (§4.6)");
        assert_eq!(cc.w_max(), 100.0);
    }

    #[test]
    fn congestion_avoidance_window_tracks_w_cubic_of_t_plus_rtt() {
        // One ACK per ms (about cwnd per RTT) for 2 s after the loss at 100 segments: cwnd
        // stays between W_cubic(t) and the target W_cubic(t + RTT),
        // 0.4 (2 - 4.2172)³ + 100 = 95.640 and 0.4 (2.1 - 4.2172)³ + 100 = 96.203.
        let mut cc = after_loss_at(100);
        for i in 0..=2000 {
            cc.on_ack(i * MS, &NewAck::of(MSS), &rtt());
        }
        let w = cc.cwnd() as f64 / MSS as f64;
        assert!((95.5..=96.203).contains(&w), "cwnd = {w} segments");
        assert!(cc.w_est().unwrap() < w, "the cubic region, not Reno-friendly");
    }

    #[test]
    fn reno_friendly_region_cwnd_follows_w_est_when_it_exceeds_w_cubic() {
        // W_max = 10, cwnd_epoch = 7: K = cbrt(7.5) = 1.957 s, so W_cubic stays near 7–9
        // for the first second while W_est grows by α_cubic = 0.529 segments per window
        // acknowledged (eq. 4); after 40 windows W_est ≈ 7 + 40 · 0.53 > W_cubic.
        let mut cc = after_loss_at(10);
        let mut now = 0;
        for _ in 0..40 {
            for _ in 0..(cc.cwnd() / MSS) {
                now += MS;
                cc.on_ack(now, &NewAck::of(MSS), &rtt());
            }
        }
        let w_est = cc.w_est().unwrap();
        let w_cubic_now = w_cubic(now as f64 / 1e9, cc.k().unwrap(), cc.w_max(), C);
        assert!(w_est > w_cubic_now, "W_est {w_est} W_cubic {w_cubic_now}");
        assert_eq!(cc.cwnd(), (w_est * MSS as f64) as u64, "cwnd = W_est (§4.3)");
    }

    /// `tcp.whole_segment_windows` (Linux `bictcp_recalc_ssthresh`: `snd_cwnd * 717 / 1024`,
    /// integer packets): a loss at 13 segments leaves ssthresh 9 segments, not 9.1.
    #[test]
    fn whole_segments_round_ssthresh_down_as_bictcp_recalc_ssthresh() {
        for (whole, ssthresh) in [(false, 9_100), (true, 9_000)] {
            let mut cc = Cubic::new(MSS as u32, 13 * MSS, u64::MAX).with_whole_segments(whole);
            assert_eq!(cc.on_congestion_event(0, 13 * MSS, &rtt()), ssthresh, "whole {whole}");
        }
        // 717/1024 is a little above 0.7: at 100 segments 70.02, still 70.
        let mut cc = Cubic::new(MSS as u32, 100 * MSS, u64::MAX).with_whole_segments(true);
        assert_eq!(cc.on_congestion_event(0, 100 * MSS, &rtt()), 70 * MSS);
    }

    /// With whole segments the sender uses `snd_cwnd`, the whole part of the grown window; the
    /// fraction (`snd_cwnd_cnt`) keeps accumulating until it makes a segment.
    #[test]
    fn whole_segments_window_is_the_whole_part_of_cwnd() {
        let mut frac = after_loss_at(10);
        let mut whole = Cubic::new(MSS as u32, 10 * MSS, u64::MAX).with_whole_segments(true);
        let ssthresh = whole.on_congestion_event(0, 10 * MSS, &rtt());
        whole.set_cwnd(ssthresh);
        for i in 1..=3 {
            frac.on_ack(i * MS, &NewAck::of(MSS), &rtt());
            whole.on_ack(i * MS, &NewAck::of(MSS), &rtt());
        }
        assert!(frac.cwnd() > 7 * MSS && frac.cwnd() < 8 * MSS, "{}", frac.cwnd());
        assert_eq!(whole.cwnd(), 7 * MSS, "three ACKs grow less than a segment");
        for i in 4..=40 {
            whole.on_ack(i * MS, &NewAck::of(MSS), &rtt());
        }
        assert_eq!(whole.cwnd() % MSS, 0);
        assert!(whole.cwnd() >= 8 * MSS, "the fraction made a segment: {}", whole.cwnd());
    }

    /// `tcp.cubic_growth_floor` (Linux `bictcp_update`: `cnt` at most 20 while
    /// `last_max_cwnd` is 0): a slow start ended without a loss (ssthresh = cwnd = 100, as
    /// HyStart leaves it) grows at least 5 % per window acknowledged; RFC 9438's curve from
    /// W_max = cwnd is flat there. After a reduction the floor no longer applies.
    #[test]
    fn growth_floor_grows_five_percent_per_window_until_the_first_loss() {
        let one_window = |cc: &mut Cubic, now: &mut u64| {
            for _ in 0..(cc.cwnd() / MSS) {
                *now += MS;
                cc.on_ack(*now, &NewAck::of(MSS), &rtt());
            }
        };
        for floor in [false, true] {
            let mut cc = Cubic::new(MSS as u32, 100 * MSS, 100 * MSS).with_growth_floor(floor);
            let mut now = 0;
            one_window(&mut cc, &mut now);
            let w = cc.cwnd() as f64 / MSS as f64;
            if floor {
                assert!((104.9..=105.2).contains(&w), "100 ACKs, one segment per 20: {w}");
            } else {
                // The curve is flat just after W_max = cwnd; W_est adds a segment a window.
                assert!(w < 101.1, "RFC 9438: {w}");
            }
        }
        let mut cc = Cubic::new(MSS as u32, 100 * MSS, 100 * MSS).with_growth_floor(true);
        let ssthresh = cc.on_congestion_event(0, 100 * MSS, &rtt());
        cc.set_cwnd(ssthresh);
        let mut now = 0;
        one_window(&mut cc, &mut now);
        assert!((cc.cwnd() as f64 / MSS as f64) < 72.0, "after a loss: {}", cc.cwnd());
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_loss_comes_below_previous_w_max() {
        // §4.7: W_max = 100 from the first loss; a second loss at 80 segments < W_max gives
        // W_max = 80 (1 + 0.7) / 2 = 68.
        let mut cc = after_loss_at(100);
        cc.set_cwnd(80 * MSS);
        cc.on_congestion_event(0, 80 * MSS, &rtt());
        assert!((cc.w_max() - 68.0).abs() < 1e-9);
        assert_eq!(cc.ssthresh(), 56_000);
    }

    #[test]
    fn timeout_sets_loss_window_and_beta_cubic_ssthresh() {
        let mut cc = Cubic::new(MSS as u32, 50 * MSS, u64::MAX);
        cc.on_timeout(0, 50 * MSS, true, 0, &rtt());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 35_000), "§4.8");
        cc.on_timeout(0, MSS, false, 0, &rtt());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 35_000), "repeated timeout keeps ssthresh");
    }

    #[test]
    fn beta_of_the_table_sets_the_decrease_and_the_reno_friendly_alpha() {
        let s = CubicSettings { beta: 0.5, ..CubicSettings::default() };
        let mut cc = Cubic::new(MSS as u32, 100 * MSS, u64::MAX).with_settings(&s);
        assert_eq!(cc.on_congestion_event(0, 100 * MSS, &rtt()), 50_000, "ssthresh = β_cubic flight (§4.6)");
        // §4.3: α_cubic = 3 (1 - 0.5) / (1 + 0.5) = 1.
        assert_eq!(cc.alpha_cubic, 1.0);
    }

    #[test]
    fn without_fast_convergence_w_max_is_the_window_at_the_loss() {
        let s = CubicSettings { fast_convergence: false, ..CubicSettings::default() };
        let mut cc = Cubic::new(MSS as u32, 100 * MSS, u64::MAX).with_settings(&s);
        cc.on_congestion_event(0, 100 * MSS, &rtt());
        cc.set_cwnd(80 * MSS);
        cc.on_congestion_event(0, 80 * MSS, &rtt());
        assert_eq!(cc.w_max(), 80.0, "not lowered to 68 (§4.7)");
    }

    #[test]
    fn c_of_the_table_sets_k() {
        // K = cbrt((100 - 70) / 0.1) = cbrt(300) = 6.6943 s.
        let s = CubicSettings { c: 0.1, ..CubicSettings::default() };
        let mut cc = Cubic::new(MSS as u32, 100 * MSS, u64::MAX).with_settings(&s);
        let ssthresh = cc.on_congestion_event(0, 100 * MSS, &rtt());
        cc.set_cwnd(ssthresh);
        cc.on_ack(0, &NewAck::of(MSS), &rtt());
        assert!((cc.k().unwrap() - 6.6943).abs() < 1e-4);
    }

    #[test]
    fn slow_start_grows_one_mss_per_ack_below_ssthresh() {
        let mut cc = Cubic::new(MSS as u32, 10 * MSS, u64::MAX);
        cc.on_ack(0, &NewAck::of(2 * MSS), &rtt());
        assert_eq!(cc.cwnd(), 11 * MSS);
    }
}

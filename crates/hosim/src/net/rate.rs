//! Variable link rates: a piecewise-constant rate schedule and the transmitter arithmetic that
//! lets a rate change act on the packet in service.
//!
//! Every model is a sequence of segments (rate, duration):
//! - [`RateModel::Square`]: two levels, each held for `interval_ns`, alternating;
//! - [`RateModel::Random`]: a new level every `period_ns`, i.i.d. from a stated distribution;
//! - [`RateModel::Arma`]: b(n) = b + phi(n), phi(n) = sum alpha_i phi(n-i) + sum_{j=0..q}
//!   beta_j e(n-j) with beta_0 = 1 and e(n) i.i.d. N(0, sigma^2): eq. (2) of Ren et al. 2008
//!   (the MA sum from j = 0 as in their eq. (12), see docs/models/hsdpa-stability.md), held
//!   for one step each and clamped to [min, max];
//! - [`RateModel::Trace`]: a Mahimahi packet-delivery trace. Each line is a millisecond
//!   timestamp t >= 0 of one 1500-byte delivery opportunity; the trace loops with period equal
//!   to its last timestamp. Opportunity t gives 1500 bytes of capacity spread evenly over the
//!   millisecond [t-1, t) (t = 0 counts as t = period), so a millisecond with n opportunities
//!   runs at n * 12 Mb/s and the capacity of one period is exactly lines * 1500 bytes.
//!
//! The transmitter keeps the work left on the packet in service in bit-nanoseconds-per-second
//! units (bits * 1e9), so progress at rate r over dt ns is exactly r * dt: a rate change
//! subtracts the progress made at the old rate and reschedules the completion at the new one.

use rand::Rng as _;

use crate::engine::rng::Rng;
use crate::engine::time::{SimTime, NS_PER_S};

/// Capacity of one Mahimahi delivery opportunity.
pub const MAHIMAHI_OPPORTUNITY_BYTES: u64 = 1500;

/// The latest timestamp a Mahimahi trace may give: 1e9 s, the longest time of a scenario.
pub const MAX_TRACE_MS: u64 = 1_000_000_000_000;

#[derive(Clone, Debug, PartialEq)]
pub enum LevelDist {
    /// Uniform on [min_bps, max_bps].
    Uniform { min_bps: f64, max_bps: f64 },
    /// One of the listed levels, each equally likely.
    Levels(Vec<u64>),
}

impl LevelDist {
    pub fn mean_bps(&self) -> f64 {
        match self {
            LevelDist::Uniform { min_bps, max_bps } => (min_bps + max_bps) / 2.0,
            LevelDist::Levels(l) => l.iter().sum::<u64>() as f64 / l.len() as f64,
        }
    }

    fn draw(&self, rng: &mut Rng) -> u64 {
        match self {
            LevelDist::Uniform { min_bps, max_bps } => {
                (min_bps + (max_bps - min_bps) * rng.gen::<f64>()).round() as u64
            }
            LevelDist::Levels(l) => l[rng.gen_range(0..l.len())],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum RateModel {
    Constant {
        rate_bps: u64,
    },
    Square {
        first_bps: u64,
        second_bps: u64,
        interval_ns: SimTime,
    },
    Random {
        dist: LevelDist,
        period_ns: SimTime,
    },
    Arma {
        mean_bps: f64,
        alpha: Vec<f64>,
        beta: Vec<f64>,
        std_bps: f64,
        step_ns: SimTime,
        min_bps: f64,
        max_bps: f64,
    },
    /// Merged segments of one period (rate, duration); the schedule repeats them forever.
    Trace {
        segments: Vec<(u64, SimTime)>,
        period_ns: SimTime,
        opportunities: u64,
    },
}

impl RateModel {
    /// Parses a Mahimahi trace: one non-negative integer millisecond timestamp per line,
    /// non-decreasing, last one > 0 and at most [`MAX_TRACE_MS`]. Blank lines are ignored.
    /// Errors name the line. Memory and time grow with the number of lines, not with the
    /// timestamps: a gap between two opportunities is one segment at rate 0.
    pub fn from_mahimahi(text: &str) -> Result<RateModel, String> {
        let mut stamps: Vec<u64> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let s = line.trim();
            if s.is_empty() {
                continue;
            }
            let t: u64 = s.parse().map_err(|_| {
                let shown: String = s.chars().take(40).collect();
                format!("line {}: expected a millisecond timestamp (integer >= 0), got {shown:?}", i + 1)
            })?;
            if t > MAX_TRACE_MS {
                return Err(format!(
                    "line {}: timestamp {t} ms is beyond the longest time ({MAX_TRACE_MS} ms = 1e9 s)",
                    i + 1
                ));
            }
            if stamps.last().is_some_and(|&p| t < p) {
                return Err(format!(
                    "line {}: timestamps must not decrease ({t} after {})",
                    i + 1,
                    stamps.last().unwrap()
                ));
            }
            stamps.push(t);
        }
        let period_ms = match stamps.last() {
            None => return Err("no delivery opportunities (the trace is empty)".into()),
            Some(0) => return Err("the last timestamp must be > 0 (it sets the period of the loop)".into()),
            Some(&p) => p,
        };
        // Opportunities per millisecond slot [t-1, t), in slot order; t = 0 counts in the last
        // slot, the one of t = period, which is the last entry.
        let zeros = stamps.partition_point(|&t| t == 0) as u64;
        let mut slots: Vec<(u64, u64)> = Vec::new();
        for &t in &stamps[zeros as usize..] {
            match slots.last_mut() {
                Some((slot, n)) if *slot == t - 1 => *n += 1,
                _ => slots.push((t - 1, 1)),
            }
        }
        slots.last_mut().expect("the last timestamp is > 0").1 += zeros;
        let ms = NS_PER_S / 1000;
        let mut segments: Vec<(u64, SimTime)> = Vec::new();
        let mut push = |rate: u64, d: SimTime| match segments.last_mut() {
            Some((r, len)) if *r == rate => *len += d,
            _ => segments.push((rate, d)),
        };
        let mut next_slot = 0;
        for (slot, n) in slots {
            if slot > next_slot {
                push(0, (slot - next_slot) * ms);
            }
            push(n * MAHIMAHI_OPPORTUNITY_BYTES * 8 * 1000, ms);
            next_slot = slot + 1;
        }
        Ok(RateModel::Trace { segments, period_ns: period_ms * ms, opportunities: stamps.len() as u64 })
    }

    /// The long-run mean rate the model is built to have (before any clamping of ARMA).
    pub fn nominal_mean_bps(&self) -> f64 {
        match self {
            RateModel::Constant { rate_bps } => *rate_bps as f64,
            RateModel::Square { first_bps, second_bps, .. } => (*first_bps + *second_bps) as f64 / 2.0,
            RateModel::Random { dist, .. } => dist.mean_bps(),
            RateModel::Arma { mean_bps, .. } => *mean_bps,
            RateModel::Trace { period_ns, opportunities, .. } => {
                (*opportunities * MAHIMAHI_OPPORTUNITY_BYTES * 8) as f64 / (*period_ns as f64 / NS_PER_S as f64)
            }
        }
    }
}

/// Generates the segments of a model in order, drawing from its own random stream.
#[derive(Clone, Debug)]
pub struct RateSchedule {
    model: RateModel,
    rng: Rng,
    index: u64,
    /// ARMA memory: phi(n-1).., and e(n-1)..
    phi: Vec<f64>,
    innov: Vec<f64>,
}

impl RateSchedule {
    pub fn new(model: RateModel, rng: Rng) -> Self {
        let (p, q) = match &model {
            RateModel::Arma { alpha, beta, .. } => (alpha.len(), beta.len()),
            _ => (0, 0),
        };
        RateSchedule { model, rng, index: 0, phi: vec![0.0; p], innov: vec![0.0; q] }
    }

    pub fn model(&self) -> &RateModel {
        &self.model
    }

    /// The next segment: (rate bit/s, duration ns). Durations are > 0.
    pub fn next_segment(&mut self) -> (u64, SimTime) {
        let i = self.index;
        self.index += 1;
        match &self.model {
            RateModel::Constant { rate_bps } => (*rate_bps, SimTime::MAX / 4),
            RateModel::Square { first_bps, second_bps, interval_ns } => {
                (if i.is_multiple_of(2) { *first_bps } else { *second_bps }, *interval_ns)
            }
            RateModel::Random { dist, period_ns } => (dist.draw(&mut self.rng), *period_ns),
            RateModel::Arma { mean_bps, alpha, beta, std_bps, step_ns, min_bps, max_bps } => {
                let e = std_bps * standard_normal(&mut self.rng);
                let ar: f64 = alpha.iter().zip(&self.phi).map(|(a, p)| a * p).sum();
                let ma: f64 = beta.iter().zip(&self.innov).map(|(b, x)| b * x).sum();
                let phi = ar + e + ma;
                if !self.phi.is_empty() {
                    self.phi.rotate_right(1);
                    self.phi[0] = phi;
                }
                if !self.innov.is_empty() {
                    self.innov.rotate_right(1);
                    self.innov[0] = e;
                }
                let rate = (mean_bps + phi).clamp(*min_bps, *max_bps);
                (rate.round() as u64, *step_ns)
            }
            RateModel::Trace { segments, .. } => segments[(i % segments.len() as u64) as usize],
        }
    }
}

/// A standard Gaussian draw (Box-Muller; one value per call, so the stream use is fixed).
pub fn standard_normal(rng: &mut Rng) -> f64 {
    let u1: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
    let u2: f64 = rng.gen::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The variable-rate state of a link: the current segment, the capacity integral, and the
/// progress of the packet in service.
#[derive(Clone, Debug)]
pub struct VarRate {
    pub schedule: RateSchedule,
    pub rate_bps: u64,
    /// When the current segment ends (the next rate change).
    pub segment_end_ns: SimTime,
    /// Integral of the rate over [0, last_change_ns], in bits * 1e9.
    capacity_work: u128,
    last_change_ns: SimTime,
    /// Work left on the packet in service (bits * 1e9), as of `progress_ns`.
    work_left: u128,
    progress_ns: SimTime,
    /// Completion time of the packet in service; None when idle or stalled at rate 0.
    pub tx_done_at: Option<SimTime>,
    pub rate_changes: u64,
    /// false: a rate change applies from the next packet on, and the packet in service keeps
    /// the rate it started with (how ns-2 links behave when their bandwidth is changed).
    pub reschedule_in_service: bool,
}

impl VarRate {
    /// Starts the schedule at time 0.
    pub fn new(mut schedule: RateSchedule) -> Self {
        let (rate, dur) = schedule.next_segment();
        VarRate {
            schedule,
            rate_bps: rate,
            segment_end_ns: dur,
            capacity_work: 0,
            last_change_ns: 0,
            work_left: 0,
            progress_ns: 0,
            tx_done_at: None,
            rate_changes: 0,
            reschedule_in_service: true,
        }
    }

    fn finish_time(&self, now: SimTime) -> Option<SimTime> {
        if self.rate_bps == 0 {
            return None;
        }
        let dt = self.work_left.div_ceil(self.rate_bps as u128);
        Some(now + dt.min(u64::MAX as u128 / 2) as SimTime)
    }

    /// A packet of `bytes` enters service at `now`. Returns its completion time at the current
    /// rate (None while the rate is 0).
    pub fn start_packet(&mut self, now: SimTime, bytes: u32) -> Option<SimTime> {
        self.work_left = bytes as u128 * 8 * NS_PER_S as u128;
        self.progress_ns = now;
        self.tx_done_at = self.finish_time(now);
        self.tx_done_at
    }

    /// The packet in service finished (its completion event fired).
    pub fn finish_packet(&mut self) {
        self.work_left = 0;
        self.tx_done_at = None;
    }

    /// The current segment ends at `now`: moves to the next one. If `busy`, the packet in
    /// service is charged the progress made at the old rate and its completion is recomputed.
    /// Returns the new completion time when it changed (None: unchanged, idle or stalled).
    pub fn change(&mut self, now: SimTime, busy: bool) -> Option<SimTime> {
        debug_assert_eq!(now, self.segment_end_ns);
        self.capacity_work += self.rate_bps as u128 * (now - self.last_change_ns) as u128;
        self.last_change_ns = now;
        // A packet stalled at rate 0 always starts at the new rate.
        let busy = busy && (self.reschedule_in_service || self.tx_done_at.is_none());
        if busy {
            let done = self.rate_bps as u128 * (now - self.progress_ns) as u128;
            self.work_left = self.work_left.saturating_sub(done);
            self.progress_ns = now;
        }
        let (rate, dur) = self.schedule.next_segment();
        let old = self.rate_bps;
        self.rate_bps = rate;
        self.segment_end_ns = now.saturating_add(dur);
        self.rate_changes += 1;
        if !busy || rate == old {
            return None;
        }
        self.tx_done_at = self.finish_time(now);
        self.tx_done_at
    }

    /// Capacity offered over [0, t] in bits, for t at or after the last rate change.
    pub fn capacity_bits(&self, t: SimTime) -> f64 {
        let w = self.capacity_work + self.rate_bps as u128 * t.saturating_sub(self.last_change_ns) as u128;
        w as f64 / NS_PER_S as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream_rng, StreamKind};
    use crate::engine::time::s_to_ns;

    fn schedule(model: RateModel) -> RateSchedule {
        RateSchedule::new(model, stream_rng(3, StreamKind::Link, 0))
    }

    /// Time-weighted mean rate of the first `horizon` ns, and the switch times.
    fn run(model: RateModel, horizon: SimTime) -> (f64, Vec<SimTime>) {
        let mut v = VarRate::new(schedule(model));
        let mut switches = Vec::new();
        while v.segment_end_ns < horizon {
            let t = v.segment_end_ns;
            v.change(t, false);
            switches.push(t);
        }
        (v.capacity_bits(horizon) / (horizon as f64 / 1e9), switches)
    }

    #[test]
    fn square_wave_alternates_every_interval_and_averages_its_levels() {
        let m = RateModel::Square { first_bps: 384_000, second_bps: 38_400, interval_ns: s_to_ns(10.0) };
        let (mean, switches) = run(m, s_to_ns(150.0));
        assert_eq!(switches, (1..15).map(|k| s_to_ns(10.0 * k as f64)).collect::<Vec<_>>());
        // 8 high and 7 low intervals: the paper's 222.7 kb/s (Section III).
        assert!((mean - (8.0 * 384e3 + 7.0 * 38.4e3) / 15.0).abs() < 1e-6, "{mean}");
        let (mean, _) = run(
            RateModel::Square { first_bps: 384_000, second_bps: 38_400, interval_ns: s_to_ns(10.0) },
            s_to_ns(2000.0),
        );
        assert!((mean - 211_200.0).abs() < 1e-6);
    }

    #[test]
    fn random_levels_change_every_period_with_the_distribution_mean() {
        let dist = LevelDist::Uniform { min_bps: 1e6, max_bps: 2e6 };
        let (mean, switches) = run(RateModel::Random { dist, period_ns: s_to_ns(0.02) }, s_to_ns(400.0));
        assert!(switches.iter().enumerate().all(|(k, &t)| t == (k as u64 + 1) * s_to_ns(0.02)));
        // 20000 draws, std of the mean = 0.289e6 / sqrt(20000) = 2.0e3.
        assert!((mean - 1.5e6).abs() < 8e3, "{mean}");
        let levels = LevelDist::Levels(vec![100_000, 300_000]);
        let (mean, _) = run(RateModel::Random { dist: levels, period_ns: s_to_ns(0.01) }, s_to_ns(200.0));
        assert!((mean - 200_000.0).abs() < 3e3, "{mean}");
    }

    #[test]
    fn arma_mean_is_the_nominal_rate_and_steps_are_regular() {
        let m = RateModel::Arma {
            mean_bps: 1.5e6,
            alpha: vec![0.6, 0.2],
            beta: vec![0.3],
            std_bps: 1e5,
            step_ns: s_to_ns(0.01),
            min_bps: 0.0,
            max_bps: 1e9,
        };
        let (mean, switches) = run(m, s_to_ns(500.0));
        assert!(switches.iter().enumerate().all(|(k, &t)| t == (k as u64 + 1) * s_to_ns(0.01)));
        // Stationary std is about 1e5 * 2.6 = 2.6e5 with strong correlation; 50000 steps.
        assert!((mean - 1.5e6).abs() < 2e4, "{mean}");
    }

    #[test]
    fn arma_recursion_follows_equation_2() {
        // alpha = [0.5], beta = [0.25]: phi(n) = 0.5 phi(n-1) + e(n) + 0.25 e(n-1).
        let m = RateModel::Arma {
            mean_bps: 1e6,
            alpha: vec![0.5],
            beta: vec![0.25],
            std_bps: 1e4,
            step_ns: 1,
            min_bps: -1e12,
            max_bps: 1e12,
        };
        let mut s = schedule(m);
        let mut rng = stream_rng(3, StreamKind::Link, 0);
        let (mut phi, mut e_prev) = (0.0, 0.0);
        for _ in 0..100 {
            let e = 1e4 * standard_normal(&mut rng);
            phi = 0.5 * phi + e + 0.25 * e_prev;
            e_prev = e;
            assert_eq!(s.next_segment().0, (1e6 + phi).round() as u64);
        }
    }

    #[test]
    fn arma_is_clamped_to_its_bounds() {
        let m = RateModel::Arma {
            mean_bps: 1e5,
            alpha: vec![0.9],
            beta: vec![],
            std_bps: 1e5,
            step_ns: 1,
            min_bps: 5e4,
            max_bps: 2e5,
        };
        let mut s = schedule(m);
        assert!((0..10_000).map(|_| s.next_segment().0).all(|r| (50_000..=200_000).contains(&r)));
    }

    #[test]
    fn mahimahi_trace_merges_milliseconds_and_loops() {
        let m = RateModel::from_mahimahi("1\n1\n2\n5\n").unwrap();
        let ms = 1_000_000;
        match &m {
            RateModel::Trace { segments, period_ns, opportunities } => {
                assert_eq!(*period_ns, 5 * ms);
                assert_eq!(*opportunities, 4);
                assert_eq!(segments, &vec![(24_000_000, ms), (12_000_000, ms), (0, 2 * ms), (12_000_000, ms)]);
            }
            _ => unreachable!(),
        }
        // Capacity of two periods is two times four opportunities of 1500 bytes.
        let (mean, switches) = run(m, 10 * ms);
        assert!((mean * 0.010 - 8.0 * 1500.0 * 8.0).abs() < 1e-6, "{mean}");
        assert_eq!(switches, vec![ms, 2 * ms, 4 * ms, 5 * ms, 6 * ms, 7 * ms, 9 * ms]);
    }

    #[test]
    fn mahimahi_memory_grows_with_the_lines_not_the_timestamps() {
        let ms = 1_000_000;
        // A last timestamp of 5e9 ms took a 40 GB table of milliseconds before.
        let m = RateModel::from_mahimahi("0\n1\n3\n5000000000\n").unwrap();
        match &m {
            RateModel::Trace { segments, period_ns, opportunities } => {
                assert_eq!((*period_ns, *opportunities), (5_000_000_000 * ms, 4));
                let want =
                    vec![(12_000_000, ms), (0, ms), (12_000_000, ms), (0, (5_000_000_000 - 4) * ms), (24_000_000, ms)];
                assert_eq!(segments, &want, "t = 0 counts in the last millisecond");
            }
            _ => unreachable!(),
        }
        let e = RateModel::from_mahimahi("1\n18446744073709551615\n").unwrap_err();
        assert!(e.starts_with("line 2:") && e.contains("beyond the longest time"), "{e}");
        assert!(RateModel::from_mahimahi(&format!("{}\n", MAX_TRACE_MS)).is_ok());
    }

    #[test]
    fn mahimahi_errors_name_the_line() {
        assert!(RateModel::from_mahimahi("").unwrap_err().contains("empty"));
        assert!(RateModel::from_mahimahi("1\nx\n").unwrap_err().starts_with("line 2"));
        assert!(RateModel::from_mahimahi("5\n3\n").unwrap_err().starts_with("line 2"));
        assert!(RateModel::from_mahimahi("0\n0\n").unwrap_err().contains("> 0"));
        assert!(RateModel::from_mahimahi("-4\n").unwrap_err().starts_with("line 1"));
    }

    #[test]
    fn rate_change_reschedules_the_packet_in_service_with_the_bits_left() {
        // 1500 bytes = 12000 bits at 12 kb/s for 0.5 s (6000 bits), then 6 kb/s: 1 s more.
        let m = RateModel::Square { first_bps: 12_000, second_bps: 6_000, interval_ns: s_to_ns(0.5) };
        let mut v = VarRate::new(schedule(m));
        assert_eq!(v.start_packet(0, 1500), Some(s_to_ns(1.0)));
        assert_eq!(v.change(s_to_ns(0.5), true), Some(s_to_ns(1.5)));
        // Back to 12 kb/s at 1.0 s with 3000 bits left: done at 1.25 s.
        assert_eq!(v.change(s_to_ns(1.0), true), Some(s_to_ns(1.25)));
    }

    #[test]
    fn next_packet_mode_leaves_the_packet_in_service_at_its_starting_rate() {
        let m = RateModel::Square { first_bps: 12_000, second_bps: 6_000, interval_ns: s_to_ns(0.5) };
        let mut v = VarRate::new(schedule(m));
        v.reschedule_in_service = false;
        assert_eq!(v.start_packet(0, 1500), Some(s_to_ns(1.0)));
        assert_eq!(v.change(s_to_ns(0.5), true), None);
        assert_eq!(v.tx_done_at, Some(s_to_ns(1.0)));
        v.finish_packet();
        assert_eq!(v.start_packet(s_to_ns(1.0), 750), Some(s_to_ns(2.0)), "the next packet at 6 kb/s");
    }

    #[test]
    fn a_packet_stalls_at_rate_zero_and_resumes_after() {
        let m = RateModel::Square { first_bps: 0, second_bps: 8_000, interval_ns: s_to_ns(1.0) };
        let mut v = VarRate::new(schedule(m));
        assert_eq!(v.start_packet(s_to_ns(0.25), 1000), None);
        assert_eq!(v.change(s_to_ns(1.0), true), Some(s_to_ns(2.0)));
    }
}

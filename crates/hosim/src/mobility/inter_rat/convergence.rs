//! TCP convergence time: "the time it takes for TCP to be running again at the same rate as
//! before" (the contribution's Figures 4 and 5), made measurable.
//!
//! Definition. Let D(t) be the bytes the receiver has delivered in order by time t, `t_d` the
//! moment the UE leaves the source RAT, and R_pre = (D(t_d) - D(t_d - P)) / P the delivery
//! rate over the `P` before it. The convergence time is `s - t_d` for the earliest `s >= t_d`
//! from which delivery keeps pace with f * R_pre for a window W:
//!
//!   D[s, s + x] >= f * R_pre * x - slack   for every x in [0, W), and
//!   D[s, s + W) >= f * R_pre * W,
//!
//! where D[a, b] counts the bytes delivered in that interval and `slack` is one segment
//! (delivery is packetized). W (`convergence_window_s`) and f (`convergence_fraction`) are
//! parameters; the answer is undefined when no such window ends within the trace (or R_pre
//! is zero).
//!
//! The first condition keeps a window that starts in the gap and ends at the restored rate
//! from counting: without it, any window with (1 - f) * W of silence at its start would
//! qualify, and the convergence time would shrink as W grows. With it, an ideal handover
//! (the target delivers at the old rate from the moment the UE arrives) converges in the
//! interruption time (within `slack` / (f * R_pre)), whatever W is; W sets how long the
//! restored rate must hold.

use crate::engine::time::SimTime;

/// The delivery rate over the `pre_ns` before `t_d`, in bytes per second, from samples of
/// cumulative delivered bytes `(time, bytes)` in time order. None if the trace does not cover
/// [t_d - pre_ns, t_d].
pub fn rate_before(samples: &[(SimTime, u64)], t_d: SimTime, pre_ns: SimTime) -> Option<f64> {
    let from = t_d.checked_sub(pre_ns)?;
    let at = |t: SimTime| samples.iter().rev().find(|(st, _)| *st <= t).map(|(_, b)| *b);
    if samples.first()?.0 > from {
        return None;
    }
    Some((at(t_d)? - at(from)?) as f64 / (pre_ns as f64 / 1e9))
}

/// The convergence time (ns after `t_d`) of the module's definition. `samples` are
/// `(time, cumulative delivered bytes)` in time order; the delivered bytes are taken to change
/// only at sample times. Candidate starts are `t_d` and the sample times after it.
pub fn convergence_time(
    samples: &[(SimTime, u64)],
    t_d: SimTime,
    pre_rate_bytes_per_s: f64,
    window_ns: SimTime,
    fraction: f64,
    slack_bytes: u64,
) -> Option<SimTime> {
    if pre_rate_bytes_per_s <= 0.0 || samples.is_empty() {
        return None;
    }
    let rate_per_ns = fraction * pre_rate_bytes_per_s / 1e9;
    let end = samples.last()?.0;
    let first_after = samples.partition_point(|(t, _)| *t < t_d);
    let starts = std::iter::once(t_d).chain(samples[first_after..].iter().map(|(t, _)| *t).filter(|&t| t > t_d));
    let mut lo = first_after;
    for s in starts {
        if s + window_ns > end + 1 {
            return None;
        }
        while lo < samples.len() && samples[lo].0 < s {
            lo += 1;
        }
        if keeps_pace(samples, lo, s, window_ns, rate_per_ns, slack_bytes) {
            return Some(s - t_d);
        }
    }
    None
}

/// Whether delivery from `s` (the first sample at or after it is `lo`) keeps pace with
/// `rate_per_ns` for `window_ns` (the module's two conditions).
fn keeps_pace(
    samples: &[(SimTime, u64)],
    lo: usize,
    s: SimTime,
    window_ns: SimTime,
    rate_per_ns: f64,
    slack: u64,
) -> bool {
    let base = if lo == 0 { 0 } else { samples[lo - 1].1 };
    let mut got = 0;
    for &(t, d) in samples[lo..].iter().take_while(|(t, _)| *t < s + window_ns) {
        got = d - base;
        if ((got + slack) as f64) < rate_per_ns * (t - s) as f64 {
            return false;
        }
    }
    got as f64 >= rate_per_ns * window_ns as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = 1_000_000;

    /// 1 kB per ms from 0 to `stop` ms, nothing until `resume` ms, then `rate` kB per ms.
    fn trace(stop: u64, resume: u64, rate: u64, end: u64) -> Vec<(SimTime, u64)> {
        let mut v = Vec::new();
        let mut d = 0;
        for t in 0..=end {
            if t <= stop {
                d += 1000;
            } else if t >= resume {
                d += rate * 1000;
            }
            v.push((t * MS, d));
        }
        v
    }

    #[test]
    fn rate_before_is_bytes_over_the_window() {
        let v = trace(1000, 2000, 1, 3000);
        assert_eq!(rate_before(&v, 1000 * MS, 500 * MS), Some(1_000_000.0));
    }

    #[test]
    fn convergence_is_the_gap_when_the_old_rate_resumes_at_once() {
        // Delivery stops at 1000 ms, resumes at 1150 ms at the old rate: 150 ms.
        let v = trace(1000, 1150, 1, 3000);
        let c = convergence_time(&v, 1000 * MS, 1e6, 200 * MS, 0.9, 1460).unwrap();
        // Within the slack: 1.46 kB at 0.9 kB/ms is 1.6 ms, so the window may start 2 ms early.
        assert!((148 * MS..=150 * MS).contains(&c), "{c}");
    }

    #[test]
    fn convergence_does_not_depend_on_the_window_when_the_rate_resumes_fully() {
        let v = trace(1000, 1150, 1, 3000);
        for w in [50, 100, 500, 1000] {
            let c = convergence_time(&v, 1000 * MS, 1e6, w * MS, 1.0, 1460).unwrap();
            assert!((148 * MS..=150 * MS).contains(&c), "W = {w} ms: {c}");
        }
    }

    #[test]
    fn a_slower_rate_after_never_converges_at_a_higher_fraction() {
        // Half the rate after the gap: converges for f <= 0.5 only.
        let mut v = trace(1000, 1100, 0, 3000);
        let mut extra = 0;
        for (i, s) in v.iter_mut().enumerate() {
            if i as u64 >= 1100 && i % 2 == 0 {
                extra += 1000;
            }
            s.1 += extra;
        }
        assert_eq!(convergence_time(&v, 1000 * MS, 1e6, 200 * MS, 0.9, 1460), None);
        let c = convergence_time(&v, 1000 * MS, 1e6, 200 * MS, 0.5, 1460).unwrap();
        assert!((97 * MS..=100 * MS).contains(&c), "{c}");
    }

    #[test]
    fn a_burst_shorter_than_the_window_needs_the_rest_of_the_window() {
        // After the gap, one 50 kB burst at 1200 ms, then 1 kB/ms from 1400 ms. W = 100 ms
        // needs 90 kB: the burst alone (50 kB) is not enough, and the first window that
        // qualifies starts at 1400 ms (100 kB).
        let mut v = Vec::new();
        let mut d = 0u64;
        for t in 0..=3000u64 {
            if t <= 1000 || t >= 1400 {
                d += 1000;
            }
            if t == 1200 {
                d += 50_000;
            }
            v.push((t * MS, d));
        }
        let c = convergence_time(&v, 1000 * MS, 1e6, 100 * MS, 0.9, 1460);
        // A window that starts at the burst stalls for 200 ms after it; the first that keeps
        // pace starts (within the slack) at 1400 ms.
        let c = c.unwrap();
        assert!((398 * MS..=400 * MS).contains(&c), "{c}");
    }

    #[test]
    fn a_window_starting_in_the_gap_does_not_count_however_long_it_is() {
        // A 100 ms gap: a 1 s window from t_d holds 0.9 s of full rate (>= 0.9 of it), but
        // does not keep pace from its start.
        let v = trace(1000, 1100, 1, 4000);
        let c = convergence_time(&v, 1000 * MS, 1e6, 1000 * MS, 0.9, 1460).unwrap();
        assert!((98 * MS..=100 * MS).contains(&c), "{c}");
    }

    #[test]
    fn no_pre_rate_means_no_convergence_time() {
        let v = trace(1000, 1150, 1, 3000);
        assert_eq!(convergence_time(&v, 1000 * MS, 0.0, 200 * MS, 0.9, 1460), None);
    }
}

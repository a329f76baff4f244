//! The cell scheduler: deficit round robin realising WFQ by bytes, or packet round robin, over
//! the UEs a cell serves (Shreedhar & Varghese, 1995), or proportional fair ([`PropFair`]). It
//! picks a UE among those with a backlog; the cell then sends that UE's head packet.
//!
//! The round-robin schedulers are plain queue-agnostic policies, kept in `net/drr.rs`, where a
//! fair-queueing discipline can use them too.

pub use crate::net::drr::{Scheduler, SchedulerKind, WFQ_QUANTUM_BYTES};

use crate::engine::time::{SimTime, NS_PER_S};

/// Proportional fair: the classic metric r_i(t) / R_i(t) (Jalali, Padovani & Pankaj, "Data
/// throughput of CDMA-HDR", 2000; Viswanath, Tse & Laroia, "Opportunistic beamforming using
/// dumb antennas", 2002), where r_i(t) is the rate UE i could get now and R_i(t) its average
/// served rate. 3GPP leaves the MAC scheduler to the vendor (TS 38.300 §10.1 names the
/// functions, not an algorithm), so this is the textbook form, not a standard's.
///
/// R_i is an exponentially weighted average of the served rate with time constant tc, kept in
/// continuous time: it decays as exp(-dt / tc) and grows by bits / tc for each packet served,
/// the continuous form of R <- (1 - 1/tc) R + r / tc per slot. A UE served at a constant rate
/// b has R -> b. Ties (e.g. every R at 0 at the start) go to the first UE in round-robin
/// order after the last one picked.
#[derive(Clone, Debug)]
pub struct PropFair {
    tc_s: f64,
    /// R_i as of `at_ns[i]`, bit/s.
    avg_bps: Vec<f64>,
    at_ns: Vec<SimTime>,
    next: usize,
}

impl PropFair {
    pub fn new(n_ues: usize, time_constant_s: f64) -> PropFair {
        PropFair { tc_s: time_constant_s, avg_bps: vec![0.0; n_ues], at_ns: vec![0; n_ues], next: 0 }
    }

    /// R_i(now), bit/s.
    pub fn average_bps(&self, u: usize, now: SimTime) -> f64 {
        let dt_s = now.saturating_sub(self.at_ns[u]) as f64 / NS_PER_S as f64;
        self.avg_bps[u] * (-dt_s / self.tc_s).exp()
    }

    /// The UE with the largest r_i / R_i among those `rate` gives a rate > 0 for (the UEs
    /// that may be served now).
    pub fn pick(&mut self, now: SimTime, rate: impl Fn(usize) -> Option<u64>) -> Option<usize> {
        let n = self.avg_bps.len();
        let mut best: Option<(f64, usize)> = None;
        for k in 0..n {
            let u = (self.next + k) % n;
            let Some(r) = rate(u).filter(|&r| r > 0) else { continue };
            let metric = r as f64 / self.average_bps(u, now).max(1.0);
            if best.is_none_or(|(m, _)| metric > m) {
                best = Some((metric, u));
            }
        }
        let u = best?.1;
        self.next = (u + 1) % n;
        Some(u)
    }

    /// UE `u` is served `bits` now.
    pub fn served(&mut self, u: usize, now: SimTime, bits: u64) {
        self.avg_bps[u] = self.average_bps(u, now) + bits as f64 / self.tc_s;
        self.at_ns[u] = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKT_BITS: u64 = 1500 * 8;

    /// Serves always-backlogged UEs one packet at a time at `rate(u, t)`; returns each UE's
    /// airtime and bits.
    fn run(n: usize, until_s: f64, rate: impl Fn(usize, SimTime) -> u64) -> (Vec<f64>, Vec<f64>) {
        let mut pf = PropFair::new(n, 0.1);
        let (mut air, mut bits) = (vec![0.0; n], vec![0.0; n]);
        let mut t: SimTime = 0;
        while (t as f64) < until_s * 1e9 {
            let u = pf.pick(t, |u| Some(rate(u, t))).expect("every UE is backlogged");
            pf.served(u, t, PKT_BITS);
            let dt = PKT_BITS * NS_PER_S / rate(u, t);
            air[u] += dt as f64;
            bits[u] += PKT_BITS as f64;
            t += dt;
        }
        (air, bits)
    }

    #[test]
    fn pf_picks_the_ue_at_its_relative_peak_over_the_one_with_the_higher_rate() {
        let mut pf = PropFair::new(2, 0.1);
        // History: UE 0 served 10 Mb/s on average, UE 1 40 Mb/s.
        let mut t = 0;
        while t < 1_000_000_000 {
            pf.served(0, t, 10_000);
            pf.served(1, t, 40_000);
            t += 1_000_000;
        }
        let (r0, r1) = (pf.average_bps(0, t), pf.average_bps(1, t));
        assert!((r0 / 1e7 - 1.0).abs() < 0.05 && (r1 / 4e7 - 1.0).abs() < 0.05, "{r0} {r1}");
        // At its own average, UE 0 loses to UE 1 at 1.2 times its own (round robin would
        // pick UE 0 first).
        assert_eq!(pf.pick(t, |u| Some([10_000_000, 48_000_000][u])), Some(1));
        // Now UE 0 is at 1.5 times its average, UE 1 at its average but 2.7 times UE 0's
        // rate: UE 0 (a max-rate scheduler would pick UE 1 again).
        assert_eq!(pf.pick(t, |u| Some([15_000_000, 40_000_000][u])), Some(0));
        // A UE that may not be served now (no backlog, rate 0) is never picked.
        assert_eq!(pf.pick(t, |u| [Some(0), None][u]), None);
    }

    #[test]
    fn pf_gives_equal_airtime_to_fixed_rates_and_each_ue_its_peaks_when_they_fade() {
        // Fixed rates 5, 20 and 50 Mb/s: the long-run PF allocation is equal time shares.
        let rates = [5_000_000u64, 20_000_000, 50_000_000];
        let (air, bits) = run(3, 20.0, |u, _| rates[u]);
        let total: f64 = air.iter().sum();
        for u in 0..3 {
            let share = air[u] / total;
            assert!((share - 1.0 / 3.0).abs() < 0.01, "UE {u}: airtime share {share}");
            let got = bits[u] / 20.0;
            assert!((got / (rates[u] as f64 / 3.0) - 1.0).abs() < 0.03, "UE {u}: {got} bit/s");
        }
        // Two UEs whose rates alternate in opposite phase every 50 ms between their low and
        // high: PF serves each mostly at its peak, so each gets more than half its mean rate
        // (round robin would give exactly half) and the airtime stays shared equally.
        let fading = |u: usize, t: SimTime| {
            let high = (t / 50_000_000 + u as u64).is_multiple_of(2);
            let base = [10_000_000u64, 40_000_000][u];
            if high {
                base * 3 / 2
            } else {
                base / 2
            }
        };
        let (air, bits) = run(2, 20.0, fading);
        let total: f64 = air.iter().sum();
        for u in 0..2 {
            let mean = [10e6, 40e6][u];
            assert!(bits[u] / 20.0 > 0.6 * mean, "UE {u}: {} of mean {mean}", bits[u] / 20.0);
            assert!((air[u] / total - 0.5).abs() < 0.05, "UE {u}: airtime {}", air[u] / total);
        }
    }
}

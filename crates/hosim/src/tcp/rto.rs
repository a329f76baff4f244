//! The retransmission timeout estimator of RFC 6298, Linux's variant of it
//! (`tcp.rto_formula = "linux"`, `RtoFormula::Linux`) and ns-2.35's in whole ticks
//! (`tcp.rto_formula = "ns2"`, `RtoFormula::Ns2`).

use crate::engine::time::SimTime;
use crate::tcp::config::RtoFormula;

/// Linux `tcp_rtt_estimator` state (net/ipv4/tcp_input.c), in ns: `mdev_us` (4 mdev),
/// `mdev_max_us`, `rttvar_us` and `rtt_seq`.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxVar {
    mdev4_ns: u64,
    mdev_max_ns: u64,
    rttvar_ns: u64,
    rtt_seq: u64,
}

/// ns-2.35 `TcpAgent` estimator state (tcp/tcp.h): `t_srtt_` in 1/8 tick, `t_rttvar_` in
/// 1/4 tick (0 `t_srtt_`: no sample yet, or forgotten by `rtt_backoff`).
#[derive(Clone, Copy, Debug, Default)]
struct Ns2Ticks {
    srtt8: i64,
    rttvar4: i64,
}

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt_ns: Option<u64>,
    rttvar_ns: u64,
    min_ns: u64,
    max_ns: u64,
    initial_ns: u64,
    granularity_ns: u64,
    /// Number of back-to-back doublings since the last valid sample (RFC 6298 §5.5).
    backoff: u32,
    /// RTO before backoff, clamped to [min, max].
    base_ns: u64,
    /// The most recent measurement R.
    latest_rtt_ns: Option<SimTime>,
    /// The smallest R since creation: RACK.min_RTT (RFC 8985 §6.2 step 1), which `reset`
    /// keeps.
    min_rtt_ns: Option<SimTime>,
    /// Some: Linux's formula (`RtoFormula::Linux`) and its state.
    linux: Option<LinuxVar>,
    /// Some: ns-2's formula (`RtoFormula::Ns2`) and its state.
    ns2: Option<Ns2Ticks>,
}

impl RtoEstimator {
    pub fn new(min_ns: u64, initial_ns: u64, max_ns: u64, granularity_ns: u64) -> Self {
        RtoEstimator {
            srtt_ns: None,
            rttvar_ns: 0,
            min_ns,
            max_ns,
            initial_ns,
            granularity_ns,
            backoff: 0,
            // RFC 6298 (2.1): until a measurement is made, RTO = initial RTO.
            base_ns: initial_ns.clamp(min_ns.min(initial_ns), max_ns),
            latest_rtt_ns: None,
            min_rtt_ns: None,
            linux: None,
            ns2: None,
        }
    }

    /// The formula the RTO is computed with (`tcp.rto_formula`).
    pub fn with_formula(mut self, formula: RtoFormula) -> Self {
        self.linux = (formula == RtoFormula::Linux).then(LinuxVar::default);
        self.ns2 = (formula == RtoFormula::Ns2).then(Ns2Ticks::default);
        self
    }

    fn formula(&self) -> RtoFormula {
        match (self.linux.is_some(), self.ns2.is_some()) {
            (true, _) => RtoFormula::Linux,
            (_, true) => RtoFormula::Ns2,
            _ => RtoFormula::Rfc6298,
        }
    }

    /// Back to the state before any measurement: RFC 6298 (2.1), RTO = initial RTO "until a
    /// round-trip time (RTT) measurement has been made", no backoff, SRTT, RTTVAR and the
    /// latest sample forgotten. For a sender whose path changed so much that the old estimates
    /// say nothing about the new one (TCP-CLAH's and Daniel & Kojo's "reset RTT and RTO
    /// estimations").
    ///
    /// The minimum RTT stays: it is RACK.min_RTT, RACK's own state, not the RTO estimation's.
    /// RFC 8985 §6.2 step 1 lets it follow a move to a longer path by a windowed min filter
    /// ("that can adapt when migrating to significantly longer paths"), not by a reset; Linux
    /// keeps it in a filter apart from SRTT and RTTVAR (`tcp_update_rtt_min`, 300 s window),
    /// and ns-3, the vertical-handoff paper's referee, in `TcpSocketState::m_minRtt`, which
    /// `RttEstimator::Reset` does not touch. Forgetting it left RACK without a reordering
    /// window through the reordering a handoff causes (docs/tcp.md, "RTT reset at a path
    /// change").
    pub fn reset(&mut self) {
        let formula = self.formula();
        let min_rtt_ns = self.min_rtt_ns;
        *self = RtoEstimator::new(self.min_ns, self.initial_ns, self.max_ns, self.granularity_ns).with_formula(formula);
        self.min_rtt_ns = min_rtt_ns;
    }

    /// Feeds one RTT measurement R taken at `now` by an ACK that moved snd_una to `snd_una`,
    /// with `snd_nxt` the highest sequence sent: the round trip Linux's formula tracks.
    pub fn sample_at(&mut self, now: SimTime, r_ns: SimTime, snd_una: u64, snd_nxt: u64) {
        if self.linux.is_some() {
            self.sample_linux(r_ns, snd_una, snd_nxt);
        } else if self.ns2.is_some() {
            self.sample_ns2(now, r_ns);
        } else {
            self.sample(r_ns);
        }
    }

    /// ns-2.35 `TcpAgent::rtt_update` without timestamps (tcp/tcp.cc): the sample is the
    /// number of tick boundaries between the send time and `now`, `int((tao + tickoff) /
    /// tcp_tick_)` with `tickoff = fmod(sendtime, tcp_tick_)`, at least 1; then Jacobson's
    /// integer update with `t_srtt_` in 1/8 and `t_rttvar_` in 1/4 tick, and `t_rtxcur_ =
    /// ((t_rttvar_ << 3) + t_srtt_) >> 3` ticks (`rttvar_exp_` 2). `rtt_timeout`: at least
    /// `minrto_` (`rfc2988_`: before the backoff) and two ticks, at most `maxrto_`.
    fn sample_ns2(&mut self, now: SimTime, r_ns: SimTime) {
        self.latest_rtt_ns = Some(r_ns);
        self.min_rtt_ns = Some(self.min_rtt_ns.map_or(r_ns, |m| m.min(r_ns)));
        let tick = self.granularity_ns.max(1);
        let sent = now.saturating_sub(r_ns);
        let t_rtt = ((now / tick) as i64 - (sent / tick) as i64).max(1);
        let mut v = self.ns2.unwrap_or_default();
        if v.srtt8 != 0 {
            let delta = t_rtt - (v.srtt8 >> 3);
            v.srtt8 += delta;
            if v.srtt8 <= 0 {
                v.srtt8 = 1;
            }
            v.rttvar4 += delta.abs() - (v.rttvar4 >> 2);
            if v.rttvar4 <= 0 {
                v.rttvar4 = 1;
            }
        } else {
            v.srtt8 = t_rtt << 3;
            v.rttvar4 = t_rtt << 1;
        }
        self.ns2 = Some(v);
        self.srtt_ns = Some(v.srtt8 as u64 * tick / 8);
        self.rttvar_ns = v.rttvar4 as u64 * tick / 4;
        let rtxcur_ns = (((v.rttvar4 << 3) + v.srtt8) >> 3) as u64 * tick;
        self.base_ns = rtxcur_ns.max(self.min_ns).max(2 * tick).min(self.max_ns);
        self.backoff = 0;
    }

    /// Linux `tcp_rtt_estimator` and `__tcp_set_rto`: RTO = SRTT + rttvar, rttvar the largest
    /// 4 mdev seen in the current round trip and never below the minimum RTO.
    fn sample_linux(&mut self, m: SimTime, snd_una: u64, snd_nxt: u64) {
        self.latest_rtt_ns = Some(m);
        self.min_rtt_ns = Some(self.min_rtt_ns.map_or(m, |x| x.min(m)));
        let mut v = self.linux.unwrap_or_default();
        match self.srtt_ns {
            None => {
                // "no previous measure": srtt = m, mdev = m/2 (4 mdev = 2m), rttvar at least
                // tcp_rto_min.
                self.srtt_ns = Some(m);
                v.mdev4_ns = 2 * m;
                v.rttvar_ns = v.mdev4_ns.max(self.min_ns);
                v.mdev_max_ns = v.rttvar_ns;
                v.rtt_seq = snd_nxt;
            }
            Some(srtt) => {
                // srtt += (m - srtt) / 8
                let err = m as i64 - srtt as i64;
                self.srtt_ns = Some((srtt as i64 + err / 8).max(1) as u64);
                // mdev = 3/4 mdev + 1/4 |err|, with gain 1/32 when m < srtt and |err| > mdev.
                let mut e = err.abs() - (v.mdev4_ns / 4) as i64;
                if err < 0 && e > 0 {
                    e >>= 3;
                }
                v.mdev4_ns = (v.mdev4_ns as i64 + e).max(0) as u64;
                if v.mdev4_ns > v.mdev_max_ns {
                    v.mdev_max_ns = v.mdev4_ns;
                    v.rttvar_ns = v.rttvar_ns.max(v.mdev_max_ns);
                }
                if snd_una > v.rtt_seq {
                    // A round trip has passed: rttvar decays towards this round's mdev_max.
                    if v.mdev_max_ns < v.rttvar_ns {
                        v.rttvar_ns -= (v.rttvar_ns - v.mdev_max_ns) / 4;
                    }
                    v.rtt_seq = snd_nxt;
                    v.mdev_max_ns = self.min_ns;
                }
            }
        }
        self.linux = Some(v);
        self.rttvar_ns = v.mdev4_ns / 4;
        // `tcp_set_rto` / `tcp_bound_rto`: srtt + rttvar, at most TCP_RTO_MAX.
        self.base_ns = (self.srtt_ns.unwrap_or(0) + v.rttvar_ns).min(self.max_ns);
        self.backoff = 0;
    }

    /// Feeds one RTT measurement R. The caller applies Karn's rule (RFC 6298 §3): it never
    /// passes a sample taken from a retransmitted segment.
    ///
    /// Inlined at its calls, as the profile-guided build does (bench/decisions.md, "Kept: five
    /// small functions inlined at their calls").
    #[inline(always)]
    pub fn sample(&mut self, r_ns: SimTime) {
        self.latest_rtt_ns = Some(r_ns);
        self.min_rtt_ns = Some(self.min_rtt_ns.map_or(r_ns, |m| m.min(r_ns)));
        match self.srtt_ns {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2.
                self.srtt_ns = Some(r_ns);
                self.rttvar_ns = r_ns / 2;
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'| (computed first),
                // SRTT <- 7/8 SRTT + 1/8 R'.
                let err = srtt.abs_diff(r_ns);
                self.rttvar_ns = (3 * self.rttvar_ns + err) / 4;
                self.srtt_ns = Some((7 * srtt + r_ns) / 8);
            }
        }
        // RTO <- SRTT + max(G, K*RTTVAR), K = 4; (2.4) rounded up to the minimum; (2.5) capped.
        let srtt = self.srtt_ns.unwrap_or(0);
        let rto = srtt + self.granularity_ns.max(4 * self.rttvar_ns);
        self.base_ns = rto.clamp(self.min_ns, self.max_ns);
        // A new sample after backoff recomputes the RTO from the estimator (RFC 6298 §5.7 note).
        self.backoff = 0;
    }

    /// RFC 6298 (5.5): the timer expired; double the RTO, up to the maximum.
    pub fn back_off(&mut self) {
        if self.rto_ns() < self.max_ns {
            self.backoff += 1;
        }
        // ns-2 `rtt_backoff`: once `t_backoff_` passes 8, `t_rttvar_ += t_srtt_ >> 3` and
        // `t_srtt_ = 0`, so the next sample starts the estimator afresh.
        if let Some(v) = self.ns2.as_mut().filter(|v| self.backoff > 3 && v.srtt8 != 0) {
            v.rttvar4 += v.srtt8 >> 3;
            v.srtt8 = 0;
        }
    }

    /// RFC 6298 (5.7): after a SYN retransmission, an RTO below 3 s is re-initialized to 3 s
    /// once data transmission begins (only when no RTT sample exists).
    pub fn reinit_after_syn_loss(&mut self, three_s_ns: u64) {
        if self.srtt_ns.is_none() && self.base_ns < three_s_ns {
            self.base_ns = three_s_ns.min(self.max_ns);
        }
        self.backoff = 0;
    }

    pub fn rto_ns(&self) -> SimTime {
        let shifted = self.base_ns.checked_shl(self.backoff).unwrap_or(u64::MAX);
        if self.backoff >= 63 {
            self.max_ns
        } else {
            shifted.min(self.max_ns)
        }
    }

    pub fn srtt_ns(&self) -> Option<SimTime> {
        self.srtt_ns
    }

    /// The most recent RTT measurement, if any.
    pub fn latest_rtt_ns(&self) -> Option<SimTime> {
        self.latest_rtt_ns
    }

    /// The smallest RTT measured since creation (RACK.min_RTT; `reset` keeps it).
    pub fn min_rtt_ns(&self) -> Option<SimTime> {
        self.min_rtt_ns
    }

    pub fn rttvar_ns(&self) -> SimTime {
        self.rttvar_ns
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    pub fn initial_ns(&self) -> SimTime {
        self.initial_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    fn est() -> RtoEstimator {
        // min 200 ms, initial 1 s, max 60 s, G = 1 ms.
        RtoEstimator::new(200 * MS, S, 60 * S, MS)
    }

    #[test]
    fn before_any_sample_rto_is_initial() {
        assert_eq!(est().rto_ns(), S);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.sample(100 * MS);
        assert_eq!(e.srtt_ns(), Some(100 * MS));
        assert_eq!(e.rttvar_ns(), 50 * MS);
        // 100 + 4*50 = 300 ms.
        assert_eq!(e.rto_ns(), 300 * MS);
    }

    #[test]
    fn later_samples_use_alpha_one_eighth_beta_one_quarter() {
        let mut e = est();
        e.sample(100 * MS);
        e.sample(200 * MS);
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 37.5 + 25 = 62.5 ms; SRTT = 7/8*100 + 1/8*200 = 112.5 ms.
        assert_eq!(e.rttvar_ns(), 62_500_000);
        assert_eq!(e.srtt_ns(), Some(112_500_000));
        // RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rto_ns(), 362_500_000);
    }

    #[test]
    fn small_rto_is_clamped_to_min() {
        let mut e = est();
        e.sample(10 * MS);
        // 10 + 4*5 = 30 ms < 200 ms.
        assert_eq!(e.rto_ns(), 200 * MS);
    }

    #[test]
    fn large_rto_is_clamped_to_max() {
        let mut e = est();
        e.sample(40 * S);
        assert_eq!(e.rto_ns(), 60 * S);
    }

    #[test]
    fn granularity_bounds_the_variance_term() {
        let mut e = RtoEstimator::new(0, S, 60 * S, 50 * MS);
        for _ in 0..50 {
            e.sample(100 * MS);
        }
        // RTTVAR decays towards 0, so the RTO approaches SRTT + G.
        assert_eq!(e.rto_ns(), 150 * MS);
    }

    #[test]
    fn backoff_doubles_and_caps_then_a_sample_resets_it() {
        let mut e = est();
        e.sample(100 * MS); // 300 ms
        e.back_off();
        assert_eq!(e.rto_ns(), 600 * MS);
        e.back_off();
        assert_eq!(e.rto_ns(), 1200 * MS);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto_ns(), 60 * S);
        e.sample(100 * MS);
        assert_eq!(e.backoff(), 0);
        assert!(e.rto_ns() < S);
    }

    #[test]
    fn karns_rule_is_the_callers_job_so_backoff_persists_without_samples() {
        let mut e = est();
        e.sample(100 * MS);
        e.back_off();
        // No sample from the retransmitted segment: the backed-off value stays.
        assert_eq!(e.rto_ns(), 600 * MS);
    }

    #[test]
    fn min_and_latest_follow_the_samples() {
        let mut e = est();
        e.sample(100 * MS);
        e.sample(80 * MS);
        e.sample(120 * MS);
        assert_eq!((e.min_rtt_ns(), e.latest_rtt_ns()), (Some(80 * MS), Some(120 * MS)));
    }

    #[test]
    fn reset_returns_to_the_initial_rto_and_keeps_only_the_min_rtt() {
        let mut e = est();
        e.sample(100 * MS);
        e.back_off();
        e.reset();
        assert_eq!(e.rto_ns(), S, "RFC 6298 (2.1): initial RTO until a measurement");
        assert_eq!((e.srtt_ns(), e.rttvar_ns(), e.backoff(), e.latest_rtt_ns()), (None, 0, 0, None));
        assert_eq!(e.min_rtt_ns(), Some(100 * MS), "RACK.min_RTT (RFC 8985 §6.2) survives");
        e.sample(140 * MS);
        assert_eq!(e.srtt_ns(), Some(140 * MS), "the next sample is a first sample (2.2)");
        assert_eq!(e.min_rtt_ns(), Some(100 * MS));
        e.sample(40 * MS);
        assert_eq!(e.min_rtt_ns(), Some(40 * MS));
    }

    #[test]
    fn syn_loss_reinitializes_to_three_seconds() {
        let mut e = est();
        e.back_off();
        e.reinit_after_syn_loss(3 * S);
        assert_eq!(e.rto_ns(), 3 * S);
    }

    /// ns-2.35 with `tcpTick_` 10 ms and no `minrto_` floor (`RtoFormula::Ns2`).
    fn ns2_ticks() -> RtoEstimator {
        RtoEstimator::new(0, 3 * S, 60 * S, 10 * MS).with_formula(RtoFormula::Ns2)
    }

    #[test]
    fn ns2_formula_counts_whole_ticks_and_truncates_the_rto_to_ticks() {
        // `rtt_update`: an 18 ms round trip sent at 0 crosses one tick boundary (1 tick):
        // t_srtt_ 8/8, t_rttvar_ 2/4, t_rtxcur_ = (16 + 8) >> 3 = 3 ticks. RFC 6298 gives
        // 18 + 4 x 9 = 54 ms from the same sample.
        let mut e = ns2_ticks();
        e.sample_at(18 * MS, 18 * MS, 0, 0);
        assert_eq!(e.rto_ns(), 30 * MS);
        // Sent at 5 ms, ACKed at 23 ms: two boundaries. delta = 2 - 1: t_srtt_ 9, t_rttvar_
        // 2 + 1 - (2 >> 2) = 3; t_rtxcur_ = (24 + 9) >> 3 = 4 ticks.
        e.sample_at(23 * MS, 18 * MS, 0, 0);
        assert_eq!(e.rto_ns(), 40 * MS);
        let mut rfc = RtoEstimator::new(0, 3 * S, 60 * S, 10 * MS);
        rfc.sample(18 * MS);
        assert_eq!(rfc.rto_ns(), 54 * MS);
    }

    #[test]
    fn ns2_formula_forgets_srtt_past_a_backoff_of_eight() {
        // `rtt_backoff`: the fourth doubling (t_backoff_ 16) folds t_srtt_ into t_rttvar_ and
        // zeroes it, so the next sample restarts the estimator: 3 ticks again, not 4.
        let mut e = ns2_ticks();
        e.sample_at(18 * MS, 18 * MS, 0, 0);
        e.sample_at(23 * MS, 18 * MS, 0, 0);
        for _ in 0..4 {
            e.back_off();
        }
        assert_eq!(e.rto_ns(), 16 * 40 * MS);
        e.sample_at(1018 * MS, 18 * MS, 0, 0);
        assert_eq!(e.rto_ns(), 30 * MS);
        // Three doublings keep it: delta 0, t_rtxcur_ stays 4 ticks.
        let mut e = ns2_ticks();
        e.sample_at(18 * MS, 18 * MS, 0, 0);
        e.sample_at(23 * MS, 18 * MS, 0, 0);
        for _ in 0..3 {
            e.back_off();
        }
        e.sample_at(1018 * MS, 18 * MS, 0, 0);
        assert_eq!(e.rto_ns(), 40 * MS);
    }

    #[test]
    fn ns2_formula_keeps_minrto_and_two_ticks_as_floors() {
        let mut e = RtoEstimator::new(200 * MS, 3 * S, 60 * S, 10 * MS).with_formula(RtoFormula::Ns2);
        e.sample_at(18 * MS, 18 * MS, 0, 0);
        assert_eq!(e.rto_ns(), 200 * MS, "`rtt_timeout`: minrto_ before the backoff");
        e.back_off();
        assert_eq!(e.rto_ns(), 400 * MS);
        // A sample inside one tick still counts one tick; the RTO is at least two.
        let mut e = ns2_ticks();
        e.sample_at(11 * MS, MS, 0, 0);
        assert_eq!(e.rto_ns(), 30 * MS);
        e.reset();
        assert_eq!(e.formula(), RtoFormula::Ns2, "reset keeps the formula");
    }
}

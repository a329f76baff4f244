//! HyStart++, RFC 9406: leave the initial slow start when the round's minimum RTT rises by
//! more than RttThresh over the previous round's, then grow a quarter as fast for up to
//! CSS_ROUNDS rounds (Conservative Slow Start) before congestion avoidance; a round whose
//! minimum RTT falls below the baseline again means the exit was spurious and slow start
//! resumes. The sender asks `on_ack` how the controller grows cwnd for each ACK of new data.
//!
//! Rounds are counted by sequence number (§4.2: windowEnd = SND.NXT at the start of a round;
//! the round ends when the ACK reaches it). Used only in the initial slow start (§4.2: "only
//! for the initial slow start"); the sender stops asking after the first congestion event.

use crate::engine::time::SimTime;

/// §4.3 constants.
pub const MIN_RTT_THRESH_NS: SimTime = 4_000_000;
pub const MAX_RTT_THRESH_NS: SimTime = 16_000_000;
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: u64 = 4;
pub const CSS_ROUNDS: u32 = 5;

/// How the controller grows cwnd for this ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Standard slow start.
    SlowStart,
    /// CSS: cwnd grows by the slow-start increase divided by CSS_GROWTH_DIVISOR.
    Conservative,
    /// CSS has lasted CSS_ROUNDS rounds: ssthresh = cwnd, congestion avoidance.
    EnterCongestionAvoidance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    SlowStart,
    /// cssBaselineMinRtt, and CSS rounds completed (the partial round of the transition
    /// counts once it ends).
    Css {
        baseline_ns: SimTime,
        rounds: u32,
    },
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    /// windowEnd: the round ends when the cumulative ACK reaches it.
    window_end: u64,
    last_round_min_ns: Option<SimTime>,
    current_round_min_ns: Option<SimTime>,
    samples: u32,
    phase: Phase,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart {
            window_end: 0,
            last_round_min_ns: None,
            current_round_min_ns: None,
            samples: 0,
            phase: Phase::SlowStart,
        }
    }
}

impl HyStart {
    /// §4.2 RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH)).
    pub fn rtt_thresh_ns(last_round_min_ns: SimTime) -> SimTime {
        (last_round_min_ns / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH_NS, MAX_RTT_THRESH_NS)
    }

    pub fn in_css(&self) -> bool {
        matches!(self.phase, Phase::Css { .. })
    }

    /// An ACK of new data in slow start: cumulative ACK `ack`, `snd_max` (SND.NXT for a new
    /// round), and the RTT sample it gave, if any. Returns how cwnd grows for it.
    pub fn on_ack(&mut self, ack: u64, snd_max: u64, rtt_sample_ns: Option<SimTime>) -> Growth {
        if self.phase == Phase::Done {
            return Growth::SlowStart;
        }
        if ack >= self.window_end && self.start_round(snd_max) {
            self.phase = Phase::Done;
            return Growth::EnterCongestionAvoidance;
        }
        let growth = if self.in_css() { Growth::Conservative } else { Growth::SlowStart };
        if let Some(r) = rtt_sample_ns {
            self.current_round_min_ns = Some(self.current_round_min_ns.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        self.check_delay();
        growth
    }

    /// A new round: lastRoundMinRTT = currentRoundMinRTT, currentRoundMinRTT = infinity,
    /// rttSampleCount = 0, windowEnd = SND.NXT. Returns true when CSS has now lasted
    /// CSS_ROUNDS rounds.
    fn start_round(&mut self, snd_max: u64) -> bool {
        self.last_round_min_ns = self.current_round_min_ns.take();
        self.samples = 0;
        self.window_end = snd_max;
        if let Phase::Css { rounds, .. } = &mut self.phase {
            *rounds += 1;
            return *rounds >= CSS_ROUNDS;
        }
        false
    }

    /// §4.2: with N_RTT_SAMPLE samples this round, slow start exits to CSS on an RTT increase
    /// of RttThresh over the last round; CSS goes back to slow start when the round's minimum
    /// falls below cssBaselineMinRtt.
    fn check_delay(&mut self) {
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        let Some(current) = self.current_round_min_ns else { return };
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min_ns {
                    if current >= last + Self::rtt_thresh_ns(last) {
                        self.phase = Phase::Css { baseline_ns: current, rounds: 0 };
                    }
                }
            }
            Phase::Css { baseline_ns, .. } if current < baseline_ns => self.phase = Phase::SlowStart,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// One round of eight ACKs with the given RTTs; the next round starts at `*seq`.
    fn round(h: &mut HyStart, seq: &mut u64, rtt_ms: f64) -> Vec<Growth> {
        let end = *seq + 8;
        let out = (0..8).map(|i| h.on_ack(*seq + i + 1, end + 1, Some((rtt_ms * MS as f64) as u64))).collect();
        *seq = end;
        out
    }

    #[test]
    fn rtt_thresh_is_an_eighth_of_the_last_round_clamped_to_4_and_16_ms() {
        assert_eq!(HyStart::rtt_thresh_ns(100 * MS), 12_500_000);
        assert_eq!(HyStart::rtt_thresh_ns(20 * MS), 4 * MS);
        assert_eq!(HyStart::rtt_thresh_ns(400 * MS), 16 * MS);
    }

    #[test]
    fn hystart_stays_in_slow_start_below_the_threshold_and_leaves_above_it() {
        let mut h = HyStart::default();
        let mut seq = 0;
        round(&mut h, &mut seq, 100.0);
        // 100 + 12.5 ms is the threshold: 112.4 ms stays in slow start.
        assert!(round(&mut h, &mut seq, 112.4).iter().all(|g| *g == Growth::SlowStart));
        assert!(!h.in_css());
        // RttThresh is now 112.4 / 8 = 14.05 ms: 127 ms leaves, after the eighth sample.
        let g = round(&mut h, &mut seq, 127.0);
        assert!(g.iter().all(|g| *g == Growth::SlowStart), "the exit applies from the next ACK");
        assert!(h.in_css());
        assert_eq!(round(&mut h, &mut seq, 127.0)[0], Growth::Conservative);
    }

    #[test]
    fn css_ends_in_congestion_avoidance_after_css_rounds() {
        let mut h = HyStart::default();
        let mut seq = 0;
        round(&mut h, &mut seq, 100.0);
        round(&mut h, &mut seq, 120.0);
        assert!(h.in_css());
        // The round of the transition ended with it: four more rounds of CSS.
        for _ in 0..4 {
            assert_eq!(round(&mut h, &mut seq, 120.0)[0], Growth::Conservative);
        }
        assert_eq!(h.on_ack(seq + 1, seq + 9, Some(120 * MS)), Growth::EnterCongestionAvoidance);
        assert_eq!(h.on_ack(seq + 2, seq + 9, Some(120 * MS)), Growth::SlowStart, "done");
    }

    #[test]
    fn css_resumes_slow_start_when_the_rtt_falls_below_the_baseline() {
        let mut h = HyStart::default();
        let mut seq = 0;
        round(&mut h, &mut seq, 100.0);
        round(&mut h, &mut seq, 120.0);
        assert!(h.in_css());
        round(&mut h, &mut seq, 110.0);
        assert!(!h.in_css(), "RFC 9406 §4.2: the exit was spurious");
    }

    #[test]
    fn fewer_than_n_rtt_sample_samples_decide_nothing() {
        let mut h = HyStart::default();
        let mut seq = 0;
        round(&mut h, &mut seq, 100.0);
        for i in 0..7 {
            h.on_ack(seq + i + 1, seq + 9, Some(200 * MS));
        }
        assert!(!h.in_css());
    }
}

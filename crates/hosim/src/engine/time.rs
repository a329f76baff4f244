//! Simulation time: unsigned integer nanoseconds. Floating point appears only at the edges
//! (scenario input in seconds, summaries in seconds), never in the event queue.

/// Simulation time in nanoseconds since the start of the run.
pub type SimTime = u64;

pub const NS_PER_S: u64 = 1_000_000_000;

/// The longest time a scenario may give, in seconds (1e18 ns): a sum of a few such times still
/// fits the u64 nanoseconds of [`SimTime`] (at most ~1.8e19 ns), so no time arithmetic wraps.
pub const MAX_TIME_S: f64 = 1e9;

/// The shortest non-zero time a scenario may give: one nanosecond, the engine's resolution.
pub const MIN_NONZERO_TIME_S: f64 = 1e-9;

/// Converts seconds to nanoseconds, rounding to the nearest nanosecond.
pub fn s_to_ns(seconds: f64) -> SimTime {
    debug_assert!(seconds >= 0.0 && seconds.is_finite());
    (seconds * NS_PER_S as f64).round() as SimTime
}

pub fn ns_to_s(ns: SimTime) -> f64 {
    ns as f64 / NS_PER_S as f64
}

/// Serialization time of `bytes` on a link of `rate_bps`, rounded up to whole nanoseconds
/// so that a link never transmits faster than its rate.
pub fn tx_time_ns(bytes: u32, rate_bps: u64) -> SimTime {
    debug_assert!(rate_bps > 0);
    // bytes * 8e9 stays below 2^64 for any packet under 2 GB, so u64 arithmetic is exact.
    let bit_ns = bytes as u64 * 8 * NS_PER_S;
    bit_ns.div_ceil(rate_bps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_full_packet_at_12_mbps_is_one_ms() {
        assert_eq!(tx_time_ns(1500, 12_000_000), 1_000_000);
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 b/s = 8/3 s = 2.666...e9 ns -> rounded up.
        assert_eq!(tx_time_ns(1, 3), 2_666_666_667);
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(s_to_ns(0.0025), 2_500_000);
        assert_eq!(ns_to_s(2_500_000), 0.0025);
    }
}

//! Linux's TCP timers on the jiffies timer wheel (`timer_wheel_hz`, a Linux dialect key).
//!
//! Linux arms its TCP timers in jiffies, ticks of 1/HZ s: `inet_csk_reset_xmit_timer` for the
//! retransmission timer (RTO, loss probe, RACK reorder timeout: one timer) and
//! `tcp_send_delayed_ack` for the delayed ACK set `expires = jiffies + timeout`, the timeout
//! rounded up to whole jiffies (`usecs_to_jiffies`; the RTO is kept in jiffies). The timer
//! wheel then fires the timer at the boundary of the bucket that holds `expires`
//! (kernel/time/timer.c `calc_wheel_index`, `calc_index`): the first tick after `expires`
//! below 63 jiffies ahead, the first multiple of 8 jiffies after it below 504, of 64 below
//! 4032, and so on (`LVL_CLK_SHIFT` 3), so that no timer fires early. The ticks are the
//! machine's, shared by every connection: timers of different flows fire together.

use crate::engine::time::SimTime;

/// `TCP_TIMEOUT_MIN_US`: the 2 ms that `tcp_schedule_loss_probe` adds to the loss probe's
/// 2·SRTT (more than one segment out) and `tcp_rack_mark_lost` to the reorder timeout before
/// converting them to jiffies.
pub const TCP_TIMEOUT_MIN_NS: SimTime = 2_000_000;

/// Levels of the wheel (`LVL_DEPTH` for HZ > 100).
const LEVELS: u32 = 9;
/// `LVL_CLK_SHIFT`: each level's granularity is 8 times the one below.
const CLK_SHIFT: u32 = 3;
/// `LVL_SIZE - 1`: the first level holds timers less than 63 jiffies ahead.
const LEVEL0_SPAN: u64 = 63;

/// When a timer armed at `now` for `timeout` fires: exactly `now + timeout` with `hz` 0,
/// otherwise on the timer wheel of a kernel built with `CONFIG_HZ = hz`.
pub fn expiry(now: SimTime, timeout: SimTime, hz: u32) -> SimTime {
    if hz == 0 {
        return now + timeout;
    }
    let jiffy = 1_000_000_000 / hz as u64;
    let jiffies = now / jiffy;
    let delta = timeout.div_ceil(jiffy);
    let expires = jiffies + delta;
    // `calc_wheel_index`: the level whose span holds the delta (LVL_START(n) = 63 << 3(n-1)).
    let mut level = 0;
    while level + 1 < LEVELS && delta >= LEVEL0_SPAN << (CLK_SHIFT * level) {
        level += 1;
    }
    // `calc_index`: "Round up with level granularity" so the timer never fires early.
    let shift = CLK_SHIFT * level;
    let bucket = ((expires >> shift) + 1) << shift;
    bucket * jiffy
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = 1_000_000;

    #[test]
    fn exact_without_a_wheel() {
        assert_eq!(expiry(123 * MS + 7, 40 * MS, 0), 163 * MS + 7);
    }

    #[test]
    fn short_timer_fires_on_the_tick_after_its_expiry() {
        // HZ 250: 4 ms jiffies. Armed at 10.5 ms (jiffy 2) for 12.2 ms (4 jiffies):
        // expires = jiffy 6, fires at tick 7 = 28 ms.
        assert_eq!(expiry(10_500_000, 12_200_000, 250), 28 * MS);
        // A 40 ms delayed ACK armed on a tick: 10 jiffies, the tick after: 44 ms later.
        assert_eq!(expiry(400 * MS, 40 * MS, 250), 444 * MS);
    }

    #[test]
    fn timers_of_different_flows_fire_on_the_same_tick() {
        let a = expiry(1_000_100, 20 * MS, 250);
        let b = expiry(3_999_900, 20 * MS - 3 * MS, 250);
        assert_eq!(a, b);
        assert_eq!(a % (4 * MS), 0);
    }

    #[test]
    fn long_timer_rounds_to_eight_jiffies() {
        // 260 ms = 65 jiffies >= 63: level 1, a multiple of 8 jiffies (32 ms) after expiry.
        let t = expiry(1000 * MS, 260 * MS, 250);
        assert_eq!(t % (32 * MS), 0);
        assert!(t > 1260 * MS && t <= 1260 * MS + 32 * MS, "{t}");
        // 2.5 s = 625 jiffies >= 504: level 2, a multiple of 64 jiffies (256 ms).
        let t = expiry(1000 * MS, 2500 * MS, 250);
        assert_eq!(t % (256 * MS), 0);
        assert!(t > 3500 * MS && t <= 3500 * MS + 256 * MS, "{t}");
    }

    #[test]
    fn never_early() {
        for hz in [100, 250, 300, 1000] {
            for now in (0..50_000_000u64).step_by(777_777) {
                for timeout in [1, 999_999, 2 * MS, 40 * MS, 123_456_789, 3_000 * MS] {
                    let t = expiry(now, timeout, hz);
                    assert!(t >= now + timeout, "hz {hz} now {now} timeout {timeout}: {t}");
                    assert_eq!(t % (1_000_000_000 / hz as u64), 0);
                }
            }
        }
    }
}

//! What a mobility mechanism tells a TCP sender when its packets start taking another path
//! (a handover, a vertical handoff between access technologies). Congestion controllers and
//! loss recovery receive it through their `on_path_change` hooks; standard TCP ignores it,
//! a cross-layer TCP (e.g. TCP-CLAH) resets its estimates from it.

use crate::engine::time::SimTime;

/// Access technology of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Wired,
    Wlan,
    Cellular,
    /// The mechanism does not say.
    Unknown,
}

/// How the path changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handoff {
    /// Another cell or access point of the same technology.
    Horizontal,
    /// Another access technology (e.g. WLAN to cellular).
    Vertical,
}

/// How the new path's delay compares with the old one's, as a cross-layer notification says
/// (Sinky & Hamdaoui, TCP-CLAH, Sec. IV.A: "handoff to low-delay" / "to high-delay").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayShift {
    ToLowDelay,
    ToHighDelay,
    /// The mechanism does not say.
    Unknown,
}

/// A path change as the mechanism knows it at the moment the sender is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathChange {
    pub handoff: Handoff,
    /// Access technology of the new path.
    pub access: AccessKind,
    /// Round-trip propagation delay of the new path, without queueing, if known.
    pub base_rtt_ns: Option<SimTime>,
    /// Bottleneck rate of the new path, if known.
    pub rate_hint_bps: Option<u64>,
    /// Forward plus backward hop count of the new path, N = n + m of Sinky & Hamdaoui eq. (3).
    pub hops: Option<u32>,
    pub delay: DelayShift,
}

impl PathChange {
    /// Bandwidth-delay product of the new path, rate * base RTT, when both are known.
    pub fn bdp_bytes(&self) -> Option<u64> {
        let rtt_ns = self.base_rtt_ns? as u128;
        let rate_bps = self.rate_hint_bps? as u128;
        Some((rate_bps * rtt_ns / 8 / 1_000_000_000) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdp_is_rate_times_base_rtt_in_bytes() {
        let change = PathChange {
            handoff: Handoff::Vertical,
            access: AccessKind::Cellular,
            base_rtt_ns: Some(100_000_000),
            rate_hint_bps: Some(8_000_000),
            hops: None,
            delay: DelayShift::ToHighDelay,
        };
        assert_eq!(change.bdp_bytes(), Some(100_000), "8 Mbit/s * 100 ms = 100 kB");
        assert_eq!(PathChange { rate_hint_bps: None, ..change }.bdp_bytes(), None);
    }
}

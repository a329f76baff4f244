//! Applications that feed a TCP sender: an infinite bulk source, a file of N bytes, and a
//! source limited to R bit/s.

use crate::engine::time::{tx_time_ns, SimTime};

/// The fastest rate source accepted (bit/s): 1 Tb/s. Its bytes over the longest run (1e6 s)
/// stay far below 2^64, and the rate is above any link a scenario here models.
pub const MAX_RATE_BPS: f64 = 1e12;

/// A rate source writes at most one chunk per this interval: a faster source writes several
/// segments per chunk instead (so the events per simulated second stay bounded whatever the
/// rate). Only rates above 8 * MSS per microsecond (11.68 Gb/s for 1460 bytes) are affected.
pub const MIN_RATE_TICK_NS: u64 = 1_000;

/// Bytes per chunk of a rate source of `rate_bps` sending `mss`-byte segments: one segment, or
/// as many segments as the source writes in [`MIN_RATE_TICK_NS`] if one would take less.
pub fn rate_chunk_bytes(mss: u32, rate_bps: u64) -> u32 {
    if tx_time_ns(mss, rate_bps) >= MIN_RATE_TICK_NS {
        return mss;
    }
    // Segments written in MIN_RATE_TICK_NS: rate * tick / (8 * 1e9 * mss), rounded up.
    let segs = (rate_bps as u128 * MIN_RATE_TICK_NS as u128).div_ceil(8_000_000_000 * mss as u128);
    (segs * mss as u128).min(u32::MAX as u128 / mss as u128 * mss as u128) as u32
}

#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// Always has data (FTP-like).
    Bulk,
    /// Exactly `bytes` bytes, then nothing.
    File { bytes: u64 },
    /// Writes one `chunk_bytes` chunk every chunk_bytes*8/rate seconds, up to `bytes` if set
    /// (`chunk_bytes` from [`rate_chunk_bytes`]).
    Rate { rate_bps: u64, chunk_bytes: u32, bytes: Option<u64> },
    /// The sending half of a split connection: its data is what another flow delivers in order
    /// at this flow's source (see `Flow::relay_to`).
    Relay,
}

impl App {
    /// Bytes available to the sender at connection start.
    pub fn initial_bytes(&self) -> u64 {
        match self {
            App::Bulk => u64::MAX,
            App::File { bytes } => *bytes,
            App::Rate { .. } | App::Relay => 0,
        }
    }

    /// For rate-limited sources, the interval between chunks.
    pub fn tick_ns(&self) -> Option<SimTime> {
        match self {
            App::Rate { rate_bps, chunk_bytes, .. } => Some(tx_time_ns(*chunk_bytes, *rate_bps)),
            _ => None,
        }
    }

    /// The chunk to write at the next tick given what was written so far (0: the source is done).
    pub fn next_chunk(&self, written: u64) -> u64 {
        match self {
            App::Rate { chunk_bytes, bytes, .. } => {
                let left = bytes.map_or(u64::MAX, |b| b.saturating_sub(written));
                left.min(*chunk_bytes as u64)
            }
            _ => 0,
        }
    }

    /// Total bytes the application will ever send, if finite.
    pub fn total_bytes(&self) -> Option<u64> {
        match self {
            App::Bulk => None,
            App::File { bytes } => Some(*bytes),
            App::Rate { bytes, .. } => *bytes,
            App::Relay => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            App::Bulk => "bulk",
            App::File { .. } => "file",
            App::Rate { .. } => "rate",
            App::Relay => "relay",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_source_ticks_at_its_rate_and_stops_at_its_size() {
        let app = App::Rate { rate_bps: 1_000_000, chunk_bytes: 1000, bytes: Some(2500) };
        assert_eq!(app.tick_ns(), Some(8_000_000));
        assert_eq!(app.next_chunk(0), 1000);
        assert_eq!(app.next_chunk(2000), 500);
        assert_eq!(app.next_chunk(2500), 0);
    }
}

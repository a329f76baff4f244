//! UDP-like saturation of an 802.11 medium (`net::wifi`): `n` stations always have a frame
//! of a 1500-byte IP packet for the AP, which sends nothing but ACKs. Prints one JSON line
//! per case (the hosim side of bench/ns3/wifi/).
//!
//! cargo run -p hosim --example wifi_saturation -- [seconds]

use hosim::engine::rng::{stream_rng, StreamKind};
use hosim::net::wifi::{Medium, Standard, Timing};

fn main() {
    let secs: f64 = std::env::args().nth(1).map_or(2.0, |s| s.parse().expect("seconds"));
    let span_ns = (secs * 1e9) as u64;
    let g = Standard::G { short_slot: true };
    let b = Standard::B { short_preamble: false };
    let cases = [(g, 6e6), (g, 24e6), (g, 54e6), (b, 1e6), (b, 5.5e6), (b, 11e6)];
    for n in [1usize, 4] {
        for (std, rate) in cases {
            let timing = Timing::new(std, rate as u64, std.default_basic_rates_bps());
            // Station 0 is the AP; 1..=n send.
            let mut m = Medium::new(timing, n + 1, 0.0, 7, stream_rng(1, StreamKind::Link, 0));
            for s in 1..=n {
                m.frame_ready(s, 1500, 0);
            }
            let mut frames = 0u64;
            while let Some(at) = m.next_access() {
                if at > span_ns {
                    break;
                }
                let ex = m.access(at);
                for s in 1..=n {
                    if ex.heads_done() & (1 << s) != 0 {
                        frames += ex.received as u64;
                        m.frame_ready(s, 1500, ex.end_ns);
                    }
                }
            }
            let name = if matches!(std, Standard::G { .. }) { "802.11g" } else { "802.11b" };
            println!(
                "{{\"standard\": \"{name}\", \"rate_bps\": {rate}, \"stations\": {n}, \"throughput_bps\": {}, \"collisions\": {}, \"successes\": {}}}",
                frames as f64 * 12_000.0 / secs,
                m.stats.collisions,
                m.stats.successes
            );
        }
    }
}

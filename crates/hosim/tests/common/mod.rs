//! Shared fixtures for the integration tests.
#![allow(dead_code)]

use hosim::scenario;
use hosim::sim::World;

/// Builds and runs a scenario from TOML text, returning the finished world.
pub fn run_world(text: &str, seed: u64, traces: bool) -> World {
    let s = scenario::load(text, "test", &[]).expect("valid scenario");
    let mut sim = scenario::build::build(&s, "test", seed).expect("buildable scenario");
    sim.world.obs.set_tracing(traces);
    sim.run();
    let bad = hosim::metrics::summary::check_invariants(&sim);
    assert!(bad.is_empty(), "invariants: {bad:?}");
    sim.world
}

/// Sender -> 100 Mb/s 1 ms -> router -> `rate` b/s, 19 ms -> receiver; a single bulk flow
/// with the given TCP table and extra flow keys. Queues are large: no congestion drops.
pub fn line(tcp: &str, flow_extra: &str, duration_s: f64, rate_bps: f64) -> String {
    format!(
        r#"
duration_s = {duration_s}
[tcp]
{tcp}
[[nodes]]
name = "snd"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "rcv"
kind = "host"
[[links]]
from = "snd"
to = "r"
rate_bps = 100e6
delay_s = 0.001
queue_packets = 10000
[[links]]
from = "r"
to = "rcv"
rate_bps = {rate_bps}
delay_s = 0.019
queue_packets = 10000
[[flows]]
name = "f"
src = "snd"
dst = "rcv"
{flow_extra}
"#
    )
}

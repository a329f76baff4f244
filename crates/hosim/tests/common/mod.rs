//! Shared fixtures for the integration tests.
#![allow(dead_code)]

pub mod cellular;

use hosim::metrics::summary::{check_invariants, summary};
use hosim::scenario;
use hosim::sim::{Sim, World};

/// Builds a scenario from TOML text with `key=value` overrides, not yet run.
pub fn build_sim(text: &str, seed: u64, overrides: &[(&str, &str)]) -> Sim {
    let overrides: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let s = scenario::load(text, "test", &overrides).expect("valid scenario");
    scenario::build::build(&s, "test", seed).expect("buildable scenario")
}

/// A finished run's summary, checked for invariant violations, without what differs between
/// runs that must give the same results (wall time) or may execute different events (the
/// event count): pretty JSON text, and the event count.
pub fn results_without_events(sim: &Sim, seed: u64) -> (String, u64) {
    let bad = check_invariants(sim);
    assert!(bad.is_empty(), "invariants: {bad:?}");
    let mut v = summary(sim, "test", seed, 0.0, &bad);
    let events = v["events"].as_u64().expect("events");
    let o = v.as_object_mut().unwrap();
    o.remove("events");
    o.remove("wall_time_s");
    (serde_json::to_string_pretty(&v).unwrap(), events)
}

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

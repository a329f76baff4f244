//! Shared helpers of the `cellular` tests: runs of a preset or of TOML text with overrides,
//! reading the summary, and the one-handover network most of them start from.

use hosim::RunOptions;
use serde_json::Value;

/// The cellular preset, which most cellular tests change with overrides.
pub const PRESET: &str = "cellular";

pub fn preset(name: &str) -> &'static str {
    hosim::scenario::presets::find(name).expect("preset")
}

/// Runs scenario `text` (named `name` in errors) with `key=value` overrides; every run checks
/// packet conservation and in-order delivery, and a violation is an error here.
pub fn try_run(text: &str, name: &str, kv: &[(&str, &str)], seed: u64) -> Result<Value, String> {
    let overrides = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let opts = RunOptions { seed: Some(seed), overrides, traces: false, ..Default::default() };
    hosim::run(text, name, &opts).map(|o| o.summary).map_err(|e| e.to_string())
}

/// As [`try_run`], panicking on an error.
pub fn run(text: &str, name: &str, kv: &[(&str, &str)], seed: u64) -> Value {
    try_run(text, name, kv, seed).unwrap_or_else(|e| panic!("{name} {kv:?}: {e}"))
}

/// A run of the cellular preset with overrides.
pub fn summary(kv: &[(&str, &str)], seed: u64) -> Value {
    run(preset(PRESET), PRESET, kv, seed)
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

pub fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// One UE, two cells, one scheduled handover at 2 s, 5 s; the receive window keeps the
/// cell's buffer from overflowing, so any loss or retransmission is the handover's.
pub fn one_handover<'a>(scheme: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut kv = vec![
        ("duration_s", "5"),
        ("cellular.cells", "2"),
        ("cellular.ues", "1"),
        ("cellular.speed_mps", "0"),
        ("cellular.handovers", "[{at_s = 2.0, ue = 0, target = 1}]"),
        ("cellular.scheme", scheme),
        ("tcp.rwnd_bytes", "150000"),
    ];
    kv.extend_from_slice(extra);
    kv
}

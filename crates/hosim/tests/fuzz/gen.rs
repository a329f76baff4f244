//! Scenario fuzzing, shared by `tests/fuzz_scenarios.rs` (a short run in the suite) and
//! `examples/fuzz.rs` (the long run, one subprocess per scenario): mutated and extreme
//! scenarios from every preset, and the classification of what a run did.

#![allow(dead_code)] // shared by a test and an example, each using part of it

use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Keys worth setting whatever the preset (from docs/scenarios.md): the common ones.
const COMMON_KEYS: &[&str] = &[
    "duration_s",
    "seed",
    "trace.interval_s",
    "tcp.recovery",
    "tcp.mss_bytes",
    "tcp.header_bytes",
    "tcp.initial_window_segments",
    "tcp.initial_ssthresh_bytes",
    "tcp.dupack_threshold",
    "tcp.min_rto_s",
    "tcp.initial_rto_s",
    "tcp.max_rto_s",
    "tcp.clock_granularity_s",
    "tcp.delayed_ack",
    "tcp.delayed_ack_segments",
    "tcp.delayed_ack_timeout_s",
    "tcp.rwnd_bytes",
    "tcp.ecn",
];

/// Values of every kind, extreme ones first among the numbers.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "1e-12",
    "1e-9",
    "1e-300",
    "1e300",
    "1.9e10",
    "1e9",
    "1e6",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "-9223372036854775808",
    "nan",
    "inf",
    "-inf",
    "-0.0",
    "0.5",
    "\"x\"",
    "\"\"",
    "true",
    "false",
    "[]",
    "[1, 2]",
    "{}",
    "{ a = 1 }",
    "1979-05-27",
];

/// A scenario to try: its text, a label for the report.
pub struct Case {
    pub text: String,
    pub label: String,
}

/// Leaf keys of a table, dotted (array elements as `key[i]`).
fn leaves(t: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in t {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(inner) => leaves(inner, &path, out),
            _ => out.push(path),
        }
    }
}

fn set_path(t: &mut toml::Table, path: &str, v: Option<toml::Value>) {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().expect("a key");
    let mut cur = t;
    for p in parts {
        let entry = cur.entry(p.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match entry {
            toml::Value::Table(inner) => cur = inner,
            _ => return,
        }
    }
    match v {
        Some(v) => {
            cur.insert(last.to_string(), v);
        }
        None => {
            cur.remove(last);
        }
    }
}

fn parse_value(raw: &str) -> Option<toml::Value> {
    let t: toml::Table = toml::from_str(&format!("v = {raw}")).ok()?;
    t.get("v").cloned()
}

/// Case `i` of the run with `seed`: deterministic.
pub fn case(seed: u64, i: u64) -> Case {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let presets = hosim::scenario::presets::PRESETS;
    let (name, _, text) = presets[rng.gen_range(0..presets.len())];
    let mut table: toml::Table = toml::from_str(text).expect("presets parse");
    // Keep runs short unless a mutation says otherwise.
    let dur = table.get("duration_s").and_then(|v| v.as_float()).unwrap_or(10.0);
    table.insert("duration_s".into(), toml::Value::Float(dur.min(5.0)));
    let mut keys = Vec::new();
    leaves(&table, "", &mut keys);
    keys.extend(COMMON_KEYS.iter().map(|k| k.to_string()));
    let mut label = vec![name.to_string()];
    for _ in 0..rng.gen_range(1..=3) {
        let key = keys.choose(&mut rng).expect("keys").clone();
        match rng.gen_range(0..10) {
            0 => {
                set_path(&mut table, &key, None);
                label.push(format!("-{key}"));
            }
            1 => {
                set_path(&mut table, &format!("{key}_typo"), Some(toml::Value::Integer(1)));
                label.push(format!("{key}_typo=1"));
            }
            _ => {
                let raw = *VALUES.choose(&mut rng).expect("values");
                // A value TOML cannot hold stays raw text: a syntax error to report.
                match parse_value(raw) {
                    Some(v) => set_path(&mut table, &key, Some(v)),
                    None => label.push(format!("(unparsable {raw})")),
                }
                label.push(format!("{key}={raw}"));
            }
        }
    }
    let mut text = toml::to_string(&table).unwrap_or_default();
    if rng.gen_range(0..20) == 0 && !text.is_empty() {
        // A syntax error somewhere.
        let junk = ["=", "[", "\"", "]]", "= =", "\u{0}"].choose(&mut rng).expect("junk");
        let mut at = rng.gen_range(0..text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.insert_str(at, junk);
        label.push(format!("syntax {junk:?}@{at}"));
    }
    Case { text, label: label.join(" ") }
}

/// What a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Ok,
    /// Refused as input, one line naming a key or a line.
    InputError,
    /// Refused, but the message names no key or line, or is not one line: a failure.
    VagueInputError,
    /// The wall-clock limit ended it while simulated time still advanced: a long run, not a
    /// hang (see [`run_case`]). Not a failure; the long run lists each with its projection.
    Slow,
    /// The wall-clock limit ended it and simulated time had stopped advancing: a failure (a hang).
    Timeout,
    /// Error::Internal or Error::Invariant: a failure.
    Internal,
    /// A panic, abort or signal: a failure.
    Crash,
}

impl Outcome {
    pub fn failed(self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::InputError | Outcome::Slow)
    }

    pub fn code(self) -> i32 {
        self as i32 + 10
    }

    pub fn from_code(c: i32) -> Option<Outcome> {
        [
            Outcome::Ok,
            Outcome::InputError,
            Outcome::VagueInputError,
            Outcome::Slow,
            Outcome::Timeout,
            Outcome::Internal,
            Outcome::Crash,
        ]
        .into_iter()
        .find(|o| o.code() == c)
    }
}

/// Runs `case` in this process, ended by the interrupt hook after `limit` of wall time.
/// Returns the outcome and the message, if any.
///
/// Hang or long run: a run the limit ends at simulated time t2 is run again (runs are
/// deterministic, so it retraces the same events) with half the limit, ending at t1. If t2 > t1
/// the simulation advanced during the second half of the window: [`Outcome::Slow`], reported
/// with the wall time it would need at that pace. Otherwise simulated time stood still for
/// `limit / 2` of wall time: [`Outcome::Timeout`], a hang. (A loop at one instant is also caught
/// by the core itself, as an internal error, after `sim::STUCK_EVENTS` events.)
pub fn run_case(case: &Case, limit: Duration) -> (Outcome, String) {
    match run_once(case, limit) {
        (Outcome::Timeout, _, Some(t2)) => {
            let (_, _, t1) = run_once(case, limit / 2);
            let t1 = t1.unwrap_or(f64::INFINITY); // finished within half the limit: no hang
            let duration = case_duration(case);
            if t2 > t1 {
                let pace = (t2 - t1) / (limit.as_secs_f64() / 2.0); // simulated s per wall s
                let needs = limit.as_secs_f64() + (duration - t2) / pace;
                let m = format!(
                    "slow: t = {t1} s at {:.1} s, {t2} s at {:.1} s of wall time (of duration_s = {duration}); \
                     about {needs:.0} s to finish",
                    limit.as_secs_f64() / 2.0,
                    limit.as_secs_f64()
                );
                (Outcome::Slow, m)
            } else {
                (Outcome::Timeout, format!("hang: simulated time stayed at {t2} s for {:?} of wall time", limit / 2))
            }
        }
        (o, m, _) => (o, m),
    }
}

/// The case's `duration_s` (for the projection of a slow run).
fn case_duration(case: &Case) -> f64 {
    let t: Option<toml::Table> = toml::from_str(&case.text).ok();
    t.and_then(|t| t.get("duration_s").and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))))
        .unwrap_or(f64::NAN)
}

/// One run: its outcome, message and, if the limit ended it, the simulated time reached.
fn run_once(case: &Case, limit: Duration) -> (Outcome, String, Option<f64>) {
    let t0 = Instant::now();
    let mut interrupt = || t0.elapsed() > limit;
    let opts = hosim::RunOptions { seed: Some(1), overrides: Vec::new(), traces: true, ..Default::default() };
    // Traces on (their code runs), chunks dropped (memory bounded however long the run).
    let mut sink = |_: hosim::TraceKind, _: &hosim::TraceTable, _: &[String]| Ok::<(), String>(());
    let mut hooks = hosim::RunHooks { interrupt: Some(&mut interrupt), trace_sink: Some(&mut sink) };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        hosim::run_with(&case.text, "fuzz.toml", &opts, &mut hooks).map(|_| ())
    }));
    match r {
        Err(_) => (Outcome::Crash, "panic".into(), None),
        Ok(Ok(())) => (Outcome::Ok, String::new(), None),
        Ok(Err(hosim::Error::Scenario(e))) => {
            let m = e.message;
            let names = m.contains("key `") || m.contains("line ") || m.contains('`');
            let o = if names && !m.contains('\n') { Outcome::InputError } else { Outcome::VagueInputError };
            (o, m, None)
        }
        Ok(Err(hosim::Error::Interrupted { at_s })) => {
            (Outcome::Timeout, format!("timeout at t = {at_s} s"), Some(at_s))
        }
        Ok(Err(e)) => (Outcome::Internal, e.to_string(), None),
    }
}

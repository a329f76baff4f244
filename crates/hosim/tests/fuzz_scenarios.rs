//! A short scenario-fuzzing run: mutated and extreme scenarios from every preset must end in
//! success or in one input-error line naming a key — never a panic, hang or internal error.
//! The long run is `cargo run --release --example fuzz -- --count 10000 --timeout 20`.

#[path = "fuzz/gen.rs"]
mod gen;

use std::time::Duration;

#[test]
fn mutated_presets_end_in_success_or_one_line_naming_a_key() {
    let count: u64 = std::env::var("HOSIM_FUZZ_COUNT").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    let mut failures = Vec::new();
    let mut counts = std::collections::BTreeMap::new();
    for i in 0..count {
        let case = gen::case(20261123, i);
        let (outcome, message) = gen::run_case(&case, Duration::from_secs(20));
        *counts.entry(outcome).or_insert(0u64) += 1;
        if outcome.failed() {
            failures.push(format!("case {i} [{}]: {outcome:?}: {message}", case.label));
        }
    }
    eprintln!("{count} cases: {counts:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

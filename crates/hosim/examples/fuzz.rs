//! The long scenario-fuzzing run: `cargo run --release --example fuzz -- --count 10000 --timeout 20`.
//! Every case runs in its own subprocess (so an abort or an allocation failure is caught, and a
//! hang is killed); the counts per outcome are printed at the end, failures as they happen.
//! A run the time limit ends is a hang only if its simulated time stopped advancing; one that
//! still advances is counted as `Slow` and listed with the wall time it would need
//! (`gen::run_case`). The backstop kill (a child that does not end itself) counts as a hang.

#[path = "../tests/fuzz/gen.rs"]
mod gen;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let timeout = Duration::from_secs(arg("--timeout", 20));
    let seed = arg("--seed", 20261123);
    if let Some(i) = args.iter().position(|a| a == "--one") {
        let n: u64 = args[i + 1].parse().expect("case number");
        let (outcome, message) = gen::run_case(&gen::case(seed, n), timeout);
        eprintln!("{message}");
        std::process::exit(outcome.code());
    }
    let count = arg("--count", 1000);
    let exe = std::env::current_exe().expect("own path");
    let mut counts: BTreeMap<gen::Outcome, u64> = BTreeMap::new();
    let t0 = Instant::now();
    for n in 0..count {
        let mut child = Command::new(&exe)
            .args(["--one", &n.to_string(), "--seed", &seed.to_string(), "--timeout", &timeout.as_secs().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let started = Instant::now();
        // The child ends itself at `timeout` (interrupt hook); this is the backstop.
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait") {
                break Some(s);
            }
            // A run the limit ends is run again with half the limit (gen::run_case).
            if started.elapsed() > timeout * 3 / 2 + Duration::from_secs(5) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut message = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut message);
        }
        let outcome = match status.and_then(|s| s.code()) {
            Some(c) => gen::Outcome::from_code(c).unwrap_or(gen::Outcome::Crash),
            None if status.is_none() => gen::Outcome::Timeout,
            None => gen::Outcome::Crash,
        };
        *counts.entry(outcome).or_default() += 1;
        if outcome.failed() || outcome == gen::Outcome::Slow {
            let case = gen::case(seed, n);
            let what = if outcome.failed() { "FAIL" } else { "SLOW" };
            println!("{what} case {n} [{}]: {outcome:?}: {}", case.label, message.trim());
        }
        if (n + 1) % 500 == 0 {
            eprintln!("{} cases, {:.0} s: {counts:?}", n + 1, t0.elapsed().as_secs_f64());
        }
    }
    println!("{count} cases in {:.0} s: {counts:?}", t0.elapsed().as_secs_f64());
    std::io::stdout().flush().ok();
    let failed: u64 = counts.iter().filter(|(o, _)| o.failed()).map(|(_, n)| n).sum();
    std::process::exit(if failed == 0 { 0 } else { 1 });
}

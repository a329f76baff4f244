//! Runs the `lte-x2` preset (or a scenario file) over a range of seeds and prints one JSON
//! object per run (the summary, plus the reference flow's cwnd/RTT/ssthresh traces with
//! `--traces`): a quick way to sweep seeds from the shell without the Python package (the
//! reproduction itself is `python -m hosim.reproduce.lte_x2`).
//!
//! `cargo run --release --example lte_x2 -- [--seeds A..B] [--traces] [SCENARIO] [key=value ...]`
use serde_json::json;

fn main() {
    let mut scenario = "lte-x2".to_string();
    let (mut first, mut last) = (1u64, 1u64);
    let mut traces = false;
    let mut sets = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--traces" {
            traces = true;
        } else if a == "--seeds" {
            let r = args.next().expect("--seeds A..B");
            let (a, b) = r.split_once("..").expect("--seeds A..B");
            first = a.parse().expect("seed");
            last = b.parse().expect("seed");
        } else if let Some((k, v)) = a.split_once('=') {
            sets.push((k.to_string(), v.to_string()));
        } else {
            scenario = a;
        }
    }
    let text = match hosim::scenario::presets::find(&scenario) {
        Some(t) => t.to_string(),
        None => std::fs::read_to_string(&scenario).expect("scenario file"),
    };
    for seed in first..=last {
        let opts = hosim::RunOptions { seed: Some(seed), overrides: sets.clone(), traces, ..Default::default() };
        match hosim::run(&text, &scenario, &opts) {
            Ok(out) => {
                let mut v = json!({ "summary": out.summary });
                if traces {
                    let r = out.flow_names.iter().position(|n| n == "ref").map(|i| i as u32);
                    for kind in [hosim::TraceKind::Cwnd, hosim::TraceKind::Rtt, hosim::TraceKind::Ssthresh] {
                        let t = out.traces.table(kind);
                        let rows: Vec<(f64, f64)> = (0..t.len())
                            .filter(|&i| Some(t.id[i]) == r)
                            .map(|i| (t.time_ns[i] as f64 / 1e9, t.value[i]))
                            .collect();
                        v[kind.names().0] = json!(rows);
                    }
                }
                println!("{v}");
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    }
}

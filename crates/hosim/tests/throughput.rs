//! Whole-run throughput checks: the Mathis loss-rate law and saturation/fairness on the
//! dumbbell.

mod common;

use serde_json::Value;

/// One flow over a loss-free reverse path and a lossy 100 Mb/s forward path (never the
/// bottleneck, so the loss rate alone limits the window).
fn lossy(p: f64, seed: u64) -> Value {
    let text = format!(
        r#"
duration_s = 300.0
[tcp]
recovery = "sack"
delayed_ack = false
[[nodes]]
name = "a"
kind = "host"
[[nodes]]
name = "b"
kind = "host"
[[links]]
from = "a"
to = "b"
rate_bps = 100e6
delay_s = 0.02
queue_packets = 10000
loss = {p}
bidirectional = false
[[links]]
from = "b"
to = "a"
rate_bps = 100e6
delay_s = 0.02
queue_packets = 10000
bidirectional = false
[[flows]]
src = "a"
dst = "b"
"#
    );
    let out = hosim::run(&text, "mathis", &hosim::RunOptions { seed: Some(seed), ..Default::default() }).expect("run");
    out.summary
}

#[test]
fn goodput_follows_the_mathis_law_within_30_percent() {
    for p in [0.005, 0.01] {
        let s = lossy(p, 7);
        let f = &s["flows"][0];
        let rtt = f["rtt_mean_s"].as_f64().unwrap();
        let goodput = f["goodput_bps"].as_f64().unwrap();
        // Mathis et al. (1997): BW = 1.22 * MSS / (RTT * sqrt(p)).
        let mathis = 1.22 * 1460.0 * 8.0 / (rtt * p.sqrt());
        let ratio = goodput / mathis;
        eprintln!("mathis p={p}: goodput {goodput:.0} b/s, model {mathis:.0} b/s, ratio {ratio:.3}");
        assert!((0.7..=1.3).contains(&ratio), "p={p}: goodput {goodput:.0} vs Mathis {mathis:.0} (ratio {ratio:.2})");
    }
}

#[test]
fn higher_loss_gives_lower_goodput() {
    let g = |p| lossy(p, 3)["flows"][0]["goodput_bps"].as_f64().unwrap();
    assert!(g(0.01) < g(0.005));
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

#[test]
fn dumbbell_four_flows_fill_the_bottleneck_fairly() {
    let text = hosim::scenario::presets::find("dumbbell").unwrap();
    let opts = hosim::RunOptions {
        seed: Some(1),
        overrides: vec![("dumbbell.flows".into(), "4".into()), ("duration_s".into(), "60".into())],
        traces: false,
        ..Default::default()
    };
    let s = hosim::run(text, "dumbbell", &opts).expect("run").summary;
    let goodputs: Vec<f64> =
        s["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap()).collect();
    assert_eq!(goodputs.len(), 4);
    let total: f64 = goodputs.iter().sum();
    // 12 Mb/s of 1500-byte packets carrying 1460 bytes of payload each.
    let payload_rate = 12e6 * 1460.0 / 1500.0;
    assert!(total >= 0.92 * payload_rate, "aggregate {total:.0} < 92% of {payload_rate:.0}");
    assert!(total <= payload_rate * 1.0001, "aggregate {total:.0} exceeds the bottleneck");
    let j = jain(&goodputs);
    eprintln!("dumbbell: aggregate {total:.0} b/s = {:.1}% of payload rate, Jain {j:.4}", 100.0 * total / payload_rate);
    assert!(j >= 0.85, "Jain fairness {j:.3}");
}

#[test]
fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_hog() {
    assert!((jain(&[1.0, 1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
    assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
}

#[test]
fn rate_limited_source_delivers_its_rate_not_the_link_rate() {
    let text = common::line("recovery = \"sack\"", "app = \"rate\"\nrate_bps = 2e6", 20.0, 10e6);
    let s = hosim::run(&text, "rate", &hosim::RunOptions::default()).expect("run").summary;
    let g = s["flows"][0]["goodput_bps"].as_f64().unwrap();
    // The source writes 2 Mb/s of payload; the path could carry 10 Mb/s. Allow for the data
    // still in flight at the end (one RTT's worth) and the handshake.
    assert!((g - 2e6).abs() / 2e6 < 0.02, "goodput {g:.0}");
}

#[test]
fn file_transfer_stops_at_the_file_size_and_reports_completion() {
    let text = common::line("recovery = \"newreno\"", "app = \"file\"\nbytes = 1000000", 20.0, 10e6);
    let s = hosim::run(&text, "file", &hosim::RunOptions::default()).expect("run").summary;
    let f = &s["flows"][0];
    assert_eq!(f["bytes_delivered"].as_u64(), Some(1_000_000));
    assert_eq!(f["completed"].as_bool(), Some(true));
    // 1 MB at 10 Mb/s takes at least 0.8 s plus slow start from 3 segments over 41 ms RTTs.
    let t = f["completion_time_s"].as_f64().unwrap();
    assert!(t > 0.8 && t < 2.0, "completion {t}");
}

#[test]
fn application_writes_are_not_mistaken_for_duplicate_acks() {
    // A rate-limited source writes a chunk every 1.2 ms while a 41 ms RTT of data is
    // outstanding. Without loss no duplicate ACK ever arrives, so no variant may enter fast
    // recovery or retransmit anything.
    for r in ["reno", "newreno", "sack"] {
        let text = common::line(&format!("recovery = \"{r}\""), "app = \"rate\"\nrate_bps = 8e6", 5.0, 10e6);
        let s = hosim::run(&text, "rate", &hosim::RunOptions::default()).expect("run").summary;
        let f = &s["flows"][0];
        assert_eq!(f["fast_recoveries"].as_u64(), Some(0), "{r}");
        assert_eq!(f["retransmits"].as_u64(), Some(0), "{r}");
    }
}

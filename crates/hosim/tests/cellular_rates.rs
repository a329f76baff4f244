//! `cellular` radio rates that change with time (issue 37 §1): a cell's capacity from a
//! Mahimahi trace or a rate process, a UE's radio rate from a trace, and the proportional
//! fair scheduler in a cell.

use hosim::RunOptions;
use serde_json::Value;

const BASE: &str = "name = \"r\"\ntopology = \"cellular\"\nduration_s = 5.0\n[cellular]\nues = 1\n";

fn run(kv: &[(&str, &str)], seed: u64) -> Result<Value, String> {
    let overrides = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let opts = RunOptions { seed: Some(seed), overrides, traces: false, ..Default::default() };
    hosim::run(BASE, "r.toml", &opts).map(|o| o.summary).map_err(|e| e.to_string())
}

fn summary(kv: &[(&str, &str)]) -> Value {
    run(kv, 1).unwrap_or_else(|e| panic!("{e}"))
}

/// A Mahimahi trace in the temp dir: `per_ms[i]` opportunities in each millisecond of the
/// period, in order.
fn mahimahi(name: &str, per_ms: &[usize]) -> String {
    let mut text = String::new();
    for (ms, &n) in per_ms.iter().enumerate() {
        for _ in 0..n {
            text.push_str(&format!("{}\n", ms + 1));
        }
    }
    let p = std::env::temp_dir().join(format!("hosim-rates-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    format!("{:?}", p.to_string_lossy())
}

fn cell(s: &Value, i: usize) -> &Value {
    &s["cellular"]["cells"][i]
}

fn radio_bytes(s: &Value, i: usize) -> f64 {
    cell(s, i)["radio_bytes"].as_f64().unwrap()
}

/// One static UE per cell, a backlogged bulk download each.
fn static_ues(extra: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut kv: Vec<(&'static str, String)> = vec![
        ("cellular.speed_mps", "0".into()),
        ("cellular.buffer_packets", "2000".into()),
        ("tcp.rwnd_bytes", "4000000".into()),
        ("cellular.start_window_s", "0.01".into()),
    ];
    kv.extend(extra.iter().cloned());
    kv
}

fn borrow<'a>(kv: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    kv.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn a_cells_delivered_bytes_follow_its_capacity_trace() {
    // 48 Mb/s (4 opportunities a millisecond) for 1 s, then 12 Mb/s for 1 s, looped.
    let mut per_ms = vec![4; 1000];
    per_ms.extend(vec![1; 1000]);
    let trace = mahimahi("cap.txt", &per_ms);
    let at = |duration: &str| {
        let kv = static_ues(&[
            ("duration_s", duration.into()),
            ("cellular.cells", "1".into()),
            ("cellular.capacity_traces", format!("[{trace}]")),
        ]);
        summary(&borrow(&kv))
    };
    let (s5, s6, s7) = (at("5"), at("6"), at("7"));
    // [5, 6) s is a low second, [6, 7) a high one: 1.5 MB and 6 MB of radio capacity.
    let low = radio_bytes(&s6, 0) - radio_bytes(&s5, 0);
    let high = radio_bytes(&s7, 0) - radio_bytes(&s6, 0);
    assert!((low / 1.5e6 - 1.0).abs() < 0.03, "low second: {low} bytes");
    assert!((high / 6e6 - 1.0).abs() < 0.03, "high second: {high} bytes");
    let mean = cell(&s6, 0)["capacity_mean_bps"].as_f64().unwrap();
    assert!((mean - 30e6).abs() < 1.0, "three whole periods average 30 Mb/s: {mean}");
    assert!(cell(&s6, 0)["load"].as_f64().unwrap() > 0.8, "{}", cell(&s6, 0));
}

#[test]
fn each_cell_has_its_own_trace_and_a_rate_process_sets_every_cells_capacity() {
    let (t24, t12) = (mahimahi("c24.txt", &[2]), mahimahi("c12.txt", &[1]));
    let kv = static_ues(&[
        ("duration_s", "4".into()),
        ("cellular.cells", "2".into()),
        ("cellular.ues", "2".into()),
        ("cellular.ue_cells", "[0, 1]".into()),
        ("cellular.capacity_traces", format!("[{t24}, {t12}]")),
    ]);
    let s = summary(&borrow(&kv));
    let rate = |i| radio_bytes(&s, i) * 8.0 / 4.0;
    assert!(rate(0) > 0.85 * 24e6 && rate(0) <= 24e6 * 1.001, "cell0: {}", rate(0));
    assert!(rate(1) > 0.85 * 12e6 && rate(1) <= 12e6 * 1.001, "cell1: {}", rate(1));
    // A square wave 40 / 10 Mb/s, one second each: every cell averages 25 Mb/s over 4 s.
    let kv = static_ues(&[
        ("duration_s", "4".into()),
        ("cellular.cells", "2".into()),
        ("cellular.capacity", "{model = \"square\", high_bps = 40e6, low_bps = 10e6, period_s = 1.0}".into()),
    ]);
    let s = summary(&borrow(&kv));
    for i in 0..2 {
        let mean = cell(&s, i)["capacity_mean_bps"].as_f64().unwrap();
        assert!((mean - 25e6).abs() < 1.0, "cell{i}: {mean}");
    }
    let sent = radio_bytes(&s, 0) * 8.0 / 4.0;
    assert!(sent > 0.75 * 25e6 && sent <= 25e6 * 1.001, "the UE's cell sends what it can: {sent}");
}

#[test]
fn a_ues_rate_trace_caps_what_its_cell_sends_it() {
    // 12 Mb/s from the UE's trace, under a 50 Mb/s cell; under an 8 Mb/s cell, the cell's.
    let t12 = mahimahi("ue12.txt", &[1]);
    let goodput = |cell_bps: &str| {
        let kv = static_ues(&[
            ("duration_s", "4".into()),
            ("cellular.cells", "2".into()),
            ("cellular.cell_bps", cell_bps.into()),
            ("cellular.ue_rate_traces", format!("[{t12}]")),
            ("cellular.handovers", "[{at_s = 2.0, ue = 0, target = 1}]".into()),
        ]);
        let s = summary(&borrow(&kv));
        (radio_bytes(&s, 0) + radio_bytes(&s, 1)) * 8.0 / 4.0
    };
    let (fast_cell, slow_cell) = (goodput("50e6"), goodput("8e6"));
    assert!(fast_cell > 0.9 * 12e6 && fast_cell <= 12e6 * 1.001, "the UE's 12 Mb/s, in both cells: {fast_cell}");
    assert!(slow_cell > 0.9 * 8e6 && slow_cell <= 8e6 * 1.001, "the cell's 8 Mb/s: {slow_cell}");
}

#[test]
fn proportional_fair_shares_airtime_where_wfq_shares_bytes() {
    // One cell, two UEs: UE 0 at the cell (40 Mb/s), UE 1 400 m away (10 Mb/s).
    let goodputs = |scheduler: &str| {
        let kv = static_ues(&[
            ("duration_s", "6".into()),
            ("cellular.cells", "1".into()),
            ("cellular.ues", "2".into()),
            ("cellular.ue_spacing_m", "400".into()),
            ("cellular.radio_rate_table", "[[0.0, 40e6], [300.0, 10e6]]".into()),
            ("cellular.scheduler", format!("{scheduler:?}")),
        ]);
        let s = summary(&borrow(&kv));
        [0, 1].map(|f| s["flows"][f]["goodput_bps"].as_f64().unwrap() / 1e6)
    };
    let [pf0, pf1] = goodputs("pf");
    assert!(pf0 > 17.0 && pf0 < 20.0 && pf1 > 4.2 && pf1 < 5.0, "half the airtime each: {pf0} {pf1} Mb/s");
    let [wfq0, wfq1] = goodputs("wfq");
    assert!((wfq0 - wfq1).abs() < 0.05 * wfq1 && wfq1 > 7.0, "equal bytes: {wfq0} {wfq1} Mb/s");
}

#[test]
fn bad_rate_input_is_refused_by_key() {
    let t = mahimahi("one.txt", &[1]);
    let bad = {
        let p = std::env::temp_dir().join(format!("hosim-rates-{}-bad.txt", std::process::id()));
        std::fs::write(&p, "1\n2\nx\n").unwrap();
        format!("{:?}", p.to_string_lossy())
    };
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("cellular.capacity_traces", format!("[{t}]"))],
            "`cellular.capacity_traces`: must list one trace per cell (3 cells), got 1",
        ),
        (vec![("cellular.capacity_traces", format!("[{t}, {t}, {bad}]"))], "`cellular.capacity_traces[2]`"),
        (vec![("cellular.ue_rate_traces", format!("[{bad}]"))], "line 3"),
        (vec![("cellular.capacity", "{model = \"square\", period_s = 0.0}".into())], "`cellular.capacity.period_s`"),
        (
            vec![
                ("cellular.capacity", "{model = \"square\"}".into()),
                ("cellular.capacity_traces", format!("[{t}, {t}, {t}]")),
            ],
            "give capacity or capacity_traces, not both",
        ),
        (
            vec![("cellular.scheduler", "\"pf\"".into()), ("cellular.pf_time_constant_s", "0".into())],
            "`cellular.pf_time_constant_s`",
        ),
        (
            vec![("cellular.radios", "\"private\"".into()), ("cellular.ue_rate_traces", format!("[{t}]"))],
            "`cellular.radios`: \"private\" cannot be combined",
        ),
    ];
    for (kv, want) in cases {
        let kv: Vec<(&str, &str)> = kv.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let e = run(&kv, 1).expect_err("must be rejected");
        assert!(!e.contains('\n') && e.contains(want), "{kv:?}: {e}");
    }
}

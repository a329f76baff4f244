//! The time a flow is held back by the peer's receive window (`rwnd_limited_s` in the flow
//! summary): the congestion window allows more than the advertised window (RFC 5681 §2), as
//! Linux's `tcpi_rwnd_limited` counts it.

fn flow(rwnd_bytes: &str) -> serde_json::Value {
    let text = hosim::scenario::presets::find("dumbbell").expect("preset");
    let overrides = [
        ("duration_s", "10"),
        ("dumbbell.flows", "1"),
        ("dumbbell.bottleneck_bps", "50e6"),
        ("tcp.rwnd_bytes", rwnd_bytes),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let opts = hosim::RunOptions { seed: Some(1), overrides, ..Default::default() };
    hosim::run(text, "dumbbell", &opts).expect("run").summary["flows"][0].clone()
}

#[test]
fn a_64kb_receive_window_on_a_50_mbits_path_holds_the_flow_back_most_of_its_time() {
    let f = flow("65535");
    let active_s = 10.0 - f["start_s"].as_f64().expect("start");
    let held_s = f["rwnd_limited_s"].as_f64().expect("rwnd_limited_s");
    assert!(held_s > 0.8 * active_s && held_s <= active_s, "{held_s} s of {active_s} s");
    // The window caps goodput near rwnd/RTT, far below the 50 Mb/s bottleneck.
    let cap_bps = 65535.0 * 8.0 / f["rtt_mean_s"].as_f64().expect("rtt");
    let goodput = f["goodput_bps"].as_f64().expect("goodput");
    assert!(goodput < 1.05 * cap_bps && goodput < 25e6, "{goodput} against {cap_bps}");
}

#[test]
fn a_receive_window_above_the_path_never_holds_the_flow_back() {
    let f = flow("100000000");
    assert!(f.get("rwnd_limited_s").is_none(), "{f}");
    assert!(f["goodput_bps"].as_f64().expect("goodput") > 40e6);
}

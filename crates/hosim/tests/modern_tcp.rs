//! CUBIC (RFC 9438) and PRR (RFC 6937) on the dumbbell preset with random loss: the
//! invariants hold, the summary names the algorithms, and the same seed gives the same run.

fn run(tcp: &[(&str, &str)], seed: u64) -> serde_json::Value {
    let text = hosim::scenario::presets::find("dumbbell").unwrap();
    let mut overrides = vec![("duration_s".to_string(), "10".to_string()), ("dumbbell.loss".into(), "0.01".into())];
    overrides.extend(tcp.iter().map(|(k, v)| (format!("tcp.{k}"), v.to_string())));
    let opts = hosim::RunOptions { seed: Some(seed), overrides, traces: false, ..Default::default() };
    let mut out = hosim::run(text, "dumbbell", &opts).expect("run");
    out.summary.as_object_mut().unwrap().remove("wall_time_s");
    out.summary
}

/// Runs `tcp` twice with seed 3: the invariants hold, the runs are identical, every flow
/// names `cc` and `rate` and recovered from some loss. Returns the summary.
fn check(tcp: &[(&str, &str)], cc: &str, rate: &str) -> serde_json::Value {
    let a = run(tcp, 3);
    assert_eq!(a["invariants"]["ok"], true, "{}", a["invariants"]);
    assert_eq!(a, run(tcp, 3), "deterministic");
    for f in a["flows"].as_array().unwrap() {
        assert_eq!((f["cc"].as_str(), f["recovery_rate"].as_str()), (Some(cc), Some(rate)));
        assert!(f["goodput_bps"].as_f64().unwrap() > 0.0);
        assert!(f["fast_recoveries"].as_u64().unwrap() > 0);
    }
    a
}

fn goodputs(s: &serde_json::Value) -> Vec<f64> {
    s["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap()).collect()
}

#[test]
fn cubic_on_lossy_dumbbell_holds_invariants_and_differs_from_reno() {
    let cubic = check(&[("cc", "cubic")], "cubic", "classic");
    let reno = check(&[], "reno", "classic");
    assert_ne!(goodputs(&cubic), goodputs(&reno));
}

#[test]
fn prr_ssrb_on_lossy_dumbbell_holds_invariants() {
    check(&[("recovery_rate", "prr-ssrb")], "reno", "prr-ssrb");
}

#[test]
fn prr_crb_on_lossy_dumbbell_holds_invariants() {
    check(&[("recovery_rate", "prr-crb")], "reno", "prr-crb");
}

#[test]
fn prr_linux_on_lossy_dumbbell_holds_invariants() {
    check(&[("recovery_rate", "prr-linux")], "reno", "prr-linux");
}

#[test]
fn linux_profile_runs_cubic_with_prr_linux() {
    check(&[("profile", "linux")], "cubic", "prr-linux");
}

#[test]
fn prr_with_newreno_recovery_is_classic() {
    check(&[("recovery", "newreno"), ("recovery_rate", "prr-ssrb")], "reno", "classic");
}

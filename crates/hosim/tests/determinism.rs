//! Same scenario and seed give byte-identical summaries (apart from wall time) and traces;
//! another seed gives another run where randomness is involved.

fn run(seed: u64) -> (String, hosim::RunOutput) {
    let text = hosim::scenario::presets::find("dumbbell").unwrap();
    let opts = hosim::RunOptions {
        seed: Some(seed),
        overrides: vec![("duration_s".into(), "10".into()), ("dumbbell.loss".into(), "0.01".into())],
        traces: true,
        ..Default::default()
    };
    let mut out = hosim::run(text, "dumbbell", &opts).expect("run");
    out.summary.as_object_mut().unwrap().remove("wall_time_s");
    (serde_json::to_string(&out.summary).unwrap(), out)
}

#[test]
fn same_seed_gives_identical_summary_and_traces() {
    let (a, ra) = run(42);
    let (b, rb) = run(42);
    assert_eq!(a, b);
    for kind in hosim::TraceKind::ALL {
        assert_eq!(ra.traces.table(kind), rb.traces.table(kind), "{kind:?}");
    }
    assert_eq!(ra.goodput, rb.goodput);
    assert!(!ra.traces.table(hosim::TraceKind::Cwnd).is_empty());
}

#[test]
fn different_seed_gives_different_lossy_run() {
    assert_ne!(run(1).0, run(2).0);
}

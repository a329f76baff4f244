//! Issue 39 (reliability, round two), the core's part: what a red team broke with accepted
//! input. Each test fails on the core before the fix (a wrapped time, an abort, a run whose
//! memory grew with an unchecked product); now the input is refused in one line naming the
//! key, or runs with bounded memory. Limits: docs/scenarios.md, "Bounds".

use hosim::scenario::presets;
use hosim::{run, Error, RunOptions};

fn preset(name: &str) -> &'static str {
    presets::find(name).expect("preset")
}

fn opts(sets: &[(&str, &str)]) -> RunOptions {
    RunOptions {
        seed: Some(1),
        overrides: sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        ..Default::default()
    }
}

/// `text` with `sets` is refused as invalid input, in one line naming `key` and the source.
fn refused_text(text: &str, source: &str, sets: &[(&str, &str)], key: &str) -> String {
    match run(text, source, &opts(sets)) {
        Err(Error::Scenario(e)) => {
            assert!(e.message.contains(key), "{sets:?}: the error should name {key}: {}", e.message);
            let shown = source.escape_debug().to_string();
            assert!(e.message.starts_with(&shown), "{sets:?}: the error should name the source: {}", e.message);
            assert!(!e.message.contains(['\n', '\r']), "one line: {:?}", e.message);
            e.message
        }
        Err(e) => panic!("{sets:?}: expected an input error naming {key}, got {e}"),
        Ok(_) => panic!("{sets:?}: expected an input error naming {key}, the run was accepted"),
    }
}

fn refused(name: &str, sets: &[(&str, &str)], key: &str) -> String {
    refused_text(preset(name), name, sets, key)
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("hosim-red-team-{}-{name}", std::process::id()));
    std::fs::write(&p, text).expect("write a temporary file");
    p
}

// --- Silent wrong numbers -------------------------------------------------------------------

/// 25 flows staggered by 1e9 s: flow 24 starts at 2.4e10 s = 2.4e19 ns, beyond u64; it
/// wrapped to about 5 ms and the run said "ok".
#[test]
fn a_start_stagger_whose_product_passes_the_longest_time_is_refused() {
    let m = refused(
        "dumbbell",
        &[("dumbbell.start_stagger_s", "1e9"), ("dumbbell.flows", "25")],
        "dumbbell.start_stagger_s",
    );
    assert!(m.contains("2.4e10"), "{m}");
    refused("fcp", &[("fcp.start_stagger_s", "1e9"), ("fcp.mobiles", "25")], "fcp.start_stagger_s");
    // Within the bound the product is exact: the last flow starts when it should.
    let sets = [
        ("dumbbell.start_stagger_s", "0.5"),
        ("dumbbell.flows", "3"),
        ("dumbbell.start_jitter_s", "0"),
        ("duration_s", "2"),
    ];
    let out = run(preset("dumbbell"), "dumbbell", &opts(&sets)).expect("runs");
    let flows = out.summary["flows"].as_array().expect("flows");
    assert!(flows.iter().all(|f| f["bytes_delivered"].as_u64().expect("bytes") > 0), "every flow started in time");
}

/// A template's computed start time plus the start jitter is checked too, whatever template
/// computed it (here an explicit graph with both near the bound).
#[test]
fn a_start_time_plus_its_jitter_beyond_the_longest_time_is_refused() {
    let text = "duration_s = 1.0\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"b\"\nkind = \"host\"\n\
                [[links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e6\ndelay_s = 0.01\n\
                [[flows]]\nsrc = \"a\"\ndst = \"b\"\nstart_s = 1e9\n";
    // No template adds jitter to a graph's flows, so the check is reached through the builder.
    let g = hosim::spec::graph::Graph {
        nodes: vec![
            hosim::spec::graph::node("a".into(), hosim::spec::graph::NodeKindName::Host),
            hosim::spec::graph::node("b".into(), hosim::spec::graph::NodeKindName::Host),
        ],
        links: vec![hosim::spec::graph::link("a", "b", 1e6, 0.01, 10)],
        flows: hosim::scenario::load(text, "t", &[]).expect("valid").flows,
        start_jitter_s: 1.0,
        ..Default::default()
    };
    let c = hosim::spec::Check { source: "t" };
    let e =
        hosim::spec::build::build(&g, &Default::default(), &c, 1, 1_000_000_000, 100_000_000).err().expect("refused");
    assert!(e.message.contains("flows[0].start_s") && e.message.contains("1e9"), "{}", e.message);
}

/// `--set 'duration_s=1\n[dumbbell]\nflows=3'` ran with the preset's flows, the rest of the
/// value silently dropped.
#[test]
fn a_set_value_or_key_with_a_line_break_is_refused_in_one_line() {
    let m = refused("dumbbell", &[("duration_s", "1\n[dumbbell]\nflows=3")], "duration_s");
    assert!(m.contains("line break"), "{m}");
    refused("dumbbell", &[("duration_s", "1\r")], "duration_s");
    let m = refused("dumbbell", &[("dumbbell.flows\n[x]", "3")], "dumbbell.flows\\n[x]");
    assert!(m.contains("control character"), "{m}");
    // A TOML string may still hold an escaped line break.
    run(preset("dumbbell"), "dumbbell", &opts(&[("description", "\"a\\nb\""), ("duration_s", "0.5")])).expect("runs");
}

/// A source name holding a line break (a file name) is escaped in the error: still one line.
#[test]
fn an_error_stays_one_line_whatever_the_source_name_holds() {
    let m = refused_text(preset("dumbbell"), "odd\nname.toml", &[("dumbbell.flows", "0")], "dumbbell.flows");
    assert!(m.starts_with("odd\\nname.toml"), "{m}");
}

// --- No abort, no runaway memory or time ----------------------------------------------------

/// A last timestamp of 5e9 ms allocated a table of 5e9 milliseconds (40 GB); u64::MAX panicked
/// with "capacity overflow".
#[test]
fn a_mahimahi_trace_with_a_huge_last_timestamp_runs_in_memory_of_its_lines_or_is_refused() {
    let text: String = (1..=2000).map(|t| format!("{t}\n")).collect::<String>() + "5000000000\n";
    let big = temp_file("big.mahi", &text);
    let path = big.to_str().expect("UTF-8 path");
    let sets = [("hsdpa.bandwidth", "trace"), ("hsdpa.trace_file", path), ("duration_s", "2")];
    let out = run(preset("hsdpa"), "hsdpa", &opts(&sets)).expect("runs");
    assert!(out.summary["flows"][0]["bytes_delivered"].as_u64().expect("bytes") > 0);
    let max = temp_file("max.mahi", "1\n18446744073709551615\n");
    let sets =
        [("hsdpa.bandwidth", "trace"), ("hsdpa.trace_file", max.to_str().expect("UTF-8 path")), ("duration_s", "2")];
    let m = refused("hsdpa", &sets, "hsdpa.trace_file");
    assert!(m.contains("line 2"), "{m}");
    let _ = (std::fs::remove_file(big), std::fs::remove_file(max));
}

/// `initial_window_segments = 4294967295` with a 1 TiB window aborted on a 1 GiB allocation.
#[test]
fn an_initial_window_beyond_its_bound_is_refused_and_the_bound_runs() {
    let huge =
        [("tcp.initial_window_segments", "4294967295"), ("tcp.rwnd_bytes", "1099511627776"), ("duration_s", "2")];
    refused("dumbbell", &huge, "tcp.initial_window_segments");
    let bound = [("tcp.initial_window_segments", "10000"), ("tcp.rwnd_bytes", "1099511627776"), ("duration_s", "1")];
    run(preset("dumbbell"), "dumbbell", &opts(&bound)).expect("the largest initial window runs");
}

/// Handoffs every microsecond: memory grew with their number (a record each).
#[test]
fn vertical_handoffs_beyond_the_bound_per_run_are_refused() {
    let m = refused("vertical", &[("vertical.interval_s", "1e-6"), ("duration_s", "5")], "vertical.interval_s");
    assert!(m.contains("5e-5"), "{m}");
}

/// Delivery sampled every nanosecond: a sample vector of 3.5e10 entries (abort).
#[test]
fn inter_rat_samples_beyond_the_bound_are_refused() {
    refused("inter-rat", &[("inter_rat.sample_s", "1e-9")], "inter_rat.sample_s");
}

/// The documented minimum was per mobile (duration_s / 1e6): with 1,000 mobiles that allowed
/// 1e9 handover records, a few kB each (250,000 of them peaked at 1.6 GB). Now the bound is on
/// the handovers of the whole run.
#[test]
fn fcp_handovers_at_the_old_per_mobile_minimum_are_refused() {
    // duration 60 s / 1e6 = 6e-5 s, in units of rtt_s = 0.08 s: 7.5e-4.
    let sets = [("fcp.handover_interval_rtt", "7.5e-4"), ("fcp.mobiles", "1000")];
    let m = refused("fcp", &sets, "fcp.handover_interval_rtt");
    assert!(m.contains("1e5 handovers"), "{m}");
    // 10 mobiles x 60 s / 1e5 = 6 ms: the bound itself is accepted.
    let sets = [("fcp.handover_interval_rtt", "0.075"), ("duration_s", "3"), ("fcp.warmup_s", "1")];
    run(preset("fcp"), "fcp", &opts(&sets)).expect("at the bound");
}

/// 40,000 routers in a chain: a route table per router with an entry per node (1.6e9
/// entries) was built before anything else and killed the process.
#[test]
fn a_graph_whose_route_tables_exceed_the_bound_is_refused_before_building_them() {
    let n = 40_000;
    let mut t = String::from("duration_s = 1.0\n");
    t += "[[nodes]]\nname = \"h0\"\nkind = \"host\"\n[[nodes]]\nname = \"h1\"\nkind = \"host\"\n";
    for i in 0..n {
        t += &format!("[[nodes]]\nname = \"r{i}\"\nkind = \"router\"\n");
    }
    let link = |a: &str, b: &str| format!("[[links]]\nfrom = \"{a}\"\nto = \"{b}\"\nrate_bps = 1e6\ndelay_s = 0.001\n");
    t += &link("h0", "r0");
    for i in 0..n - 1 {
        t += &link(&format!("r{i}"), &format!("r{}", i + 1));
    }
    t += &link(&format!("r{}", n - 1), "h1");
    t += "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n";
    let started = std::time::Instant::now();
    let m = refused_text(&t, "chain.toml", &[], "nodes");
    assert!(m.contains("route table"), "{m}");
    assert!(started.elapsed().as_secs() < 30, "refused before the tables are built");
}

/// `min_rto_s = 0` with `max_rto_s = 1e-9`: a timeout every nanosecond, each one kept in the
/// flow's list of unresolved timeouts (15 GB after ten minutes).
#[test]
fn a_maximum_rto_below_a_millisecond_is_refused_and_the_bound_runs() {
    let m =
        refused("dumbbell", &[("tcp.min_rto_s", "0"), ("tcp.max_rto_s", "1e-9"), ("duration_s", "5")], "tcp.max_rto_s");
    assert!(m.contains("0.001"), "{m}");
    let sets =
        [("tcp.min_rto_s", "0"), ("tcp.max_rto_s", "0.001"), ("tcp.initial_rto_s", "0.001"), ("duration_s", "2")];
    let out = run(preset("dumbbell"), "dumbbell", &opts(&sets)).expect("runs");
    let timeouts: u64 =
        out.summary["flows"].as_array().expect("flows").iter().map(|f| f["timeouts"].as_u64().expect("n")).sum();
    assert!(timeouts > 0, "the 1 ms timer fires");
}

/// A link at 1e300 bit/s with no delay: no bound on graph links (and none on the dumbbell's).
#[test]
fn link_rates_beyond_a_terabit_are_refused_in_graphs_and_templates() {
    let text = "duration_s = 1.0\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"b\"\nkind = \"host\"\n\
                [[links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e300\ndelay_s = 0.0\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n";
    refused_text(text, "fast.toml", &[], "links[0].rate_bps");
    refused(
        "dumbbell",
        &[("dumbbell.bottleneck_bps", "1e300"), ("dumbbell.bottleneck_delay_s", "0")],
        "dumbbell.bottleneck_bps",
    );
    refused("dumbbell", &[("dumbbell.access_bps", "2e12")], "dumbbell.access_bps");
}

/// A prediction error drawn from a huge standard deviation saturates instead of wrapping
/// (an overflow panic in a checked build).
#[test]
fn an_lte_x2_prediction_error_near_the_ends_of_time_does_not_wrap() {
    let sets = [
        ("lte_x2.path_switch", "predicted"),
        ("lte_x2.prediction_error_std_s", "1e9"),
        ("lte_x2.prediction_error_s", "-1e9"),
        ("duration_s", "3"),
    ];
    for seed in 1..4 {
        let o = RunOptions { seed: Some(seed), ..opts(&sets) };
        run(preset("lte-x2"), "lte-x2", &o).expect("runs");
    }
}

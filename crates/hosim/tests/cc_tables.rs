//! `[tcp.<algorithm>]` tables of the built-in controllers: the TOML table, `--set` and a
//! flow's `tcp` table reach the controller; every mistake is one line naming the key.

use hosim::scenario::{build::build, load};
use hosim::sim::Sim;
use hosim::tcp::cc::CubicSettings;

/// One CUBIC flow through a 2 Mb/s bottleneck with a 20-packet queue: it loses segments.
const CUBIC: &str = "topology = \"dumbbell\"\nduration_s = 10\n[dumbbell]\nflows = 1\n\
                     bottleneck_bps = 2e6\nqueue_packets = 20\n[tcp]\ncc = \"cubic\"\n";

fn sets(sets: &[(&str, &str)]) -> Vec<(String, String)> {
    sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn sim(text: &str, overrides: &[(&str, &str)]) -> Sim {
    let s = load(text, "s.toml", &sets(overrides)).expect("valid scenario");
    build(&s, "s.toml", 1).expect("buildable")
}

fn err(text: &str, overrides: &[(&str, &str)]) -> String {
    let e = load(text, "s.toml", &sets(overrides)).expect_err("must be rejected").message;
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

fn cubic_settings(sim: &Sim, flow: usize) -> Option<CubicSettings> {
    sim.world.flows[flow].sender.cfg.cc_settings.get::<CubicSettings>("cubic").cloned()
}

/// The ssthresh the first loss leaves: β_cubic of the flight (RFC 9438 §4.6).
fn first_ssthresh(mut sim: Sim) -> u64 {
    let ssthresh = |sim: &Sim| sim.world.flows[0].sender.ssthresh();
    sim.begin();
    let mut t = 0;
    while ssthresh(&sim) == u64::MAX && t < 10_000_000_000 {
        t += 1_000_000;
        sim.run_until(t).expect("runs");
    }
    ssthresh(&sim)
}

#[test]
fn the_toml_table_and_a_set_reach_cubic_and_change_its_decrease() {
    let table = sim(&format!("{CUBIC}[tcp.cubic]\nbeta = 0.5\n"), &[]);
    assert_eq!(cubic_settings(&table, 0).map(|s| s.beta), Some(0.5));
    let set = sim(CUBIC, &[("tcp.cubic.beta", "0.5")]);
    assert_eq!(cubic_settings(&set, 0).map(|s| s.beta), Some(0.5));
    let (half, default) = (first_ssthresh(set), first_ssthresh(sim(CUBIC, &[])));
    assert!(default < u64::MAX && half < u64::MAX, "both lost a segment");
    // The same flight at the first loss: ssthresh is 0.5 / 0.7 of the default's.
    let ratio = half as f64 / default as f64;
    assert!((ratio - 0.5 / 0.7).abs() < 0.01, "{half} / {default} = {ratio}");
}

#[test]
fn a_set_wins_over_the_table_and_keeps_its_other_keys() {
    let s = sim(&format!("{CUBIC}[tcp.cubic]\nbeta = 0.5\nc = 0.2\n"), &[("tcp.cubic.beta", "0.6")]);
    let got = cubic_settings(&s, 0).expect("settings");
    assert_eq!((got.beta, got.c, got.fast_convergence), (0.6, 0.2, true));
}

#[test]
fn a_flow_table_overrides_the_scenario_table_for_that_flow_only() {
    let text = "duration_s = 1\n[tcp]\ncc = \"cubic\"\n[tcp.cubic]\nbeta = 0.5\nc = 0.2\n\
                [[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"b\"\nkind = \"host\"\n\
                [[links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e6\ndelay_s = 0.01\n\
                [[flows]]\nsrc = \"a\"\ndst = \"b\"\n[flows.tcp.cubic]\nbeta = 0.8\n\
                [[flows]]\nsrc = \"b\"\ndst = \"a\"\n";
    let s = sim(text, &[]);
    let (first, second) = (cubic_settings(&s, 0).expect("flow 0"), cubic_settings(&s, 1).expect("flow 1"));
    assert_eq!((first.beta, first.c), (0.8, 0.2));
    assert_eq!((second.beta, second.c), (0.5, 0.2));
}

/// Accepted and checked, though the flow runs Reno: a sweep over `tcp.cc` keeps one scenario.
#[test]
fn a_table_of_an_algorithm_not_selected_is_accepted_and_checked() {
    let reno = "topology = \"dumbbell\"\nduration_s = 1\n[tcp]\ncc = \"reno\"\n[tcp.cubic]\nbeta = 0.5\n";
    let s = sim(reno, &[]);
    assert_eq!(s.world.flows[0].sender.cfg.cc.name(), "reno");
    let e = err(reno, &[("tcp.cubic.beta", "2")]);
    assert!(e.contains("`tcp.cubic.beta`"), "{e}");
}

#[test]
fn an_unknown_table_is_named_with_the_tables_there_are() {
    let e = err(CUBIC, &[("tcp.bbr.gain", "2")]);
    assert_eq!(e, "s.toml: key `tcp.bbr`: unknown table: the congestion controllers' tables are `reno`, `cubic`");
}

#[test]
fn an_unknown_key_in_a_table_is_named_with_the_keys_there_are() {
    let e = err(&format!("{CUBIC}[tcp.cubic]\nbetta = 0.5\n"), &[]);
    assert!(e.starts_with("s.toml: key `tcp.cubic.betta`: unknown field `betta`"), "{e}");
    assert!(e.contains("`beta`") && e.contains("`fast_convergence`"), "{e}");
    let e = err(CUBIC, &[("tcp.reno.beta", "0.5")]);
    assert!(e.starts_with("s.toml: key `tcp.reno.beta`: unknown field `beta`"), "{e}");
}

#[test]
fn a_bad_value_in_a_table_is_named_with_its_range() {
    let e = err(CUBIC, &[("tcp.cubic.beta", "1.0")]);
    assert_eq!(e, "s.toml: key `tcp.cubic.beta`: must be in (0, 1) (RFC 9438 §4.6: 0.7), got 1");
    let e = err(CUBIC, &[("tcp.cubic.c", "-0.4")]);
    assert_eq!(e, "s.toml: key `tcp.cubic.c`: must be a finite number > 0 (RFC 9438 §4.1: 0.4), got -0.4");
}

#[test]
fn a_value_of_the_wrong_type_in_a_table_is_named() {
    let e = err(CUBIC, &[("tcp.cubic.fast_convergence", "\"yes\"")]);
    assert!(e.starts_with("s.toml: key `tcp.cubic.fast_convergence`: invalid type: string"), "{e}");
}

#[test]
fn an_algorithm_key_that_is_not_a_table_is_named() {
    let e = err(CUBIC, &[("tcp.cubic", "0.5")]);
    assert_eq!(e, "s.toml: key `tcp.cubic`: must be a table of cubic's settings (`[tcp.cubic]`)");
}

#[test]
fn a_bad_key_in_a_flow_table_names_the_flow() {
    let text = "duration_s = 1\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"b\"\nkind = \"host\"\n\
                [[links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e6\ndelay_s = 0.01\n\
                [[flows]]\nsrc = \"a\"\ndst = \"b\"\n[flows.tcp.cubic]\nc = 0\n";
    let e = err(text, &[]);
    assert!(e.starts_with("s.toml: key `flows[0].tcp.cubic.c`: must be"), "{e}");
}

/// The key reference lists every key of every built-in table, and tcp.md has each with its
/// source.
#[test]
fn the_docs_list_every_key_of_every_table() {
    let scenarios = include_str!("../../../docs/scenarios.md");
    let tcp = include_str!("../../../docs/tcp.md");
    for a in hosim::tcp::cc::ALGORITHMS {
        let keys = a.defaults();
        let names: Vec<String> = if keys.is_empty() {
            vec![format!("`tcp.{}`", a.name())]
        } else {
            keys.keys().map(|k| format!("`tcp.{}.{k}`", a.name())).collect()
        };
        for name in names {
            assert!(scenarios.contains(&format!("| {name} |")), "docs/scenarios.md lacks {name}");
            assert!(tcp.contains(&format!("| {name} |")), "docs/tcp.md lacks {name}");
        }
    }
}

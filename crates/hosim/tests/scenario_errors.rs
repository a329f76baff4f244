//! Bad input gives one line naming the source and the key (or line) and what is wrong.

use hosim::scenario::load;

const GOOD: &str = "topology = \"dumbbell\"\nduration_s = 5\n[dumbbell]\nflows = 2\n";

fn err(text: &str, sets: &[(&str, &str)]) -> String {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let e = load(text, "s.toml", &sets).expect_err("must be rejected").message;
    assert!(!e.contains('\n'), "one line: {e}");
    assert!(e.starts_with("s.toml: "), "names the source: {e}");
    e
}

#[test]
fn good_scenario_loads() {
    assert!(load(GOOD, "s.toml", &[]).is_ok());
}

#[test]
fn unknown_key_is_named() {
    let e = err("topology = \"dumbbell\"\nduration_s = 5\n[dumbbell]\nflowz = 2\n", &[]);
    assert!(e.contains("dumbbell") && e.contains("flowz"), "{e}");
}

#[test]
fn unknown_key_from_set_is_named() {
    let e = err(GOOD, &[("tcp.recovry", "sack")]);
    assert!(e.contains("tcp") && e.contains("recovry"), "{e}");
}

#[test]
fn negative_rate_is_named() {
    let e = err(GOOD, &[("dumbbell.bottleneck_bps", "-5")]);
    assert!(e.contains("`dumbbell.bottleneck_bps`") && e.contains("> 0"), "{e}");
}

#[test]
fn wrong_type_is_named() {
    let e = err(GOOD, &[("dumbbell.flows", "\"many\"")]);
    assert!(e.contains("`dumbbell.flows`") && e.contains("string"), "{e}");
}

#[test]
fn unknown_enum_value_lists_the_choices() {
    let e = err(GOOD, &[("tcp.recovery", "vegas")]);
    assert!(e.contains("`tcp.recovery`") && e.contains("newreno"), "{e}");
}

#[test]
fn malformed_toml_names_the_line() {
    let e = err("duration_s = 5\n[dumbbell\nflows = 2\n", &[]);
    assert!(e.contains("line 2") && e.contains("malformed TOML"), "{e}");
}

#[test]
fn missing_required_key_is_named() {
    let e = err("topology = \"dumbbell\"\n", &[]);
    assert!(e.contains("duration_s"), "{e}");
}

#[test]
fn out_of_range_probability_is_named() {
    let e = err(GOOD, &[("dumbbell.loss", "1.5")]);
    assert!(e.contains("`dumbbell.loss`") && e.contains("[0, 1]"), "{e}");
}

#[test]
fn graph_errors_name_the_entry() {
    let text = "duration_s = 1\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[links]]\nfrom = \"a\"\nto = \"zz\"\nrate_bps = 1e6\ndelay_s = 0.01\n";
    let s = load(text, "s.toml", &[]).unwrap();
    let e = hosim::scenario::build::build(&s, "s.toml", 1).err().unwrap().message;
    assert!(e.contains("`links[0].to`") && e.contains("zz"), "{e}");
}

#[test]
fn section_of_another_template_is_rejected_naming_it() {
    let lte = "topology = \"lte-x2\"\nduration_s = 5\n[hsdpa]\nproxy = true\n";
    let e = err(lte, &[]);
    assert!(e.contains("`hsdpa`") && e.contains("topology = \"hsdpa\""), "{e}");
    let e = err(GOOD, &[("fcp.mobiles", "2")]);
    assert!(e.contains("`fcp`") && e.contains("topology = \"fcp\""), "{e}");
}

#[test]
fn unknown_topology_lists_the_templates() {
    let e = err(GOOD, &[("topology", "ring")]);
    assert!(e.contains("`topology`") && e.contains("ring") && e.contains("`lte-x2`"), "{e}");
}

#[test]
fn unknown_tcp_profile_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.profile", "bsd")]);
    assert!(e.contains("`tcp.profile`") && e.contains("bsd") && e.contains("ns3"), "{e}");
}

#[test]
fn wrong_type_of_tcp_profile_is_named() {
    let e = err(GOOD, &[("tcp.profile", "3")]);
    assert!(e.contains("`tcp.profile`"), "{e}");
}

#[test]
fn unknown_rto_ssthresh_rule_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.rto_ssthresh", "quarter")]);
    assert!(e.contains("`tcp.rto_ssthresh`") && e.contains("pipe-half"), "{e}");
}

#[test]
fn unknown_ca_growth_is_named() {
    let e = err(GOOD, &[("tcp.ca_growth", "packets")]);
    assert!(e.contains("`tcp.ca_growth`") && e.contains("per-ack"), "{e}");
}

#[test]
fn wrong_type_of_rescue_retransmission_is_named() {
    let e = err(GOOD, &[("tcp.rescue_retransmission", "\"yes\"")]);
    assert!(e.contains("`tcp.rescue_retransmission`"), "{e}");
}

#[test]
fn bad_flow_profile_is_named_by_its_flow() {
    let text = "duration_s = 1\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"b\"\nkind = \"host\"\n\
                [[links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e6\ndelay_s = 0.01\n\
                [[flows]]\nsrc = \"a\"\ndst = \"b\"\n[flows.tcp]\nprofile = \"bsd\"\n";
    let e = err(text, &[]);
    assert!(e.contains("flows[0].tcp.profile") && e.contains("bsd"), "{e}");
}

#[test]
fn unknown_cc_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.cc", "bbr")]);
    assert!(e.contains("`tcp.cc`") && e.contains("cubic"), "{e}");
}

#[test]
fn unknown_recovery_rate_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.recovery_rate", "prr")]);
    assert!(e.contains("`tcp.recovery_rate`") && e.contains("prr-ssrb"), "{e}");
}

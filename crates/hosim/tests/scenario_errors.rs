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

/// The keys of list entries are written out only when a check fails (`spec::error::Field`):
/// each must still come out whole, with the entry's index, for links and flows alike.
#[test]
fn graph_errors_name_the_entry_and_field_whatever_the_index() {
    let base = "duration_s = 1\n\
        [[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"r\"\nkind = \"router\"\n\
        [[nodes]]\nname = \"b\"\nkind = \"host\"\n\
        [[links]]\nfrom = \"a\"\nto = \"r\"\nrate_bps = 1e6\ndelay_s = 0.01\n\
        [[links]]\nfrom = \"r\"\nto = \"b\"\nrate_bps = 1e6\ndelay_s = 0.01\n\
        [[flows]]\nsrc = \"a\"\ndst = \"b\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n";
    let build_err = |text: &str| {
        let s = load(text, "s.toml", &[]).unwrap();
        hosim::scenario::build::build(&s, "s.toml", 1).err().expect("must be rejected").message
    };
    assert!(hosim::scenario::build::build(&load(base, "s.toml", &[]).unwrap(), "s.toml", 1).is_ok());
    let cases = [
        (
            "delay_s = 0.01\n[[flows]]",
            "delay_s = -0.5\n[[flows]]",
            "s.toml: key `links[1].delay_s`: must be >= 0, got -0.5",
        ),
        (
            "to = \"b\"\nrate_bps = 1e6",
            "to = \"b\"\nrate_bps = 1e6\nloss = 1.5",
            "s.toml: key `links[1].loss`: must be a probability in [0, 1], got 1.5",
        ),
        (
            "[[flows]]\nsrc = \"a\"\ndst = \"b\"\n[[flows]]\nsrc = \"a\"",
            "[[flows]]\nsrc = \"a\"\ndst = \"b\"\n[[flows]]\nsrc = \"q\"",
            "s.toml: key `flows[1].src`: unknown node \"q\"",
        ),
        (
            "[[flows]]\nsrc = \"a\"\ndst = \"b\"\n",
            "[[flows]]\nsrc = \"a\"\ndst = \"b\"\nstart_s = -1\n",
            "s.toml: key `flows[0].start_s`: must be >= 0, got -1",
        ),
    ];
    for (from, to, want) in cases {
        assert!(base.contains(from), "{from}");
        assert_eq!(build_err(&base.replacen(from, to, 1)), want);
    }
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
fn unknown_sack_pipe_rule_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.sack_pipe", "fack")]);
    assert!(e.contains("`tcp.sack_pipe`") && e.contains("sacked-only"), "{e}");
}

#[test]
fn unknown_sack_retransmit_rule_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.sack_retransmit", "fack")]);
    assert!(e.contains("`tcp.sack_retransmit`") && e.contains("next-seg-any-unsacked"), "{e}");
    assert!(!e.contains('\n'), "{e}");
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
fn bad_vertical_keys_give_one_line_errors_naming_the_key() {
    let good = "topology = \"vertical\"\nduration_s = 10\n[vertical]\n";
    assert!(load(good, "s.toml", &[]).is_ok());
    let cases: &[(&str, &str)] = &[
        ("vertical.interval_s", "0"),
        ("vertical.first", "\"satellite\""),
        ("vertical.mode", "\"warm\""),
        ("vertical.adaptation", "\"westwood\""),
        ("vertical.clah_bdp", "\"guess\""),
        ("vertical.clah_dupack_resume_s", "0"),
        ("vertical.wifi_bps", "0"),
        ("vertical.wifi_delay_s", "-0.001"),
        ("vertical.wifi_queue_pkts", "0"),
        ("vertical.cellular_bps", "-3e6"),
        ("vertical.cellular_delay_s", "nan"),
        ("vertical.cellular_queue_pkts", "0"),
        ("vertical.core_bps", "0.5"),
        ("vertical.core_delay_s", "-1"),
        ("vertical.core_queue_pkts", "0"),
        ("vertical.app_rate_bps", "0"),
        ("vertical.series_bin_s", "0"),
        ("vertical.series_bin_s", "1e-9"),
        ("vertical.teleport", "1"),
        ("vertical.links", "\"lte\""),
    ];
    for (key, value) in cases {
        let e = err(good, &[(key, value)]);
        let leaf = key.rsplit('.').next().unwrap();
        assert!(e.contains(leaf), "{key}={value}: {e}");
    }
    // On 802.11 networks the rates are PHY rates: 802.11g for WiFi, 802.11b for cellular.
    let wifi = [("vertical.links", "\"802.11\""), ("vertical.wifi_bps", "54e6"), ("vertical.cellular_bps", "5.5e6")];
    let owned: Vec<(String, String)> = wifi.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    assert!(load(good, "s.toml", &owned).is_ok());
    for (key, value) in
        [("vertical.wifi_bps", "19e6"), ("vertical.cellular_bps", "6e6"), ("vertical.wifi_bps", "5.5e6")]
    {
        let e = err(good, &[&wifi[..], &[(key, value)]].concat());
        assert!(e.contains(key) && e.contains("802.11"), "{key}={value}: {e}");
    }
}

#[test]
fn every_bad_inter_rat_value_names_its_key() {
    let text = hosim::scenario::presets::find("inter-rat").unwrap();
    assert!(load(text, "s.toml", &[]).is_ok());
    for (key, value, says) in [
        ("inter_rat.scheme", "\"relay\"", "forwarding"),
        ("inter_rat.direction", "\"lte-gsm\"", "lte-umts"),
        ("inter_rat.source_rate_bps", "0", ">= 1000"),
        ("inter_rat.target_rate_bps", "-1e6", ">= 1000"),
        ("inter_rat.s1_bps", "\"fast\"", "\"rf\""),
        ("inter_rat.s1_bps", "10", ">= 1000"),
        ("inter_rat.core_bps", "nan", "finite"),
        ("inter_rat.internet_rtt_s", "-0.01", ">= 0"),
        ("inter_rat.interruption_s", "-0.1", ">= 0"),
        ("inter_rat.bicast_lead_s", "-0.01", ">= 0"),
        ("inter_rat.bicast_lead_s", "40", "handover_at_s - ftp_start_s"),
        ("inter_rat.handover_at_s", "200", "end of the run"),
        ("inter_rat.ftp_start_s", "95", "before handover_at_s"),
        ("inter_rat.file_bytes", "-5", "file_bytes"),
        ("inter_rat.ran_buffer_s", "-1", ">= 0"),
        ("inter_rat.convergence_window_s", "0", "> 0"),
        ("inter_rat.convergence_fraction", "1.5", "(0, 1]"),
        ("inter_rat.sample_s", "0.5", "convergence_window_s"),
        ("inter_rat.pre_window_s", "0", "> 0"),
        ("inter_rat.radio_delay_s", "\"long\"", "radio_delay_s"),
        ("inter_rat.handoverat_s", "90", "handoverat_s"),
    ] {
        let e = err(text, &[(key, value)]);
        let leaf = key.rsplit('.').next().unwrap();
        assert!(e.contains(leaf) && e.contains(says), "{key} = {value}: {e}");
    }
}

/// The `cellular` keys of issue 37 §3's inter-RAT writing: per-cell rates, the gateway's
/// buffer, the target's priority for forwarded data, the uplink switch, PDCP's duplicates.
#[test]
fn every_bad_inter_rat_cellular_value_names_its_key() {
    let text = hosim::scenario::presets::find("cellular").unwrap();
    assert!(load(text, "s.toml", &[]).is_ok());
    let two = ("cellular.cells", "2");
    for (key, value, names, says) in [
        ("cellular.cell_bps", "[1e6]", "cellular.cell_bps", "one rate per cell (2 cells), got 1"),
        ("cellular.cell_bps", "[1e6, 0]", "cellular.cell_bps[1]", ">= 1 bit/s"),
        ("cellular.uplink_bps", "[1e6, nan]", "cellular.uplink_bps[1]", "finite"),
        ("cellular.s1_bps", "[1e6, 2e6, 3e6]", "cellular.s1_bps", "one rate per cell (2 cells), got 3"),
        ("cellular.s1_bps", "\"rf\"", "cellular.s1_bps", "expected a rate in bit/s, or a list with one rate per cell"),
        ("cellular.cell_bps", "-5", "cellular.cell_bps", ">= 1 bit/s"),
        ("cellular.s1_bps", "[1e6, 1e13]", "cellular.s1_bps[1]", "<= 1e12 bit/s"),
        ("cellular.gateway_buffer", "\"per-cell\"", "cellular.gateway_buffer", "per-ue"),
        ("cellular.forwarded_first", "1", "cellular.forwarded_first", "bool"),
        ("cellular.uplink_switch", "\"access\"", "cellular.uplink_switch", "attach"),
        ("cellular.pdcp_discard_duplicates", "\"no\"", "cellular.pdcp_discard_duplicates", "bool"),
    ] {
        let e = err(text, &[two, (key, value)]);
        assert!(e.contains(names) && e.contains(says), "{key} = {value}: {e}");
    }
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

#[test]
fn unknown_capture_format_is_named_even_without_a_capture() {
    let e = err(GOOD, &[("capture.format", "\"x\"")]);
    assert!(e.contains("`capture.format`") && e.contains("pcapng"), "{e}");
}

#[test]
fn bad_freeze_warning_and_send_buffer_name_their_key() {
    let good = "topology = \"vertical\"\nduration_s = 10\n[vertical]\n";
    for ok in ["\"freeze\"", "\"daniel-kojo\""] {
        assert!(load(good, "s.toml", &[("vertical.adaptation".into(), ok.into())]).is_ok(), "{ok}");
    }
    for (key, value, says) in [
        ("vertical.freeze_warning_s", "0", "> 0"),
        ("vertical.freeze_warning_s", "15", "interval_s"),
        ("vertical.freeze_warning_s", "\"rtt\"", "freeze_warning_s"),
        ("vertical.sndbuf_bytes", "0", ">= 1"),
        ("vertical.sndbuf_bytes", "-5", "sndbuf_bytes"),
    ] {
        let e = err(good, &[(key, value)]);
        assert!(e.contains(key.rsplit('.').next().unwrap()) && e.contains(says), "{key} = {value}: {e}");
    }
}

#[test]
fn unknown_loss_detection_is_named_with_the_choices() {
    let e = err(GOOD, &[("tcp.loss_detection", "rack")]);
    assert!(e.contains("`tcp.loss_detection`") && e.contains("rack-tlp"), "{e}");
}

#[test]
fn non_boolean_frto_and_hystart_are_named() {
    for key in ["tcp.frto", "tcp.frto_in_recovery", "tcp.hystart"] {
        let e = err(GOOD, &[(key, "\"yes\"")]);
        assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
    }
}

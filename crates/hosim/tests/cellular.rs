//! The `cellular` template (issue 37, first slice): DAPS delivers across a handover without
//! loss, its duplicates and reordering are bounded as TS 38.323 says, movement triggers
//! handovers where the cells' geometry puts them, and bad keys are refused by name.

mod common;

use common::cellular::{f, one_handover, preset, summary, try_run, u, PRESET};
use serde_json::Value;

fn text() -> &'static str {
    preset(PRESET)
}

fn run(kv: &[(&str, &str)], seed: u64) -> Result<Value, String> {
    try_run(text(), PRESET, kv, seed)
}

#[test]
fn daps_without_interruption_to_an_idle_target_delivers_every_byte_without_a_retransmission() {
    for seed in [1, 2] {
        let s = summary(&one_handover("daps", &[]), seed);
        let flow = &s["flows"][0];
        assert_eq!(u(&flow["retransmits"]), 0, "seed {seed}: {flow}");
        assert_eq!(u(&flow["timeouts"]), 0);
        assert!(u(&flow["bytes_delivered"]) > 10_000_000, "{flow}");
        let ho = &s["handovers"][0];
        assert_eq!(ho["scheme"], "daps");
        assert_eq!((u(&ho["dropped_packets"]), f(&ho["interruption_s"])), (0, 0.0), "{ho}");
        assert_eq!(ho["outcome"], "optimal", "{ho}");
        assert!(s["queues"].as_array().unwrap().iter().all(|q| u(&q["dropped"]) == 0), "no queue dropped");
    }
}

#[test]
fn the_same_handover_without_daps_costs_tcp_packets_or_time() {
    let drop = summary(&one_handover("drop", &[]), 1);
    let ho = &drop["handovers"][0];
    assert!(u(&ho["dropped_packets"]) > 0, "{ho}");
    assert!(u(&drop["flows"][0]["retransmits"]) > 0, "dropped packets are retransmitted");
    let fwd = summary(&one_handover("forward", &[]), 1);
    let ho = &fwd["handovers"][0];
    assert!(u(&ho["forwarded_packets"]) > 0 && u(&ho["dropped_packets"]) == 0, "{ho}");
    assert!((f(&ho["interruption_s"]) - 0.03).abs() < 1e-9, "hard handovers default to 30 ms: {ho}");
}

#[test]
fn daps_duplicates_discarded_equal_the_packets_both_cells_sent() {
    for (seed, release) in [(1, "0.02"), (3, "0.1")] {
        let s = summary(&one_handover("daps", &[("cellular.source_release_delay_s", release)]), seed);
        let ho = &s["handovers"][0];
        let (by_source, by_target) = (u(&ho["overlap_radio_packets"][0]), u(&ho["overlap_radio_packets"][1]));
        assert!(by_source > 0 && by_target > 0, "both cells served the UE: {ho}");
        // Every packet the source sent after the command had a copy forwarded to the target,
        // and the target sends every copy: one of each pair is discarded at the UE.
        assert_eq!(u(&ho["duplicates_discarded"]), by_source, "{ho}");
        // Copies not duplicated are those whose original the source discarded at release.
        assert_eq!(
            u(&ho["forwarded_copies"]) - u(&ho["source_discarded_packets"]),
            u(&ho["duplicates_discarded"]),
            "{ho}"
        );
    }
}

#[test]
fn pdcp_delivery_never_stalls_longer_than_t_reordering() {
    let tight = [("cellular.x2_delay_s", "0.02"), ("cellular.buffer_bytes", "200000")];
    for (scheme, t) in [("daps", "0.05"), ("daps", "0.01"), ("forward", "0.02"), ("drop", "0.03")] {
        let mut kv = one_handover(scheme, &tight);
        kv.push(("cellular.t_reordering_s", t));
        let s = summary(&kv, 1);
        let ho = &s["handovers"][0];
        let t: f64 = t.parse().unwrap();
        assert!(f(&ho["reordering_stall_max_s"]) <= t + 1e-9, "{scheme}, t-Reordering {t}: {ho}");
        // A packet behind a second gap may wait for two timer runs (TS 38.323 §5.2.2.2).
        assert!(f(&ho["reordering_delay_max_s"]) <= 2.0 * t + 1e-9, "{scheme}, t-Reordering {t}: {ho}");
    }
    let s = summary(&[], 1);
    for ho in s["handovers"].as_array().unwrap() {
        assert!(f(&ho["reordering_stall_max_s"]) <= 0.05 + 1e-9, "{ho}");
    }
}

#[test]
fn movement_hands_over_at_each_border_within_one_time_to_trigger() {
    // 4 cells 500 m apart, 25 m/s: borders at 250, 750 and 1250 m, crossed at 10, 30, 50 s.
    // The A3-like condition holds from the border plus half the hysteresis; the decision
    // comes one time to trigger later.
    for hysteresis in ["0", "50"] {
        let kv = [
            ("duration_s", "60"),
            ("cellular.cells", "4"),
            ("cellular.cell_spacing_m", "500"),
            ("cellular.ues", "1"),
            ("cellular.speed_mps", "25"),
            ("cellular.hysteresis_m", hysteresis),
            ("cellular.time_to_trigger_s", "0.32"),
            ("cellular.scheme", "forward"),
            ("tcp.rwnd_bytes", "65535"),
        ];
        let s = summary(&kv, 1);
        let hos = s["handovers"].as_array().unwrap();
        assert_eq!(hos.len(), 3, "{hos:?}");
        let h: f64 = hysteresis.parse().unwrap();
        for (k, ho) in hos.iter().enumerate() {
            let border_s = (k as f64 + 0.5) * 500.0 / 25.0;
            let late = f(&ho["start_s"]) - border_s;
            let expected = h / 2.0 / 25.0 + 0.32;
            assert!((late - expected).abs() < 1e-6, "handover {k} decided {late} s after the border");
            if h == 0.0 {
                assert!((0.0..=0.32 + 1e-9).contains(&late), "within one time to trigger");
            }
            let (from, to) = (format!("cell{k}"), format!("cell{}", k + 1));
            assert_eq!((ho["source"].as_str(), ho["target"].as_str()), (Some(&*from), Some(&*to)));
        }
    }
}

#[test]
fn the_preset_moves_every_ue_through_the_three_cells() {
    let s = summary(&[("duration_s", "25")], 1);
    let hos = s["handovers"].as_array().unwrap();
    assert_eq!(hos.len(), 20, "10 UEs, 2 borders each");
    let cells = s["cellular"]["cells"].as_array().unwrap();
    assert!(cells.iter().all(|c| f(&c["load"]) > 0.1), "{cells:?}");
    for ho in hos {
        // Every original the source held after the command was sent, discarded at release or
        // refused by the source's full buffer, each with a copy forwarded; a copy may be lost
        // in the target's full buffer, so at most the packets the source sent are discarded
        // as duplicates.
        let by_source = u(&ho["overlap_radio_packets"][0]);
        assert!(u(&ho["forwarded_copies"]) - u(&ho["source_discarded_packets"]) >= by_source, "{ho}");
        assert!(u(&ho["duplicates_discarded"]) <= by_source, "{ho}");
    }
}

#[test]
fn bad_cellular_keys_are_refused_naming_the_key() {
    for (kv, key) in [
        (vec![("cellular.scheme", "\"bogus\"")], "cellular.scheme"),
        (vec![("cellular.cells", "0")], "cellular.cells"),
        (vec![("cellular.x2_delay_s", "-1")], "cellular.x2_delay_s"),
        (vec![("cellular.t_reordering_s", "0")], "cellular.t_reordering_s"),
        (vec![("cellular.buffer_packets", "10")], "cellular.buffer_bytes"),
        (vec![("cellular.handovers", "[{at_s = 1.0, ue = 0, target = 7}]")], "cellular.handovers[0].target"),
        (vec![("cellular.handovers", "[{at_s = 1.0, ue = 10, target = 1}]")], "cellular.handovers[0].ue"),
        (vec![("cellular.interruption_s", "-0.1")], "cellular.interruption_s"),
        (vec![("cellular.cells", "100"), ("cellular.ues", "1000")], "cellular.ues"),
        (vec![("cellular.buffer", "\"pooled\"")], "cellular.buffer"),
        (vec![("cellular.scheme", "\"drop\""), ("cellular.target_reordering", "true")], "cellular.target_reordering"),
        (vec![("cellular.rlf_offset_m", "-50")], "cellular.rlf_offset_m"),
        (vec![("cellular.cho_candidates", "0")], "cellular.cho_candidates"),
        (vec![("cellular.cho_forwarding", "\"never\"")], "cellular.cho_forwarding"),
        (vec![("cellular.speed_max_mps", "-5")], "cellular.speed_max_mps"),
    ] {
        let e = run(&kv, 1).expect_err("refused");
        assert!(e.contains(key) && !e.contains('\n'), "{kv:?}: {e}");
    }
}

#[test]
fn the_documented_ran_engineer_scenario_is_the_preset() {
    let doc = include_str!("../../../docs/examples/ran-engineer.toml");
    let keys = |t: &'static str| -> Vec<&'static str> {
        t.lines().filter(|l| !l.starts_with('#') && !l.starts_with("name =")).collect()
    };
    assert_eq!(keys(doc), keys(text()), "docs/examples/ran-engineer.toml and presets/cellular.toml differ");
}

#[test]
fn the_highway_preset_has_the_issues_numbers() {
    // Issue 37, section 5: 7 cells in a line, 20 UEs at 60-120 km/h, 50 Mb/s cells, 30 ms
    // servers.
    let text = hosim::scenario::presets::find("highway").expect("highway preset");
    let t: toml::Value = toml::from_str(text).expect("toml");
    let c = &t["cellular"];
    assert_eq!((c["cells"].as_integer(), c["ues"].as_integer()), (Some(7), Some(20)));
    let kmh = |k: &str| c[k].as_float().unwrap() * 3.6;
    assert!((kmh("speed_mps") - 60.0).abs() < 1e-3 && (kmh("speed_max_mps") - 120.0).abs() < 1e-3);
    assert_eq!((c["cell_bps"].as_float(), c["server_rtt_s"].as_float()), (Some(50e6), Some(0.03)));
    let s = common::cellular::run(text, "highway", &[("duration_s", "2")], 1);
    assert_eq!(s["flows"].as_array().map(Vec::len), Some(20));
}

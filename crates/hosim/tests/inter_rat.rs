//! The inter-RAT handover (3GPP back-to-back loss contribution, Appendix A) at the packet
//! level: which packets each scheme loses, forwards or duplicates (by packet uid), the order
//! at the target, conservation, complete in-order delivery and determinism for every scheme
//! and direction. Short runs: FTP from 0.5 s, the UE leaves at 3 s.

use std::collections::BTreeSet;

use hosim::metrics::summary::check_invariants;
use hosim::mobility::inter_rat::InterRat;
use hosim::scenario::{build::build, load, presets};
use hosim::sim::Sim;

const SHORT: [(&str, &str); 5] = [
    ("duration_s", "8"),
    ("inter_rat.ftp_start_s", "0.5"),
    ("inter_rat.handover_at_s", "3.0"),
    ("inter_rat.pre_window_s", "1.0"),
    ("inter_rat.file_bytes", "500000"),
];

fn sim(sets: &[(&str, &str)]) -> Sim {
    let text = presets::find("inter-rat").unwrap();
    let mut overrides: Vec<(String, String)> = SHORT.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    overrides.extend(sets.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let s = load(text, "inter-rat", &overrides).expect("valid scenario");
    let mut w = build(&s, "inter-rat", 1).expect("buildable scenario");
    w.agent_mut::<InterRat>().unwrap().record_uids = true;
    w.run();
    let bad = check_invariants(&w);
    assert!(bad.is_empty(), "invariants: {bad:?}");
    w
}

fn agent(w: &Sim) -> &InterRat {
    w.agent::<InterRat>().unwrap()
}

fn set(v: &[u64]) -> BTreeSet<u64> {
    v.iter().copied().collect()
}

/// What the anchor sent to the source RAN that the source never put on its radio.
fn left_in_source(a: &InterRat) -> BTreeSet<u64> {
    set(&a.uids.to_source).difference(&set(&a.uids.source_radio)).copied().collect()
}

fn assert_complete(w: &Sim) {
    let f = &w.world.flows[0];
    assert_eq!(f.delivered_bytes, 500_000, "the whole file arrives");
    assert!(f.completion_ns.is_some());
    assert_eq!(f.tag_errors, 0, "no payload mix-up");
}

#[test]
fn forwarding_delivers_exactly_the_sources_undelivered_data() {
    for s1 in ["rf", "155e6"] {
        let w = sim(&[("inter_rat.scheme", "forwarding"), ("inter_rat.s1_bps", s1)]);
        let a = agent(&w);
        assert!(a.counts.forwarded >= 5, "S1 {s1}: a window's worth is left: {}", a.counts.forwarded);
        assert_eq!(set(&a.uids.forwarded), left_in_source(a), "S1 {s1}");
        assert_eq!(a.counts.lost_in_source, 0);
        assert_eq!(w.world.counters.dropped(), 0, "nothing is lost");
        let target_forwarded: BTreeSet<u64> = a.uids.target_radio.iter().filter(|(_, f)| *f).map(|(u, _)| *u).collect();
        assert_eq!(target_forwarded, set(&a.uids.forwarded), "the target sends every forwarded packet");
        assert_eq!(w.world.flows[0].sender.stats.retransmits, 0, "S1 {s1}: no retransmission");
        assert_complete(&w);
    }
}

#[test]
fn forwarding_sends_forwarded_data_before_new_data_at_the_target() {
    // S1 at 155 Mb/s: the window sits in the eNB, so it is all forwarded at the HO command and
    // reaches the target long before the UE does.
    let w = sim(&[("inter_rat.scheme", "forwarding"), ("inter_rat.s1_bps", "155e6")]);
    let a = agent(&w);
    let n = a.counts.forwarded as usize;
    let first: Vec<bool> = a.uids.target_radio.iter().take(n).map(|(_, f)| *f).collect();
    assert_eq!(first, vec![true; n], "the first {n} target transmissions are the forwarded packets");
    assert!(a.uids.target_radio.iter().skip(n).all(|(_, f)| !f));
}

#[test]
fn bicasting_loses_what_reached_the_source_before_it_started_and_was_not_sent() {
    for s1 in ["rf", "155e6"] {
        let w = sim(&[("inter_rat.scheme", "bicasting"), ("inter_rat.s1_bps", s1)]);
        let a = agent(&w);
        let before: BTreeSet<u64> = set(&a.uids.to_source_before_bicast);
        let expected: BTreeSet<u64> = before.difference(&set(&a.uids.source_radio)).copied().collect();
        assert_eq!(set(&a.uids.lost), expected, "S1 {s1}");
        assert_eq!(a.counts.lost_in_source, expected.len() as u64);
        assert_eq!(a.counts.forwarded, 0);
        assert_complete(&w);
    }
}

#[test]
fn bicasting_with_s1_at_the_radio_rate_loses_nothing_since_the_window_waits_above_the_anchor() {
    // S1 = RF: the anchor's output to S1 is the bottleneck and its buffer sits above the
    // bicasting point: what leaves it while bicasting is copied, what still waits at the path
    // switch goes to the target. Only the packet on S1 when bicasting starts can be lost.
    let w = sim(&[("inter_rat.scheme", "bicasting"), ("inter_rat.s1_bps", "rf")]);
    let a = agent(&w);
    assert!(a.counts.bicast_copies >= 5, "110 ms of 1 Mb/s is bicast: {}", a.counts.bicast_copies);
    assert!(a.counts.lost_in_source <= 1, "at most the packet on S1 at the start: {}", a.counts.lost_in_source);
    assert_complete(&w);
}

#[test]
fn bicasting_duplicates_exactly_what_the_source_sent_after_it_started() {
    // At 50 Mb/s the source's queue drains within the 10 ms of bicasting: it sends bicast
    // packets before the UE leaves.
    let w = sim(&[
        ("inter_rat.scheme", "bicasting"),
        ("inter_rat.source_rate_bps", "50e6"),
        ("inter_rat.target_rate_bps", "50e6"),
        ("inter_rat.file_bytes", "0"),
    ]);
    let a = agent(&w);
    let bicast: BTreeSet<u64> =
        set(&a.uids.to_source).difference(&set(&a.uids.to_source_before_bicast)).copied().collect();
    let expected: BTreeSet<u64> = bicast.intersection(&set(&a.uids.source_radio)).copied().collect();
    assert!(!expected.is_empty(), "the source sent bicast packets");
    assert_eq!(set(&a.uids.duplicated), expected);
    assert_eq!(a.counts.duplicated, expected.len() as u64);
    assert_eq!(a.counts.bicast_copies, bicast.len() as u64, "one copy per packet sent while bicasting");
    assert!(w.world.flows[0].receiver.stats.duplicate_segments >= a.counts.duplicated);
}

#[test]
fn no_forwarding_loses_exactly_what_the_source_ran_held() {
    for s1 in ["rf", "155e6"] {
        let w = sim(&[("inter_rat.scheme", "none"), ("inter_rat.s1_bps", s1)]);
        let a = agent(&w);
        assert_eq!(set(&a.uids.lost), left_in_source(a), "S1 {s1}");
        assert!(a.counts.lost_in_source >= 5, "{}", a.counts.lost_in_source);
        assert_eq!(w.world.counters.dropped(), a.counts.lost_in_source, "the handover is the only loss");
        assert!(w.world.flows[0].sender.stats.retransmits >= a.counts.lost_in_source);
        assert_complete(&w);
    }
}

#[test]
fn every_scheme_and_direction_conserves_packets_and_delivers_the_file_in_order() {
    for scheme in ["forwarding", "bicasting", "none"] {
        for dir in ["lte-umts", "umts-lte"] {
            for (src, tgt) in [("1e6", "1e6"), ("1e6", "10e6"), ("10e6", "1e6")] {
                let w = sim(&[
                    ("inter_rat.scheme", scheme),
                    ("inter_rat.direction", dir),
                    ("inter_rat.source_rate_bps", src),
                    ("inter_rat.target_rate_bps", tgt),
                    ("inter_rat.s1_bps", "155e6"),
                ]);
                // check_invariants (in `sim`) covers conservation with held_packets().
                assert_complete(&w);
            }
        }
    }
}

#[test]
fn same_seed_gives_the_same_summary_for_every_scheme() {
    for scheme in ["forwarding", "bicasting", "none"] {
        for dir in ["lte-umts", "umts-lte"] {
            let run = || {
                let text = presets::find("inter-rat").unwrap();
                let mut overrides: Vec<(String, String)> =
                    SHORT.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                overrides.push(("inter_rat.scheme".into(), scheme.into()));
                overrides.push(("inter_rat.direction".into(), dir.into()));
                let opts = hosim::RunOptions { seed: Some(3), overrides, traces: true, ..Default::default() };
                let mut out = hosim::run(text, "inter-rat", &opts).expect("run");
                out.summary.as_object_mut().unwrap().remove("wall_time_s");
                (serde_json::to_string(&out.summary).unwrap(), out.traces.table(hosim::TraceKind::Cwnd).clone())
            };
            assert_eq!(run(), run(), "{scheme} {dir}");
        }
    }
}

#[test]
fn the_summary_reports_the_handover_and_its_convergence_time() {
    let text = presets::find("inter-rat").unwrap();
    let overrides: Vec<(String, String)> = SHORT.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let opts = hosim::RunOptions { seed: None, overrides, traces: false, ..Default::default() };
    let out = hosim::run(text, "inter-rat", &opts).expect("run");
    let ho = &out.summary["handovers"][0];
    assert_eq!(ho["scheme"], "forwarding");
    assert_eq!(ho["start_s"], 3.0);
    let c = ho["convergence_time_s"].as_f64().expect("a convergence time");
    // Forwarding, no rate change: the rate is back once the UE arrives (100 ms) and the
    // forwarded data flows.
    assert!((0.1..0.2).contains(&c), "{c}");
    assert_eq!(ho["retransmissions"], 0);
    assert_eq!(ho["retransmissions_until_converged"], 0);
}

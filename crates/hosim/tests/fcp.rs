//! The data path of the drop, forward and forward-and-rearrange handover schemes (Cohen &
//! Levin, Sec. III), NewReno's timer variants (RFC 6582 §4) end to end, and the `[fcp]`
//! input checks. One mobile, one handover at 1.0 s, no congestion loss unless a test asks.

use hosim::metrics::summary::check_invariants;
use hosim::mobility::fcp::{FcpHandover, HandoverRecord};
use hosim::scenario::{build::build, load};
use hosim::sim::{Agent, Sim};

/// One mobile on a 100/10 Mb/s Fig. 1 network, a single handover bs1 -> bs2 at 1.0 s.
/// The receiver window (200 kB, two bandwidth-delay products) keeps the base-station queue
/// below its 100-packet buffer, so only the handover can lose or reorder packets.
const BASE: &str = r#"
topology = "fcp"
duration_s = 3.0
[fcp]
mobiles = 1
handover_interval_s = 100.0
first_handover_s = 1.0
warmup_s = 0.5
[tcp]
recovery = "newreno"
delayed_ack = false
min_rto_s = 0.2
rwnd_bytes = 200000
"#;

fn world(scheme: &str, sets: &[(&str, &str)]) -> Sim {
    let mut overrides = vec![("fcp.scheme".to_string(), scheme.to_string())];
    overrides.extend(sets.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let s = load(BASE, "test.toml", &overrides).expect("valid scenario");
    let mut w = build(&s, "test.toml", 1).expect("buildable scenario");
    w.agent_mut::<FcpHandover>().expect("fcp mechanism").record_uids = true;
    w.run();
    let bad = check_invariants(&w);
    assert!(bad.is_empty(), "invariants: {bad:?}");
    w
}

fn only_handover(w: &Sim) -> &HandoverRecord {
    let log = &w.agent::<FcpHandover>().unwrap().log;
    assert_eq!(log.len(), 1);
    &log[0]
}

fn sorted(v: &[u64]) -> Vec<u64> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn drop_loses_exactly_the_packets_past_the_fcp_on_the_old_path() {
    let w = world("drop", &[]);
    let h = only_handover(&w);
    assert!(h.past_fcp_pkts >= 15, "25 ms of a 10 Mb/s flow is past the FCP: {}", h.past_fcp_pkts);
    assert_eq!(sorted(&h.dropped_uids), sorted(&h.past_fcp_uids));
    assert_eq!(h.dropped_pkts, h.past_fcp_pkts);
    assert_eq!(h.forwarded_pkts, 0);
    let c = &w.world.counters;
    assert_eq!(c.dropped_handover, h.past_fcp_pkts, "the handover is the only loss");
    assert_eq!(c.dropped(), c.dropped_handover);
    let f = &w.world.flows[0];
    assert!(f.sender.stats.retransmits >= h.past_fcp_pkts, "every dropped segment is sent again");
    assert!(h.end_ns.unwrap() - h.start_ns <= 25_000_000 + 100_000, "old path drained within D_FCP->BS");
}

#[test]
fn drop_with_old_bs_queue_deliver_loses_only_the_fcp_to_bs_link() {
    // The old base station finishes its queue: only the 25 ms FCP->BS1 link's packets
    // (about 21 at 10 Mb/s) meet the scheme.
    let w = world("drop", &[("fcp.old_bs_queue", "deliver")]);
    let h = only_handover(&w);
    assert_eq!(sorted(&h.dropped_uids), sorted(&h.past_fcp_uids));
    assert!((15..=25).contains(&h.past_fcp_pkts), "{}", h.past_fcp_pkts);
    let full = world("drop", &[]);
    assert!(only_handover(&full).past_fcp_pkts > h.past_fcp_pkts + 20, "the default also flushes BS1's queue");
}

#[test]
fn forward_delivers_them_late_and_out_of_order() {
    let w = world("forward", &[]);
    let h = only_handover(&w);
    assert!(h.past_fcp_pkts >= 15);
    assert_eq!(sorted(&h.forwarded_uids), sorted(&h.past_fcp_uids));
    assert_eq!(w.world.counters.dropped(), 0, "forward loses nothing");
    assert!(h.forwarded_overtaken_pkts > 0, "direct packets overtake forwarded ones at BS2");
    // Late: the last forwarded packet reaches BS2 a forwarding delay (50 ms) after the old
    // path drained, behind direct packets that took 25 ms from the FCP.
    assert!(h.end_ns.unwrap() - h.start_ns > 50_000_000);
    assert_eq!(h.forwarded_overtaken_pkts, h.forwarded_pkts, "every forwarded packet arrives after direct ones");
    let f = &w.world.flows[0];
    assert!(f.receiver.stats.out_of_order_segments > 0, "the mobile sees a gap");
    assert!(f.sender.stats.fast_recoveries >= 1, "three duplicate ACKs: a spurious fast retransmit");
    assert!(f.receiver.stats.duplicate_segments > 0, "the forwarded copy made the retransmission unnecessary");
}

#[test]
fn rearrange_delivers_them_in_order() {
    // A buffer large enough for the window: nothing is lost while BS2 holds packets back.
    let w = world("rearrange", &[("fcp.bs_buffer_pkts", "300")]);
    let h = only_handover(&w);
    assert_eq!(sorted(&h.forwarded_uids), sorted(&h.past_fcp_uids));
    assert!(h.held_max_pkts > 0, "BS2 held direct packets back");
    assert_eq!(h.forwarded_overtaken_pkts, 0);
    assert_eq!(h.buffer_drops, 0);
    assert_eq!(w.world.counters.dropped(), 0);
    let f = &w.world.flows[0];
    assert_eq!(f.receiver.stats.out_of_order_segments, 0, "in order at the mobile");
    assert_eq!(f.sender.stats.fast_recoveries + f.sender.stats.timeouts, 0);
    assert_eq!(f.sender.stats.retransmits, 0);
    assert_eq!(w.agent::<FcpHandover>().unwrap().held_packets(), 0, "everything held was released");
}

#[test]
fn rearrange_fills_bs2_buffer_when_forwarding_is_slow() {
    // A 150 ms forwarding path and a 70-packet window: ~45 direct packets reach BS2 before
    // the forwarded ones, more than its 40-packet buffer, which the window never fills
    // without a handover.
    let sets = [("fcp.forward_delay_s", "0.15"), ("fcp.bs_buffer_pkts", "40"), ("tcp.rwnd_bytes", "102200")];
    let w = world("rearrange", &sets);
    let h = only_handover(&w);
    assert_eq!(h.bs_buffer_max_pkts, 40, "held + queued reached the buffer size");
    assert!(h.buffer_drops > 0);
    assert!(h.forwarded_buffer_drops > 0, "DropTail: held direct packets crowd out forwarded ones");
    assert_eq!(w.world.counters.dropped(), h.buffer_drops, "the full buffer is the only loss");
    assert_eq!(h.forwarded_overtaken_pkts, 0);
    // Evicting held packets instead keeps every forwarded packet.
    let mut evict = sets.to_vec();
    evict.push(("fcp.rearrange_overflow", "evict-held"));
    let w = world("rearrange", &evict);
    let h = only_handover(&w);
    assert_eq!(h.bs_buffer_max_pkts, 40);
    assert!(h.buffer_drops > 0);
    assert_eq!(h.forwarded_buffer_drops, 0);
}

#[test]
fn rearrange_with_a_separate_held_buffer_keeps_the_forwarded_packets() {
    // The ns-2.35 stand-in's held queue (`fcp.rearrange_buffer = "separate"`): the held
    // direct packets have 40 places of their own, so held + queued can pass the 40-packet
    // buffer and the forwarded packets are not crowded out; the release pushes the held
    // packets into the wireless queue, whose DropTail limit drops what does not fit.
    let sets = [("fcp.forward_delay_s", "0.15"), ("fcp.bs_buffer_pkts", "40"), ("tcp.rwnd_bytes", "102200")];
    let shared = world("rearrange", &sets);
    let shared = only_handover(&shared).clone();
    let mut separate = sets.to_vec();
    separate.push(("fcp.rearrange_buffer", "separate"));
    let w = world("rearrange", &separate);
    let h = only_handover(&w);
    assert_eq!(h.held_max_pkts, 40, "the held buffer filled up");
    assert!(h.bs_buffer_max_pkts > 40, "held + queued beyond one buffer: {}", h.bs_buffer_max_pkts);
    assert!(
        h.forwarded_buffer_drops < shared.forwarded_buffer_drops,
        "separate {} against shared {} forwarded packets lost",
        h.forwarded_buffer_drops,
        shared.forwarded_buffer_drops
    );
    let c = &w.world.counters;
    assert!(c.dropped_queue > 0, "the release overflowed the wireless queue");
    assert_eq!(c.dropped(), h.buffer_drops, "held overflow and release drops are the only losses");
    assert_eq!(h.forwarded_overtaken_pkts, 0, "still in order");
}

#[test]
fn held_packets_count_as_in_flight() {
    // Stop while BS2 still holds packets: conservation must count them.
    let w = world("rearrange", &[("fcp.forward_delay_s", "0.15"), ("duration_s", "1.05")]);
    assert!(w.agent::<FcpHandover>().unwrap().held_packets() > 0);
}

#[test]
fn newreno_slow_but_steady_recovers_without_timeout_where_impatient_times_out() {
    // RFC 6582 §4 with the drop scheme: ~20 segments lost in one window. Slow-but-Steady
    // retransmits one per RTT (each partial ACK resets the timer); Impatient times out one
    // RTO after the first partial ACK and slow-starts.
    let run = |timer: &str| {
        // A 60 kB window (no standing queue): about a dozen packets are past the FCP.
        let w = world(
            "drop",
            &[
                ("tcp.newreno_timer", timer),
                ("tcp.min_rto_s", "0.3"),
                ("tcp.rwnd_bytes", "60000"),
                ("duration_s", "6.0"),
            ],
        );
        let h = only_handover(&w).dropped_pkts;
        let s = w.world.flows[0].sender.stats.clone();
        (h, s.timeouts, s.fast_recoveries, s.retransmits)
    };
    let (lost, to_sbs, fr_sbs, rtx_sbs) = run("slow-but-steady");
    let (lost_i, to_imp, fr_imp, rtx_imp) = run("impatient");
    assert_eq!(lost, lost_i);
    assert!(lost >= 10);
    assert_eq!((to_sbs, fr_sbs), (0, 1), "one fast recovery, no timeout");
    assert_eq!(rtx_sbs, lost, "exactly one retransmission per lost segment");
    assert_eq!((to_imp, fr_imp), (1, 1), "one fast recovery ended by a timeout");
    assert!(rtx_imp > lost, "go-back-N after the timeout resends segments that had arrived");
}

fn error(sets: &[(&str, &str)]) -> String {
    let overrides: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let r = load(BASE, "test.toml", &overrides).and_then(|s| build(&s, "test.toml", 1).map(|_| ()));
    let e = r.expect_err("invalid input must be rejected").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

#[test]
fn bad_fcp_keys_give_one_line_errors_naming_the_key() {
    let cases: &[(&str, &str)] = &[
        ("fcp.scheme", "teleport"),
        ("fcp.mobiles", "0"),
        ("fcp.backbone_bps", "-1"),
        ("fcp.wireless_bps", "0"),
        ("fcp.sender_fcp_delay_s", "-0.1"),
        ("fcp.fcp_bs_delay_s", "nan"),
        ("fcp.bs_mobile_delay_s", "-1"),
        ("fcp.backbone_queue_pkts", "0"),
        ("fcp.bs_buffer_pkts", "0"),
        ("fcp.forward_delay_s", "-0.02"),
        ("fcp.forward_bps", "0"),
        ("fcp.forward_queue_pkts", "0"),
        ("fcp.handover_interval_s", "0"),
        ("fcp.handover_distribution", "gaussian"),
        ("fcp.rearrange_overflow", "drop-oldest"),
        ("fcp.rearrange_buffer", "both"),
        ("fcp.old_bs_queue", "keep"),
        ("fcp.rtt_s", "0"),
        ("fcp.first_handover_s", "-1"),
        ("fcp.warmup_s", "5"),
        ("fcp.start_stagger_s", "-1"),
        ("fcp.start_s", "-0.5"),
        ("fcp.start_s", "60"),
        ("fcp.handovers", "\"yes\""),
        ("fcp.teleport", "1"),
        ("tcp.newreno_timer", "eager"),
    ];
    for (key, value) in cases {
        let e = error(&[(key, value)]);
        let leaf = key.rsplit('.').next().unwrap();
        assert!(e.contains(leaf), "{key}={value}: {e}");
    }
    let both = error(&[("fcp.handover_interval_rtt", "10")]);
    assert!(both.contains("fcp.handover_interval_s") && both.contains("not both"), "{both}");
    let none = error(&[("fcp.handover_interval_s", "0"), ("fcp.handovers", "true")]);
    assert!(none.contains("fcp.handover_interval_s"), "{none}");
    let rtt = error(&[("fcp.handover_interval_rtt", "-3")]);
    assert!(rtt.contains("fcp.handover_interval_rtt") || rtt.contains("not both"), "{rtt}");
}

#[test]
fn fcp_preset_reports_throughput_fraction_and_handovers() {
    let text = hosim::scenario::presets::find("fcp").expect("fcp preset");
    let opts = hosim::RunOptions {
        seed: Some(3),
        overrides: vec![
            ("duration_s".into(), "8".into()),
            ("fcp.mobiles".into(), "3".into()),
            ("fcp.handover_interval_rtt".into(), "20".into()),
        ],
        traces: false,
        ..Default::default()
    };
    let out = hosim::run(text, "fcp", &opts).expect("preset runs");
    let s = &out.summary;
    assert_eq!(s["flows"].as_array().unwrap().len(), 3);
    for f in s["flows"].as_array().unwrap() {
        // Three mobiles share the 10 Mb/s: a third each less the handovers' losses, split
        // unevenly by the seed (0.18-0.31 over seeds 1-5).
        let x = f["throughput_fraction"].as_f64().unwrap();
        assert!(x > 0.1 && x <= 1.0, "{x}");
        assert_eq!(f["available_bps"].as_f64().unwrap(), 10e6);
    }
    let hos = s["handovers"].as_array().unwrap();
    assert!(hos.len() >= 3 * 3, "3 mobiles hand over every 1.6 s for 6 s: {}", hos.len());
    for h in hos {
        assert_eq!(h["scheme"], "forward");
        assert!(h["start_s"].as_f64().unwrap() >= 2.0, "no handover during the warm-up");
        assert!(h["ue"].as_str().unwrap().starts_with('m'));
    }
    let again = hosim::run(text, "fcp", &opts).unwrap();
    let strip = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    };
    assert_eq!(strip(s), strip(&again.summary), "same seed, same summary");
}

/// `fcp.start_s` moves every flow's start (and so its first segment) by the same time; the
/// stagger still adds i x `start_stagger_s`.
#[test]
fn start_s_delays_every_flow_by_the_same_time() {
    let text = hosim::scenario::presets::find("fcp").expect("fcp preset");
    let run = |start: &str| {
        let opts = hosim::RunOptions {
            seed: Some(1),
            overrides: vec![
                ("duration_s".into(), "4".into()),
                ("fcp.mobiles".into(), "2".into()),
                ("fcp.start_stagger_s".into(), "0.1".into()),
                ("fcp.start_s".into(), start.into()),
            ],
            traces: false,
            ..Default::default()
        };
        hosim::run(text, "fcp", &opts).expect("preset runs").summary
    };
    let starts = |s: &serde_json::Value| -> Vec<f64> {
        s["flows"].as_array().unwrap().iter().map(|f| f["start_s"].as_f64().unwrap()).collect()
    };
    let (at0, later) = (run("0"), run("0.5"));
    assert_eq!(starts(&at0), vec![0.0, 0.1]);
    assert_eq!(starts(&later), vec![0.5, 0.6]);
    let bytes = |s: &serde_json::Value| s["flows"][0]["bytes_delivered"].as_u64().unwrap();
    assert!(bytes(&later) < bytes(&at0), "half a second less to send: {} vs {}", bytes(&later), bytes(&at0));
}

/// Start times of one mobile's handovers in a long, light run.
fn handover_times(distribution: &str) -> Vec<f64> {
    let sets = [
        ("fcp.handover_distribution", distribution),
        ("fcp.handover_interval_s", "1.0"),
        ("duration_s", "2000"),
        ("fcp.wireless_bps", "1e5"),
        ("fcp.backbone_bps", "1e6"),
        ("tcp.rwnd_bytes", "3000"),
    ];
    let mut overrides = vec![("fcp.scheme".to_string(), "drop".to_string())];
    overrides.extend(sets.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    overrides.retain(|(k, _)| k != "fcp.first_handover_s");
    let text = BASE.replace("first_handover_s = 1.0\n", "").replace("handover_interval_s = 100.0\n", "");
    let s = load(&text, "test.toml", &overrides).expect("valid scenario");
    let mut w = build(&s, "test.toml", 7).expect("buildable");
    w.run();
    assert!(check_invariants(&w).is_empty());
    w.agent::<FcpHandover>().unwrap().log.iter().map(|h| h.start_ns as f64 / 1e9).collect()
}

#[test]
fn handover_intervals_are_fixed_or_exponential_with_mean_delta() {
    for (dist, cv_range) in [("fixed", 0.0..0.001), ("exponential", 0.85..1.15)] {
        let t = handover_times(dist);
        assert!(t[0] >= 0.5 && t[0] < 0.5 + 10.0, "first handover after the warm-up: {}", t[0]);
        let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!((mean - 1.0).abs() < 0.08, "{dist}: mean interval {mean} over {n} intervals");
        assert!(cv_range.contains(&(sd / mean)), "{dist}: coefficient of variation {}", sd / mean);
    }
}

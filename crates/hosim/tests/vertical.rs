//! Vertical WiFi <-> cellular handoffs (Sinky & Hamdaoui, TCP-CLAH): the soft and hard
//! handoff data path, Section III's four handoff-induced problems shown with TCP NewReno and
//! what TCP-CLAH does to each, the `[vertical]` input checks, determinism and the preset.
//!
//! Each problem scenario has one handoff (at `interval_s`, the run ending before the second)
//! and a window of observation after it; a run cut at time T is the prefix of a longer run
//! (same seed, deterministic), so "during the window" is the difference of two runs.

use hosim::metrics::summary::check_invariants;
use hosim::mobility::vertical::VerticalHandoff;
use hosim::scenario::{build::build, load};
use hosim::sim::Sim;

/// A 1460-byte-segment NewReno flow, no delayed ACKs, min RTO 200 ms, rwnd 100 kB (below the
/// BDP plus queue of both paths, so neither access queue overflows before the handoff).
const BASE: &str = r#"
topology = "vertical"
duration_s = 5.0
[vertical]
interval_s = 3.0
first = "cellular"
app_rate_bps = 20e6
[tcp]
recovery = "newreno"
mss_bytes = 1460
initial_window_segments = 3
delayed_ack = false
limited_transmit = false
min_rto_s = 0.2
initial_rto_s = 1.0
rwnd_bytes = 100000
"#;

fn world(sets: &[(&str, &str)]) -> Sim {
    let overrides: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let s = load(BASE, "test.toml", &overrides).expect("valid scenario");
    let mut w = build(&s, "test.toml", 1).expect("buildable scenario");
    w.agent_mut::<VerticalHandoff>().expect("vertical mechanism").record_uids = true;
    w.run();
    let bad = check_invariants(&w);
    assert!(bad.is_empty(), "invariants: {bad:?}");
    w
}

/// Counters of the flow and the network at the end of a run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Snap {
    fast_recoveries: u64,
    timeouts: u64,
    spurious_timeouts: u64,
    retransmits: u64,
    queue_drops: u64,
    rto_s: f64,
    srtt_s: f64,
    cwnd: u64,
}

fn snap(w: &Sim) -> Snap {
    let f = &w.world.flows[0];
    Snap {
        fast_recoveries: f.sender.stats.fast_recoveries,
        timeouts: f.sender.stats.timeouts,
        spurious_timeouts: f.spurious_timeouts,
        retransmits: f.sender.stats.retransmits,
        queue_drops: w.world.links.iter().map(|l| l.queue.stats.dropped).sum(),
        rto_s: f.sender.rto_ns() as f64 / 1e9,
        srtt_s: f.sender.srtt_ns().map_or(0.0, |s| s as f64 / 1e9),
        cwnd: f.sender.cwnd(),
    }
}

/// (state just before the handoff at `at_s`, state at `at_s + after_s`).
fn around_handoff(adaptation: &str, at_s: f64, after_s: f64, sets: &[(&str, &str)]) -> (Snap, Snap) {
    let at = format!("{at_s}");
    let mut s: Vec<(&str, &str)> = vec![("vertical.adaptation", adaptation), ("vertical.interval_s", at.as_str())];
    s.extend_from_slice(sets);
    let cut = format!("{}", at_s - 1e-3);
    let before = snap(&world(&[s.as_slice(), &[("duration_s", cut.as_str())]].concat()));
    let end = format!("{}", at_s + after_s);
    let after = snap(&world(&[s.as_slice(), &[("duration_s", end.as_str())]].concat()));
    (before, delta(before, after))
}

/// What changed between two snapshots (counters) and the state at the end (the rest).
fn delta(b: Snap, a: Snap) -> Snap {
    Snap {
        fast_recoveries: a.fast_recoveries - b.fast_recoveries,
        timeouts: a.timeouts - b.timeouts,
        spurious_timeouts: a.spurious_timeouts - b.spurious_timeouts,
        retransmits: a.retransmits - b.retransmits,
        queue_drops: a.queue_drops - b.queue_drops,
        ..a
    }
}

const HIGH_TO_LOW: &[(&str, &str)] = &[("vertical.first", "cellular")];

#[test]
fn high_to_low_reordering_makes_newreno_retransmit_without_loss_and_clah_does_not() {
    // Sec. III.A.1: packets sent on WiFi overtake those still queued on the cellular uplink.
    let (before, nr) = around_handoff("none", 3.0, 0.5, HIGH_TO_LOW);
    assert_eq!((before.fast_recoveries, before.queue_drops), (0, 0), "a clean start: {before:?}");
    assert_eq!(nr.queue_drops, 0, "nothing was lost: {nr:?}");
    assert!(nr.fast_recoveries >= 1 && nr.retransmits > 0, "false dupacks -> fast retransmit: {nr:?}");
    let (_, clah) = around_handoff("clah", 3.0, 0.5, HIGH_TO_LOW);
    assert_eq!((clah.fast_recoveries, clah.retransmits, clah.queue_drops), (0, 0, 0), "{clah:?}");
}

#[test]
fn high_to_low_leaves_newreno_an_inflated_rto_and_clah_a_smaller_one() {
    // Sec. III.A.1: the RTO of the cellular path lingers after the move to WiFi, whose own
    // RTO is the 200 ms minimum (base RTT 30 ms).
    let (before, nr) = around_handoff("none", 3.0, 0.25, HIGH_TO_LOW);
    assert!(before.rto_s > 0.25, "cellular RTO before the handoff: {before:?}");
    assert!(nr.rto_s > 2.0 * 0.2, "NewReno 250 ms after the handoff: {nr:?}");
    let (_, clah) = around_handoff("clah", 3.0, 0.25, HIGH_TO_LOW);
    assert!(clah.rto_s < 0.75 * nr.rto_s, "CLAH {clah:?} vs NewReno {nr:?}");
}

/// A 250 ms one-way cellular access (RTT 520 ms), longer than the WiFi RTO.
const LOW_TO_HIGH_SLOW: &[(&str, &str)] = &[("vertical.first", "wifi"), ("vertical.cellular_delay_s", "0.25")];

#[test]
fn low_to_high_newreno_times_out_spuriously_and_clah_does_not_prevent_it() {
    // Sec. III.A.2: the WiFi RTO expires before the first ACK returns over the cellular path.
    let (before, nr) = around_handoff("none", 3.0, 1.5, LOW_TO_HIGH_SLOW);
    assert_eq!(before.timeouts, 0, "{before:?}");
    assert!(nr.spurious_timeouts >= 1 && nr.queue_drops == 0, "{nr:?}");
    // CLAH resets the estimator, but the ACKs of the data sent on WiFi before the handoff
    // return first and teach it the WiFi RTT again (Algorithm 2 does not skip them).
    let (_, clah) = around_handoff("clah", 3.0, 1.5, LOW_TO_HIGH_SLOW);
    assert!(clah.spurious_timeouts >= 1, "{clah:?}");
}

#[test]
fn handoff_to_low_bdp_during_slow_start_overshoots_with_newreno_and_with_clah() {
    // Sec. III.A.2 "link overshoot": the move to cellular (BDP 30 packets, 20-packet queue)
    // happens at 150 ms, in the first slow start on WiFi.
    let sets = &[("vertical.first", "wifi"), ("tcp.rwnd_bytes", "4000000"), ("vertical.cellular_queue_pkts", "20")];
    let (before, nr) = around_handoff("none", 0.15, 1.0, sets);
    assert_eq!(before.queue_drops, 0, "still in the first slow start: {before:?}");
    assert!(nr.queue_drops > 0, "{nr:?}");
    // CLAH restarts from BDP_UB = 4 segments but leaves ssthresh unbounded (the paper does not
    // touch it), so its slow start overshoots the 50-packet cellular pipe a few RTTs later;
    // its 1 s initial RTO (the reset) then also costs a timeout. It does not cure this problem here.
    let (_, clah) = around_handoff("clah", 0.15, 1.0, sets);
    assert!(clah.queue_drops > 0 && clah.timeouts >= 1, "CLAH {clah:?} vs NewReno {nr:?}");
}

fn handoffs(w: &Sim) -> &[hosim::mobility::vertical::HandoffLog] {
    &w.agent::<VerticalHandoff>().unwrap().log
}

#[test]
fn soft_handoff_delivers_every_packet_of_the_old_path() {
    for first in ["wifi", "cellular"] {
        let w = world(&[("vertical.first", first)]);
        let h = handoffs(&w);
        assert_eq!(h.len(), 1);
        assert!(h[0].old_path_pkts > 10, "the old uplink carried data: {}", h[0].old_path_pkts);
        let delivered = &w.agent::<VerticalHandoff>().unwrap().delivered_uids;
        let lost: Vec<u64> = h[0].old_path_uids.iter().copied().filter(|u| !delivered.contains(u)).collect();
        assert!(lost.is_empty(), "first = {first}: old-path packets lost: {lost:?}");
        assert_eq!((h[0].dropped_pkts, w.world.counters.dropped_handover), (0, 0));
    }
}

#[test]
fn hard_handoff_loses_the_old_interface_queue() {
    let w = world(&[("vertical.first", "cellular"), ("vertical.mode", "hard")]);
    let h = &handoffs(&w)[0];
    let delivered = &w.agent::<VerticalHandoff>().unwrap().delivered_uids;
    assert!(h.dropped_pkts > 10, "the cellular uplink queue was full: {}", h.dropped_pkts);
    assert!(h.dropped_uids.iter().all(|u| !delivered.contains(u)), "a dropped packet arrived");
    assert!(h.old_path_uids.iter().any(|u| delivered.contains(u)), "packets on the air still arrive");
    assert_eq!(w.world.counters.dropped_handover, h.dropped_pkts);
    assert!(w.world.flows[0].sender.stats.retransmits > 0);
}

#[test]
fn a_hard_handoff_detaches_the_mobile_from_the_old_network_and_a_soft_one_does_not() {
    use hosim::sim::Attachment;
    // BASE: first = cellular, one handoff at 3 s. `World::attachments` is what `hosim emulate
    // --multipath` brings the mobile's real interfaces down and up by.
    let w = world(&[("vertical.mode", "hard")]);
    let node = |n: &str| w.world.nodes.iter().position(|x| x.name == n).unwrap() as u32;
    let link = |n: &str| w.world.links.iter().position(|l| l.name == n).unwrap() as u32;
    let (mobile, wifi, cell) = (node("mobile"), link("mobile->ap"), link("mobile->bs"));
    let at = |at_ns, link, attached| Attachment { at_ns, node: mobile, link, attached };
    assert_eq!(
        w.world.attachments,
        vec![at(0, wifi, false), at(3_000_000_000, cell, false), at(3_000_000_000, wifi, true)],
        "not on WiFi from the start; at the handoff off cellular, then onto WiFi"
    );
    assert!(world(&[]).world.attachments.is_empty(), "soft: both networks reach the mobile throughout");
}

#[test]
fn clah_notification_sets_cwnd_to_s_times_n_of_the_route_and_resets_rto() {
    let w = world(&[("vertical.adaptation", "clah"), ("vertical.first", "wifi")]);
    let h = &handoffs(&w)[0];
    assert_eq!(h.hops, 4, "mobile -> bs -> dest and back");
    assert_eq!(h.cwnd_after_bytes, 4 * 1460, "BDP_UB = S x N (eq. 3)");
    assert!(h.cwnd_before_bytes > h.cwnd_after_bytes);
    assert_eq!(h.rto_after_s, 1.0, "RFC 6298 (2.1): the initial RTO");
    let w = world(&[("vertical.adaptation", "clah"), ("vertical.clah_bdp", "path")]);
    let h = &handoffs(&w)[0];
    assert_eq!(h.cwnd_after_bytes, 19_000_000 * 30 / 1000 / 8, "WiFi rate x base RTT 30 ms");
}

#[test]
fn newreno_ignores_the_notification() {
    let w = world(&[("vertical.adaptation", "none")]);
    let h = &handoffs(&w)[0];
    assert_eq!((h.cwnd_after_bytes, h.rto_after_s), (h.cwnd_before_bytes, h.rto_before_s));
}

#[test]
fn preset_hands_off_every_interval_alternating_and_is_deterministic() {
    let text = hosim::scenario::presets::find("vertical").expect("vertical preset");
    let opts = hosim::RunOptions {
        seed: Some(5),
        overrides: vec![("duration_s".into(), "40".into()), ("vertical.adaptation".into(), "clah".into())],
        traces: true,
        ..Default::default()
    };
    let out = hosim::run(text, "vertical", &opts).expect("preset runs");
    let s = &out.summary;
    let hos = s["handovers"].as_array().unwrap();
    let times: Vec<f64> = hos.iter().map(|h| h["start_s"].as_f64().unwrap()).collect();
    assert_eq!(times, vec![15.0, 30.0]);
    assert_eq!((hos[0]["to"].as_str(), hos[1]["to"].as_str()), (Some("cellular"), Some("wifi")));
    assert!(hos.iter().all(|h| h["scheme"] == "soft" && h["dropped_pkts"] == 0));
    let v = &s["vertical"];
    assert!(v["jitter_mean_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["series"]["delay_mean_s"].as_array().unwrap().len(), 400, "0.1 s bins over 40 s");
    assert!(!out.traces.tables[hosim::TraceKind::Cwnd as usize].is_empty());
    let again = hosim::run(text, "vertical", &opts).unwrap();
    let strip = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    };
    assert_eq!(strip(s), strip(&again.summary), "same seed, same summary");
    assert_eq!(out.traces.tables, again.traces.tables, "same traces");
}

/// Segments sent, cwnd, timeouts and persist state of the freeze run cut at `at_s`.
fn freeze_state(at_s: f64) -> (u64, u64, u64, bool) {
    let end = format!("{at_s}");
    let w = world(&[("vertical.adaptation", "freeze"), ("duration_s", end.as_str())]);
    let s = &w.world.flows[0].sender;
    (s.stats.segments_sent, s.cwnd(), s.stats.timeouts, s.in_persist())
}

#[test]
fn freeze_zero_window_stops_the_sender_before_the_handoff_and_tr_acks_resume_it() {
    // Cellular -> WiFi at 3 s; the ZWA leaves dest one cellular base RTT (120 ms) before and
    // reaches the mobile 60 ms later, at 2.94 s; the TR-ACKs come over WiFi (15 ms).
    let (sent_a, cwnd_a, _, frozen_a) = freeze_state(2.95);
    let (sent_b, cwnd_b, _, frozen_b) = freeze_state(2.999);
    assert!(frozen_a && frozen_b && sent_a > 100);
    assert_eq!(sent_b, sent_a, "nothing sent while frozen");
    assert!(cwnd_b >= cwnd_a, "ACKs of data in flight still count; nothing reduces cwnd");
    // At 3.02 s the TR-ACKs are in, the duplicate ACKs of the reordering not yet.
    let (sent_c, cwnd_c, timeouts, frozen_c) = freeze_state(3.02);
    assert!(!frozen_c && sent_c > sent_b, "the TR-ACKs reopened the window");
    assert!(cwnd_c >= cwnd_b && timeouts == 0, "resumed at the old cwnd");
    let w = world(&[("vertical.adaptation", "freeze")]);
    let s = &w.world.flows[0].sender;
    assert!(s.stats.persist_ns > 50_000_000 && s.stats.persist_ns < 100_000_000, "{}", s.stats.persist_ns);
}

#[test]
fn daniel_kojo_cuts_cwnd_to_a_smaller_bdp_only_and_resets_rto() {
    let w = world(&[("vertical.adaptation", "daniel-kojo"), ("vertical.first", "wifi")]);
    let h = &handoffs(&w)[0];
    assert_eq!(h.cwnd_after_bytes, 3_000_000 * 120 / 1000 / 8, "cellular rate x base RTT 120 ms");
    assert!(h.cwnd_before_bytes > h.cwnd_after_bytes);
    assert_eq!(h.rto_after_s, 1.0, "RFC 6298 (2.1): the initial RTO");
    let sets = [("vertical.adaptation", "daniel-kojo"), ("vertical.first", "cellular"), ("vertical.wifi_bps", "1e9")];
    let w = world(&sets);
    let h = &handoffs(&w)[0];
    assert_eq!(h.cwnd_after_bytes, h.cwnd_before_bytes, "a 1 Gb/s WiFi's BDP is larger: cwnd kept");
}

#[test]
fn rate_app_writes_are_refused_when_the_send_buffer_is_full() {
    let w = world(&[("vertical.first", "cellular"), ("vertical.sndbuf_bytes", "131072")]);
    let f = &w.world.flows[0];
    assert!(f.app_refused_bytes > 1_000_000, "20 Mb/s into 3 Mb/s: {}", f.app_refused_bytes);
    assert!(f.sender.app_limit() - f.sender.snd_una() <= 131_072);
    let w = world(&[("vertical.first", "cellular"), ("vertical.sndbuf_bytes", "100000000")]);
    assert_eq!(w.world.flows[0].app_refused_bytes, 0);
    assert!(w.world.flows[0].sender.app_limit() > f.sender.app_limit() + 1_000_000);
}

/// The slow-start overshoot scenario of `handoff_to_low_bdp_during_slow_start_...`.
const OVERSHOOT: &[(&str, &str)] =
    &[("vertical.first", "wifi"), ("tcp.rwnd_bytes", "4000000"), ("vertical.cellular_queue_pkts", "20")];

#[test]
fn daniel_kojo_cures_reordering_and_the_spurious_rto_but_not_the_overshoot() {
    // Its cwnd cut to WiFi's BDP (71 kB, below the 100 kB in flight) holds new data back
    // until the cellular queue has drained, as CLAH's does.
    let (b, a) = around_handoff("daniel-kojo", 3.0, 0.5, HIGH_TO_LOW);
    let dk = delta(b, a);
    assert_eq!((dk.fast_recoveries, dk.retransmits), (0, 0), "{dk:?}");
    // Samples of data sent on WiFi are ignored: the 1 s initial RTO holds until the first
    // cellular sample, so the timer does not fire early.
    let (b, a) = around_handoff("daniel-kojo", 3.0, 1.5, LOW_TO_HIGH_SLOW);
    assert_eq!(delta(b, a).timeouts, 0, "{a:?}");
    // cwnd = ssthresh = the cellular BDP still goes out as one burst into a 20-packet queue.
    let (b, a) = around_handoff("daniel-kojo", 0.15, 1.0, OVERSHOOT);
    assert!(delta(b, a).queue_drops > 0, "{a:?}");
}

#[test]
fn freeze_lessens_reordering_but_its_resume_burst_worsens_the_overshoot() {
    let (b, a) = around_handoff("none", 3.0, 0.5, HIGH_TO_LOW);
    let (b2, a2) = around_handoff("freeze", 3.0, 0.5, HIGH_TO_LOW);
    let (nr, fr) = (delta(b, a), delta(b2, a2));
    assert!(fr.fast_recoveries >= 1 && fr.retransmits < nr.retransmits, "{fr:?} vs {nr:?}");
    let (b, a) = around_handoff("none", 0.15, 1.0, OVERSHOOT);
    let (b2, a2) = around_handoff("freeze", 0.15, 1.0, OVERSHOOT);
    let (nr, fr) = (delta(b, a), delta(b2, a2));
    assert!(fr.queue_drops > nr.queue_drops, "resumed at the old cwnd: {fr:?} vs {nr:?}");
}

/// Goodput of the preset's flow staying in network `first` (no handoff), backlogged.
fn achievable_mbps(first: &str, extra: &[(&str, &str)]) -> f64 {
    let text = hosim::scenario::presets::find("vertical").expect("vertical preset");
    let mut overrides: Vec<(String, String)> = [
        ("duration_s", "20"),
        ("vertical.first", first),
        ("vertical.interval_s", "1000"),
        ("vertical.app_rate_bps", "100e6"),
        ("vertical.sndbuf_bytes", "100000000"),
    ]
    .iter()
    .chain(extra)
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    overrides.sort();
    let opts = hosim::RunOptions { seed: Some(1), overrides, ..Default::default() };
    let out = hosim::run(text, "vertical", &opts).expect("preset runs");
    assert!(out.summary["handovers"].as_array().unwrap().is_empty());
    out.summary["flows"][0]["goodput_bps"].as_f64().unwrap() / 1e6
}

#[test]
fn preset_achievable_tcp_throughputs_are_the_802_11_macs_not_the_papers_19_and_3() {
    // The paper reports 19 and 3 Mb/s achievable on its 54 Mb/s (802.11g) and 5.5 Mb/s
    // (802.11b) networks. With the preset's 536-byte segments the MAC gives much less: a
    // 576-byte packet's frame takes 118 µs at 54 Mb/s, against about 96 µs of DIFS and mean
    // backoff and 44 µs of SIFS and ACK, and every other segment a TCP ACK contends for the
    // same medium (the same overheads at 5.5 Mb/s with 192 µs preambles). Measured 12.8 and
    // 2.0 Mb/s (ns-3.44's TCP over its WiFi model in bench/ns3/wifi is within 3 % of hosim's
    // medium); the tolerance is 3 %.
    let (wifi, cellular) = (achievable_mbps("wifi", &[]), achievable_mbps("cellular", &[]));
    assert!((wifi / 12.8 - 1.0).abs() < 0.03, "802.11g at 54 Mb/s, 536-byte segments: {wifi} Mb/s");
    assert!((cellular / 2.0 - 1.0).abs() < 0.03, "802.11b at 5.5 Mb/s, 536-byte segments: {cellular} Mb/s");
    // With 1448-byte segments and a window that does not bind, the MAC gives 24.0 and
    // 3.2 Mb/s: the paper's 3 Mb/s is within 10 %, its 19 Mb/s between the two sizes' 12.8 and 24.
    let big = [("tcp.mss_bytes", "1448"), ("tcp.rwnd_bytes", "4000000")];
    let (wifi, cellular) = (achievable_mbps("wifi", &big), achievable_mbps("cellular", &big));
    assert!((wifi / 24.0 - 1.0).abs() < 0.03 && wifi > 19.0, "802.11g, 1448-byte segments: {wifi} Mb/s");
    assert!((cellular / 3.0 - 1.0).abs() < 0.10, "802.11b, 1448-byte segments: {cellular} Mb/s");
}

//! The `linux` profile's dialect keys (docs/tcp.md, "Linux dialect"): each pinned on a run
//! where the key changes what happens, against the RFC behaviour it replaces.

mod common;

use hosim::sim::World;

/// Four bulk flows through a 10 Mb/s, 16 ms bottleneck with a 50-packet DropTail queue (base
/// RTT 36 ms), `linux` profile plus `extra` in `[tcp]`, 30 s.
fn four_flows_small_queue(extra: &str, seed: u64) -> World {
    four_flows(30.0, 0.016, 50, extra, seed)
}

/// Four bulk flows through a 10 Mb/s bottleneck of `delay_s` and a `queue`-packet DropTail
/// queue, 1 ms access links, `linux` profile plus `extra` in `[tcp]`, for `duration_s`.
fn four_flows(duration_s: f64, delay_s: f64, queue: u32, extra: &str, seed: u64) -> World {
    let text = format!(
        r#"
duration_s = {duration_s}
topology = "dumbbell"
[dumbbell]
flows = 4
bottleneck_bps = 10e6
bottleneck_delay_s = {delay_s}
queue_packets = {queue}
access_bps = 100e6
access_delay_s = 0.001
app = "bulk"
[tcp]
profile = "linux"
{extra}
"#
    );
    common::run_world(&text, seed, false)
}

/// The other Linux dialect keys at their RFC values: the `linux` profile before issue 35.
const RFC_KEYS: &str = "slow_start_growth = \"smss\"\nrto_formula = \"rfc6298\"\ncubic_alpha = \"rfc9438\"\n\
                        growth_gate = \"always\"\nlinux_hystart = false\ndsack = false\ndsack_undo = false\n\
                        timestamps = false\nrecovery_rate = \"prr-ssrb\"\npipe_outside_recovery = false\nreduction_basis = \"flight-size\"\nwhole_segment_windows = false\n\
                        cubic_growth_floor = false\npsh_quickack = false";

/// Segments that reached a receiver twice, over all flows.
fn duplicates(w: &World) -> u64 {
    w.flows.iter().map(|f| f.receiver.stats.duplicate_segments).sum()
}

#[test]
fn linux_rto_rearm_on_head_retransmit_keeps_a_late_lost_retransmission_from_timing_out() {
    // Seed 1: flow3's segment 2163 is dropped, its first retransmission is dropped too and
    // RACK resends it 111 ms later; with the timer running from the last ACK of new data it
    // expires 80 ms after that resend, before the resend's ACK is back: a spurious timeout
    // whose go-back-N resends 21 segments the receiver already holds (likewise flow2 at
    // 22.4 s). Linux restarts the timer on the resend of the head (`tcp_xmit_retransmit_queue`).
    let old = four_flows_small_queue(&format!("{RFC_KEYS}\nrto_rearm = \"new-ack\""), 1);
    assert_eq!(duplicates(&old), 35, "the defect, under the RFC 6298 (5.3) rule alone");
    assert_eq!(old.flows.iter().map(|f| f.sender.stats.timeouts).sum::<u64>(), 2);
    let new = four_flows_small_queue(RFC_KEYS, 1);
    assert_eq!(new.flows[0].sender.cfg.rto_rearm, hosim::tcp::RtoRearm::HeadRetransmit);
    assert_eq!(duplicates(&new), 0);
    assert_eq!(new.flows.iter().map(|f| f.sender.stats.timeouts).sum::<u64>(), 0);
}

#[test]
fn linux_profile_resends_nothing_the_receivers_already_hold_on_the_small_queue() {
    // The whole profile, seeds 1-5 (under the old profile seeds 1, 2, 4 and 5 had 10-35
    // duplicates): every retransmission repairs a drop.
    for seed in 1..=5 {
        let w = four_flows_small_queue("", seed);
        assert_eq!(duplicates(&w), 0, "seed {seed}");
    }
}

#[test]
fn linux_profile_selects_every_dialect_key_and_a_key_wins_over_it() {
    use hosim::tcp::{CubicAlpha, GrowthGate, Profile, RtoFormula, RtoRearm, SlowStartGrowth};
    let linux = Profile::Linux.config();
    assert_eq!(
        (linux.rto_rearm, linux.slow_start_growth, linux.rto_formula, linux.cubic_alpha, linux.growth_gate),
        (
            RtoRearm::HeadRetransmit,
            SlowStartGrowth::Acked,
            RtoFormula::Linux,
            CubicAlpha::Fixed,
            GrowthGate::CwndLimited
        )
    );
    assert!(linux.linux_hystart);
    for p in [Profile::Rfc, Profile::Ns2, Profile::Ns3] {
        let c = p.config();
        // ns-2 has an RTO formula of its own (its dialect, docs/tcp.md).
        let rto_formula = if p == Profile::Ns2 { RtoFormula::Ns2 } else { RtoFormula::Rfc6298 };
        assert_eq!(
            (c.rto_rearm, c.slow_start_growth, c.rto_formula, c.cubic_alpha, c.growth_gate, c.linux_hystart),
            (RtoRearm::NewAck, SlowStartGrowth::Smss, rto_formula, CubicAlpha::Rfc9438, GrowthGate::Always, false),
            "{p:?}"
        );
    }
    let w = four_flows_small_queue("rto_formula = \"rfc6298\"\ngrowth_gate = \"always\"", 1);
    let cfg = &w.flows[0].sender.cfg;
    assert_eq!(
        (cfg.rto_formula, cfg.growth_gate, cfg.cubic_alpha),
        (RtoFormula::Rfc6298, GrowthGate::Always, CubicAlpha::Fixed)
    );
}

#[test]
fn a_bad_dialect_value_names_its_key() {
    let text = "duration_s = 1.0\ntopology = \"dumbbell\"\n[tcp]\nprofile = \"linux\"\nrto_formula = \"bsd\"\n";
    let err = hosim::scenario::load(text, "t", &[]).expect_err("rejected").to_string();
    assert!(err.contains("rto_formula"), "{err}");
}

/// Preset `name`, seed 1, under the `linux` profile with SACK recovery, then `sets` and `extra`,
/// run to its end with packet conservation and in-order delivery checked.
fn linux_sack_preset(name: &str, sets: &[(&str, &str)], extra: &[(&str, &str)]) -> hosim::sim::Sim {
    let text = hosim::scenario::presets::find(name).expect("preset");
    let mut all = vec![("tcp.profile", "\"linux\""), ("tcp.recovery", "\"sack\"")];
    all.extend_from_slice(sets);
    all.extend_from_slice(extra);
    let mut sim = common::build_sim(text, 1, &all);
    sim.run();
    let bad = hosim::metrics::summary::check_invariants(&sim);
    assert!(bad.is_empty(), "invariants: {bad:?}");
    sim
}

/// drop-or-forward's forward scheme at Δ = 10 RTT (docs/reproductions/drop-or-forward.md):
/// packets forwarded from the old base station arrive 50 ms after later ones sent directly.
/// The `linux` profile with SACK, 8 s, plus `extra` overrides; returns flow0's sender stats
/// and goodput.
fn fcp_forward(extra: &[(&str, &str)]) -> (hosim::tcp::sender::SenderStats, u64) {
    let sets = [("duration_s", "8.0"), ("fcp.handover_interval_rtt", "10.0"), ("fcp.scheme", "\"forward\"")];
    let sim = linux_sack_preset("fcp", &sets, extra);
    let f = &sim.world.flows[0];
    (f.sender.stats.clone(), f.receiver.rcv_nxt())
}

#[test]
fn dsack_widens_racks_window_and_undoes_the_recoveries_forwarding_fakes() {
    // Without DSACK (the profile before this key) every handover's forwarded packets are
    // marked lost and resent; with DSACKs RACK's reordering window grows (RFC 8985 §6.2 step
    // 4) and DSACK undo restores the window of the recoveries they prove spurious
    // (`tcp_try_undo_dsack`). The kernel without timestamps does the same (docs/tcp.md).
    // Without timestamps, whose echo shows the reordering sooner (the next test).
    let no_ts = ("tcp.timestamps", "false");
    let (off, off_bytes) = fcp_forward(&[("tcp.dsack", "false"), no_ts]);
    let (grow, grow_bytes) = fcp_forward(&[("tcp.dsack_undo", "false"), no_ts]);
    let (on, on_bytes) = fcp_forward(&[no_ts]);
    assert_eq!((off.dsacks_received, off.dsack_undos), (0, 0));
    assert!(grow.dsacks_received > 0 && grow.dsack_undos == 0);
    // The wider window alone barely moves the count here: 209 against 212 retransmissions
    // with `prr-ssrb`, 168 against 163 with `prr-linux` (the profile's since 2026-11-28); the
    // undo is what pays.
    assert!(on.dsack_undos > 0);
    assert!(on_bytes > grow_bytes && grow_bytes > off_bytes, "{off_bytes} {grow_bytes} {on_bytes}");
}

#[test]
fn timestamps_show_the_forwarded_originals_and_cut_the_spurious_retransmissions() {
    // The same forward case. With timestamps the ACK of a hole the late original filled
    // echoes that original's TSval, older than the retransmission (Linux
    // `tcp_packet_delayed`): the sender sees the reordering at once (`TCPTSReorder`, RACK's
    // window opens) and resends far less, as the kernel with `net.ipv4.tcp_timestamps` = 1
    // does (docs/reproductions/drop-or-forward.md).
    let (off, _) = fcp_forward(&[("tcp.timestamps", "false")]);
    let (on, _) = fcp_forward(&[]);
    assert_eq!((off.ts_undos, off.ts_reorders), (0, 0));
    assert!(on.ts_reorders > 0, "{}", on.ts_reorders);
    assert!(on.retransmits < off.retransmits, "{} {}", on.retransmits, off.retransmits);
}

/// lte-x2's fast path switch with 5 target UEs, seed 1, as `bench/linux/todays_tcp.py` runs
/// it beside the kernel: the `linux` profile with SACK under the preset's other `[tcp]` keys
/// (its 65535-byte receiver window among them), plus `extra`. The reference flow's
/// retransmissions, the segments its receiver got twice, and the bytes it delivered.
fn lte_x2_fast(extra: &[(&str, &str)]) -> (u64, u64, u64) {
    let sim = linux_sack_preset("lte-x2", &[("lte_x2.target_ues", "5"), ("lte_x2.path_switch", "\"fast\"")], extra);
    let f = &sim.world.flows[0];
    (f.sender.stats.retransmits, f.receiver.stats.duplicate_segments, f.receiver.rcv_nxt())
}

#[test]
fn sack_retransmit_lost_only_keeps_a_window_limited_sender_from_resending_what_is_in_flight() {
    // At the fast path switch the target releases the held direct packets before the
    // forwarded ones; the reference flow, held at its 65535-byte receiver window, has nothing
    // new to send. ns-3's NextSeg() rule (3), without RFC 6675's (1.b), resends the unSACKed
    // segments in flight above every SACK one by one (39 arrive twice); RFC 6675's rule (3)
    // leaves them alone, as the kernel does, which resends only segments marked lost
    // (`tcp_xmit_retransmit_queue`) and got no DSACK in the same runs (issue 35 §4,
    // docs/reproductions/lte-intra-handover.md).
    // With fractional windows, as the storm was found (2026-11-28): with whole segments
    // (`whole_segment_windows`, the profile's since) seed 1 takes another path and ns-3's rule
    // resends 5 segments in flight.
    let frac = ("tcp.whole_segment_windows", "false");
    let (ns3_retx, ns3_dup, _) = lte_x2_fast(&[("tcp.sack_retransmit", "\"next-seg-any-unsacked\""), frac]);
    let (rfc_retx, rfc_dup, _) = lte_x2_fast(&[("tcp.sack_retransmit", "\"next-seg\""), frac]);
    let (new_retx, new_dup, _) = lte_x2_fast(&[frac]);
    // 39 under `prr-ssrb`, 78 under the profile's `prr-linux` (2026-11-28).
    assert!(ns3_dup >= 30, "rule (3) without (1.b): retransmissions of segments in flight: {ns3_dup}");
    assert!(rfc_dup <= 2 && new_dup <= 2, "{rfc_dup} {new_dup}");
    assert!(new_retx + 30 < ns3_retx && rfc_retx + 30 < ns3_retx, "{new_retx} {rfc_retx} {ns3_retx}");
}

#[test]
fn prr_linux_sends_no_extra_segment_on_an_ack_that_marks_a_loss_so_recovery_stops_feeding_drops() {
    // Four CUBIC flows without HyStart overshoot a 100-packet queue (10 Mb/s, 5 ms): slow start
    // leaves ssthresh = 0.7 cwnd far above what the path holds. RFC 6937's slow-start bound
    // sends one segment more than delivered on every ACK once pipe <= ssthresh, so recovery
    // keeps pipe above the path: the retransmissions are dropped, RACK marks them lost and
    // they go again (7880 retransmissions in 10 s, 6407 of them after a lost retransmission).
    // Linux's `tcp_cwnd_reduction` adds that segment only on an ACK that advances snd.una and
    // marks nothing newly lost (214 and 6).
    let lost_retransmissions = |rate: &str| {
        // The window test and reduction basis of the profile before 2026-11-28, which the
        // storm was found with (with `pipe_outside_recovery` and `reduction_basis = "cwnd"`
        // the window stays below the queue and SSRB no longer overfills it here).
        let keys = "linux_hystart = false\npipe_outside_recovery = false\nreduction_basis = \"flight-size\"";
        let w = four_flows(10.0, 0.005, 100, &format!("{keys}\nrecovery_rate = \"{rate}\""), 1);
        w.flows.iter().map(|f| f.sender.stats.lost_retransmissions).sum::<u64>()
    };
    assert!(lost_retransmissions("prr-ssrb") > 5000, "the storm, under RFC 6937 SSRB");
    assert!(lost_retransmissions("prr-linux") < 20);
    let linux = hosim::tcp::Profile::Linux.config();
    assert_eq!(linux.recovery_rate, hosim::tcp::RecoveryRate::PrrLinux);
}

#[test]
fn rcvbuf_autotune_opens_the_receive_window_round_by_round() {
    // One CUBIC flow through 100 Mb/s with 50 ms each way (bottleneck delay 0.05 s), 0.6 s.
    // Without the key the receiver advertises `rwnd_bytes` (4 MiB) from the first ACK; with it
    // (Linux `tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`) the window starts near 64 KB and
    // grows once per receiver RTT with what arrived in it, about as fast as slow start ("allow
    // the sender to double its rate"): after 0.6 s it is above the first buffer's 81920 bytes
    // and below `rwnd_bytes`, and the sender delivered a little less.
    let one_flow = |extra: &str| {
        let text = format!(
            "duration_s = 0.6\ntopology = \"dumbbell\"\n[dumbbell]\nflows = 1\nbottleneck_bps = 100e6\n\
             bottleneck_delay_s = 0.05\nqueue_packets = 1000\naccess_bps = 1e9\naccess_delay_s = 0.0001\n\
             app = \"bulk\"\n[tcp]\nprofile = \"linux\"\n{extra}\n"
        );
        let w = common::run_world(&text, 1, false);
        let f = &w.flows[0];
        (f.sender.peer_rwnd(), f.rwnd_limited_s(600_000_000), f.receiver.rcv_nxt())
    };
    let (rwnd_off, limited_off, bytes_off) = one_flow("");
    let (rwnd_on, limited_on, bytes_on) = one_flow("rcvbuf_autotune = true\ngrow_window_quickack = true");
    assert_eq!(rwnd_off, 4 << 20);
    assert!(rwnd_on > 81_920 && rwnd_on < 1 << 20, "{rwnd_on}");
    assert_eq!(limited_off, 0.0);
    assert!(bytes_on < bytes_off, "{limited_on} {bytes_on} {bytes_off}");
}

#[test]
fn rcvbuf_autotune_takes_a_bool() {
    let text = "duration_s = 1.0\ntopology = \"dumbbell\"\n[tcp]\nprofile = \"linux\"\nrcvbuf_autotune = 3\n";
    let err = hosim::scenario::load(text, "t", &[]).expect_err("rejected").to_string();
    assert!(err.contains("rcvbuf_autotune"), "{err}");
}

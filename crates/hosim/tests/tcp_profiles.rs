//! TCP profiles (`tcp.profile`): a profile only sets defaults, keys win over it, and the
//! post-RTO ssthresh fix on the scenario: a single NewReno flow with IW 10 and delayed
//! ACKs through a small DropTail bottleneck, which with ssthresh = half of everything
//! unacknowledged times out in a cycle.

mod common;

use hosim::engine::time::s_to_ns;
use hosim::sim::World;
use hosim::tcp::{CaGrowth, CcKind, NewRenoTimer, Profile, Recovery, RecoveryRate, RtoFormula, RtoSsthresh};

/// Three flows on `common::line`'s path: `a` takes `[tcp]` as it is, `b` and `c` their own
/// tables.
fn three_flows(tcp: &str, b: &str, c: &str) -> World {
    let mut text = common::line(tcp, "", 0.01, 10e6);
    for (name, table) in [("b", b), ("c", c)] {
        text += &format!("[[flows]]\nname = \"{name}\"\nsrc = \"snd\"\ndst = \"rcv\"\n[flows.tcp]\n{table}\n");
    }
    text = text.replacen("name = \"f\"", "name = \"a\"", 1);
    common::run_world(&text, 1, false)
}

#[test]
fn profile_sets_every_default_it_bundles() {
    let w = three_flows("profile = \"ns2\"", "profile = \"ns3\"", "profile = \"linux\"");
    let cfg = |i: usize| &w.flows[i].sender.cfg;
    let ns2 = cfg(0);
    assert_eq!(
        (ns2.profile, ns2.mss_bytes, ns2.initial_window_segments, ns2.rwnd_bytes),
        (Profile::Ns2, 1000, 2, 20_000)
    );
    assert_eq!(
        (ns2.min_rto_ns, ns2.initial_rto_ns, ns2.clock_granularity_ns),
        (s_to_ns(0.2), s_to_ns(3.0), s_to_ns(0.01))
    );
    assert_eq!(
        (ns2.delayed_ack, ns2.ca_growth, ns2.rto_ssthresh),
        (false, CaGrowth::PerAckExact, RtoSsthresh::CwndHalf)
    );
    // ns-2's double cwnd_ (TcpAgent::opencwnd) and RTO in whole tcpTick_ ticks.
    assert_eq!(ns2.rto_formula, RtoFormula::Ns2);
    let ns3 = cfg(1);
    assert_eq!(
        (ns3.profile, ns3.mss_bytes, ns3.initial_window_segments, ns3.quickack_segments),
        (Profile::Ns3, 536, 10, 1)
    );
    assert_eq!((ns3.newreno_timer, ns3.rescue_retransmission), (NewRenoTimer::SlowButSteady, false));
    let linux = cfg(2);
    assert_eq!(
        (linux.profile, linux.min_rto_ns, linux.delayed_ack_timeout_ns),
        (Profile::Linux, s_to_ns(0.2), s_to_ns(0.04))
    );
    assert_eq!(linux.rto_ssthresh, RtoSsthresh::KeepInRecovery);
    assert_eq!((linux.cc, linux.recovery_rate), (CcKind::CUBIC, RecoveryRate::PrrLinux));
    assert_eq!((ns3.cc, ns3.recovery_rate), (CcKind::RENO, RecoveryRate::Classic));
}

#[test]
fn explicit_key_wins_over_the_profile_and_flow_keys_win_over_tcp_table() {
    let w = three_flows(
        "profile = \"ns3\"\nmin_rto_s = 1.0\nrecovery = \"newreno\"",
        // A flow's profile replaces the profile but keeps the keys set in [tcp].
        "profile = \"linux\"",
        // A flow's key wins over [tcp] and over the profile.
        "min_rto_s = 0.3\nrto_ssthresh = \"outstanding-half\"",
    );
    let cfg = |i: usize| &w.flows[i].sender.cfg;
    assert_eq!((cfg(0).profile, cfg(0).min_rto_ns, cfg(0).mss_bytes), (Profile::Ns3, s_to_ns(1.0), 536));
    assert_eq!(cfg(0).recovery, Recovery::NewReno);
    assert_eq!((cfg(1).profile, cfg(1).min_rto_ns, cfg(1).mss_bytes), (Profile::Linux, s_to_ns(1.0), 1448));
    assert_eq!(cfg(1).recovery, Recovery::NewReno, "[tcp]'s recovery is kept too");
    assert_eq!((cfg(2).profile, cfg(2).min_rto_ns), (Profile::Ns3, s_to_ns(0.3)));
    assert_eq!(cfg(2).rto_ssthresh, RtoSsthresh::OutstandingHalf);
}

#[test]
fn summary_names_each_flows_profile() {
    let text = common::line("profile = \"linux\"", "", 0.5, 10e6);
    let opts = hosim::RunOptions { seed: Some(1), overrides: vec![], traces: false, ..Default::default() };
    let out = hosim::run(&text, "t", &opts).expect("runs");
    assert_eq!(out.summary["flows"][0]["profile"], "linux");
    let out = hosim::run(&common::line("", "", 0.5, 10e6), "t", &opts).expect("runs");
    assert_eq!(out.summary["flows"][0]["profile"], "rfc", "rfc is the default");
}

/// The scenario: 100 Mb/s 1 ms access, a 10 Mb/s 19 ms bottleneck with a 20-packet
/// DropTail queue (BDP about 34 segments), one bulk flow for 60 s with IW 10 and delayed ACKs.
fn small_droptail(tcp: &str) -> (f64, u64) {
    let text = common::line(tcp, "", 60.0, 10e6).replace(
        "rate_bps = 10000000\ndelay_s = 0.019\nqueue_packets = 10000",
        "rate_bps = 10000000\ndelay_s = 0.019\nqueue_packets = 20",
    );
    assert!(text.contains("queue_packets = 20"));
    let w = common::run_world(&text, 1, false);
    let f = &w.flows[0];
    (f.delivered_bytes as f64 * 8.0 / 60.0, f.sender.stats.timeouts)
}

const NEWRENO_IW10: &str = "recovery = \"newreno\"\ninitial_window_segments = 10\ndelayed_ack = true";

#[test]
fn newreno_small_droptail_outstanding_half_cycles_through_timeouts() {
    let (goodput, timeouts) = small_droptail(&format!("{NEWRENO_IW10}\nrto_ssthresh = \"outstanding-half\""));
    assert!(timeouts >= 30, "each RTO ends a long recovery and overshoots again: {timeouts}");
    assert!(goodput < 7.0e6, "{goodput}");
}

#[test]
fn newreno_small_droptail_pipe_half_leaves_the_cycle_and_matches_sack() {
    let (goodput, timeouts) = small_droptail(NEWRENO_IW10);
    let (sack, sack_timeouts) = small_droptail("recovery = \"sack\"\ninitial_window_segments = 10");
    assert_eq!(sack_timeouts, 0);
    assert!(timeouts <= 1, "{timeouts}");
    assert!(goodput > 0.98 * sack, "NewReno {goodput} vs SACK {sack}");
}

#[test]
fn newreno_small_droptail_no_timeout_cycle_under_any_profile() {
    for profile in ["rfc", "ns2", "ns3", "linux"] {
        let tcp = format!("profile = \"{profile}\"\n{NEWRENO_IW10}");
        let (goodput, timeouts) = small_droptail(&tcp);
        assert!(timeouts <= 1, "{profile}: {timeouts} timeouts, {goodput} b/s");
    }
}

#[test]
fn linux_profile_cubic_prr_small_droptail_no_timeout_cycle() {
    // The scenario with `linux`'s own choices: CUBIC, SACK recovery with PRR-SSRB.
    let (cubic, timeouts) = small_droptail("profile = \"linux\"\ninitial_window_segments = 10");
    let (reno, reno_timeouts) =
        small_droptail("profile = \"linux\"\ncc = \"reno\"\nrecovery_rate = \"classic\"\ninitial_window_segments = 10");
    // docs/tcp.md's table: 9.64 Mb/s and 9.24 Mb/s, no timeouts.
    assert!(timeouts + reno_timeouts <= 1, "{timeouts} {reno_timeouts}");
    assert!(cubic > 0.9e7 && reno > 0.9e7, "both fill the 10 Mb/s link: {cubic} {reno}");
}

/// A two-host line whose links state no queue limit, under `profile`.
fn unstated_queues(profile: &str) -> Vec<hosim::net::QueueLimit> {
    let text = format!(
        "duration_s = 0.1\n[tcp]\nprofile = \"{profile}\"\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n\
         [[nodes]]\nname = \"b\"\nkind = \"host\"\n[[links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e6\n\
         delay_s = 0.01\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n"
    );
    common::run_world(&text, 1, false).links.iter().map(|l| l.queue.limit).collect()
}

#[test]
fn ns2_profile_gives_unstated_queues_ns2s_droptail_limit_of_50_packets() {
    use hosim::net::QueueLimit;
    assert_eq!(unstated_queues("ns2"), vec![QueueLimit::Packets(50); 2]);
    assert_eq!(unstated_queues("rfc"), vec![QueueLimit::Packets(100); 2]);
}

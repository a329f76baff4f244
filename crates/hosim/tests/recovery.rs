//! Loss recovery on scripted loss: one flow in congestion avoidance loses k consecutive
//! segments (k = 1, 3, 6). Each case pins what RFC 5681 (Reno), RFC 6582 (NewReno) and
//! RFC 6675 (SACK) prescribe: whether a timeout happens, how many retransmissions are sent,
//! how many RTTs recovery takes, and cwnd/ssthresh after recovery.
//!
//! Setup: 100 Mb/s 1 ms access, 10 Mb/s 19 ms bottleneck, large queues, delayed ACK off,
//! initial ssthresh 20 segments, Limited Transmit on (RFC 3042). Losses start at segment 200,
//! when cwnd is 27 segments, below the 35-segment BDP, so the RTT is the base RTT:
//! 2 * (1 + 19) ms + 1500 B at 100 Mb/s + 1500 B at 10 Mb/s + ACK serialization = 41.3552 ms.

mod common;

use hosim::sim::World;
use hosim::tcp::sender::EpisodeKind;
use hosim::TraceKind;

const MSS: u64 = 1460;
const BASE_RTT_MS: f64 = 41.3552;
/// cwnd when the loss is detected (27 segments; see the module comment).
const W_SEGS: u64 = 27;

fn run(recovery: &str, drops: &[u64], drop_retx: &[u64]) -> World {
    let tcp = format!("recovery = \"{recovery}\"\ndelayed_ack = false\ninitial_ssthresh_bytes = {}", 20 * MSS);
    let list = |v: &[u64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    let extra = format!("drop_segments = [{}]\ndrop_retransmissions = [{}]", list(drops), list(drop_retx));
    common::run_world(&common::line(&tcp, &extra, 5.0, 10e6), 1, true)
}

fn consecutive(k: u64) -> Vec<u64> {
    (200..200 + k).collect()
}

/// Value of a sender trace at time t (the last sample at or before t).
fn trace_at(w: &World, kind: TraceKind, t: u64) -> f64 {
    let tab = w.obs.traces.table(kind);
    let i = tab.time_ns.partition_point(|&x| x <= t);
    tab.value[i - 1]
}

struct Outcome {
    timeouts: u64,
    fast_recoveries: u64,
    retransmits: u64,
    /// From the first retransmission until the ACK covers everything outstanding at the loss.
    recovery_rtts: f64,
    cwnd_after: u64,
    ssthresh_after: u64,
    cwnd_before: u64,
    inflight_after: u64,
}

fn outcome(w: &World) -> Outcome {
    let s = &w.flows[0].sender;
    let eps = &s.stats.episodes;
    let start = eps[0].start_ns;
    let end = eps.last().unwrap().end_ns.expect("recovery finished");
    Outcome {
        timeouts: s.stats.timeouts,
        fast_recoveries: s.stats.fast_recoveries,
        retransmits: s.stats.retransmits,
        recovery_rtts: (end - start) as f64 / 1e6 / BASE_RTT_MS,
        cwnd_after: trace_at(w, TraceKind::Cwnd, end) as u64,
        ssthresh_after: trace_at(w, TraceKind::Ssthresh, end) as u64,
        cwnd_before: trace_at(w, TraceKind::Cwnd, start - 1) as u64,
        inflight_after: eps.last().unwrap().flight_at_end_bytes,
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS). FlightSize is the window
/// outstanding at detection (Limited Transmit segments excluded, §3.2 step 2).
fn half_window() -> u64 {
    W_SEGS * MSS / 2
}

#[test]
fn loss_is_detected_with_the_window_the_module_comment_assumes() {
    for r in ["reno", "newreno", "sack"] {
        assert_eq!(outcome(&run(r, &[200], &[])).cwnd_before, W_SEGS * MSS, "{r}");
    }
}

#[test]
fn single_loss_every_variant_one_fast_retransmit_one_rtt_window_halved() {
    for r in ["reno", "newreno", "sack"] {
        let o = outcome(&run(r, &consecutive(1), &[]));
        assert_eq!((o.timeouts, o.fast_recoveries, o.retransmits), (0, 1, 1), "{r}");
        assert!((o.recovery_rtts - 1.0).abs() < 0.01, "{r}: {} RTTs", o.recovery_rtts);
        assert_eq!(o.ssthresh_after, half_window(), "{r}");
        // Reno deflates to ssthresh (RFC 5681 step 6); SACK set cwnd = ssthresh on entry and
        // does not grow it during recovery (RFC 6675 §5 step 4.2); NewReno's full ACK sets
        // min(ssthresh, FlightSize + SMSS) (RFC 6582 §3.2 step 3, option 1).
        if r == "newreno" {
            assert_eq!(o.cwnd_after, newreno_full_ack_cwnd(&o));
        } else {
            assert_eq!(o.cwnd_after, half_window(), "{r}");
        }
    }
}

#[test]
fn newreno_repairs_one_segment_per_rtt_without_timeout() {
    for k in [3u64, 6] {
        let o = outcome(&run("newreno", &consecutive(k), &[]));
        // RFC 6582 §3.2 step 4: each partial ACK retransmits the next hole, one per RTT, all
        // inside one fast recovery; the impatient timer (restarted on the first partial ACK)
        // does not expire because k RTTs < RTO (1 s minimum).
        assert_eq!((o.timeouts, o.fast_recoveries, o.retransmits), (0, 1, k), "k={k}");
        assert!((o.recovery_rtts - k as f64).abs() < 0.01, "k={k}: {} RTTs", o.recovery_rtts);
        assert_eq!(o.ssthresh_after, half_window());
        assert_eq!(o.cwnd_after, newreno_full_ack_cwnd(&o));
    }
}

/// RFC 6582 §3.2 step 3 option (1): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS), with
/// FlightSize what is outstanding after the full ACK (the data sent during recovery).
fn newreno_full_ack_cwnd(o: &Outcome) -> u64 {
    o.ssthresh_after.min(o.inflight_after.max(MSS) + MSS)
}

#[test]
fn sack_repairs_all_holes_in_about_one_rtt() {
    for k in [3u64, 6] {
        let o = outcome(&run("sack", &consecutive(k), &[]));
        // RFC 6675: IsLost marks every hole with >= 3 SACKed segments above it, and NextSeg
        // retransmits them as soon as pipe < cwnd, within the first RTT of recovery. Recovery
        // ends one RTT after the last retransmission, so it takes between 1 and 2 RTTs.
        assert_eq!((o.timeouts, o.fast_recoveries, o.retransmits), (0, 1, k), "k={k}");
        assert!(o.recovery_rtts > 1.0 && o.recovery_rtts < 2.0, "k={k}: {} RTTs", o.recovery_rtts);
        assert_eq!(o.ssthresh_after, half_window());
        assert_eq!(o.cwnd_after, half_window());
    }
}

#[test]
fn reno_three_losses_halves_twice_then_times_out() {
    let w = run("reno", &consecutive(3), &[]);
    let o = outcome(&w);
    // RFC 5681 Reno leaves fast recovery on the first (partial) ACK. The segments sent during
    // the inflated first recovery produce three more duplicate ACKs for the second hole: a
    // second fast retransmit halves the window again. Too few segments remain in flight to
    // signal the third hole, so only the retransmission timer repairs it.
    assert_eq!((o.timeouts, o.fast_recoveries, o.retransmits), (1, 2, 3));
    let eps = &w.flows[0].sender.stats.episodes;
    assert_eq!(
        eps.iter().map(|e| e.kind).collect::<Vec<_>>(),
        vec![EpisodeKind::FastRecovery, EpisodeKind::FastRecovery, EpisodeKind::Timeout]
    );
    // The timeout costs at least the 1 s minimum RTO: far more than NewReno's 3 RTTs.
    assert!(o.recovery_rtts > 1000.0 / BASE_RTT_MS, "{} RTTs", o.recovery_rtts);
    // At the timeout cwnd restarts from the loss window, one segment, and ssthresh is
    // max(FlightSize / 2, 2*SMSS) of the data outstanding then (RFC 5681 §3.1, eq. 4).
    let t = eps[2].start_ns;
    let flight = trace_at(&w, TraceKind::Inflight, t - 1) as u64;
    assert_eq!(trace_at(&w, TraceKind::Cwnd, t) as u64, MSS);
    assert_eq!(o.ssthresh_after, (flight / 2).max(2 * MSS));
    // One RTT later the retransmission is acknowledged: slow start has grown cwnd to 2 SMSS.
    assert_eq!(o.cwnd_after, 2 * MSS);
}

#[test]
fn reno_six_losses_times_out_and_go_back_n_resends_delivered_data() {
    let w = run("reno", &consecutive(6), &[]);
    let o = outcome(&w);
    assert!(o.timeouts >= 1);
    // After the RTO, go-back-N retransmits from snd_una in slow start; with no SACK the sender
    // cannot know the receiver already holds the later segments, so it resends some of them.
    assert!(o.retransmits > 6, "{}", o.retransmits);
    assert!(w.flows[0].receiver.stats.duplicate_segments > 0);
}

#[test]
fn sack_lost_retransmission_forces_a_timeout() {
    // Segment 200 is lost, and so is its fast retransmission. RFC 6675 NextSeg only
    // retransmits sequence numbers above HighRxt (rules 1 and 3), and the rescue rule (4)
    // picks the highest unSACKed segment, which by then is new data, not segment 200.
    // Nothing in SACK recovery retransmits a segment twice, so only the RTO recovers it.
    let o = outcome(&run("sack", &[200], &[200]));
    assert_eq!(o.timeouts, 1);
    assert_eq!(o.fast_recoveries, 1);
    assert!(o.recovery_rtts > 1000.0 / BASE_RTT_MS);
}

#[test]
fn newreno_lost_retransmission_also_times_out() {
    let o = outcome(&run("newreno", &[200], &[200]));
    assert_eq!(o.timeouts, 1);
}

fn run_rack(drops: &[u64], drop_retx: &[u64]) -> World {
    let tcp = format!(
        "recovery = \"sack\"\nloss_detection = \"rack-tlp\"\ndelayed_ack = false\ninitial_ssthresh_bytes = {}",
        20 * MSS
    );
    let list = |v: &[u64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    let extra = format!("drop_segments = [{}]\ndrop_retransmissions = [{}]", list(drops), list(drop_retx));
    common::run_world(&common::line(&tcp, &extra, 5.0, 10e6), 1, true)
}

#[test]
fn rack_recovers_the_lost_retransmission_of_the_forced_timeout_case_without_one() {
    // The case of `sack_lost_retransmission_forces_a_timeout` under RACK-TLP (RFC 8985 §9.2):
    // segments sent after the fast retransmission are delivered, so RACK marks the
    // retransmission lost RACK.rtt + reo_wnd after it was sent and NextSeg resends it.
    let w = run_rack(&[200], &[200]);
    let o = outcome(&w);
    let s = &w.flows[0].sender;
    assert_eq!((o.timeouts, o.fast_recoveries), (0, 1));
    assert_eq!((s.stats.lost_retransmissions, o.retransmits), (1, 2));
    assert!(o.recovery_rtts < 3.0, "about two RTTs, not an RTO: {}", o.recovery_rtts);
}

#[test]
fn rack_single_loss_is_one_fast_retransmit_like_dupthresh() {
    let o = outcome(&run_rack(&[200], &[]));
    assert_eq!((o.timeouts, o.fast_recoveries, o.retransmits), (0, 1, 1));
    assert!(o.recovery_rtts < 1.5, "{}", o.recovery_rtts);
}

/// A 100-segment file whose last three segments are lost: no later segment raises a
/// duplicate ACK.
fn tail_loss(loss_detection: &str) -> World {
    let tcp = format!("recovery = \"sack\"\nloss_detection = \"{loss_detection}\"");
    let extra = format!("app = \"file\"\nbytes = {}\ndrop_segments = [97, 98, 99]", 100 * MSS);
    common::run_world(&common::line(&tcp, &extra, 5.0, 10e6), 1, true)
}

#[test]
fn tlp_repairs_a_tail_loss_without_the_timeout_dupthresh_needs() {
    let (dupthresh, rack) = (tail_loss("dupthresh"), tail_loss("rack-tlp"));
    let (d, r) = (&dupthresh.flows[0], &rack.flows[0]);
    assert_eq!((d.sender.stats.timeouts, d.sender.stats.tlp_probes), (1, 0));
    assert_eq!((r.sender.stats.timeouts, r.sender.stats.tlp_probes, r.sender.stats.fast_recoveries), (0, 1, 1));
    let (td, tr) = (d.completion_ns.expect("done"), r.completion_ns.expect("done"));
    // The probe goes 2·SRTT after the last ACK; the RTO waits at least the 1 s minimum.
    assert!(td > tr + 500_000_000, "dupthresh {td} ns, RACK-TLP {tr} ns");
}

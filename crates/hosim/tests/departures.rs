//! Computed departures: with `engine.tie_order = "departure_first"` and nothing looking at the
//! links mid-run, a run ends the transmissions of fixed-rate, loss-free links without an event
//! each. The results must be those of the same run with the events (forced here by an
//! observer that listens at every link point), apart from the count of events.

mod common;

use hosim::engine::SimTime;
use hosim::net::{Link, LinkId, Packet};
use hosim::observe::{LinkPoint, Observer};
use hosim::scenario;
use proptest::prelude::*;

/// Listens at every link point and does nothing: the run takes the event path.
struct Listener;

impl Observer for Listener {
    fn points(&self) -> u8 {
        u8::MAX
    }
    fn on_link(&mut self, _: LinkPoint, _: SimTime, _: LinkId, _: &Link, _: &Packet) {}
}

/// The summary (without wall time and event count), the events, and whether the run
/// computed departures.
fn run(text: &str, seed: u64, overrides: &[(&str, &str)], with_events: bool) -> (String, u64, bool) {
    let mut sim = common::build_sim(text, seed, overrides);
    if with_events {
        sim.world.obs.add(Box::new(Listener));
    }
    sim.run();
    let (results, events) = common::results_without_events(&sim, seed);
    (results, events, sim.world.computed_departures)
}

fn assert_same_as_events(text: &str, seed: u64, overrides: &[(&str, &str)]) {
    let (fast, fast_events, computed) = run(text, seed, overrides, false);
    let (slow, slow_events, slow_computed) = run(text, seed, overrides, true);
    assert!(computed && !slow_computed, "one run computes departures, the other takes the events");
    assert!(fast_events < slow_events, "{fast_events} events with computed departures, {slow_events} without");
    assert_eq!(fast, slow, "seed {seed}, {overrides:?}");
}

/// Three senders on equal access links (so their packets reach the router at the same
/// nanoseconds), a small bottleneck queue (drops at the instant a transmission ends), a
/// zero-delay hop, a RED queue marking ECN, and a lossy reverse path (a link that keeps its
/// transmit-done events) in one run.
const GRAPH: &str = r#"
duration_s = 8.0
[tcp]
recovery = "sack"
mss_bytes = 1000
header_bytes = 40
initial_window_segments = 4
delayed_ack = true
ecn = true
[[nodes]]
name = "s1"
kind = "host"
[[nodes]]
name = "s2"
kind = "host"
[[nodes]]
name = "s3"
kind = "host"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[nodes]]
name = "r3"
kind = "router"
[[nodes]]
name = "d1"
kind = "host"
[[nodes]]
name = "d2"
kind = "host"
[[links]]
from = "s1"
to = "r1"
rate_bps = 100e6
delay_s = 0.002
[[links]]
from = "s2"
to = "r1"
rate_bps = 100e6
delay_s = 0.002
[[links]]
from = "s3"
to = "r1"
rate_bps = 100e6
delay_s = 0.002
[[links]]
from = "r1"
to = "r2"
rate_bps = 10e6
delay_s = 0.010
queue_packets = 12
[[links]]
from = "r2"
to = "r3"
rate_bps = 8e6
delay_s = 0.0
queue = "red"
queue_packets = 60
[links.red]
min_th_pkts = 3
max_th_pkts = 15
max_p = 0.2
weight = 0.02
ecn = true
[[links]]
from = "r3"
to = "d1"
rate_bps = 50e6
delay_s = 0.001
[[links]]
name = "r3-d2"
from = "r3"
to = "d2"
rate_bps = 50e6
delay_s = 0.001
loss = 0.02
[[flows]]
name = "a"
src = "s1"
dst = "d1"
[[flows]]
name = "b"
src = "s2"
dst = "d2"
[[flows]]
name = "c"
src = "s3"
dst = "d1"
start_s = 0.5
[flows.tcp]
recovery = "newreno"
"#;

#[test]
fn computed_departures_give_the_event_path_s_results_on_a_mixed_graph() {
    for seed in [1, 2, 3] {
        assert_same_as_events(GRAPH, seed, &[]);
    }
}

#[test]
fn computed_departures_give_the_event_path_s_results_on_the_dumbbell() {
    let text = scenario::presets::find("dumbbell").unwrap();
    assert_same_as_events(text, 1, &[("duration_s", "10"), ("dumbbell.flows", "8")]);
    assert_same_as_events(text, 2, &[("duration_s", "10"), ("dumbbell.loss", "0.01"), ("tcp.recovery", "reno")]);
    assert_same_as_events(text, 3, &[("duration_s", "10"), ("dumbbell.queue_packets", "5"), ("dumbbell.flows", "6")]);
}

#[test]
fn event_order_takes_the_transmit_done_events_with_or_without_observers() {
    // Under event_order every transmission end is an event, in both runs.
    let (a, _, computed) = run(GRAPH, 1, &[("engine.tie_order", "event_order")], false);
    assert!(!computed);
    let (b, _, _) = run(GRAPH, 1, &[("engine.tie_order", "event_order")], true);
    assert_eq!(a, b);
}

/// The graph exercises what the equivalence above is about.
#[test]
fn the_mixed_graph_drops_marks_and_loses() {
    let (s, _, _) = run(GRAPH, 1, &[], false);
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    let q = |name: &str, key: &str| {
        v["queues"].as_array().unwrap().iter().find(|q| q["name"] == name).expect(name)[key].as_u64().unwrap()
    };
    assert!(q("r1->r2", "dropped") > 0, "the bottleneck drops");
    assert!(q("r2->r3", "marked") > 0, "RED marks");
    assert!(q("r3-d2", "lost_on_link") > 0, "the lossy link loses");
    // Packets do meet a full queue at the instant a transmission ends here: the two orders
    // give different runs.
    let (e, _, _) = run(GRAPH, 1, &[("engine.tie_order", "event_order")], false);
    assert_ne!(e, s);
}

/// A packet offered to a full queue at the very nanosecond the transmission in progress ends:
/// `departure_first` ends the transmission first (the next packet leaves the queue, the new
/// one finds room); `event_order` leaves it to the order of the events, here the offer before
/// the pending transmit-done event, so the queue is still full.
#[test]
fn a_packet_offered_as_a_transmission_ends_finds_room_only_under_departure_first() {
    const LINK: &str = r#"
duration_s = 1.0
[[nodes]]
name = "a"
kind = "host"
[[nodes]]
name = "b"
kind = "host"
[[links]]
from = "a"
to = "b"
rate_bps = 8e6
delay_s = 0.001
queue_packets = 1
"#;
    for (order, dropped) in [("departure_first", 0), ("event_order", 1)] {
        let s = scenario::load(LINK, "test", &[("engine.tie_order".into(), order.into())]).expect("valid");
        let mut sim = scenario::build::build(&s, "test", 1).expect("buildable");
        let w = &mut sim.world;
        let pkt = |uid| Packet::new(uid, 0, 0, 1, hosim::net::PacketKind::Data, 1000, 0);
        w.link_enqueue(0, pkt(0)); // in service until 1 ms (1000 bytes at 8 Mb/s)
        w.link_enqueue(0, pkt(1)); // waits: the queue is full
        w.now = 1_000_000; // an event at the end of that transmission, before its own event
        w.link_enqueue(0, pkt(2));
        let q = &w.links[0].queue;
        assert_eq!((q.stats.dropped, q.len_pkts()), (dropped, 1), "{order}");
    }
}

/// `senders` hosts on access links of one of two rates (equal rates make simultaneous
/// arrivals), a bottleneck of `queue` packets (DropTail or RED with ECN), a zero or non-zero
/// delay anywhere, and an optional lossy return path (a link that keeps its events).
#[allow(clippy::too_many_arguments)]
fn random_graph(
    senders: usize,
    access_fast: &[bool],
    access_delay_ms: u32,
    bottleneck_bps: f64,
    bottleneck_delay_ms: u32,
    queue: u32,
    red: bool,
    reverse_loss: f64,
    recovery: &str,
    mss: u32,
) -> String {
    let mut t = format!(
        "duration_s = 3.0\n[tcp]\nrecovery = \"{recovery}\"\nmss_bytes = {mss}\necn = true\n\
         [[nodes]]\nname = \"r1\"\nkind = \"router\"\n[[nodes]]\nname = \"r2\"\nkind = \"router\"\n\
         [[nodes]]\nname = \"d\"\nkind = \"host\"\n"
    );
    for (i, &fast) in access_fast.iter().enumerate().take(senders) {
        let rate = if fast { 100e6 } else { 20e6 };
        t += &format!(
            "[[nodes]]\nname = \"s{i}\"\nkind = \"host\"\n[[links]]\nfrom = \"s{i}\"\nto = \"r1\"\n\
             rate_bps = {rate}\ndelay_s = {}\n[[flows]]\nsrc = \"s{i}\"\ndst = \"d\"\nstart_s = {}\n",
            access_delay_ms as f64 / 1e3,
            0.1 * i as f64
        );
    }
    let queue_kind = if red { "red" } else { "droptail" };
    t += &format!(
        "[[links]]\nfrom = \"r1\"\nto = \"r2\"\nrate_bps = {bottleneck_bps}\ndelay_s = {}\n\
         queue = \"{queue_kind}\"\nqueue_packets = {queue}\nbidirectional = false\n",
        bottleneck_delay_ms as f64 / 1e3
    );
    if red {
        t += "[links.red]\nmin_th_pkts = 2\nmax_th_pkts = 8\nmax_p = 0.2\nweight = 0.05\necn = true\n";
    }
    t += &format!(
        "[[links]]\nfrom = \"r2\"\nto = \"r1\"\nrate_bps = {bottleneck_bps}\ndelay_s = {}\nloss = {reverse_loss}\n\
         bidirectional = false\n[[links]]\nfrom = \"r2\"\nto = \"d\"\nrate_bps = 100e6\ndelay_s = 0.001\n",
        bottleneck_delay_ms as f64 / 1e3
    );
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    /// Whatever the topology's rates, delays (zero included), queue and recovery, computed
    /// departures give the event path's results.
    #[test]
    fn computed_departures_give_the_event_path_s_results_on_random_graphs(
        senders in 1usize..4,
        access_fast in prop::collection::vec(any::<bool>(), 3),
        access_delay_ms in prop::sample::select(vec![0u32, 1, 2]),
        bottleneck_bps in prop::sample::select(vec![2e6, 5e6, 10e6]),
        bottleneck_delay_ms in prop::sample::select(vec![0u32, 5, 20]),
        queue in prop::sample::select(vec![2u32, 5, 20, 100]),
        red in any::<bool>(),
        reverse_loss in prop::sample::select(vec![0.0, 0.02]),
        recovery in prop::sample::select(vec!["reno", "newreno", "sack"]),
        mss in prop::sample::select(vec![536u32, 1000, 1448]),
        seed in 0u64..1000,
    ) {
        let text = random_graph(
            senders, &access_fast, access_delay_ms, bottleneck_bps, bottleneck_delay_ms, queue, red,
            reverse_loss, recovery, mss,
        );
        let (fast, fast_events, computed) = run(&text, seed, &[], false);
        let (slow, slow_events, _) = run(&text, seed, &[], true);
        prop_assert!(computed);
        prop_assert!(fast_events < slow_events);
        prop_assert_eq!(fast, slow);
    }
}

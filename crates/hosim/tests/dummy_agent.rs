//! A mechanism written only as a test: an agent that holds every packet at one router for a
//! fixed time, plugged in through the public API alone, either into a built scenario or as a
//! template of its own (`topology = "delayed-line"` with a `[delay]` section) registered from
//! here. Data and ACKs both cross that router, so the flow's RTT grows by twice the delay; the
//! packets it holds count as in flight, so the conservation invariant holds whenever the run
//! stops.

mod common;

use std::collections::VecDeque;

use serde::Deserialize;

use hosim::engine::time::{s_to_ns, SimTime};
use hosim::metrics::summary::check_invariants;
use hosim::net::{NodeId, Packet};
use hosim::scenario::{build::build_with, load_with, Registry, Sectioned};
use hosim::sim::{Agent, Cx, Sim};
use hosim::spec::graph::{link, node, AppKind, FlowSpec, Graph, NodeKindName};
use hosim::spec::Check;

const DELAY_NS: SimTime = 10_000_000;

/// Holds each packet reaching `node` for `delay_ns`, then routes it on.
struct Delay {
    node: NodeId,
    delay_ns: SimTime,
    held: VecDeque<Packet>,
}

impl Agent for Delay {
    /// One kind of timer: the oldest held packet is due.
    type Timer = ();

    fn on_packet(&mut self, cx: &mut Cx, _node: NodeId, pkt: Packet) {
        self.held.push_back(pkt);
        let at = cx.now() + self.delay_ns;
        cx.schedule(at, ());
    }

    fn on_timer(&mut self, cx: &mut Cx, (): ()) {
        // Every packet waits the same time, so the timers fire in arrival order.
        let pkt = self.held.pop_front().expect("one timer per held packet");
        cx.receive_as_router(self.node, pkt);
    }

    fn held_packets(&self) -> u64 {
        self.held.len() as u64
    }
}

/// A 1 Mb/s source over 100 Mb/s links: no queueing, so every RTT sample is the same.
fn paced_line(duration_s: f64) -> Sim {
    let text = common::line("delayed_ack = false", "app = \"rate\"\nrate_bps = 1e6", duration_s, 100e6);
    let s = hosim::scenario::load(&text, "test", &[]).expect("valid scenario");
    hosim::scenario::build::build(&s, "test", 1).expect("buildable scenario")
}

fn with_delay(mut sim: Sim) -> Sim {
    install_delay(&mut sim, DELAY_NS);
    sim
}

fn install_delay(sim: &mut Sim, delay_ns: SimTime) {
    let r = sim.world.nodes.iter().position(|n| n.name == "r").expect("router r") as NodeId;
    sim.add_agent(|cx| {
        cx.own(r);
        Delay { node: r, delay_ns, held: VecDeque::new() }
    });
}

/// `[delay]`: the hold time at the router.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DelaySection {
    delay_s: f64,
}

/// The network of `common::line` with its paced flow, and the delaying agent at `r`.
fn delayed_line(_: &DelaySection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node("snd".into(), NodeKindName::Host));
    g.nodes.push(node("r".into(), NodeKindName::Router));
    g.nodes.push(node("rcv".into(), NodeKindName::Host));
    g.links.push(link("snd", "r", 100e6, 0.001, 10_000));
    g.links.push(link("r", "rcv", 100e6, 0.019, 10_000));
    g.flows.push(FlowSpec {
        name: Some("f".into()),
        src: "snd".into(),
        dst: "rcv".into(),
        app: AppKind::Rate,
        bytes: None,
        rate_bps: Some(1e6),
        start_s: 0.0,
        tcp: None,
        drop_segments: Vec::new(),
        drop_retransmissions: Vec::new(),
    });
    g
}

const DELAYED_LINE: Sectioned<DelaySection> = Sectioned {
    topology: "delayed-line",
    section: "delay",
    validate: |d, _, c: &Check| c.positive("delay.delay_s", d.delay_s),
    expand: delayed_line,
    install: |d, sim, _| {
        install_delay(sim, s_to_ns(d.delay_s));
        Ok(())
    },
    flows: |_| 1,
};

fn mean_rtt_s(sim: &Sim) -> f64 {
    let st = &sim.world.flows[0].sender.stats;
    assert!(st.rtt_samples > 50, "{} RTT samples", st.rtt_samples);
    st.rtt_sum_ns as f64 / st.rtt_samples as f64 / 1e9
}

#[test]
fn delaying_agent_adds_twice_its_delay_to_the_rtt() {
    let mut base = paced_line(2.0);
    base.run();
    let mut delayed = with_delay(paced_line(2.0));
    delayed.run();
    for sim in [&base, &delayed] {
        let bad = check_invariants(sim);
        assert!(bad.is_empty(), "invariants: {bad:?}");
    }
    // The handshake's sample lacks a data segment's 0.12 ms serialization and weighs a little
    // differently in the two means (the runs take different numbers of samples).
    let grown = mean_rtt_s(&delayed) - mean_rtt_s(&base);
    assert!((grown - 2.0 * DELAY_NS as f64 / 1e9).abs() < 1e-4, "RTT grew by {grown} s");
}

#[test]
fn packets_held_by_an_agent_count_as_in_flight() {
    // Stop while the agent holds packets: conservation must count them.
    let mut sim = with_delay(paced_line(0.3055));
    sim.run();
    let held: u64 = sim.agents().map(|a| a.held_packets()).sum();
    assert!(held > 0, "the run stops while a packet is held");
    assert!(check_invariants(&sim).is_empty(), "{:?}", check_invariants(&sim));
}

#[test]
fn delaying_template_registered_from_a_test_builds_and_runs() {
    let registry = Registry::builtin().with(Box::new(DELAYED_LINE));
    let text = "topology = \"delayed-line\"\nduration_s = 2.0\n[tcp]\ndelayed_ack = false\n[delay]\ndelay_s = 0.01\n";
    let s = load_with(text, "t.toml", &[], &registry).expect("valid scenario");
    let mut sim = build_with(&s, "t.toml", 1, &registry).expect("buildable scenario");
    sim.run();
    assert!(check_invariants(&sim).is_empty());
    let mut base = paced_line(2.0);
    base.run();
    let grown = mean_rtt_s(&sim) - mean_rtt_s(&base);
    assert!((grown - 0.02).abs() < 1e-4, "RTT grew by {grown} s");
    let bad = load_with(&text.replace("0.01", "-1"), "t.toml", &[], &registry).expect_err("negative delay");
    assert!(bad.message.contains("`delay.delay_s`"), "{}", bad.message);
}

#[test]
fn a_packet_slot_no_link_holds_breaks_the_store_invariant() {
    // Stopped mid-transfer, packets sit on the links in slots of the store; the invariant holds.
    let mut sim = paced_line(0.3055);
    sim.run();
    assert!(sim.world.store.in_use() > 0, "the run stops with packets on the links");
    assert!(check_invariants(&sim).is_empty(), "{:?}", check_invariants(&sim));
    // A slot taken without a link holding it (a leak) is reported.
    let stray = hosim::net::Packet::new(0, 0, 0, 1, hosim::net::PacketKind::Data, 100, 0);
    sim.world.store.put(stray);
    let bad = check_invariants(&sim);
    assert!(bad.iter().any(|b| b.starts_with("packet store:")), "{bad:?}");
}

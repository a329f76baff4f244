//! A mechanism written only as a test: an agent that holds every packet at one router for a
//! fixed time, plugged into a built scenario through the public API alone. Data and ACKs both
//! cross that router, so the flow's RTT grows by twice the delay; the packets it holds count
//! as in flight, so the conservation invariant holds whenever the run stops.

mod common;

use std::collections::VecDeque;

use hosim::engine::time::SimTime;
use hosim::metrics::summary::check_invariants;
use hosim::net::{NodeId, Packet};
use hosim::sim::{Agent, Cx, Sim};

const DELAY_NS: SimTime = 10_000_000;

/// Holds each packet reaching `node` for `delay_ns`, then routes it on.
struct Delay {
    node: NodeId,
    delay_ns: SimTime,
    held: VecDeque<Packet>,
}

impl Agent for Delay {
    fn on_packet(&mut self, cx: &mut Cx, _node: NodeId, pkt: Packet) {
        self.held.push_back(pkt);
        let at = cx.now() + self.delay_ns;
        cx.schedule(at, 0);
    }

    fn on_timer(&mut self, cx: &mut Cx, _tag: u64) {
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
    let r = sim.world.nodes.iter().position(|n| n.name == "r").expect("router r") as NodeId;
    sim.add_agent(|cx| {
        cx.own(r);
        Delay { node: r, delay_ns: DELAY_NS, held: VecDeque::new() }
    });
    sim
}

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

//! Arrival tags: in a run without mechanism agents, routes and node kinds cannot change, so a
//! packet's next step where it arrives (the link a router passes it on by, or the flow of the
//! host it is addressed to) is found when it enters the link's pipeline, and each flow notes
//! the links its two hosts send by. With an agent, which may change a route while packets are
//! on their way, every arrival and every send looks its route up.

mod common;

use hosim::engine::SimTime;
use hosim::metrics::summary::check_invariants;
use hosim::net::{Link, LinkId, Packet};
use hosim::observe::{LinkPoint, Observer};
use hosim::scenario;
use hosim::sim::{Agent, Cx, Sim};
use std::sync::{Arc, Mutex};

/// Does nothing: its presence alone makes arrivals look their routes up.
struct Idle;

impl Agent for Idle {
    type Timer = ();
}

#[test]
fn tagged_arrivals_give_the_results_of_looked_up_ones() {
    let text = scenario::presets::find("dumbbell").unwrap();
    for (seed, overrides) in [
        (1, vec![("duration_s", "10"), ("dumbbell.flows", "8")]),
        (2, vec![("duration_s", "10"), ("dumbbell.flows", "40"), ("dumbbell.loss", "0.01")]),
    ] {
        let mut tagged = common::build_sim(text, seed, &overrides);
        tagged.run();
        assert!(tagged.world.static_routes, "a run without agents tags its arrivals");
        let mut looked_up = common::build_sim(text, seed, &overrides);
        looked_up.add_agent(|_| Idle);
        looked_up.run();
        assert!(!looked_up.world.static_routes, "a run with an agent looks its routes up");
        assert_eq!(
            common::results_without_events(&tagged, seed).0,
            common::results_without_events(&looked_up, seed).0,
            "seed {seed}"
        );
    }
}

/// Two paths from r1 to d; an agent moves r1's route to d from the upper to the lower one
/// while packets are propagating towards r1.
const TWO_PATHS: &str = r#"
duration_s = 2.0
[[nodes]]
name = "s"
kind = "host"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "up"
kind = "router"
[[nodes]]
name = "down"
kind = "router"
[[nodes]]
name = "d"
kind = "host"
[[links]]
from = "s"
to = "r1"
rate_bps = 100e6
delay_s = 0.020
[[links]]
name = "r1-up"
from = "r1"
to = "up"
rate_bps = 20e6
delay_s = 0.005
[[links]]
from = "up"
to = "d"
rate_bps = 20e6
delay_s = 0.005
[[links]]
name = "r1-down"
from = "r1"
to = "down"
rate_bps = 20e6
delay_s = 0.005
[[links]]
from = "down"
to = "d"
rate_bps = 20e6
delay_s = 0.005
[[flows]]
src = "s"
dst = "d"
"#;

/// From 1 s on, looks every 0.1 ms for packets propagating on the link into r1, and at the
/// first look that finds some, moves r1's route to d onto the lower path.
struct Switch {
    r1: u32,
    d: u32,
    into_r1: LinkId,
    lower: LinkId,
    /// When it switched, and how many packets were propagating into r1 then.
    switched: Option<(SimTime, usize)>,
}

impl Agent for Switch {
    type Timer = ();

    fn on_timer(&mut self, cx: &mut Cx, (): ()) {
        let propagating = cx.links()[self.into_r1 as usize].propagating_len();
        if propagating == 0 {
            cx.schedule(cx.now() + 100_000, ());
            return;
        }
        cx.routes_mut(self.r1)[self.d as usize] = Some(self.lower);
        self.switched = Some((cx.now(), propagating));
    }
}

/// Records when packets enter the upper path's queue.
struct Entries {
    upper: LinkId,
    times: Arc<Mutex<Vec<SimTime>>>,
}

impl Observer for Entries {
    fn points(&self) -> u8 {
        LinkPoint::Enqueue.bit()
    }
    fn on_link(&mut self, _: LinkPoint, now: SimTime, l: LinkId, _: &Link, _: &Packet) {
        if l == self.upper {
            self.times.lock().unwrap().push(now);
        }
    }
}

#[test]
fn a_route_changed_while_packets_propagate_takes_them_too() {
    let mut sim = common::build_sim(TWO_PATHS, 1, &[]);
    let link = |sim: &Sim, name: &str| sim.world.links.iter().position(|l| l.name == name).unwrap() as LinkId;
    let (into_r1, upper, lower) = (link(&sim, "s->r1"), link(&sim, "r1-up"), link(&sim, "r1-down"));
    let times = Arc::new(Mutex::new(Vec::new()));
    sim.world.obs.add(Box::new(Entries { upper, times: times.clone() }));
    sim.add_agent(|cx| {
        cx.schedule(1_000_000_000, ());
        Switch { r1: cx.node_id("r1").unwrap(), d: cx.node_id("d").unwrap(), into_r1, lower, switched: None }
    });
    sim.run();
    let (at, propagating) = sim.agent::<Switch>().unwrap().switched.expect("packets propagate into r1 after 1 s");
    assert!(propagating > 0);
    let times = times.lock().unwrap();
    assert!(times.iter().any(|&t| t + 100_000_000 > at), "the upper path carries the flow until the switch");
    // The packets propagating into r1 at the switch arrive after it: they take the new route.
    assert!(times.iter().all(|&t| t <= at), "a packet took the old route after the switch");
    let lower_link = &sim.world.links[lower as usize];
    assert!(lower_link.queue.stats.enqueued > 100, "the lower path carries the flow after the switch");
    assert!(check_invariants(&sim).is_empty());
}

//! The link-point hook: an observer added to a simulation sees every packet at the points it
//! asks for, and only those; its counts agree with the links' own statistics.

use std::cell::RefCell;
use std::rc::Rc;

use hosim::engine::time::SimTime;
use hosim::net::{Link, LinkId, Packet};
use hosim::observe::{LinkPoint, Observer};
use hosim::sim::Sim;

const POINTS: [LinkPoint; 5] =
    [LinkPoint::Enqueue, LinkPoint::Drop, LinkPoint::Transmit, LinkPoint::Lost, LinkPoint::Receive];

/// Counts packets per point.
struct Count {
    mask: u8,
    seen: Rc<RefCell<[u64; 5]>>,
}

impl Observer for Count {
    fn points(&self) -> u8 {
        self.mask
    }

    fn on_link(&mut self, point: LinkPoint, _now: SimTime, _l: LinkId, _link: &Link, _pkt: &Packet) {
        self.seen.borrow_mut()[point as usize] += 1;
    }
}

/// A congested, lossy dumbbell: every point sees packets.
fn lossy_dumbbell() -> Sim {
    let text = hosim::scenario::presets::find("dumbbell").expect("preset");
    let sets = [("duration_s", "5"), ("dumbbell.loss", "0.01"), ("dumbbell.flows", "4")];
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let s = hosim::scenario::load(text, "dumbbell", &sets).expect("valid scenario");
    hosim::scenario::build::build(&s, "dumbbell", 1).expect("buildable scenario")
}

fn observed(mask: u8) -> (Sim, [u64; 5]) {
    let seen = Rc::new(RefCell::new([0; 5]));
    let mut sim = lossy_dumbbell();
    sim.world.obs.add(Box::new(Count { mask, seen: seen.clone() }));
    sim.run();
    let counts = *seen.borrow();
    (sim, counts)
}

#[test]
fn observer_counts_match_the_link_statistics() {
    let all = POINTS.iter().fold(0, |m, p| m | p.bit());
    let (sim, seen) = observed(all);
    let links = &sim.world.links;
    let sum = |f: fn(&Link) -> u64| links.iter().map(f).sum::<u64>();
    let want = [
        sum(|l| l.queue.stats.enqueued),
        sum(|l| l.queue.stats.dropped),
        sum(|l| l.stats.transmitted + l.in_service.is_some() as u64),
        sum(|l| l.stats.lost),
        sum(|l| l.stats.delivered),
    ];
    assert_eq!(seen, want, "enqueue, drop, transmit, lost, receive");
    assert!(seen.iter().all(|&n| n > 0), "every point saw packets: {seen:?}");
}

#[test]
fn observer_sees_only_the_points_it_asks_for() {
    let (_, seen) = observed(LinkPoint::Lost.bit() | LinkPoint::Drop.bit());
    assert!(seen[LinkPoint::Lost as usize] > 0 && seen[LinkPoint::Drop as usize] > 0, "{seen:?}");
    assert_eq!([seen[0], seen[2], seen[4]], [0, 0, 0], "enqueue, transmit, receive unobserved");
}

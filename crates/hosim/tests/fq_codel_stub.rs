//! A queue discipline written only as a test: FQ-CoDel-like (RFC 8290), per-flow queues served
//! by the crate's deficit round robin (`hosim::net::drr`), each queue under CoDel (RFC 8289),
//! which drops at dequeue. It plugs in through the public API alone: one line puts it on a
//! built link (`Queue::set_qdisc`); nothing else in the crate names it. A stub, not the real
//! thing: no new/old flow lists (RFC 8290 §4.2), no drop from the fattest queue on overflow
//! (§4.1.1), and the DRR charges a packet that CoDel then drops.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use hosim::engine::rng::Rng;
use hosim::engine::time::SimTime;
use hosim::metrics::summary::{check_invariants, summary};
use hosim::net::drr::{Scheduler, SchedulerKind};
use hosim::net::{AnyQdisc, Link, LinkId, Packet, PacketStore, Qdisc, QueueLimit, Verdict};
use hosim::observe::{LinkPoint, Observer};
use hosim::sim::Sim;

/// RFC 8289 §4.2 defaults: target 5 ms, interval 100 ms.
const TARGET_NS: SimTime = 5_000_000;
const INTERVAL_NS: SimTime = 100_000_000;
/// The size of a full packet: a queue holding no more than this is not "above target"
/// (RFC 8289 §4.3, `maxpacket`).
const MAX_PACKET_BYTES: u64 = 1500;

/// One flow's queue and its CoDel state (RFC 8289 §5, names as there).
#[derive(Debug, Default)]
struct CodelQueue {
    /// (enqueue time, slot, bytes).
    pkts: VecDeque<(SimTime, u32, u32)>,
    bytes: u64,
    first_above_time: SimTime,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CodelQueue {
    fn control_law(t: SimTime, count: u32) -> SimTime {
        t + (INTERVAL_NS as f64 / (count as f64).sqrt()) as SimTime
    }

    /// `dodequeue`: the head and whether its sojourn time says to drop.
    fn dodequeue(&mut self, now: SimTime) -> (bool, Option<u32>) {
        let Some((at, slot, size)) = self.pkts.pop_front() else {
            self.first_above_time = 0;
            return (false, None);
        };
        self.bytes -= size as u64;
        let sojourn = now - at;
        let mut ok_to_drop = false;
        if sojourn < TARGET_NS || self.bytes <= MAX_PACKET_BYTES {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + INTERVAL_NS;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (ok_to_drop, Some(slot))
    }

    /// CoDel's `dequeue`: the packet to send, the ones dropped on the way pushed to `dropped`.
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<u32>) -> Option<u32> {
        let (ok_to_drop, mut item) = self.dodequeue(now);
        let Some(first) = item else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                dropped.extend(item);
                self.count += 1;
                let (ok, next) = self.dodequeue(now);
                item = next;
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = Self::control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            dropped.push(first);
            item = self.dodequeue(now).1;
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * INTERVAL_NS { delta } else { 1 };
            self.drop_next = Self::control_law(now, self.count);
            self.lastcount = self.count;
        }
        item
    }
}

#[derive(Debug)]
struct FqCodel {
    queues: Vec<CodelQueue>,
    drr: Scheduler,
    codel_drops: u64,
    /// The queue that accepted the last packet.
    last: usize,
}

impl FqCodel {
    fn new(n_queues: usize) -> FqCodel {
        FqCodel {
            queues: (0..n_queues).map(|_| CodelQueue::default()).collect(),
            drr: Scheduler::new(SchedulerKind::Wfq, vec![1.0; n_queues]),
            codel_drops: 0,
            last: 0,
        }
    }
}

impl Qdisc for FqCodel {
    fn name(&self) -> &'static str {
        "fq-codel-stub"
    }

    fn enqueue(&mut self, now: SimTime, slot: u32, limit: QueueLimit, store: &mut PacketStore, _: &mut Rng) -> Verdict {
        let pkt = store.get(slot);
        if !limit.admits(self.len_pkts(), 0, pkt.size_bytes) {
            return Verdict::DroppedFull;
        }
        self.last = pkt.flow as usize % self.queues.len();
        let q = &mut self.queues[self.last];
        q.pkts.push_back((now, slot, pkt.size_bytes));
        q.bytes += pkt.size_bytes as u64;
        Verdict::Queued
    }

    fn dequeue(&mut self, now: SimTime, _: &mut PacketStore, _: &mut Rng, dropped: &mut Vec<u32>) -> Option<u32> {
        let first = dropped.len();
        let mut sent = None;
        while sent.is_none() {
            let queues = &self.queues;
            let Some(q) = self.drr.pick(|q| queues[q].pkts.front().map(|p| p.2)) else { break };
            sent = self.queues[q].dequeue(now, dropped);
        }
        self.codel_drops += (dropped.len() - first) as u64;
        sent
    }

    fn len_pkts(&self) -> usize {
        self.queues.iter().map(|q| q.pkts.len()).sum()
    }

    fn last_enqueued(&self) -> Option<u32> {
        self.queues[self.last].pkts.back().map(|p| p.1)
    }

    fn slots(&self) -> Vec<u32> {
        self.queues.iter().flat_map(|q| q.pkts.iter().map(|p| p.1)).collect()
    }

    fn drain(&mut self) -> Vec<u32> {
        self.queues
            .iter_mut()
            .flat_map(|q| {
                q.bytes = 0;
                q.pkts.drain(..).map(|p| p.1).collect::<Vec<_>>()
            })
            .collect()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("codel_drops", self.codel_drops)]
    }
}

/// Counts the enqueues and drops the links report to the observers.
struct Seen(Rc<RefCell<[u64; 2]>>);

impl Observer for Seen {
    fn points(&self) -> u8 {
        LinkPoint::Enqueue.bit() | LinkPoint::Drop.bit()
    }

    fn on_link(&mut self, point: LinkPoint, _: SimTime, _: LinkId, _: &Link, _: &Packet) {
        self.0.borrow_mut()[(point == LinkPoint::Drop) as usize] += 1;
    }
}

/// Four bulk flows through a 500-packet bottleneck queue, far more than its bandwidth-delay
/// product (about 40 packets): under DropTail a standing queue of hundreds of packets.
fn deep_buffered_dumbbell() -> Sim {
    let text = hosim::scenario::presets::find("dumbbell").expect("preset");
    let sets = [("duration_s", "20"), ("dumbbell.flows", "4"), ("dumbbell.queue_packets", "500")];
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let s = hosim::scenario::load(text, "dumbbell", &sets).expect("valid scenario");
    hosim::scenario::build::build(&s, "dumbbell", 1).expect("buildable scenario")
}

fn bottleneck(sim: &Sim) -> usize {
    sim.world.links.iter().position(|l| l.name == "left->right").expect("bottleneck")
}

#[test]
fn a_test_discipline_drops_at_dequeue_and_keeps_the_queue_short() {
    let mut droptail = deep_buffered_dumbbell();
    droptail.run();
    let mut sim = deep_buffered_dumbbell();
    let l = bottleneck(&sim);
    // The registration line.
    sim.world.links[l].queue.set_qdisc(AnyQdisc::Other(Box::new(FqCodel::new(8))));
    let seen = Rc::new(RefCell::new([0; 2]));
    sim.world.obs.add(Box::new(Seen(seen.clone())));
    sim.run();

    assert_eq!(check_invariants(&sim), Vec::<String>::new(), "conservation and delivery hold");
    let q = &sim.world.links[l].queue;
    let codel_drops = q.qdisc_counters()[0].1;
    assert!(codel_drops > 0, "CoDel dropped at dequeue");
    assert_eq!(q.stats.dropped, codel_drops, "the queue never overflowed; every drop was CoDel's");
    let sum = |f: fn(&Link) -> u64| sim.world.links.iter().map(f).sum::<u64>();
    let want = [sum(|l| l.queue.stats.enqueued), sum(|l| l.queue.stats.dropped)];
    assert_eq!(*seen.borrow(), want, "the links told the observers of each enqueue and drop");

    let end = sim.world.end_ns;
    let (short, long) = (q.mean_len_pkts(end), droptail.world.links[l].queue.mean_len_pkts(end));
    assert!(short * 4.0 < long, "mean queue {short:.1} packets under the stub, {long:.1} under DropTail");
    let delivered = |s: &Sim| s.world.flows.iter().map(|f| f.delivered_bytes).sum::<u64>() as f64;
    assert!(delivered(&sim) > 0.85 * delivered(&droptail), "the link stays busy");

    let json = summary(&sim, "dumbbell", 1, 0.0, &[]);
    let entry = json["queues"].as_array().expect("queues").iter().find(|e| e["name"] == "left->right").expect("entry");
    assert_eq!(entry["kind"], "fq-codel-stub");
    assert_eq!(entry["codel_drops"], codel_drops);
}

#[test]
fn computed_departures_give_the_test_discipline_the_event_path_s_results() {
    let run = |observed: bool| {
        let mut sim = deep_buffered_dumbbell();
        let l = bottleneck(&sim);
        sim.world.links[l].queue.set_qdisc(AnyQdisc::Other(Box::new(FqCodel::new(8))));
        if observed {
            sim.world.obs.add(Box::new(Seen(Rc::new(RefCell::new([0; 2])))));
        }
        sim.run();
        assert_eq!(sim.world.computed_departures, !observed, "an observer turns the computed departures off");
        assert_eq!(check_invariants(&sim), Vec::<String>::new());
        let q = &sim.world.links[l].queue;
        let delivered: Vec<u64> = sim.world.flows.iter().map(|f| f.delivered_bytes).collect();
        (q.stats.enqueued, q.stats.dropped, q.qdisc_counters(), q.mean_len_pkts(sim.world.end_ns), delivered)
    };
    assert_eq!(run(false), run(true));
}

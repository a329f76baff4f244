//! Micro-benchmark of the event queue (`engine::EventQueue`): the cost of one event, apart from
//! what the event does. Not run in CI; see bench/decisions.md.
//!
//!     cargo bench -p hosim --bench event_queue
//!
//! - `hold/N`: the classic hold model. N events are pending; each step pops the earliest and
//!   schedules one at a pseudo-random later time, as a run does in steady state (N is about the
//!   number of links, flows and timers: a dumbbell of 8 flows keeps a few dozen pending).
//! - `fill_drain/N`: schedule N events, then pop them all (start-up and bursts of timers).
//! - `ties/N`: N events at the same instant, popped in insertion order (the sequence tie-break).
//! - `hold_std/N`: `hold/N` on the queue the engine had before, std's `BinaryHeap` of
//!   (time, sequence) entries popped and then pushed, as a baseline measured in the same session.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hosim::engine::{EventQueue, SimTime};

/// An event about the size of the simulator's: a kind and two ids.
#[derive(Clone, Copy)]
struct Ev {
    kind: u32,
    id: u32,
    arg: u64,
}

/// xorshift64*: deterministic increments without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next_delay(&mut self) -> SimTime {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        // 1 ns .. ~1 ms: link serialisation times to RTO-scale timers.
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 44) + 1
    }
}

fn pending(n: usize, rng: &mut Lcg) -> EventQueue<Ev> {
    let mut q = EventQueue::new();
    for i in 0..n {
        q.schedule(rng.next_delay(), Ev { kind: (i % 4) as u32, id: i as u32, arg: 0 });
    }
    q
}

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("hold");
    group.throughput(Throughput::Elements(1));
    for n in [16usize, 256, 4096, 65536] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut rng = Lcg(0x9e37_79b9_7f4a_7c15);
            let mut q = pending(n, &mut rng);
            b.iter(|| {
                let (now, ev) = q.pop_until(SimTime::MAX).expect("the queue never empties");
                q.schedule(now + rng.next_delay(), Ev { arg: ev.arg + 1, ..ev });
                black_box(now)
            });
        });
    }
    group.finish();
}

/// The engine's queue before 2026-11-23: std's max-heap with reversed (time, seq) ordering, a
/// pop (sift to the bottom and back up) then a push per step.
struct StdEntry {
    time: SimTime,
    seq: u64,
    event: Ev,
}

impl PartialEq for StdEntry {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl Eq for StdEntry {}
impl PartialOrd for StdEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for StdEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

fn hold_std(c: &mut Criterion) {
    let mut group = c.benchmark_group("hold_std");
    group.throughput(Throughput::Elements(1));
    for n in [16usize, 256, 4096, 65536] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut rng = Lcg(0x9e37_79b9_7f4a_7c15);
            let mut heap = BinaryHeap::with_capacity(1024);
            let mut seq = 0u64;
            for i in 0..n {
                heap.push(StdEntry {
                    time: rng.next_delay(),
                    seq,
                    event: Ev { kind: (i % 4) as u32, id: i as u32, arg: 0 },
                });
                seq += 1;
            }
            b.iter(|| {
                let e = heap.pop().expect("the queue never empties");
                heap.push(StdEntry {
                    time: e.time + rng.next_delay(),
                    seq,
                    event: Ev { arg: e.event.arg + 1, ..e.event },
                });
                seq += 1;
                black_box(e.time)
            });
        });
    }
    group.finish();
}

fn fill_drain(c: &mut Criterion) {
    let mut group = c.benchmark_group("fill_drain");
    for n in [1024usize, 65536] {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| {
                let mut rng = Lcg(7);
                let mut q = pending(n, &mut rng);
                let mut last = 0;
                while let Some((t, ev)) = q.pop_until(SimTime::MAX) {
                    last = t + u64::from(ev.id) + u64::from(ev.kind);
                }
                black_box(last)
            });
        });
    }
    group.finish();
}

fn ties(c: &mut Criterion) {
    let mut group = c.benchmark_group("ties");
    let n = 4096usize;
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter(|| {
            let mut q = EventQueue::new();
            for i in 0..n {
                q.schedule(1_000, Ev { kind: 0, id: i as u32, arg: 0 });
            }
            let mut order = 0u64;
            while let Some((_, ev)) = q.pop_until(1_000) {
                order = order.wrapping_mul(31).wrapping_add(u64::from(ev.id));
            }
            black_box(order)
        });
    });
    group.finish();
}

fn config() -> Criterion {
    // Short and repeatable on a shared 2-core machine; raise for a quiet one.
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! { name = benches; config = config(); targets = hold, hold_std, fill_drain, ties }
criterion_main!(benches);

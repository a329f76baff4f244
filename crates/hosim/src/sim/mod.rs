//! The simulation: the world (network, flows, event queue, observers), the agents of the
//! mobility mechanisms, and the run loop.
//!
//! Hosts, routers and links take the fast path: an arrival at a host or router is one match
//! on the node kind inside the world and no call through a trait object. Only packets at nodes an agent owns,
//! and agents' timers, go through `Box<dyn DynAgent>`, indexed by [`AgentId`].

mod agent;
mod endpoint;
mod flow;
mod network;
mod tap;
mod timer;
mod wifi;
mod world;

pub use agent::{Agent, Cx, DynAgent, HandoverRecord, Hosted, Report};
pub use flow::{DropRules, Flow};
pub use tap::{Attachment, Tap, Tapped};
pub use timer::TimerSlab;
pub use world::{Counters, Event, World};

use crate::engine::time::{ns_to_s, SimTime};
use crate::net::AgentId;
use crate::observe::{TraceKind, TraceTable};

/// The run loop looks at its hooks (interrupt, trace chunks, internal checks) once every this
/// many events: one counter compare per event.
pub const CHECK_EVERY_EVENTS: u64 = 1 << 16;

/// A trace table is handed to the sink once it holds this many rows (checked with the hooks).
pub const TRACE_CHUNK_ROWS: usize = 1 << 16;

/// Events at one instant after which the run is declared stuck (a zero-length timer loop).
pub const STUCK_EVENTS: u64 = 1 << 26;

/// Receives trace rows in chunks: (kind, rows, names of the ids: flows for per-flow kinds,
/// else links). The rows are cleared after the call.
pub type TraceSink<'a> = &'a mut dyn FnMut(TraceKind, &TraceTable, &[String]) -> Result<(), String>;

/// What a run can be given besides its scenario: all optional, all called rarely (never per
/// packet).
#[derive(Default)]
pub struct RunHooks<'a> {
    /// Asked every [`CHECK_EVERY_EVENTS`] events; `true` stops the run ([`Stop::Interrupted`]).
    pub interrupt: Option<&'a mut dyn FnMut() -> bool>,
    /// Takes the traces in chunks of about [`TRACE_CHUNK_ROWS`] rows per kind, and the rest at
    /// the end. Without a sink the traces stay in the world (`Observers::take_traces`).
    pub trace_sink: Option<TraceSink<'a>>,
}

/// Why a run ended before its end time.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The interrupt hook asked to stop, at this simulated time.
    Interrupted { at_ns: SimTime },
    /// The core caught itself misbehaving (an event scheduled in the past, no progress).
    Internal(String),
    /// The trace sink failed.
    Sink(String),
}

pub struct Sim {
    pub world: World,
    agents: Vec<Box<dyn DynAgent>>,
}

impl Sim {
    pub fn new(world: World) -> Sim {
        Sim { world, agents: Vec::new() }
    }

    /// Adds the agent that `build` makes. `build` gets the agent's context, already bound to
    /// the new agent's id, to own nodes and set the first timers.
    pub fn add_agent<A: Agent>(&mut self, build: impl FnOnce(&mut Cx<A::Timer>) -> A) -> AgentId {
        let id = self.agents.len() as AgentId;
        let mut timers = TimerSlab::default();
        let agent = build(&mut Cx::new(&mut self.world, id, &mut timers));
        self.agents.push(Box::new(Hosted { agent, timers }));
        id
    }

    pub fn agents(&self) -> impl Iterator<Item = &dyn DynAgent> {
        self.agents.iter().map(|a| a.as_ref())
    }

    /// The first agent of type `A`.
    pub fn agent<A: Agent>(&self) -> Option<&A> {
        self.agents.iter().find_map(|a| a.agent_any().downcast_ref::<A>())
    }

    pub fn agent_mut<A: Agent>(&mut self) -> Option<&mut A> {
        self.agents.iter_mut().find_map(|a| a.agent_any_mut().downcast_mut::<A>())
    }

    /// Calls `f` with the first agent of type `A` and that agent's context (tests, tools).
    pub fn with_agent<A: Agent, R>(&mut self, f: impl FnOnce(&mut A, &mut Cx<A::Timer>) -> R) -> Option<R> {
        let (id, hosted) = self
            .agents
            .iter_mut()
            .enumerate()
            .find_map(|(i, a)| a.hosted_any_mut().downcast_mut::<Hosted<A>>().map(|h| (i, h)))?;
        Some(f(&mut hosted.agent, &mut Cx::new(&mut self.world, id as AgentId, &mut hosted.timers)))
    }

    /// Runs until `end_ns` (or until nothing is left to happen), without hooks. A run the core
    /// stopped itself leaves its reason in [`Sim::run_hooked`]'s result only; use that.
    pub fn run(&mut self) {
        let _ = self.run_hooked(&mut RunHooks::default());
    }

    /// Runs until `end_ns` (or until nothing is left to happen), calling `hooks` every
    /// [`CHECK_EVERY_EVENTS`] events and once at the end.
    pub fn run_hooked(&mut self, hooks: &mut RunHooks) -> Result<(), Stop> {
        self.begin();
        let mut next_check = CHECK_EVERY_EVENTS;
        let mut last = (0, 0);
        while let Some((t, ev)) = self.world.events.pop_until(self.world.end_ns) {
            self.world.now = t;
            self.dispatch(ev);
            if self.world.events.executed() >= next_check {
                next_check += CHECK_EVERY_EVENTS;
                if let Err(stop) = self.check(hooks, &mut last) {
                    self.world.settle_links();
                    return Err(stop);
                }
            }
        }
        self.finish_at(self.world.end_ns)?;
        self.flush_traces(hooks, 0)
    }

    /// Schedules what the run starts with and chooses its paths (computed departures, static
    /// routes). [`Sim::run_hooked`] calls it; a driver that follows the wall clock calls it
    /// once, then [`Sim::run_until`] again and again, then [`Sim::finish_at`].
    pub fn begin(&mut self) {
        self.world.start();
        // Nothing but the links themselves looks at a link mid-run: no agent (they read and
        // drain queues), no observer (it sees every transmission start).
        let w = &mut self.world;
        w.computed_departures = w.departure_first && self.agents.is_empty() && !w.obs.listens_to_links();
        // A tap takes packets at hosts: every arrival looks at its node (`World::receive`).
        w.set_static_routes(self.agents.is_empty() && w.tap.is_none());
        // The senders' logs of recovery episodes are kept with the traces: without them a run's
        // memory does not grow with its losses.
        let log = w.obs.traces.enabled;
        for f in &mut w.flows {
            f.sender.set_episode_log(log);
        }
    }

    /// Runs every event due at or before `t`, then sets the clock to `t` (a packet injected
    /// next enters at `t`). For a driver that follows the wall clock (`hosim-emulate`).
    pub fn run_until(&mut self, t: SimTime) -> Result<(), Stop> {
        while let Some((at, ev)) = self.world.events.pop_until(t) {
            self.world.now = at;
            self.dispatch(ev);
        }
        self.world.now = self.world.now.max(t);
        self.check_past()
    }

    /// The time of the earliest pending event.
    pub fn next_event_ns(&mut self) -> Option<SimTime> {
        self.world.events.next_time()
    }

    /// Ends the run at `t` (its end time, or where a driver stopped it): transmissions due
    /// are ended and the goodput trace closed.
    pub fn finish_at(&mut self, t: SimTime) -> Result<(), Stop> {
        self.world.now = t;
        self.world.end_ns = t;
        self.world.settle_links();
        self.world.finish_goodput();
        self.check_past()
    }

    /// Hands the trace tables of at least `min_rows` rows to the sink, if there is one.
    fn flush_traces(&mut self, hooks: &mut RunHooks, min_rows: usize) -> Result<(), Stop> {
        let Some(sink) = hooks.trace_sink.as_mut() else { return Ok(()) };
        let w = &mut self.world;
        if !w.obs.traces.tables.iter().any(|t| !t.is_empty() && t.len() >= min_rows) {
            return Ok(());
        }
        let flows: Vec<String> = w.flows.iter().map(|f| f.name.clone()).collect();
        let links: Vec<String> = w.links.iter().map(|l| l.name.clone()).collect();
        let mut named = |kind: TraceKind, t: &TraceTable| sink(kind, t, if kind.per_flow() { &flows } else { &links });
        w.obs.traces.flush(min_rows, &mut named).map_err(Stop::Sink)
    }

    /// The periodic look at the hooks. `last` is (time, events) when time last moved.
    #[cold]
    fn check(&mut self, hooks: &mut RunHooks, last: &mut (SimTime, u64)) -> Result<(), Stop> {
        let (now, executed) = (self.world.now, self.world.events.executed());
        self.check_past()?;
        if now != last.0 {
            *last = (now, executed);
        } else if executed - last.1 >= STUCK_EVENTS {
            return Err(Stop::Internal(format!("no progress: {} events at t = {} s", executed - last.1, ns_to_s(now))));
        }
        if let Some(interrupt) = hooks.interrupt.as_mut() {
            if interrupt() {
                return Err(Stop::Interrupted { at_ns: now });
            }
        }
        self.flush_traces(hooks, TRACE_CHUNK_ROWS)
    }

    fn check_past(&self) -> Result<(), Stop> {
        match self.world.events.past_request() {
            Some((now, at)) => Err(Stop::Internal(format!(
                "an event was scheduled in the past (at {at} ns, now {now} ns = {} s)",
                ns_to_s(now)
            ))),
            None => Ok(()),
        }
    }

    /// Out of line: inlined into the run loop (as the compiler chose once the flows' timeout
    /// list got smaller) it cost 3 M more instructions at 8 flows (bench/decisions.md).
    #[inline(never)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkArrive(l) => {
                if let Some(a) = self.world.on_arrive(l, false) {
                    self.agents[a.agent as usize].deliver(&mut self.world, a.agent, a.node, a.pkt);
                }
            }
            Event::LinkArriveLate(l) => {
                if let Some(a) = self.world.on_arrive(l, true) {
                    self.agents[a.agent as usize].deliver(&mut self.world, a.agent, a.node, a.pkt);
                }
            }
            Event::AgentTimer(timer) => {
                let (id, entry) = self.world.agent_timers.take(timer);
                self.agents[id as usize].fire(&mut self.world, id, entry);
            }
            ev => self.world.dispatch(ev),
        }
    }

    /// Packets currently inside the network: on links and held back by agents.
    pub fn packets_in_flight(&self) -> u64 {
        self.world.packets_on_links() + self.agents.iter().map(|a| a.held_packets()).sum::<u64>()
    }
}

//! The world: arenas of nodes, links and flows, the event queue, the counters and the
//! observers. Components refer to each other by typed indices only. The network side lives in
//! `network.rs`, the endpoint side in `endpoint.rs`; agents reach the world through
//! [`Cx`](super::Cx) and the run loop is [`Sim`](super::Sim).

use crate::engine::rng::Rng;
use crate::engine::time::SimTime;
use crate::engine::EventQueue;
use crate::net::{AgentId, FlowId, Link, LinkId, Node, PacketStore};
use crate::observe::Observers;
use crate::tcp::Segment;

use super::flow::Flow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet in service on the link has been serialized.
    LinkTxDone(LinkId),
    /// The oldest packet propagating on the link reaches the far end.
    LinkArrive(LinkId),
    /// The oldest packet on the link's reordering path reaches the far end.
    LinkArriveLate(LinkId),
    /// A variable-rate link moves to its next rate.
    LinkRate(LinkId),
    FlowStart(FlowId),
    RtoTimer(FlowId),
    DelAckTimer(FlowId),
    AppTick(FlowId),
    /// Bytes of the flow left its host's link while Linux TCP Small Queues held its sender
    /// back (`tcp_tsq_handler`): the sender sends what it now may.
    SmallQueueWake(FlowId),
    /// An 802.11 medium's next access, or the end of its exchange on the air (`sim/wifi.rs`).
    Medium(u32),
    /// An agent's timer: its entry in [`World::agent_timers`] (the agent, and where the
    /// timer's typed value waits in that agent's [`super::TimerSlab`]).
    AgentTimer(u32),
}

/// Agents' pending timers, by the index an [`Event::AgentTimer`] carries: the agent and the
/// entry of the timer's value in the agent's own slab (`sim/timer.rs`). Kept here rather than in the event so that every event is 8 bytes, which a call passes
/// in one register: a 16-byte event went through the caller's stack, written as two 4-byte
/// stores and read back by the event queue as one 16-byte load, which the core cannot forward
/// from those stores (a stall of some 10 cycles on every schedule; bench/decisions.md). A timer's
/// entry is freed when it fires and reused last-in first-out, so the indices, like everything
/// else, depend only on the run.
#[derive(Debug, Default)]
pub struct AgentTimers {
    entries: Vec<(AgentId, u64)>,
    free: Vec<u32>,
}

impl AgentTimers {
    /// Files agent `id`'s timer, whose value waits at `entry` of its slab; the index for its event.
    pub fn file(&mut self, id: AgentId, entry: u64) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = (id, entry);
                i
            }
            None => {
                self.entries.push((id, entry));
                (self.entries.len() - 1) as u32
            }
        }
    }

    /// The agent and slab entry of the timer at `i`, which has fired: `i` is free afterwards.
    pub fn take(&mut self, i: u32) -> (AgentId, u64) {
        self.free.push(i);
        self.entries[i as usize]
    }
}

/// Packet accounting for the conservation invariant.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub created: u64,
    pub consumed: u64,
    pub dropped_queue: u64,
    pub dropped_loss: u64,
    pub dropped_scripted: u64,
    pub dropped_unroutable: u64,
    /// Dropped by a handover mechanism (old base station under `drop`, a full base-station
    /// buffer under `rearrange`).
    pub dropped_handover: u64,
}

impl Counters {
    pub fn dropped(&self) -> u64 {
        self.dropped_queue + self.dropped_loss + self.dropped_scripted + self.dropped_unroutable + self.dropped_handover
    }
}

pub struct World {
    pub now: SimTime,
    pub end_ns: SimTime,
    pub events: EventQueue<Event>,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// The packets on the links (queued, in service, propagating), which the links refer to
    /// by slot.
    pub store: PacketStore,
    pub flows: Vec<Flow>,
    pub counters: Counters,
    /// Traces and link observers.
    pub obs: Observers,
    pub trace_interval_ns: SimTime,
    /// The scenario seed, for components added after the build (`stream_rng`).
    pub seed: u64,
    pub(super) next_uid: u64,
    /// Reused output buffer for sender calls: no allocation per event.
    pub(super) seg_buf: Vec<Segment>,
    /// The scenario-level random stream (for mechanisms that are not one component).
    pub rng: Rng,
    /// The order of a packet offered to a link at the very nanosecond the link's transmission
    /// ends (scenario key `engine.tie_order`). `true` (`"departure_first"`): the transmission
    /// is over first, whichever event was scheduled first, which lets a run compute departures
    /// without an event per transmission ([`World::computed_departures`]). `false`
    /// (`"event_order"`): the two events run in the order they were scheduled, as in ns-2 and
    /// ns-3. Either way only links whose packets depart at the start of transmission
    /// (`Link::departs_at_start`) are concerned; other links end transmissions by event.
    pub departure_first: bool,
    /// This run computes the departures of links whose packets depart at the start of
    /// transmission when the packets are accepted, without transmit-done events: set by the
    /// run loop when `departure_first` holds and nothing else can look at a link mid-run (no
    /// mechanism agents, no link observers, no queue traces). The results are the same as
    /// with the events (test `computed_departures_give_the_event_path_s_results`); only the
    /// `events` count is smaller.
    pub computed_departures: bool,
    /// Agents' pending timers ([`Event::AgentTimer`]).
    pub agent_timers: AgentTimers,
    /// Routes and node kinds cannot change during this run (no mechanism agents: only an
    /// agent changes them, through `Cx`), so what a packet does where a link takes it (the
    /// router's next link, or its flow at its host) is found when it enters that link
    /// (`Link::pipeline`'s tags), and each flow's hosts send by links noted at the start
    /// (`Flow::out_links`). Set by the run loop, with the flows' links
    /// (`World::set_static_routes`).
    pub static_routes: bool,
    /// The 802.11 media, whose stations' links have `Link::wifi` set.
    pub media: Vec<crate::net::wifi::WifiMedium>,
    /// Emulation only: the hosts whose packets leave the simulation for real network stacks
    /// (`hosim-emulate`), and what reached them. `None` in every simulated run.
    pub tap: Option<Box<super::Tap>>,
    /// Hosts attaching to and detaching from access networks, in the order the mechanisms
    /// said so ([`Cx::set_attached`](super::Cx::set_attached)). Nothing in the simulation
    /// reads it (a mechanism decides itself what reaches a host); `hosim-emulate` brings the
    /// real interface of each such link down and up.
    pub attachments: Vec<super::Attachment>,
}

impl World {
    pub fn new(end_ns: SimTime, trace_interval_ns: SimTime, rng: Rng) -> World {
        World {
            now: 0,
            end_ns,
            events: EventQueue::new(),
            nodes: Vec::new(),
            links: Vec::new(),
            flows: Vec::new(),
            counters: Counters::default(),
            obs: Observers::default(),
            trace_interval_ns: trace_interval_ns.max(1),
            seed: 0,
            next_uid: 0,
            seg_buf: Vec::with_capacity(64),
            store: PacketStore::default(),
            rng,
            departure_first: true,
            computed_departures: false,
            agent_timers: AgentTimers::default(),
            static_routes: false,
            media: Vec::new(),
            tap: None,
            attachments: Vec::new(),
        }
    }

    /// Schedules what every run starts with: the flows and the rate changes of variable-rate
    /// links.
    pub(super) fn start(&mut self) {
        for f in 0..self.flows.len() {
            // A flow whose endpoints a tap takes is carried by real stacks: hosim's own TCP
            // stays silent for it.
            if let Some(tap) = self.tap.as_deref() {
                if tap.takes(self.flows[f].src) || tap.takes(self.flows[f].dst) {
                    continue;
                }
            }
            let start = self.flows[f].start_ns;
            self.events.schedule_timer(start, Event::FlowStart(f as FlowId));
        }
        self.start_rate_schedules();
        self.mark_small_queue_links();
    }

    /// Linux TCP Small Queues: every link leaving the source host of a flow with
    /// `small_queues` reports the end of each transmission to the packet's sender
    /// (`Link::wakes_senders`).
    fn mark_small_queue_links(&mut self) {
        for f in 0..self.flows.len() {
            if !self.flows[f].sender.cfg.small_queues {
                continue;
            }
            let src = self.flows[f].src;
            for link in self.links.iter_mut().filter(|l| l.from == src) {
                link.wakes_senders = true;
            }
        }
    }

    /// Goodput-trace rows of intervals `[0, ceil(end / interval))` that were not yet written
    /// (every flow's current interval and the idle ones after it).
    pub(super) fn finish_goodput(&mut self) {
        if !self.obs.traces.enabled {
            return;
        }
        let bins = self.end_ns.div_ceil(self.trace_interval_ns);
        for f in 0..self.flows.len() {
            super::flow::goodput_close(
                &mut self.flows[f],
                &mut self.obs.traces,
                f as FlowId,
                bins,
                self.trace_interval_ns,
            );
        }
    }

    /// Runs a core event (anything but arrivals and agent timers, which `Sim` routes).
    #[inline]
    pub(super) fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkTxDone(l) => self.on_tx_done(l),
            Event::LinkRate(l) => self.on_link_rate(l),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::RtoTimer(f) => self.on_rto_timer(f),
            Event::DelAckTimer(f) => self.on_delack_timer(f),
            Event::AppTick(f) => self.on_app_tick(f),
            Event::SmallQueueWake(f) => self.on_small_queue_wake(f),
            Event::Medium(m) => self.on_medium(m),
            Event::LinkArrive(_) | Event::LinkArriveLate(_) | Event::AgentTimer(_) => {
                unreachable!("the run loop routes arrivals and agent timers")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event fits one register (see [`AgentTimers`]).
    #[test]
    fn an_event_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Event>(), 8);
    }

    #[test]
    fn agent_timers_give_back_what_was_filed_and_reuse_fired_entries() {
        let mut t = AgentTimers::default();
        let a = t.file(3, u64::MAX);
        let b = t.file(5, 7);
        assert_ne!(a, b);
        assert_eq!(t.take(a), (3, u64::MAX));
        let c = t.file(9, 1);
        assert_eq!(c, a, "a fired timer's entry is reused");
        assert_eq!(t.take(b), (5, 7));
        assert_eq!(t.take(c), (9, 1));
    }
}

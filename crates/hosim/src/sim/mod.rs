//! The simulation: the world (network, flows, event queue, observers), the agents of the
//! mobility mechanisms, and the run loop.
//!
//! Hosts, routers and links take the fast path: an arrival at a host or router is one match
//! on the node kind inside the world and no call through a trait object. Only packets at nodes an agent owns,
//! and agents' timers, go through `Box<dyn Agent>`, indexed by [`AgentId`].

mod agent;
mod endpoint;
mod flow;
mod network;
mod world;

pub use agent::{Agent, Cx, HandoverRecord, Report};
pub use flow::{DropRules, Flow};
pub use world::{Counters, Event, World};

use crate::net::AgentId;

pub struct Sim {
    pub world: World,
    agents: Vec<Box<dyn Agent>>,
}

impl Sim {
    pub fn new(world: World) -> Sim {
        Sim { world, agents: Vec::new() }
    }

    /// Adds the agent that `build` makes. `build` gets the agent's context, already bound to
    /// the new agent's id, to own nodes and set the first timers.
    pub fn add_agent<A: Agent>(&mut self, build: impl FnOnce(&mut Cx) -> A) -> AgentId {
        let id = self.agents.len() as AgentId;
        let agent = build(&mut Cx::new(&mut self.world, id));
        self.agents.push(Box::new(agent));
        id
    }

    pub fn agents(&self) -> impl Iterator<Item = &dyn Agent> {
        self.agents.iter().map(|a| a.as_ref())
    }

    /// The first agent of type `A`.
    pub fn agent<A: Agent>(&self) -> Option<&A> {
        self.agents.iter().find_map(|a| (a.as_ref() as &dyn std::any::Any).downcast_ref::<A>())
    }

    pub fn agent_mut<A: Agent>(&mut self) -> Option<&mut A> {
        self.agents.iter_mut().find_map(|a| (a.as_mut() as &mut dyn std::any::Any).downcast_mut::<A>())
    }

    /// Calls `f` with the first agent of type `A` and that agent's context (tests, tools).
    pub fn with_agent<A: Agent, R>(&mut self, f: impl FnOnce(&mut A, &mut Cx) -> R) -> Option<R> {
        let (id, agent) = self
            .agents
            .iter_mut()
            .enumerate()
            .find_map(|(i, a)| (a.as_mut() as &mut dyn std::any::Any).downcast_mut::<A>().map(|a| (i, a)))?;
        Some(f(agent, &mut Cx::new(&mut self.world, id as AgentId)))
    }

    /// Runs until `end_ns` (or until nothing is left to happen).
    pub fn run(&mut self) {
        self.world.start();
        while let Some((t, ev)) = self.world.events.pop_until(self.world.end_ns) {
            self.world.now = t;
            self.dispatch(ev);
        }
        self.world.now = self.world.end_ns;
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkArrive(l) => {
                if let Some(a) = self.world.on_arrive(l, false) {
                    self.agents[a.agent as usize].on_packet(&mut Cx::new(&mut self.world, a.agent), a.node, a.pkt);
                }
            }
            Event::LinkArriveLate(l) => {
                if let Some(a) = self.world.on_arrive(l, true) {
                    self.agents[a.agent as usize].on_packet(&mut Cx::new(&mut self.world, a.agent), a.node, a.pkt);
                }
            }
            Event::Agent { id, tag } => self.agents[id as usize].on_timer(&mut Cx::new(&mut self.world, id), tag),
            ev => self.world.dispatch(ev),
        }
    }

    /// Packets currently inside the network: on links and held back by agents.
    pub fn packets_in_flight(&self) -> u64 {
        self.world.packets_on_links() + self.agents.iter().map(|a| a.held_packets()).sum::<u64>()
    }
}

//! Agents: the components of a mobility mechanism (base stations, gateways, proxies,
//! handover controllers). An agent owns nodes (every packet reaching them is handed to it),
//! sets its own timers, and returns a typed report at the end of the run. It reaches the
//! world only through the context [`Cx`] it is given: the run loop never names a mechanism,
//! and a mechanism never adds methods to the world.

use std::any::Any;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::engine::rng::Rng;
use crate::engine::time::SimTime;
use crate::net::packet::{Packet, PacketKind};
use crate::net::{AgentId, FlowId, Link, LinkId, Node, NodeClass, NodeId, NodeKind};
use crate::tcp::path::PathChange;
use crate::tcp::sender::WindowControl;

use super::flow::Flow;
use super::timer::TimerSlab;
use super::world::{Counters, Event, World};

/// A mechanism's component, driven by the packets at its nodes and by its timers.
pub trait Agent: Any {
    /// What the agent's timers are for (`()` for an agent with one kind of timer or none).
    /// A timer is scheduled with a value of this type and handed back when it fires.
    type Timer: 'static;

    /// A packet reached node `node`, which this agent owns (`Cx::own`).
    fn on_packet(&mut self, cx: &mut Cx<Self::Timer>, node: NodeId, pkt: Packet) {
        cx.receive_as_router(node, pkt);
    }

    /// A timer set with `Cx::schedule` is due; `timer` is what the agent scheduled.
    fn on_timer(&mut self, cx: &mut Cx<Self::Timer>, timer: Self::Timer) {
        let _ = (cx, timer);
    }

    /// Packets the agent holds back: inside the network for the conservation invariant.
    fn held_packets(&self) -> u64 {
        0
    }

    /// The agent's own invariants, checked at the end of every run: one line per violation.
    fn check(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the agent adds to the run summary, read at the end of the run.
    fn report(&self, world: &World) -> Report {
        let _ = world;
        Report::default()
    }
}

/// An agent as the run loop and the summary hold it, whatever its timer type: the agent and
/// its pending timers ([`Hosted`]).
pub trait DynAgent: Any {
    /// A packet reached node `node`, which the agent owns.
    fn deliver(&mut self, world: &mut World, me: AgentId, node: NodeId, pkt: Packet);
    /// The agent's timer filed at `entry` of its slab is due.
    fn fire(&mut self, world: &mut World, me: AgentId, entry: u64);
    fn held_packets(&self) -> u64;
    fn check(&self) -> Vec<String>;
    fn report(&self, world: &World) -> Report;
    /// The agent itself, to downcast to its type.
    fn agent_any(&self) -> &dyn Any;
    fn agent_any_mut(&mut self) -> &mut dyn Any;
    /// This holder, to downcast to `Hosted<A>`.
    fn hosted_any_mut(&mut self) -> &mut dyn Any;
}

/// An agent and its pending timers' values.
pub struct Hosted<A: Agent> {
    pub agent: A,
    pub timers: TimerSlab<A::Timer>,
}

impl<A: Agent> DynAgent for Hosted<A> {
    fn deliver(&mut self, world: &mut World, me: AgentId, node: NodeId, pkt: Packet) {
        self.agent.on_packet(&mut Cx::new(world, me, &mut self.timers), node, pkt);
    }

    fn fire(&mut self, world: &mut World, me: AgentId, entry: u64) {
        let timer = self.timers.take(entry);
        self.agent.on_timer(&mut Cx::new(world, me, &mut self.timers), timer);
    }

    fn held_packets(&self) -> u64 {
        self.agent.held_packets()
    }

    fn check(&self) -> Vec<String> {
        self.agent.check()
    }

    fn report(&self, world: &World) -> Report {
        self.agent.report(world)
    }

    fn agent_any(&self) -> &dyn Any {
        &self.agent
    }

    fn agent_any_mut(&mut self) -> &mut dyn Any {
        &mut self.agent
    }

    fn hosted_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// What an agent may touch while it handles a packet or a timer: the network, the flows, its
/// own timers (of its type `T`), the counters and the scenario's random stream.
pub struct Cx<'a, T = ()> {
    world: &'a mut World,
    me: AgentId,
    timers: &'a mut TimerSlab<T>,
}

impl<'a, T> Cx<'a, T> {
    pub(super) fn new(world: &'a mut World, me: AgentId, timers: &'a mut TimerSlab<T>) -> Cx<'a, T> {
        Cx { world, me, timers }
    }

    pub fn now(&self) -> SimTime {
        self.world.now
    }

    pub fn end_ns(&self) -> SimTime {
        self.world.end_ns
    }

    /// The scenario seed, to derive the agent's own random streams (`stream_rng`).
    pub fn seed(&self) -> u64 {
        self.world.seed
    }

    /// The scenario-level random stream.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.world.rng
    }

    /// Calls this agent's `on_timer(timer)` at `at`. A part of a mechanism (the RAN kit) passes
    /// its own timer type, which the agent's type nests (`From`).
    pub fn schedule(&mut self, at: SimTime, timer: impl Into<T>) {
        let entry = self.timers.file(timer.into());
        let index = self.world.agent_timers.file(self.me, entry);
        self.world.events.schedule_timer(at, Event::AgentTimer(index));
    }

    /// Every packet reaching `node` goes to this agent from now on.
    pub fn own(&mut self, node: NodeId) {
        self.world.nodes[node as usize].kind = NodeKind::Owned(self.me);
        for link in self.world.links.iter_mut().filter(|link| link.to == node) {
            link.to_class = NodeClass::Owned;
        }
    }

    pub fn nodes(&self) -> &[Node] {
        &self.world.nodes
    }

    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.world.nodes.iter().position(|n| n.name == name).map(|i| i as NodeId)
    }

    /// `routes[dst]` of node `n`: the outgoing link towards each destination. A node routed
    /// through its single link gets its full table here first.
    pub fn routes_mut(&mut self, n: NodeId) -> &mut [Option<LinkId>] {
        let w = &mut *self.world;
        if w.nodes[n as usize].routes.is_empty() && !w.nodes.is_empty() {
            let out = crate::net::out_links(&w.nodes, &w.links);
            let table = crate::net::min_hop_routes(&w.nodes, &w.links, &out, n as usize);
            w.nodes[n as usize].routes = table;
            w.nodes[n as usize].via = None;
        }
        &mut self.world.nodes[n as usize].routes
    }

    pub fn links(&self) -> &[Link] {
        &self.world.links
    }

    pub fn link_mut(&mut self, l: LinkId) -> &mut Link {
        &mut self.world.links[l as usize]
    }

    /// The packets on the links, which [`Link`]s refer to by slot.
    pub fn store(&self) -> &crate::net::PacketStore {
        &self.world.store
    }

    /// Takes every packet out of link `l`'s queue, oldest first, and counts them as withdrawn
    /// (a base station handing a departed mobile's buffer to its handover scheme).
    pub fn withdraw_queued(&mut self, l: LinkId) -> Vec<Packet> {
        self.world.end_transmissions_due(l);
        let w = &mut *self.world;
        let link = &mut w.links[l as usize];
        let pkts = link.queue.drain(w.now, &mut w.store);
        link.stats.withdrawn += pkts.len() as u64;
        if link.wakes_senders {
            let from = link.from;
            for p in &pkts {
                w.small_queue_left(from, p.kind, p.src, p.flow, p.size_bytes);
            }
        }
        pkts
    }

    pub fn link_id(&self, name: &str) -> Option<LinkId> {
        self.world.links.iter().position(|l| l.name == name).map(|i| i as LinkId)
    }

    pub fn flows(&self) -> &[Flow] {
        &self.world.flows
    }

    pub fn flows_mut(&mut self) -> &mut [Flow] {
        &mut self.world.flows
    }

    pub fn counters_mut(&mut self) -> &mut Counters {
        &mut self.world.counters
    }

    /// Sends a packet from node `n` along its route (counted as unroutable if there is none).
    pub fn forward(&mut self, n: NodeId, pkt: Packet) {
        self.world.forward(n, pkt);
    }

    /// Offers a packet to link `l`'s queue.
    pub fn enqueue(&mut self, l: LinkId, pkt: Packet) {
        self.world.link_enqueue(l, pkt);
    }

    /// What a plain router does at `n`: consume the packet if addressed here, else forward it.
    pub fn receive_as_router(&mut self, n: NodeId, pkt: Packet) {
        self.world.receive(n, pkt);
    }

    /// A new header-only packet the agent creates (counted as created).
    pub fn new_packet(&mut self, flow: FlowId, src: NodeId, dst: NodeId, kind: PacketKind) -> Packet {
        let uid = self.world.next_uid;
        self.world.next_uid += 1;
        self.world.counters.created += 1;
        Packet::new(uid, flow, src, dst, kind, 0, self.world.now)
    }

    /// Sets how flow `f`'s sender limits its window and sends what the new limit allows.
    pub fn set_window_control(&mut self, f: FlowId, wc: WindowControl) {
        let w = &mut *self.world;
        w.flows[f as usize].sender.set_window_control(w.now, wc, &mut w.seg_buf);
        w.flush_segments(f);
    }

    /// Flow `f`'s receiver advertises `rwnd_bytes` from now on and sends `copies` ACKs carrying
    /// it at once (e.g. Freeze-TCP's zero window advertisement, and its three ACKs reopening
    /// the window).
    pub fn advertise_window(&mut self, f: FlowId, rwnd_bytes: u64, copies: u32) {
        self.world.advertise_window(f, rwnd_bytes, copies);
    }

    /// Host `node` is attached (`attached`), or no longer, to the access network its link `link`
    /// leads into: a break-before-make handoff leaves one network before it joins the next.
    /// The simulation does not act on it (the mechanism drops what the host can no longer
    /// receive); it is kept in `World::attachments`, where an emulation with a real interface
    /// per link (`hosim emulate --multipath`) reads it and brings that interface down or up.
    pub fn set_attached(&mut self, node: NodeId, link: LinkId, attached: bool) {
        let at_ns = self.world.now;
        self.world.attachments.push(super::Attachment { at_ns, node, link, attached });
    }

    /// Cross-layer notification: flow `f`'s packets now take another path. The sender's
    /// controller, recovery and path reaction answer it (`TcpSender::on_path_change`), then it
    /// sends what its window allows.
    pub fn notify_path_change(&mut self, f: FlowId, change: &PathChange) {
        let w = &mut *self.world;
        w.flows[f as usize].sender.on_path_change(w.now, change, &mut w.seg_buf);
        w.flush_segments(f);
    }
}

/// What an agent adds to the summary: `handovers` entries, fields of flow entries, and
/// top-level fields. The summary merges the reports of all agents in the order they were added.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub handovers: Vec<HandoverRecord>,
    /// (flow, fields appended to that flow's summary entry).
    pub flow_fields: Vec<(FlowId, Map<String, Value>)>,
    /// Top-level summary fields.
    pub fields: Map<String, Value>,
}

impl Report {
    /// Adds top-level field `key`.
    pub fn add_field(&mut self, key: &str, value: &impl Serialize) {
        self.fields.insert(key.to_string(), to_value(value));
    }

    /// Adds every field of `fields` (a struct) at the top level.
    pub fn add_fields(&mut self, fields: &impl Serialize) {
        self.fields.extend(to_map(fields));
    }

    /// Appends the fields of `fields` (a struct) to flow `f`'s summary entry.
    pub fn add_flow_fields(&mut self, f: FlowId, fields: &impl Serialize) {
        self.flow_fields.push((f, to_map(fields)));
    }
}

/// One handover in the summary's `handovers` list: the fields every mechanism reports, then
/// the mechanism's own (`detail`, a serialized struct).
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverRecord {
    pub ue: String,
    pub start_s: f64,
    pub end_s: Option<f64>,
    pub scheme: String,
    pub detail: Map<String, Value>,
}

impl HandoverRecord {
    pub fn new(ue: String, start_s: f64, end_s: Option<f64>, scheme: String, detail: &impl Serialize) -> Self {
        HandoverRecord { ue, start_s, end_s, scheme, detail: to_map(detail) }
    }
}

fn to_value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).expect("report values serialize to JSON")
}

fn to_map(v: &impl Serialize) -> Map<String, Value> {
    match to_value(v) {
        Value::Object(m) => m,
        other => panic!("a report struct serializes to a JSON object, got {other}"),
    }
}

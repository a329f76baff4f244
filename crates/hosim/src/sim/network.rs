//! The network side of the world: link queues, transmitters and propagation, static
//! forwarding, and the rate changes of variable-rate links. Every link point calls the
//! observer hook (`crate::observe`), which costs one branch when nobody listens.

use crate::engine::time::{tx_time_ns, SimTime};
use crate::net::packet::{Packet, PacketKind};
use crate::net::{AgentId, FlowId, LinkId, Node, NodeClass, NodeId, NodeKind};
use crate::net::{Verdict, NO_TAG};
use crate::observe::{LinkPoint, TraceKind};

use super::world::{Event, World};

/// A packet that reached a node an agent owns.
pub(super) struct Arrival {
    pub agent: AgentId,
    pub node: NodeId,
    pub pkt: Packet,
}

/// What a packet entering the pipeline of a link to node `to` (of class `to_class`) does
/// there, when routes and node kinds cannot change during the run ([`World::static_routes`]):
/// at a router that passes it on, the link it leaves by; at the host it is addressed to, its
/// flow. Else, or if the router has no route, [`NO_TAG`], and the arrival looks. Kept with
/// the packet's place in the pipeline, and with the pipeline's head on the link's own line
/// (`TaggedFifo`), it is at hand when the packet arrives: the route entry or the packet itself
/// would be one more cold load on the path each hop waits on, before the next link or the
/// flow's state could be fetched (bench/decisions.md).
#[inline(always)]
pub(super) fn arrival_tag(static_routes: bool, nodes: &[Node], to: NodeId, to_class: NodeClass, pkt: &Packet) -> u32 {
    if !static_routes {
        return NO_TAG;
    }
    match to_class {
        NodeClass::Router if pkt.dst != to => nodes[to as usize].route(pkt.dst).unwrap_or(NO_TAG),
        NodeClass::Host if pkt.dst == to => pkt.flow,
        _ => NO_TAG,
    }
}

impl World {
    /// Offers a packet to a link's queue and starts the transmitter if it is idle.
    pub fn link_enqueue(&mut self, l: LinkId, pkt: Packet) {
        let slot = self.store.put(pkt);
        self.link_enqueue_slot(l, slot);
    }

    /// Offers the packet in `slot` of the store to a link's queue and starts the transmitter
    /// if it is idle. A dropped packet's slot is freed.
    #[inline(always)]
    fn link_enqueue_slot(&mut self, l: LinkId, slot: u32) {
        if let Some(port) = self.links[l as usize].wifi {
            if self.links[l as usize].wakes_senders {
                // An 802.11 station's queue is not modelled by TCP Small Queues: the segment
                // counts as gone once handed to the station.
                self.small_queue_left_slot(l, slot);
            }
            return self.wifi_enqueue_slot(l, slot, port);
        }
        let now = self.now;
        self.end_transmissions_due(l);
        let link = &mut self.links[l as usize];
        link.stats.offered += 1;
        if link.in_service.is_none() && !self.obs.wants(LinkPoint::Enqueue) {
            // An idle transmitter takes the packet at once: it passes the queue without
            // touching the queue's buffer (`Queue::pass_through`), unless RED must see it.
            let size = self.store.get(slot).size_bytes;
            if link.queue.pass_through(size) {
                self.transmit(l, slot, now);
                return;
            }
        }
        let verdict = link.queue.enqueue_slot(now, slot, &mut link.rng, &mut self.store);
        match verdict {
            Verdict::DroppedFull | Verdict::DroppedEarly => {
                self.counters.dropped_queue += 1;
                if self.obs.wants(LinkPoint::Drop) {
                    self.obs.link(LinkPoint::Drop, now, l, link, self.store.get(slot));
                }
                if link.wakes_senders {
                    self.small_queue_left_slot(l, slot);
                }
                self.store.release(slot);
                return;
            }
            Verdict::Queued | Verdict::Marked => {}
        }
        if self.obs.wants(LinkPoint::Enqueue) {
            let link = &*link;
            let queued = link.queue.back(&self.store).expect("just enqueued");
            self.obs.link(LinkPoint::Enqueue, now, l, link, queued);
        }
        if link.in_service.is_none() {
            self.start_tx(l, now);
        }
    }

    /// Starts transmitting the packet at the head of link `l`'s queue at time `at` (now, or,
    /// with computed departures, the end of the previous transmission).
    fn start_tx(&mut self, l: LinkId, at: SimTime) {
        let link = &mut self.links[l as usize];
        // The packet stays in its slot of the world's store; only the slot moves on.
        // An empty FIFO: the queue is empty, or its discipline keeps its own packets.
        let Some(slot) = link.queue.dequeue_slot(at, &self.store) else { return self.start_tx_other(l, at) };
        self.transmit(l, slot, at);
    }

    /// [`World::start_tx`] under a discipline of its own ([`Queue::dequeue_other`]), which
    /// may drop packets at dequeue: each is counted as a queue drop and shown to the
    /// observers, as a drop at enqueue is, and its slot freed. Nothing under DropTail and RED.
    ///
    /// [`Queue::dequeue_other`]: crate::net::Queue::dequeue_other
    #[cold]
    #[inline(never)]
    fn start_tx_other(&mut self, l: LinkId, at: SimTime) {
        let link = &mut self.links[l as usize];
        if !link.queue.is_other() {
            return;
        }
        let mut dropped = Vec::new();
        let slot = link.queue.dequeue_other(at, &mut self.store, &mut link.rng, &mut dropped);
        for s in dropped {
            self.counters.dropped_queue += 1;
            if self.obs.wants(LinkPoint::Drop) {
                self.obs.link(LinkPoint::Drop, at, l, &self.links[l as usize], self.store.get(s));
            }
            if self.links[l as usize].wakes_senders {
                self.small_queue_left_slot(l, s);
            }
            self.store.release(s);
        }
        if let Some(slot) = slot {
            self.transmit(l, slot, at);
        }
    }

    /// Starts transmitting the packet in `slot`, just taken from link `l`'s queue, at `at`.
    #[inline(always)]
    fn transmit(&mut self, l: LinkId, slot: u32, at: SimTime) {
        let link = &mut self.links[l as usize];
        let size = self.store.get(slot).size_bytes;
        let done = match link.var.as_mut() {
            None => Some(at + tx_time_ns(size, link.rate_bps)),
            // Variable rate: the completion moves with every rate change (`on_link_rate`).
            Some(v) => v.start_packet(at, size),
        };
        link.in_service = Some(slot);
        if self.obs.wants(LinkPoint::Transmit) {
            let link = &*link;
            self.obs.link(LinkPoint::Transmit, at, l, link, self.store.get(slot));
        }
        let Some(done) = done else { return };
        // Scheduled before the arrival, so that on a link without delay the transmission ends
        // first; none where departures are computed, unless the end wakes a sender. One test
        // of `departs_at_start` for both decisions.
        if !link.departs_at_start {
            self.events.schedule(done, Event::LinkTxDone(l));
            return;
        }
        if !self.computed_departures || link.wakes_senders {
            self.events.schedule(done, Event::LinkTxDone(l));
        }
        // The arrival is known now: into the pipeline at once.
        link.tx_done_ns = done;
        let arrive = done + link.delay_ns;
        let tag = arrival_tag(self.static_routes, &self.nodes, link.to, link.to_class, self.store.get(slot));
        link.pipeline.push_back(&mut self.store, arrive, slot, tag);
        // One pending arrival event per pipeline: the head's. The next is scheduled when the
        // head arrives, which keeps the pending link events as few as the links.
        if link.pipeline.len() == 1 {
            debug_assert!(arrive >= self.now, "a computed departure schedules no arrival in the past");
            self.events.schedule(arrive, Event::LinkArrive(l));
        }
    }

    /// Under `departure_first` ([`World::departure_first`]), ends every transmission of link
    /// `l` due at or before now, and starts the next ones at their ends, before anything
    /// looks at the link: a packet offered at the very instant a transmission ends finds that
    /// transmission over, whichever of the two events was scheduled first. With the
    /// transmit-done events of the event path, this ends at most the one due now (its event,
    /// still pending, then finds nothing to do); with computed departures, every transmission
    /// ended since the link was last looked at, in order.
    #[inline(always)]
    pub(crate) fn end_transmissions_due(&mut self, l: LinkId) {
        if !self.departure_first {
            return;
        }
        loop {
            let link = &self.links[l as usize];
            debug_assert_eq!(
                link.tx_done_ns != SimTime::MAX,
                link.departs_at_start && link.in_service.is_some(),
                "a transmission end is set exactly while one is under way on a link of computed departures"
            );
            // MAX unless a packet is in service on a link whose packets depart at its start.
            if link.tx_done_ns > self.now {
                return;
            }
            self.end_transmission(l, link.tx_done_ns);
        }
    }

    /// Ends every transmission due by now on every link (the end of a run: with computed
    /// departures, a link not looked at since its last transmission ended still shows that
    /// packet in service).
    pub(super) fn settle_links(&mut self) {
        for l in 0..self.links.len() {
            self.end_transmissions_due(l as LinkId);
        }
    }

    #[inline]
    pub(super) fn on_tx_done(&mut self, l: LinkId) {
        let link = &self.links[l as usize];
        if !link.departs_at_start {
            self.on_tx_done_slow(l);
        } else if link.tx_done_ns == self.now {
            // Otherwise ended already (`end_transmissions_due`): nothing in service, or what
            // is in service started at this instant.
            self.end_transmission(l, self.now);
        }
    }

    /// The end, at `at`, of a transmission on a link whose packets depart at its start: the
    /// packet is in the pipeline already; count it and start the next. Forced inline: at
    /// `#[inline]` the TCP Small Queues call left it out of line (+8.4 M instructions on the
    /// 8-flow callgrind row, bench/decisions.md).
    #[inline(always)]
    fn end_transmission(&mut self, l: LinkId, at: SimTime) {
        let link = &mut self.links[l as usize];
        let slot = link.in_service.take().expect("a packet is in service when its transmission ends");
        link.tx_done_ns = SimTime::MAX;
        let size = self.store.get(slot).size_bytes;
        link.stats.transmitted += 1;
        link.stats.tx_bytes += size as u64;
        // Read before the small-queue hook, which touches no link: one look-up of the link.
        let next = link.queue.may_dequeue();
        if link.wakes_senders {
            self.small_queue_left_slot(l, slot);
        }
        if next {
            self.start_tx(l, at);
        }
    }

    /// The end of a transmission on a link that decides at that point: loss, a variable
    /// rate's completion, impairments.
    fn on_tx_done_slow(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        if let Some(v) = link.var.as_mut() {
            if v.tx_done_at != Some(now) {
                return; // superseded by a rate change
            }
            v.finish_packet();
        }
        let slot = link.in_service.expect("a packet is in service when its transmission ends");
        let size = self.store.get(slot).size_bytes;
        link.stats.transmitted += 1;
        link.stats.tx_bytes += size as u64;
        if link.wakes_senders {
            self.small_queue_left_slot(l, slot);
        }
        let link = &mut self.links[l as usize];
        if link.loss.lose(&mut link.rng) {
            link.stats.lost += 1;
            self.counters.dropped_loss += 1;
            if self.obs.wants(LinkPoint::Lost) {
                let link = &*link;
                self.obs.link(LinkPoint::Lost, now, l, link, self.store.get(slot));
            }
            self.links[l as usize].in_service = None;
            self.store.take(slot);
        } else if link.impair.is_none() {
            let at = now + link.delay_ns;
            link.in_service = None;
            let tag = arrival_tag(self.static_routes, &self.nodes, link.to, link.to_class, self.store.get(slot));
            link.pipeline.push_back(&mut self.store, at, slot, tag);
            // One pending arrival event per pipeline: the head's. The next is scheduled when
            // the head arrives, which keeps the pending link events as few as the links.
            if link.pipeline.len() == 1 {
                self.events.schedule(at, Event::LinkArrive(l));
            }
        } else {
            link.in_service = None;
            let pkt = self.store.take(slot);
            self.propagate_impaired(l, pkt);
        }
        if self.links[l as usize].queue.may_dequeue() {
            self.start_tx(l, now);
        }
    }

    /// Slow path for links with duplication or reordering (robustness tests only).
    fn propagate_impaired(&mut self, l: LinkId, pkt: Packet) {
        use rand::Rng as _;
        let now = self.now;
        let link = &mut self.links[l as usize];
        let imp = *link.impair.as_deref().expect("only impaired links take this path");
        let copies = if link.rng.gen::<f64>() < imp.duplicate { 2 } else { 1 };
        for c in 0..copies {
            let mut p = pkt;
            if c == 1 {
                p.uid = self.next_uid;
                self.next_uid += 1;
                self.counters.created += 1;
                link.stats.duplicated += 1;
            }
            if link.rng.gen::<f64>() < imp.reorder {
                let at = now + link.delay_ns + imp.reorder_delay_ns;
                link.late_pipeline.push_back((at, p));
                if link.late_pipeline.len() == 1 {
                    self.events.schedule(at, Event::LinkArriveLate(l));
                }
            } else {
                let at = now + link.delay_ns;
                let tag = arrival_tag(self.static_routes, &self.nodes, link.to, link.to_class, &p);
                let slot = self.store.put(p);
                link.pipeline.push_back(&mut self.store, at, slot, tag);
                if link.pipeline.len() == 1 {
                    self.events.schedule(at, Event::LinkArrive(l));
                }
            }
        }
    }

    /// The head of a link's pipeline reaches the far node. A host or router handles it here;
    /// a packet for a node an agent owns is returned for the simulation to hand on.
    #[inline(always)]
    pub(super) fn on_arrive(&mut self, l: LinkId, late: bool) -> Option<Arrival> {
        // Transmissions that ended by now are in the pipeline, behind the arriving packet.
        self.end_transmissions_due(l);
        let link = &mut self.links[l as usize];
        if self.obs.wants(LinkPoint::Receive) {
            let link = &*link;
            let arriving = if late {
                &link.late_pipeline.front().expect("an arrival event has a packet in the pipeline").1
            } else {
                link.propagating(&self.store).next().expect("an arrival event has a packet in the pipeline")
            };
            self.obs.link(LinkPoint::Receive, self.now, l, link, arriving);
        }
        let pkt = if late {
            let (at, pkt) = link.late_pipeline.pop_front().expect("an arrival event has a packet in the pipeline");
            debug_assert_eq!(at, self.now);
            if let Some(&(next, _)) = link.late_pipeline.front() {
                self.events.schedule(next, Event::LinkArriveLate(l));
            }
            link.stats.delivered += 1;
            pkt
        } else {
            let (at, slot, tag) =
                link.pipeline.pop_front(&self.store).expect("an arrival event has a packet in the pipeline");
            debug_assert_eq!(at, self.now);
            if let Some((next, _)) = link.pipeline.front(&self.store) {
                self.events.schedule(next, Event::LinkArrive(l));
            }
            link.stats.delivered += 1;
            if tag != NO_TAG {
                // What the packet does here, found when it entered the pipeline.
                if link.to_class == NodeClass::Router {
                    debug_assert_eq!(Some(tag), self.nodes[link.to as usize].route(self.store.get(slot).dst));
                    self.link_enqueue_slot(tag, slot);
                } else {
                    let pkt = self.store.take(slot);
                    debug_assert_eq!((link.to_class, pkt.dst, pkt.flow), (NodeClass::Host, link.to, tag));
                    self.deliver_local(tag, pkt);
                }
                return None;
            }
            let node = link.to;
            debug_assert_eq!(
                link.to_class,
                self.nodes[node as usize].kind.class(),
                "the link's copy of its node's kind"
            );
            if link.to_class == NodeClass::Router && self.store.get(slot).dst != node {
                // A router passes the packet on in its slot: no copy out of the store and back.
                self.forward_slot(node, slot);
                return None;
            }
            self.store.take(slot)
        };
        let link = &self.links[l as usize];
        let node = link.to;
        match link.to_class {
            NodeClass::Host | NodeClass::Router => {
                self.receive(node, pkt);
                None
            }
            NodeClass::Owned => {
                let NodeKind::Owned(agent) = self.nodes[node as usize].kind else {
                    unreachable!("a link to an owned node names a node an agent owns")
                };
                Some(Arrival { agent, node, pkt })
            }
        }
    }

    /// A packet reaches a host or router: consume it if addressed here, else forward it.
    #[inline]
    pub(crate) fn receive(&mut self, n: NodeId, pkt: Packet) {
        if pkt.dst == n {
            if let Some(tap) = self.tap.as_deref_mut() {
                if tap.takes(n) {
                    self.counters.consumed += 1;
                    tap.push(n, pkt, self.now);
                    return;
                }
            }
            self.deliver_local(pkt.flow, pkt);
            return;
        }
        self.forward(n, pkt);
    }

    /// Node `n` sends `pkt` on along its route (dropped, and counted, if there is none).
    pub(crate) fn forward(&mut self, n: NodeId, pkt: Packet) {
        let slot = self.store.put(pkt);
        self.forward_slot(n, slot);
    }

    /// [`World::forward`] for the packet in `slot` of the store, which it keeps if routed.
    #[inline(always)]
    fn forward_slot(&mut self, n: NodeId, slot: u32) {
        match self.nodes[n as usize].route(self.store.get(slot).dst) {
            Some(l) => self.link_enqueue_slot(l, slot),
            None => {
                let p = self.store.get(slot);
                if p.src == n {
                    let (kind, flow, size) = (p.kind, p.flow, p.size_bytes);
                    self.small_queue_left(n, kind, n, flow, size);
                }
                self.store.release(slot);
                self.counters.dropped_unroutable += 1;
            }
        }
    }

    /// [`World::small_queue_left`] for the packet in `slot`, leaving link `l`. Out of the
    /// fall-through path of every transmission end: only links of `small_queues` senders.
    #[cold]
    #[inline(never)]
    pub(super) fn small_queue_left_slot(&mut self, l: LinkId, slot: u32) {
        let p = self.store.get(slot);
        let (kind, src, flow, size) = (p.kind, p.src, p.flow, p.size_bytes);
        self.small_queue_left(self.links[l as usize].from, kind, src, flow, size);
    }

    /// Linux TCP Small Queues (`tcp_wfree`): a packet of `size` bytes of flow `flow` is no
    /// longer on the link leaving node `from` (sent, dropped or withdrawn). If it is a data
    /// segment its host sent, its sender's charge drops, and a sender held back is woken at
    /// once (`Event::SmallQueueWake`).
    pub(super) fn small_queue_left(&mut self, from: NodeId, kind: PacketKind, src: NodeId, flow: FlowId, size: u32) {
        if kind != PacketKind::Data || src != from {
            return;
        }
        let Some(f) = self.flows.get_mut(flow as usize) else { return };
        if f.sender.small_queue_release(size as u64) {
            self.events.schedule_timer(self.now, Event::SmallQueueWake(flow));
        }
    }

    /// Whether packets from `src` reach `dst` along the static routes (through no other host).
    pub fn reaches(&self, src: NodeId, dst: NodeId) -> bool {
        let mut at = src;
        for _ in 0..=self.nodes.len() {
            let Some(l) = self.nodes[at as usize].route(dst) else { return false };
            at = self.links[l as usize].to;
            if at == dst {
                return true;
            }
            if self.nodes[at as usize].kind == NodeKind::Host {
                return false;
            }
        }
        false
    }

    /// Schedules the first rate change of every variable-rate link and records its first rate.
    pub(super) fn start_rate_schedules(&mut self) {
        for l in 0..self.links.len() {
            if let Some(v) = self.links[l].var.as_ref() {
                let (end, rate) = (v.segment_end_ns, v.rate_bps);
                self.links[l].rate_bps = rate;
                self.obs.traces.record(TraceKind::Rate, 0, l as LinkId, rate as f64);
                self.events.schedule_timer(end, Event::LinkRate(l as LinkId));
            }
        }
    }

    /// A variable-rate link moves to its next rate (`Link::next_rate`).
    pub(super) fn on_link_rate(&mut self, l: LinkId) {
        let now = self.now;
        let step = self.links[l as usize].next_rate(now);
        if step.changed {
            self.obs.traces.record(TraceKind::Rate, now, l, self.links[l as usize].rate_bps as f64);
        }
        if let Some(done) = step.tx_done {
            self.events.schedule(done, Event::LinkTxDone(l));
        }
        if step.segment_end_ns <= self.end_ns {
            self.events.schedule_timer(step.segment_end_ns, Event::LinkRate(l));
        }
    }

    /// Packets inside the links: queued, in service, propagating.
    pub fn packets_on_links(&self) -> u64 {
        self.links.iter().map(|l| l.in_flight()).sum()
    }
}

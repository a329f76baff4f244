//! The world: arenas of nodes, links and flows, the event loop, and the glue between the
//! network and the TCP endpoints. Components refer to each other by typed indices only.

use std::collections::BTreeMap;

use crate::app::App;
use crate::engine::rng::Rng;
use crate::engine::time::{ns_to_s, tx_time_ns, SimTime};
use crate::engine::EventQueue;
use crate::metrics::{TraceKind, Traces};
use crate::net::packet::{payload_tag, Ecn, Packet, PacketKind};
use crate::net::queue::Verdict;
use crate::net::{FlowId, Link, LinkId, Node, NodeId, NodeKind};
use crate::tcp::receiver::AckOut;
use crate::tcp::{Segment, TcpReceiver, TcpSender};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet in service on the link has been serialized.
    LinkTxDone(LinkId),
    /// The oldest packet propagating on the link reaches the far end.
    LinkArrive(LinkId),
    /// The oldest packet on the link's reordering path reaches the far end.
    LinkArriveLate(LinkId),
    FlowStart(FlowId),
    RtoTimer(FlowId),
    DelAckTimer(FlowId),
    AppTick(FlowId),
    /// Events of the cellular and mobility mechanisms (see `crate::cell`).
    Cell(crate::cell::CellEvent),
}

/// Segments a scenario asks to drop at the sender, by segment index (seq / MSS).
#[derive(Clone, Debug, Default)]
pub struct DropRules {
    /// Drop the first transmission of these segments.
    pub first_tx: Vec<u64>,
    /// Drop the first retransmission of these segments (index, already used).
    pub retx: Vec<(u64, bool)>,
}

impl DropRules {
    fn should_drop(&mut self, seg_index: u64, is_retx: bool) -> bool {
        if !is_retx {
            return self.first_tx.contains(&seg_index);
        }
        match self.retx.iter_mut().find(|(i, used)| *i == seg_index && !*used) {
            Some(rule) => {
                rule.1 = true;
                true
            }
            None => false,
        }
    }

    fn is_empty(&self) -> bool {
        self.first_tx.is_empty() && self.retx.is_empty()
    }
}

pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub app: App,
    pub start_ns: SimTime,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub drops: DropRules,
    /// Bytes written by a rate-limited application so far.
    pub app_written: u64,
    rto_event_at: Option<SimTime>,
    delack_event_at: Option<SimTime>,
    /// Unresolved timeouts: retransmitted seq -> times of the timeouts. A timeout is spurious
    /// if any copy of that segment sent before it reaches the receiver.
    timeouts: BTreeMap<u64, Vec<SimTime>>,
    pub spurious_timeouts: u64,
    pub delivered_bytes: u64,
    pub completion_ns: Option<SimTime>,
    pub tag_errors: u64,
    /// Mechanism-specific per-flow fields, merged into the flow's summary entry.
    pub extra: serde_json::Map<String, serde_json::Value>,
    pub scripted_drops: u64,
    /// Bytes delivered per trace interval (goodput trace).
    pub goodput_bins: Vec<u64>,
    /// Split connection: bytes this flow delivers in order are handed to that flow's sender
    /// as application data (`crate::cell::proxy`).
    pub relay_to: Option<FlowId>,
    last_traced: [u64; 4],
}

impl Flow {
    pub fn new(
        name: String,
        src: NodeId,
        dst: NodeId,
        app: App,
        start_ns: SimTime,
        cfg: crate::tcp::TcpConfig,
        drops: DropRules,
    ) -> Flow {
        let receiver = TcpReceiver::new(&cfg);
        let sender = TcpSender::new(cfg, app.initial_bytes());
        Flow {
            name,
            src,
            dst,
            app,
            start_ns,
            sender,
            receiver,
            drops,
            app_written: 0,
            rto_event_at: None,
            delack_event_at: None,
            timeouts: BTreeMap::new(),
            spurious_timeouts: 0,
            delivered_bytes: 0,
            completion_ns: None,
            tag_errors: 0,
            extra: serde_json::Map::new(),
            scripted_drops: 0,
            goodput_bins: Vec::new(),
            relay_to: None,
            last_traced: [u64::MAX; 4],
        }
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
    pub flows: Vec<Flow>,
    pub counters: Counters,
    pub traces: Traces,
    pub trace_interval_ns: SimTime,
    /// One entry per handover, mechanism-specific fields included (summary `handovers`).
    pub handovers: Vec<serde_json::Value>,
    /// Mechanism-specific top-level summary fields (e.g. `radio_utilization`).
    pub report: serde_json::Map<String, serde_json::Value>,
    /// The drop/forward/rearrange handover mechanism of the `fcp` topology.
    pub fcp: Option<Box<crate::cell::fcp::FcpHandover>>,
    /// The LTE X2 handover system (`crate::cell::lte`), when the scenario has one.
    pub lte: Option<Box<crate::cell::lte::LteX2>>,
    /// Window adaptation proxies (`crate::cell::proxy`).
    pub proxies: Vec<crate::cell::proxy::Proxy>,
    /// The scenario seed, for components added after the build (`stream_rng`).
    pub seed: u64,
    pub(crate) next_uid: u64,
    /// Reused output buffer for sender calls: no allocation per event.
    pub(crate) seg_buf: Vec<Segment>,
    /// The scenario-level random stream (for mechanisms that are not one component).
    pub rng: Rng,
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
            traces: Traces::default(),
            trace_interval_ns: trace_interval_ns.max(1),
            handovers: Vec::new(),
            report: serde_json::Map::new(),
            fcp: None,
            lte: None,
            proxies: Vec::new(),
            seed: 0,
            next_uid: 0,
            seg_buf: Vec::with_capacity(64),
            rng,
        }
    }

    /// Runs until `end_ns` (or until nothing is left to happen).
    pub fn run(&mut self) {
        for f in 0..self.flows.len() {
            let start = self.flows[f].start_ns;
            self.events.schedule(start, Event::FlowStart(f as FlowId));
        }
        let bins = (self.end_ns / self.trace_interval_ns + 1) as usize;
        for f in self.flows.iter_mut() {
            f.goodput_bins = vec![0; bins];
        }
        self.start_rate_schedules();
        while let Some((t, ev)) = self.events.pop_until(self.end_ns) {
            self.now = t;
            self.dispatch(ev);
        }
        self.now = self.end_ns;
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkTxDone(l) => self.on_tx_done(l),
            Event::LinkArrive(l) => self.on_arrive(l, false),
            Event::LinkArriveLate(l) => self.on_arrive(l, true),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::RtoTimer(f) => self.on_rto_timer(f),
            Event::DelAckTimer(f) => self.on_delack_timer(f),
            Event::AppTick(f) => self.on_app_tick(f),
            Event::Cell(e) => self.on_cell_event(e),
        }
    }

    // ---- links -----------------------------------------------------------------------

    /// Offers a packet to a link's queue and starts the transmitter if it is idle.
    pub fn link_enqueue(&mut self, l: LinkId, pkt: Packet) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        link.stats.offered += 1;
        let verdict = link.queue.enqueue(now, pkt, &mut link.rng);
        match verdict {
            Verdict::DroppedFull | Verdict::DroppedEarly => {
                self.counters.dropped_queue += 1;
                return;
            }
            Verdict::Queued | Verdict::Marked => {}
        }
        if link.traced {
            self.traces.record(TraceKind::Queue, now, l, link.queue.len_pkts() as f64);
        }
        if self.links[l as usize].in_service.is_none() {
            self.start_tx(l);
        }
    }

    fn start_tx(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        let Some(pkt) = link.queue.dequeue(now) else { return };
        let done = match link.var.as_mut() {
            None => Some(now + tx_time_ns(pkt.size_bytes, link.rate_bps)),
            // Variable rate: the completion moves with every rate change (`crate::cell::radio`).
            Some(v) => v.start_packet(now, pkt.size_bytes),
        };
        link.in_service = Some(pkt);
        if link.traced {
            self.traces.record(TraceKind::Queue, now, l, link.queue.len_pkts() as f64);
        }
        if let Some(done) = done {
            self.events.schedule(done, Event::LinkTxDone(l));
        }
    }

    fn on_tx_done(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        if let Some(v) = link.var.as_mut() {
            if v.tx_done_at != Some(now) {
                return; // superseded by a rate change
            }
            v.finish_packet();
        }
        let pkt = link.in_service.take().expect("a packet is in service when its transmission ends");
        link.stats.transmitted += 1;
        link.stats.tx_bytes += pkt.size_bytes as u64;
        if link.loss.lose(&mut link.rng) {
            link.stats.lost += 1;
            self.counters.dropped_loss += 1;
        } else if link.impair.is_none() {
            let at = now + link.delay_ns;
            link.pipeline.push_back((at, pkt));
            // One pending arrival event per pipeline: the head's. The next is scheduled when
            // the head arrives, which keeps the event heap as small as the number of links.
            if link.pipeline.len() == 1 {
                self.events.schedule(at, Event::LinkArrive(l));
            }
        } else {
            self.propagate_impaired(l, pkt);
        }
        if !self.links[l as usize].queue.is_empty() {
            self.start_tx(l);
        }
    }

    /// Slow path for links with duplication or reordering (robustness tests only).
    fn propagate_impaired(&mut self, l: LinkId, pkt: Packet) {
        use rand::Rng as _;
        let now = self.now;
        let link = &mut self.links[l as usize];
        let imp = link.impair.expect("only impaired links take this path");
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
                link.pipeline.push_back((at, p));
                if link.pipeline.len() == 1 {
                    self.events.schedule(at, Event::LinkArrive(l));
                }
            }
        }
    }

    fn on_arrive(&mut self, l: LinkId, late: bool) {
        let link = &mut self.links[l as usize];
        let pipe = if late { &mut link.late_pipeline } else { &mut link.pipeline };
        let (at, pkt) = pipe.pop_front().expect("an arrival event has a packet in the pipeline");
        debug_assert_eq!(at, self.now);
        if let Some(&(next, _)) = pipe.front() {
            let ev = if late { Event::LinkArriveLate(l) } else { Event::LinkArrive(l) };
            self.events.schedule(next, ev);
        }
        link.stats.delivered += 1;
        let node = link.to;
        self.node_receive(node, pkt);
    }

    /// A packet reaches a node: consume it if addressed here, else forward it.
    pub(crate) fn node_receive(&mut self, n: NodeId, pkt: Packet) {
        match self.nodes[n as usize].kind {
            NodeKind::Lte(role) => return self.lte_receive(n, role, pkt),
            NodeKind::FcpBaseStation if pkt.dst != n => return self.fcp_bs_receive(n, pkt),
            _ => {}
        }
        if pkt.dst == n {
            self.deliver_local(pkt);
            return;
        }
        self.forward(n, pkt);
    }

    pub(crate) fn forward(&mut self, n: NodeId, pkt: Packet) {
        match self.nodes[n as usize].routes[pkt.dst as usize] {
            Some(l) => self.link_enqueue(l, pkt),
            None => self.counters.dropped_unroutable += 1,
        }
    }

    // ---- endpoints -------------------------------------------------------------------

    fn new_packet(&mut self, f: FlowId, kind: PacketKind, towards_receiver: bool) -> Packet {
        let flow = &self.flows[f as usize];
        let (src, dst) = if towards_receiver { (flow.src, flow.dst) } else { (flow.dst, flow.src) };
        let uid = self.next_uid;
        self.next_uid += 1;
        self.counters.created += 1;
        Packet::new(uid, f, src, dst, kind, flow.sender.cfg.header_bytes, self.now)
    }

    /// Turns the sender's output into packets and sends them from the flow's source host.
    pub(crate) fn flush_segments(&mut self, f: FlowId) {
        let mut segs = std::mem::take(&mut self.seg_buf);
        for seg in segs.drain(..) {
            let mut pkt = self.new_packet(f, seg.kind, true);
            pkt.seq = seg.seq;
            pkt.len = seg.len;
            pkt.size_bytes += seg.len;
            pkt.is_retx = seg.is_retx;
            pkt.cwr = seg.cwr;
            pkt.ecn = if seg.ect { Ecn::Ect } else { Ecn::NotEct };
            pkt.tag = payload_tag(f, seg.seq, seg.len);
            let flow = &mut self.flows[f as usize];
            if seg.kind == PacketKind::Data && !flow.drops.is_empty() {
                let mss = flow.sender.cfg.mss_bytes as u64;
                if seg.seq % mss == 0 && flow.drops.should_drop(seg.seq / mss, seg.is_retx) {
                    flow.scripted_drops += 1;
                    self.counters.dropped_scripted += 1;
                    continue;
                }
            }
            let src = pkt.src;
            self.forward(src, pkt);
        }
        self.seg_buf = segs;
        self.sync_sender_timer(f);
        self.trace_sender(f);
    }

    fn send_ack(&mut self, f: FlowId, kind: PacketKind, ack: AckOut) {
        let mut pkt = self.new_packet(f, kind, false);
        pkt.ack = ack.ack;
        pkt.sack = ack.sack;
        pkt.size_bytes += ack.sack.option_bytes();
        pkt.ece = ack.ece;
        pkt.rwnd_bytes = ack.rwnd;
        let src = pkt.src;
        self.forward(src, pkt);
    }

    fn deliver_local(&mut self, pkt: Packet) {
        self.counters.consumed += 1;
        let f = pkt.flow;
        match pkt.kind {
            PacketKind::Syn => {
                let ack = self.flows[f as usize].receiver.syn_ack();
                self.send_ack(f, PacketKind::SynAck, ack);
            }
            PacketKind::SynAck => {
                let now = self.now;
                let flow = &mut self.flows[f as usize];
                flow.sender.on_syn_ack(now, &mut self.seg_buf);
                self.flush_segments(f);
            }
            PacketKind::Data => self.on_data(pkt),
            PacketKind::Ack => {
                let now = self.now;
                let flow = &mut self.flows[f as usize];
                flow.sender.on_ack(now, pkt.ack, &pkt.sack, pkt.ece, pkt.rwnd_bytes, &mut self.seg_buf);
                self.flush_segments(f);
                self.check_completion(f);
            }
        }
    }

    fn on_data(&mut self, pkt: Packet) {
        let now = self.now;
        let f = pkt.flow;
        let interval = self.trace_interval_ns;
        let flow = &mut self.flows[f as usize];
        if pkt.tag != payload_tag(f, pkt.seq, pkt.len) {
            flow.tag_errors += 1;
        }
        if !flow.timeouts.is_empty() {
            resolve_spurious(flow, &pkt);
        }
        let res = flow.receiver.on_data(now, pkt.seq, pkt.len, pkt.ecn == Ecn::Ce, pkt.cwr);
        if res.delivered > 0 {
            flow.delivered_bytes += res.delivered;
            let bin = (now / interval) as usize;
            if let Some(b) = flow.goodput_bins.get_mut(bin) {
                *b += res.delivered;
            }
        }
        if let Some(ack) = res.ack {
            self.send_ack(f, PacketKind::Ack, ack);
        }
        self.sync_delack_timer(f);
        if let (Some(to), true) = (self.flows[f as usize].relay_to, res.delivered > 0) {
            self.relay_delivered(to, res.delivered);
        }
    }

    fn check_completion(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if flow.completion_ns.is_none()
            && flow.app.total_bytes().is_some()
            && flow.sender.is_done()
            && flow.app.total_bytes() == Some(flow.sender.app_limit())
        {
            flow.completion_ns = Some(self.now);
        }
    }

    // ---- timers and applications -----------------------------------------------------

    fn on_flow_start(&mut self, f: FlowId) {
        let now = self.now;
        self.flows[f as usize].sender.connect(now, &mut self.seg_buf);
        self.flush_segments(f);
        if let Some(tick) = self.flows[f as usize].app.tick_ns() {
            self.events.schedule(now + tick, Event::AppTick(f));
        }
    }

    fn on_app_tick(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let chunk = flow.app.next_chunk(flow.app_written);
        if chunk == 0 {
            return;
        }
        flow.app_written += chunk;
        // The sender transmits what its window allows (nothing before the handshake ends).
        flow.sender.on_app_data(now, chunk, &mut self.seg_buf);
        self.flush_segments(f);
        if let Some(tick) = self.flows[f as usize].app.tick_ns() {
            self.events.schedule(now + tick, Event::AppTick(f));
        }
    }

    fn on_rto_timer(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.rto_event_at != Some(now) {
            return; // superseded
        }
        flow.rto_event_at = None;
        if let Some(seq) = flow.sender.on_timer(now, &mut self.seg_buf) {
            flow.timeouts.entry(seq).or_default().push(now);
            // The original copy may already be at the receiver (its ACK was late or lost).
            if flow.receiver.has(seq, 1) {
                resolve_timeout_at(flow, seq);
            }
        }
        self.flush_segments(f);
    }

    fn on_delack_timer(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.delack_event_at != Some(now) {
            return;
        }
        flow.delack_event_at = None;
        if let Some(ack) = flow.receiver.on_delack_timer(now) {
            self.send_ack(f, PacketKind::Ack, ack);
        }
        self.sync_delack_timer(f);
    }

    /// Makes sure an event is pending no later than the sender's retransmission deadline.
    /// Stale events are ignored when they fire, so a deadline that moves later costs nothing.
    fn sync_sender_timer(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.sender.rto_deadline() {
            // A pending event due before `d` fires early and re-arms itself in on_rto_timer.
            if flow.rto_event_at.is_none_or(|at| d < at) {
                flow.rto_event_at = Some(d);
                self.events.schedule(d, Event::RtoTimer(f));
            }
        }
    }

    fn sync_delack_timer(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.receiver.delack_deadline() {
            if flow.delack_event_at.is_none_or(|at| d < at) {
                flow.delack_event_at = Some(d);
                self.events.schedule(d, Event::DelAckTimer(f));
            }
        }
    }

    fn trace_sender(&mut self, f: FlowId) {
        if !self.traces.enabled {
            return;
        }
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let s = &mut flow.sender;
        let vals = [s.cwnd(), s.ssthresh().min(u64::MAX >> 1), s.inflight_bytes(), s.rto_ns()];
        let kinds = [TraceKind::Cwnd, TraceKind::Ssthresh, TraceKind::Inflight, TraceKind::Rto];
        for i in 0..4 {
            if vals[i] != flow.last_traced[i] {
                flow.last_traced[i] = vals[i];
                let v = if kinds[i] == TraceKind::Rto { ns_to_s(vals[i]) } else { vals[i] as f64 };
                self.traces.record(kinds[i], now, f, v);
            }
        }
        if let Some(r) = s.take_new_rtt_sample() {
            self.traces.record(TraceKind::Rtt, now, f, ns_to_s(r));
        }
    }

    /// Packets currently inside the network (queues, transmitters, propagation, and packets
    /// a base station holds back).
    pub fn packets_in_flight(&self) -> u64 {
        let held_fcp = self.fcp.as_ref().map_or(0, |f| f.held_packets());
        let held_lte = self.lte.as_ref().map_or(0, |l| l.packets_held());
        self.links.iter().map(|l| l.in_flight()).sum::<u64>() + held_fcp + held_lte
    }
}

/// A copy of a timed-out segment reached the receiver: if it was sent before a timeout of that
/// segment, that timeout was spurious.
fn resolve_spurious(flow: &mut Flow, pkt: &Packet) {
    let end = pkt.seq + pkt.len as u64;
    let keys: Vec<u64> = flow.timeouts.range(pkt.seq..end).map(|(k, _)| *k).collect();
    for k in keys {
        let times = flow.timeouts.get_mut(&k).expect("key from range");
        let before = times.len();
        times.retain(|&t| pkt.sent_ns >= t);
        flow.spurious_timeouts += (before - times.len()) as u64;
        if times.is_empty() {
            flow.timeouts.remove(&k);
        }
    }
}

fn resolve_timeout_at(flow: &mut Flow, seq: u64) {
    if let Some(times) = flow.timeouts.remove(&seq) {
        flow.spurious_timeouts += times.len() as u64;
    }
}

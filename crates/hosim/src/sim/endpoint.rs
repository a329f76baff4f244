//! The endpoint side of the world: TCP senders and receivers turned into packets and back,
//! their timers, the applications that feed them, and the split-connection relay.

use crate::engine::time::ns_to_s;
use crate::net::packet::{payload_tag, Ecn, Packet, PacketKind};
use crate::net::FlowId;
use crate::net::NO_TAG;
use crate::observe::TraceKind;
use crate::tcp::receiver::AckOut;
use crate::tcp::sender::ts_clock;

use super::flow::{goodput_add, note_timeout, resolve_spurious, resolve_timeout_at};
use super::world::{Event, World};

impl World {
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
            pkt.psh = seg.psh;
            pkt.ecn = if seg.ect { Ecn::Ect } else { Ecn::NotEct };
            pkt.tag = payload_tag(f, seg.seq, seg.len);
            let flow = &mut self.flows[f as usize];
            if flow.sender.cfg.rcvbuf_autotune {
                pkt.rwnd_bytes = u64::from(flow.peer_tsval);
            }
            if seg.kind == PacketKind::Data && seg.len > 0 && !flow.drops.is_empty() {
                let mss = flow.sender.cfg.mss_bytes as u64;
                if seg.seq % mss == 0 && flow.drops.should_drop(seg.seq / mss, seg.is_retx) {
                    flow.scripted_drops += 1;
                    self.counters.dropped_scripted += 1;
                    let src = flow.src;
                    self.small_queue_left(src, pkt.kind, src, f, pkt.size_bytes);
                    continue;
                }
            }
            self.send_from_host(f, true, pkt);
        }
        self.seg_buf = segs;
        self.sync_sender_timer(f);
        self.trace_sender(f);
        self.account_rwnd_limit(f);
    }

    /// Time the flow spends limited by the peer's receive window: the congestion window
    /// would let it send more than the advertised window does (RFC 5681 §2: send no more than
    /// min(cwnd, rwnd)), and it has data left to send, as Linux's `tcp_write_xmit` starts
    /// `TCP_CHRONO_RWND_LIMITED` (`tcpi_rwnd_limited`) when `tcp_snd_wnd_test` stops it.
    fn account_rwnd_limit(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let s = &flow.sender;
        let (rwnd, outstanding) = (s.peer_rwnd(), s.snd_max().saturating_sub(s.snd_una()));
        // The window test first: it fails on most flushes and reads no controller.
        let limited = outstanding + s.cfg.mss_bytes as u64 > rwnd
            && rwnd < s.cwnd()
            && s.snd_max() < s.app_limit()
            && !s.is_done();
        match (limited, flow.rwnd_limited_since) {
            (true, None) => flow.rwnd_limited_since = Some(now),
            (false, Some(since)) => {
                flow.rwnd_limited_ns += now.saturating_sub(since);
                flow.rwnd_limited_since = None;
            }
            _ => {}
        }
    }

    /// Inlined at its calls, as the profile-guided build does (bench/decisions.md, "Kept: five
    /// small functions inlined at their calls").
    #[inline(always)]
    fn send_ack(&mut self, f: FlowId, kind: PacketKind, ack: AckOut) {
        let mut pkt = self.new_packet(f, kind, false);
        pkt.ack = ack.ack;
        pkt.sack = ack.sack;
        pkt.size_bytes += ack.sack.option_bytes();
        pkt.ece = ack.ece;
        pkt.rwnd_bytes = ack.rwnd;
        // RFC 7323 TSecr, in the field a data segment's payload tag takes (`Packet::tag`).
        pkt.tag = ack.ts_ecr;
        self.send_from_host(f, false, pkt);
    }

    /// Sends `pkt`, of flow `f`, from its host: the flow's source for data (`data`), its
    /// destination for ACKs. By the link noted for the run ([`Flow::out_links`](super::Flow))
    /// when routes are static, else by the host's route.
    #[inline]
    fn send_from_host(&mut self, f: FlowId, data: bool, pkt: Packet) {
        let l = self.flows[f as usize].out_links[!data as usize];
        if l == NO_TAG {
            let src = pkt.src;
            self.forward(src, pkt);
        } else {
            debug_assert_eq!(Some(l), self.nodes[pkt.src as usize].route(pkt.dst), "the noted link is the route");
            self.link_enqueue(l, pkt);
        }
    }

    /// Whether routes and node kinds stay as they are for the run ([`World::static_routes`]),
    /// and with it each flow's [`Flow::out_links`](super::Flow): the hosts' routes now, or
    /// none. The two are set together so that a flow never keeps links noted for another run.
    pub(super) fn set_static_routes(&mut self, on: bool) {
        self.static_routes = on;
        for flow in &mut self.flows {
            flow.out_links = if on {
                let from = |a: u32, b: u32| self.nodes[a as usize].route(b).unwrap_or(NO_TAG);
                [from(flow.src, flow.dst), from(flow.dst, flow.src)]
            } else {
                [NO_TAG; 2]
            };
        }
    }

    /// Flow `f`'s receiver advertises `rwnd_bytes` from now on and sends `copies` window
    /// updates at once.
    pub(crate) fn advertise_window(&mut self, f: FlowId, rwnd_bytes: u64, copies: u32) {
        self.flows[f as usize].receiver.rwnd_bytes = rwnd_bytes;
        for _ in 0..copies {
            let ack = self.flows[f as usize].receiver.window_update();
            self.send_ack(f, PacketKind::Ack, ack);
        }
        self.sync_delack_timer(f);
    }

    /// Consumes `pkt`, of flow `f` (`pkt.flow`, passed on its own so that the flow's state can
    /// be fetched while the packet is still on its way from memory).
    pub(super) fn deliver_local(&mut self, f: FlowId, pkt: Packet) {
        debug_assert_eq!(f, pkt.flow);
        self.counters.consumed += 1;
        match pkt.kind {
            PacketKind::Syn => {
                let ack = self.flows[f as usize].receiver.syn_ack();
                self.send_ack(f, PacketKind::SynAck, ack);
            }
            PacketKind::SynAck => {
                let now = self.now;
                let flow = &mut self.flows[f as usize];
                if flow.sender.cfg.rcvbuf_autotune {
                    flow.peer_tsval = ts_clock(pkt.sent_ns);
                }
                flow.sender.on_syn_ack(now, &mut self.seg_buf);
                self.flush_segments(f);
            }
            PacketKind::Data => self.on_data(f, pkt),
            PacketKind::Ack => {
                let now = self.now;
                let flow = &mut self.flows[f as usize];
                flow.sender.set_ack_ts_ecr(pkt.tag);
                if flow.sender.cfg.rcvbuf_autotune {
                    flow.peer_tsval = ts_clock(pkt.sent_ns);
                }
                flow.sender.on_ack(now, pkt.ack, &pkt.sack, pkt.ece, pkt.rwnd_bytes, &mut self.seg_buf);
                self.flush_segments(f);
                self.check_completion(f);
            }
        }
    }

    fn on_data(&mut self, f: FlowId, pkt: Packet) {
        let now = self.now;
        let interval = self.trace_interval_ns;
        let flow = &mut self.flows[f as usize];
        if pkt.tag != payload_tag(f, pkt.seq, pkt.len) {
            flow.tag_errors += 1;
        }
        resolve_spurious(flow, &pkt);
        // RFC 7323: the segment's TSval is its send time on the sender's timestamp clock.
        flow.receiver.on_tsval(pkt.seq, ts_clock(pkt.sent_ns));
        if flow.sender.cfg.rcvbuf_autotune {
            // `rcvbuf_autotune` only: a data segment's `rwnd_bytes` carries its TSecr.
            flow.receiver.rcv_rtt_measure_ts(ts_clock(now), pkt.len, pkt.rwnd_bytes as u32);
        }
        let res = flow.receiver.on_data(now, pkt.seq, pkt.len, pkt.ecn == Ecn::Ce, pkt.cwr, pkt.psh);
        if res.delivered > 0 {
            flow.delivered_bytes += res.delivered;
            if self.obs.traces.enabled {
                goodput_add(flow, &mut self.obs.traces, f, now, interval, res.delivered);
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

    pub(super) fn on_flow_start(&mut self, f: FlowId) {
        let now = self.now;
        self.flows[f as usize].sender.connect(now, &mut self.seg_buf);
        self.flush_segments(f);
        if let Some(tick) = self.flows[f as usize].app.tick_ns() {
            self.events.schedule_timer(now + tick, Event::AppTick(f));
        }
    }

    pub(super) fn on_app_tick(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let chunk = flow.app.next_chunk(flow.app_written);
        if chunk == 0 {
            return;
        }
        let buffered = flow.sender.app_limit() - flow.sender.snd_una().min(flow.sender.app_limit());
        if buffered.saturating_add(chunk) > flow.sndbuf_bytes {
            flow.app_refused_bytes += chunk;
        } else {
            flow.app_written += chunk;
            // The sender transmits what its window allows (nothing before the handshake ends).
            flow.sender.on_app_data(now, chunk, &mut self.seg_buf);
            self.flush_segments(f);
        }
        if let Some(tick) = self.flows[f as usize].app.tick_ns() {
            self.events.schedule_timer(now + tick, Event::AppTick(f));
        }
    }

    /// Linux TCP Small Queues' wake-up (`tcp_tsq_handler`): the flow's sender was held back
    /// and bytes of it have left its host's link since.
    pub(super) fn on_small_queue_wake(&mut self, f: FlowId) {
        let now = self.now;
        self.flows[f as usize].sender.on_small_queue_wake(now, &mut self.seg_buf);
        self.flush_segments(f);
    }

    pub(super) fn on_rto_timer(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.rto_event_at != Some(now) {
            return; // superseded
        }
        flow.rto_event_at = None;
        if let Some(seq) = flow.sender.on_timer(now, &mut self.seg_buf) {
            note_timeout(flow, seq, now);
            // The original copy may already be at the receiver (its ACK was late or lost).
            if flow.receiver.has(seq, 1) {
                resolve_timeout_at(flow, seq);
            }
        }
        self.flush_segments(f);
    }

    pub(super) fn on_delack_timer(&mut self, f: FlowId) {
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
        if let Some(d) = flow.sender.timer_deadline() {
            // A pending event due before `d` fires early and re-arms itself in on_rto_timer.
            if flow.rto_event_at.is_none_or(|at| d < at) {
                flow.rto_event_at = Some(d);
                self.events.schedule_timer(d, Event::RtoTimer(f));
            }
        }
    }

    fn sync_delack_timer(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.receiver.delack_deadline() {
            if flow.delack_event_at.is_none_or(|at| d < at) {
                flow.delack_event_at = Some(d);
                self.events.schedule_timer(d, Event::DelAckTimer(f));
            }
        }
    }

    fn trace_sender(&mut self, f: FlowId) {
        if !self.obs.traces.enabled {
            return;
        }
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let s = &mut flow.sender;
        // The cwnd row also carries the effective window, min(cwnd, rwnd): a row when either
        // changes.
        let effective = s.cwnd().min(s.peer_rwnd());
        if (s.cwnd(), effective) != (flow.last_traced[0], flow.last_traced[4]) {
            (flow.last_traced[0], flow.last_traced[4]) = (s.cwnd(), effective);
            self.obs.traces.record2(TraceKind::Cwnd, now, f, s.cwnd() as f64, effective as f64);
        }
        let vals = [s.ssthresh().min(u64::MAX >> 1), s.inflight_bytes(), s.rto_ns()];
        let kinds = [TraceKind::Ssthresh, TraceKind::Inflight, TraceKind::Rto];
        for i in 0..3 {
            if vals[i] != flow.last_traced[i + 1] {
                flow.last_traced[i + 1] = vals[i];
                let v = if kinds[i] == TraceKind::Rto { ns_to_s(vals[i]) } else { vals[i] as f64 };
                self.obs.traces.record(kinds[i], now, f, v);
            }
        }
        if let Some(r) = s.take_new_rtt_sample() {
            self.obs.traces.record(TraceKind::Rtt, now, f, ns_to_s(r));
        }
    }

    /// Split connection: `bytes` more arrived in order at the relay; the flow `to` takes them
    /// as application data.
    fn relay_delivered(&mut self, to: FlowId, bytes: u64) {
        let now = self.now;
        self.flows[to as usize].sender.on_app_data(now, bytes, &mut self.seg_buf);
        self.flush_segments(to);
    }
}

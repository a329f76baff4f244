//! Handovers below a first common parent (FCP) with the `drop`, `forward` and
//! `forward-and-rearrange` schemes of Cohen & Levin, "To Drop or Not to Drop: On the Impact of
//! Handovers on TCP Performance", Sec. III.
//!
//! Handover model (Sec. III.A): at the handover instant the FCP switches its route for the
//! mobile to the other base station, and the mobile moves there. Packets for the mobile that
//! are past the FCP on the old path (on the FCP->old BS link, or in the old base station's
//! buffer for the mobile) and every packet reaching the old base station afterwards are
//! handled by the scheme:
//! - `drop`: the old base station drops them;
//! - `forward`: it sends them over the forwarding path (the bs1<->bs2 link) to the new base
//!   station, which passes them on as they come, interleaved with direct packets;
//! - `rearrange`: as `forward`, and the new base station holds direct packets back until the
//!   old path is empty, so the forwarded ones reach the mobile first. Held packets share the
//!   base station's per-mobile buffer (`fcp.bs_buffer_pkts`) with its wireless queue; a
//!   packet that finds the buffer full is dropped.
//!
//! Choices the paper leaves open (docs/reproductions/drop-or-forward.md lists them all):
//! packets already on the air (being transmitted or propagating on the old wireless link)
//! still reach the mobile; the mobile's uplink switches with it; a handover "ends" when no
//! packet for the mobile is left on the old path or the forwarding path.

//!
//! Files: `config.rs` (the `[fcp]` section), `template.rs` (the Fig. 1 graph and installing
//! the agent), `report.rs` (the summary entries); the agent, which owns both base stations, is
//! here.

mod config;
mod report;
mod template;

pub use config::{
    mobile_name, FcpScheme, FcpSection, IntervalDistribution, OldBsQueue, RearrangeBuffer, RearrangeOverflow, BS, FCP,
};
pub use report::HandoverLog;
pub use template::{expand, install, PRESET, TEMPLATE};

use std::collections::{HashSet, VecDeque};

use rand::Rng as _;

use crate::engine::rng::Rng;
use crate::engine::time::SimTime;
use crate::net::{FlowId, Link, LinkId, NodeId, Packet, PacketStore};
use crate::sim::{Agent, Cx, Report, World};

/// What an fcp timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Mobile `0` hands over to the other base station.
    Handover(u32),
    /// End of the warm-up: start measuring `throughput_fraction`.
    Warmup,
    /// End of the run: take the summary snapshot.
    Finish,
}

/// Stream index base of the per-mobile handover-time streams ("FCP" in ASCII).
const RNG_BASE: u64 = 0x0046_4350_0000;

struct Mobile {
    node: NodeId,
    flow: FlowId,
    /// Index (0 or 1) of the base station the mobile is attached to.
    at: usize,
    /// Wireless links bs -> mobile and mobile -> bs, per base station.
    down: [LinkId; 2],
    up: [LinkId; 2],
    /// Direct packets the current base station holds back (`rearrange`).
    hold: VecDeque<Packet>,
    holding: bool,
    /// Index into `log` of the last handover, while its old path still carries packets.
    draining: Option<usize>,
    /// Highest sequence number (end) of the direct data sent on to the mobile since the last
    /// handover: a forwarded packet below it has been overtaken.
    direct_seq_end: u64,
    delivered_at_warmup: u64,
    handovers: u64,
}

/// One handover, as reported in the summary's `handovers` list.
#[derive(Clone, Debug, Default)]
pub struct HandoverRecord {
    pub mobile: u32,
    pub start_ns: SimTime,
    /// When the old path and the forwarding path last carried a packet for the mobile.
    pub end_ns: Option<SimTime>,
    pub from: usize,
    pub to: usize,
    /// Packets for the mobile past the FCP on the old path at the handover instant.
    pub past_fcp_pkts: u64,
    /// Packets the scheme handled at the old base station (those above, plus any that reach
    /// it later, e.g. a retransmission already past the FCP).
    pub dropped_pkts: u64,
    pub forwarded_pkts: u64,
    /// Forwarded packets that reached the new base station after a direct packet of higher
    /// sequence had been sent on to the mobile.
    pub forwarded_overtaken_pkts: u64,
    pub held_max_pkts: u64,
    /// Largest occupancy (wireless queue + held) of the new base station's buffer for the
    /// mobile while it held packets back.
    pub bs_buffer_max_pkts: u64,
    pub buffer_drops: u64,
    /// Of `buffer_drops`, forwarded packets.
    pub forwarded_buffer_drops: u64,
    /// With `FcpHandover::record_uids`: the packet uids behind the counts above.
    pub past_fcp_uids: Vec<u64>,
    pub dropped_uids: Vec<u64>,
    pub forwarded_uids: Vec<u64>,
}

/// The handover mechanism: the agent that owns both base stations and moves the mobiles.
pub struct FcpHandover {
    pub scheme: FcpScheme,
    overflow: RearrangeOverflow,
    rearrange_buffer: RearrangeBuffer,
    old_bs_queue: OldBsQueue,
    fcp: NodeId,
    bs: [NodeId; 2],
    fcp_to_bs: [LinkId; 2],
    /// forward[a]: the forwarding link from base station a to the other one.
    forward: [LinkId; 2],
    mobiles: Vec<Mobile>,
    /// node id -> mobile index.
    mobile_of_node: Vec<Option<u32>>,
    /// Uids of packets on the forwarding path or handed to it.
    forwarded: HashSet<u64>,
    interval_ns: Option<SimTime>,
    distribution: IntervalDistribution,
    rngs: Vec<Rng>,
    buffer_pkts: u32,
    warmup_ns: SimTime,
    /// Summary parameters, echoed in the `fcp` report.
    params: report::Params,
    /// Keep the packet uids of each handover (tests).
    pub record_uids: bool,
    pub log: Vec<HandoverRecord>,
    pub forward_queue_drops: u64,
    /// The summary, taken at the end of the run.
    finished: Option<Report>,
}

impl FcpHandover {
    /// The base station (0 or 1) a mobile is attached to.
    pub fn attached(&self, mobile: u32) -> usize {
        self.mobiles[mobile as usize].at
    }

    fn next_interval_ns(&mut self, m: usize) -> Option<SimTime> {
        let mean = self.interval_ns?;
        Some(match self.distribution {
            IntervalDistribution::Fixed => mean,
            IntervalDistribution::Exponential => {
                let u: f64 = self.rngs[m].gen();
                // A draw is up to ~37 means: capped at 2e18 ns (past any run's end, 1e6 s),
                // so that adding it to the clock cannot wrap.
                (-(1.0 - u).ln() * mean as f64).round().clamp(1.0, 2e18) as SimTime
            }
        })
    }

    /// Points the FCP's route for mobile `m` and the mobile's uplink at base station `b`.
    fn attach_routes(&self, cx: &mut Cx<Timer>, m: usize, b: usize) {
        let mob = &self.mobiles[m];
        cx.routes_mut(self.fcp)[mob.node as usize] = Some(self.fcp_to_bs[b]);
        for r in cx.routes_mut(mob.node).iter_mut() {
            if r.is_some() {
                *r = Some(mob.up[b]);
            }
        }
    }

    /// The FCP switches mobile `m` to the other base station, and the mobile moves (Sec. III.A).
    fn handover(&mut self, cx: &mut Cx<Timer>, m: usize) {
        let now = cx.now();
        let from = self.mobiles[m].at;
        let to = 1 - from;
        self.attach_routes(cx, m, to);
        let old_down = self.mobiles[m].down[from];
        let flush_queue = self.old_bs_queue == OldBsQueue::Scheme;
        let past = self.old_path_uids(cx.links(), cx.store(), m, from, flush_queue);
        let record = HandoverRecord {
            mobile: m as u32,
            start_ns: now,
            from,
            to,
            past_fcp_pkts: past.len() as u64,
            past_fcp_uids: if self.record_uids { past } else { Vec::new() },
            ..Default::default()
        };
        if let Some(prev) = self.mobiles[m].draining {
            self.log[prev].end_ns.get_or_insert(now);
        }
        self.log.push(record);
        let idx = self.log.len() - 1;
        let mob = &mut self.mobiles[m];
        mob.at = to;
        mob.handovers += 1;
        mob.draining = Some(idx);
        mob.direct_seq_end = 0;
        let held: Vec<Packet> = mob.hold.drain(..).collect();
        mob.holding = self.scheme == FcpScheme::Rearrange;
        // The old base station's buffer for the mobile goes to the scheme, oldest first.
        let queued: Vec<Packet> = if flush_queue { cx.withdraw_queued(old_down) } else { Vec::new() };
        for pkt in queued.into_iter().chain(held) {
            self.old_bs(cx, m, from, pkt);
        }
        self.check_drained(cx, m);
        if let Some(dt) = self.next_interval_ns(m) {
            cx.schedule(now + dt, Timer::Handover(m as u32));
        }
    }

    /// Packets for mobile `m` past the FCP on the path through base station `from`: on the
    /// FCP->BS link, held back at the base station, and (if `with_queue`) in its wireless queue.
    fn old_path_uids(&self, links: &[Link], store: &PacketStore, m: usize, from: usize, with_queue: bool) -> Vec<u64> {
        let mob = &self.mobiles[m];
        let queue = links[mob.down[from] as usize].queue.iter(store).take(if with_queue { usize::MAX } else { 0 });
        on_link_for(links, store, self.fcp_to_bs[from], mob.node)
            .chain(queue)
            .chain(mob.hold.iter())
            .map(|p| p.uid)
            .collect()
    }

    /// The scheme at a base station `b` the mobile has left.
    fn old_bs(&mut self, cx: &mut Cx<Timer>, m: usize, b: usize, pkt: Packet) {
        let rec = self.mobiles[m].draining.map(|r| &mut self.log[r]);
        match self.scheme {
            FcpScheme::Drop => {
                if let Some(rec) = rec {
                    rec.dropped_pkts += 1;
                    if self.record_uids {
                        rec.dropped_uids.push(pkt.uid);
                    }
                }
                cx.counters_mut().dropped_handover += 1;
            }
            FcpScheme::Forward | FcpScheme::Rearrange => {
                if let Some(rec) = rec {
                    rec.forwarded_pkts += 1;
                    if self.record_uids {
                        rec.forwarded_uids.push(pkt.uid);
                    }
                }
                self.forwarded.insert(pkt.uid);
                let l = self.forward[b];
                let dropped_before = cx.links()[l as usize].queue.stats.dropped;
                cx.enqueue(l, pkt);
                if cx.links()[l as usize].queue.stats.dropped > dropped_before {
                    self.forwarded.remove(&pkt.uid);
                    self.forward_queue_drops += 1;
                }
            }
        }
    }

    /// A forwarded packet reaches the base station the mobile is attached to.
    fn forwarded_arrives(&mut self, cx: &mut Cx<Timer>, m: usize, pkt: Packet) {
        let mob = &self.mobiles[m];
        let overtaken = pkt.is_data() && pkt.seq + (pkt.len as u64) <= mob.direct_seq_end;
        if let Some(r) = mob.draining {
            self.log[r].forwarded_overtaken_pkts += overtaken as u64;
        }
        let l = self.mobiles[m].down[self.mobiles[m].at];
        if !self.mobiles[m].holding {
            cx.enqueue(l, pkt);
            return;
        }
        // Forward-and-rearrange: forwarded packets go ahead of the held ones, within the buffer.
        if self.rearrange_buffer == RearrangeBuffer::Separate {
            // The held packets have room of their own: only the wireless queue's limit applies.
            self.enqueue_counting_drops(cx, m, pkt, true);
        } else {
            if !self.buffer_has_room(cx.links(), m) {
                if self.overflow == RearrangeOverflow::EvictHeld && !self.mobiles[m].hold.is_empty() {
                    self.mobiles[m].hold.pop_back();
                    self.buffer_drop(cx, m, false);
                } else {
                    self.buffer_drop(cx, m, true);
                    return;
                }
            }
            cx.enqueue(l, pkt);
        }
        let mob = &self.mobiles[m];
        let occupancy = mob.hold.len() as u64 + cx.links()[l as usize].queue.len_pkts() as u64;
        if let Some(r) = mob.draining {
            self.log[r].bs_buffer_max_pkts = self.log[r].bs_buffer_max_pkts.max(occupancy);
        }
    }

    /// Forward-and-rearrange: the new base station holds a direct packet back.
    fn hold(&mut self, cx: &mut Cx<Timer>, m: usize, pkt: Packet) {
        let room = match self.rearrange_buffer {
            RearrangeBuffer::Shared => self.buffer_has_room(cx.links(), m),
            RearrangeBuffer::Separate => self.mobiles[m].hold.len() < self.buffer_pkts as usize,
        };
        if !room {
            self.buffer_drop(cx, m, false);
            return;
        }
        let mob = &mut self.mobiles[m];
        mob.hold.push_back(pkt);
        let held = mob.hold.len() as u64;
        let occupancy = held + cx.links()[mob.down[mob.at] as usize].queue.len_pkts() as u64;
        if let Some(r) = mob.draining {
            let rec = &mut self.log[r];
            rec.held_max_pkts = rec.held_max_pkts.max(held);
            rec.bs_buffer_max_pkts = rec.bs_buffer_max_pkts.max(occupancy);
        }
    }

    /// A direct packet leaves the base station the mobile is attached to, towards the mobile.
    fn send_to_mobile(&mut self, cx: &mut Cx<Timer>, m: usize, pkt: Packet) {
        let mob = &mut self.mobiles[m];
        if pkt.is_data() {
            mob.direct_seq_end = mob.direct_seq_end.max(pkt.seq + pkt.len as u64);
        }
        cx.enqueue(mob.down[mob.at], pkt);
    }

    /// Room in the base station's buffer for mobile `m`: wireless queue plus held packets.
    fn buffer_has_room(&self, links: &[Link], m: usize) -> bool {
        let mob = &self.mobiles[m];
        let queued = links[mob.down[mob.at] as usize].queue.len_pkts() as u64;
        queued + (mob.hold.len() as u64) < self.buffer_pkts as u64
    }

    fn buffer_drop(&mut self, cx: &mut Cx<Timer>, m: usize, forwarded: bool) {
        self.log_buffer_drop(m, forwarded);
        cx.counters_mut().dropped_handover += 1;
    }

    fn log_buffer_drop(&mut self, m: usize, forwarded: bool) {
        if let Some(r) = self.mobiles[m].draining {
            self.log[r].buffer_drops += 1;
            self.log[r].forwarded_buffer_drops += forwarded as u64;
        }
    }

    /// `rearrange_buffer = "separate"`: a packet enters the wireless queue of the base station
    /// the mobile is attached to, whose DropTail limit may drop it (a queue drop, which the
    /// link counts); the handover's log counts it as a buffer drop too.
    fn enqueue_counting_drops(&mut self, cx: &mut Cx<Timer>, m: usize, pkt: Packet, forwarded: bool) {
        let l = self.mobiles[m].down[self.mobiles[m].at] as usize;
        let dropped_before = cx.links()[l].queue.stats.dropped;
        if forwarded {
            cx.enqueue(l as LinkId, pkt);
        } else {
            self.send_to_mobile(cx, m, pkt);
        }
        if cx.links()[l].queue.stats.dropped > dropped_before {
            self.log_buffer_drop(m, forwarded);
        }
    }

    /// Ends the last handover of mobile `m` once neither the old path nor the forwarding path
    /// carries a packet for it; under `rearrange`, releases the held packets then.
    fn check_drained(&mut self, cx: &mut Cx<Timer>, m: usize) {
        let mob = &self.mobiles[m];
        let Some(r) = mob.draining else { return };
        let old = 1 - mob.at;
        let pending = on_link_for(cx.links(), cx.store(), self.fcp_to_bs[old], mob.node).next().is_some()
            || on_link_for(cx.links(), cx.store(), self.forward[old], mob.node).next().is_some();
        if pending {
            return;
        }
        self.log[r].end_ns.get_or_insert(cx.now());
        let mob = &mut self.mobiles[m];
        if mob.holding {
            mob.holding = false;
            let held: Vec<Packet> = mob.hold.drain(..).collect();
            for pkt in held {
                if self.rearrange_buffer == RearrangeBuffer::Separate {
                    // Into a wireless queue that may hold forwarded packets: what does not
                    // fit is dropped there (the stand-in's `Queue reset` into the link).
                    self.enqueue_counting_drops(cx, m, pkt, false);
                } else {
                    self.send_to_mobile(cx, m, pkt);
                }
            }
        }
        self.mobiles[m].draining = None;
    }
}

impl Agent for FcpHandover {
    type Timer = Timer;

    /// A packet reaches base station node `n`.
    fn on_packet(&mut self, cx: &mut Cx<Timer>, n: NodeId, pkt: Packet) {
        let mobile = self.mobile_of_node.get(pkt.dst as usize).copied().flatten();
        let (Some(m), false) = (mobile, pkt.dst == n) else {
            // Uplink traffic: an ordinary router.
            cx.receive_as_router(n, pkt);
            return;
        };
        let m = m as usize;
        let b = if self.bs[0] == n { 0 } else { 1 };
        // Most packets were never forwarded: skip hashing when nothing is in flight between BSs.
        let was_forwarded = !self.forwarded.is_empty() && self.forwarded.remove(&pkt.uid);
        if self.mobiles[m].at != b {
            // The mobile has left this base station.
            self.old_bs(cx, m, b, pkt);
            self.check_drained(cx, m);
        } else if was_forwarded {
            self.forwarded_arrives(cx, m, pkt);
            self.check_drained(cx, m);
        } else if self.mobiles[m].holding {
            self.hold(cx, m, pkt);
        } else {
            self.send_to_mobile(cx, m, pkt);
        }
    }

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        match timer {
            Timer::Handover(m) => self.handover(cx, m as usize),
            Timer::Warmup => {
                for mob in self.mobiles.iter_mut() {
                    mob.delivered_at_warmup = cx.flows()[mob.flow as usize].delivered_bytes;
                }
            }
            Timer::Finish => self.finished = Some(self.summary(cx.flows(), cx.now())),
        }
    }

    /// Packets held back at base stations.
    fn held_packets(&self) -> u64 {
        self.mobiles.iter().map(|m| m.hold.len() as u64).sum()
    }

    fn report(&self, _world: &World) -> Report {
        self.finished.clone().unwrap_or_default()
    }
}

/// Packets for node `dst` on a link: queued, in service, propagating.
fn on_link_for<'a>(
    links: &'a [Link],
    store: &'a PacketStore,
    l: LinkId,
    dst: NodeId,
) -> impl Iterator<Item = &'a Packet> + 'a {
    links[l as usize].packets(store).filter(move |p| p.dst == dst)
}

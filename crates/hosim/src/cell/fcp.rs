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

use std::collections::{HashSet, VecDeque};

use rand::Rng as _;

use crate::engine::rng::{stream_rng, Rng, StreamKind};
use crate::engine::time::{ns_to_s, s_to_ns, SimTime};
use crate::net::{FlowId, LinkId, NodeId, NodeKind, Packet};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Check;
use crate::scenario::templates::fcp::{
    mobile_name, FcpScheme, FcpSection, IntervalDistribution, OldBsQueue, RearrangeOverflow, BS, FCP,
};
use crate::world::{Event, World};

use super::CellEvent;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FcpEvent {
    /// Mobile `0` hands over to the other base station.
    Handover(u32),
    /// End of the warm-up: start measuring `throughput_fraction`.
    Warmup,
    /// End of the run: write the summary fields.
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

pub struct FcpHandover {
    pub scheme: FcpScheme,
    overflow: RearrangeOverflow,
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
    interval_s: Option<f64>,
    rtt_unit_s: f64,
    available_bps: f64,
    fcp_bs_delay_s: f64,
    forward_delay_s: f64,
    /// Keep the packet uids of each handover (tests).
    pub record_uids: bool,
    pub log: Vec<HandoverRecord>,
    pub forward_queue_drops: u64,
}

impl FcpHandover {
    /// Packets held back at base stations (part of the network's packets in flight).
    pub fn held_packets(&self) -> u64 {
        self.mobiles.iter().map(|m| m.hold.len() as u64).sum()
    }

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
                (-(1.0 - u).ln() * mean as f64).round().max(1.0) as SimTime
            }
        })
    }
}

/// Builds the mechanism for a world expanded from the `fcp` template.
pub fn install(f: &FcpSection, duration_s: f64, world: &mut World, c: &Check) -> Result<(), ScenarioError> {
    let node = |name: &str| world.nodes.iter().position(|n| n.name == name).map(|i| i as NodeId);
    let link = |from: &str, to: &str| {
        let name = format!("{from}->{to}");
        world.links.iter().position(|l| l.name == name).map(|i| i as LinkId)
    };
    let missing = || c.err("topology", "the fcp template's graph is incomplete");
    let fcp = node(FCP).ok_or_else(missing)?;
    let bs = [node(BS[0]).ok_or_else(missing)?, node(BS[1]).ok_or_else(missing)?];
    let fcp_to_bs = [link(FCP, BS[0]).ok_or_else(missing)?, link(FCP, BS[1]).ok_or_else(missing)?];
    let forward = [link(BS[0], BS[1]).ok_or_else(missing)?, link(BS[1], BS[0]).ok_or_else(missing)?];
    let mut mobiles = Vec::new();
    let mut mobile_of_node = vec![None; world.nodes.len()];
    for i in 0..f.mobiles {
        let name = mobile_name(i);
        let n = node(&name).ok_or_else(missing)?;
        let flow = world.flows.iter().position(|fl| fl.dst == n).ok_or_else(missing)? as FlowId;
        let down = [link(BS[0], &name).ok_or_else(missing)?, link(BS[1], &name).ok_or_else(missing)?];
        let up = [link(&name, BS[0]).ok_or_else(missing)?, link(&name, BS[1]).ok_or_else(missing)?];
        mobile_of_node[n as usize] = Some(i);
        mobiles.push(Mobile {
            node: n,
            flow,
            at: 0,
            down,
            up,
            hold: VecDeque::new(),
            holding: false,
            draining: None,
            direct_seq_end: 0,
            delivered_at_warmup: 0,
            handovers: 0,
        });
    }
    for b in bs {
        world.nodes[b as usize].kind = NodeKind::FcpBaseStation;
    }
    let interval_s = f.interval_s();
    let mut h = FcpHandover {
        scheme: f.scheme,
        overflow: f.rearrange_overflow,
        old_bs_queue: f.old_bs_queue,
        fcp,
        bs,
        fcp_to_bs,
        forward,
        mobiles,
        mobile_of_node,
        forwarded: HashSet::new(),
        interval_ns: interval_s.map(|s| s_to_ns(s).max(1)),
        distribution: f.handover_distribution,
        rngs: (0..f.mobiles as u64).map(|i| stream_rng(world.seed, StreamKind::Cell, RNG_BASE + i)).collect(),
        buffer_pkts: f.bs_buffer_pkts,
        warmup_ns: s_to_ns(f.warmup_s),
        interval_s,
        rtt_unit_s: f.rtt_unit_s(),
        available_bps: f.available_bps(),
        fcp_bs_delay_s: f.fcp_bs_delay_s,
        forward_delay_s: f.forward_delay_s,
        record_uids: false,
        log: Vec::new(),
        forward_queue_drops: 0,
    };
    for m in 0..h.mobiles.len() {
        attach_routes(world, &h, m, 0);
        let first = match (f.first_handover_s, h.interval_ns) {
            (_, None) => None,
            (Some(t), Some(_)) => Some(s_to_ns(t)),
            (None, Some(mean)) => {
                let phase = match h.distribution {
                    IntervalDistribution::Fixed => (h.rngs[m].gen::<f64>() * mean as f64) as SimTime,
                    IntervalDistribution::Exponential => h.next_interval_ns(m).expect("handovers are on"),
                };
                Some(h.warmup_ns + phase)
            }
        };
        if let Some(t) = first {
            world.events.schedule(t, Event::Cell(CellEvent::Fcp(FcpEvent::Handover(m as u32))));
        }
    }
    world.events.schedule(h.warmup_ns, Event::Cell(CellEvent::Fcp(FcpEvent::Warmup)));
    world.events.schedule(s_to_ns(duration_s), Event::Cell(CellEvent::Fcp(FcpEvent::Finish)));
    world.fcp = Some(Box::new(h));
    Ok(())
}

/// Points the FCP's route for mobile `m` and the mobile's uplink at base station `b`.
fn attach_routes(world: &mut World, h: &FcpHandover, m: usize, b: usize) {
    let mob = &h.mobiles[m];
    world.nodes[h.fcp as usize].routes[mob.node as usize] = Some(h.fcp_to_bs[b]);
    for r in world.nodes[mob.node as usize].routes.iter_mut() {
        if r.is_some() {
            *r = Some(mob.up[b]);
        }
    }
}

/// Packets for node `dst` on a link: queued, in service, propagating.
fn on_link_for(world: &World, l: LinkId, dst: NodeId) -> impl Iterator<Item = &Packet> {
    let link = &world.links[l as usize];
    link.queue
        .iter()
        .chain(link.in_service.iter())
        .chain(link.pipeline.iter().map(|(_, p)| p))
        .filter(move |p| p.dst == dst)
}

impl World {
    fn fcp_mut(&mut self) -> &mut FcpHandover {
        self.fcp.as_deref_mut().expect("fcp events only exist with the fcp mechanism")
    }

    fn fcp_ref(&self) -> &FcpHandover {
        self.fcp.as_deref().expect("fcp events only exist with the fcp mechanism")
    }

    pub(crate) fn on_fcp_event(&mut self, e: FcpEvent) {
        match e {
            FcpEvent::Handover(m) => self.fcp_handover(m as usize),
            FcpEvent::Warmup => {
                let h = self.fcp.as_deref_mut().expect("fcp mechanism");
                for mob in h.mobiles.iter_mut() {
                    mob.delivered_at_warmup = self.flows[mob.flow as usize].delivered_bytes;
                }
            }
            FcpEvent::Finish => self.fcp_finish(),
        }
    }

    /// The FCP switches mobile `m` to the other base station, and the mobile moves (Sec. III.A).
    fn fcp_handover(&mut self, m: usize) {
        let now = self.now;
        let h = self.fcp.take().expect("fcp mechanism");
        let from = h.mobiles[m].at;
        let to = 1 - from;
        attach_routes(self, &h, m, to);
        self.fcp = Some(h);
        let old_down = self.fcp_ref().mobiles[m].down[from];
        let flush_queue = self.fcp_ref().old_bs_queue == OldBsQueue::Scheme;
        let past = self.fcp_old_path_uids(m, from, flush_queue);
        let h = self.fcp_mut();
        let record = HandoverRecord {
            mobile: m as u32,
            start_ns: now,
            from,
            to,
            past_fcp_pkts: past.len() as u64,
            past_fcp_uids: if h.record_uids { past } else { Vec::new() },
            ..Default::default()
        };
        if let Some(prev) = h.mobiles[m].draining {
            h.log[prev].end_ns.get_or_insert(now);
        }
        h.log.push(record);
        let idx = h.log.len() - 1;
        let mob = &mut h.mobiles[m];
        mob.at = to;
        mob.handovers += 1;
        mob.draining = Some(idx);
        mob.direct_seq_end = 0;
        let held: Vec<Packet> = mob.hold.drain(..).collect();
        mob.holding = h.scheme == FcpScheme::Rearrange;
        // The old base station's buffer for the mobile goes to the scheme, oldest first.
        let link = &mut self.links[old_down as usize];
        let queued: Vec<Packet> = if flush_queue { link.queue.drain(now).collect() } else { Vec::new() };
        link.stats.withdrawn += queued.len() as u64;
        for pkt in queued.into_iter().chain(held) {
            self.fcp_old_bs(m, from, pkt);
        }
        self.fcp_check_drained(m);
        if let Some(dt) = self.fcp_mut().next_interval_ns(m) {
            self.events.schedule(now + dt, Event::Cell(CellEvent::Fcp(FcpEvent::Handover(m as u32))));
        }
    }

    /// Packets for mobile `m` past the FCP on the path through base station `from`: on the
    /// FCP->BS link, held back at the base station, and (if `with_queue`) in its wireless queue.
    fn fcp_old_path_uids(&self, m: usize, from: usize, with_queue: bool) -> Vec<u64> {
        let h = self.fcp_ref();
        let mob = &h.mobiles[m];
        let queue = self.links[mob.down[from] as usize].queue.iter().take(if with_queue { usize::MAX } else { 0 });
        on_link_for(self, h.fcp_to_bs[from], mob.node).chain(queue).chain(mob.hold.iter()).map(|p| p.uid).collect()
    }

    /// A packet reaches base station node `n` (not addressed to it).
    pub(crate) fn fcp_bs_receive(&mut self, n: NodeId, pkt: Packet) {
        let h = self.fcp_mut();
        let Some(m) = h.mobile_of_node.get(pkt.dst as usize).copied().flatten() else {
            // Uplink traffic: an ordinary router.
            self.forward(n, pkt);
            return;
        };
        let m = m as usize;
        let b = if h.bs[0] == n { 0 } else { 1 };
        // Most packets were never forwarded: skip hashing when nothing is in flight between BSs.
        let was_forwarded = !h.forwarded.is_empty() && h.forwarded.remove(&pkt.uid);
        if h.mobiles[m].at != b {
            // The mobile has left this base station.
            self.fcp_old_bs(m, b, pkt);
            self.fcp_check_drained(m);
        } else if was_forwarded {
            self.fcp_forwarded_arrives(m, pkt);
            self.fcp_check_drained(m);
        } else if h.mobiles[m].holding {
            self.fcp_hold(m, pkt);
        } else {
            self.fcp_send_to_mobile(m, pkt);
        }
    }

    /// The scheme at a base station `b` the mobile has left.
    fn fcp_old_bs(&mut self, m: usize, b: usize, pkt: Packet) {
        let h = self.fcp_mut();
        let rec_idx = h.mobiles[m].draining;
        let record = h.record_uids;
        match h.scheme {
            FcpScheme::Drop => {
                if let Some(r) = rec_idx {
                    let rec = &mut h.log[r];
                    rec.dropped_pkts += 1;
                    if record {
                        rec.dropped_uids.push(pkt.uid);
                    }
                }
                self.counters.dropped_handover += 1;
            }
            FcpScheme::Forward | FcpScheme::Rearrange => {
                if let Some(r) = rec_idx {
                    let rec = &mut h.log[r];
                    rec.forwarded_pkts += 1;
                    if record {
                        rec.forwarded_uids.push(pkt.uid);
                    }
                }
                h.forwarded.insert(pkt.uid);
                let l = h.forward[b];
                let dropped_before = self.links[l as usize].queue.stats.dropped;
                self.link_enqueue(l, pkt);
                if self.links[l as usize].queue.stats.dropped > dropped_before {
                    let h = self.fcp_mut();
                    h.forwarded.remove(&pkt.uid);
                    h.forward_queue_drops += 1;
                }
            }
        }
    }

    /// A forwarded packet reaches the base station the mobile is attached to.
    fn fcp_forwarded_arrives(&mut self, m: usize, pkt: Packet) {
        let h = self.fcp_mut();
        let mob = &h.mobiles[m];
        let overtaken = pkt.is_data() && pkt.seq + (pkt.len as u64) <= mob.direct_seq_end;
        if let Some(r) = mob.draining {
            h.log[r].forwarded_overtaken_pkts += overtaken as u64;
        }
        if h.mobiles[m].holding {
            // Forward-and-rearrange: forwarded packets go ahead of the held ones, within the buffer.
            if !self.fcp_buffer_has_room(m) {
                let h = self.fcp_mut();
                if h.overflow == RearrangeOverflow::EvictHeld && !h.mobiles[m].hold.is_empty() {
                    h.mobiles[m].hold.pop_back();
                    self.fcp_buffer_drop(m, false);
                } else {
                    self.fcp_buffer_drop(m, true);
                    return;
                }
            }
            let l = self.fcp_ref().mobiles[m].down[self.fcp_ref().mobiles[m].at];
            self.link_enqueue(l, pkt);
            let h = self.fcp.as_deref_mut().expect("fcp mechanism");
            let mob = &h.mobiles[m];
            let occupancy = mob.hold.len() as u64 + self.links[mob.down[mob.at] as usize].queue.len_pkts() as u64;
            if let Some(r) = mob.draining {
                h.log[r].bs_buffer_max_pkts = h.log[r].bs_buffer_max_pkts.max(occupancy);
            }
        } else {
            let l = self.fcp_ref().mobiles[m].down[self.fcp_ref().mobiles[m].at];
            self.link_enqueue(l, pkt);
        }
    }

    /// Forward-and-rearrange: the new base station holds a direct packet back.
    fn fcp_hold(&mut self, m: usize, pkt: Packet) {
        if !self.fcp_buffer_has_room(m) {
            self.fcp_buffer_drop(m, false);
            return;
        }
        let h = self.fcp.as_deref_mut().expect("fcp mechanism");
        let mob = &mut h.mobiles[m];
        mob.hold.push_back(pkt);
        let held = mob.hold.len() as u64;
        let occupancy = held + self.links[mob.down[mob.at] as usize].queue.len_pkts() as u64;
        if let Some(r) = mob.draining {
            let rec = &mut h.log[r];
            rec.held_max_pkts = rec.held_max_pkts.max(held);
            rec.bs_buffer_max_pkts = rec.bs_buffer_max_pkts.max(occupancy);
        }
    }

    /// A direct packet leaves the base station the mobile is attached to, towards the mobile.
    fn fcp_send_to_mobile(&mut self, m: usize, pkt: Packet) {
        let mob = &mut self.fcp_mut().mobiles[m];
        if pkt.is_data() {
            mob.direct_seq_end = mob.direct_seq_end.max(pkt.seq + pkt.len as u64);
        }
        let l = mob.down[mob.at];
        self.link_enqueue(l, pkt);
    }

    /// Room in the base station's buffer for mobile `m`: wireless queue plus held packets.
    fn fcp_buffer_has_room(&self, m: usize) -> bool {
        let h = self.fcp_ref();
        let mob = &h.mobiles[m];
        let queued = self.links[mob.down[mob.at] as usize].queue.len_pkts() as u64;
        queued + (mob.hold.len() as u64) < h.buffer_pkts as u64
    }

    fn fcp_buffer_drop(&mut self, m: usize, forwarded: bool) {
        let h = self.fcp_mut();
        if let Some(r) = h.mobiles[m].draining {
            h.log[r].buffer_drops += 1;
            h.log[r].forwarded_buffer_drops += forwarded as u64;
        }
        self.counters.dropped_handover += 1;
    }

    /// Ends the last handover of mobile `m` once neither the old path nor the forwarding path
    /// carries a packet for it; under `rearrange`, releases the held packets then.
    fn fcp_check_drained(&mut self, m: usize) {
        let h = self.fcp_ref();
        let mob = &h.mobiles[m];
        let Some(r) = mob.draining else { return };
        let old = 1 - mob.at;
        let pending = on_link_for(self, h.fcp_to_bs[old], mob.node).next().is_some()
            || on_link_for(self, h.forward[old], mob.node).next().is_some();
        if pending {
            return;
        }
        let now = self.now;
        let h = self.fcp_mut();
        h.log[r].end_ns.get_or_insert(now);
        let mob = &mut h.mobiles[m];
        mob.draining = None;
        if mob.holding {
            mob.holding = false;
            let held: Vec<Packet> = mob.hold.drain(..).collect();
            for pkt in held {
                self.fcp_send_to_mobile(m, pkt);
            }
        }
    }

    /// Summary fields: `handovers`, per-flow `throughput_fraction`, and the `fcp` report.
    fn fcp_finish(&mut self) {
        let now = self.now;
        let h = self.fcp.take().expect("fcp mechanism");
        let measured_s = ns_to_s(now.saturating_sub(h.warmup_ns)).max(1e-12);
        let mut fractions = Vec::new();
        for (i, mob) in h.mobiles.iter().enumerate() {
            let flow = &mut self.flows[mob.flow as usize];
            let goodput = (flow.delivered_bytes - mob.delivered_at_warmup) as f64 * 8.0 / measured_s;
            let fraction = goodput / h.available_bps;
            fractions.push(fraction);
            flow.extra.insert("mobile".into(), mobile_name(i as u32).into());
            flow.extra.insert("available_bps".into(), h.available_bps.into());
            flow.extra.insert("goodput_measured_bps".into(), goodput.into());
            flow.extra.insert("throughput_fraction".into(), fraction.into());
            flow.extra.insert("handovers".into(), mob.handovers.into());
        }
        let name = |b: usize| BS[b];
        for rec in &h.log {
            self.handovers.push(serde_json::json!({
                "ue": mobile_name(rec.mobile),
                "start_s": ns_to_s(rec.start_ns),
                "end_s": rec.end_ns.map(ns_to_s),
                "scheme": h.scheme.name(),
                "from": name(rec.from),
                "to": name(rec.to),
                "past_fcp_pkts": rec.past_fcp_pkts,
                "dropped_pkts": rec.dropped_pkts,
                "forwarded_pkts": rec.forwarded_pkts,
                "forwarded_overtaken_pkts": rec.forwarded_overtaken_pkts,
                "held_max_pkts": rec.held_max_pkts,
                "bs_buffer_max_pkts": rec.bs_buffer_max_pkts,
                "buffer_drops": rec.buffer_drops,
                "forwarded_buffer_drops": rec.forwarded_buffer_drops,
            }));
        }
        let sum = |f: fn(&HandoverRecord) -> u64| h.log.iter().map(f).sum::<u64>();
        let mean_fraction = fractions.iter().sum::<f64>() / fractions.len().max(1) as f64;
        self.report.insert(
            "fcp".into(),
            serde_json::json!({
                "scheme": h.scheme.name(),
                "handover_interval_s": h.interval_s,
                "handover_interval_rtt": h.interval_s.map(|s| s / h.rtt_unit_s),
                "rtt_unit_s": h.rtt_unit_s,
                "warmup_s": ns_to_s(h.warmup_ns),
                "available_bps": h.available_bps,
                "fcp_bs_delay_s": h.fcp_bs_delay_s,
                "forward_delay_s": h.forward_delay_s,
                "mean_throughput_fraction": mean_fraction,
                "handovers": h.log.len(),
                "dropped_pkts": sum(|r| r.dropped_pkts),
                "forwarded_pkts": sum(|r| r.forwarded_pkts),
                "forwarded_overtaken_pkts": sum(|r| r.forwarded_overtaken_pkts),
                "buffer_drops": sum(|r| r.buffer_drops),
                "forwarded_buffer_drops": sum(|r| r.forwarded_buffer_drops),
                "forward_queue_drops": h.forward_queue_drops,
            }),
        );
        self.fcp = Some(h);
    }
}

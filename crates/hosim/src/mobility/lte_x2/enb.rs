//! The eNodeB: one downlink queue per UE, a scheduler that shares the cell's radio among the
//! attached UEs, and the radio links it feeds.
//!
//! The radio is time-shared: the scheduler hands one packet at a time to the chosen UE's
//! radio link (a graph link `enb->ue` whose rate is the UE's radio rate) and keeps the cell
//! busy for that packet's transmission time. So the UEs of a cell share the cell's capacity
//! and each UE's link adds its own radio delay.

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::net::queue::{PacketStore, Queue, QueueLimit};
use crate::net::{LinkId, NodeId};

/// Downlink scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerKind {
    /// Weighted fair queueing by bytes, realised as deficit round robin (Shreedhar & Varghese,
    /// 1995): each backlogged UE gets `weight * quantum` bytes per round, so long-run shares
    /// follow the weights as in WFQ, at O(1) cost per packet.
    Wfq,
    /// Packet-by-packet round robin over backlogged UEs.
    RoundRobin,
}

/// Deficit quantum per unit weight: one full-sized IP packet.
pub const WFQ_QUANTUM_BYTES: u64 = 1500;

#[derive(Clone, Debug)]
pub struct Scheduler {
    pub kind: SchedulerKind,
    /// UE index served last (round-robin pointer).
    cursor: usize,
    /// Unused byte credit per UE (WFQ).
    deficit: Vec<u64>,
    weights: Vec<f64>,
}

impl Scheduler {
    pub fn new(kind: SchedulerKind, weights: Vec<f64>) -> Scheduler {
        Scheduler { kind, cursor: weights.len().saturating_sub(1), deficit: vec![0; weights.len()], weights }
    }

    /// Picks the UE to serve next among those with `backlog(ue) = Some(head packet bytes)`.
    pub fn pick(&mut self, backlog: impl Fn(usize) -> Option<u32>) -> Option<usize> {
        let n = self.weights.len();
        if (0..n).all(|u| backlog(u).is_none()) {
            return None;
        }
        match self.kind {
            SchedulerKind::RoundRobin => {
                let u = (1..=n).map(|k| (self.cursor + k) % n).find(|&u| backlog(u).is_some())?;
                self.cursor = u;
                Some(u)
            }
            SchedulerKind::Wfq => loop {
                // Serve the current UE while its deficit covers its head packet; otherwise move
                // on, granting the next backlogged UE its quantum.
                let cur = self.cursor;
                if let Some(head) = backlog(cur) {
                    if self.deficit[cur] >= head as u64 {
                        self.deficit[cur] -= head as u64;
                        return Some(cur);
                    }
                } else {
                    self.deficit[cur] = 0;
                }
                let next = (cur + 1) % n;
                self.cursor = next;
                if backlog(next).is_some() {
                    self.deficit[next] += (self.weights[next] * WFQ_QUANTUM_BYTES as f64).round().max(1.0) as u64;
                } else {
                    self.deficit[next] = 0;
                }
            },
        }
    }
}

/// Packet counts through one eNodeB's buffers, for the conservation check.
#[derive(Clone, Debug, Default)]
pub struct EnbStats {
    /// Packets accepted into any buffer of this eNodeB.
    pub buffered: u64,
    /// Packets that left a buffer (to the radio, forwarded, released upstream).
    pub unbuffered: u64,
    /// Packets sent on the radio.
    pub radio_packets: u64,
    /// Downlink packets dropped because a UE queue was full.
    pub queue_drops: u64,
    /// Packets dropped at the tunnel end because their outer CE mark could not be passed on.
    pub tunnel_ce_drops: u64,
    /// CE marks copied from the outer into the inner header.
    pub tunnel_ce_copied: u64,
}

pub struct Enb {
    pub node: NodeId,
    pub name: String,
    /// Downlink queue per UE (indexed by UE), served only while the UE is attached here.
    pub queues: Vec<Queue>,
    /// Direct packets held by the target's reordering function until the end marker.
    pub held_direct: Vec<Queue>,
    /// The packets in `queues` and `held_direct`, which those queues refer to by slot.
    pub store: PacketStore,
    /// Uplink packets of UEs that are attaching here, sent on once they have attached.
    pub held_uplink: VecDeque<Packet>,
    /// Radio downlink `enb->ue` per UE, where the UE can attach to this eNodeB.
    pub downlinks: Vec<Option<LinkId>>,
    pub radio_bps: u64,
    pub scheduler: Scheduler,
    /// The radio is transmitting a packet.
    pub busy: bool,
    pub stats: EnbStats,
}

impl Enb {
    pub fn new(
        node: NodeId,
        name: String,
        n_ues: usize,
        limit: QueueLimit,
        radio_bps: u64,
        scheduler: Scheduler,
    ) -> Enb {
        Enb {
            node,
            name,
            queues: (0..n_ues).map(|_| Queue::new(limit, None)).collect(),
            held_direct: (0..n_ues).map(|_| Queue::new(limit, None)).collect(),
            store: PacketStore::default(),
            held_uplink: VecDeque::new(),
            downlinks: vec![None; n_ues],
            radio_bps,
            scheduler,
            busy: false,
            stats: EnbStats::default(),
        }
    }

    /// Packets waiting in this eNodeB's buffers.
    pub fn held(&self) -> u64 {
        let q: u64 = self.queues.iter().chain(self.held_direct.iter()).map(|q| q.len_pkts() as u64).sum();
        q + self.held_uplink.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve(s: &mut Scheduler, backlog: &mut [Vec<u32>], n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for _ in 0..n {
            let Some(u) = s.pick(|u| backlog[u].first().copied()) else { break };
            backlog[u].remove(0);
            out.push(u);
        }
        out
    }

    #[test]
    fn round_robin_alternates_between_backlogged_ues() {
        let mut s = Scheduler::new(SchedulerKind::RoundRobin, vec![1.0; 3]);
        let mut b = vec![vec![1500; 4], vec![], vec![1500; 4]];
        assert_eq!(serve(&mut s, &mut b, 6), vec![0, 2, 0, 2, 0, 2]);
    }

    #[test]
    fn wfq_shares_bytes_equally_whatever_the_packet_sizes() {
        let mut s = Scheduler::new(SchedulerKind::Wfq, vec![1.0; 2]);
        // UE 0 sends 1500-byte packets, UE 1 sends 500-byte packets.
        let mut b = vec![vec![1500; 100], vec![500; 300]];
        let order = serve(&mut s, &mut b, 200);
        let bytes = |u: usize| order.iter().filter(|&&x| x == u).count() as u64 * if u == 0 { 1500 } else { 500 };
        let (b0, b1) = (bytes(0), bytes(1));
        assert!((b0 as i64 - b1 as i64).abs() <= 1500, "byte shares {b0} vs {b1}");
    }

    #[test]
    fn wfq_follows_weights() {
        let mut s = Scheduler::new(SchedulerKind::Wfq, vec![2.0, 1.0]);
        let mut b = vec![vec![1500; 100], vec![1500; 100]];
        let order = serve(&mut s, &mut b, 90);
        let n0 = order.iter().filter(|&&x| x == 0).count();
        assert_eq!(n0, 60, "UE 0 has twice the weight: {order:?}");
    }

    #[test]
    fn scheduler_idles_when_nothing_is_queued() {
        let mut s = Scheduler::new(SchedulerKind::Wfq, vec![1.0; 2]);
        assert_eq!(s.pick(|_| None), None);
    }
}

//! Deficit round robin (Shreedhar & Varghese, "Efficient Fair Queueing Using Deficit Round
//! Robin", 1995) and plain round robin over a fixed set of queues, by index: a base station's
//! per-UE queues today, a flow-queueing discipline's per-flow queues (FQ-CoDel's scheduler is
//! DRR, RFC 8290 §4) tomorrow. The scheduler holds no packets: the caller tells it which
//! queues are backlogged and how big their head packets are.

/// Scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerKind {
    /// Weighted fair queueing by bytes, realised as deficit round robin (Shreedhar & Varghese,
    /// 1995): each backlogged queue gets `weight * quantum` bytes per round, so long-run shares
    /// follow the weights as in WFQ, at O(1) cost per packet.
    Wfq,
    /// Packet-by-packet round robin over backlogged queues.
    RoundRobin,
}

/// Deficit quantum per unit weight: one full-sized IP packet.
pub const WFQ_QUANTUM_BYTES: u64 = 1500;

/// A scheduler over `weights.len()` queues, indexed from 0.
#[derive(Clone, Debug)]
pub struct Scheduler {
    pub kind: SchedulerKind,
    /// Queue served last (round-robin pointer).
    cursor: usize,
    /// Unused byte credit per queue (WFQ).
    deficit: Vec<u64>,
    weights: Vec<f64>,
}

impl Scheduler {
    pub fn new(kind: SchedulerKind, weights: Vec<f64>) -> Scheduler {
        Scheduler { kind, cursor: weights.len().saturating_sub(1), deficit: vec![0; weights.len()], weights }
    }

    /// Picks the queue to serve next among those with `backlog(q) = Some(head packet bytes)`.
    pub fn pick(&mut self, backlog: impl Fn(usize) -> Option<u32>) -> Option<usize> {
        let n = self.weights.len();
        // WFQ: the current queue goes on while its deficit covers its head packet, without a
        // look at the others (the loop below would serve it first all the same). A packet has
        // at least one byte, so a spent deficit needs no look at the head (a cache miss when
        // many queues take turns).
        if self.kind == SchedulerKind::Wfq && n > 0 && self.deficit[self.cursor] > 0 {
            let cur = self.cursor;
            if let Some(head) = backlog(cur).filter(|&h| self.deficit[cur] >= h as u64) {
                self.deficit[cur] -= head as u64;
                return Some(cur);
            }
        }
        if n == 0 {
            return None;
        }
        // The queues from the one after the cursor round to the cursor, in two ranges rather
        // than a division per queue (a cell's scan passes every UE when few are backlogged).
        let from = if self.cursor + 1 == n { 0 } else { self.cursor + 1 };
        let round = || (from..n).chain(0..from);
        // Any backlog at all? Looked for from the cursor on, where the search below goes.
        if !round().any(|u| backlog(u).is_some()) {
            return None;
        }
        match self.kind {
            SchedulerKind::RoundRobin => {
                let u = round().find(|&u| backlog(u).is_some())?;
                self.cursor = u;
                Some(u)
            }
            SchedulerKind::Wfq => loop {
                // Serve the current queue while its deficit covers its head packet; otherwise
                // move on, granting the next backlogged queue its quantum.
                let cur = self.cursor;
                if self.deficit[cur] == 0 {
                    // Nothing to serve here, backlogged or not.
                } else if let Some(head) = backlog(cur) {
                    if self.deficit[cur] >= head as u64 {
                        self.deficit[cur] -= head as u64;
                        return Some(cur);
                    }
                } else {
                    self.deficit[cur] = 0;
                }
                let next = if cur + 1 == n { 0 } else { cur + 1 };
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
    fn round_robin_alternates_between_backlogged_queues() {
        let mut s = Scheduler::new(SchedulerKind::RoundRobin, vec![1.0; 3]);
        let mut b = vec![vec![1500; 4], vec![], vec![1500; 4]];
        assert_eq!(serve(&mut s, &mut b, 6), vec![0, 2, 0, 2, 0, 2]);
    }

    #[test]
    fn wfq_shares_bytes_equally_whatever_the_packet_sizes() {
        let mut s = Scheduler::new(SchedulerKind::Wfq, vec![1.0; 2]);
        // Queue 0 holds 1500-byte packets, queue 1 500-byte packets.
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
        assert_eq!(n0, 60, "queue 0 has twice the weight: {order:?}");
    }

    #[test]
    fn scheduler_idles_when_nothing_is_queued() {
        let mut s = Scheduler::new(SchedulerKind::Wfq, vec![1.0; 2]);
        assert_eq!(s.pick(|_| None), None);
    }
}

//! The inter-RAT `handovers` entry: what the handover did in the RANs (lost, forwarded,
//! duplicated packets) and to TCP (retransmissions, timeouts, convergence time).

use serde::Serialize;

use super::convergence::{convergence_time, rate_before};
use super::{InterRat, TcpSnap, SOURCE, TARGET};
use crate::engine::time::ns_to_s;
use crate::sim::{HandoverRecord, Report, World};

/// The mechanism-specific part of the `handovers` entry.
#[derive(Serialize)]
pub struct InterRatEntry {
    pub direction: &'static str,
    pub source: &'static str,
    pub target: &'static str,
    pub source_rate_bps: u64,
    pub target_rate_bps: u64,
    pub bicast_start_s: Option<f64>,
    /// Packets left in the source RAN with no copy elsewhere: lost.
    pub lost_in_source_packets: u64,
    /// Packets dropped in the source RAN whose bicast copy the target delivered.
    pub dropped_with_copy_packets: u64,
    pub forwarded_packets: u64,
    pub bicast_copies: u64,
    pub duplicated_packets: u64,
    pub ran_buffer_drops: u64,
    pub source_max_queued_packets: u64,
    pub target_max_queued_packets: u64,
    /// TCP events from handover preparation (bicasting start, else the UE leaving) to the
    /// end of the run.
    pub retransmissions: u64,
    /// Of those, the ones sent by the end of the convergence window (convergence time + W):
    /// the handover's, without later unrelated events (None without a convergence time).
    pub retransmissions_until_converged: Option<u64>,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub fast_recoveries: u64,
    /// Delivery rate over `pre_window_s` before the UE leaves.
    pub pre_rate_bps: Option<f64>,
    /// See `convergence.rs`; None if the rate never came back within the run, or the transfer
    /// ended before the handover.
    pub convergence_time_s: Option<f64>,
    pub convergence_window_s: f64,
    pub convergence_fraction: f64,
    pub completion_s: Option<f64>,
}

impl InterRat {
    /// The convergence time (s) and the pre-handover rate (bit/s) of this run's delivery trace.
    pub fn convergence(&self) -> (Option<f64>, Option<f64>) {
        let c = &self.cfg;
        let Some(pre) = rate_before(&self.deliveries, c.detach_ns, c.pre_window_ns) else { return (None, None) };
        let t = convergence_time(
            &self.deliveries,
            c.detach_ns,
            pre,
            c.convergence_window_ns,
            c.convergence_fraction,
            c.slack_bytes,
        );
        (t.map(ns_to_s), Some(pre * 8.0))
    }

    /// The sender's retransmissions at the end of the convergence window that starts `c`
    /// seconds after the move (the last sample at or before it).
    fn retransmits_by(&self, c: f64) -> u64 {
        let at = self.cfg.detach_ns + (c * 1e9).round() as u64 + self.cfg.convergence_window_ns;
        let i = self.deliveries.partition_point(|(t, _)| *t <= at);
        self.retransmits[i.saturating_sub(1)]
    }

    pub(super) fn summary(&self, world: &World) -> Report {
        let flow = &world.flows[self.flow as usize];
        let before = self.snap.unwrap_or_else(|| TcpSnap::of(flow));
        let after = TcpSnap::of(flow);
        let (convergence_time_s, pre_rate_bps) = self.convergence();
        let n = &self.counts;
        let detail = InterRatEntry {
            direction: self.cfg.direction.name(),
            source: self.rans[SOURCE].name,
            target: self.rans[TARGET].name,
            source_rate_bps: self.rans[SOURCE].rate_bps,
            target_rate_bps: self.rans[TARGET].rate_bps,
            bicast_start_s: self.cfg.bicast_start_ns.map(ns_to_s),
            lost_in_source_packets: n.lost_in_source,
            dropped_with_copy_packets: n.dropped_with_copy,
            forwarded_packets: n.forwarded,
            bicast_copies: n.bicast_copies,
            duplicated_packets: n.duplicated,
            ran_buffer_drops: n.ran_buffer_drops,
            source_max_queued_packets: self.rans[SOURCE].buffer.stats.max_held_packets,
            target_max_queued_packets: self.rans[TARGET].buffer.stats.max_held_packets,
            retransmissions: after.retransmits - before.retransmits,
            retransmissions_until_converged: convergence_time_s
                .map(|c| self.retransmits_by(c).saturating_sub(before.retransmits)),
            timeouts: after.timeouts - before.timeouts,
            spurious_timeouts: after.spurious_timeouts - before.spurious_timeouts,
            fast_recoveries: after.fast_recoveries - before.fast_recoveries,
            pre_rate_bps,
            convergence_time_s,
            convergence_window_s: ns_to_s(self.cfg.convergence_window_ns),
            convergence_fraction: self.cfg.convergence_fraction,
            completion_s: flow.completion_ns.map(ns_to_s),
        };
        let mut report = Report::default();
        let scheme = self.cfg.scheme.name().to_string();
        let (start, end) = (ns_to_s(self.cfg.detach_ns), ns_to_s(self.cfg.switch_ns));
        report.handovers.push(HandoverRecord::new("ue".into(), start, Some(end), scheme, &detail));
        report
    }
}

//! The LTE summary: one `handovers` entry per handover with its timeline and outcome (paper
//! §IV, Fig. 8), and the top-level `lte_x2` entry with per-eNodeB radio and tunnel counters
//! and the per-UE queue statistics.

use serde::Serialize;

use super::handover::{FlowSnap, Handover};
use super::LteX2;
use crate::engine::time::{ns_to_s, SimTime};
use crate::sim::{HandoverRecord, Report, World};

/// The mechanism-specific part of a `handovers` entry.
#[derive(Serialize)]
pub struct HandoverEntry {
    path_switch: &'static str,
    source: String,
    target: String,
    command_s: f64,
    attach_s: Option<f64>,
    path_switch_sent_s: Option<f64>,
    sgw_switch_s: Option<f64>,
    end_marker_at_source_s: Option<f64>,
    end_marker_at_target_s: Option<f64>,
    reordering_ended_s: Option<f64>,
    reordering_timed_out: bool,
    prediction_error_s: f64,
    forwarded_packets: u64,
    held_direct_packets: u64,
    window_start_s: f64,
    window_end_s: Option<f64>,
    window_closed: bool,
    outcome: Option<&'static str>,
    timeouts: Option<u64>,
    fast_recoveries: Option<u64>,
    ecn_reductions: Option<u64>,
    timeouts_until_end: u64,
    delivered_bytes_window: Option<u64>,
}

/// The top-level `lte_x2` entry.
#[derive(Serialize)]
pub struct LteX2Entry {
    path_switch: &'static str,
    enbs: Vec<EnbEntry>,
}

#[derive(Serialize)]
pub struct EnbEntry {
    name: String,
    sgw_tunnelled_packets: u64,
    radio_bps: u64,
    radio_packets: u64,
    queue_drops: u64,
    tunnel_ce_copied: u64,
    tunnel_ce_drops: u64,
    ue_queues: Vec<UeQueueEntry>,
}

#[derive(Serialize)]
pub struct UeQueueEntry {
    ue: String,
    enqueued: u64,
    dropped: u64,
    mean_len_pkts: f64,
    max_len_pkts: u32,
}

fn opt_s(t: Option<SimTime>) -> Option<f64> {
    t.map(ns_to_s)
}

impl LteX2 {
    pub(super) fn summary(&self, world: &World) -> Report {
        let mut report = Report::default();
        for (h, ho) in self.handovers.iter().enumerate() {
            let detail =
                self.handover_entry(ho, self.ref_snap(&world.flows, h), self.ref_delivered(&world.flows, h), world.now);
            let end = ho.reordering_ended_ns.max(ho.attach_ns);
            let scheme = format!("x2-{}", self.cfg.path_switch.name());
            let ue = self.ran.ues[ho.ue].name.clone();
            report.handovers.push(HandoverRecord::new(ue, ns_to_s(ho.decision_ns), opt_s(end), scheme, &detail));
        }
        report.add_field("lte_x2", &self.entry(world.end_ns));
        report
    }

    /// The handover's own fields. `final_snap` and `final_delivered` are the reference flow's
    /// counts at the end of the run (for `timeouts_until_end`, and for a window the run ended
    /// before it closed). A window still open when the run ends is measured up to the end of
    /// the run (`window_closed` false); before the decision there is nothing to report.
    fn handover_entry(&self, ho: &Handover, final_snap: FlowSnap, final_delivered: u64, now: SimTime) -> HandoverEntry {
        let result = match ho.result {
            Some(r) => Some(r),
            None if now >= ho.decision_ns => {
                Some((final_snap.since(ho.snap_start), final_delivered - ho.delivered_at_decision))
            }
            None => None,
        };
        let events = result.map(|(ev, _)| ev);
        HandoverEntry {
            path_switch: self.cfg.path_switch.name(),
            source: self.ran.cells[ho.source].name.clone(),
            target: self.ran.cells[ho.target].name.clone(),
            command_s: ns_to_s(ho.command_ns),
            attach_s: opt_s(ho.attach_ns),
            path_switch_sent_s: opt_s(ho.path_switch_sent_ns),
            sgw_switch_s: opt_s(ho.sgw_switch_ns),
            end_marker_at_source_s: opt_s(ho.end_marker_at_source_ns),
            end_marker_at_target_s: opt_s(ho.end_marker_at_target_ns),
            reordering_ended_s: opt_s(ho.reordering_ended_ns),
            reordering_timed_out: ho.reordering_timed_out,
            prediction_error_s: ho.prediction_error_ns as f64 / 1e9,
            forwarded_packets: ho.forwarded_packets,
            held_direct_packets: ho.held_direct_packets,
            window_start_s: ns_to_s(ho.window_start_ns),
            window_end_s: opt_s(ho.window_end_ns),
            window_closed: ho.result.is_some(),
            outcome: events.map(|e| e.outcome().name()),
            timeouts: events.map(|e| e.timeouts),
            fast_recoveries: events.map(|e| e.fast_recoveries),
            ecn_reductions: events.map(|e| e.ecn_reductions),
            timeouts_until_end: final_snap.timeouts - ho.snap_start.timeouts,
            delivered_bytes_window: result.map(|(_, bytes)| bytes),
        }
    }

    /// Per-eNodeB radio and tunnel counters and the per-UE queue statistics at `now`.
    fn entry(&self, now: SimTime) -> LteX2Entry {
        let enbs = self
            .ran
            .cells
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let ue_queues = self
                    .ran
                    .ues
                    .iter()
                    .enumerate()
                    .filter(|(u, _)| e.downlinks[*u].is_some())
                    .map(|(u, ue)| {
                        let q = &e.buffers.queues[u];
                        UeQueueEntry {
                            ue: ue.name.clone(),
                            enqueued: q.stats.enqueued,
                            dropped: q.stats.dropped,
                            mean_len_pkts: q.mean_len_pkts(now),
                            max_len_pkts: q.stats.max_len_pkts,
                        }
                    })
                    .collect();
                EnbEntry {
                    name: e.name.clone(),
                    sgw_tunnelled_packets: self.sgw_tunnelled[i],
                    radio_bps: e.radio_bps,
                    radio_packets: e.radio.packets,
                    queue_drops: e.buffers.stats.drops,
                    tunnel_ce_copied: e.tunnel.ce_copied,
                    tunnel_ce_drops: e.tunnel.ce_drops,
                    ue_queues,
                }
            })
            .collect();
        LteX2Entry { path_switch: self.cfg.path_switch.name(), enbs }
    }
}

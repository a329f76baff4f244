//! The summary entries: one `handovers` entry per handover, and the top-level `cellular`
//! entry with each cell's load and drops.

use serde::Serialize;

use super::handover::Handover;
use super::Cellular;
use crate::engine::time::{ns_to_s, SimTime};
use crate::sim::{HandoverRecord, Report, World};

/// The mechanism-specific part of a `handovers` entry.
#[derive(Serialize)]
pub struct HandoverEntry {
    source: String,
    target: String,
    command_s: Option<f64>,
    /// Hard schemes: attach to the target. DAPS: access to the target.
    attach_s: Option<f64>,
    release_s: Option<f64>,
    path_switch_s: Option<f64>,
    /// Time the UE was served by no cell.
    interruption_s: f64,
    forwarded_packets: u64,
    forwarded_copies: u64,
    dropped_packets: u64,
    source_discarded_packets: u64,
    duplicates_discarded: u64,
    /// `pdcp_discard_duplicates = false`: copies that went on to TCP instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    duplicates_passed: Option<u64>,
    late_discarded: u64,
    /// Packets of the UE the (source, target) radio sent from the command to the release
    /// (DAPS only: both cells serve the UE meanwhile).
    overlap_radio_packets: Option<(u64, u64)>,
    /// The longest a packet waited in the UE's PDCP reordering buffer.
    reordering_delay_max_s: f64,
    /// The longest in-order delivery stalled on a missing SN (at most t-Reordering).
    reordering_stall_max_s: f64,
    window_end_s: Option<f64>,
    /// optimal | halving | timeout, once the window has closed.
    outcome: Option<&'static str>,
    timeouts: Option<u64>,
    spurious_timeouts: Option<u64>,
    fast_recoveries: Option<u64>,
    retransmits: Option<u64>,
    timeouts_until_end: u64,
    /// `cho`: the cells prepared, when the UE had them, whether its radio link failed first,
    /// and the copies discarded by the target (sent by the source already) and by the
    /// candidates not chosen.
    candidates: Vec<String>,
    prepared_s: Option<f64>,
    radio_link_failure: bool,
    early_discarded: u64,
    cancelled_discarded: u64,
    /// `bicast`: copies the gateway sent to the target.
    bicast_copies: u64,
    /// Target reordering: direct packets the target held, when it stopped holding, and
    /// whether on its timeout rather than the end marker.
    held_direct_packets: u64,
    reordering_ended_s: Option<f64>,
    reordering_timed_out: bool,
}

/// The top-level `cellular` entry.
#[derive(Serialize)]
pub struct CellularEntry {
    scheme: &'static str,
    cells: Vec<CellEntry>,
}

#[derive(Serialize)]
pub struct CellEntry {
    name: String,
    radio_bps: u64,
    radio_packets: u64,
    radio_bytes: u64,
    /// Variable rates: the cell's mean capacity over the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_mean_bps: Option<f64>,
    /// Bytes sent on the radio against the cell's capacity (`cell_bps`, or its mean).
    load: f64,
    buffer_drops: u64,
    gw_tunnelled_packets: u64,
}

fn opt_s(t: Option<SimTime>) -> Option<f64> {
    t.map(ns_to_s)
}

impl Cellular {
    pub(super) fn summary(&self, world: &World) -> Report {
        let mut report = Report::default();
        for (h, ho) in self.handovers.iter().enumerate() {
            let end = ho.release_ns.or(ho.attach_ns).max(ho.path_switch_ns);
            let ue = self.ran.ues[ho.ue].name.clone();
            let detail = self.handover_entry(world, h, ho);
            report.handovers.push(HandoverRecord::new(
                ue,
                ns_to_s(ho.decision_ns),
                opt_s(end),
                ho.scheme.name().to_string(),
                &detail,
            ));
        }
        report.add_field("cellular", &self.entry(world));
        report
    }

    fn handover_entry(&self, world: &World, h: usize, ho: &Handover) -> HandoverEntry {
        let events = ho.result.map(|(s, _)| s);
        let interruption_s = match ho.scheme {
            super::SchemeName::Daps => ns_to_s(self.p.interruption_ns),
            _ => ho.attach_ns.zip(ho.command_ns).map_or(0.0, |(a, c)| ns_to_s(a - c)),
        };
        let overlap = ho.release_ns.map(|_| {
            let (a, b) = (ho.radio_at_command, ho.radio_at_release);
            (b.0 - a.0, b.1 - a.1)
        });
        HandoverEntry {
            source: self.ran.cells[ho.source].name.clone(),
            target: self.ran.cells[ho.target].name.clone(),
            command_s: opt_s(ho.command_ns),
            attach_s: opt_s(ho.attach_ns),
            release_s: opt_s(ho.release_ns),
            path_switch_s: opt_s(ho.path_switch_ns),
            interruption_s,
            forwarded_packets: ho.forwarded,
            forwarded_copies: ho.forwarded_copies,
            dropped_packets: ho.dropped,
            source_discarded_packets: ho.source_discarded,
            duplicates_discarded: ho.duplicates_discarded,
            duplicates_passed: ho.duplicates_passed,
            late_discarded: ho.late_discarded,
            overlap_radio_packets: overlap,
            reordering_delay_max_s: ns_to_s(ho.max_reordering_ns),
            reordering_stall_max_s: ns_to_s(ho.max_stall_ns),
            window_end_s: ho.result.map(|(_, t)| ns_to_s(t)),
            outcome: events.map(|e| e.outcome()),
            timeouts: events.map(|e| e.timeouts),
            spurious_timeouts: events.map(|e| e.spurious_timeouts),
            fast_recoveries: events.map(|e| e.fast_recoveries),
            retransmits: events.map(|e| e.retransmits),
            timeouts_until_end: self.snap_until_end(&world.flows, h).timeouts,
            candidates: ho.candidates.iter().map(|&c| self.ran.cells[c].name.clone()).collect(),
            prepared_s: opt_s(ho.prepared_ns),
            radio_link_failure: ho.rlf,
            early_discarded: ho.early_discarded,
            cancelled_discarded: ho.cancelled_discarded,
            bicast_copies: ho.bicast_copies,
            held_direct_packets: ho.held_direct,
            reordering_ended_s: opt_s(ho.reordering_ended_ns),
            reordering_timed_out: ho.reordering_timed_out,
        }
    }

    fn entry(&self, world: &World) -> CellularEntry {
        let secs = ns_to_s(world.now).max(1e-9);
        let cells = self
            .ran
            .cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let radio_bytes: u64 =
                    c.downlinks.iter().flatten().map(|&l| world.links[l as usize].stats.tx_bytes).sum();
                let mean = self.rates.as_ref().map(|r| r.mean_capacity_bps(i, world.now));
                let capacity_bps = mean.unwrap_or(c.radio_bps as f64);
                CellEntry {
                    name: c.name.clone(),
                    radio_bps: c.radio_bps,
                    radio_packets: c.radio.packets,
                    radio_bytes,
                    capacity_mean_bps: mean,
                    load: radio_bytes as f64 * 8.0 / (capacity_bps * secs).max(1e-9),
                    buffer_drops: c.buffers.stats.drops,
                    gw_tunnelled_packets: self.gw_tunnelled[i],
                }
            })
            .collect();
        CellularEntry { scheme: self.p.scheme.name(), cells }
    }
}

//! The fcp summary: per-flow `throughput_fraction` (Cohen & Levin's metric, measured after the
//! warm-up), one `handovers` entry per handover, and the top-level `fcp` entry.

use serde::Serialize;

use super::{mobile_name, FcpHandover, HandoverRecord, BS};
use crate::engine::time::{ns_to_s, SimTime};
use crate::sim::{Flow, HandoverRecord as SummaryHandover, Report};

/// Scenario parameters the `fcp` entry echoes.
#[derive(Clone, Debug)]
pub(super) struct Params {
    pub interval_s: Option<f64>,
    pub rtt_unit_s: f64,
    pub available_bps: f64,
    pub fcp_bs_delay_s: f64,
    pub forward_delay_s: f64,
}

/// Fields added to each mobile's flow entry.
#[derive(Serialize)]
struct FlowFields {
    mobile: String,
    available_bps: f64,
    goodput_measured_bps: f64,
    throughput_fraction: f64,
    handovers: u64,
}

/// The mechanism-specific part of a `handovers` entry.
#[derive(Serialize)]
pub struct HandoverLog {
    from: &'static str,
    to: &'static str,
    past_fcp_pkts: u64,
    dropped_pkts: u64,
    forwarded_pkts: u64,
    forwarded_overtaken_pkts: u64,
    held_max_pkts: u64,
    bs_buffer_max_pkts: u64,
    buffer_drops: u64,
    forwarded_buffer_drops: u64,
}

impl HandoverLog {
    fn of(r: &HandoverRecord) -> HandoverLog {
        HandoverLog {
            from: BS[r.from],
            to: BS[r.to],
            past_fcp_pkts: r.past_fcp_pkts,
            dropped_pkts: r.dropped_pkts,
            forwarded_pkts: r.forwarded_pkts,
            forwarded_overtaken_pkts: r.forwarded_overtaken_pkts,
            held_max_pkts: r.held_max_pkts,
            bs_buffer_max_pkts: r.bs_buffer_max_pkts,
            buffer_drops: r.buffer_drops,
            forwarded_buffer_drops: r.forwarded_buffer_drops,
        }
    }
}

/// The top-level `fcp` entry.
#[derive(Serialize)]
struct FcpEntry {
    scheme: &'static str,
    handover_interval_s: Option<f64>,
    handover_interval_rtt: Option<f64>,
    rtt_unit_s: f64,
    warmup_s: f64,
    available_bps: f64,
    fcp_bs_delay_s: f64,
    forward_delay_s: f64,
    mean_throughput_fraction: f64,
    handovers: usize,
    dropped_pkts: u64,
    forwarded_pkts: u64,
    forwarded_overtaken_pkts: u64,
    buffer_drops: u64,
    forwarded_buffer_drops: u64,
    forward_queue_drops: u64,
}

impl FcpHandover {
    /// The summary as of `now` (the end of the run).
    pub(super) fn summary(&self, flows: &[Flow], now: SimTime) -> Report {
        let p = &self.params;
        let mut report = Report::default();
        let measured_s = ns_to_s(now.saturating_sub(self.warmup_ns)).max(1e-12);
        let mut fractions = Vec::new();
        for (i, mob) in self.mobiles.iter().enumerate() {
            let flow = &flows[mob.flow as usize];
            let goodput = (flow.delivered_bytes - mob.delivered_at_warmup) as f64 * 8.0 / measured_s;
            let fraction = goodput / p.available_bps;
            fractions.push(fraction);
            let fields = FlowFields {
                mobile: mobile_name(i as u32),
                available_bps: p.available_bps,
                goodput_measured_bps: goodput,
                throughput_fraction: fraction,
                handovers: mob.handovers,
            };
            report.add_flow_fields(mob.flow, &fields);
        }
        let scheme = self.scheme.name();
        for rec in &self.log {
            let (start, end) = (ns_to_s(rec.start_ns), rec.end_ns.map(ns_to_s));
            let entry = SummaryHandover::new(mobile_name(rec.mobile), start, end, scheme.into(), &HandoverLog::of(rec));
            report.handovers.push(entry);
        }
        report.add_field("fcp", &self.entry(scheme, &fractions));
        report
    }

    fn entry(&self, scheme: &'static str, fractions: &[f64]) -> FcpEntry {
        let p = &self.params;
        let sum = |f: fn(&HandoverRecord) -> u64| self.log.iter().map(f).sum::<u64>();
        FcpEntry {
            scheme,
            handover_interval_s: p.interval_s,
            handover_interval_rtt: p.interval_s.map(|s| s / p.rtt_unit_s),
            rtt_unit_s: p.rtt_unit_s,
            warmup_s: ns_to_s(self.warmup_ns),
            available_bps: p.available_bps,
            fcp_bs_delay_s: p.fcp_bs_delay_s,
            forward_delay_s: p.forward_delay_s,
            mean_throughput_fraction: fractions.iter().sum::<f64>() / fractions.len().max(1) as f64,
            handovers: self.log.len(),
            dropped_pkts: sum(|r| r.dropped_pkts),
            forwarded_pkts: sum(|r| r.forwarded_pkts),
            forwarded_overtaken_pkts: sum(|r| r.forwarded_overtaken_pkts),
            buffer_drops: sum(|r| r.buffer_drops),
            forwarded_buffer_drops: sum(|r| r.forwarded_buffer_drops),
            forward_queue_drops: self.forward_queue_drops,
        }
    }
}

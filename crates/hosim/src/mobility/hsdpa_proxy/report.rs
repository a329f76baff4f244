//! The HSDPA system of Ren et al. 2008, Fig. 2: the end-of-run report of its radio metrics.
//! Radio utilization is the bytes the Node-B serialized on the downlink over the integral of
//! the downlink rate; throughputs are in 1500-byte packets (MSS + headers) per second.

use serde::Serialize;

use super::proxy::ProxyReport;
use crate::engine::time::{ns_to_s, SimTime};
use crate::net::{FlowId, LinkId};
use crate::sim::Cx;

/// Top-level summary fields of an HSDPA run.
#[derive(Serialize)]
pub struct RadioReport {
    radio_utilization: Option<f64>,
    radio_goodput_utilization: Option<f64>,
    radio_capacity_bps: f64,
    radio_capacity_pkts_per_s: f64,
    radio_throughput_pkts_per_s: f64,
    ue_goodput_pkts_per_s: f64,
    radio_rate_changes: u64,
    nodeb_drops: u64,
    nodeb_mean_queue_pkts: f64,
    nodeb_max_queue_pkts: u32,
    sender_timeouts: u64,
    sender_spurious_timeouts: u64,
    proxy: Option<ProxyReport>,
}

impl RadioReport {
    /// The metrics as of now (the end of the run).
    pub fn take<T>(
        cx: &Cx<T>,
        downlink: LinkId,
        server_flow: FlowId,
        ue_flow: FlowId,
        proxy: Option<ProxyReport>,
    ) -> Self {
        let now: SimTime = cx.now();
        let dur_s = ns_to_s(now).max(1e-12);
        let link = &cx.links()[downlink as usize];
        let ue = &cx.flows()[ue_flow as usize];
        let server = &cx.flows()[server_flow as usize];
        let pkt_bytes = (ue.sender.cfg.mss_bytes + ue.sender.cfg.header_bytes) as f64;
        let capacity_bits = link.capacity_bits(now);
        let sent_bits = link.stats.tx_bytes as f64 * 8.0;
        let capacity_pkts_s = capacity_bits / (pkt_bytes * 8.0) / dur_s;
        let ue_pkts_s = ue.delivered_bytes as f64 / ue.sender.cfg.mss_bytes as f64 / dur_s;
        let ratio = |a: f64, b: f64| (b > 0.0).then(|| a / b);
        let q = &link.queue;
        RadioReport {
            radio_utilization: ratio(sent_bits, capacity_bits),
            radio_goodput_utilization: ratio(ue_pkts_s, capacity_pkts_s),
            radio_capacity_bps: capacity_bits / dur_s,
            radio_capacity_pkts_per_s: capacity_pkts_s,
            radio_throughput_pkts_per_s: link.stats.transmitted as f64 / dur_s,
            ue_goodput_pkts_per_s: ue_pkts_s,
            radio_rate_changes: link.var.as_ref().map_or(0, |v| v.rate_changes),
            nodeb_drops: q.stats.dropped,
            nodeb_mean_queue_pkts: q.mean_len_pkts(now),
            nodeb_max_queue_pkts: q.stats.max_len_pkts,
            sender_timeouts: server.sender.stats.timeouts,
            sender_spurious_timeouts: server.spurious_timeouts,
            proxy,
        }
    }
}

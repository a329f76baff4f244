//! The HSDPA system of Ren et al. 2008, Fig. 2: the end-of-run report of its radio metrics.
//! Radio utilization is the bytes the Node-B serialized on the downlink over the integral of
//! the downlink rate; throughputs are in 1500-byte packets (MSS + headers) per second.

use serde_json::{json, Value};

use crate::engine::time::ns_to_s;
use crate::net::{FlowId, LinkId};
use crate::world::World;

impl World {
    /// Writes the HSDPA metrics into the top-level summary (`World::report`). Runs at the end
    /// of the run (a `CellEvent::HsdpaSummary` scheduled at `end_ns`).
    pub(crate) fn on_hsdpa_summary(&mut self, downlink: LinkId, server_flow: FlowId, ue_flow: FlowId) {
        let now = self.now;
        let dur_s = ns_to_s(now).max(1e-12);
        let link = &self.links[downlink as usize];
        let ue = &self.flows[ue_flow as usize];
        let server = &self.flows[server_flow as usize];
        let pkt_bytes = (ue.sender.cfg.mss_bytes + ue.sender.cfg.header_bytes) as f64;
        let capacity_bits = link.capacity_bits(now);
        let sent_bits = link.stats.tx_bytes as f64 * 8.0;
        let capacity_pkts_s = capacity_bits / (pkt_bytes * 8.0) / dur_s;
        let ue_pkts_s = ue.delivered_bytes as f64 / ue.sender.cfg.mss_bytes as f64 / dur_s;
        let ratio = |a: f64, b: f64| if b > 0.0 { json!(a / b) } else { Value::Null };
        let q = &link.queue;
        let fields = [
            ("radio_utilization", ratio(sent_bits, capacity_bits)),
            ("radio_goodput_utilization", ratio(ue_pkts_s, capacity_pkts_s)),
            ("radio_capacity_bps", json!(capacity_bits / dur_s)),
            ("radio_capacity_pkts_per_s", json!(capacity_pkts_s)),
            ("radio_throughput_pkts_per_s", json!(link.stats.transmitted as f64 / dur_s)),
            ("ue_goodput_pkts_per_s", json!(ue_pkts_s)),
            ("radio_rate_changes", json!(link.var.as_ref().map_or(0, |v| v.rate_changes))),
            ("nodeb_drops", json!(q.stats.dropped)),
            ("nodeb_mean_queue_pkts", json!(q.mean_len_pkts(now))),
            ("nodeb_max_queue_pkts", json!(q.stats.max_len_pkts)),
            ("sender_timeouts", json!(server.sender.stats.timeouts)),
            ("sender_spurious_timeouts", json!(server.spurious_timeouts)),
            ("proxy", if self.proxies.is_empty() { Value::Null } else { self.proxy_report(0) }),
        ];
        for (k, v) in fields {
            self.report.insert(k.to_string(), v);
        }
    }
}

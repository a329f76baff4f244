//! Cellular access and mobility mechanisms: base stations with per-UE queues and schedulers,
//! radio rate models, handover procedures (X2, drop/forward/rearrange, ...), and the
//! split-TCP window adaptation proxy. Each mechanism adds its events to [`CellEvent`] and its
//! handling in its own module.

pub mod fcp;
pub mod hsdpa;
pub mod lte;
pub mod proxy;
pub mod radio;

use crate::world::World;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellEvent {
    /// Drop/forward/rearrange handovers (`fcp`).
    Fcp(fcp::FcpEvent),
    /// LTE X2 handover system: eNodeB schedulers and the Fig. 2 procedure.
    Lte(lte::LteEvent),
    /// A variable-rate link moves to its next rate (`radio.rs`).
    LinkRate(crate::net::LinkId),
    /// Node-B samples its rate and queue for window adaptation proxy `i` (`proxy.rs`).
    ProxySample(u32),
    /// Proxy `i` takes its control step: the report of this step has arrived or was lost.
    ProxyStep(u32),
    /// End of an HSDPA run: write the radio metrics into the summary (`hsdpa.rs`).
    HsdpaSummary { downlink: crate::net::LinkId, server_flow: crate::net::FlowId, ue_flow: crate::net::FlowId },
}

impl World {
    pub(crate) fn on_cell_event(&mut self, e: CellEvent) {
        match e {
            CellEvent::Fcp(e) => self.on_fcp_event(e),
            CellEvent::Lte(e) => self.on_lte_event(e),
            CellEvent::LinkRate(l) => self.on_link_rate(l),
            CellEvent::ProxySample(i) => self.on_proxy_sample(i),
            CellEvent::ProxyStep(i) => self.on_proxy_step(i),
            CellEvent::HsdpaSummary { downlink, server_flow, ue_flow } => {
                self.on_hsdpa_summary(downlink, server_flow, ue_flow)
            }
        }
    }
}

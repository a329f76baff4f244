//! Cellular access and mobility mechanisms: base stations with per-UE queues and schedulers,
//! radio rate models, handover procedures (X2, drop/forward/rearrange, ...), and the
//! split-TCP window adaptation proxy. Each mechanism adds its events to [`CellEvent`] and its
//! handling in its own module.

pub mod fcp;

use crate::world::World;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellEvent {
    /// Drop/forward/rearrange handovers (`fcp`).
    Fcp(fcp::FcpEvent),
}

impl World {
    pub(crate) fn on_cell_event(&mut self, e: CellEvent) {
        match e {
            CellEvent::Fcp(e) => self.on_fcp_event(e),
        }
    }
}

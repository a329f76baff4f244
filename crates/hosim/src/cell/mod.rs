//! Cellular access and mobility mechanisms: base stations with per-UE queues and schedulers,
//! radio rate models, handover procedures (X2, drop/forward/rearrange, ...), and the
//! split-TCP window adaptation proxy. Each mechanism adds its events to [`CellEvent`] and its
//! handling in its own module.

pub mod lte;

use crate::world::World;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellEvent {
    /// LTE X2 handover system: eNodeB schedulers and the Fig. 2 procedure.
    Lte(lte::LteEvent),
}

impl World {
    pub(crate) fn on_cell_event(&mut self, e: CellEvent) {
        match e {
            CellEvent::Lte(e) => self.on_lte_event(e),
        }
    }
}

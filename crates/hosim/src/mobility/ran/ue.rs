//! A UE as the RAN sees it: the cells it is attached to (a set: one cell normally, none during
//! a hard handover's interruption, source and target at once in a dual active protocol stack
//! handover), the cell its gateway tunnels its downlink to, and its uplink radio links.

use crate::net::{FlowId, LinkId, NodeId};
use crate::sim::Cx;

/// The cells a UE is attached to, by cell index, in the order it attached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellSet {
    cells: Vec<usize>,
}

impl CellSet {
    /// Attached to cell `c` only.
    pub fn one(c: usize) -> CellSet {
        CellSet { cells: vec![c] }
    }

    pub fn contains(&self, c: usize) -> bool {
        self.cells.contains(&c)
    }

    /// Attaches to cell `c` as well (no effect if attached already).
    pub fn attach(&mut self, c: usize) {
        if !self.contains(c) {
            self.cells.push(c);
        }
    }

    /// Leaves cell `c`.
    pub fn detach(&mut self, c: usize) {
        self.cells.retain(|&x| x != c);
    }

    /// Leaves every cell.
    pub fn clear(&mut self) {
        self.cells.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.cells.iter().copied()
    }
}

pub struct Ue {
    pub node: NodeId,
    pub name: String,
    /// The UE's download flow, if any.
    pub flow: Option<FlowId>,
    /// The cells the UE is attached to: their schedulers serve it.
    pub cells: CellSet,
    /// The cell the gateway tunnels the UE's downlink to.
    pub path: usize,
    /// Uplink radio link to each cell the UE can attach to (by cell index).
    pub uplinks: Vec<Option<LinkId>>,
}

/// Sends everything UE node `ue` sends on uplink radio link `up` from now on.
pub fn route_uplink<T>(cx: &mut Cx<T>, ue: NodeId, up: LinkId) {
    for r in cx.routes_mut(ue).iter_mut().filter(|r| r.is_some()) {
        *r = Some(up);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ue_can_be_attached_to_two_cells_and_leave_one() {
        let mut s = CellSet::one(0);
        s.attach(1);
        s.attach(1);
        assert_eq!((s.len(), s.contains(0), s.contains(1)), (2, true, true));
        s.detach(0);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![1]);
        s.clear();
        assert!(s.is_empty());
    }
}

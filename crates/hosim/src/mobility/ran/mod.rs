//! The RAN kit: the parts of a radio access network that mechanisms build on.
//!
//! - [`cell::Cell`] (an eNodeB or gNodeB): per-UE buffers ([`buffer::CellBuffers`]: a
//!   served and a held-back queue per UE, and one for forwarded packets served first, uplink held while a UE attaches, limits per UE or
//!   shared, in packets or bytes), a scheduler ([`scheduler::Scheduler`]: WFQ as deficit
//!   round robin, or round robin) over the UEs attached to it, a [`radio::Radio`] transmitter
//!   and the radio links to each UE;
//! - [`ue::Ue`]: the cells a UE is attached to, a [`ue::CellSet`]: empty during a hard
//!   handover's interruption, one cell normally, the source and the target at once during a
//!   DAPS handover (3GPP TS 38.300 §9.2.3.2: both cells schedule the UE);
//! - [`gtp`]: GTP-U tunnels (TS 29.281), gateway -> cell and cell -> cell for X2/Xn data
//!   forwarding, the end marker, and the ECN rule at the tunnel end (RFC 6040 §4.2);
//! - [`access::AccessNode`]: a one-UE access node with a [`buffer::PriorityBuffer`]
//!   (forwarded data before new data), as an inter-RAT source or target;
//! - [`Timer`]: the kit's own timers. A mechanism's timer type nests it as a variant
//!   (`impl From<ran::Timer> for Timer`) and hands it back to the kit when it fires.
//!
//! A mechanism keeps its cells and UEs (usually in a [`Ran`]), decides which cells a UE is
//! attached to and where its gateway tunnels its downlink, and calls [`Ran::serve`] when a
//! cell may send (a packet was queued, a UE attached, the radio finished). Handover logic,
//! tunnels and the gateway stay the mechanism's; `lte_x2` and `inter_rat` are built this way,
//! and `crates/hosim/tests/daps_stub.rs` shows a UE served by two cells at once from a test.

pub mod access;
pub mod buffer;
pub mod cell;
pub mod gtp;
pub mod radio;
pub mod scheduler;
pub mod ue;

pub use access::AccessNode;
pub use buffer::{BufferLimit, BufferStats, CellBuffers, PriorityBuffer};
pub use cell::{Cell, TunnelStats};
pub use radio::{InService, Radio};
pub use scheduler::{PropFair, Scheduler, SchedulerKind};
pub use ue::{route_uplink, CellSet, Ue};

use crate::net::NodeId;
use crate::sim::Cx;

/// What a kit timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Cell (or access node) `cell`'s radio finished sending a packet.
    RadioDone { cell: usize },
    /// Variable rates: cell `cell`'s radio finishes its packet, unless a rate change since
    /// (a later `generation`) moved the time.
    RadioVarDone { cell: usize, generation: u32 },
    /// Cell `cell`'s private radio to UE `ue` finished sending a packet.
    PrivateRadioDone { cell: usize, ue: usize },
}

/// The cells and UEs of a radio access network.
pub struct Ran {
    pub cells: Vec<Cell>,
    pub ues: Vec<Ue>,
    /// UE index by node id.
    pub ue_of_node: Vec<Option<usize>>,
}

impl Ran {
    /// A network of `cells` and `ues`, with `nodes` nodes in the graph.
    pub fn new(cells: Vec<Cell>, ues: Vec<Ue>, nodes: usize) -> Ran {
        let mut ue_of_node = vec![None; nodes];
        for (u, ue) in ues.iter().enumerate() {
            ue_of_node[ue.node as usize] = Some(u);
        }
        Ran { cells, ues, ue_of_node }
    }

    /// The UE at node `node`, if it is one.
    pub fn ue_at(&self, node: NodeId) -> Option<usize> {
        self.ue_of_node.get(node as usize).copied().flatten()
    }

    /// The cell at node `node`, if it is one.
    pub fn cell_at(&self, node: NodeId) -> Option<usize> {
        self.cells.iter().position(|c| c.node == node)
    }

    /// Cell `c` sends its next packet if its radio is idle (see [`Cell::serve`]).
    pub fn serve<T: From<Timer>>(&mut self, cx: &mut Cx<T>, c: usize) {
        let ues = &self.ues;
        self.cells[c].serve(cx, c, |u| ues[u].cells.contains(c));
    }

    /// A kit timer fired: a radio is free, and its cell sends its next packet.
    pub fn on_timer<T: From<Timer>>(&mut self, cx: &mut Cx<T>, timer: Timer) {
        match timer {
            Timer::RadioDone { cell } => {
                self.cells[cell].radio.done();
                self.serve(cx, cell);
            }
            Timer::RadioVarDone { cell, generation } => {
                if self.cells[cell].radio.finish_var(cx, generation) {
                    self.serve(cx, cell);
                }
            }
            Timer::PrivateRadioDone { cell, ue } => {
                self.cells[cell].private[ue] = false;
                self.serve(cx, cell);
            }
        }
    }

    /// Variable rates: UE `u`'s rate from cell `c` is now `bps`; a packet in service for it
    /// goes on at that rate, and the cell may now serve a UE it could not.
    pub fn set_rate<T: From<Timer>>(&mut self, cx: &mut Cx<T>, c: usize, u: usize, bps: u64) {
        let cell = &mut self.cells[c];
        let Some(rates) = cell.var_rates.as_mut() else { return };
        rates[u] = bps;
        if cell.radio.in_service.is_some_and(|s| s.ue == u) {
            cell.radio.rate_changed(cx, c, bps);
        }
        self.serve(cx, c);
    }

    /// Packets in the cells' buffers.
    pub fn held_packets(&self) -> u64 {
        self.cells.iter().map(Cell::held).sum()
    }

    /// Every cell's buffer invariants.
    pub fn check(&self) -> Vec<String> {
        self.cells.iter().flat_map(|c| c.buffers.check(&c.name)).collect()
    }
}

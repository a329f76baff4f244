//! The cell scheduler: deficit round robin realising WFQ by bytes, or packet round robin, over
//! the UEs a cell serves (Shreedhar & Varghese, 1995). It picks a UE among those with a
//! backlog; the cell then sends that UE's head packet.
//!
//! The scheduler itself is a plain queue-agnostic policy, usable outside mobility (by a
//! fair-queueing discipline); the kit uses it from where it is kept.

pub use crate::mobility::lte_x2::enb::{Scheduler, SchedulerKind, WFQ_QUANTUM_BYTES};

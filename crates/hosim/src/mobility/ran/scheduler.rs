//! The cell scheduler: deficit round robin realising WFQ by bytes, or packet round robin, over
//! the UEs a cell serves (Shreedhar & Varghese, 1995). It picks a UE among those with a
//! backlog; the cell then sends that UE's head packet.
//!
//! The scheduler itself is a plain queue-agnostic policy, kept in `net/drr.rs`, where a
//! fair-queueing discipline can use it too.

pub use crate::net::drr::{Scheduler, SchedulerKind, WFQ_QUANTUM_BYTES};

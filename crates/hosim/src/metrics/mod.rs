//! Traces (opt-in, columnar) and the run summary.

pub mod summary;
pub mod trace;

pub use trace::{TraceKind, TraceTable, Traces};

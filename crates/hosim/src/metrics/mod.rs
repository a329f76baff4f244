//! The run summary and the end-of-run invariant checks.

pub mod summary;

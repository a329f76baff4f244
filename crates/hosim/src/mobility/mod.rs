//! Mobility mechanisms, one folder each. A folder owns its scenario section (`config.rs`),
//! its template (the graph it expands to and the agents it installs), its agents and its
//! typed report. Mechanisms reach the network only through `crate::sim::Cx`.
//!
//! - `fcp/`: drop / forward / forward-and-rearrange handovers below a first common parent
//!   (Cohen & Levin);
//! - `lte_x2/`: LTE X2 handover with forwarding, end marker and reordering (Pacifico et al.);
//! - `hsdpa_proxy/`: the HSDPA radio downlink and its window adaptation proxy (Ren et al.);
//! - `vertical/`: WiFi <-> cellular handoffs of a mobile source and TCP-CLAH's cross-layer
//!   notification (Sinky & Hamdaoui).
//! - `inter_rat/`: LTE <-> UMTS handover with forwarding, bicasting or neither (3GPP
//!   contribution on back-to-back loss at inter-RAT handover);
//! - `cellular/`: N cells in a line, M UEs moving along them, handovers from a schedule or
//!   an A3-like rule on distance, by `drop`, `forward` or `daps` (issue 37's first slice);
//! - `ran/`: the RAN kit the cellular mechanisms are built on (cells, their schedulers,
//!   radios and per-UE buffers, UEs attached to a set of cells, GTP-U tunnels, typed timers).

pub mod cellular;
pub mod fcp;
pub mod hsdpa_proxy;
pub mod inter_rat;
pub mod lte_x2;
pub mod ran;
pub mod vertical;

/// Most handovers a run may plan (on average, over all its mobiles). Each one is an event, a
/// log entry and a summary record of a few kilobytes (an fcp run of 250,000 handovers peaked at
/// 1.6 GB), so their number, not the simulated time, would otherwise set the memory of a run.
pub const MAX_HANDOVERS_PER_RUN: f64 = 1e5;

/// Most samples of a periodic measurement (a delivery time series): each is kept to the end of
/// the run.
pub const MAX_SAMPLES_PER_RUN: f64 = 1e6;

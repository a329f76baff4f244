//! hosim: a packet-level discrete-event simulator for TCP across mobility events.
//!
//! The core is pure Rust. [`run`] takes scenario text and returns the run summary (the JSON
//! contract of DESIGN.md) and, optionally, the traces.
//!
//! Layers, lowest first; a module names only modules of its own or a lower layer
//! (`tests/layers.rs` checks this on every `src/**/*.rs` file):
//!
//! 1. `engine`: time, the event queue, random streams;
//! 2. `net`: packets, queues, links (fixed and variable rate), nodes and routes;
//! 3. `tcp`: the sender, the receiver and their parts;
//! 4. `app`: the applications that feed a sender;
//! 5. `observe`: the link-point observers and the traces;
//! 6. `sim`: the world (network, flows, events), the `Agent` trait and its context, the run loop;
//! 7. `metrics`: the run summary and the invariant checks (merges agents' reports);
//! 8. `spec`: the explicit graph a scenario describes, input errors, the graph builder;
//! 9. `mobility`: one folder per mechanism (config, template, agents, report);
//! 10. `scenario`: the schema, the template registry, presets, the scenario builder;
//! 11. this file: [`run`].

pub mod app;
pub mod engine;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod observe;
pub mod scenario;
pub mod sim;
pub mod spec;
pub mod tcp;

use std::time::Instant;

pub use observe::{TraceKind, TraceTable, Traces};
pub use scenario::ScenarioError;

/// What can go wrong in a run.
#[derive(Debug)]
pub enum Error {
    /// The input is invalid: one line naming the source, key and problem.
    Scenario(ScenarioError),
    /// A simulator invariant was violated: a bug.
    Invariant(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Invariant(m) => write!(f, "invariant violated: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

/// A finished run.
pub struct RunOutput {
    pub summary: serde_json::Value,
    /// Per-kind tables; ids are flow or link indices, resolved by `id_names`.
    pub traces: Traces,
    pub flow_names: Vec<String>,
    pub link_names: Vec<String>,
    /// Goodput per flow and interval: (interval start s, flow index, bit/s).
    pub goodput: TraceTable,
}

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub seed: Option<u64>,
    pub overrides: Vec<(String, String)>,
    pub traces: bool,
}

/// Parses, builds and runs a scenario. The seed is `opts.seed`, else the scenario's `seed`,
/// else 1.
pub fn run(text: &str, source: &str, opts: &RunOptions) -> Result<RunOutput, Error> {
    let scenario = scenario::load(text, source, &opts.overrides)?;
    let seed = opts.seed.or(scenario.seed).unwrap_or(1);
    let mut sim = scenario::build::build(&scenario, source, seed)?;
    sim.world.obs.set_tracing(opts.traces);
    let t0 = Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let violations = metrics::summary::check_invariants(&sim);
    let name = scenario.name.clone().unwrap_or_else(|| source.to_string());
    let summary = metrics::summary::summary(&sim, &name, seed, wall, &violations);
    if !violations.is_empty() {
        return Err(Error::Invariant(violations.join("; ")));
    }
    let world = &mut sim.world;
    let mut goodput = TraceTable::default();
    if opts.traces {
        let iv = world.trace_interval_ns;
        let iv_s = engine::ns_to_s(iv);
        for (fi, f) in world.flows.iter().enumerate() {
            let bins = (world.end_ns.div_ceil(iv)) as usize;
            for (b, bytes) in f.goodput_bins.iter().take(bins).enumerate() {
                goodput.push(b as u64 * iv, fi as u32, *bytes as f64 * 8.0 / iv_s);
            }
        }
    }
    Ok(RunOutput {
        summary,
        flow_names: world.flows.iter().map(|f| f.name.clone()).collect(),
        link_names: world.links.iter().map(|l| l.name.clone()).collect(),
        traces: world.obs.take_traces(),
        goodput,
    })
}

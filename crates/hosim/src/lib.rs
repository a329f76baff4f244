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
pub use sim::RunHooks;

/// What can go wrong in a run.
#[derive(Debug)]
pub enum Error {
    /// The input is invalid: one line naming the source, key and problem.
    Scenario(ScenarioError),
    /// A simulator invariant was violated: a bug.
    Invariant(String),
    /// The core caught itself misbehaving mid-run (an event scheduled in the past, a run that
    /// makes no progress): a bug, reported instead of a wrong number.
    Internal(String),
    /// The interrupt hook stopped the run at this simulated time (seconds).
    Interrupted { at_s: f64 },
    /// The trace sink failed (the message is the sink's).
    Output(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Invariant(m) => write!(f, "invariant violated: {m}"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
            Error::Interrupted { at_s } => write!(f, "interrupted at t = {at_s} s"),
            Error::Output(m) => write!(f, "{m}"),
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
    /// Goodput per flow and interval: (interval start, flow index, bit/s). Empty when the
    /// traces went to a sink (it is the sink's `TraceKind::Goodput`).
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
    run_with(text, source, opts, &mut RunHooks::default())
}

/// Rows of goodput trace (flows x intervals) a run may write: a bound on the output that
/// `trace.interval_s` would otherwise make as large as it likes.
pub const MAX_GOODPUT_ROWS: u64 = 100_000_000;

/// As [`run`], with hooks: an interrupt check and a trace sink that takes the traces in chunks
/// as they are recorded (memory bounded by the topology, not by the simulated time).
pub fn run_with(text: &str, source: &str, opts: &RunOptions, hooks: &mut RunHooks) -> Result<RunOutput, Error> {
    let scenario = scenario::load(text, source, &opts.overrides)?;
    let seed = opts.seed.or(scenario.seed).unwrap_or(1);
    let mut sim = scenario::build::build(&scenario, source, seed)?;
    if opts.traces {
        let w = &sim.world;
        let rows = w.end_ns.div_ceil(w.trace_interval_ns).saturating_mul(w.flows.len() as u64);
        if rows > MAX_GOODPUT_ROWS {
            return Err(Error::Scenario(ScenarioError::new(
                source,
                "trace.interval_s",
                &format!(
                    "the goodput trace would have {rows} rows (flows x duration_s / interval_s); \
                     at most {MAX_GOODPUT_ROWS}: make the interval longer"
                ),
            )));
        }
    }
    sim.world.obs.set_tracing(opts.traces);
    let t0 = Instant::now();
    sim.run_hooked(hooks).map_err(|stop| match stop {
        sim::Stop::Interrupted { at_ns } => Error::Interrupted { at_s: engine::ns_to_s(at_ns) },
        sim::Stop::Internal(m) => Error::Internal(m),
        sim::Stop::Sink(m) => Error::Output(m),
    })?;
    let wall = t0.elapsed().as_secs_f64();
    let violations = metrics::summary::check_invariants(&sim);
    let name = scenario.name.clone().unwrap_or_else(|| source.to_string());
    let summary = metrics::summary::summary(&sim, &name, seed, wall, &violations);
    if !violations.is_empty() {
        return Err(Error::Invariant(violations.join("; ")));
    }
    let world = &mut sim.world;
    let mut traces = world.obs.take_traces();
    let goodput = std::mem::take(&mut traces.tables[TraceKind::Goodput as usize]);
    Ok(RunOutput {
        summary,
        flow_names: world.flows.iter().map(|f| f.name.clone()).collect(),
        link_names: world.links.iter().map(|l| l.name.clone()).collect(),
        traces,
        goodput,
    })
}

//! hosim: a packet-level discrete-event simulator for TCP across mobility events.
//!
//! The core is pure Rust. [`run`] takes scenario text and returns the run summary (the JSON
//! object documented in docs/cli.md, "The run summary"; built by [`metrics::summary`]) and,
//! optionally, the traces.
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
//! 9. `mobility`: one folder per mechanism (config, template, agents, report), and `ran/`,
//!    the RAN kit the cellular mechanisms are built on;
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

use std::path::PathBuf;
use std::time::Instant;

use observe::pcap::{Capture, CaptureFormat, FlowWire};

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
    /// An output file could not be written (a packet capture).
    Io(String),
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
            Error::Io(m) => f.write_str(m),
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
    pub capture: CaptureOptions,
}

/// Packet capture (`observe::pcap`); set fields override the scenario's `[capture]`.
#[derive(Clone, Debug, Default)]
pub struct CaptureOptions {
    /// Directory of the capture files. Without one nothing is captured.
    pub dir: Option<PathBuf>,
    /// Link names, or `all`.
    pub links: Option<Vec<String>>,
    /// `pcapng` or `pcap`.
    pub format: Option<String>,
    /// `dir` was made by the caller and must still exist: if it is gone (a caller that gave the
    /// run up on Ctrl-C and removed its staging directory), the capture fails rather than make
    /// it again. Python's `hosim run` stages its capture so (bench/fuzz_outdir.py found a
    /// `.capture-*` directory made again after SIGTERM). Off: `dir` is made if needed.
    pub existing_dir: bool,
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
    let capture = start_capture(&scenario, source, &opts.capture, &mut sim.world)?;
    let t0 = Instant::now();
    sim.run_hooked(hooks).map_err(|stop| match stop {
        sim::Stop::Interrupted { at_ns } => Error::Interrupted { at_s: engine::ns_to_s(at_ns) },
        sim::Stop::Internal(m) => Error::Internal(m),
        sim::Stop::Sink(m) => Error::Output(m),
    })?;
    let wall = t0.elapsed().as_secs_f64();
    sim.world.obs.finish().map_err(|e| Error::Io(format!("writing the packet capture: {e}")))?;
    let violations = metrics::summary::check_invariants(&sim);
    let name = scenario.name.clone().unwrap_or_else(|| source.to_string());
    let mut summary = metrics::summary::summary(&sim, &name, seed, wall, &violations);
    if let (Some(c), Some(map)) = (capture, summary.as_object_mut()) {
        map.insert("capture".into(), capture_entry(&c, &sim.world));
    }
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

/// What a run captures: the format, the files and the captured links by id.
struct CaptureInfo {
    format: CaptureFormat,
    snaplen: u32,
    files: Vec<String>,
    links: Vec<bool>,
}

/// Adds the packet capture the options and the scenario's `[capture]` ask for, if any and if
/// there is a directory to write it to.
fn start_capture(
    s: &scenario::Scenario,
    source: &str,
    opts: &CaptureOptions,
    world: &mut sim::World,
) -> Result<Option<CaptureInfo>, Error> {
    let Some(dir) = opts.dir.as_ref() else { return Ok(None) };
    let Some(names) = opts.links.as_ref().or(s.capture.links.as_ref()) else { return Ok(None) };
    let format_name = opts.format.as_deref().or(s.capture.format.as_deref()).unwrap_or("pcapng");
    let format = CaptureFormat::parse(format_name).ok_or_else(|| {
        ScenarioError::new(source, "capture.format", &format!("unknown format {format_name:?} (pcapng, pcap)"))
    })?;
    let mut links = vec![false; world.links.len()];
    for name in names {
        if name == "all" {
            links.iter_mut().for_each(|on| *on = true);
            continue;
        }
        if name == "flows" {
            // Each flow once, where its receiver is: the links into and out of its destination
            // (data as it arrives, ACKs as they leave), as a capture on the receiving host.
            for f in &world.flows {
                for (on, l) in links.iter_mut().zip(&world.links) {
                    *on |= l.to == f.dst || l.from == f.dst;
                }
            }
            continue;
        }
        let Some(i) = world.links.iter().position(|l| &l.name == name) else {
            let known: Vec<&str> = world.links.iter().map(|l| l.name.as_str()).collect();
            let problem = format!("unknown link {name:?} (links: all, flows, {})", known.join(", "));
            return Err(ScenarioError::new(source, "capture.links", &problem).into());
        };
        links[i] = true;
    }
    if format == CaptureFormat::Pcap {
        // A file per link, named after it: a name too long for a file is refused before the run.
        let too_long =
            world.links.iter().zip(&links).find(|(l, on)| {
                **on && observe::pcap::pcap_file_name(&l.name).len() > observe::pcap::MAX_FILE_NAME_BYTES
            });
        if let Some((l, _)) = too_long {
            let shown: String = l.name.chars().take(40).collect();
            let problem = format!(
                "the pcap file name of link {shown:?}... would be longer than {} bytes; capture it with format \"pcapng\"",
                observe::pcap::MAX_FILE_NAME_BYTES
            );
            return Err(ScenarioError::new(source, "capture.format", &problem).into());
        }
    }
    let flows = world
        .flows
        .iter()
        .map(|f| {
            let c = &f.sender.cfg;
            FlowWire { mss_bytes: c.mss_bytes, sack: c.sack(), ecn: c.ecn, rwnd_bytes: c.rwnd_bytes }
        })
        .collect();
    let snaplen = s.capture.snaplen.unwrap_or(0);
    let named: Vec<(String, bool)> = world.links.iter().zip(&links).map(|(l, on)| (l.name.clone(), *on)).collect();
    let cap = Capture::create(dir, opts.existing_dir, format, &named, flows, snaplen)
        .map_err(|e| Error::Io(format!("{}: cannot create the packet capture: {e}", dir.display())))?;
    let files = cap.files().iter().filter_map(|p| p.file_name()).map(|f| f.to_string_lossy().into_owned()).collect();
    world.obs.add(Box::new(cap));
    Ok(Some(CaptureInfo { format, snaplen, files, links }))
}

/// The summary's `capture` entry: per captured link, the packets the capture holds, which
/// are those that started transmission: `transmitted` plus the one in service at the end.
fn capture_entry(c: &CaptureInfo, world: &sim::World) -> serde_json::Value {
    let links: Vec<serde_json::Value> = world
        .links
        .iter()
        .zip(&c.links)
        .filter(|(_, on)| **on)
        .map(|(l, _)| {
            let in_service = l.in_service.is_some() as u64;
            let file = match c.format {
                CaptureFormat::PcapNg => observe::pcap::PCAPNG_FILE.to_string(),
                CaptureFormat::Pcap => observe::pcap::pcap_file_name(&l.name),
            };
            serde_json::json!({
                "name": l.name,
                "file": file,
                "transmitted": l.stats.transmitted,
                "in_service_at_end": in_service,
                "packets": l.stats.transmitted + in_service,
            })
        })
        .collect();
    let format = match c.format {
        CaptureFormat::PcapNg => "pcapng",
        CaptureFormat::Pcap => "pcap",
    };
    serde_json::json!({ "format": format, "point": "transmit", "snaplen": c.snaplen, "files": c.files, "links": links })
}

//! `hosim emulate`: a scenario's network in real time between real network stacks.
//!
//! The same scenario, links, queues and mechanism agents as `hosim run`, driven by the wall
//! clock instead of running as fast as it can. The hosts that end the chosen flows become
//! network namespaces, each with a TUN device (safety.rs: addresses, routes, cleanup); the
//! kernel's TCP in those namespaces is the endpoint, and applications run there (apps.rs).
//! A packet the kernel writes to a TUN device enters the simulated network at its host
//! (`World::inject`) at the instant it was read; when the network delivers it to another
//! emulated host (`World::tap`), its real bytes, kept by uid in a side table, are written to
//! that host's TUN device. The simulated hot path is not touched: a packet is the same 128-byte
//! `Packet`, and only emulation reads the side table. The network writes into the bytes only
//! what a real router writes: a CE mark (wire.rs).
//!
//! Each run measures its own timing error: for every packet written out, the wall-clock time
//! of the write minus the simulated time at which the network delivered it (`lateness`).

mod apps;
mod attach;
mod capture;
mod rt;
pub mod safety;
mod tun;
pub mod wire;

use std::cell::RefCell;
use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hosim::engine::ns_to_s;
use hosim::net::packet::{Ecn, Packet, PacketKind};
use hosim::net::{FlowId, LinkId, NodeId};
use hosim::sim::{Sim, Tap};
use hosim::ScenarioError;
use hosim::TraceKind;
use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::time::TimeSpec;
use serde_json::{json, Value};

use crate::apps::App;
use crate::capture::{Payloads, RealCapture};

/// The TUN devices in every emulated host's namespace: `hosim0`, `hosim1` (one per interface).
pub const DEV: &str = "hosim";

/// Lateness bound: a run whose p99 lateness exceeds this says so in a warning
/// (bench/emulate/README.md gives the figures the bound comes from).
pub const P99_BOUND_US: f64 = 500.0;

/// The longest a run may last, whatever its duration says (every run is bounded).
pub const MAX_RUN_S: f64 = 3600.0;

#[derive(Clone, Debug)]
pub struct EmulateOptions {
    pub seed: Option<u64>,
    pub overrides: Vec<(String, String)>,
    /// Flows whose endpoints are real stacks (by name); empty: the scenario's first flow. Any
    /// other flow sharing one of their hosts is emulated too; every other flow stays simulated.
    pub flows: Vec<String>,
    /// Command run at the first emulated flow's source host (`{server}` and `{client}` are
    /// replaced by the two hosts' addresses).
    pub server: Option<String>,
    /// Command run at its destination host, `client_delay_s` after the start. The run ends
    /// when it exits (or at the scenario's end, whichever is first).
    pub client: Option<String>,
    pub client_delay_s: f64,
    /// The run's length, if shorter than the scenario's duration_s.
    pub time_limit_s: Option<f64>,
    /// Where the applications' output goes (server.out, client.out); else hosim's own stdout.
    pub app_output_dir: Option<PathBuf>,
    pub capture_dir: Option<PathBuf>,
    /// Links to capture ("all" for every link); with `capture_dir`.
    pub capture_links: Vec<String>,
    /// SCHED_FIFO and the cpu_dma_latency request (default on).
    pub realtime: bool,
    /// A host with several links gets one interface per link (a TUN device each, its address
    /// 198.18.i.(k+1), packets pinned to that link) and MPTCP endpoints on them; else every
    /// host has one interface and the scenario's routes choose the link.
    pub multipath: bool,
    /// With `multipath`: each pinned interface follows its host's attachment to the network
    /// of its link (attach.rs): down while a mechanism has the host detached from it (a
    /// `hard` vertical handoff), up again when it re-attaches, its MPTCP endpoint removed and
    /// added with it. False: every interface stays up throughout (the behaviour before).
    pub follow_attachment: bool,
    /// Record the traces `hosim run` records (`EmulateOutput::traces`).
    pub traces: bool,
}

impl Default for EmulateOptions {
    fn default() -> Self {
        EmulateOptions {
            seed: None,
            overrides: Vec::new(),
            flows: Vec::new(),
            server: None,
            client: None,
            client_delay_s: 0.2,
            time_limit_s: None,
            app_output_dir: None,
            capture_dir: None,
            capture_links: Vec::new(),
            realtime: true,
            multipath: false,
            follow_attachment: true,
            traces: false,
        }
    }
}

#[derive(Debug)]
pub enum Error {
    /// Bad input, or a machine that cannot emulate (no root, no /dev/net/tun): one line, exit 2.
    Input(String),
    /// The run failed.
    Run(hosim::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(m) => f.write_str(m),
            Error::Run(e) => write!(f, "{e}"),
        }
    }
}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Run(hosim::Error::Scenario(e))
    }
}

pub struct EmulateOutput {
    pub summary: Value,
    /// With `EmulateOptions::traces`, the trace tables of `hosim run` (ids are flow or link
    /// indices, resolved by `flow_names` and `link_names`); else empty. A kernel's endpoint
    /// has no hosim sender: an emulated flow has no cwnd, ssthresh, RTT, RTO or in-flight
    /// rows, and its goodput rows are the bytes its receiving kernel acknowledged in order
    /// (`goodput_rows`). Queue and rate traces are those of `hosim run`.
    pub traces: hosim::Traces,
    pub flow_names: Vec<String>,
    pub link_names: Vec<String>,
}

/// Mechanisms that live inside hosim's TCP: with a real stack as the endpoint there is nothing
/// for them to act on. The key and the one line saying so.
fn needs_simulated_endpoints(s: &hosim::scenario::Scenario) -> Option<(&'static str, String)> {
    let get = |sec: &str, key: &str| s.sections.get(sec).and_then(|t| t.get(key)).cloned();
    if get("hsdpa", "proxy").and_then(|v| v.as_bool()) == Some(true) {
        return Some(("hsdpa.proxy", "the HSDPA proxy's window adaptation acts on hosim's TCP".into()));
    }
    if let Some(a) = get("vertical", "adaptation").and_then(|v| v.as_str().map(str::to_string)) {
        if a != "none" {
            return Some((
                "vertical.adaptation",
                format!("{a:?} (TCP-CLAH, Freeze-TCP, Daniel & Kojo) acts inside hosim's TCP"),
            ));
        }
    }
    None
}

/// Per emulated flow and direction (0: towards its receiver, 1: back): packets and bytes that
/// the kernel sent into the network, and that the network delivered to the other kernel.
#[derive(Default, Clone, Copy)]
struct FlowCounts {
    sent_pkts: [u64; 2],
    sent_bytes: [u64; 2],
    delivered_pkts: [u64; 2],
    delivered_bytes: [u64; 2],
    ce_marked: [u64; 2],
}

/// The emulated hosts and how a real packet maps onto the scenario.
struct Plan {
    hosts: Vec<NodeId>,
    /// The interfaces: (host index, index within the host, the link its packets take; None:
    /// the host's route).
    ifaces: Vec<(usize, usize, Option<LinkId>)>,
    flows: Vec<FlowId>,
    /// (source host index, destination host index) -> (flow, towards its receiver)
    route: HashMap<(usize, usize), (FlowId, bool)>,
}

fn plan(sim: &Sim, names: &[String], multipath: bool, source: &str) -> Result<Plan, Error> {
    let w = &sim.world;
    if w.flows.is_empty() {
        return Err(ScenarioError::new(source, "flows", "hosim emulate needs a scenario with a flow").into());
    }
    let mut chosen: Vec<FlowId> = Vec::new();
    for n in names {
        let Some(f) = w.flows.iter().position(|f| &f.name == n) else {
            let known: Vec<&str> = w.flows.iter().map(|f| f.name.as_str()).collect();
            return Err(Error::Input(format!("--flow {n}: no such flow (flows: {})", known.join(", "))));
        };
        chosen.push(f as FlowId);
    }
    if chosen.is_empty() {
        chosen.push(0);
    }
    // A flow sharing a host with an emulated flow is emulated too: its host is a real stack.
    let mut hosts: Vec<NodeId> = Vec::new();
    loop {
        for &f in &chosen {
            for n in [w.flows[f as usize].src, w.flows[f as usize].dst] {
                if !hosts.contains(&n) {
                    hosts.push(n);
                }
            }
        }
        let more: Vec<FlowId> = (0..w.flows.len() as FlowId)
            .filter(|f| !chosen.contains(f))
            .filter(|&f| hosts.contains(&w.flows[f as usize].src) || hosts.contains(&w.flows[f as usize].dst))
            .collect();
        if more.is_empty() {
            break;
        }
        chosen.extend(more);
    }
    if hosts.len() > safety::MAX_HOSTS {
        return Err(Error::Input(format!("hosim emulate: at most {} emulated hosts", safety::MAX_HOSTS)));
    }
    let idx = |n: NodeId| hosts.iter().position(|&h| h == n).expect("an emulated flow's host is emulated");
    let mut route = HashMap::new();
    for &f in &chosen {
        let (s, d) = (idx(w.flows[f as usize].src), idx(w.flows[f as usize].dst));
        route.entry((s, d)).or_insert((f, true));
        route.entry((d, s)).or_insert((f, false));
    }
    let mut ifaces = Vec::new();
    for (k, &n) in hosts.iter().enumerate() {
        let out: Vec<LinkId> =
            w.links.iter().enumerate().filter(|(_, l)| l.from == n).map(|(i, _)| i as LinkId).collect();
        if multipath && out.len() > 1 {
            if out.len() > safety::MAX_IFACES {
                return Err(Error::Input(format!("hosim emulate: at most {} links a host", safety::MAX_IFACES)));
            }
            ifaces.extend(out.iter().enumerate().map(|(i, &l)| (k, i, Some(l))));
        } else {
            ifaces.push((k, 0, None));
        }
    }
    Ok(Plan { hosts, ifaces, flows: chosen, route })
}

impl Plan {
    /// The interface of emulated host `node` pinned to its link `link`, if there is one.
    fn iface_on(&self, node: NodeId, link: LinkId) -> Option<usize> {
        let k = self.hosts.iter().position(|&h| h == node)?;
        self.ifaces.iter().position(|&(h, _, l)| h == k && l == Some(link))
    }
}

/// Lateness figures of a run, in microseconds.
fn lateness_stats(mut ns: Vec<u64>) -> Value {
    ns.sort_unstable();
    let pct = |p: f64| -> f64 {
        if ns.is_empty() {
            return 0.0;
        }
        let i = ((p * ns.len() as f64).ceil() as usize).clamp(1, ns.len()) - 1;
        ns[i] as f64 / 1e3
    };
    json!({
        "packets": ns.len(),
        "p50_us": pct(0.5),
        "p99_us": pct(0.99),
        "p999_us": pct(0.999),
        "max_us": pct(1.0),
        "bound_p99_us": P99_BOUND_US,
    })
}

/// Runs the scenario `text` (from `source`) in real time with real stacks at the chosen
/// flows' hosts. `interrupted` is polled by the loop (Ctrl-C sets it).
pub fn emulate(text: &str, source: &str, opts: &EmulateOptions) -> Result<EmulateOutput, Error> {
    let scenario = hosim::scenario::load(text, source, &opts.overrides)?;
    if let Some((key, why)) = needs_simulated_endpoints(&scenario) {
        let m = format!("{why}: it needs simulated endpoints (hosim run), not real ones");
        return Err(ScenarioError::new(source, key, &m).into());
    }
    safety::preflight().map_err(Error::Input)?;
    let seed = opts.seed.or(scenario.seed).unwrap_or(1);
    let mut sim = hosim::scenario::build::build(&scenario, source, seed)?;
    let plan = plan(&sim, &opts.flows, opts.multipath, source)?;
    let limit_s = opts.time_limit_s.unwrap_or(f64::INFINITY).min(scenario.duration_s).min(MAX_RUN_S);
    let end_ns = (limit_s * 1e9) as u64;
    sim.world.end_ns = end_ns;
    sim.world.tap = Some(Box::new(Tap::new(sim.world.nodes.len(), &plan.hosts)));
    if opts.traces {
        let w = &sim.world;
        let rows = end_ns.div_ceil(w.trace_interval_ns).saturating_mul(w.flows.len() as u64);
        if rows > hosim::MAX_GOODPUT_ROWS {
            let m = format!(
                "the goodput trace would have {rows} rows (flows x run time / interval_s); at most {}: \
                 make the interval longer",
                hosim::MAX_GOODPUT_ROWS
            );
            return Err(ScenarioError::new(source, "trace.interval_s", &m).into());
        }
        sim.world.obs.set_tracing(true);
    }

    // Ctrl-C and SIGTERM from here on stop the run (its loop polls the flag) and clean up.
    let stop = Arc::new(AtomicBool::new(false));
    let signals = SignalGuard::register(&stop);
    let stale = safety::remove_stale();
    let ns = safety::Namespaces::create(plan.hosts.len()).map_err(Error::Input)?;
    // The interfaces whose host is not attached to their network at the start (what the
    // mechanism said while the scenario was built): configured down, without an endpoint.
    let follow = opts.multipath && opts.follow_attachment;
    let mut up_at_start = vec![true; plan.ifaces.len()];
    if follow {
        for a in &sim.world.attachments {
            if let Some(g) = plan.iface_on(a.node, a.link) {
                up_at_start[g] = a.attached;
            }
        }
    }
    let mut tuns: Vec<OwnedFd> = Vec::new();
    for (g, &(k, i, _)) in plan.ifaces.iter().enumerate() {
        let dev = format!("{DEV}{i}");
        tuns.push(tun::open_in(&ns.names[k], &dev).map_err(Error::Input)?);
        let only = plan.ifaces.iter().filter(|f| f.0 == k).count() == 1;
        ns.configure(k, &dev, safety::host_addr(k, i), only, up_at_start[g]).map_err(Error::Input)?;
    }
    // Each pinned interface up at the start is an MPTCP endpoint that opens subflows (the first
    // one's address is also the connection's own, which the path manager counts as used), with
    // id its index + 1; `endpoint`: whether it has one now.
    let mut endpoint = vec![false; plan.ifaces.len()];
    if opts.multipath {
        for k in 0..plan.hosts.len() {
            let mut extra: Vec<(String, [u8; 4], usize)> = Vec::new();
            for (g, f) in plan.ifaces.iter().enumerate().filter(|(_, f)| f.0 == k && f.2.is_some()) {
                if up_at_start[g] {
                    extra.push((format!("{DEV}{}", f.1), safety::host_addr(k, f.1), f.1 + 1));
                    endpoint[g] = true;
                }
            }
            ns.mptcp(k, &extra).map_err(Error::Input)?;
        }
    }
    // Per host with pinned interfaces: its netlink socket, and each interface's index.
    let mut links: Vec<Option<attach::LinkControl>> = (0..plan.hosts.len()).map(|_| None).collect();
    let mut ifindex = vec![0i32; plan.ifaces.len()];
    if follow {
        for (k, slot) in links.iter_mut().enumerate() {
            let mine: Vec<usize> = (0..plan.ifaces.len()).filter(|&g| plan.ifaces[g].0 == k).collect();
            if mine.iter().all(|&g| plan.ifaces[g].2.is_none()) {
                continue;
            }
            let devs: Vec<String> = mine.iter().map(|&g| format!("{DEV}{}", plan.ifaces[g].1)).collect();
            let (ctl, idx) = attach::LinkControl::open_in(&ns.names[k], &devs).map_err(Error::Input)?;
            for (&g, i) in mine.iter().zip(idx) {
                ifindex[g] = i;
            }
            *slot = Some(ctl);
        }
    }
    let mut ifstate = IfState { links: Some(links), ifindex, endpoint, applied: sim.world.attachments.len(), follow };
    let payloads: Payloads = Rc::new(RefCell::new(HashMap::new()));
    sim.world.obs.add(Box::new(capture::ForgetDropped(payloads.clone())));
    let mut capture_files = Vec::new();
    if let Some(dir) = &opts.capture_dir {
        let all = opts.capture_links.iter().any(|l| l == "all");
        for name in opts.capture_links.iter().filter(|l| *l != "all") {
            if !sim.world.links.iter().any(|l| &l.name == name) {
                return Err(ScenarioError::new(source, "capture.links", &format!("unknown link {name:?}")).into());
            }
        }
        let links: Vec<(String, bool)> =
            sim.world.links.iter().map(|l| (l.name.clone(), all || opts.capture_links.contains(&l.name))).collect();
        let cap = RealCapture::create(dir, &links, payloads.clone())
            .map_err(|e| Error::Input(format!("{}: cannot create the packet capture: {e}", dir.display())))?;
        capture_files = cap.files.clone();
        sim.world.obs.add(Box::new(cap));
    }

    // `ss -tin` sampled every 200 ms by a thread of ordinary priority (started before the loop
    // takes SCHED_FIFO): a connection that closed before the end still shows its last state.
    let sampler = apps::SsSampler::start(ns.names.clone(), Duration::from_millis(200));
    let result = drive(&mut sim, &plan, &ns, &tuns, &payloads, opts, end_ns, &stop, &mut ifstate);
    drop(signals);
    let last_ss = sampler.finish();
    let (mut report, mut apps, spawner) = result?;
    let interfaces: Vec<Value> = plan
        .ifaces
        .iter()
        .enumerate()
        .map(|(g, &(k, i, l))| {
            json!({
                "host": sim.world.nodes[plan.hosts[k] as usize].name,
                "device": format!("{DEV}{i}"),
                "address": safety::fmt_addr(safety::host_addr(k, i)),
                "link": l.map(|l| sim.world.links[l as usize].name.clone()),
                "up_at_start": up_at_start[g],
            })
        })
        .collect();
    // Started after the loop ended (a client due after a short --time): stopped with the rest.
    apps.extend(spawner.started().unwrap_or_default());
    // The kernel's view, before the applications are stopped and their sockets closed.
    let kernel: Vec<Value> = plan
        .hosts
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let now = apps::ss(&ns.names[k]);
            let (ss, at_end) = if now.is_empty() { (last_ss[k].clone(), false) } else { (now, true) };
            json!({
                "host": sim.world.nodes[n as usize].name,
                "namespace": ns.names[k],
                "address": safety::fmt_addr(safety::host_addr(k, 0)),
                "addresses": plan.ifaces.iter().filter(|f| f.0 == k).map(|f| safety::fmt_addr(safety::host_addr(k, f.1))).collect::<Vec<_>>(),
                "ss": ss,
                "ss_at_end": at_end,
                "nstat": apps::nstat(&ns.names[k]),
            })
        })
        .collect();
    for app in &mut apps {
        app.stop(Duration::from_millis(300));
    }
    spawner.finish();
    drop(tuns);
    drop(ns);
    let interrupted = stop.load(Ordering::SeqCst);
    let stopped_at = report.stopped_at_ns;
    sim.finish_at(stopped_at).map_err(|e| Error::Run(hosim::Error::Internal(format!("{e:?}"))))?;
    sim.world.obs.finish().map_err(|e| Error::Run(hosim::Error::Io(format!("writing the packet capture: {e}"))))?;
    if interrupted {
        return Err(Error::Run(hosim::Error::Interrupted { at_s: ns_to_s(stopped_at) }));
    }
    let violations = hosim::metrics::summary::check_invariants(&sim);
    let name = scenario.name.clone().unwrap_or_else(|| source.to_string());
    let mut summary = hosim::metrics::summary::summary(&sim, &name, seed, report.wall_s, &violations);
    if !violations.is_empty() {
        return Err(Error::Run(hosim::Error::Invariant(violations.join("; "))));
    }
    let lateness = lateness_stats(std::mem::take(&mut report.lateness_ns));
    let p99 = lateness["p99_us"].as_f64().unwrap_or(0.0);
    let warning = (p99 > P99_BOUND_US).then(|| {
        format!("real-time lateness p99 {p99:.0} us exceeds the bound of {P99_BOUND_US:.0} us: timing is not faithful")
    });
    let flows: Vec<Value> = plan
        .flows
        .iter()
        .map(|&f| {
            let c = report.counts.get(&f).copied().unwrap_or_default();
            let fl = &sim.world.flows[f as usize];
            json!({
                "name": fl.name,
                "src": sim.world.nodes[fl.src as usize].name,
                "dst": sim.world.nodes[fl.dst as usize].name,
                "forward": {"sent_packets": c.sent_pkts[0], "sent_bytes": c.sent_bytes[0],
                            "delivered_packets": c.delivered_pkts[0], "delivered_bytes": c.delivered_bytes[0],
                            "ce_marked": c.ce_marked[0]},
                "reverse": {"sent_packets": c.sent_pkts[1], "sent_bytes": c.sent_bytes[1],
                            "delivered_packets": c.delivered_pkts[1], "delivered_bytes": c.delivered_bytes[1],
                            "ce_marked": c.ce_marked[1]},
                "forward_delivered_bytes_per_s": report.per_s.get(&f).cloned().unwrap_or_default(),
            })
        })
        .collect();
    if let Some(entries) = summary.get_mut("flows").and_then(Value::as_array_mut) {
        for (i, e) in entries.iter_mut().enumerate() {
            if let Some(m) = e.as_object_mut() {
                m.insert("emulated".into(), json!(plan.flows.contains(&(i as FlowId))));
            }
        }
    }
    let emulation = json!({
        "duration_s": ns_to_s(stopped_at),
        "ended_by": report.ended_by,
        "sched_fifo": report.fifo,
        "cpu_dma_latency": report.dma_latency,
        "loadavg": loadavg(),
        "loop_cpu_s": report.loop_cpu_s,
        "loop_cpu_share": if report.wall_s > 0.0 { report.loop_cpu_s / report.wall_s } else { 0.0 },
        "lateness": lateness,
        "warning": warning,
        "flows": flows,
        "hosts": kernel,
        "interfaces": interfaces,
        "attachments": report.attachments,
        "packets_to_down_interfaces": report.to_down,
        "unrouted_packets": report.unrouted,
        "packets_without_bytes": report.no_bytes,
        "apps": apps.iter().map(|a| json!({"role": a.role, "exit_status": a.status})).collect::<Vec<_>>(),
        "stale_namespaces_removed": stale,
        "capture_files": capture_files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    if let Some(m) = summary.as_object_mut() {
        m.insert("emulation".into(), emulation);
    }
    let world = &mut sim.world;
    let mut traces = world.obs.take_traces();
    if opts.traces {
        goodput_rows(&mut traces.tables[TraceKind::Goodput as usize], &report.goodput, world.trace_interval_ns);
    }
    Ok(EmulateOutput {
        summary,
        traces,
        flow_names: world.flows.iter().map(|f| f.name.clone()).collect(),
        link_names: world.links.iter().map(|l| l.name.clone()).collect(),
    })
}

/// The run's SIGINT and SIGTERM handlers (setting the loop's stop flag), removed on drop, on
/// every path out of `emulate`.
struct SignalGuard(Vec<signal_hook::SigId>);

impl SignalGuard {
    fn register(stop: &Arc<AtomicBool>) -> SignalGuard {
        let ids = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM]
            .iter()
            .filter_map(|&s| signal_hook::flag::register(s, stop.clone()).ok())
            .collect();
        SignalGuard(ids)
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for id in self.0.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

fn loadavg() -> Value {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let v: Vec<f64> = text.split_whitespace().take(3).filter_map(|x| x.parse().ok()).collect();
    json!(v)
}

/// The goodput trace's rows of the emulated flows: hosim's receiver saw none of their bytes
/// (they went to a kernel), so each row of such a flow gets the new payload bytes the network
/// acknowledged by its receiving host's TCP in that interval (`Goodput::ack`), as bit/s.
fn goodput_rows(table: &mut hosim::TraceTable, goodput: &HashMap<FlowId, Goodput>, interval_ns: u64) {
    let iv_s = ns_to_s(interval_ns);
    for ((t, id), v) in table.time_ns.iter().zip(&table.id).zip(table.value.iter_mut()) {
        if let Some(g) = goodput.get(id) {
            let bin = (t / interval_ns) as usize;
            *v = g.bins.get(bin).copied().unwrap_or(0) as f64 * 8.0 / iv_s;
        }
    }
}

/// An emulated flow's goodput as its receiving host's TCP gets it: the bytes by which the
/// receiver's cumulative acknowledgment advances (data delivered in order, RFC 9293 §3.10.7.4),
/// counted when the network takes the ACK from the receiver's kernel, per trace interval.
#[derive(Default)]
struct Goodput {
    /// The highest relative acknowledgment number seen, mod 2^32 (1 after the SYN).
    high: Option<u32>,
    bins: Vec<u64>,
}

impl Goodput {
    fn ack(&mut self, pkt: &Packet, at_ns: u64, interval_ns: u64) {
        if matches!(pkt.kind, PacketKind::Syn | PacketKind::SynAck) {
            return;
        }
        let ack = pkt.ack as u32;
        let high = self.high.unwrap_or(1);
        // Sequence-space arithmetic (RFC 9293 §3.4): ahead when the difference is below 2^31.
        let new = ack.wrapping_sub(high);
        if new == 0 || new >= 1 << 31 {
            return;
        }
        self.high = Some(ack);
        let i = (at_ns / interval_ns) as usize;
        if self.bins.len() <= i {
            self.bins.resize(i + 1, 0);
        }
        self.bins[i] += u64::from(new);
    }
}

struct Report {
    lateness_ns: Vec<u64>,
    counts: HashMap<FlowId, FlowCounts>,
    /// Per emulated flow: its goodput per trace interval, for the goodput trace.
    goodput: HashMap<FlowId, Goodput>,
    /// Per flow: bytes delivered in its data direction, per second of the run.
    per_s: HashMap<FlowId, Vec<u64>>,
    unrouted: u64,
    no_bytes: u64,
    /// Packets the network delivered to an interface that was down (the kernel refused them).
    to_down: u64,
    /// The attachment changes applied to interfaces (`IfState::apply`), for the summary.
    attachments: Vec<Value>,
    stopped_at_ns: u64,
    wall_s: f64,
    ended_by: &'static str,
    fifo: bool,
    dma_latency: bool,
    /// CPU time of the loop's thread (user + system), s.
    loop_cpu_s: f64,
}

/// CPU time (user + system) of the calling thread so far, s.
fn thread_cpu_s() -> f64 {
    // SAFETY: an all-zero rusage is a valid value, and getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The real-time loop: events due by the wall clock, packets out to the TUN devices, packets
/// in from them, then sleep until the next event or packet.
#[allow(clippy::too_many_arguments)]
fn drive(
    sim: &mut Sim,
    plan: &Plan,
    ns: &safety::Namespaces,
    tuns: &[OwnedFd],
    payloads: &Payloads,
    opts: &EmulateOptions,
    end_ns: u64,
    stop: &AtomicBool,
    ifs: &mut IfState,
) -> Result<(Report, Vec<App>, apps::Spawner), Error> {
    let addr = |k: usize| safety::fmt_addr(safety::host_addr(k, 0));
    let first = &sim.world.flows[plan.flows[0] as usize];
    let idx = |n: NodeId| plan.hosts.iter().position(|&h| h == n).expect("emulated");
    let (server_k, client_k) = (idx(first.src), idx(first.dst));
    let fill = |cmd: &str| cmd.replace("{server}", &addr(server_k)).replace("{client}", &addr(client_k));
    let out = |role: &str| opts.app_output_dir.as_ref().map(|d| d.join(format!("{role}.out")));
    let mut specs: Vec<(Duration, apps::AppSpec)> = Vec::new();
    if let Some(cmd) = &opts.server {
        specs.push((Duration::ZERO, ("server", ns.names[server_k].clone(), fill(cmd), out("server"))));
    }
    if let Some(cmd) = &opts.client {
        let at = Duration::from_secs_f64(opts.client_delay_s.max(0.0));
        specs.push((at, ("client", ns.names[client_k].clone(), fill(cmd), out("client"))));
    }
    let mut apps: Vec<App> = Vec::new();

    let node_host: HashMap<NodeId, usize> = plan.hosts.iter().enumerate().map(|(k, &n)| (n, k)).collect();
    // Each address's interface, and each host's first interface.
    let addr_iface: HashMap<[u8; 4], usize> =
        plan.ifaces.iter().enumerate().map(|(g, &(k, i, _))| (safety::host_addr(k, i), g)).collect();
    let first_iface: Vec<usize> = (0..plan.hosts.len())
        .map(|k| plan.ifaces.iter().position(|f| f.0 == k).expect("a host has an interface"))
        .collect();
    let mut report = Report {
        lateness_ns: Vec::with_capacity(1 << 16),
        counts: HashMap::new(),
        goodput: HashMap::new(),
        per_s: HashMap::new(),
        unrouted: 0,
        no_bytes: 0,
        to_down: 0,
        attachments: Vec::new(),
        stopped_at_ns: 0,
        wall_s: 0.0,
        ended_by: "duration",
        fifo: false,
        dma_latency: false,
        loop_cpu_s: 0.0,
    };
    // Initial sequence numbers per (flow, towards receiver), for the simulated packet's seq/ack.
    let mut isn: HashMap<(FlowId, bool), u32> = HashMap::new();
    let mut buf = vec![0u8; 65536];
    let mut out_buf = Vec::new();
    let rt = opts.realtime.then(|| rt::Realtime::acquire(10));
    report.fifo = rt.as_ref().is_some_and(|r| r.fifo());
    report.dma_latency = rt.as_ref().is_some_and(|r| r.dma_latency());
    sim.begin();
    let cpu0 = thread_cpu_s();
    let t0 = Instant::now();
    let spawner = apps::Spawner::start(t0, specs);
    let follower = attach::Follower::start(t0, ifs.links.take().unwrap_or_default(), opts.realtime);
    let clock = |t0: Instant| t0.elapsed().as_nanos() as u64;
    let mut next_check = 0u64;
    let interval_ns = sim.world.trace_interval_ns;
    loop {
        let now = clock(t0);
        if now >= end_ns {
            report.stopped_at_ns = end_ns;
            break;
        }
        if stop.load(Ordering::Relaxed) {
            report.ended_by = "interrupt";
            report.stopped_at_ns = now;
            break;
        }
        if now >= next_check {
            next_check = now + 5_000_000;
            match spawner.started() {
                Ok(new) => apps.extend(new),
                Err(e) => {
                    for a in &mut apps {
                        a.stop(Duration::from_millis(300));
                    }
                    spawner.finish();
                    return Err(Error::Input(e));
                }
            }
            if let Some(c) = apps.iter_mut().find(|a| a.role == "client") {
                if c.exited() {
                    report.ended_by = "client";
                    report.stopped_at_ns = now;
                    break;
                }
            }
        }
        sim.run_until(now).map_err(|e| Error::Run(hosim::Error::Internal(format!("{e:?}"))))?;
        // Hosts that left or joined an access network: their interfaces follow.
        if ifs.applied < sim.world.attachments.len() {
            ifs.apply(sim, plan, ns, &follower);
        }
        // Out: what the network delivered to emulated hosts.
        out_buf.extend(sim.world.tap.as_mut().expect("emulation has a tap").drain());
        if !out_buf.is_empty() {
            let mut pl = payloads.borrow_mut();
            for t in out_buf.drain(..) {
                let Some(mut bytes) = pl.remove(&t.pkt.uid) else {
                    report.no_bytes += 1;
                    continue;
                };
                // 0: the flow's data direction (from its source host), 1: back.
                let d = (t.pkt.src != sim.world.flows[t.pkt.flow as usize].src) as usize;
                let c = report.counts.entry(t.pkt.flow).or_default();
                if t.pkt.ecn == Ecn::Ce && bytes[1] & 3 != 3 && wire::set_ce(&mut bytes) {
                    c.ce_marked[d] += 1;
                }
                c.delivered_pkts[d] += 1;
                c.delivered_bytes[d] += bytes.len() as u64;
                if d == 0 {
                    let bins = report.per_s.entry(t.pkt.flow).or_default();
                    let i = (t.at_ns / 1_000_000_000) as usize;
                    if bins.len() <= i {
                        bins.resize(i + 1, 0);
                    }
                    bins[i] += bytes.len() as u64;
                }
                // The interface that owns the destination address, if it is this host's.
                let k = node_host[&t.node];
                let dst = [bytes[16], bytes[17], bytes[18], bytes[19]];
                let g = addr_iface.get(&dst).copied().filter(|&g| plan.ifaces[g].0 == k).unwrap_or(first_iface[k]);
                let fd = tuns[g].as_raw_fd();
                // SAFETY: writes `bytes` to a TUN descriptor this run owns.
                if unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) } < 0 {
                    // EIO: the interface is down (its host has left that network).
                    report.to_down += 1;
                }
                report.lateness_ns.push(clock(t0).saturating_sub(t.at_ns));
            }
        }
        // In: what the kernels sent.
        for (g, fd) in tuns.iter().enumerate() {
            let (k, _, pinned) = plan.ifaces[g];
            for _ in 0..256 {
                // SAFETY: reads into `buf`, of its length, from a TUN descriptor this run owns.
                let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    break;
                }
                let bytes = &buf[..n as usize];
                let Some(ip) = wire::parse(bytes) else { continue };
                let dst = addr_iface.get(&ip.dst).map(|&h| plan.ifaces[h].0);
                let Some(&(f, fwd)) = dst.and_then(|j| plan.route.get(&(k, j))) else {
                    report.unrouted += 1;
                    continue;
                };
                let pkt = to_packet(sim, f, fwd, &ip, &mut isn);
                if !fwd {
                    report.goodput.entry(f).or_default().ack(&pkt, sim.world.now, interval_ns);
                }
                // The bytes first: an idle first link starts sending the packet (and a capture
                // of that link reads its bytes) inside the injection; a full queue drops it there
                // (and `ForgetDropped` forgets them).
                let uid = sim.world.next_inject_uid();
                payloads.borrow_mut().insert(uid, bytes.to_vec());
                let injected = match pinned {
                    Some(l) => sim.world.inject_on(l, pkt),
                    None => sim.world.inject(pkt),
                };
                debug_assert_eq!(injected, uid);
                let c = report.counts.entry(f).or_default();
                c.sent_pkts[!fwd as usize] += 1;
                c.sent_bytes[!fwd as usize] += n as u64;
            }
        }
        // Sleep until the next event, a packet from a kernel, or 5 ms (apps, Ctrl-C).
        let next = sim.next_event_ns().unwrap_or(u64::MAX).min(end_ns);
        let now = clock(t0);
        if next > now {
            let wait = (next - now).min(5_000_000);
            let mut fds: Vec<PollFd> = tuns.iter().map(|t| PollFd::new(t.as_fd(), PollFlags::POLLIN)).collect();
            let _ = ppoll(&mut fds, Some(TimeSpec::from_duration(Duration::from_nanos(wait))), None);
        }
    }
    report.wall_s = t0.elapsed().as_secs_f64();
    report.loop_cpu_s = thread_cpu_s() - cpu0;
    drop(rt);
    report.attachments = follower.finish();
    Ok((report, apps, spawner))
}

/// The interfaces that follow their host's attachment (attach.rs), during the run.
struct IfState {
    /// Per emulated host: its netlink socket (hosts with pinned interfaces), until the
    /// [`attach::Follower`] takes them.
    links: Option<Vec<Option<attach::LinkControl>>>,
    /// Per interface: its index in its namespace, and whether it has an MPTCP endpoint now.
    ifindex: Vec<i32>,
    endpoint: Vec<bool>,
    /// The entries of `World::attachments` handled so far.
    applied: usize,
    follow: bool,
}

impl IfState {
    /// Files the new attachment changes of emulated interfaces with the follower, which applies
    /// them at once, and their endpoints' removal or addition after them.
    fn apply(&mut self, sim: &Sim, plan: &Plan, ns: &safety::Namespaces, follower: &attach::Follower) {
        let w = &sim.world;
        let mut batch = Vec::new();
        for a in &w.attachments[self.applied..] {
            let Some(g) = plan.iface_on(a.node, a.link).filter(|_| self.follow) else { continue };
            let (k, i, _) = plan.ifaces[g];
            let (addr, dev, id) = (safety::host_addr(k, i), format!("{DEV}{i}"), (i + 1).to_string());
            let endpoint = if a.attached && !self.endpoint[g] {
                self.endpoint[g] = true;
                Some(["add", &safety::fmt_addr(addr), "dev", &dev, "id", &id, "subflow"].map(String::from).to_vec())
            } else if !a.attached && self.endpoint[g] {
                self.endpoint[g] = false;
                Some(["delete", "id", &id].map(String::from).to_vec())
            } else {
                None
            };
            batch.push(attach::Change {
                host: w.nodes[a.node as usize].name.clone(),
                k,
                ns: ns.names[k].clone(),
                ifindex: self.ifindex[g],
                dev,
                addr,
                prefix: safety::MULTI_PREFIX,
                attached: a.attached,
                at_ns: a.at_ns,
                endpoint,
            });
        }
        follower.file(batch);
        self.applied = w.attachments.len();
    }
}

/// The simulated packet for a real one of flow `f` (`fwd`: towards its receiver): addresses,
/// size, ECN, and the TCP fields mechanisms may read (seq, len, ack relative to the initial
/// sequence numbers).
fn to_packet(sim: &Sim, f: FlowId, fwd: bool, ip: &wire::Ipv4, isn: &mut HashMap<(FlowId, bool), u32>) -> Packet {
    let flow = &sim.world.flows[f as usize];
    let (src, dst) = if fwd { (flow.src, flow.dst) } else { (flow.dst, flow.src) };
    let (kind, seq, len, ack) = match ip.tcp {
        Some(t) => {
            if t.syn {
                isn.insert((f, fwd), t.seq);
            }
            let mine = isn.get(&(f, fwd)).copied().unwrap_or(0);
            let theirs = isn.get(&(f, !fwd)).copied().unwrap_or(0);
            let kind = match (t.syn, fwd) {
                (true, true) => PacketKind::Syn,
                (true, false) => PacketKind::SynAck,
                (false, _) if t.payload_len > 0 => PacketKind::Data,
                _ => PacketKind::Ack,
            };
            (kind, t.seq.wrapping_sub(mine) as u64, t.payload_len, t.ack.wrapping_sub(theirs) as u64)
        }
        None => (if fwd { PacketKind::Data } else { PacketKind::Ack }, 0, 0, 0),
    };
    let mut p = Packet::new(0, f, src, dst, kind, ip.total_len as u32, 0);
    p.seq = seq;
    p.len = len;
    p.ack = ack;
    p.ecn = match ip.ecn {
        0 => Ecn::NotEct,
        3 => Ecn::Ce,
        _ => Ecn::Ect,
    };
    p
}

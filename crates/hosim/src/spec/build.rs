//! Builds a [`World`] from an explicit graph: resolves names to ids, creates links with their
//! queues and loss models, computes static shortest-path routes and creates the flows.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use super::error::{Check, Field, ScenarioError};
use super::graph::{validate_app, AppKind, Graph, NodeKindName, QueueKind, TcpSection, MAX_LINK_RATE_BPS};
use super::rate::RateChange;
use crate::app::App;
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::{s_to_ns, tx_time_ns, SimTime};
use crate::net::rate::{RateSchedule, VarRate};
use crate::net::{Impairments, Link, LossModel, Node, NodeKind};
use crate::net::{Queue, QueueLimit, RedParams, TaggedFifo};
use crate::sim::{DropRules, Flow, World};
use crate::tcp::TcpConfig;

/// The world of `graph` for a run of `end_ns`; `tcp` holds the defaults of every flow.
pub fn build(
    graph: &Graph,
    tcp: &TcpSection,
    c: &Check,
    seed: u64,
    end_ns: SimTime,
    trace_interval_ns: SimTime,
) -> Result<World, ScenarioError> {
    let mut world = World::new(end_ns, trace_interval_ns, stream_rng(seed, StreamKind::Scenario, 0));
    world.seed = seed;

    let mut ids: HashMap<&str, u32> = HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        if n.name.is_empty() {
            return Err(c.err(&format!("nodes[{i}].name"), "must not be empty"));
        }
        if ids.insert(n.name.as_str(), i as u32).is_some() {
            return Err(c.err(&format!("nodes[{i}].name"), &format!("duplicate node name \"{}\"", n.name)));
        }
        let kind = match n.kind {
            NodeKindName::Host => NodeKind::Host,
            NodeKindName::Router => NodeKind::Router,
        };
        world.nodes.push(Node { name: n.name.clone(), kind, routes: Vec::new(), via: None });
    }
    let lookup = |key: &dyn fmt::Display, name: &str| {
        ids.get(name).copied().ok_or_else(|| c.err(key, &format!("unknown node \"{name}\"")))
    };

    let default_queue = tcp.profile.unwrap_or_default().default_queue_packets();
    build_links(&mut world, graph, c, seed, default_queue, &lookup)?;
    super::wifi::build_media(&mut world, &graph.media, c, seed, default_queue, &lookup)?;
    check_route_tables(&world, c)?;
    compute_routes(&mut world);

    let base = tcp.apply(&TcpConfig::default(), c, "tcp")?;
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, f) in graph.flows.iter().enumerate() {
        let key = |field: &'static str| Field { list: "flows", index: i, field };
        let src = lookup(&key("src"), &f.src)?;
        let dst = lookup(&key("dst"), &f.dst)?;
        if src == dst {
            return Err(c.err(&key("dst"), "must differ from src"));
        }
        for (end, id) in [("src", src), ("dst", dst)] {
            if world.nodes[id as usize].kind != NodeKind::Host {
                return Err(c.err(&key(end), "flows must start and end at hosts"));
            }
        }
        if !world.reaches(src, dst) || !world.reaches(dst, src) {
            return Err(c.err(&format!("flows[{i}]"), &format!("no route between \"{}\" and \"{}\"", f.src, f.dst)));
        }
        // A template computes start times (flow i at i x a stagger): checked here, as computed,
        // with the jitter that is added to them, so that no start time wraps the u64 clock.
        c.time(&key("start_s"), f.start_s)?;
        c.time(&key("start_s"), f.start_s + graph.start_jitter_s)?;
        validate_app(c, format_args!("flows[{i}]"), f.app, f.bytes, f.rate_bps)?;
        let cfg = match &f.tcp {
            Some(t) => t.apply(&base, c, &key("tcp").to_string())?,
            None => base.clone(),
        };
        let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
        if names.insert(name.clone(), i).is_some() {
            return Err(c.err(&key("name"), &format!("duplicate flow name \"{name}\"")));
        }
        let app = match f.app {
            AppKind::Bulk => App::Bulk,
            AppKind::File => App::File { bytes: f.bytes.unwrap_or(0) },
            AppKind::Rate => {
                let rate_bps = f.rate_bps.unwrap_or(1.0).round().max(1.0) as u64;
                App::Rate {
                    rate_bps,
                    chunk_bytes: crate::app::rate_chunk_bytes(cfg.mss_bytes, rate_bps),
                    bytes: f.bytes,
                }
            }
        };
        let drops = DropRules {
            first_tx: f.drop_segments.clone(),
            retx: f.drop_retransmissions.iter().map(|&i| (i, false)).collect(),
        };
        let start_ns = s_to_ns(f.start_s) + start_jitter_ns(seed, i, graph.start_jitter_s);
        world.flows.push(Flow::new(name, src, dst, app, start_ns, cfg, drops));
    }
    Ok(world)
}

/// Flow `i`'s extra start delay: uniform in `[0, jitter_s)`, from the flow's own stream.
fn start_jitter_ns(seed: u64, i: usize, jitter_s: f64) -> SimTime {
    use rand::Rng as _;
    if jitter_s <= 0.0 {
        return 0;
    }
    let u: f64 = stream_rng(seed, StreamKind::Flow, i as u64).gen();
    s_to_ns(u * jitter_s)
}

/// Marks the traced link queues: `queues` (by link name) if given, else the graph's defaults.
pub fn trace_queues(
    world: &mut World,
    graph: &Graph,
    queues: Option<&[String]>,
    c: &Check,
) -> Result<(), ScenarioError> {
    if let Some(queues) = queues {
        for (i, q) in queues.iter().enumerate() {
            match world.links.iter_mut().find(|l| &l.name == q) {
                Some(l) => l.traced = true,
                None => return Err(c.err(&format!("trace.queues[{i}]"), &format!("no link named \"{q}\""))),
            }
        }
    } else {
        for q in &graph.traced_queues {
            if let Some(l) = world.links.iter_mut().find(|l| &l.name == q) {
                l.traced = true;
            }
        }
    }
    Ok(())
}

fn build_links(
    world: &mut World,
    graph: &Graph,
    c: &Check,
    seed: u64,
    default_queue_packets: u32,
    lookup: &dyn Fn(&dyn fmt::Display, &str) -> Result<u32, ScenarioError>,
) -> Result<(), ScenarioError> {
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, l) in graph.links.iter().enumerate() {
        let key = |field: &'static str| Field { list: "links", index: i, field };
        let from = lookup(&key("from"), &l.from)?;
        let to = lookup(&key("to"), &l.to)?;
        if from == to {
            return Err(c.err(&key("to"), "must differ from `from`"));
        }
        let var_model = match &l.rate_model {
            Some(spec) => Some((
                spec.params().to_model(
                    spec.model,
                    c,
                    &key("rate_model").to_string(),
                    &key("rate_model.model").to_string(),
                )?,
                spec.rate_change,
            )),
            None => None,
        };
        if var_model.is_none() || l.bidirectional {
            c.positive(&key("rate_bps"), l.rate_bps)?;
            if l.rate_bps < 1.0 {
                return Err(c.err(&key("rate_bps"), &format!("must be >= 1 bit/s, got {}", l.rate_bps)));
            }
            if l.rate_bps > MAX_LINK_RATE_BPS {
                // Faster would only add events: a 1500-byte packet takes 12 ns at the bound.
                let m = format!("must be <= {MAX_LINK_RATE_BPS:e} bit/s, got {:e}", l.rate_bps);
                return Err(c.err(&key("rate_bps"), &m));
            }
        }
        c.time(&key("delay_s"), l.delay_s)?;
        let limit = match (l.queue_packets, l.queue_bytes) {
            (Some(_), Some(_)) => return Err(c.err(&key("queue_bytes"), "give queue_packets or queue_bytes, not both")),
            (Some(p), None) => {
                c.at_least(&key("queue_packets"), p as u64, 1)?;
                QueueLimit::Packets(p)
            }
            (None, Some(b)) => {
                c.at_least(&key("queue_bytes"), b, 1)?;
                QueueLimit::Bytes(b)
            }
            (None, None) => QueueLimit::Packets(default_queue_packets),
        };
        let rate = l.rate_bps.round() as u64;
        let red = match (l.queue, &l.red) {
            (QueueKind::DropTail, None) => None,
            (QueueKind::DropTail, Some(_)) => return Err(c.err(&key("red"), "only allowed with queue = \"red\"")),
            (QueueKind::Red, None) => {
                return Err(c.err(&key("red"), "required with queue = \"red\" (min_th_pkts, max_th_pkts, max_p)"))
            }
            (QueueKind::Red, Some(r)) => {
                c.non_negative(&key("red.min_th_pkts"), r.min_th_pkts)?;
                // Written so that NaN also fails.
                if r.max_th_pkts.partial_cmp(&r.min_th_pkts) != Some(std::cmp::Ordering::Greater) {
                    return Err(c.err(&key("red.max_th_pkts"), "must be > min_th_pkts"));
                }
                c.probability(&key("red.max_p"), r.max_p)?;
                c.probability(&key("red.weight"), r.weight)?;
                if let Some(m) = r.ns2_mean_pktsize_bytes {
                    c.at_least(&key("red.ns2_mean_pktsize_bytes"), m as u64, 1)?;
                }
                Some(RedParams {
                    min_th_pkts: r.min_th_pkts,
                    max_th_pkts: r.max_th_pkts,
                    max_p: r.max_p,
                    weight: r.weight,
                    ecn: r.ecn,
                    ns2_mean_pktsize_bytes: r.ns2_mean_pktsize_bytes,
                    // ns-2's `ptc_` counts packets of `mean_pktsize_` in byte mode.
                    typical_tx_ns: tx_time_ns(
                        r.ns2_mean_pktsize_bytes.unwrap_or(1500),
                        var_model.as_ref().map_or(rate, |m| m.0.nominal_mean_bps().max(1.0) as u64),
                    ),
                })
            }
        };
        let loss = match (l.loss, &l.gilbert_elliott) {
            (Some(_), Some(_)) => return Err(c.err(&key("gilbert_elliott"), "give loss or gilbert_elliott, not both")),
            (Some(p), None) => {
                c.probability(&key("loss"), p)?;
                if p >= 1.0 {
                    return Err(c.err(&key("loss"), "must be < 1 (every packet lost)"));
                }
                if p > 0.0 {
                    LossModel::Bernoulli { p }
                } else {
                    LossModel::None
                }
            }
            (None, Some(ge)) => {
                for (k, v) in [
                    ("p_good_to_bad", ge.p_good_to_bad),
                    ("p_bad_to_good", ge.p_bad_to_good),
                    ("loss_good", ge.loss_good),
                    ("loss_bad", ge.loss_bad),
                ] {
                    c.probability(&format!("links[{i}].gilbert_elliott.{k}"), v)?;
                }
                if ge.p_bad_to_good == 0.0 {
                    return Err(
                        c.err(&key("gilbert_elliott.p_bad_to_good"), "must be > 0 (the bad state would never end)")
                    );
                }
                LossModel::GilbertElliott {
                    p_gb: ge.p_good_to_bad,
                    p_bg: ge.p_bad_to_good,
                    loss_good: ge.loss_good,
                    loss_bad: ge.loss_bad,
                    bad: false,
                }
            }
            (None, None) => LossModel::None,
        };
        c.probability(&key("duplicate"), l.duplicate)?;
        c.probability(&key("reorder"), l.reorder)?;
        c.time(&key("reorder_delay_s"), l.reorder_delay_s)?;
        let impair = (l.duplicate > 0.0 || l.reorder > 0.0).then(|| Impairments {
            duplicate: l.duplicate,
            reorder: l.reorder,
            reorder_delay_ns: s_to_ns(l.reorder_delay_s),
        });
        let directions: &[(u32, u32, bool)] =
            if l.bidirectional { &[(from, to, false), (to, from, true)] } else { &[(from, to, false)] };
        for &(a, b, reverse) in directions {
            let name = match (&l.name, reverse) {
                (Some(n), false) => n.clone(),
                (Some(n), true) => format!("{n}-rev"),
                (None, _) => format!("{}->{}", world.nodes[a as usize].name, world.nodes[b as usize].name),
            };
            if names.insert(name.clone(), i).is_some() {
                return Err(c.err(&key("name"), &format!("duplicate link \"{name}\"")));
            }
            let id = world.links.len() as u64;
            let impair = impair.map(Box::new);
            let var = match (&var_model, reverse) {
                (Some((m, change)), false) => {
                    // The rate model draws from its own stream, apart from the link's loss and RED.
                    let mut v =
                        VarRate::new(RateSchedule::new(m.clone(), stream_rng(seed, StreamKind::Link, id | 1 << 40)));
                    v.reschedule_in_service = *change == RateChange::Reschedule;
                    Some(Box::new(v))
                }
                _ => None,
            };
            world.links.push(Link {
                departs_at_start: Link::fixed_and_loss_free(&var, &impair, &loss),
                name,
                from: a,
                to: b,
                rate_bps: rate,
                delay_ns: s_to_ns(l.delay_s),
                queue: Queue::new(limit, red.clone()),
                loss: loss.clone(),
                rng: stream_rng(seed, StreamKind::Link, id),
                in_service: None,
                tx_done_ns: SimTime::MAX,
                pipeline: TaggedFifo::default(),
                late_pipeline: VecDeque::new(),
                impair,
                stats: Default::default(),
                traced: l.trace,
                to_class: world.nodes[b as usize].kind.class(),
                var,
                wakes_senders: false,
                wifi: None,
            });
        }
    }
    Ok(())
}

/// Most route-table entries a topology may need (8 bytes each: 256 MiB): a table per router
/// with an entry per node grows with the square of the nodes (40,000 routers needed 1.6e9).
pub const MAX_ROUTE_ENTRIES: u64 = 1 << 25;

/// Refuses a topology whose route tables would not fit [`MAX_ROUTE_ENTRIES`], before any is built.
fn check_route_tables(world: &World, c: &Check) -> Result<(), ScenarioError> {
    let out = crate::net::out_links(&world.nodes, &world.links);
    let tables = (0..world.nodes.len()).filter(|&n| single_link(world, &out, n).is_none()).count() as u64;
    let entries = tables * world.nodes.len() as u64;
    if entries > MAX_ROUTE_ENTRIES {
        let problem = format!(
            "{tables} nodes with more than one link need a route table of {} entries each ({entries} in all); at most {MAX_ROUTE_ENTRIES}",
            world.nodes.len()
        );
        return Err(c.err("nodes", &problem));
    }
    Ok(())
}

/// The one link a node sends everything by, when it needs no route table.
fn single_link(world: &World, out: &[Vec<u32>], src: usize) -> Option<u32> {
    // The far end keeps a full table, so an unreachable destination is dropped there and
    // never bounces between two table-less nodes.
    match out[src][..] {
        [only] if out[world.links[only as usize].to as usize].len() != 1 => Some(only),
        _ => None,
    }
}

/// Static routes: for every node, the first link of a minimum-hop path to every other node
/// (breadth-first search; ties go to the link declared first). Hosts never relay. A node with
/// a single outgoing link needs no table (every minimum-hop path starts with that link), so a
/// dumbbell of N hosts costs two tables of 2N + 2 entries, not (2N + 2)^2.
pub fn compute_routes(world: &mut World) {
    let out = crate::net::out_links(&world.nodes, &world.links);
    for src in 0..world.nodes.len() {
        if let Some(only) = single_link(world, &out, src) {
            world.nodes[src].routes = Vec::new();
            world.nodes[src].via = Some(only);
        } else {
            world.nodes[src].routes = crate::net::min_hop_routes(&world.nodes, &world.links, &out, src);
            world.nodes[src].via = None;
        }
    }
}

//! The run summary and the end-of-run invariant checks. Mechanisms contribute through their
//! agents' reports, merged here without naming any.
//!
//! The summary is a contract with the Python package and with users' scripts (documented in
//! docs/cli.md, "The run summary"): at least `scenario`, `seed`, `sim_time_s`, `events`,
//! `wall_time_s`; `flows`, one object per flow with `name`, `cc`, `recovery`,
//! `bytes_delivered`, `goodput_bps`, `retransmits`, `timeouts`, `spurious_timeouts`,
//! `fast_recoveries`, `rtt_mean_s`; `queues`, one object per link queue with `name`, `kind`
//! (the queue discipline), `enqueued`, `dropped`, `marked`, `mean_len_pkts`, `max_len_pkts`;
//! `handovers`, one object per handover with `ue`, `start_s`, `end_s`, `scheme` and the
//! mechanism's own fields. Times are in seconds, rates in bit/s, sizes in bytes unless the
//! name says otherwise.

use serde_json::{json, Map, Value};

use crate::engine::time::ns_to_s;
use crate::sim::{HandoverRecord, Report, Sim};

/// `json!({ "key": value, ... })` with the map sized for its keys up front: a summary has an
/// object per flow and per link (thousands in a large topology), and growing each map key by
/// key (reallocating and rehashing it) took about a third of building them.
macro_rules! object {
    ($($key:literal : $value:expr),* $(,)?) => {{
        let mut m = Map::with_capacity(0 $(+ { let _ = $key; 1 })*);
        $(m.insert($key.to_string(), json!($value));)*
        Value::Object(m)
    }};
}

/// Checks packet conservation, the agents' own invariants and delivery integrity. Returns
/// the list of violations.
pub fn check_invariants(sim: &Sim) -> Vec<String> {
    let mut bad = Vec::new();
    let w = &sim.world;
    let c = &w.counters;
    let in_flight = sim.packets_in_flight();
    if c.created != c.consumed + c.dropped() + in_flight {
        bad.push(format!(
            "packet conservation: created {} != consumed {} + dropped {} + in flight {}",
            c.created,
            c.consumed,
            c.dropped(),
            in_flight
        ));
    }
    for a in sim.agents() {
        bad.extend(a.check());
    }
    for l in &w.links {
        let s = &l.stats;
        let queued = s.offered - l.queue.stats.dropped;
        let after = s.transmitted + s.withdrawn + l.queue.len_pkts() as u64 + l.in_service.is_some() as u64;
        if queued != after {
            bad.push(format!(
                "link {}: accepted {} != transmitted {} + withdrawn {} + queued + in service",
                l.name, queued, s.transmitted, s.withdrawn
            ));
        }
        let propagating = (l.propagating_len() + l.late_pipeline.len()) as u64;
        if s.transmitted + s.duplicated != s.lost + s.delivered + propagating {
            bad.push(format!(
                "link {}: transmitted {} + duplicated {} != lost {} + delivered {} + propagating {}",
                l.name, s.transmitted, s.duplicated, s.lost, s.delivered, propagating
            ));
        }
    }
    // Every packet on a link (queued, in service, propagating) sits in a slot of the store: a
    // slot in use that no link holds would be a leak, a slot held twice a duplicated packet.
    let held: usize = w.links.iter().map(|l| l.slots_held()).sum();
    if w.store.in_use() != held {
        bad.push(format!("packet store: {} slots in use, but the links hold {}", w.store.in_use(), held));
    }
    for f in &w.flows {
        let rcv = f.receiver.rcv_nxt();
        if f.delivered_bytes != rcv {
            bad.push(format!("flow {}: delivered {} bytes but reassembly reached {}", f.name, f.delivered_bytes, rcv));
        }
        if rcv > f.sender.snd_max() {
            bad.push(format!("flow {}: receiver has {} bytes, sender only sent {}", f.name, rcv, f.sender.snd_max()));
        }
        if f.sender.snd_una() > rcv {
            bad.push(format!(
                "flow {}: sender believes {} bytes acknowledged, receiver has {}",
                f.name,
                f.sender.snd_una(),
                rcv
            ));
        }
        if let Some(total) = f.app.total_bytes() {
            if rcv > total {
                bad.push(format!("flow {}: delivered {} bytes of a {}-byte application stream", f.name, rcv, total));
            }
            if f.completion_ns.is_some() && rcv != total {
                bad.push(format!("flow {}: complete but delivered {} of {} bytes", f.name, rcv, total));
            }
        }
        if let Some(to) = f.relay_to.and_then(|t| w.flows.get(t as usize)) {
            // Split connection: the relay hands over exactly the bytes delivered in order, and
            // the far receiver cannot be ahead of them.
            if to.sender.app_limit() != f.delivered_bytes {
                bad.push(format!(
                    "relay {} -> {}: {} bytes delivered but {} handed on",
                    f.name,
                    to.name,
                    f.delivered_bytes,
                    to.sender.app_limit()
                ));
            }
            if to.receiver.rcv_nxt() > rcv {
                bad.push(format!(
                    "relay {} -> {}: far end has {} bytes, relay only received {}",
                    f.name,
                    to.name,
                    to.receiver.rcv_nxt(),
                    rcv
                ));
            }
        }
        if f.tag_errors > 0 {
            bad.push(format!(
                "flow {}: {} segments arrived with a payload tag that does not match their flow and offset",
                f.name, f.tag_errors
            ));
        }
    }
    bad
}

pub fn summary(sim: &Sim, scenario: &str, seed: u64, wall_time_s: f64, violations: &[String]) -> Value {
    let w = &sim.world;
    let reports: Vec<Report> = sim.agents().map(|a| a.report(w)).collect();
    let end_s = ns_to_s(w.end_ns);
    let flows: Vec<Value> = w
        .flows
        .iter()
        .enumerate()
        .map(|(fi, f)| {
            let s = &f.sender;
            let st = &s.stats;
            let active_s = match f.completion_ns {
                Some(done) => ns_to_s(done.saturating_sub(f.start_ns)),
                None => (end_s - ns_to_s(f.start_ns)).max(0.0),
            };
            let goodput = if active_s > 0.0 { f.delivered_bytes as f64 * 8.0 / active_s } else { 0.0 };
            let mean = |sum: u128, n: u64| sum as f64 / n.max(1) as f64 / 1e9;
            let mut v = object! {
                "name": f.name,
                "cc": s.cfg.cc.name(),
                "recovery": s.cfg.recovery.name(),
                "recovery_rate": s.cfg.recovery_rate_in_effect().name(),
                "loss_detection": s.cfg.loss_detection_in_effect().name(),
                "frto": s.cfg.frto,
                "profile": s.cfg.profile.name(),
                "app": f.app.kind(),
                "mss_bytes": s.cfg.mss_bytes,
                "start_s": ns_to_s(f.start_ns),
                "bytes_delivered": f.delivered_bytes,
                "goodput_bps": goodput,
                "completed": f.completion_ns.is_some(),
                "completion_time_s": f.completion_ns.map(|d| ns_to_s(d.saturating_sub(f.start_ns))),
                "segments_sent": st.segments_sent,
                "retransmits": st.retransmits,
                "timeouts": st.timeouts,
                "spurious_timeouts": f.spurious_timeouts,
                "fast_recoveries": st.fast_recoveries,
                "ecn_reductions": st.ecn_reductions,
                "syn_retransmits": st.syn_retransmits,
                "rtt_mean_s": if st.rtt_samples > 0 { json!(mean(st.rtt_sum_ns, st.rtt_samples)) } else { Value::Null },
                "rtt_samples": st.rtt_samples,
                "rto_mean_s": if st.rto_count > 0 { json!(mean(st.rto_sum_ns, st.rto_count)) } else { Value::Null },
                "cwnd_final_bytes": s.cwnd(),
                "ssthresh_final_bytes": if s.ssthresh() == u64::MAX { Value::Null } else { json!(s.ssthresh()) },
                "duplicate_segments": f.receiver.stats.duplicate_segments,
                "scripted_drops": f.scripted_drops,
            };
            if let Value::Object(m) = &mut v {
                // Counters of the optional mechanisms, only where they are on (so the
                // summaries of flows without them keep their fields).
                if s.cfg.frto {
                    m.insert("frto_spurious_detected".into(), json!(st.frto_spurious));
                }
                // Only for a flow the receive window held back at some time.
                let rwnd_limited_s = f.rwnd_limited_s(w.end_ns);
                if rwnd_limited_s > 0.0 {
                    m.insert("rwnd_limited_s".into(), json!(rwnd_limited_s));
                }
                let exits = s.slow_start_exits();
                if s.cfg.hystart {
                    m.insert("hystart_css_exits".into(), json!(exits.css));
                }
                if let Some((_, throttles)) = s.small_queue_state() {
                    m.insert("small_queue_throttles".into(), json!(throttles));
                }
                if s.cfg.linux_hystart {
                    m.insert("hystart_train_exits".into(), json!(exits.train));
                    m.insert("hystart_delay_exits".into(), json!(exits.delay));
                }
                if s.cfg.dsack && s.cfg.sack() {
                    m.insert("dsacks_received".into(), json!(st.dsacks_received));
                }
                if s.cfg.dsack_undo {
                    m.insert("dsack_undos".into(), json!(st.dsack_undos));
                }
                if s.cfg.timestamps {
                    m.insert("ts_undos".into(), json!(st.ts_undos));
                    m.insert("ts_partial_undos".into(), json!(st.ts_partial_undos));
                    m.insert("ts_reorders".into(), json!(st.ts_reorders));
                }
                if s.cfg.loss_detection_in_effect() == crate::tcp::LossDetection::RackTlp {
                    m.insert("tlp_probes".into(), json!(st.tlp_probes));
                    m.insert("tlp_loss_repairs".into(), json!(st.tlp_loss_repairs));
                    m.insert("lost_retransmissions".into(), json!(st.lost_retransmissions));
                }
                for r in &reports {
                    for (_, fields) in r.flow_fields.iter().filter(|(id, _)| *id as usize == fi) {
                        m.extend(fields.clone());
                    }
                }
            }
            v
        })
        .collect();
    let queues: Vec<Value> = w
        .links
        .iter()
        .map(|l| {
            let q = &l.queue;
            let mut entry = object! {
                "name": l.name,
                "kind": q.kind(),
                "enqueued": q.stats.enqueued,
                "dropped": q.stats.dropped,
                "marked": q.stats.marked,
                "lost_on_link": l.stats.lost,
                "mean_len_pkts": q.mean_len_pkts(w.end_ns),
                "max_len_pkts": q.stats.max_len_pkts,
                "tx_bytes": l.stats.tx_bytes,
                "utilization": l.stats.tx_bytes as f64 * 8.0 / l.capacity_bits(w.end_ns).max(1e-12),
            };
            // A discipline's own counters (none for DropTail and RED) follow the common ones.
            if let Value::Object(m) = &mut entry {
                m.extend(q.qdisc_counters().into_iter().map(|(k, n)| (k.to_string(), json!(n))));
            }
            entry
        })
        .collect();
    let (aggregate_bps, aggregate_interval_s) = aggregate_goodput(w);
    let c = &w.counters;
    let handovers: Vec<Value> = reports.iter().flat_map(|r| r.handovers.iter().map(handover_entry)).collect();
    // The per-flow, per-link and handover objects are moved in, not passed through `json!`,
    // which would serialize each into a copy and then drop the original: at 512 flows that
    // copy and drop were three quarters of building the summary (bench/decisions.md).
    let mut m = Map::with_capacity(11);
    m.insert("scenario".into(), json!(scenario));
    m.insert("seed".into(), json!(seed));
    m.insert("sim_time_s".into(), json!(end_s));
    m.insert("events".into(), json!(w.events.executed()));
    m.insert("wall_time_s".into(), json!(wall_time_s));
    m.insert("flows".into(), Value::Array(flows));
    m.insert("queues".into(), Value::Array(queues));
    m.insert("handovers".into(), Value::Array(handovers));
    if !w.media.is_empty() {
        // Only in runs with 802.11 media, so that other summaries keep their bytes.
        let media = w.media.iter().map(|wm| {
            let s = &wm.medium.stats;
            object! {
                "name": wm.name,
                "successes": s.successes,
                "collisions": s.collisions,
                "frame_errors": s.frame_errors,
                "retries": s.retries,
                "discarded": s.discarded,
                "busy_s": crate::engine::time::ns_to_s(s.busy_ns),
            }
        });
        m.insert("media".into(), Value::Array(media.collect()));
    }
    m.insert("aggregate_goodput_bps".into(), json!(aggregate_bps));
    m.insert("aggregate_interval_s".into(), json!(aggregate_interval_s));
    m.insert(
        "invariants".into(),
        object! {
            "ok": violations.is_empty(),
            "violations": violations,
            "packets_created": c.created,
            "packets_consumed": c.consumed,
            "packets_dropped": c.dropped(),
            "packets_in_flight": sim.packets_in_flight(),
        },
    );
    for r in reports {
        m.extend(r.fields);
    }
    Value::Object(m)
}

/// Goodput of all flows together over one interval, from the first flow's start to the end of
/// the run: every byte delivered in order to a final receiver (a flow that ends at a relay is
/// left out: its bytes are delivered again by the flow it feeds), divided by that interval.
/// Unlike the sum of the per-flow `goodput_bps` (each over its own active time), it never
/// exceeds the capacity the flows share.
fn aggregate_goodput(w: &crate::sim::World) -> (f64, f64) {
    let first = w.flows.iter().map(|f| f.start_ns).min().unwrap_or(0).min(w.end_ns);
    let interval_s = ns_to_s(w.end_ns - first);
    let bytes: u64 = w.flows.iter().filter(|f| f.relay_to.is_none()).map(|f| f.delivered_bytes).sum();
    let bps = if interval_s > 0.0 { bytes as f64 * 8.0 / interval_s } else { 0.0 };
    (bps, interval_s)
}

/// A `handovers` entry: the common fields first, then the mechanism's own.
fn handover_entry(h: &HandoverRecord) -> Value {
    let mut m = Map::new();
    m.insert("ue".into(), json!(h.ue));
    m.insert("start_s".into(), json!(h.start_s));
    m.insert("end_s".into(), json!(h.end_s));
    m.insert("scheme".into(), json!(h.scheme));
    m.extend(h.detail.clone());
    Value::Object(m)
}

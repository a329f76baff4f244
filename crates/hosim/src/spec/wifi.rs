//! `[[media]]`: an 802.11 network of an explicit graph. One entry is one BSS: an access point
//! and its stations sharing one half-duplex medium (`net::wifi`). The builder creates a link
//! from the AP to each station and back, each with its own queue (DropTail or RED, as a
//! `[[links]]` entry's), whose transmitter is the medium: a frame leaves a queue when its
//! station wins the contention.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use serde::Deserialize;

use super::error::{Check, ScenarioError};
use super::graph::{QueueKind, RedSpec};
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::{s_to_ns, tx_time_ns, SimTime};
use crate::net::wifi::dcf::MAX_STATIONS;
use crate::net::wifi::phy::DEFAULT_RETRY_LIMIT;
use crate::net::wifi::{Medium, Standard, Timing, WifiMedium, WifiPort};
use crate::net::{Link, LinkId, LossModel, Queue, QueueLimit, RedParams, TaggedFifo};
use crate::sim::World;

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum StandardName {
    #[serde(rename = "802.11b")]
    B,
    #[serde(rename = "802.11g")]
    G,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Length {
    Long,
    Short,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MediumSpec {
    /// Defaults to "wlan<i>"; links are named "ap->sta" and "sta->ap".
    pub name: Option<String>,
    pub standard: StandardName,
    /// Data rate of every frame (no rate control), one of the standard's rates.
    pub rate_bps: f64,
    /// 802.11b: PPDU preamble (default long).
    pub preamble: Option<Length>,
    /// 802.11g: slot time (default short, 9 µs: a BSS of ERP stations only).
    pub slot: Option<Length>,
    /// The BSS basic rate set (ACKs go at the highest not above the data rate). Default:
    /// 1 and 2 Mb/s for 802.11b, 6, 12 and 24 Mb/s for 802.11g.
    pub basic_rates_bps: Option<Vec<f64>>,
    pub ap: String,
    pub stations: Vec<String>,
    /// Propagation delay between the AP and a station.
    #[serde(default)]
    pub delay_s: f64,
    #[serde(default)]
    pub queue: QueueKind,
    pub queue_packets: Option<u32>,
    pub queue_bytes: Option<u64>,
    pub red: Option<RedSpec>,
    /// Probability that a frame sent alone is not received (it is retried).
    #[serde(default)]
    pub frame_error_rate: f64,
    /// Transmission attempts of a frame before it is discarded (dot11ShortRetryLimit).
    pub retry_limit: Option<u32>,
    /// Trace the queues of this medium's links.
    #[serde(default)]
    pub trace: bool,
}

fn key(i: usize, field: &str) -> String {
    format!("media[{i}].{field}")
}

/// Checks a `[[media]]` entry's values that need no node names: its PHY timing.
pub fn timing(m: &MediumSpec, c: &Check, i: usize) -> Result<Timing, ScenarioError> {
    let standard = match m.standard {
        StandardName::B => {
            if m.slot.is_some() {
                return Err(c.err(&key(i, "slot"), "only for standard = \"802.11g\" (802.11b has a 20 µs slot)"));
            }
            Standard::B { short_preamble: m.preamble == Some(Length::Short) }
        }
        StandardName::G => {
            if m.preamble.is_some() {
                return Err(c.err(&key(i, "preamble"), "only for standard = \"802.11b\""));
            }
            Standard::G { short_slot: m.slot != Some(Length::Long) }
        }
    };
    let rates = standard.rates_bps();
    let as_rate = |k: &str, v: f64| -> Result<u64, ScenarioError> {
        let r = v.round() as u64;
        if v.is_finite() && rates.contains(&r) {
            Ok(r)
        } else {
            let list: Vec<String> = rates.iter().map(|r| format!("{r}")).collect();
            Err(c.err(&key(i, k), &format!("must be one of {} for this standard, got {v}", list.join(", "))))
        }
    };
    let rate = as_rate("rate_bps", m.rate_bps)?;
    let basic = match &m.basic_rates_bps {
        None => standard.default_basic_rates_bps().to_vec(),
        Some(list) if list.is_empty() => return Err(c.err(&key(i, "basic_rates_bps"), "must not be empty")),
        Some(list) => list.iter().map(|&v| as_rate("basic_rates_bps", v)).collect::<Result<_, _>>()?,
    };
    Ok(Timing::new(standard, rate, &basic))
}

/// Adds every `[[media]]` entry's links and medium to the world, after the `[[links]]`.
pub fn build_media(
    world: &mut World,
    media: &[MediumSpec],
    c: &Check,
    seed: u64,
    default_queue_packets: u32,
    lookup: &dyn Fn(&dyn fmt::Display, &str) -> Result<u32, ScenarioError>,
) -> Result<(), ScenarioError> {
    let mut names: HashMap<String, ()> = world.links.iter().map(|l| (l.name.clone(), ())).collect();
    for (i, m) in media.iter().enumerate() {
        let timing = timing(m, c, i)?;
        c.non_negative(&key(i, "delay_s"), m.delay_s)?;
        c.probability(&key(i, "frame_error_rate"), m.frame_error_rate)?;
        if m.frame_error_rate >= 1.0 {
            return Err(c.err(&key(i, "frame_error_rate"), "must be < 1 (no frame would get through)"));
        }
        let retry_limit = m.retry_limit.unwrap_or(DEFAULT_RETRY_LIMIT);
        c.at_least(&key(i, "retry_limit"), retry_limit as u64, 1)?;
        if m.stations.is_empty() || m.stations.len() >= MAX_STATIONS {
            let msg = format!("needs 1 to {} stations, got {}", MAX_STATIONS - 1, m.stations.len());
            return Err(c.err(&key(i, "stations"), &msg));
        }
        let limit = match (m.queue_packets, m.queue_bytes) {
            (Some(_), Some(_)) => {
                return Err(c.err(&key(i, "queue_bytes"), "give queue_packets or queue_bytes, not both"))
            }
            (Some(p), None) => {
                c.at_least(&key(i, "queue_packets"), p as u64, 1)?;
                QueueLimit::Packets(p)
            }
            (None, Some(b)) => {
                c.at_least(&key(i, "queue_bytes"), b, 1)?;
                QueueLimit::Bytes(b)
            }
            (None, None) => QueueLimit::Packets(default_queue_packets),
        };
        let red = red_params(m, c, i, &timing)?;
        let ap = lookup(&key(i, "ap"), &m.ap)?;
        let mut nodes = vec![ap];
        for (j, s) in m.stations.iter().enumerate() {
            let id = lookup(&key(i, &format!("stations[{j}]")), s)?;
            if nodes.contains(&id) {
                return Err(c.err(&key(i, &format!("stations[{j}]")), &format!("\"{s}\" is on the medium already")));
            }
            nodes.push(id);
        }
        let medium_id = world.media.len() as u32;
        // Station 0 is the AP, with a link to every station; station j has one, to the AP.
        let mut station_links: Vec<Vec<LinkId>> = vec![Vec::new(); nodes.len()];
        for (j, &sta) in nodes.iter().enumerate().skip(1) {
            for (from_st, a, b) in [(0, ap, sta), (j, sta, ap)] {
                let name = format!("{}->{}", world.nodes[a as usize].name, world.nodes[b as usize].name);
                if names.insert(name.clone(), ()).is_some() {
                    return Err(c.err(&key(i, "stations"), &format!("duplicate link \"{name}\"")));
                }
                let id = world.links.len() as LinkId;
                station_links[from_st].push(id);
                world.links.push(Link {
                    departs_at_start: false,
                    name,
                    from: a,
                    to: b,
                    rate_bps: timing.data_rate_bps,
                    delay_ns: s_to_ns(m.delay_s),
                    queue: Queue::new(limit, red.clone()),
                    loss: LossModel::None,
                    rng: stream_rng(seed, StreamKind::Link, id as u64),
                    in_service: None,
                    tx_done_ns: SimTime::MAX,
                    pipeline: TaggedFifo::default(),
                    late_pipeline: VecDeque::new(),
                    impair: None,
                    stats: Default::default(),
                    traced: m.trace,
                    to_class: world.nodes[b as usize].kind.class(),
                    var: None,
                    wakes_senders: false,
                    wifi: Some(WifiPort { medium: medium_id, station: from_st as u32 }),
                });
            }
        }
        // The medium's backoffs draw from a stream of their own (kind Link, index above 2^41).
        let rng = stream_rng(seed, StreamKind::Link, medium_id as u64 | 1 << 41);
        let medium = Medium::new(timing, nodes.len(), m.frame_error_rate, retry_limit, rng);
        let name = m.name.clone().unwrap_or_else(|| format!("wlan{i}"));
        world.media.push(WifiMedium::new(name, medium, station_links));
    }
    Ok(())
}

fn red_params(m: &MediumSpec, c: &Check, i: usize, timing: &Timing) -> Result<Option<RedParams>, ScenarioError> {
    match (m.queue, &m.red) {
        (QueueKind::DropTail, None) => Ok(None),
        (QueueKind::DropTail, Some(_)) => Err(c.err(&key(i, "red"), "only allowed with queue = \"red\"")),
        (QueueKind::Red, None) => {
            Err(c.err(&key(i, "red"), "required with queue = \"red\" (min_th_pkts, max_th_pkts, max_p)"))
        }
        (QueueKind::Red, Some(r)) => {
            c.non_negative(&key(i, "red.min_th_pkts"), r.min_th_pkts)?;
            if r.max_th_pkts.partial_cmp(&r.min_th_pkts) != Some(std::cmp::Ordering::Greater) {
                return Err(c.err(&key(i, "red.max_th_pkts"), "must be > min_th_pkts"));
            }
            c.probability(&key(i, "red.max_p"), r.max_p)?;
            c.probability(&key(i, "red.weight"), r.weight)?;
            if let Some(m) = r.ns2_mean_pktsize_bytes {
                c.at_least(&key(i, "red.ns2_mean_pktsize_bytes"), m as u64, 1)?;
            }
            Ok(Some(RedParams {
                min_th_pkts: r.min_th_pkts,
                max_th_pkts: r.max_th_pkts,
                max_p: r.max_p,
                weight: r.weight,
                ecn: r.ecn,
                ns2_mean_pktsize_bytes: r.ns2_mean_pktsize_bytes,
                typical_tx_ns: tx_time_ns(r.ns2_mean_pktsize_bytes.unwrap_or(1500), timing.data_rate_bps),
            }))
        }
    }
}

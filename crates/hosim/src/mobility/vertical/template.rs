//! The `vertical` template: Fig. 1 of Sinky & Hamdaoui, and the handoff agent installed on it.
//!
//! ```text
//!            +-- ap (Network 1, WiFi) ------+
//!   mobile --+                              +-- dest
//!            +-- bs (Network 2, cellular) --+
//! ```
//!
//! The mobile is the source: one TCP flow mobile -> dest fed by a rate-limited application.
//! Each access (mobile <-> ap, mobile <-> bs) is a rate-limited link at the network's rate
//! (`links = "p2p"`), or an 802.11 BSS of the access point and the mobile (`"802.11"`: the
//! links "ap->mobile" and "mobile->ap" of a `[[media]]` entry, their access delay moved to the
//! wired hop); the access queue at the mobile is the bottleneck interface of Fig. 6. The agent
//! points the mobile's route to dest and dest's route to the mobile at one network at a time.

use super::config::{Adaptation, ClahBdp, Links, Network, VerticalSection, ACCESS, DEST, MOBILE};
use super::{Metrics, VerticalHandoff};
use crate::engine::time::s_to_ns;
use crate::net::{FlowId, LinkId, NodeId};
use crate::sim::Sim;
use crate::spec::graph::{link, node, AppKind, FlowSpec, Graph, NodeKindName, QueueKind};
use crate::spec::wifi::{MediumSpec, StandardName};
use crate::spec::{Check, ScenarioError};
use crate::tcp::sender::{BdpEstimate, ClahConfig, DupackResume, PathReaction};

pub fn expand(v: &VerticalSection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node(MOBILE.into(), NodeKindName::Host));
    for a in ACCESS {
        g.nodes.push(node(a.into(), NodeKindName::Router));
    }
    g.nodes.push(node(DEST.into(), NodeKindName::Host));
    for n in [Network::Wifi, Network::Cellular] {
        let (rate, delay, queue) = v.access(n);
        let access = ACCESS[n.index()];
        match v.links {
            Links::P2p => {
                g.links.push(link(MOBILE, access, rate, delay, queue));
                g.links.push(link(access, DEST, v.core_bps, v.core_delay_s, v.core_queue_pkts));
            }
            Links::Ieee80211 => {
                g.media.push(bss(n, rate, queue));
                g.links.push(link(access, DEST, v.core_bps, delay + v.core_delay_s, v.core_queue_pkts));
            }
        }
    }
    g.flows.push(FlowSpec {
        name: Some("mobile".into()),
        src: MOBILE.into(),
        dst: DEST.into(),
        app: AppKind::Rate,
        bytes: None,
        rate_bps: Some(v.app_rate_bps),
        start_s: 0.0,
        tcp: None,
        drop_segments: Vec::new(),
        drop_retransmissions: Vec::new(),
    });
    for a in ACCESS {
        g.traced_queues.push(format!("{MOBILE}->{a}"));
    }
    g
}

/// Network `n` as an 802.11 BSS of its access point and the mobile: 802.11g for WiFi, 802.11b
/// for cellular (the paper's 5.5 Mb/s is an HR/DSSS rate), default basic rates, preamble and
/// slot, no frame errors, `queue`-packet DropTail queues at both stations.
fn bss(n: Network, rate_bps: f64, queue: u32) -> MediumSpec {
    MediumSpec {
        name: Some(n.name().into()),
        standard: match n {
            Network::Wifi => StandardName::G,
            Network::Cellular => StandardName::B,
        },
        rate_bps,
        preamble: None,
        slot: None,
        basic_rates_bps: None,
        ap: ACCESS[n.index()].into(),
        stations: vec![MOBILE.into()],
        delay_s: 0.0,
        queue: QueueKind::DropTail,
        queue_packets: Some(queue),
        queue_bytes: None,
        red: None,
        frame_error_rate: 0.0,
        retry_limit: None,
        trace: false,
    }
}

/// The sender's reaction `vertical.adaptation` selects.
pub fn reaction(v: &VerticalSection) -> PathReaction {
    match v.adaptation {
        Adaptation::Clah => PathReaction::Clah(ClahConfig {
            bdp: match v.clah_bdp {
                ClahBdp::UpperBound => BdpEstimate::UpperBound,
                ClahBdp::Path => BdpEstimate::Path,
            },
            dupack_resume: match v.clah_dupack_resume_s {
                None => DupackResume::PreHandoffAcked,
                Some(t) => DupackResume::After(s_to_ns(t)),
            },
        }),
        Adaptation::DanielKojo => PathReaction::DanielKojo,
        Adaptation::None | Adaptation::Freeze => PathReaction::None,
    }
}

/// Installs the handoff agent: it owns both access points and the destination, attaches the
/// mobile to `first` and schedules the handoffs.
pub fn install(v: &VerticalSection, sim: &mut Sim, c: &Check) -> Result<(), ScenarioError> {
    let w = &sim.world;
    let missing = || c.err("topology", "the vertical template's graph is incomplete");
    let node = |name: &str| w.nodes.iter().position(|n| n.name == name).map(|i| i as NodeId).ok_or_else(missing);
    let link = |from: &str, to: &str| {
        let name = format!("{from}->{to}");
        w.links.iter().position(|l| l.name == name).map(|i| i as LinkId).ok_or_else(missing)
    };
    let (mobile, dest) = (node(MOBILE)?, node(DEST)?);
    let access = [node(ACCESS[0])?, node(ACCESS[1])?];
    let up = [link(MOBILE, ACCESS[0])?, link(MOBILE, ACCESS[1])?];
    let down = [link(ACCESS[0], MOBILE)?, link(ACCESS[1], MOBILE)?];
    let from_dest = [link(DEST, ACCESS[0])?, link(DEST, ACCESS[1])?];
    let flow = w.flows.iter().position(|f| f.src == mobile).ok_or_else(missing)? as FlowId;
    sim.world.flows[flow as usize].sender.set_path_reaction(reaction(v));
    sim.world.flows[flow as usize].sndbuf_bytes = v.sndbuf_bytes;
    let h = VerticalHandoff {
        cfg: v.clone(),
        flow,
        mobile,
        dest,
        access,
        up,
        down,
        from_dest,
        at: v.first,
        record_uids: false,
        log: Vec::new(),
        delivered_uids: Default::default(),
        late_drops: 0,
        frozen_rwnd: None,
        metrics: Metrics::new(s_to_ns(v.series_bin_s).max(1)),
    };
    sim.add_agent(|cx| h.start(cx));
    Ok(())
}

/// `topology = "vertical"` with its `[vertical]` section: the one line of this mechanism in
/// `Registry::builtin`.
pub const TEMPLATE: crate::spec::Sectioned<VerticalSection> = crate::spec::Sectioned {
    topology: "vertical",
    section: "vertical",
    validate: |v, s, c| v.validate(c, s.duration_s),
    expand,
    install,
    flows: crate::spec::template::one_flow,
};

/// The preset of this mechanism's paper (`hosim presets`).
pub const PRESET: crate::spec::Preset = (
    "vertical",
    "Sinky & Hamdaoui: WiFi <-> cellular soft handoffs of a mobile source every 15 s, TCP NewReno or TCP-CLAH",
    include_str!("../../../../../presets/vertical.toml"),
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_expansion_is_fig_1_with_two_access_links_and_one_rate_flow() {
        let v = VerticalSection::default();
        let g = expand(&v);
        assert_eq!(g.nodes.len(), 4);
        assert_eq!(g.links.len(), 4);
        let find = |from: &str, to: &str| g.links.iter().find(|l| l.from == from && l.to == to).unwrap();
        let wifi = find(MOBILE, "ap");
        assert_eq!((wifi.rate_bps, wifi.delay_s, wifi.queue_packets), (19e6, 0.005, Some(100)));
        let cell = find(MOBILE, "bs");
        assert_eq!((cell.rate_bps, cell.delay_s, cell.queue_packets), (3e6, 0.050, Some(100)));
        assert_eq!((g.flows[0].app, g.flows[0].rate_bps), (AppKind::Rate, Some(20e6)));
        assert!((v.base_rtt_s(Network::Wifi) - 0.030).abs() < 1e-12);
        assert!((v.base_rtt_s(Network::Cellular) - 0.120).abs() < 1e-12);
    }

    #[test]
    fn wifi_expansion_has_one_bss_per_network_and_the_access_delay_behind_the_access_point() {
        let v: VerticalSection =
            toml::from_str("links = \"802.11\"\nwifi_bps = 54e6\ncellular_bps = 5.5e6").expect("valid section");
        let g = expand(&v);
        assert_eq!(g.links.len(), 2, "only the wired hops are [[links]]");
        let media: Vec<_> = g.media.iter().map(|m| (m.standard, m.rate_bps, m.ap.as_str(), m.delay_s)).collect();
        assert_eq!(media, [(StandardName::G, 54e6, "ap", 0.0), (StandardName::B, 5.5e6, "bs", 0.0)]);
        assert!(g.media.iter().all(|m| m.stations == [MOBILE] && m.queue_packets == Some(100)));
        let delay = |from: &str| g.links.iter().find(|l| l.from == from).unwrap().delay_s;
        assert!((delay("ap") - 0.015).abs() < 1e-12 && (delay("bs") - 0.060).abs() < 1e-12);
        assert!((v.base_rtt_s(Network::Wifi) - 0.030).abs() < 1e-12, "base RTTs as with p2p links");
    }
}

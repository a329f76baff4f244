//! The `hsdpa` template: the network of Fig. 2 of Ren et al. 2008, with or without the window
//! adaptation proxy of Figs. 5-6, and the agent installed on it.
//!
//! ```text
//! server --wired (10 Mb/s, wired_delay_s)-- gw --ran (ran_bps, ran_delay_s)-- rnc/Node-B
//! rnc --downlink (varying rate, radio_delay_s, buffer_packets)--> ue
//! ue  --uplink (96 kb/s, radio_delay_s)--> rnc
//! ```
//!
//! Without the proxy `gw` is a router and one TCP flow `tcp` runs server -> ue. With the proxy
//! `gw` is the proxy host: flow `server-proxy` ends there, flow `proxy-ue` carries the same
//! bytes on to the UE, and the Node-B reports the downlink's rate and queue to the proxy.
//! Choices the paper leaves open are keys with documented defaults (see
//! docs/reproductions/hsdpa-proxy.md): the wired delay 20 ms, the RNC-side link 100 Mb/s 2 ms,
//! the radio one-way delay 10 ms each way, 1000-packet queues elsewhere.

use super::config::{BandwidthName, HsdpaSection, WindowName};
use super::proxy::{BandwidthReport, FeedbackConfig, Proxy, ProxyConfig, WindowSemantics};
use super::{Hsdpa, Timer};
use crate::app::App;
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::s_to_ns;
use crate::net::{FlowId, LinkId, NodeKind};
use crate::sim::{Cx, DropRules, Flow, Sim};
use crate::spec::graph::{link, node, AppKind, FlowSpec, Graph, NodeKindName};
use crate::spec::rate::RateSpec;
use crate::tcp::sender::WindowControl;

/// Name of the radio downlink, whose queue is the Node-B's buffer for the UE.
pub const DOWNLINK: &str = "downlink";

fn flow(name: &str, src: &str, dst: &str, h: &HsdpaSection) -> FlowSpec {
    FlowSpec {
        name: Some(name.into()),
        src: src.into(),
        dst: dst.into(),
        app: if h.bytes.is_some() { AppKind::File } else { AppKind::Bulk },
        bytes: h.bytes,
        rate_bps: None,
        start_s: 0.0,
        tcp: None,
        drop_segments: Vec::new(),
        drop_retransmissions: Vec::new(),
    }
}

pub fn expand(h: &HsdpaSection) -> Graph {
    let mut g = Graph::default();
    g.nodes.push(node("server".into(), NodeKindName::Host));
    g.nodes.push(node("gw".into(), if h.proxy { NodeKindName::Host } else { NodeKindName::Router }));
    g.nodes.push(node("rnc".into(), NodeKindName::Router));
    g.nodes.push(node("ue".into(), NodeKindName::Host));
    let mut wired = link("server", "gw", h.wired_bps, h.wired_delay_s, 1000);
    wired.name = Some("wired".into());
    let mut ran = link("gw", "rnc", h.ran_bps, h.ran_delay_s, 1000);
    ran.name = Some("ran".into());
    let mut down = link("rnc", "ue", 0.0, h.radio_delay_s, h.buffer_packets);
    down.name = Some(DOWNLINK.into());
    down.bidirectional = false;
    down.rate_model = Some(RateSpec::new(h.bandwidth, h.rate_params(), h.rate_change));
    let mut up = link("ue", "rnc", h.uplink_bps, h.radio_delay_s, 1000);
    up.name = Some("uplink".into());
    up.bidirectional = false;
    g.links.extend([wired, ran, down, up]);
    if h.proxy {
        g.flows.push(flow("server-proxy", "server", "gw", h));
        g.flows.push(flow("proxy-ue", "gw", "ue", h));
    } else {
        g.flows.push(flow("tcp", "server", "ue", h));
    }
    g.traced_queues.push(DOWNLINK.into());
    g
}

/// Installs the HSDPA agent: the proxy (split connection, Node-B feedback) if asked for, and
/// the end-of-run radio report.
pub fn install(h: &HsdpaSection, sim: &mut Sim) {
    let w = &sim.world;
    let downlink = w.links.iter().position(|l| l.name == DOWNLINK).expect("template has a downlink") as LinkId;
    let ue_flow = (w.flows.len() - 1) as FlowId;
    sim.add_agent(|cx| {
        let proxy = h.proxy.then(|| split_connection(h, cx, downlink));
        let end = cx.end_ns();
        let tau = s_to_ns(h.tau_s);
        if proxy.is_some() && tau <= end {
            cx.schedule(tau, Timer::Sample);
        }
        cx.schedule(end, Timer::Summary);
        Hsdpa { proxy, downlink, server_flow: 0, ue_flow, finished: None }
    });
}

/// Splits the connection at the proxy host: flow 0 ends there, flow 1 carries what it
/// receives in order on to the UE, under the proxy's window control.
fn split_connection<T>(h: &HsdpaSection, cx: &mut Cx<T>, downlink: LinkId) -> Proxy {
    let (up, down) = (0usize, 1usize);
    debug_assert_eq!(cx.nodes()[cx.flows()[up].dst as usize].kind, NodeKind::Host);
    // The downstream sender's data is what the proxy receives in order.
    let old = &cx.flows()[down];
    let cfg = old.sender.cfg.clone();
    let mss = cfg.mss_bytes as f64;
    let pkt_bytes = cfg.mss_bytes + cfg.header_bytes;
    let relay = Flow::new(old.name.clone(), old.src, old.dst, App::Relay, old.start_ns, cfg, DropRules::default());
    let seed = cx.seed();
    let flows = cx.flows_mut();
    flows[down] = relay;
    flows[up].relay_to = Some(down as FlowId);
    // Until the first report: q0 packets (fill the Node-B queue to its reference), and
    // aw(0) = w(0) + q20 towards the server.
    let w0 = (h.q0_pkts * mss).round() as u64;
    let mut out = Vec::new();
    flows[down].sender.set_window_control(0, WindowControl::Quota { bytes: w0, left: w0 }, &mut out);
    debug_assert!(out.is_empty(), "not connected yet");
    let proxy = Proxy::new(
        proxy_config(h),
        up as FlowId,
        down as FlowId,
        downlink,
        pkt_bytes,
        stream_rng(seed, StreamKind::Cell, 0),
    );
    flows[up].receiver.rwnd_bytes = (proxy.adv_window_pkts * mss).round().max(mss) as u64;
    proxy
}

fn proxy_config(h: &HsdpaSection) -> ProxyConfig {
    ProxyConfig {
        tau_ns: s_to_ns(h.tau_s),
        q0_pkts: h.q0_pkts,
        q20_pkts: h.q20_pkts,
        semantics: match h.window {
            WindowName::Quota => WindowSemantics::Quota,
            WindowName::Inflight => WindowSemantics::InFlight,
        },
        min_adv_window_pkts: h.min_adv_window_pkts,
        compensate_in_flight: h.compensate_in_flight,
        feedback: FeedbackConfig {
            bandwidth: match h.feedback_bandwidth {
                BandwidthName::Instant => BandwidthReport::Instant,
                BandwidthName::Mean => BandwidthReport::Mean,
            },
            delay_ns: s_to_ns(h.feedback_delay_s.unwrap_or(h.ran_delay_s)),
            loss: h.feedback_loss,
            bw_noise_pkts_per_s: h.feedback_bw_noise_pkts_per_s,
            queue_noise_pkts: h.feedback_queue_noise_pkts,
            timeout_ns: s_to_ns(h.feedback_timeout_s),
        },
    }
}

/// `topology = "hsdpa"` with its `[hsdpa]` section: the one line of this mechanism in
/// `Registry::builtin`.
pub const TEMPLATE: crate::spec::Sectioned<HsdpaSection> = crate::spec::Sectioned {
    topology: "hsdpa",
    section: "hsdpa",
    validate: |h, _, c| h.validate(c),
    expand,
    install: |h, sim, _| {
        install(h, sim);
        Ok(())
    },
    flows: |h| if h.proxy { 2 } else { 1 },
};

/// The preset of this mechanism's paper (`hosim presets`).
pub const PRESET: crate::spec::Preset = (
    "hsdpa",
    "HSDPA (Ren et al. 2008): TCP over a varying-rate downlink, optionally through the window adaptation proxy",
    include_str!("../../../../../presets/hsdpa.toml"),
);

//! The window adaptation TCP proxy of Ren, Huang, Liu and Lin, "Improving TCP Throughput over
//! HSDPA Networks", IEEE Trans. Wireless Commun. 2008 (Figs. 5-6, eqs. 3-4, 8, 18).
//!
//! The proxy splits the connection (§IV.A): the server's flow ends at the proxy (`upstream`,
//! standard TCP) and a second flow carries the same bytes from the proxy to the UE
//! (`downstream`). Every byte the proxy receives in order is handed to the downstream sender
//! (`Flow::relay_to`), so byte k at the UE is byte k of the server.
//!
//! Every tau the Node-B samples the rate b(n) of the radio downlink (packets/s) and its queue
//! q(n) (packets) and sends them over a signalling path with a constant delay, Bernoulli loss
//! and additive Gaussian noise, eqs. (3)-(4): b_hat = b + gamma, q_hat = q + eta (clamped at 0).
//! When report n arrives (or would have), the proxy takes step n:
//! - downstream window, eq. (18): w(n) = b_hat(n) tau - q_hat(n) + q0 (packets, floored at 0),
//!   with standard congestion control off (`WindowControl`); `Quota` reads w(n) as the packets
//!   to send during the coming step, as in eq. (1) q(n+1) = q(n) + w(n) - b(n); `InFlight`
//!   reads it as a cap on outstanding packets.
//! - advertised window to the server, eq. (8): aw(n) = w(n) - q2(n) + q20, where q2 is the
//!   proxy's buffer (bytes received but not yet sent downstream, in packets), floored at
//!   `min_adv_window_pkts` so the server always keeps a segment moving (no zero window).
//!
//! Lost reports. With `Quota` the proxy advances its estimate by eq. (1) with the last known
//! bandwidth (q_hat <- q_hat + w - b_hat tau, which gives w = b_hat tau: send at the last known
//! rate); with `InFlight` it holds its estimates. If no report has arrived for
//! `feedback.timeout_ns`, the downstream sender falls back to standard TCP congestion control
//! until reports return.
//!
//! Lost segments downstream. Three duplicate ACKs retransmit the missing segment without
//! touching the window. A lost tail segment (no later segment raises duplicate ACKs) and a lost
//! retransmission are recovered by the retransmission timer, which resends the first
//! unacknowledged segment and keeps the window (`TcpSender::on_timeout_external`).

use std::collections::VecDeque;

use rand::Rng as _;
use serde::Serialize;

use crate::engine::rng::Rng;
use crate::engine::time::{ns_to_s, SimTime};
use crate::net::rate::standard_normal;
use crate::net::{FlowId, LinkId};
use crate::sim::{Cx, Flow};
use crate::tcp::sender::WindowControl;
use crate::tcp::TcpSender;

/// How the proxy applies w(n) to its sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowSemantics {
    /// w(n) packets may be sent during step n (eq. 1).
    Quota,
    /// At most w(n) packets outstanding.
    InFlight,
}

/// Which bandwidth the Node-B reports as b(n).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandwidthReport {
    /// The rate allocated at the sampling instant (the level that will serve the next step).
    Instant,
    /// The mean rate over the last tau (what served the step that just ended, b(n) of eq. 1).
    Mean,
}

/// The Node-B to proxy signalling path, eqs. (3)-(4).
#[derive(Clone, Debug, PartialEq)]
pub struct FeedbackConfig {
    pub bandwidth: BandwidthReport,
    pub delay_ns: SimTime,
    /// Probability that a report is lost.
    pub loss: f64,
    /// Standard deviation of gamma, the bandwidth noise (packets/s).
    pub bw_noise_pkts_per_s: f64,
    /// Standard deviation of eta, the queue-length noise (packets).
    pub queue_noise_pkts: f64,
    /// Without a report for this long the downstream sender reverts to standard TCP.
    pub timeout_ns: SimTime,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProxyConfig {
    /// Sampling and update interval tau.
    pub tau_ns: SimTime,
    /// Reference Node-B queue q0 (packets).
    pub q0_pkts: f64,
    /// Reference proxy buffer q20 (packets).
    pub q20_pkts: f64,
    pub semantics: WindowSemantics,
    pub min_adv_window_pkts: f64,
    /// Not in the paper: add to q_hat the packets the proxy has sent that the report cannot
    /// show yet (sent minus arrived at the Node-B by the sample), less what the Node-B served
    /// since the sample: a Smith predictor against feedback delay.
    pub compensate_in_flight: bool,
    pub feedback: FeedbackConfig,
}

/// Eq. (18): w(n) = b_hat(n) tau - q_hat(n) + q0, in packets (eq. (7) when tau is one step).
pub fn send_window_pkts(b_hat_pkts_per_s: f64, q_hat_pkts: f64, tau_s: f64, q0_pkts: f64) -> f64 {
    b_hat_pkts_per_s * tau_s - q_hat_pkts + q0_pkts
}

/// Eq. (8): aw(n) = w(n) - q2(n) + q20, in packets.
pub fn advertised_window_pkts(w_pkts: f64, q2_pkts: f64, q20_pkts: f64) -> f64 {
    w_pkts - q2_pkts + q20_pkts
}

/// What the proxy does at a step.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    /// Apply eqs. (18) and (8) to this estimate.
    Control(Report),
    /// No report yet, still within the timeout: keep the initial window.
    Hold,
    /// No report for the timeout: standard TCP.
    Fallback,
}

/// One Node-B report as the proxy receives it (noise included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report {
    pub bw_pkts_per_s: f64,
    pub queue_pkts: f64,
    /// Packets of the flow that had reached the Node-B by the sample (exact counter).
    pub arrived_pkts: u64,
}

#[derive(Clone, Debug, Default)]
pub struct ProxyStats {
    pub reports_sent: u64,
    pub reports_lost: u64,
    pub steps: u64,
    /// Steps spent in the standard-TCP fallback (no report for `timeout_ns`).
    pub fallback_steps: u64,
    /// Sum of w(n) over the controlled steps, for the mean.
    window_sum_pkts: f64,
    adv_window_sum_pkts: f64,
}

pub struct Proxy {
    pub cfg: ProxyConfig,
    pub upstream: FlowId,
    pub downstream: FlowId,
    /// The Node-B's radio downlink towards the UE: its rate and queue are reported.
    pub nodeb_link: LinkId,
    /// Bytes on the wire of one full packet (MSS + headers): the unit of b and q.
    pub pkt_bytes: u32,
    rng: Rng,
    /// Reports on the signalling path, oldest first; None: lost.
    pending: VecDeque<Option<Report>>,
    estimate: Option<Report>,
    last_report_ns: SimTime,
    /// Capacity of the radio link up to the previous sample, bits (for `BandwidthReport::Mean`).
    last_capacity_bits: f64,
    /// w(n) and aw(n) of the last step, packets.
    pub window_pkts: f64,
    pub adv_window_pkts: f64,
    pub stats: ProxyStats,
}

impl Proxy {
    pub fn new(
        cfg: ProxyConfig,
        upstream: FlowId,
        downstream: FlowId,
        nodeb_link: LinkId,
        pkt_bytes: u32,
        rng: Rng,
    ) -> Proxy {
        let window_pkts = cfg.q0_pkts;
        let adv_window_pkts = advertised_window_pkts(window_pkts, 0.0, cfg.q20_pkts);
        Proxy {
            cfg,
            upstream,
            downstream,
            nodeb_link,
            pkt_bytes,
            rng,
            pending: VecDeque::new(),
            estimate: None,
            last_report_ns: 0,
            last_capacity_bits: 0.0,
            window_pkts,
            adv_window_pkts,
            stats: ProxyStats::default(),
        }
    }

    /// Node-B side: the report of one sample after the signalling path (None: lost). Three
    /// draws per sample whatever the settings, so runs that differ only in noise or loss see
    /// the same random numbers.
    fn make_report(&mut self, bw_pkts_per_s: f64, queue_pkts: f64, arrived_pkts: u64) -> Option<Report> {
        let f = &self.cfg.feedback;
        let u: f64 = self.rng.gen();
        let gamma = f.bw_noise_pkts_per_s * standard_normal(&mut self.rng);
        let eta = f.queue_noise_pkts * standard_normal(&mut self.rng);
        if u < f.loss {
            return None;
        }
        Some(Report {
            bw_pkts_per_s: (bw_pkts_per_s + gamma).max(0.0),
            queue_pkts: (queue_pkts + eta).max(0.0),
            arrived_pkts,
        })
    }

    /// Proxy side: folds the report of this step (or its loss) into the estimate and decides
    /// what the step does.
    fn update_estimate(&mut self, now: SimTime, report: Option<Report>) -> Step {
        let tau_s = ns_to_s(self.cfg.tau_ns);
        match (report, self.estimate.as_mut()) {
            (Some(r), _) => {
                self.estimate = Some(r);
                self.last_report_ns = now;
            }
            (None, Some(e)) => {
                self.stats.reports_lost += 1;
                if self.cfg.semantics == WindowSemantics::Quota {
                    // Eq. (1) with the last known bandwidth: q(n+1) = q(n) + w(n) - b(n).
                    e.queue_pkts = (e.queue_pkts + self.window_pkts - e.bw_pkts_per_s * tau_s).max(0.0);
                }
            }
            (None, None) => self.stats.reports_lost += 1,
        }
        let fresh = now.saturating_sub(self.last_report_ns) < self.cfg.feedback.timeout_ns;
        match (self.estimate, fresh) {
            (Some(e), true) => Step::Control(e),
            (None, true) => Step::Hold,
            (_, false) => Step::Fallback,
        }
    }
}

impl Proxy {
    /// Node-B samples the radio link and puts the report on the signalling path; the step
    /// that uses it is due one feedback delay later, the next sample one tau later.
    pub(super) fn sample<T>(&mut self, cx: &mut Cx<T>) -> (SimTime, Option<SimTime>) {
        let now = cx.now();
        let link = &cx.links()[self.nodeb_link as usize];
        let pkt_bits = self.pkt_bytes as f64 * 8.0;
        let capacity = link.capacity_bits(now);
        let bw = match self.cfg.feedback.bandwidth {
            BandwidthReport::Instant => link.rate_bps as f64 / pkt_bits,
            BandwidthReport::Mean => (capacity - self.last_capacity_bits) / pkt_bits / ns_to_s(self.cfg.tau_ns),
        };
        self.last_capacity_bits = capacity;
        let q = link.queue.len_pkts() as f64;
        let arrived = link.stats.offered;
        let report = self.make_report(bw, q, arrived);
        self.stats.reports_sent += 1;
        self.pending.push_back(report);
        let next = now + self.cfg.tau_ns;
        (now + self.cfg.feedback.delay_ns, (next <= cx.end_ns()).then_some(next))
    }

    /// The proxy takes a control step: eq. (18) downstream, eq. (8) upstream.
    pub(super) fn step<T>(&mut self, cx: &mut Cx<T>) {
        let now = cx.now();
        let report = self.pending.pop_front().expect("a step follows each sample");
        self.stats.steps += 1;
        let step = self.update_estimate(now, report);
        let down = self.downstream;
        let current = cx.flows()[down as usize].sender.window_control();
        let wc = match step {
            Step::Control(e) => self.window(&cx.flows()[down as usize].sender, e),
            Step::Fallback => {
                self.stats.fallback_steps += 1;
                WindowControl::Congestion
            }
            Step::Hold => current,
        };
        if wc != current || matches!(step, Step::Control(_)) {
            cx.set_window_control(down, wc);
        }
        self.advertise(cx.flows_mut(), step != Step::Fallback);
    }

    /// Eq. (18) for estimate `e`: the downstream sender's new window.
    fn window(&mut self, sender: &TcpSender, e: Report) -> WindowControl {
        let mut q_hat = e.queue_pkts;
        if self.cfg.compensate_in_flight {
            // Every packet the proxy sends (the SYN included) crosses the Node-B queue.
            let sent = sender.stats.segments_sent + 1 + sender.stats.syn_retransmits;
            let served = e.bw_pkts_per_s * ns_to_s(self.cfg.feedback.delay_ns);
            q_hat = (q_hat + sent.saturating_sub(e.arrived_pkts) as f64 - served).max(0.0);
        }
        let w = send_window_pkts(e.bw_pkts_per_s, q_hat, ns_to_s(self.cfg.tau_ns), self.cfg.q0_pkts).max(0.0);
        self.window_pkts = w;
        self.stats.window_sum_pkts += w;
        let bytes = (w * sender.cfg.mss_bytes as f64).round() as u64;
        match self.cfg.semantics {
            WindowSemantics::Quota => WindowControl::Quota { bytes, left: bytes },
            WindowSemantics::InFlight => WindowControl::InFlight { bytes },
        }
    }

    /// Eq. (8): the window the proxy advertises to the server, with q2 the bytes waiting in the
    /// proxy (in packets); in the fallback w is the downstream cwnd.
    fn advertise(&mut self, flows: &mut [Flow], controlled: bool) {
        let sender = &flows[self.downstream as usize].sender;
        let mss = sender.cfg.mss_bytes as f64;
        let q2 = sender.app_limit().saturating_sub(sender.snd_max()) as f64 / mss;
        let w = if controlled { self.window_pkts } else { sender.cwnd() as f64 / mss };
        let aw = advertised_window_pkts(w, q2, self.cfg.q20_pkts).max(self.cfg.min_adv_window_pkts);
        self.adv_window_pkts = aw;
        self.stats.adv_window_sum_pkts += aw;
        flows[self.upstream as usize].receiver.rwnd_bytes = (aw * mss).round() as u64;
    }

    /// Proxy statistics for the summary.
    pub fn report(&self) -> ProxyReport {
        let s = &self.stats;
        let controlled = (s.steps - s.fallback_steps).max(1) as f64;
        ProxyReport {
            tau_s: ns_to_s(self.cfg.tau_ns),
            q0_pkts: self.cfg.q0_pkts,
            q20_pkts: self.cfg.q20_pkts,
            window: match self.cfg.semantics {
                WindowSemantics::Quota => "quota",
                WindowSemantics::InFlight => "inflight",
            },
            reports_sent: s.reports_sent,
            reports_lost: s.reports_lost,
            steps: s.steps,
            fallback_steps: s.fallback_steps,
            mean_window_pkts: s.window_sum_pkts / controlled,
            mean_adv_window_pkts: s.adv_window_sum_pkts / s.steps.max(1) as f64,
        }
    }
}

/// The proxy's entry in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct ProxyReport {
    tau_s: f64,
    q0_pkts: f64,
    q20_pkts: f64,
    window: &'static str,
    reports_sent: u64,
    reports_lost: u64,
    steps: u64,
    fallback_steps: u64,
    mean_window_pkts: f64,
    mean_adv_window_pkts: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream_rng, StreamKind};
    use crate::mobility::hsdpa_proxy::Hsdpa;
    use crate::sim::{Sim, World};

    fn proxy(semantics: WindowSemantics, loss: f64) -> Proxy {
        let cfg = ProxyConfig {
            tau_ns: 10_000_000,
            q0_pkts: 15.0,
            q20_pkts: 50.0,
            semantics,
            min_adv_window_pkts: 1.0,
            compensate_in_flight: false,
            feedback: FeedbackConfig {
                bandwidth: BandwidthReport::Instant,
                delay_ns: 0,
                loss,
                bw_noise_pkts_per_s: 0.0,
                queue_noise_pkts: 0.0,
                timeout_ns: 200_000_000,
            },
        };
        Proxy::new(cfg, 0, 1, 0, 1500, stream_rng(1, StreamKind::Cell, 0))
    }

    fn hsdpa_sim(sets: &[(&str, &str)]) -> Sim {
        let text = crate::scenario::presets::find("hsdpa").expect("preset");
        let mut o: Vec<(String, String)> =
            vec![("hsdpa.proxy".into(), "true".into()), ("hsdpa.buffer_packets".into(), "50".into())];
        o.extend(sets.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let s = crate::scenario::load(text, "hsdpa", &o).expect("scenario");
        crate::scenario::build::build(&s, "hsdpa", 1).expect("sim")
    }

    fn fill_queue(w: &mut World, l: LinkId, n: usize) {
        let mut pkt = crate::net::Packet::new(0, 1, 1, 3, crate::net::PacketKind::Data, 1500, 0);
        pkt.len = 1460;
        let link = &mut w.links[l as usize];
        for _ in 0..n {
            link.queue.enqueue(0, pkt, &mut link.rng, &mut w.store);
        }
    }

    /// Node-B reports rate 1.8 Mb/s (150 packets/s) and a queue of `q` packets; the proxy holds
    /// 30 packets not yet sent downstream. Returns (downstream control, advertised bytes).
    fn one_step(window: &str, q: usize) -> (WindowControl, u64) {
        let mut sim = hsdpa_sim(&[("hsdpa.window", window)]);
        let d = sim.agent::<Hsdpa>().and_then(|h| h.proxy.as_ref()).expect("proxy").nodeb_link;
        let w = &mut sim.world;
        w.links[d as usize].rate_bps = 1_800_000;
        fill_queue(w, d, q);
        w.flows[1].sender.add_app_data(30 * 1460);
        sim.with_agent(|h: &mut Hsdpa, cx| {
            let p = h.proxy.as_mut().expect("proxy");
            p.sample(cx);
            p.step(cx);
        });
        let w = &sim.world;
        (w.flows[1].sender.window_control(), w.flows[0].receiver.rwnd_bytes)
    }

    #[test]
    fn step_sets_the_sender_window_by_eq_18_and_the_advertised_window_by_eq_8() {
        // Eq. (18): 150 * 0.01 - 9 + 15 = 7.5 packets = 10950 bytes.
        // Eq. (8): 7.5 - 30 + 50 = 27.5 packets = 40150 bytes.
        assert_eq!(one_step("quota", 9), (WindowControl::Quota { bytes: 10_950, left: 10_950 }, 40_150));
        assert_eq!(one_step("inflight", 9), (WindowControl::InFlight { bytes: 10_950 }, 40_150));
    }

    #[test]
    fn step_floors_a_negative_window_at_zero() {
        // Eq. (18): 1.5 - 25 + 15 = -8.5 -> 0; eq. (8): 0 - 30 + 50 = 20 packets.
        assert_eq!(one_step("quota", 25), (WindowControl::Quota { bytes: 0, left: 0 }, 29_200));
    }

    #[test]
    fn send_window_follows_equation_18() {
        // 2 Mb/s of 1500-byte packets = 166.67 pkts/s; tau = 10 ms; q = 12; q0 = 15.
        let w = send_window_pkts(2e6 / 12_000.0, 12.0, 0.010, 15.0);
        assert!((w - (1.6667 + 3.0)).abs() < 1e-3, "{w}");
        assert_eq!(send_window_pkts(100.0, 40.0, 0.01, 15.0), -24.0);
    }

    #[test]
    fn advertised_window_follows_equation_8() {
        assert_eq!(advertised_window_pkts(4.0, 30.0, 50.0), 24.0);
        assert_eq!(advertised_window_pkts(1.24, 0.0, 50.0), 51.24);
    }

    #[test]
    fn lost_report_advances_the_queue_estimate_by_equation_1() {
        let mut p = proxy(WindowSemantics::Quota, 0.0);
        let r = Report { bw_pkts_per_s: 100.0, queue_pkts: 20.0, arrived_pkts: 0 };
        assert_eq!(p.update_estimate(10, Some(r)), Step::Control(r));
        p.window_pkts = send_window_pkts(100.0, 20.0, 0.01, 15.0); // -4
        assert!(matches!(p.update_estimate(20, None), Step::Control(_)));
        // q_hat = max(0, 20 + (-4) - 1) = 15: the next window sends at the last known rate.
        assert_eq!(p.estimate.unwrap().queue_pkts, 15.0);
        assert_eq!(p.stats.reports_lost, 1);
    }

    #[test]
    fn in_flight_semantics_hold_the_estimate_on_loss() {
        let mut p = proxy(WindowSemantics::InFlight, 0.0);
        p.update_estimate(10, Some(Report { bw_pkts_per_s: 100.0, queue_pkts: 20.0, arrived_pkts: 0 }));
        p.update_estimate(20, None);
        assert_eq!(p.estimate.unwrap().queue_pkts, 20.0);
    }

    #[test]
    fn no_report_for_the_timeout_means_fallback() {
        let mut p = proxy(WindowSemantics::Quota, 0.0);
        let r = Report { bw_pkts_per_s: 100.0, queue_pkts: 1.0, arrived_pkts: 0 };
        assert_eq!(p.update_estimate(10_000_000, None), Step::Hold, "no estimate yet");
        assert_eq!(p.update_estimate(20_000_000, Some(r)), Step::Control(r));
        assert!(matches!(p.update_estimate(210_000_000, None), Step::Control(_)), "190 ms without a report");
        assert_eq!(p.update_estimate(220_000_000, None), Step::Fallback, "200 ms without a report");
        assert_eq!(p.update_estimate(230_000_000, Some(r)), Step::Control(r));
        let mut p = proxy(WindowSemantics::Quota, 0.0);
        assert_eq!(p.update_estimate(190_000_000, None), Step::Hold);
        assert_eq!(p.update_estimate(200_000_000, None), Step::Fallback, "no first report within the timeout");
    }

    #[test]
    fn reports_carry_gaussian_noise_with_the_configured_spread_and_loss_rate() {
        let mut p = proxy(WindowSemantics::Quota, 0.25);
        p.cfg.feedback.bw_noise_pkts_per_s = 10.0;
        p.cfg.feedback.queue_noise_pkts = 2.0;
        let reports: Vec<Option<Report>> = (0..40_000).map(|_| p.make_report(150.0, 30.0, 0)).collect();
        let kept: Vec<Report> = reports.iter().flatten().copied().collect();
        let lost = 1.0 - kept.len() as f64 / reports.len() as f64;
        assert!((lost - 0.25).abs() < 0.01, "{lost}");
        let n = kept.len() as f64;
        let mean_b = kept.iter().map(|r| r.bw_pkts_per_s).sum::<f64>() / n;
        let sd_b = (kept.iter().map(|r| (r.bw_pkts_per_s - mean_b).powi(2)).sum::<f64>() / n).sqrt();
        let mean_q = kept.iter().map(|r| r.queue_pkts).sum::<f64>() / n;
        let sd_q = (kept.iter().map(|r| (r.queue_pkts - mean_q).powi(2)).sum::<f64>() / n).sqrt();
        assert!((mean_b - 150.0).abs() < 0.3 && (sd_b - 10.0).abs() < 0.3, "{mean_b} {sd_b}");
        assert!((mean_q - 30.0).abs() < 0.06 && (sd_q - 2.0).abs() < 0.06, "{mean_q} {sd_q}");
    }
}

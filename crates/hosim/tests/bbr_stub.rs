//! A congestion controller written only as a test: BBR-like (Cardwell et al., "BBR:
//! Congestion-Based Congestion Control"; IETF draft "BBR Congestion Control"), built on the
//! sender's delivery-rate samples (`hosim::tcp::rate`) and pacing. It plugs in through the
//! public API alone: it declares its settings, the `[tcp.bbr_stub]` table, and its
//! descriptor (`BBR_STUB`) here, and one line registers it (`Registry::with_algorithm`), so
//! that `tcp.cc = "bbr_stub"` selects it and `[tcp.bbr_stub]`, `--set tcp.bbr_stub.KEY=V`
//! and a flow's `tcp.bbr_stub` table reach it. Nothing else in the crate names it; until it
//! earns an arm of `AnyCc` it sits behind `AnyCc::Other`.
//!
//! Files touched to add it: this file only (the registration line is in it, marked below).
//!
//! A stub, not the real thing: Startup, Drain and ProbeBW's eight-phase gain cycle, a
//! bottleneck bandwidth max-filtered over ten round trips and the sender's minimum RTT; no
//! ProbeRTT, no packet conservation in recovery, losses ignored, and the initial window
//! leaves unpaced (no rate before the first sample).

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use hosim::engine::time::SimTime;
use hosim::metrics::summary::check_invariants;
use hosim::scenario::build::build_with;
use hosim::scenario::{load_with, Registry};
use hosim::sim::Sim;
use hosim::tcp::cc::{AnyCc, Controller, KeyError, NewAck, Table};
use hosim::tcp::rate::RateSample;
use hosim::tcp::rto::RtoEstimator;
use hosim::tcp::TcpConfig;

/// ProbeBW's pacing gains, one phase per minimum RTT.
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// `[tcp.bbr_stub]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct BbrStubSettings {
    /// Startup's pacing gain, > 1; default 2/ln 2 = 2.885 (the BBR draft's
    /// BBRStartupPacingGain).
    high_gain: f64,
    /// The bandwidth filter's window, in round trips, >= 1; default 10 (BBRBtlBwFilterLen).
    bw_rounds: u64,
}

impl Default for BbrStubSettings {
    fn default() -> Self {
        BbrStubSettings { high_gain: 2.885, bw_rounds: 10 }
    }
}

/// `tcp.cc = "bbr_stub"` and its `[tcp.bbr_stub]` table.
const BBR_STUB: Table<BbrStubSettings> = Table { name: "bbr_stub", validate, controller };

fn validate(s: &BbrStubSettings) -> Result<(), KeyError> {
    if !(s.high_gain.is_finite() && s.high_gain > 1.0) {
        return Err(KeyError::new(
            "high_gain",
            format!("must be > 1 (Startup must outgrow the pipe), got {}", s.high_gain),
        ));
    }
    if s.bw_rounds == 0 {
        return Err(KeyError::new("bw_rounds", "must be >= 1"));
    }
    Ok(())
}

fn controller(cfg: &TcpConfig, s: &BbrStubSettings) -> AnyCc {
    let mss = cfg.mss_bytes as u64;
    let log = LOG.with(Rc::clone);
    log.borrow_mut().settings = Some(s.clone());
    AnyCc::Other(Box::new(BbrStub::new(mss, cfg.initial_window_segments as u64 * mss, s, log)))
}

/// The registry of a scenario that may name the stub. The registration line.
fn registry() -> Registry {
    Registry::builtin().with_algorithm(&BBR_STUB)
}

thread_local! {
    /// What the stubs of this test's run log (each test runs on a thread of its own).
    static LOG: Rc<RefCell<Log>> = Rc::default();
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Startup,
    Drain,
    ProbeBw,
}

/// What the test reads after the run: every transmission with the pacing rate in force, and
/// the bandwidth estimates.
#[derive(Debug, Default)]
struct Log {
    /// (time, payload bytes, pacing rate in bit/s) of each transmission.
    sends: Vec<(SimTime, u64, Option<u64>)>,
    /// (time, max-filtered bottleneck bandwidth in bit/s) after each sample.
    bw: Vec<(SimTime, u64)>,
    samples: u64,
    entered_probe_bw_ns: Option<SimTime>,
    /// The settings the controller was made with.
    settings: Option<BbrStubSettings>,
    /// Pacing rate / bandwidth estimate of the sends in Startup once there is an estimate.
    startup_gains: Vec<f64>,
}

struct BbrStub {
    mss: u64,
    cwnd: u64,
    mode: Mode,
    /// Windowed maximum of delivery rates: (round, bit/s) per round that raised it.
    bw_samples: Vec<(u64, u64)>,
    round: u64,
    next_round_delivered: u64,
    /// Full-pipe detection: the bandwidth at the last check and rounds without 25 % growth.
    full_bw: u64,
    full_bw_rounds: u32,
    cycle_index: usize,
    cycle_start_ns: SimTime,
    min_rtt_ns: SimTime,
    high_gain: f64,
    bw_rounds: u64,
    log: Rc<RefCell<Log>>,
}

impl BbrStub {
    fn new(mss: u64, initial_cwnd: u64, s: &BbrStubSettings, log: Rc<RefCell<Log>>) -> BbrStub {
        BbrStub {
            mss,
            cwnd: initial_cwnd,
            mode: Mode::Startup,
            bw_samples: Vec::new(),
            round: 0,
            next_round_delivered: 0,
            full_bw: 0,
            full_bw_rounds: 0,
            cycle_index: 0,
            cycle_start_ns: 0,
            min_rtt_ns: SimTime::MAX,
            high_gain: s.high_gain,
            bw_rounds: s.bw_rounds,
            log,
        }
    }

    fn btl_bw_bps(&self) -> u64 {
        self.bw_samples.iter().map(|s| s.1).max().unwrap_or(0)
    }

    fn pacing_gain(&self) -> f64 {
        match self.mode {
            Mode::Startup => self.high_gain,
            Mode::Drain => 1.0 / self.high_gain,
            Mode::ProbeBw => CYCLE[self.cycle_index],
        }
    }

    /// Bandwidth-delay product, bytes.
    fn bdp_bytes(&self) -> u64 {
        if self.min_rtt_ns == SimTime::MAX {
            return 0;
        }
        (self.btl_bw_bps() as u128 * self.min_rtt_ns as u128 / 8 / 1_000_000_000) as u64
    }

    /// The max filter: a new round drops samples older than the window.
    fn update_bw(&mut self, rs: &RateSample) {
        if rs.prior_delivered >= self.next_round_delivered {
            self.round += 1;
            self.next_round_delivered = rs.prior_delivered + rs.delivered_bytes;
            let (round, window) = (self.round, self.bw_rounds);
            self.bw_samples.retain(|s| s.0 + window > round);
            self.check_full_pipe();
        }
        let bw = rs.delivery_rate_bps();
        // An application-limited sample counts only when it raises the estimate.
        if !rs.is_app_limited || bw > self.btl_bw_bps() {
            match self.bw_samples.last_mut() {
                Some(last) if last.0 == self.round => last.1 = last.1.max(bw),
                _ => self.bw_samples.push((self.round, bw)),
            }
        }
    }

    /// Startup ends when three rounds in a row did not raise the bandwidth by 25 %.
    fn check_full_pipe(&mut self) {
        if self.mode != Mode::Startup {
            return;
        }
        let bw = self.btl_bw_bps();
        if bw as f64 >= self.full_bw as f64 * 1.25 {
            self.full_bw = bw;
            self.full_bw_rounds = 0;
        } else {
            self.full_bw_rounds += 1;
            if self.full_bw_rounds >= 3 {
                self.mode = Mode::Drain;
            }
        }
    }

    fn update_mode(&mut self, now: SimTime, in_flight: u64) {
        if self.mode == Mode::Drain && in_flight <= self.bdp_bytes() {
            self.mode = Mode::ProbeBw;
            self.cycle_start_ns = now;
            self.log.borrow_mut().entered_probe_bw_ns = Some(now);
        }
        if self.mode == Mode::ProbeBw && now - self.cycle_start_ns > self.min_rtt_ns {
            self.cycle_index = (self.cycle_index + 1) % CYCLE.len();
            self.cycle_start_ns = now;
        }
    }
}

impl Controller for BbrStub {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn on_ack(&mut self, _: SimTime, _: &NewAck, _: &RtoEstimator) {}
    /// Loss is not a congestion signal here: the window stays.
    fn on_congestion_event(&mut self, _: SimTime, _: u64, _: &RtoEstimator) -> u64 {
        self.cwnd
    }
    fn on_timeout(&mut self, _: SimTime, _: u64, _: bool, _: u64, _: &RtoEstimator) {
        self.cwnd = self.mss;
    }
    fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
    }
    fn on_spurious_timeout(&mut self, cwnd: u64, _: u64) {
        self.cwnd = cwnd;
    }
    fn set_ssthresh(&mut self, _: u64) {}

    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn on_sent(&mut self, now: SimTime, bytes: u64, _: u64) {
        let rate = self.pacing_rate_bps();
        let mut log = self.log.borrow_mut();
        log.sends.push((now, bytes, rate));
        if let (Mode::Startup, Some(r)) = (self.mode, rate) {
            log.startup_gains.push(r as f64 / self.btl_bw_bps() as f64);
        }
    }
    fn on_rate_sample(&mut self, now: SimTime, rs: &RateSample, rtt: &RtoEstimator) {
        if let Some(m) = rtt.min_rtt_ns() {
            self.min_rtt_ns = m;
        }
        self.update_bw(rs);
        self.update_mode(now, rs.in_flight_bytes);
        let gain = if self.mode == Mode::ProbeBw { 2.0 } else { self.high_gain };
        let target = ((self.bdp_bytes() as f64 * gain) as u64).max(4 * self.mss);
        // Grow by what was delivered, up to the target (before the pipe is full: only while
        // below it).
        self.cwnd = if self.mode == Mode::Startup {
            if self.cwnd < target {
                self.cwnd + rs.newly_delivered_bytes
            } else {
                self.cwnd
            }
        } else {
            (self.cwnd + rs.newly_delivered_bytes).min(target)
        };
        let mut log = self.log.borrow_mut();
        log.samples += 1;
        log.bw.push((now, self.btl_bw_bps()));
    }
    fn pacing_rate_bps(&self) -> Option<u64> {
        let bw = self.btl_bw_bps();
        (bw > 0).then(|| (bw as f64 * self.pacing_gain()) as u64)
    }
}

const BOTTLENECK_BPS: f64 = 10e6;
const MSS: u64 = 1460;
const HEADER: u64 = 40;

/// One bulk flow under the stub over a 10 Mb/s, 20 ms bottleneck with a 200-packet DropTail
/// queue, 100 Mb/s access links, for 8 s; `text` is added to the preset, `sets` are `--set`s.
fn dumbbell(text: &str, sets: &[(&str, &str)]) -> Result<Sim, String> {
    let text = format!("{}\n{text}", hosim::scenario::presets::find("dumbbell").expect("preset"));
    let base = [
        ("duration_s", "8"),
        ("dumbbell.flows", "1"),
        ("dumbbell.bottleneck_bps", "10e6"),
        ("dumbbell.queue_packets", "200"),
        ("tcp.mss_bytes", "1460"),
        ("tcp.header_bytes", "40"),
        ("tcp.initial_window_segments", "10"),
        ("tcp.cc", "bbr_stub"),
    ];
    let sets: Vec<(String, String)> = base.iter().chain(sets).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let registry = registry();
    let s = load_with(&text, "dumbbell", &sets, &registry).map_err(|e| e.message)?;
    Ok(build_with(&s, "dumbbell", 1, &registry).expect("buildable scenario"))
}

fn run(text: &str, sets: &[(&str, &str)]) -> (Sim, Rc<RefCell<Log>>) {
    let log = LOG.with(Rc::clone);
    *log.borrow_mut() = Log::default();
    let mut sim = dumbbell(text, sets).expect("valid scenario");
    sim.run();
    assert_eq!(check_invariants(&sim), Vec::<String>::new(), "conservation and delivery hold");
    (sim, log)
}

fn run_with_stub() -> (Sim, Rc<RefCell<Log>>) {
    run("", &[])
}

#[test]
fn delivery_rate_estimate_lands_on_the_bottleneck_rate() {
    let (_, log) = run_with_stub();
    let log = log.borrow();
    assert!(log.samples > 1000, "one sample per ACK: {}", log.samples);
    assert!(log.entered_probe_bw_ns.is_some(), "Startup found the pipe full and Drain ended");
    // Payload bits: the bottleneck carries 1460 of every 1500 bytes.
    let payload_bps = BOTTLENECK_BPS * MSS as f64 / (MSS + HEADER) as f64;
    let last_second: Vec<u64> = log.bw.iter().filter(|(t, _)| *t > 7_000_000_000).map(|(_, b)| *b).collect();
    assert!(!last_second.is_empty());
    for bw in last_second {
        let err = (bw as f64 - payload_bps).abs() / payload_bps;
        assert!(err < 0.03, "estimate {bw} bit/s, payload rate {payload_bps:.0} bit/s");
    }
}

#[test]
fn paced_sends_are_spaced_at_the_set_rate() {
    let (sim, log) = run_with_stub();
    let log = log.borrow();
    let paced: Vec<_> = log.sends.windows(2).filter(|w| w[0].2.is_some()).collect();
    assert!(paced.len() > 5000, "{} paced sends", paced.len());
    for w in &paced {
        let ((t0, bytes, rate), (t1, _, _)) = (w[0], w[1]);
        let gap_ns = ((bytes + HEADER) as f64 * 8e9 / rate.expect("paced") as f64) as SimTime;
        assert!(t1 - t0 >= gap_ns, "sends at {t0} and {t1} ns, {gap_ns} ns apart at least at {rate:?} bit/s");
    }
    // In ProbeBW the mean rate paced is the estimate's: the flow keeps the bottleneck busy
    // without a standing queue.
    let goodput_bps = sim.world.flows[0].delivered_bytes as f64 * 8.0 / 8.0;
    let payload_bps = BOTTLENECK_BPS * MSS as f64 / (MSS + HEADER) as f64;
    assert!(goodput_bps > 0.85 * payload_bps, "goodput {goodput_bps:.0} bit/s");
}

#[test]
fn tcp_cc_selects_the_stub_with_the_defaults_of_its_table() {
    let (sim, log) = run_with_stub();
    assert_eq!(sim.world.flows[0].sender.cfg.cc.name(), "bbr_stub");
    assert_eq!(log.borrow().settings, Some(BbrStubSettings::default()));
}

/// Startup paces at the gain of `[tcp.bbr_stub]`, given in the scenario's TOML.
#[test]
fn a_table_in_the_toml_reaches_the_controller() {
    let (_, log) = run("[tcp.bbr_stub]\nhigh_gain = 2.0\nbw_rounds = 6", &[]);
    let log = log.borrow();
    assert_eq!(log.settings, Some(BbrStubSettings { high_gain: 2.0, bw_rounds: 6 }));
    assert!(!log.startup_gains.is_empty());
    for g in &log.startup_gains {
        assert!((g - 2.0).abs() < 1e-5, "Startup paced at {g} x the estimate");
    }
}

/// A `--set` wins over the table's key and keeps its others.
#[test]
fn an_override_reaches_the_controller_over_the_table() {
    let (_, log) = run("[tcp.bbr_stub]\nhigh_gain = 2.0\nbw_rounds = 6", &[("tcp.bbr_stub.high_gain", "2.5")]);
    let log = log.borrow();
    assert_eq!(log.settings, Some(BbrStubSettings { high_gain: 2.5, bw_rounds: 6 }));
    let off: Vec<_> = log.startup_gains.iter().filter(|g| (*g - 2.5).abs() >= 1e-5).collect();
    assert!(off.is_empty(), "{off:?} of {}", log.startup_gains.len());
}

#[test]
fn an_unknown_key_of_the_stub_table_is_named() {
    let e = dumbbell("", &[("tcp.bbr_stub.hi_gain", "2")]).err().expect("refused");
    assert!(e.starts_with("dumbbell: key `tcp.bbr_stub.hi_gain`: unknown field `hi_gain`"), "{e}");
    assert!(e.contains("`high_gain`") && !e.contains('\n'), "{e}");
}

#[test]
fn a_bad_value_of_the_stub_table_is_named_by_its_validation() {
    let e = dumbbell("[tcp.bbr_stub]\nhigh_gain = 0.5", &[]).err().expect("refused");
    assert_eq!(e, "dumbbell: key `tcp.bbr_stub.high_gain`: must be > 1 (Startup must outgrow the pipe), got 0.5");
}

/// Without its registration line the stub is unknown: as a controller and as a table.
#[test]
fn an_unregistered_algorithm_is_refused_by_name() {
    let text = hosim::scenario::presets::find("dumbbell").expect("preset");
    let load = |k: &str, v: &str| hosim::scenario::load(text, "d", &[(k.to_string(), v.to_string())]).err();
    let e = load("tcp.cc", "bbr_stub").expect("refused").message;
    assert_eq!(e, "d: key `tcp.cc`: unknown variant `bbr_stub`, expected one of `reno`, `cubic`");
    let e = load("tcp.bbr_stub.high_gain", "2").expect("refused").message;
    assert_eq!(e, "d: key `tcp.bbr_stub`: unknown table: the congestion controllers' tables are `reno`, `cubic`");
}

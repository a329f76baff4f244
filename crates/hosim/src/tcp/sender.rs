//! The TCP sender: connection setup, sequence state, the send loop, ECN, the retransmission
//! timer and statistics. Window growth is the congestion controller's (`tcp/cc/`), loss
//! detection and the choice of retransmissions the loss recovery's (`tcp/recovery/`), and a
//! window set from outside is `tcp/window.rs`.

pub use super::window::WindowControl;

use super::cc::{AnyCc, Controller, GrowthGateState, NewAck, SlowStartExits};
use super::config::LossDetection;
use super::config::{
    FastRetransmitWindow, GoBackN, GrowthGate, Recovery, RecoveryRate, ReductionBasis, RtoRearm, RtoSsthresh,
    RttSampling, SynTimeout, TcpConfig,
};
use super::path::PathChange;
use super::recovery::{AckInRecovery, AnyRecovery, LossRecovery, NextSeg, Outstanding, Rack};
use super::rto::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::window::ExternalRepair;
use crate::engine::time::{s_to_ns, SimTime};
use crate::net::packet::{PacketKind, SackBlocks};

mod clah;
mod dsack_undo;
mod frto;
mod persist;
mod push;
mod rack_tlp;
mod rate_based;
mod small_queues;
mod timestamps;

pub use timestamps::{ts_clock, TS_TICK_NS};

use frto::{Frto, FrtoAck};
use rack_tlp::TlpEpisode;

pub use clah::{clah_bdp_bytes, BdpEstimate, ClahConfig, DupackResume, HandoffState, PathReaction};

/// A segment the sender wants on the wire. The caller turns it into a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub kind: PacketKind,
    pub seq: u64,
    pub len: u32,
    pub is_retx: bool,
    /// ECN-capable transport (RFC 3168 §6.1.1): new data only, never retransmissions.
    pub ect: bool,
    pub cwr: bool,
    /// PSH (`tcp.psh_quickack`, `sender/push.rs`): the last segment of a GSO unit.
    pub psh: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    Closed,
    SynSent,
    Established,
}

/// How a loss-recovery episode began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpisodeKind {
    FastRecovery,
    Timeout,
}

/// One loss-recovery episode, for analysis: when it began and when the sender left it
/// (for a timeout: when the cumulative ACK passed the data outstanding at the timeout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Episode {
    pub kind: EpisodeKind,
    pub start_ns: SimTime,
    pub end_ns: Option<SimTime>,
    pub retransmits: u64,
    /// FlightSize when the episode ended, before anything new was sent.
    pub flight_at_end_bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    pub syn_retransmits: u64,
    /// Zero-window probes sent, and the time spent with a zero peer window (`persist.rs`).
    pub zero_window_probes: u64,
    pub persist_ns: SimTime,
    pub rtt_sum_ns: u128,
    pub rtt_samples: u64,
    pub rto_sum_ns: u128,
    pub rto_count: u64,
    /// Every recovery episode, in order, while the log is on ([`TcpSender::set_episode_log`]:
    /// on from [`TcpSender::new`], and in a run only with its traces, so that a long run
    /// without traces does not grow with its losses).
    pub episodes: Vec<Episode>,
    /// RFC 8985 §7 tail loss probes sent.
    pub tlp_probes: u64,
    /// RFC 8985 §7.4: probes that repaired a loss (the congestion response was taken).
    pub tlp_loss_repairs: u64,
    /// Retransmissions RACK found lost during recovery (RFC 8985 §9.3).
    pub lost_retransmissions: u64,
    /// Timeouts RFC 5682 F-RTO declared spurious.
    pub frto_spurious: u64,
    /// ACKs carrying a DSACK (RFC 2883 §4; Linux TcpExtTCPDSACKRecv).
    pub dsacks_received: u64,
    /// Fast recoveries undone because DSACKs reported every retransmission (`dsack_undo`;
    /// Linux TcpExtTCPDSACKUndo + TcpExtTCPFullUndo without timestamps).
    pub dsack_undos: u64,
    /// Fast recoveries undone because a timestamp echo showed an original filled the hole
    /// (`timestamps`; Linux TCPFullUndo + TCPPartialUndo), and of them the partial undos
    /// (TCPPartialUndo); reordering shown so (TCPTSReorder).
    pub ts_undos: u64,
    pub ts_partial_undos: u64,
    pub ts_reorders: u64,
}

/// RFC 2883 §4: the first SACK block is a D-SACK when it lies below the cumulative ACK, or
/// within the second block (Linux `tcp_check_dsack`).
fn carries_dsack(sack: &SackBlocks, ack: u64) -> bool {
    let mut blocks = sack.iter();
    let Some((s0, e0)) = blocks.next() else { return false };
    s0 < ack || blocks.next().is_some_and(|(s1, e1)| s1 <= s0 && e0 <= e1)
}

/// The earlier of two deadlines, either of which may be unarmed. (An array's
/// `flatten().min()` cost about sixty instructions a call here, after every ACK.)
#[inline]
fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

pub struct TcpSender {
    pub cfg: TcpConfig,
    /// Whether `stats.episodes` records the recovery episodes.
    log_episodes: bool,
    state: SenderState,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Bytes the application has handed over so far (u64::MAX: unlimited).
    app_limit: u64,
    peer_rwnd: u64,
    /// SND.WL2 of RFC 9293 §3.10.7.4: the ACK the peer window was last taken from.
    snd_wl2: u64,
    /// The persist timer while the peer's window is zero (`persist.rs`).
    persist: Option<persist::Persist>,
    board: Scoreboard,
    cc: AnyCc,
    recovery: AnyRecovery,
    window: WindowControl,
    external_repair: ExternalRepair,
    rto: RtoEstimator,
    rto_deadline: Option<SimTime>,
    syn_sent_ns: SimTime,
    /// Bytes sent by Limited Transmit since the last cumulative ACK (RFC 5681 §3.2 step 2).
    lt_bytes: u64,
    consecutive_timeouts: u32,
    /// One past the data outstanding at the last timeout: its episode ends when the
    /// cumulative ACK reaches this.
    timeout_recover_end: u64,
    /// ns-2 Sack1's `timeout_` (`go_back_n = "all"`): set by a timeout, cleared by the next
    /// ACK of new data; duplicate ACKs in between are not counted.
    dupacks_ignored_after_rto: bool,
    last_rtt_sample_ns: Option<SimTime>,
    /// `rtt_sampling = "timed-segment"`: the end of the segment being timed and when it was sent.
    timed_segment: Option<(u64, SimTime)>,
    /// Time of the event being processed (for episode bookkeeping in helpers without `now`).
    last_event_ns: SimTime,
    /// RFC 3168 §6.1.2: at most one window reduction per window of data.
    ecn_recover_end: u64,
    cwr_pending: bool,
    /// Cross-layer reaction to path changes (`clah.rs`).
    handoff: HandoffState,
    /// RFC 8985 RACK, with `loss_detection = "rack-tlp"` and SACK recovery.
    rack: Option<Rack>,
    /// RFC 8985 §7.2: when the loss probe timer fires, if armed.
    pto_deadline: Option<SimTime>,
    /// New data went out or an ACK acknowledged new data: (re)arm the PTO (§7.2).
    pto_rearm: bool,
    /// RFC 8985 §7.4 TLP episode.
    tlp: Option<TlpEpisode>,
    /// RFC 5682 F-RTO step.
    frto: Frto,
    /// RFC 4015 §2 step (1) pipe_prev, bytes.
    eifel_pipe_prev: u64,
    /// Linux `tcp_cwnd_validate` state for `GrowthGate::CwndLimited`: whether the current
    /// window was cwnd-limited, the most bytes outstanding in it, and where it ends.
    cwnd_usage: CwndUsage,
    /// Delivery-rate samples and pacing, for a controller that asks for them
    /// (`rate_based.rs`).
    rate: Option<Box<rate_based::RateBased>>,
    /// Linux TCP Small Queues, with `small_queues` (`small_queues.rs`).
    small_queues: Option<small_queues::SmallQueues>,
    /// The fast recovery a DSACK may undo, with `dsack_undo` (`dsack_undo.rs`).
    undo: Option<dsack_undo::Undo>,
    /// With `timestamps` (`timestamps.rs`): Linux `retrans_stamp` (0: none), the TSecr of
    /// the ACK being processed (0: none), and whether that ACK may not mark losses.
    retrans_stamp: u32,
    ack_ts_ecr: u32,
    ts_hold: bool,
    pub stats: SenderStats,
}

/// Linux `tp->is_cwnd_limited`, `tp->max_packets_out` (in bytes) and `tp->cwnd_usage_seq`.
#[derive(Clone, Copy, Debug, Default)]
struct CwndUsage {
    limited: bool,
    max_flight_bytes: u64,
    until_seq: u64,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, app_limit: u64) -> Self {
        let rto = RtoEstimator::new(cfg.min_rto_ns, cfg.initial_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns)
            .with_formula(cfg.rto_formula);
        let cfg_rack = cfg.loss_detection_in_effect() == LossDetection::RackTlp;
        let cfg_small_queues = cfg.small_queues;
        let cc = AnyCc::new(&cfg);
        // A controller that reads delivery-rate samples (`tcp/rate.rs`) gets them from here.
        let rate = cc.wants_rate_samples().then(Box::default);
        TcpSender {
            log_episodes: true,
            peer_rwnd: cfg.rwnd_bytes,
            snd_wl2: 0,
            persist: None,
            cc,
            recovery: AnyRecovery::new(&cfg),
            cfg,
            state: SenderState::Closed,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_limit,
            board: Scoreboard::default(),
            window: WindowControl::Congestion,
            external_repair: ExternalRepair::default(),
            rto,
            rto_deadline: None,
            syn_sent_ns: 0,
            lt_bytes: 0,
            consecutive_timeouts: 0,
            timeout_recover_end: 0,
            dupacks_ignored_after_rto: false,
            last_rtt_sample_ns: None,
            timed_segment: None,
            last_event_ns: 0,
            ecn_recover_end: 0,
            cwr_pending: false,
            handoff: HandoffState::default(),
            rack: (cfg_rack).then(Rack::new),
            pto_deadline: None,
            pto_rearm: false,
            tlp: None,
            frto: Frto::Off,
            eifel_pipe_prev: 0,
            cwnd_usage: CwndUsage::default(),
            rate,
            small_queues: cfg_small_queues.then(Default::default),
            undo: None,
            retrans_stamp: 0,
            ack_ts_ecr: 0,
            ts_hold: false,
            stats: SenderStats::default(),
        }
    }

    /// Puts another congestion controller on the sender (a controller the crate does not
    /// know, `AnyCc::Other`), before the connection opens. A controller that asks for
    /// delivery-rate samples gets them, and its pacing rate, from here on.
    pub fn set_controller(&mut self, cc: AnyCc) {
        self.rate = cc.wants_rate_samples().then(Box::default);
        self.cc = cc;
    }

    // ---- observers -------------------------------------------------------------------

    pub fn state(&self) -> SenderState {
        self.state
    }
    /// The sending window: cwnd, or the window set from outside.
    pub fn cwnd(&self) -> u64 {
        self.window.reported(self.cc.cwnd())
    }
    pub fn window_control(&self) -> WindowControl {
        self.window
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn rto_ns(&self) -> SimTime {
        self.rto.rto_ns()
    }
    pub fn srtt_ns(&self) -> Option<SimTime> {
        self.rto.srtt_ns()
    }
    /// The RTT estimator (srtt, rttvar, min and latest sample, RTO).
    pub fn rtt(&self) -> &RtoEstimator {
        &self.rto
    }
    /// When the sender's timer fires: the retransmission timer, or with RACK-TLP the loss
    /// probe (RFC 8985 §7.2) or RACK reorder timer (§6.2 step 5) if earlier. They share one
    /// timer as in Linux; `on_timer` tells them apart.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        earliest(earliest(self.rto_deadline, self.pto_deadline), self.rack_timer_ns())
    }
    /// RFC 8985 §6.2 step 5: when the RACK reorder timer fires, if armed.
    fn rack_timer_ns(&self) -> Option<SimTime> {
        self.rack.as_ref().and_then(|r| r.timer_ns)
    }
    pub fn in_recovery(&self) -> bool {
        self.recovery.in_recovery()
    }
    pub fn app_limit(&self) -> u64 {
        self.app_limit
    }
    /// Bytes the sender believes are in the network: SetPipe() during SACK recovery,
    /// otherwise snd_nxt - snd_una.
    pub fn inflight_bytes(&self) -> u64 {
        self.recovery.pipe().unwrap_or(self.snd_nxt - self.snd_una)
    }
    /// All application data has been sent and acknowledged.
    pub fn is_done(&self) -> bool {
        self.state == SenderState::Established && self.app_limit != u64::MAX && self.snd_una >= self.app_limit
    }

    /// The RTT sample taken since the last call, if any (for tracing).
    pub fn take_new_rtt_sample(&mut self) -> Option<SimTime> {
        self.last_rtt_sample_ns.take()
    }

    fn outstanding(&self) -> Outstanding {
        Outstanding { snd_una: self.snd_una, snd_max: self.snd_max }
    }

    // ---- inputs from the application and the network ----------------------------------

    /// The application hands over `bytes` more data.
    pub fn add_app_data(&mut self, bytes: u64) {
        self.app_limit = self.app_limit.saturating_add(bytes);
    }

    /// The application hands over `bytes` more data and the sender sends what its window
    /// allows (no ACK is involved, so nothing counts as a duplicate ACK).
    pub fn on_app_data(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        self.add_app_data(bytes);
        self.send_allowed(now, out);
    }

    /// A network element sets the window (`InFlight`, `Quota`) or hands control back to
    /// congestion control (`Congestion`, which resumes from the cwnd and ssthresh it had).
    /// Sends what the new window allows.
    pub fn set_window_control(&mut self, now: SimTime, wc: WindowControl, out: &mut Vec<Segment>) {
        if wc.is_external() && self.recovery.in_recovery() {
            self.end_recovery();
        }
        self.window = wc;
        self.send_allowed(now, out);
    }

    /// A mobility mechanism reports that the sender's packets now take another path. The
    /// controller and the loss recovery react as their algorithms say (standard TCP does
    /// nothing); then the sender sends what the window allows.
    pub fn on_path_change(&mut self, now: SimTime, change: &PathChange, out: &mut Vec<Segment>) {
        self.cc.on_path_change(now, change, &self.rto);
        self.recovery.on_path_change(now, change);
        self.react_to_path_change(now, change);
        self.send_allowed(now, out);
    }

    /// Forgets the RTO estimation: RFC 6298 (2.1), RTO = initial RTO "until a round-trip time
    /// (RTT) measurement has been made", backoff cleared; RACK.min_RTT stays
    /// (`RtoEstimator::reset`). A running timer keeps its deadline; the next restart uses the
    /// initial RTO.
    pub fn reset_rtt_estimator(&mut self) {
        self.rto.reset();
    }

    // ---- handshake -------------------------------------------------------------------

    /// Active open: send the SYN and start the timer with the initial RTO (RFC 6298 (2.1)).
    pub fn connect(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.state = SenderState::SynSent;
        self.syn_sent_ns = now;
        out.push(Segment { kind: PacketKind::Syn, seq: 0, len: 0, is_retx: false, ect: false, cwr: false, psh: false });
        self.restart_timer(now);
    }

    /// SYN-ACK received: the connection is established and data may flow.
    pub fn on_syn_ack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != SenderState::SynSent {
            return;
        }
        self.state = SenderState::Established;
        if self.stats.syn_retransmits == 0 {
            self.take_rtt_sample(now, now - self.syn_sent_ns);
        } else {
            let mss = self.cfg.mss_bytes as u64;
            // RFC 5681 §3.1 (and ns-2's `bugfix_ss_`): after a lost SYN, IW = 1 SMSS.
            self.cc.set_cwnd(mss);
            match self.cfg.syn_timeout {
                // RFC 6298 (5.7): RTO >= 3 s once data is sent.
                SynTimeout::Rfc6298 => self.rto.reinit_after_syn_loss(s_to_ns(3.0)),
                // ns-2 `TcpAgent::timeout` -> `slowdown`: ssthresh_ = max((int) (1 / 2), 2)
                // packets; the backed-off RTO stays until the first sample.
                SynTimeout::Ns2 => self.cc.set_ssthresh(2 * mss),
            }
        }
        self.rto_deadline = None;
        self.try_send(now, out);
        if self.cfg.growth_gate == GrowthGate::CwndLimited {
            self.cwnd_validate(true);
        }
        if self.rate.is_some() {
            self.rate_check_app_limited(now);
        }
    }

    /// RFC 6298 (5.5)-(5.6) for the SYN: back off and send it again.
    fn on_syn_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.syn_retransmits += 1;
        self.rto.back_off();
        self.syn_sent_ns = now;
        out.push(Segment { kind: PacketKind::Syn, seq: 0, len: 0, is_retx: true, ect: false, cwr: false, psh: false });
        self.restart_timer(now);
    }

    // ---- ACK processing ----------------------------------------------------------------

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: u64, sack: &SackBlocks, ece: bool, rwnd: u64, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        self.last_event_ns = now;
        self.board.begin_ack();
        let ack = ack.min(self.snd_max);
        let rwnd_changed = self.update_peer_window(ack, rwnd);
        let has_sack = sack.iter().next().is_some();
        let dsack = has_sack && carries_dsack(sack, ack);
        self.tlp_on_ack(now, ack, has_sack);
        let snd_una_before = self.snd_una;
        if let Some(r) = self.rate.as_deref_mut() {
            r.sampler.begin_ack();
        }
        let newly_sacked = if self.recovery.uses_sack() {
            // RFC 6675 Update(): record the SACK blocks above the cumulative ACK.
            let floor = ack.max(self.snd_una);
            let blocks = sack.iter().filter(|b| b.1 > floor);
            match (self.rack.as_mut(), self.rate.is_some()) {
                // RFC 8985 §6.2 steps 2-3 for each newly SACKed segment.
                (Some(rack), false) => {
                    let min_rtt = self.rto.min_rtt_ns();
                    self.board.mark_sacked_with(blocks, &mut |seg| rack.on_delivered(now, seg, min_rtt))
                }
                (None, false) => self.board.mark_sacked(blocks),
                (_, true) => self.mark_sacked_rate_based(now, blocks),
            }
        } else {
            0
        };
        if dsack {
            self.stats.dsacks_received += 1;
            self.undo_on_dsack(sack, snd_una_before);
            self.undo_if_spurious(now, out);
        }
        let duplicate = ack == self.snd_una
            && self.snd_max > self.snd_una
            && self.recovery.is_duplicate(newly_sacked, rwnd_changed);
        if ack > self.snd_una {
            self.on_new_ack(now, ack, out);
        } else if duplicate && !self.dupacks_ignored_after_rto && !self.dupack_suppressed(now) {
            // A duplicate ACK as the recovery defines it (RFC 5681 §2, RFC 6675 §2).
            self.on_dupack(now, out);
        }
        let hold = self.take_ts_hold();
        if let Some(rack) = self.rack.as_mut() {
            // RFC 8985 §6.2 step 4: a DSACK widens the reordering window.
            rack.on_ack_dsack(dsack, self.snd_una, self.snd_max);
            if !self.window.is_external() && !hold {
                self.rack_detect(now, true, out);
            }
        }
        if self.frto != Frto::Off {
            let sack_high = sack.iter().map(|b| b.1).max().unwrap_or(0);
            let acked = self.snd_una - snd_una_before;
            let a = FrtoAck { snd_una_before, acked, duplicate, newly_sacked, sack_high, ece };
            self.frto_on_ack(now, a, out);
        }
        if ece && self.cfg.ecn {
            self.on_ecn_echo(now);
        }
        if !self.window.is_external() {
            let seq = self.outstanding();
            self.recovery.on_ack_processed(&mut self.cc, &mut self.board, seq);
        }
        if self.rate.is_some() {
            self.rate_on_ack_processed(now);
        }
        self.update_persist(now);
        self.send_allowed(now, out);
        self.ack_ts_ecr = 0;
    }

    /// RFC 6675 Update() with a rate-based controller: every newly SACKed segment is also
    /// delivered to the rate sampler (and to RACK, if on).
    fn mark_sacked_rate_based(&mut self, now: SimTime, blocks: impl Iterator<Item = (u64, u64)>) -> u64 {
        let min_rtt = self.rto.min_rtt_ns();
        let (mut rack, rate) = (self.rack.as_mut(), self.rate.as_deref_mut().expect("rate-based"));
        self.board.mark_sacked_with(blocks, &mut |seg| {
            if let Some(rack) = rack.as_mut() {
                rack.on_delivered(now, seg, min_rtt);
            }
            rate.sampler.on_delivered(seg);
        })
    }

    /// The cumulative ACK `ack` removes the segments below it from the scoreboard, each
    /// delivered one told to RACK and to the rate sampler when they are on.
    #[inline(always)]
    fn ack_board_to(&mut self, now: SimTime, ack: u64) -> crate::tcp::scoreboard::AckedInfo {
        let min_rtt = self.rto.min_rtt_ns();
        match (self.rack.as_mut(), self.rate.as_deref_mut()) {
            (None, None) => self.board.ack_to(ack),
            // RFC 8985 §6.2 steps 2-3 for each segment delivered by this cumulative ACK.
            (Some(rack), None) => self.board.ack_to_with(ack, &mut |seg| rack.on_delivered(now, seg, min_rtt)),
            (mut rack, Some(rate)) => self.board.ack_to_with(ack, &mut |seg| {
                if let Some(rack) = rack.as_mut() {
                    rack.on_delivered(now, seg, min_rtt);
                }
                rate.sampler.on_delivered(seg);
            }),
        }
    }

    /// The cumulative ACK advanced to `ack`.
    fn on_new_ack(&mut self, now: SimTime, ack: u64, out: &mut Vec<Segment>) {
        let acked = ack - self.snd_una;
        let info = self.ack_board_to(now, ack);
        // RFC 8985 §7.2: an ACK of new data restarts the loss probe timer.
        self.pto_rearm = true;
        self.snd_una = ack;
        self.dupacks_ignored_after_rto = false;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        let sent = match self.cfg.rtt_sampling {
            RttSampling::EveryAck => info.rtt_sample_sent_ns,
            RttSampling::TimedSegment => self.timed_segment_acked(ack),
        };
        let mut rtt_sample = sent.filter(|t| self.accepts_rtt_sample(*t)).map(|sent| now - sent);
        if rtt_sample.is_none() && self.cfg.timestamps && self.cfg.rtt_sampling == RttSampling::EveryAck {
            // Linux `tcp_ack_update_rtt`: no sample by Karn's rule, one from the echo.
            rtt_sample = self.ts_rtt_sample(now);
        }
        if let Some(r) = rtt_sample {
            self.take_rtt_sample(now, r);
        }
        self.consecutive_timeouts = 0;
        self.lt_bytes = 0;
        if !self.recovery.in_recovery() && ack >= self.timeout_recover_end {
            self.close_episode(now);
        }
        if self.snd_una - acked < self.timeout_recover_end && !self.in_rto_recovery() {
            // RFC 8985 §6.2 step 4: exiting RTO recovery counts as exiting fast recovery.
            if let Some(rack) = self.rack.as_mut() {
                rack.on_recovery_exit();
            }
        }
        // One call site for `grow_window`, so that the controller's `on_ack` stays inlined
        // (two sites left it out of line: +1.2 M instructions, bench/decisions.md).
        let (restart, grow) = if self.window.is_external() {
            self.on_new_ack_external(now, ack, out);
            (true, false)
        } else if self.recovery.in_recovery() {
            let restart = self.on_new_ack_in_recovery(now, acked, out);
            if self.recovery.in_recovery() && self.ts_partial_ack(ack - acked) {
                // `tcp_try_undo_partial` undid the recovery: the ACK grows the window it
                // restored (`tcp_cong_control` outside a reduction).
                (true, true)
            } else {
                (restart, self.exit_ack_opens_window() && !self.recovery.in_recovery())
            }
        } else {
            self.recovery.reset_dupacks();
            (true, true)
        };
        if grow {
            self.grow_window(now, ack, acked, rtt_sample);
        }
        if self.snd_una == self.snd_max {
            // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer.
            self.rto_deadline = None;
        } else if restart {
            // RFC 6298 (5.3): restart the timer on an ACK of new data.
            self.restart_timer(now);
        }
    }

    /// RFC 5681 §3.1: slow start or congestion avoidance, after the controller's slow-start
    /// exits (RFC 9406 HyStart++, Linux HyStart).
    #[inline(always)]
    fn grow_window(&mut self, now: SimTime, ack: u64, acked: u64, rtt_sample: Option<u64>) {
        let new_ack = NewAck {
            bytes: acked,
            snd_una: ack,
            snd_max: self.snd_max,
            rtt_sample_ns: rtt_sample,
            gate: self.growth_gate(),
        };
        self.cc.on_ack(now, &new_ack, &self.rto);
    }

    /// ns-2 dialect (`exit_ack_opens_window`): the ACK that ends Reno or NewReno fast
    /// recovery is then treated as any ACK of new data and grows the window it left
    /// (`RenoTcpAgent::recv`, `NewRenoTcpAgent::recv`: `recv_newack_helper` -> `opencwnd`).
    /// Sack1 leaves recovery through `newack` alone, so SACK recovery never does.
    fn exit_ack_opens_window(&self) -> bool {
        self.cfg.exit_ack_opens_window
            && matches!(self.cfg.recovery, Recovery::Reno | Recovery::NewReno)
            && self.cfg.recovery_rate_in_effect() == RecoveryRate::Classic
    }

    /// The recovery answers an ACK of new data. Returns whether the timer restarts.
    fn on_new_ack_in_recovery(&mut self, now: SimTime, acked: u64, out: &mut Vec<Segment>) -> bool {
        let seq = self.outstanding();
        match self.recovery.on_ack(now, &mut self.cc, &self.board, seq, acked) {
            AckInRecovery::Exit => {
                if self.ts_undo_at_exit() {
                    // `tcp_try_undo_recovery` undid it: not a completed recovery.
                    self.leave_recovery(false);
                } else {
                    self.end_recovery();
                }
                true
            }
            AckInRecovery::Continue { retransmit, restart_timer } => {
                if let Some(i) = retransmit {
                    self.resend(i, now, out);
                }
                restart_timer
            }
        }
    }

    /// With the window set from outside: no growth; a partial ACK resends the next hole.
    fn on_new_ack_external(&mut self, now: SimTime, ack: u64, out: &mut Vec<Segment>) {
        self.recovery.reset_dupacks();
        if self.external_repair.on_new_ack(ack) {
            self.retransmit_first(now, out);
        }
    }

    fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let dupacks = self.recovery.count_dupack();
        if self.window.is_external() {
            if self.external_repair.on_dupack(dupacks, self.cfg.dupack_threshold, self.snd_max) {
                // Counted as a fast recovery, without its window changes.
                self.retransmit_first(now, out);
                self.stats.fast_recoveries += 1;
            }
            return;
        }
        let seq = self.outstanding();
        if self.recovery.on_dupack(now, &mut self.cc, &mut self.board, seq) {
            self.enter_recovery(now, out);
        }
    }

    /// Loss detected: the recovery sets the window and names the first retransmission.
    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let seq = self.outstanding();
        // RFC 5681 §3.2 step 2, RFC 6675 (4.2): FlightSize without the data Limited
        // Transmit sent; Linux: cwnd (`reduction_basis`).
        let flight = self.reduced_from(seq.flight_size().saturating_sub(self.lt_bytes));
        let cwnd_before = self.cc.cwnd();
        self.ts_on_enter_recovery();
        self.undo_on_enter(cwnd_before, self.cc.ssthresh());
        let first = self.recovery.enter(now, &mut self.cc, &self.rto, &self.board, seq, flight);
        if self.cfg.fast_retransmit_window == FastRetransmitWindow::CwndHalf
            && self.cfg.recovery_rate_in_effect() == RecoveryRate::Classic
        {
            self.ns2_halve_window(cwnd_before);
        }
        self.stats.fast_recoveries += 1;
        // RFC 8985 §7.1: fast recovery resets the TLP episode.
        self.tlp = None;
        self.open_episode(EpisodeKind::FastRecovery, now);
        // RFC 3168 §6.1.2: this reduction also answers ECN echoes for the same window.
        self.ecn_recover_end = self.snd_max;
        // ns-2 `reset_rtx_timer` (`rtt_active_ = 0`): the fast retransmit stops the timing.
        self.timed_segment = None;
        if let Some(i) = first {
            self.resend(i, now, out);
            if self.cfg.fast_retransmit_restarts_timer {
                // ns-2 dialect: `dupack_action` calls `reset_rtx_timer(1, 0)`.
                self.restart_timer(now);
            }
        }
    }

    /// ns-2 dialect (`FastRetransmitWindow::CwndHalf`), after the recovery's own entry:
    /// `TcpAgent::slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` with `precision_reduce_`
    /// halves W = min(cwnd_, wnd_), the window before the loss (ns-2's Limited Transmit,
    /// `singledup_`, sends beyond it without growing cwnd_): cwnd_ = W / 2 with no floor,
    /// ssthresh_ = (int)(W / 2) packets, at least 2. The recovery's inflation (Reno and
    /// NewReno: DupThresh*SMSS, ns-2's `dupwnd_`) stays on top.
    fn ns2_halve_window(&mut self, cwnd_before: u64) {
        let mss = self.cfg.mss_bytes as u64;
        let w = cwnd_before.min(self.peer_rwnd);
        let inflation = self.cc.cwnd().saturating_sub(self.cc.ssthresh());
        self.cc.set_ssthresh(ns2_whole_packets(w / 2, mss));
        self.cc.set_cwnd(w / 2 + inflation);
    }

    fn end_recovery(&mut self) {
        self.leave_recovery(true);
    }

    /// Fast recovery ends; `completed`: it was not undone (RFC 8985 §6.2 step 4 counts it
    /// towards resetting RACK.reo_wnd_mult).
    fn leave_recovery(&mut self, completed: bool) {
        if self.recovery.in_recovery() {
            self.close_episode(self.last_event_ns);
            if let Some(rack) = self.rack.as_mut().filter(|_| completed) {
                rack.on_recovery_exit();
            }
        }
        self.recovery.exit();
    }

    /// The window a reduction (fast recovery, ECN, a tail loss probe's repair) starts from:
    /// `flight`, the FlightSize the RFC rule takes, or cwnd (`reduction_basis`, Linux
    /// `tcp_reno_ssthresh`, `bictcp_recalc_ssthresh`).
    pub(super) fn reduced_from(&self, flight: u64) -> u64 {
        match self.cfg.reduction_basis {
            ReductionBasis::FlightSize => flight,
            ReductionBasis::Cwnd => self.cc.cwnd(),
        }
    }

    /// RFC 3168 §6.1.2: halve the window at most once per window of data, then set CWR.
    /// ACKs up to and including the reduction's snd_max still echo the old mark (the receiver
    /// has not yet seen CWR), so only an ACK beyond it may trigger a new reduction.
    fn on_ecn_echo(&mut self, now: SimTime) {
        if self.recovery.in_recovery() || self.snd_una <= self.ecn_recover_end {
            return;
        }
        let flight = self.reduced_from(self.snd_max - self.snd_una);
        let ssthresh = self.cc.on_congestion_event(now, flight, &self.rto);
        self.cc.set_cwnd(ssthresh);
        self.ecn_recover_end = self.snd_max;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    // ---- episodes ----------------------------------------------------------------------

    /// Turns the log of recovery episodes (`stats.episodes`) on or off. Nothing but the log
    /// reads it: the sender behaves the same either way.
    pub fn set_episode_log(&mut self, on: bool) {
        self.log_episodes = on;
    }

    fn open_episode(&mut self, kind: EpisodeKind, now: SimTime) {
        if !self.log_episodes {
            return;
        }
        if let Some(last) = self.stats.episodes.last_mut() {
            if last.end_ns.is_none() {
                last.end_ns = Some(now);
            }
        }
        self.stats.episodes.push(Episode { kind, start_ns: now, end_ns: None, retransmits: 0, flight_at_end_bytes: 0 });
    }

    fn close_episode(&mut self, now: SimTime) {
        let flight = self.snd_max - self.snd_una;
        if let Some(last) = self.stats.episodes.last_mut() {
            if last.end_ns.is_none() {
                last.end_ns = Some(now);
                last.flight_at_end_bytes = flight;
            }
        }
    }

    // ---- retransmission timer -----------------------------------------------------------

    /// The retransmission timer may have expired. Returns the sequence number retransmitted on
    /// a timeout of an established connection, for spurious-timeout accounting.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) -> Option<u64> {
        if self.rate.is_some() {
            // The pacing timer; the others below check their own deadlines.
            self.on_pacing_timer(now, out);
        }
        if self.on_persist_timer(now, out) {
            return None;
        }
        let due = |d: Option<SimTime>| d.is_some_and(|d| d <= now);
        if self.state == SenderState::Established && due(self.rack_timer_ns()) {
            // RFC 8985 §6.2 step 5: the reorder timer.
            self.last_event_ns = now;
            self.rack_detect(now, false, out);
            self.send_allowed(now, out);
            return None;
        }
        // RFC 8985 §7.2 caps the PTO at the RTO's expiry: at a tie the probe goes and the RTO
        // timer is re-armed (§7.3).
        let pto_first = self.pto_deadline <= self.rto_deadline.or(Some(SimTime::MAX));
        if self.state == SenderState::Established && due(self.pto_deadline) && pto_first {
            self.last_event_ns = now;
            self.on_pto(now, out);
            self.send_allowed(now, out);
            return None;
        }
        if !due(self.rto_deadline) {
            return None;
        }
        match self.state {
            SenderState::Closed => None,
            SenderState::SynSent => {
                self.on_syn_timeout(now, out);
                None
            }
            SenderState::Established => self.on_timeout(now, out),
        }
    }

    /// RFC 6298 (5.4)–(5.6) and RFC 5681 §3.1: retransmission timeout.
    fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) -> Option<u64> {
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return None;
        }
        self.stats.timeouts += 1;
        self.undo_on_timeout();
        self.last_event_ns = now;
        // Karn (RFC 6298 §3); ns-2 `reset_rtx_timer`: the timeout stops the timing.
        self.timed_segment = None;
        if self.window.is_external() {
            return Some(self.on_timeout_external(now, out));
        }
        let (halved, set_ssthresh) = self.timeout_ssthresh_basis();
        self.frto_on_timeout(self.recovery.in_recovery());
        // RFC 8985 §7.1: RTO recovery resets the TLP episode.
        self.tlp = None;
        self.pto_deadline = None;
        self.end_recovery();
        // Back-to-back timeouts of the same data belong to one episode.
        if self.consecutive_timeouts == 0 {
            self.open_episode(EpisodeKind::Timeout, now);
        }
        self.cc.on_timeout(now, halved, set_ssthresh, self.snd_max, &self.rto);
        if set_ssthresh && self.cfg.rto_ssthresh == RtoSsthresh::CwndHalf {
            // ns-2 `slowdown()` (as `ns2_halve_window` after a fast retransmit).
            self.cc.set_ssthresh(ns2_whole_packets(self.cc.ssthresh(), self.cfg.mss_bytes as u64));
        }
        self.consecutive_timeouts += 1;
        self.lt_bytes = 0;
        // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: after an RTO, recover = RecoveryPoint = HighData.
        let seq = self.outstanding();
        self.recovery.on_rto(seq, &mut self.board);
        self.timeout_recover_end = self.snd_max;
        self.ecn_recover_end = self.snd_max;
        // ns-2 `Sack1TcpAgent::timeout`: `timeout_ = TRUE`, and `recv` counts no duplicate
        // ACK (no Limited Transmit, no fast retransmit) until an ACK of new data.
        self.dupacks_ignored_after_rto = self.cfg.go_back_n == GoBackN::All && self.recovery.uses_sack();
        // Go back N: resend from the first unacknowledged byte, in slow start.
        self.snd_nxt = self.snd_una;
        self.rto.back_off();
        let seq = self.snd_una;
        self.try_send(now, out);
        if self.cfg.growth_gate == GrowthGate::CwndLimited {
            self.cwnd_validate(true);
        }
        // (5.6) start the timer with the backed-off RTO.
        self.restart_timer(now);
        Some(seq)
    }

    /// The amount the controller halves into ssthresh on this timeout, and whether it sets
    /// ssthresh at all, as `cfg.rto_ssthresh` says. Read before recovery ends. RFC 5681 §3.1
    /// sets ssthresh only if the segment "has not yet been resent by way of the
    /// retransmission timer": a repeated timeout keeps it, except under ns-2's rule.
    fn timeout_ssthresh_basis(&mut self) -> (u64, bool) {
        let seq = self.outstanding();
        let first = self.consecutive_timeouts == 0;
        match self.cfg.rto_ssthresh {
            // RFC 5681 §3.1 eq. (4), FlightSize = snd_max - snd_una.
            RtoSsthresh::OutstandingHalf => (seq.flight_size(), first),
            // RFC 5681 §3.1 eq. (4), FlightSize estimated by RFC 6675 §4 pipe (ns-3
            // `ReTxTimeout`: `BytesInFlight()`).
            RtoSsthresh::PipeHalf => (self.recovery.pipe_at_timeout(&mut self.board, seq), first),
            // ns-2 `slowdown()`: half of min(cwnd_, wnd_), cwnd_ without the recovery's
            // inflation (ns-2 keeps it apart in dupwnd_), on every timeout.
            RtoSsthresh::CwndHalf => {
                let cwnd = self.cc.cwnd();
                let cwnd = if self.recovery.in_recovery() { cwnd.min(self.cc.ssthresh()) } else { cwnd };
                (cwnd.min(self.peer_rwnd), true)
            }
            // Linux `tcp_enter_loss`: a timeout in fast recovery keeps its ssthresh; otherwise
            // `tcp_reno_ssthresh`, half of cwnd.
            RtoSsthresh::KeepInRecovery => (self.cc.cwnd(), first && !self.recovery.in_recovery()),
        }
    }

    /// Timeout with the window set from outside. The standard timeout response (window
    /// collapse, go-back-N) is off; the RFC 6298 timer stays as the last resort for what
    /// duplicate ACKs cannot repair: a lost retransmission, or a lost tail segment with no
    /// later segment to raise duplicate ACKs. It resends the first unacknowledged segment,
    /// keeps the window, and backs off (RFC 6298 (5.5)-(5.6)).
    fn on_timeout_external(&mut self, now: SimTime, out: &mut Vec<Segment>) -> u64 {
        self.consecutive_timeouts += 1;
        self.recovery.reset_dupacks();
        self.rto.back_off();
        self.retransmit_first(now, out);
        self.external_repair.on_timeout(self.snd_max);
        self.restart_timer(now);
        self.snd_una
    }

    /// `rtt_sampling = "timed-segment"`: the send time of the timed segment if `ack` covers it,
    /// which ends the timing. A partial ACK in recovery ends it without a sample (ns-2
    /// `NewRenoTcpAgent::partialnewack`: `rtt_active_ = 0`, no `rtt_update`); the recovery
    /// point is `ecn_recover_end`, set to snd_max when recovery began.
    fn timed_segment_acked(&mut self, ack: u64) -> Option<SimTime> {
        let (end, sent) = self.timed_segment?;
        if ack < end {
            return None;
        }
        self.timed_segment = None;
        let partial = self.recovery.in_recovery() && ack < self.ecn_recover_end;
        (!partial).then_some(sent)
    }

    fn take_rtt_sample(&mut self, now: SimTime, r_ns: SimTime) {
        self.rto.sample_at(now, r_ns, self.snd_una, self.snd_max);
        self.last_rtt_sample_ns = Some(r_ns);
        self.stats.rtt_sum_ns += r_ns as u128;
        self.stats.rtt_samples += 1;
    }

    fn restart_timer(&mut self, now: SimTime) {
        let rto = self.rto.rto_ns();
        self.stats.rto_sum_ns += rto as u128;
        self.stats.rto_count += 1;
        self.rto_deadline = Some(crate::tcp::timer_wheel::expiry(now, rto, self.cfg.timer_wheel_hz));
    }

    /// RFC 6298 (5.1): a data segment was sent; start the timer if it is not running (and
    /// not frozen by a zero window, `persist.rs`).
    fn ensure_timer(&mut self, now: SimTime) {
        if self.rto_deadline.is_none() && self.persist.is_none() {
            self.restart_timer(now);
        }
    }

    // ---- transmission ----------------------------------------------------------------

    /// Sends what the window allows: the recovery's choices while it drives transmission
    /// (SACK recovery), otherwise the window loop.
    fn send_allowed(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        let sent_before = out.len();
        if self.recovery.drives_transmission() {
            self.send_recovery_choices(now, out);
        } else {
            self.try_send(now, out);
        }
        if self.cfg.psh_quickack {
            self.mark_push(&mut out[sent_before..]);
        }
        if self.cfg.growth_gate == GrowthGate::CwndLimited {
            self.cwnd_validate(out.len() > sent_before);
        }
        if self.rack.is_some() {
            self.update_pto(now);
        }
        if self.rate.is_some() {
            self.rate_check_app_limited(now);
        }
    }

    /// Whether a segment the window allows may leave now: the pacing clock of a rate-based
    /// controller (`rate_based.rs`), and Linux TCP Small Queues (`small_queues.rs`). Every
    /// transmission loop asks this before each segment; a further per-send gate belongs here.
    #[inline(always)]
    fn may_send_now(&mut self, now: SimTime) -> bool {
        if self.small_queues.is_some() && !self.small_queue_allows() {
            return false;
        }
        match self.rate.as_deref_mut() {
            None => true,
            Some(r) => r.pacing_allows(now, self.cc.pacing_rate_bps()),
        }
    }

    /// Linux `tcp_cwnd_validate` after a transmission attempt: the window is cwnd-limited when
    /// what is in flight leaves no room for another full segment (`tcp_write_xmit`:
    /// `tcp_packets_in_flight >= snd_cwnd`); otherwise the most bytes outstanding in the
    /// window is tracked. Both are kept until snd_una passes the window's end.
    fn cwnd_validate(&mut self, sent: bool) {
        let flight = self.snd_max - self.snd_una;
        let in_flight = flight.saturating_sub(self.board.sacked_bytes());
        let limited = in_flight + self.cfg.mss_bytes as u64 > self.cc.cwnd();
        if !sent && !limited {
            return;
        }
        let u = &mut self.cwnd_usage;
        if self.snd_una >= u.until_seq || limited || (!u.limited && flight > u.max_flight_bytes) {
            *u = CwndUsage { limited, max_flight_bytes: flight, until_seq: self.snd_max };
        }
    }

    /// Whether an ACK of new data outside recovery may grow cwnd: always, or (Linux
    /// `tcp_is_cwnd_limited`) while the window is cwnd-limited, and in slow start while cwnd
    /// is below twice the most bytes outstanding (`NewAck::may_grow` decides, after the
    /// controller's slow-start exits).
    #[inline]
    fn growth_gate(&self) -> GrowthGateState {
        if self.cfg.growth_gate == GrowthGate::Always {
            return GrowthGateState::Open;
        }
        let u = self.cwnd_usage;
        GrowthGateState::CwndLimited { limited: u.limited, max_flight_bytes: u.max_flight_bytes }
    }

    /// Slow starts the controller ended without a loss (HyStart++, Linux HyStart).
    pub fn slow_start_exits(&self) -> SlowStartExits {
        self.cc.slow_start_exits()
    }

    /// RFC 3042: each of the first DupThresh-1 duplicate ACKs may release one new segment
    /// beyond cwnd.
    fn limited_transmit_allowance(&self) -> u64 {
        let dupacks = self.recovery.dupacks();
        if !self.recovery.in_recovery() && self.cfg.limited_transmit && dupacks < self.cfg.dupack_threshold {
            dupacks as u64 * self.cfg.mss_bytes as u64
        } else {
            0
        }
    }

    /// How far past snd_una the window loop may send: cwnd plus the Limited Transmit
    /// allowance (or what SACKs took out of flight), or the window set from outside; never
    /// beyond the peer's receive window.
    fn send_window(&self) -> u64 {
        let congestion_window = self.cc.cwnd() + self.out_of_flight_allowance();
        self.window.send_window(congestion_window).min(self.peer_rwnd)
    }

    /// What outstanding data the window test leaves out of flight. RFC 5681: none but the
    /// Limited Transmit allowance (RFC 3042). With `pipe_outside_recovery` (Linux
    /// `tcp_cwnd_test` with `tcp_packets_in_flight` in every state, not only in recovery):
    /// the outstanding bytes RFC 6675's SetPipe() does not count, SACKed or marked lost,
    /// less retransmissions in the network, so that a new segment may leave while
    /// `pipe + SMSS <= cwnd`.
    fn out_of_flight_allowance(&self) -> u64 {
        if self.cfg.pipe_outside_recovery
            && self.cfg.sack()
            && self.board.sacked_bytes() > 0
            && !self.recovery.in_recovery()
            && self.snd_nxt == self.snd_max
        {
            let flight = self.snd_max - self.snd_una;
            return flight.saturating_sub(self.board.pipe_from_marks());
        }
        self.limited_transmit_allowance()
    }

    /// Window-limited transmission outside recovery-driven sending: go-back-N
    /// retransmissions below snd_max first, then new data, up to `snd_una + send_window()`.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        let limit = self.snd_una + self.send_window();
        if self.frto_holds_retransmissions() {
            // RFC 5682 step 3: only the two new segments of step 2b until the next ACK.
            return;
        }
        while self.may_send_now(now) {
            let more = if self.snd_nxt < self.snd_max {
                self.resend_at_snd_nxt(limit, now, out)
            } else {
                self.send_new_within(limit, now, out)
            };
            if !more {
                break;
            }
        }
    }

    /// Go-back-N step: resends the segment at snd_nxt (skipping it if SACKed, unless
    /// `go_back_n = "all"`) unless it ends beyond `limit`. Returns whether the loop may go on.
    fn resend_at_snd_nxt(&mut self, limit: u64, now: SimTime, out: &mut Vec<Segment>) -> bool {
        let Some(i) = self.board.index_of(self.snd_nxt) else { return false };
        let seg = *self.board.get(i);
        if seg.sacked && self.cfg.go_back_n == GoBackN::SkipSacked {
            self.snd_nxt = seg.end;
            return true;
        }
        if (seg.end > limit && self.snd_nxt > self.snd_una) || !self.window.allows(seg.len()) {
            return false;
        }
        self.resend(i, now, out);
        self.snd_nxt = seg.end;
        true
    }

    /// Sends one segment of new data if the application has some and it fits below `limit`.
    /// Returns whether the loop may go on.
    fn send_new_within(&mut self, limit: u64, now: SimTime, out: &mut Vec<Segment>) -> bool {
        let avail = self.app_limit.saturating_sub(self.snd_max);
        let mut len = avail.min(self.cfg.mss_bytes as u64);
        if len == 0 || !self.window.allows(len) {
            return false;
        }
        if self.snd_max + len > limit {
            // Sender-side silly window avoidance: only a full segment, unless nothing is
            // outstanding and the window allows a part of one.
            if self.snd_max == self.snd_una && limit > self.snd_max {
                len = limit - self.snd_max;
            } else {
                return false;
            }
        }
        if self.recovery.dupacks() > 0
            && !self.recovery.in_recovery()
            && self.snd_max + len > self.snd_una + self.cc.cwnd()
        {
            // RFC 3042 data, left out of FlightSize at the next recovery (RFC 5681 §3.2 step 2).
            self.lt_bytes += len;
        }
        self.send_new(len as u32, now, out);
        true
    }

    /// RFC 6675 §5 (C): send what NextSeg() returns until the recovery says stop.
    fn send_recovery_choices(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let mut continuing = false;
        while self.may_send_now(now) {
            let new_len = self.new_segment_within_rwnd();
            let cwnd = self.cc.cwnd();
            match self.recovery.next_seg(&mut self.board, cwnd, self.snd_una, new_len, continuing) {
                Some(NextSeg::Retransmit(i)) => self.resend(i, now, out),
                Some(NextSeg::NewData) => self.send_new(new_len as u32, now, out),
                None => break,
            }
            continuing = true;
        }
    }

    /// Length of the next new segment if the receiver window allows it, else 0.
    fn new_segment_within_rwnd(&self) -> u64 {
        let len = self.app_limit.saturating_sub(self.snd_max).min(self.cfg.mss_bytes as u64);
        if self.snd_max + len <= self.snd_una + self.peer_rwnd {
            len
        } else {
            0
        }
    }

    fn retransmit_first(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.board.is_empty() {
            self.resend(0, now, out);
        }
    }

    /// Inlined at its calls, as the profile-guided build does (bench/decisions.md, "Kept: five
    /// small functions inlined at their calls").
    #[inline(always)]
    fn resend(&mut self, i: usize, now: SimTime, out: &mut Vec<Segment>) {
        let seg = self.board.mark_resent(i, now);
        if self.rate.is_some() {
            self.rate_on_sent(now, seg.start, seg.end, false, false);
        }
        self.window.charge(seg.len());
        self.small_queue_charge(seg.len() + self.cfg.header_bytes as u64);
        self.stats.retransmits += 1;
        self.undo_on_retransmit();
        self.ts_on_retransmit(now);
        if let Some(e) = self.stats.episodes.last_mut().filter(|e| e.end_ns.is_none()) {
            e.retransmits += 1;
        }
        self.stats.segments_sent += 1;
        out.push(Segment {
            kind: PacketKind::Data,
            seq: seg.start,
            len: seg.len() as u32,
            is_retx: true,
            ect: false,
            cwr: false,
            psh: false,
        });
        if i == 0 && self.cfg.rto_rearm == RtoRearm::HeadRetransmit {
            // Linux `tcp_xmit_retransmit_queue`: resending the head of the retransmission
            // queue restarts the timer, so a lost retransmission repaired late in a long
            // recovery does not time out while its new copy is still on the way.
            self.restart_timer(now);
        } else {
            self.ensure_timer(now);
        }
    }

    /// Inlined at its calls, as the profile-guided build does (bench/decisions.md, "Kept: five
    /// small functions inlined at their calls").
    #[inline(always)]
    fn send_new(&mut self, len: u32, now: SimTime, out: &mut Vec<Segment>) {
        let seq = self.snd_max;
        self.window.charge(len as u64);
        self.small_queue_charge((len + self.cfg.header_bytes) as u64);
        self.board.push_new(seq, seq + len as u64, now);
        let flight_empty = self.snd_una == seq;
        self.snd_max += len as u64;
        if self.rate.is_some() {
            self.rate_on_sent(now, seq, seq + len as u64, true, flight_empty);
        }
        self.snd_nxt = self.snd_max;
        if self.cfg.rtt_sampling == RttSampling::TimedSegment && self.timed_segment.is_none() {
            // ns-2 `TcpAgent::output`: a new segment is timed when none is (`rtt_active_`).
            self.timed_segment = Some((self.snd_max, now));
        }
        self.stats.segments_sent += 1;
        self.pto_rearm = true;
        let cwr = std::mem::take(&mut self.cwr_pending);
        out.push(Segment { kind: PacketKind::Data, seq, len, is_retx: false, ect: self.cfg.ecn, cwr, psh: false });
        self.ensure_timer(now);
    }
}

/// ns-2's ssthresh after a window cut (`TcpAgent::slowdown`): `ssthresh_` is an int, so
/// `(int) halfwin` whole packets of `bytes`, at least 2.
fn ns2_whole_packets(bytes: u64, mss: u64) -> u64 {
    (bytes / mss).max(2) * mss
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::{Recovery, RtoSsthresh};
    use crate::tcp::fixtures::*;
    use crate::tcp::path::{AccessKind, Handoff};

    #[test]
    fn established_dupacks_send_limited_transmit_data_outside_flight_size() {
        let mut s = established(TcpConfig { limited_transmit: true, ..config(Recovery::NewReno) });
        assert_eq!(ack(&mut s, 200, 0), vec![new_data(10)], "RFC 3042: one segment per duplicate ACK");
        assert_eq!(ack(&mut s, 200, 0), vec![new_data(11)]);
        assert_eq!(ack(&mut s, 200, 0), vec![retx(0)]);
        assert_eq!(s.ssthresh(), 5000, "FlightSize 12000 less the 2000 Limited Transmit sent, halved");
        assert_eq!(s.cwnd(), 8000);
    }

    #[test]
    fn established_path_change_leaves_reno_untouched() {
        let mut s = established(config(Recovery::Sack));
        let change = PathChange {
            handoff: Handoff::Vertical,
            access: AccessKind::Cellular,
            base_rtt_ns: Some(ms(300)),
            rate_hint_bps: Some(1_000_000),
            hops: None,
            delay: crate::tcp::path::DelayShift::ToHighDelay,
        };
        let mut out = Vec::new();
        s.on_path_change(ms(150), &change, &mut out);
        assert!(out.is_empty());
        assert_eq!((s.cwnd(), s.ssthresh(), s.srtt_ns()), (10_000, u64::MAX, Some(ms(100))));
    }

    #[test]
    fn established_rtt_reset_returns_to_initial_rto() {
        let mut s = established(TcpConfig { initial_rto_ns: s_to_ns(3.0), ..config(Recovery::Sack) });
        assert_eq!((s.srtt_ns(), s.rto_ns()), (Some(ms(100)), s_to_ns(1.0)));
        s.reset_rtt_estimator();
        assert_eq!((s.srtt_ns(), s.rto_ns()), (None, s_to_ns(3.0)), "RFC 6298 (2.1)");
        assert_eq!((s.rtt().min_rtt_ns(), s.rtt().latest_rtt_ns()), (Some(ms(100)), None));
    }

    #[test]
    fn after_rto_new_ack_grows_cwnd_in_slow_start() {
        let mut s = after_rto(Recovery::NewReno);
        assert_eq!((s.cwnd(), s.ssthresh()), (1000, 5000));
        // Go back N: the ACK of the resent segment 0 releases segments 1 and 2 again.
        assert_eq!(ack(&mut s, 1200, MSS), vec![retx(1), retx(2)]);
        assert_eq!(s.cwnd(), 2000, "RFC 5681 §3.1: slow start below ssthresh");
        assert_eq!(s.srtt_ns(), Some(ms(100)), "Karn: no sample from a retransmitted segment");
        assert_eq!(s.rto_deadline(), Some(ms(1200) + s_to_ns(2.0)), "the backed-off RTO stays");
    }

    #[test]
    fn after_rto_second_expiry_holds_ssthresh_and_doubles_rto() {
        let mut s = after_rto(Recovery::NewReno);
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(3100), &mut out), Some(0));
        assert_eq!(out, vec![retx(0)]);
        assert_eq!((s.cwnd(), s.ssthresh()), (1000, 5000), "RFC 5681 §3.1: ssthresh held");
        assert_eq!(s.rto_deadline(), Some(ms(3100) + s_to_ns(4.0)));
        assert_eq!((s.stats.timeouts, s.stats.episodes.len()), (2, 1), "one episode");
    }

    /// `newreno_in_fast_recovery` (segments 0 and 4 lost) with the retransmission of 0 lost
    /// as well: segments 5–9 raise five more duplicate ACKs, which inflate cwnd to 13000 and
    /// release segments 10–12; those raise three more, releasing 13–15; the timer set at
    /// 100 ms fires at 1100 ms. snd_max - snd_una = 16000; eleven duplicate ACKs say 11000
    /// of it left the network; the recovery's ssthresh is 5000.
    fn newreno_retransmission_lost_then_rto(rule: RtoSsthresh) -> TcpSender {
        let mut s = in_fast_recovery(TcpConfig { rto_ssthresh: rule, ..config(Recovery::NewReno) });
        let mut sent = Vec::new();
        for _ in 5..10 {
            sent.extend(ack(&mut s, 250, 0));
        }
        assert_eq!(sent, vec![new_data(10), new_data(11), new_data(12)]);
        for _ in 10..13 {
            ack(&mut s, 300, 0);
        }
        assert_eq!((s.snd_max(), s.cwnd(), s.ssthresh()), (16 * MSS, 16 * MSS, 5000));
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1100), &mut out), Some(0));
        s
    }

    #[test]
    fn newreno_recovery_lost_retransmission_rto_sets_ssthresh_by_rule() {
        for (rule, want) in [
            (RtoSsthresh::OutstandingHalf, 8000),
            // pipe = 16000 - 11000 = 5000: only segments 0, 4 and 13-15 may be in the network.
            (RtoSsthresh::PipeHalf, 2500),
            // ns-2: cwnd_ without the inflation is the recovery's 5000; `slowdown()` keeps
            // whole packets of its half, `(int) halfwin` = 2.
            (RtoSsthresh::CwndHalf, 2000),
            // Linux: the timeout fires in recovery and keeps its ssthresh.
            (RtoSsthresh::KeepInRecovery, 5000),
        ] {
            let s = newreno_retransmission_lost_then_rto(rule);
            assert_eq!((s.ssthresh(), s.cwnd()), (want, MSS), "{rule:?}");
        }
    }

    #[test]
    fn newreno_recovery_lost_retransmission_second_rto_holds_ssthresh_except_ns2() {
        for (rule, want) in [
            (RtoSsthresh::OutstandingHalf, 8000),
            (RtoSsthresh::PipeHalf, 2500),
            (RtoSsthresh::CwndHalf, 2 * MSS),
            (RtoSsthresh::KeepInRecovery, 5000),
        ] {
            let mut s = newreno_retransmission_lost_then_rto(rule);
            let mut out = Vec::new();
            assert_eq!(s.on_timer(ms(3100), &mut out), Some(0));
            assert_eq!(s.ssthresh(), want, "{rule:?}: RFC 5681 §3.1 keeps it; ns-2 halves cwnd = 1 SMSS");
        }
    }

    /// NewReno (Impatient) with segments 0, 2, 4 and 6 lost: six duplicate ACKs at 200 ms
    /// (segments 1, 3, 5, 7–9; the third enters recovery, the sixth releases 10); partial ACKs
    /// at 300 ms (to 2) and 400 ms (to 4), duplicate ACKs for 10 and 11 between them. The
    /// Impatient timer, restarted at 300 ms only, fires at 1300 ms and ends the recovery with
    /// snd_una = 4000, snd_max = 15000 and 6000 bytes reported by duplicate ACKs.
    fn newreno_long_recovery_ended_by_rto(rule: RtoSsthresh) -> TcpSender {
        let mut s = established(TcpConfig { rto_ssthresh: rule, ..config(Recovery::NewReno) });
        let mut sent = Vec::new();
        for _ in 0..6 {
            sent.extend(ack(&mut s, 200, 0));
        }
        assert_eq!(sent, vec![retx(0), new_data(10)]);
        assert_eq!(ack(&mut s, 300, 2 * MSS), vec![retx(2), new_data(11)]);
        assert_eq!(ack(&mut s, 310, 2 * MSS), vec![new_data(12)]);
        assert_eq!(ack(&mut s, 320, 2 * MSS), vec![new_data(13)]);
        assert_eq!(ack(&mut s, 400, 4 * MSS), vec![retx(4), new_data(14)]);
        assert!(s.in_recovery());
        let mut out = Vec::new();
        assert_eq!(s.on_timer(ms(1300), &mut out), Some(4 * MSS));
        s
    }

    #[test]
    fn newreno_long_recovery_rto_sets_ssthresh_by_rule() {
        for (rule, want) in [
            (RtoSsthresh::OutstandingHalf, 5500),
            (RtoSsthresh::PipeHalf, 2500),
            // ns-2: `(int) halfwin` of cwnd_ = 5 packets.
            (RtoSsthresh::CwndHalf, 2000),
            (RtoSsthresh::KeepInRecovery, 5000),
        ] {
            let s = newreno_long_recovery_ended_by_rto(rule);
            assert_eq!((s.ssthresh(), s.cwnd(), s.in_recovery()), (want, MSS, false), "{rule:?}");
        }
    }

    #[test]
    fn sack_recovery_rto_halves_setpipe_not_outstanding() {
        // Holes 1 and 5; the ACKs of 6–9 mark 5 lost and SACK everything else; nothing more
        // arrives and the timer fires at 1200 ms. Outstanding 12000 (1..13), SetPipe: the
        // retransmitted 1 and 5, and 10, 11, 12 = 5000.
        for (rule, want) in [(RtoSsthresh::OutstandingHalf, 6000), (RtoSsthresh::PipeHalf, 2500)] {
            let cfg = TcpConfig { rto_ssthresh: rule, ..config(Recovery::Sack) };
            let mut s = established(cfg);
            let mut peer = SackPeer::default();
            for seg in [0, 2, 3, 4, 6, 7, 8, 9] {
                peer.deliver(&mut s, 200, seg);
            }
            assert!(s.in_recovery());
            let mut out = Vec::new();
            assert_eq!(s.on_timer(ms(1200), &mut out), Some(MSS), "timer restarted by the ACK of 0");
            assert_eq!(s.ssthresh(), want, "{rule:?}");
        }
    }

    #[test]
    fn after_rto_linux_rule_outside_recovery_halves_cwnd() {
        let mut s = established(TcpConfig { rto_ssthresh: RtoSsthresh::KeepInRecovery, ..config(Recovery::NewReno) });
        let mut out = Vec::new();
        s.on_timer(ms(1100), &mut out);
        assert_eq!(s.ssthresh(), 5000, "tcp_reno_ssthresh: cwnd 10000 / 2");
    }

    #[test]
    fn after_rto_ack_of_data_outstanding_at_timeout_ends_the_episode() {
        let mut s = after_rto(Recovery::Sack);
        ack(&mut s, 1200, 5 * MSS);
        assert_eq!(s.stats.episodes[0].end_ns, None);
        ack(&mut s, 1300, 10 * MSS);
        let episode = s.stats.episodes[0];
        assert_eq!((episode.kind, episode.end_ns), (EpisodeKind::Timeout, Some(ms(1300))));
    }
}

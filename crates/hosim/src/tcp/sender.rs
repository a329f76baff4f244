//! The TCP sender: connection setup, the send loop, and loss recovery (Reno, NewReno, SACK)
//! on top of a pluggable congestion controller.

use super::cc::{Aimd, CongestionControl};
use super::config::{NewRenoTimer, Recovery, TcpConfig};
use super::rto::RtoEstimator;
use super::scoreboard::Scoreboard;
use crate::engine::time::{s_to_ns, SimTime};
use crate::net::packet::{PacketKind, SackBlocks};

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
}

/// Who sets the sending window. `Congestion` is standard TCP; the other two are set from outside
/// by a network element (the window adaptation proxy of Ren et al. 2008, §IV.A: "all the schemes
/// and algorithms related with congestion window adjustment in the standard TCP will be
/// disabled", while "3 duplicate ACKs trigger the retransmission of the corresponding packet").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowControl {
    /// RFC 5681 congestion control and the configured loss recovery.
    Congestion,
    /// Congestion control off: at most `bytes` outstanding (snd_max - snd_una).
    InFlight { bytes: u64 },
    /// Congestion control off: at most `bytes` sent (new data and retransmissions) until the
    /// next update; `left` is what remains.
    Quota { bytes: u64, left: u64 },
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
    pub rtt_sum_ns: u128,
    pub rtt_samples: u64,
    pub rto_sum_ns: u128,
    pub rto_count: u64,
    pub episodes: Vec<Episode>,
}

pub struct TcpSender {
    pub cfg: TcpConfig,
    state: SenderState,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Bytes the application has handed over so far (u64::MAX: unlimited).
    app_limit: u64,
    peer_rwnd: u64,
    board: Scoreboard,
    cc: Aimd,
    rto: RtoEstimator,
    rto_deadline: Option<SimTime>,
    syn_sent_ns: SimTime,
    dupacks: u32,
    in_recovery: bool,
    /// NewReno `recover` (RFC 6582 §3.2) stored as one past the highest byte sent.
    recover_end: Option<u64>,
    partial_acks: u32,
    /// RFC 6675 RecoveryPoint, one past HighData at entry.
    recovery_point: u64,
    /// RFC 6675 §5.1: no new SACK recovery until HighACK reaches this after an RTO.
    sack_blocked_until: u64,
    /// One past RFC 6675 HighRxt.
    high_rxt_end: u64,
    rescue_rxt: Option<u64>,
    /// Last SetPipe() value, bytes.
    pipe: u64,
    /// Bytes sent by Limited Transmit since the last cumulative ACK (RFC 5681 §3.2 step 2).
    lt_bytes: u64,
    consecutive_timeouts: u32,
    last_rtt_sample_ns: Option<SimTime>,
    /// Time of the event being processed (for episode bookkeeping in helpers without `now`).
    last_event_ns: SimTime,
    /// RFC 3168 §6.1.2: at most one window reduction per window of data.
    ecn_recover_end: u64,
    cwr_pending: bool,
    window_control: WindowControl,
    /// With an external window: one past the highest byte sent when the last fast
    /// retransmission happened (the NewReno `recover` of that episode).
    ext_recover_end: Option<u64>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, app_limit: u64) -> Self {
        let iw = cfg.initial_window_segments as u64 * cfg.mss_bytes as u64;
        let cc = Aimd::new(iw, cfg.initial_ssthresh_bytes);
        let rto = RtoEstimator::new(cfg.min_rto_ns, cfg.initial_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns);
        TcpSender {
            peer_rwnd: cfg.rwnd_bytes,
            cfg,
            state: SenderState::Closed,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_limit,
            board: Scoreboard::default(),
            cc,
            rto,
            rto_deadline: None,
            syn_sent_ns: 0,
            dupacks: 0,
            in_recovery: false,
            recover_end: None,
            partial_acks: 0,
            recovery_point: 0,
            sack_blocked_until: 0,
            high_rxt_end: 0,
            rescue_rxt: None,
            pipe: 0,
            lt_bytes: 0,
            consecutive_timeouts: 0,
            last_rtt_sample_ns: None,
            last_event_ns: 0,
            ecn_recover_end: 0,
            cwr_pending: false,
            window_control: WindowControl::Congestion,
            ext_recover_end: None,
            stats: SenderStats::default(),
        }
    }

    // ---- observers -------------------------------------------------------------------

    pub fn state(&self) -> SenderState {
        self.state
    }
    /// The sending window: cwnd, or the window set from outside.
    pub fn cwnd(&self) -> u64 {
        match self.window_control {
            WindowControl::Congestion => self.cc.cwnd(),
            WindowControl::InFlight { bytes } | WindowControl::Quota { bytes, .. } => bytes,
        }
    }
    pub fn window_control(&self) -> WindowControl {
        self.window_control
    }
    fn external_window(&self) -> bool {
        self.window_control != WindowControl::Congestion
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
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn app_limit(&self) -> u64 {
        self.app_limit
    }
    /// Bytes the sender believes are in the network: SetPipe() during SACK recovery,
    /// otherwise snd_nxt - snd_una.
    pub fn inflight_bytes(&self) -> u64 {
        if self.in_recovery && self.cfg.sack() {
            self.pipe
        } else {
            self.snd_nxt - self.snd_una
        }
    }
    /// All application data has been sent and acknowledged.
    pub fn is_done(&self) -> bool {
        self.state == SenderState::Established && self.app_limit != u64::MAX && self.snd_una >= self.app_limit
    }

    /// The RTT sample taken since the last call, if any (for tracing).
    pub fn take_new_rtt_sample(&mut self) -> Option<SimTime> {
        self.last_rtt_sample_ns.take()
    }

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
        if wc != WindowControl::Congestion && self.in_recovery {
            self.end_recovery();
        }
        self.window_control = wc;
        self.send_allowed(now, out);
    }

    fn send_allowed(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        if self.in_recovery && self.cfg.sack() {
            self.sack_send(now, out);
        } else {
            self.try_send(now, out);
        }
    }

    // ---- events ----------------------------------------------------------------------

    /// Active open: send the SYN and start the timer with the initial RTO (RFC 6298 (2.1)).
    pub fn connect(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.state = SenderState::SynSent;
        self.syn_sent_ns = now;
        out.push(Segment { kind: PacketKind::Syn, seq: 0, len: 0, is_retx: false, ect: false, cwr: false });
        self.restart_timer(now);
    }

    /// SYN-ACK received: the connection is established and data may flow.
    pub fn on_syn_ack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != SenderState::SynSent {
            return;
        }
        self.state = SenderState::Established;
        if self.stats.syn_retransmits == 0 {
            self.take_rtt_sample(now - self.syn_sent_ns);
        } else {
            // RFC 6298 (5.7) and RFC 5681 §3.1: after a lost SYN, RTO >= 3 s and IW = 1 SMSS.
            self.rto.reinit_after_syn_loss(s_to_ns(3.0));
            self.cc.set_cwnd(self.cfg.mss_bytes as u64);
        }
        self.rto_deadline = None;
        self.try_send(now, out);
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: u64, sack: &SackBlocks, ece: bool, rwnd: u64, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        self.last_event_ns = now;
        let ack = ack.min(self.snd_max);
        let rwnd_changed = rwnd != self.peer_rwnd;
        self.peer_rwnd = rwnd;
        let newly_sacked = if self.cfg.sack() {
            let floor = ack.max(self.snd_una);
            self.board.mark_sacked(sack.iter().filter(|b| b.1 > floor))
        } else {
            0
        };
        if ack > self.snd_una {
            self.on_new_ack(now, ack, out);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            // RFC 5681 §2 duplicate ACK: outstanding data, same ACK, same window.
            // RFC 6675 §2: with SACK, a duplicate ACK must carry new SACK information.
            let dup = if self.cfg.sack() { newly_sacked > 0 } else { !rwnd_changed };
            if dup {
                self.on_dupack(now, out);
            }
        }
        if ece && self.cfg.ecn {
            self.on_ecn_echo();
        }
        if self.in_recovery && self.cfg.sack() {
            self.sack_send(now, out);
        } else {
            self.try_send(now, out);
        }
    }

    /// The retransmission timer may have expired. Returns the sequence number retransmitted on
    /// a timeout of an established connection, for spurious-timeout accounting.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) -> Option<u64> {
        if self.rto_deadline.is_none_or(|d| d > now) {
            return None;
        }
        match self.state {
            SenderState::Closed => None,
            SenderState::SynSent => {
                self.stats.syn_retransmits += 1;
                self.rto.back_off();
                self.syn_sent_ns = now;
                out.push(Segment { kind: PacketKind::Syn, seq: 0, len: 0, is_retx: true, ect: false, cwr: false });
                self.restart_timer(now);
                None
            }
            SenderState::Established => self.on_timeout(now, out),
        }
    }

    // ---- ACK processing ----------------------------------------------------------------

    fn on_new_ack(&mut self, now: SimTime, ack: u64, out: &mut Vec<Segment>) {
        let acked = ack - self.snd_una;
        let info = self.board.ack_to(ack);
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        if let Some(sent) = info.rtt_sample_sent_ns {
            self.take_rtt_sample(now - sent);
        }
        self.consecutive_timeouts = 0;
        self.lt_bytes = 0;
        if !self.in_recovery && ack >= self.recover_end.unwrap_or(0) {
            self.close_episode(now);
        }
        let mss = self.cfg.mss_bytes as u64;
        let mut restart = true;
        if self.external_window() {
            // Window set from outside: no growth. A partial ACK of a fast retransmission
            // points at the next hole: resend it at once (RFC 6582 §3.2 step 4 without the
            // window deflation), so several losses in one flight cost one RTT each, not an RTO.
            self.dupacks = 0;
            match self.ext_recover_end {
                Some(r) if ack < r => {
                    self.retransmit_first(now, out);
                }
                _ => self.ext_recover_end = None,
            }
        } else if self.in_recovery {
            match self.cfg.recovery {
                Recovery::Reno => {
                    // RFC 5681 §3.2 step 6: the first ACK of new data deflates the window.
                    self.cc.set_cwnd(self.cc.ssthresh());
                    self.end_recovery();
                }
                Recovery::NewReno => {
                    if ack >= self.recover_end.unwrap_or(0) {
                        // RFC 6582 §3.2 step 3, full ACK, option (1):
                        // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
                        let flight = self.snd_max - self.snd_una;
                        self.cc.set_cwnd(self.cc.ssthresh().min(flight.max(mss) + mss));
                        self.end_recovery();
                    } else {
                        // RFC 6582 §3.2 step 4, partial ACK: retransmit the first unacknowledged
                        // segment, deflate by the amount acked, add back one SMSS if >= SMSS.
                        self.retransmit_first(now, out);
                        let mut cwnd = self.cc.cwnd().saturating_sub(acked);
                        if acked >= mss {
                            cwnd += mss;
                        }
                        self.cc.set_cwnd(cwnd.max(mss));
                        self.partial_acks += 1;
                        // RFC 6582 §4: Impatient restarts the timer on the first partial ACK
                        // only; Slow-but-Steady on every partial ACK.
                        restart = self.partial_acks == 1 || self.cfg.newreno_timer == NewRenoTimer::SlowButSteady;
                    }
                }
                Recovery::Sack => {
                    // RFC 6675 §5: a cumulative ACK resets DupAcks; recovery ends once the ACK
                    // covers RecoveryPoint. cwnd stays at the ssthresh set on entry.
                    self.dupacks = 0;
                    if ack >= self.recovery_point {
                        self.end_recovery();
                    }
                }
            }
        } else {
            self.dupacks = 0;
            // RFC 5681 §3.1: slow start or congestion avoidance.
            self.cc.on_ack(acked, self.cfg.mss_bytes);
        }
        if self.snd_una == self.snd_max {
            // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer.
            self.rto_deadline = None;
        } else if restart {
            // RFC 6298 (5.3): restart the timer on an ACK of new data.
            self.restart_timer(now);
        }
    }

    fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        let thresh = self.cfg.dupack_threshold;
        if self.external_window() {
            if self.dupacks == thresh {
                // The DupThresh-th duplicate ACK retransmits the missing segment (RFC 5681 §3.2
                // step 2 without its window changes); counted as a fast recovery.
                self.retransmit_first(now, out);
                self.ext_recover_end = Some(self.snd_max);
                self.stats.fast_recoveries += 1;
            }
            return;
        }
        match self.cfg.recovery {
            Recovery::Reno | Recovery::NewReno => {
                if self.in_recovery {
                    // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
                    self.cc.set_cwnd(self.cc.cwnd() + self.cfg.mss_bytes as u64);
                } else if self.dupacks == thresh {
                    // RFC 6582 §3.2 step 2: enter only if the ACK covers more than `recover`.
                    let allowed =
                        self.cfg.recovery == Recovery::Reno || self.recover_end.is_none_or(|r| self.snd_una > r);
                    if allowed {
                        self.enter_fast_recovery(now, out);
                    }
                }
            }
            Recovery::Sack => {
                let lost_front = {
                    self.board.update_loss(thresh, self.cfg.mss_bytes, self.high_rxt_end);
                    !self.board.is_empty() && self.board.get(0).lost
                };
                // RFC 6675 §5: enter on DupThresh duplicate ACKs or IsLost(HighACK + 1), unless
                // an RTO's RecoveryPoint has not yet been reached (§5.1).
                if !self.in_recovery
                    && self.snd_una >= self.sack_blocked_until
                    && (self.dupacks >= thresh || lost_front)
                {
                    self.enter_sack_recovery(now, out);
                }
            }
        }
    }

    /// RFC 5681 §3.2 steps 2–3 (and RFC 6582 §3.2 step 2 for NewReno).
    fn enter_fast_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let flight = self.snd_max - self.snd_una;
        // Step 2: ssthresh = max(FlightSize / 2, 2*SMSS), excluding Limited Transmit data.
        let ssthresh = self.cc.on_congestion_event(flight.saturating_sub(self.lt_bytes), self.cfg.mss_bytes);
        self.recover_end = Some(self.snd_max);
        self.open_episode(EpisodeKind::FastRecovery, now);
        self.retransmit_first(now, out);
        // Step 3: cwnd = ssthresh + 3*SMSS, inflated for the segments that left the network.
        self.cc.set_cwnd(ssthresh + self.cfg.dupack_threshold as u64 * self.cfg.mss_bytes as u64);
        self.in_recovery = true;
        self.partial_acks = 0;
        self.stats.fast_recoveries += 1;
        self.ecn_recover_end = self.snd_max;
    }

    /// RFC 6675 §5 steps 4.1–4.4.
    fn enter_sack_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let flight = self.snd_max - self.snd_una;
        // (4.1) RecoveryPoint = HighData.
        self.recovery_point = self.snd_max;
        // (4.2) ssthresh = cwnd = FlightSize / 2 (with RFC 5681's 2*SMSS floor).
        let ssthresh = self.cc.on_congestion_event(flight.saturating_sub(self.lt_bytes), self.cfg.mss_bytes);
        self.cc.set_cwnd(ssthresh);
        self.in_recovery = true;
        self.rescue_rxt = None;
        self.high_rxt_end = self.snd_una;
        self.stats.fast_recoveries += 1;
        self.open_episode(EpisodeKind::FastRecovery, now);
        self.ecn_recover_end = self.snd_max;
        // (4.3) Retransmit the first segment presumed lost (HighACK + 1).
        self.retransmit_first(now, out);
        // (4.4) Send more while cwnd - pipe >= 1 SMSS.
        self.sack_send(now, out);
    }

    fn open_episode(&mut self, kind: EpisodeKind, now: SimTime) {
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

    fn end_recovery(&mut self) {
        if self.in_recovery {
            self.close_episode(self.last_event_ns);
        }
        self.in_recovery = false;
        self.dupacks = 0;
        self.partial_acks = 0;
    }

    /// RFC 3168 §6.1.2: halve the window at most once per window of data, then set CWR.
    /// ACKs up to and including the reduction's snd_max still echo the old mark (the receiver
    /// has not yet seen CWR), so only an ACK beyond it may trigger a new reduction.
    fn on_ecn_echo(&mut self) {
        if self.in_recovery || self.snd_una <= self.ecn_recover_end {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        let ssthresh = self.cc.on_congestion_event(flight, self.cfg.mss_bytes);
        self.cc.set_cwnd(ssthresh);
        self.ecn_recover_end = self.snd_max;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// RFC 6298 (5.4)–(5.6) and RFC 5681 §3.1: retransmission timeout.
    fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) -> Option<u64> {
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return None;
        }
        self.stats.timeouts += 1;
        self.last_event_ns = now;
        if self.external_window() {
            return Some(self.on_timeout_external(now, out));
        }
        self.end_recovery();
        // Back-to-back timeouts of the same data belong to one episode.
        if self.consecutive_timeouts == 0 {
            self.open_episode(EpisodeKind::Timeout, now);
        }
        let flight = self.snd_max - self.snd_una;
        self.cc.on_timeout(flight, self.cfg.mss_bytes, self.consecutive_timeouts == 0);
        self.consecutive_timeouts += 1;
        self.lt_bytes = 0;
        // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: after an RTO, recover = RecoveryPoint = HighData.
        self.recover_end = Some(self.snd_max);
        self.sack_blocked_until = self.snd_max;
        if self.cfg.sack() {
            // RFC 2018 §8: forget SACK state after a timeout.
            self.board.clear_sacked();
            self.high_rxt_end = self.snd_una;
            self.rescue_rxt = None;
        }
        self.ecn_recover_end = self.snd_max;
        // Go back N: resend from the first unacknowledged byte, in slow start.
        self.snd_nxt = self.snd_una;
        self.rto.back_off();
        let seq = self.snd_una;
        self.try_send(now, out);
        // (5.6) start the timer with the backed-off RTO.
        self.restart_timer(now);
        Some(seq)
    }

    /// Timeout with the window set from outside. The standard timeout response (window
    /// collapse, go-back-N) is off; the RFC 6298 timer stays as the last resort for what
    /// duplicate ACKs cannot repair: a lost retransmission, or a lost tail segment with no
    /// later segment to raise duplicate ACKs. It resends the first unacknowledged segment,
    /// keeps the window, and backs off (RFC 6298 (5.5)-(5.6)).
    fn on_timeout_external(&mut self, now: SimTime, out: &mut Vec<Segment>) -> u64 {
        self.consecutive_timeouts += 1;
        self.dupacks = 0;
        self.rto.back_off();
        self.retransmit_first(now, out);
        self.ext_recover_end = Some(self.snd_max);
        self.restart_timer(now);
        self.snd_una
    }

    /// Charges `len` bytes against a send quota.
    fn charge_quota(&mut self, len: u64) {
        if let WindowControl::Quota { left, .. } = &mut self.window_control {
            *left = left.saturating_sub(len);
        }
    }

    /// Whether a quota leaves room for `len` more bytes.
    fn quota_allows(&self, len: u64) -> bool {
        match self.window_control {
            WindowControl::Quota { left, .. } => left >= len,
            _ => true,
        }
    }

    // ---- transmission ----------------------------------------------------------------

    /// Window-limited transmission outside SACK recovery: go-back-N retransmissions below
    /// snd_max first, then new data.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        let mss = self.cfg.mss_bytes as u64;
        // RFC 3042: each of the first DupThresh-1 duplicate ACKs may release one new segment
        // beyond cwnd.
        let lt_allowance = if !self.in_recovery && self.cfg.limited_transmit && self.dupacks < self.cfg.dupack_threshold
        {
            self.dupacks as u64 * mss
        } else {
            0
        };
        loop {
            let window = match self.window_control {
                WindowControl::Congestion => self.cc.cwnd() + lt_allowance,
                WindowControl::InFlight { bytes } => bytes,
                WindowControl::Quota { .. } => u64::MAX,
            };
            let limit = self.snd_una + window.min(self.peer_rwnd);
            if self.snd_nxt < self.snd_max {
                let Some(i) = self.board.index_of(self.snd_nxt) else { break };
                let seg = *self.board.get(i);
                if seg.sacked {
                    self.snd_nxt = seg.end;
                    continue;
                }
                if (seg.end > limit && self.snd_nxt > self.snd_una) || !self.quota_allows(seg.end - seg.start) {
                    break;
                }
                self.resend(i, now, out);
                self.snd_nxt = seg.end;
            } else {
                let avail = self.app_limit.saturating_sub(self.snd_max);
                let mut len = avail.min(mss);
                if len == 0 || !self.quota_allows(len) {
                    break;
                }
                if self.snd_max + len > limit {
                    // Sender-side silly window avoidance: only a full segment, unless nothing
                    // is outstanding and the window allows a part of one.
                    if self.snd_max == self.snd_una && limit > self.snd_max {
                        len = limit - self.snd_max;
                    } else {
                        break;
                    }
                }
                if self.dupacks > 0 && !self.in_recovery && self.snd_max + len > self.snd_una + self.cc.cwnd() {
                    self.lt_bytes += len;
                }
                self.send_new(len as u32, now, out);
            }
        }
    }

    /// RFC 6675 §5 (C): while cwnd - pipe >= 1 SMSS, send what NextSeg() returns.
    fn sack_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let mss = self.cfg.mss_bytes as u64;
        loop {
            self.pipe = self.board.update_loss(self.cfg.dupack_threshold, self.cfg.mss_bytes, self.high_rxt_end);
            if self.cc.cwnd() < self.pipe + mss {
                break;
            }
            if !self.next_seg(now, out) {
                break;
            }
        }
        self.pipe = self.board.update_loss(self.cfg.dupack_threshold, self.cfg.mss_bytes, self.high_rxt_end);
    }

    /// RFC 6675 §4 NextSeg(), rules (1)–(4). Sends the chosen segment; false if none.
    fn next_seg(&mut self, now: SimTime, out: &mut Vec<Segment>) -> bool {
        let n = self.board.len();
        // (1) the first unSACKed S2 > HighRxt with IsLost(S2).
        let first_after_rxt =
            (0..n).find(|&i| self.board.get(i).start >= self.high_rxt_end && !self.board.get(i).sacked);
        if let Some(i) = first_after_rxt.and_then(|i0| {
            (i0..n).find(|&i| {
                let s = self.board.get(i);
                !s.sacked && s.lost
            })
        }) {
            let end = self.board.get(i).end;
            self.resend(i, now, out);
            self.high_rxt_end = end;
            return true;
        }
        // (2) new data, if the receiver window allows.
        let avail = self.app_limit.saturating_sub(self.snd_max);
        let len = avail.min(self.cfg.mss_bytes as u64);
        if len > 0 && self.snd_max + len <= self.snd_una + self.peer_rwnd {
            self.send_new(len as u32, now, out);
            return true;
        }
        // (3) the first unSACKed S3 > HighRxt, lost or not.
        if let Some(i) = first_after_rxt {
            let end = self.board.get(i).end;
            self.resend(i, now, out);
            self.high_rxt_end = end;
            return true;
        }
        // (4) one rescue retransmission per recovery of the highest unSACKed segment;
        // HighRxt is not updated.
        if self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            if let Some(i) = (0..n).rev().find(|&i| !self.board.get(i).sacked) {
                self.rescue_rxt = Some(self.recovery_point);
                self.resend(i, now, out);
                return true;
            }
        }
        false
    }

    fn retransmit_first(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.board.is_empty() {
            let end = self.board.get(0).end;
            self.resend(0, now, out);
            self.high_rxt_end = self.high_rxt_end.max(end);
        }
    }

    fn resend(&mut self, i: usize, now: SimTime, out: &mut Vec<Segment>) {
        let seg = self.board.mark_resent(i, now);
        self.charge_quota(seg.len());
        self.stats.retransmits += 1;
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
        });
        self.ensure_timer(now);
    }

    fn send_new(&mut self, len: u32, now: SimTime, out: &mut Vec<Segment>) {
        let seq = self.snd_max;
        self.charge_quota(len as u64);
        self.board.push_new(seq, seq + len as u64, now);
        self.snd_max += len as u64;
        self.snd_nxt = self.snd_max;
        self.stats.segments_sent += 1;
        let cwr = std::mem::take(&mut self.cwr_pending);
        out.push(Segment { kind: PacketKind::Data, seq, len, is_retx: false, ect: self.cfg.ecn, cwr });
        self.ensure_timer(now);
    }

    // ---- timer -----------------------------------------------------------------------

    fn take_rtt_sample(&mut self, r_ns: SimTime) {
        self.rto.sample(r_ns);
        self.last_rtt_sample_ns = Some(r_ns);
        self.stats.rtt_sum_ns += r_ns as u128;
        self.stats.rtt_samples += 1;
    }

    fn restart_timer(&mut self, now: SimTime) {
        let rto = self.rto.rto_ns();
        self.stats.rto_sum_ns += rto as u128;
        self.stats.rto_count += 1;
        self.rto_deadline = Some(now + rto);
    }

    /// RFC 6298 (5.1): a data segment was sent; start the timer if it is not running.
    fn ensure_timer(&mut self, now: SimTime) {
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
    }
}

#[cfg(test)]
mod external_window_tests {
    use super::*;

    const MSS: u64 = 1000;

    /// An established NewReno sender with a bulk source whose window is `wc` from the start.
    fn sender_with(wc: WindowControl) -> (TcpSender, Vec<Segment>) {
        let cfg = TcpConfig { recovery: Recovery::NewReno, mss_bytes: MSS as u32, ..TcpConfig::default() };
        let mut s = TcpSender::new(cfg, u64::MAX);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        s.set_window_control(0, wc, &mut out);
        out.clear();
        s.on_syn_ack(10, &mut out);
        (s, out)
    }

    fn ack(s: &mut TcpSender, now: SimTime, ack: u64) -> Vec<Segment> {
        let mut out = Vec::new();
        s.on_ack(now, ack, &SackBlocks::default(), false, 1 << 30, &mut out);
        out
    }

    #[test]
    fn quota_sends_whole_segments_until_spent_and_refills_on_update() {
        let (mut s, out) = sender_with(WindowControl::Quota { bytes: 3500, left: 3500 });
        assert_eq!(out.len(), 3);
        assert_eq!(s.window_control(), WindowControl::Quota { bytes: 3500, left: 500 });
        assert!(ack(&mut s, 20, 3 * MSS).is_empty(), "ACKs do not refill a quota");
        let mut out = Vec::new();
        s.set_window_control(30, WindowControl::Quota { bytes: 2000, left: 2000 }, &mut out);
        assert_eq!(out.iter().map(|g| g.seq).collect::<Vec<_>>(), vec![3 * MSS, 4 * MSS]);
    }

    #[test]
    fn in_flight_window_caps_outstanding_data_and_acks_do_not_grow_it() {
        let (mut s, out) = sender_with(WindowControl::InFlight { bytes: 4 * MSS });
        assert_eq!(out.len(), 4);
        for k in 1..=20 {
            let out = ack(&mut s, 20 + k, k * MSS);
            assert_eq!(out.len(), 1, "one ACKed segment releases one");
        }
        assert_eq!(s.cwnd(), 4 * MSS);
    }

    #[test]
    fn three_dupacks_retransmit_without_touching_the_window() {
        let (mut s, _) = sender_with(WindowControl::InFlight { bytes: 8 * MSS });
        assert!(ack(&mut s, 20, MSS).len() == 1);
        for _ in 0..2 {
            assert!(ack(&mut s, 21, MSS).is_empty());
        }
        let out = ack(&mut s, 22, MSS);
        assert_eq!(out.len(), 1);
        assert!(out[0].is_retx && out[0].seq == MSS);
        assert_eq!(s.cwnd(), 8 * MSS);
        assert!(!s.in_recovery());
        assert!(ack(&mut s, 23, MSS).is_empty(), "one retransmission per loss");
    }

    #[test]
    fn partial_ack_after_a_fast_retransmission_resends_the_next_hole() {
        // Segments 1 and 4 lost out of 0..8.
        let (mut s, _) = sender_with(WindowControl::InFlight { bytes: 8 * MSS });
        assert_eq!(ack(&mut s, 20, MSS).len(), 1, "segment 8");
        for t in 21..=22 {
            assert!(ack(&mut s, t, MSS).is_empty());
        }
        assert_eq!(ack(&mut s, 23, MSS)[0].seq, MSS, "fast retransmission of segment 1");
        // The retransmission fills the first hole; the ACK stops at the second.
        let out = ack(&mut s, 24, 4 * MSS);
        assert!(out.iter().any(|g| g.is_retx && g.seq == 4 * MSS), "{out:?}");
        assert_eq!(s.cwnd(), 8 * MSS);
        // A full ACK ends the episode: later ACKs only release new data.
        let out = ack(&mut s, 25, 9 * MSS);
        assert!(out.iter().all(|g| !g.is_retx));
    }

    #[test]
    fn timeout_resends_only_the_first_segment_and_keeps_the_window() {
        let (mut s, out) = sender_with(WindowControl::InFlight { bytes: 5 * MSS });
        assert_eq!(out.len(), 5);
        let deadline = s.rto_deadline().expect("timer runs");
        let mut out = Vec::new();
        assert_eq!(s.on_timer(deadline, &mut out), Some(0));
        assert_eq!(out.len(), 1);
        assert!(out[0].is_retx && out[0].seq == 0);
        assert_eq!(s.cwnd(), 5 * MSS);
        assert!(s.rto_deadline().unwrap() > deadline + s.rto_ns() / 2, "timer backed off and restarted");
    }

    #[test]
    fn handing_control_back_resumes_congestion_control() {
        let (mut s, _) = sender_with(WindowControl::InFlight { bytes: 10 * MSS });
        let mut out = Vec::new();
        s.set_window_control(20, WindowControl::Congestion, &mut out);
        assert_eq!(s.cwnd(), 3 * MSS, "the initial window of the congestion controller");
    }

    #[test]
    fn app_data_is_sent_without_counting_a_duplicate_ack() {
        let cfg = TcpConfig { recovery: Recovery::NewReno, mss_bytes: MSS as u32, ..TcpConfig::default() };
        let mut s = TcpSender::new(cfg, 0);
        let mut out = Vec::new();
        s.connect(0, &mut out);
        s.on_syn_ack(10, &mut out);
        out.clear();
        for k in 0..5 {
            s.on_app_data(20 + k, MSS, &mut out);
        }
        assert_eq!(out.len(), 3, "initial window of 3 segments");
        assert_eq!(s.stats.fast_recoveries, 0);
    }
}

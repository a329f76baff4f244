//! Per-flow TCP parameters. Every knob the papers vary is here and reachable from a scenario.

use serde::{Deserialize, Serialize};

use super::cc::{Algorithm, CcSettings};
pub use super::profile::{Profile, ProfileKeys};
use crate::engine::time::SimTime;

/// Loss-recovery algorithm, independent of window growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// RFC 5681 §3.2: fast recovery ends on the first ACK of new data.
    Reno,
    /// RFC 6582: stays in fast recovery across partial ACKs until `recover` is acknowledged.
    NewReno,
    /// RFC 6675: SACK scoreboard, pipe and NextSeg.
    Sack,
}

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// How much loss recovery sends per ACK (RFC 6937). PRR applies to SACK recovery; Reno and
/// NewReno recovery keep their own rules whatever this says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryRate {
    /// RFC 6675 (4.2): cwnd = ssthresh at entry, send while cwnd - pipe >= 1 SMSS.
    #[default]
    Classic,
    /// RFC 6937 PRR with the slow-start reduction bound.
    PrrSsrb,
    /// RFC 6937 PRR with the conservative reduction bound.
    PrrCrb,
    /// Linux dialect: PRR as `tcp_cwnd_reduction` (net/ipv4/tcp_input.c) bounds it below
    /// ssthresh: MAX(prr_delivered - prr_out, DeliveredData), one SMSS more only on an ACK
    /// that advances snd.una and marks nothing newly lost.
    PrrLinux,
}

impl RecoveryRate {
    pub fn name(self) -> &'static str {
        match self {
            RecoveryRate::Classic => "classic",
            RecoveryRate::PrrSsrb => "prr-ssrb",
            RecoveryRate::PrrCrb => "prr-crb",
            RecoveryRate::PrrLinux => "prr-linux",
        }
    }
}

/// Congestion controller (window growth), independent of loss recovery: one of
/// `cc::ALGORITHMS` (or a test's), named by `tcp.cc`. Its settings are in
/// `TcpConfig::cc_settings`.
#[derive(Clone, Copy)]
pub struct CcKind(pub &'static dyn Algorithm);

impl CcKind {
    /// RFC 5681 slow start and congestion avoidance (AIMD).
    pub const RENO: CcKind = CcKind(&super::cc::RENO);
    /// RFC 9438 CUBIC.
    pub const CUBIC: CcKind = CcKind(&super::cc::CUBIC);

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    pub fn algorithm(self) -> &'static dyn Algorithm {
        self.0
    }
}

impl Default for CcKind {
    fn default() -> Self {
        CcKind::RENO
    }
}

impl PartialEq for CcKind {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for CcKind {}

impl std::fmt::Debug for CcKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How the sender decides that a segment is lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossDetection {
    /// Duplicate ACKs (RFC 5681 §3.2, RFC 6582) or RFC 6675 IsLost() with SACK.
    #[default]
    Dupthresh,
    /// RFC 8985 RACK-TLP: time-based marking and the tail loss probe. SACK recovery only.
    RackTlp,
}

impl LossDetection {
    pub fn name(self) -> &'static str {
        match self {
            LossDetection::Dupthresh => "dupthresh",
            LossDetection::RackTlp => "rack-tlp",
        }
    }
}

/// RFC 6582 §4: when a partial ACK restarts the retransmit timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewRenoTimer {
    /// Only the first partial ACK of a recovery restarts the timer.
    Impatient,
    /// Every partial ACK restarts the timer.
    SlowButSteady,
}

/// Window growth in congestion avoidance; RFC 5681 §3.1 allows both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaGrowth {
    /// cwnd += SMSS once a full cwnd of bytes has been acknowledged (RFC 5681 §3.1, the
    /// RECOMMENDED byte counting; Linux `tcp_cong_avoid_ai` counts packets the same way).
    Bytes,
    /// cwnd += SMSS*SMSS/cwnd per ACK of new data (RFC 5681 §3.1 eq. (3); ns-3
    /// `TcpNewReno::CongestionAvoidance`, ns-2 `TcpAgent::opencwnd` with `windowOption_` 1).
    /// With delayed ACKs it grows half as fast.
    PerAck,
    /// As `per-ack`, without rounding: the fraction of a byte that `per-ack` drops is carried
    /// to the next ACK, so cwnd grows as ns-2's floating-point `cwnd_ += 1/cwnd_` packets
    /// (`TcpAgent::opencwnd`, `windowOption_` 1). ns-2 dialect.
    PerAckExact,
}

/// ssthresh after a retransmission timeout: which amount is halved, and when ssthresh is
/// kept. Every rule keeps the 2*SMSS floor of RFC 5681 §3.1 eq. (4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoSsthresh {
    /// RFC 5681 §3.1 eq. (4) with FlightSize = snd_max - snd_una, everything not
    /// cumulatively acknowledged; kept on a repeated timeout. hosim before profiles.
    OutstandingHalf,
    /// RFC 5681 §3.1 eq. (4) with FlightSize estimated as RFC 6675 §4 pipe: outstanding data
    /// less what the receiver has signalled it holds (SACKed, or one SMSS per duplicate ACK
    /// without SACK) and less what is presumed lost; kept on a repeated timeout. ns-3
    /// `TcpSocketBase::ReTxTimeout` (`BytesInFlight()`).
    PipeHalf,
    /// ns-2 `TcpAgent::slowdown(CLOSE_SSTHRESH_HALF)` from `timeout()`: half of
    /// min(cwnd, rwnd), cwnd without fast-recovery inflation, on every timeout (so a repeated
    /// timeout leaves 2*SMSS), in whole segments (`ssthresh_` is an int: `(int) halfwin`),
    /// at least 2.
    CwndHalf,
    /// Linux `tcp_enter_loss`: a timeout during fast recovery keeps the recovery's ssthresh;
    /// otherwise `tcp_reno_ssthresh`, half of cwnd; kept on a repeated timeout.
    KeepInRecovery,
}

/// How SACK recovery counts the data still in the network (RFC 6675 §4 SetPipe()).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SackPipe {
    /// RFC 6675 §4: IsLost() presumes a hole lost once DupThresh segments (or more than
    /// (DupThresh - 1) * SMSS bytes) above it are SACKed, and SetPipe() leaves it out of pipe.
    #[default]
    IsLost,
    /// Pipe = unacknowledged bytes not SACKed, plus every retransmission below HighRxt: no hole
    /// is presumed lost, so each stays "in flight" until it is retransmitted. The in-flight
    /// estimate of pre-RFC 3517 SACK senders and of OPNET's SACK TCP as its documentation
    /// describes it ("the amount of in-flight data based on selective acknowledgements";
    /// docs/tcp.md). After halving, a loss of more than about half the window leaves pipe
    /// above cwnd: nothing more is sent until the retransmission timer fires.
    SackedOnly,
    /// ns-2 dialect: ns-2 Sack1's `pipe_` counter instead of SetPipe(): at entry the data
    /// outstanding less DupThresh segments (`dupack_action` sets `pipe_` to `maxseq_` less
    /// `highest_ack_` less `numdupacks(cwnd_)`; the fast retransmit is not counted), one
    /// segment less for every ACK during recovery and one more for a partial ACK
    /// (`Sack1TcpAgent::recv`, `partial_ack_` 0: `--pipe_` twice), one more per segment sent
    /// (`send_much`: `pipe_++`). Entry on DupThresh duplicate ACKs only, as ns-2.
    Ns2Counter,
}

impl SackPipe {
    pub fn name(self) -> &'static str {
        match self {
            SackPipe::IsLost => "is-lost",
            SackPipe::SackedOnly => "sacked-only",
            SackPipe::Ns2Counter => "ns2-counter",
        }
    }
}

/// RFC 6582 §3.2 step 2: whether DupThresh duplicate ACKs may start a new fast recovery
/// once the cumulative ACK has reached `recover`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewRenoReentry {
    /// Only if the ACK covers more than `recover` (RFC 6582 §3.2 step 2, the basic rule;
    /// ns-2 `bugFix_`, Linux holds CA_Recovery until something above `high_seq` is ACKed).
    BeyondRecover,
    /// Also if the ACK equals `recover` + 1, i.e. acknowledges exactly the data outstanding at
    /// the last entry (ns-3 `TcpSocketBase::DupAck`: `m_highRxAckMark >= m_recover`).
    AtRecover,
}

// ---- ns-2 dialect: ns-2.35's own loss response (`profile = "ns2"`) --------------------------

/// Whether Reno's DupThresh-th duplicate ACK may start a fast retransmit while the ACK has
/// not passed the data outstanding at the last fast retransmit or timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RenoReentry {
    /// Every DupThresh-th duplicate ACK (RFC 5681 §3.2 step 2: Reno keeps no `recover`).
    Always,
    /// ns-2 `RenoTcpAgent::dupack_action` with `bug_fix_` (default true): only once the ACK
    /// covers more than `recover_`, the highest segment sent at the last fast retransmit or
    /// timeout (`recover_ = maxseq_` in `dupack_action` and `RenoTcpAgent::timeout`);
    /// otherwise the duplicate ACKs neither retransmit nor change the window.
    BeyondRecover,
}

/// What the go-back-N after a retransmission timeout resends, with SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GoBackN {
    /// Every unacknowledged segment but those that ACKs arriving after the timeout SACK (the
    /// SACK state held before it is discarded, RFC 2018 §8).
    SkipSacked,
    /// ns-2.35 `Sack1TcpAgent`: every segment from snd_una on, SACKed or not. Its timeout
    /// clears the scoreboard, and outside fast recovery every new ACK clears it again
    /// (`recv`: `scb_->ClearScoreBoard()`), so `send_much` finds no hole to send
    /// (`GetNextRetran` -1) and sends `t_seqno_++` in order: the receiver gets again what it
    /// had reported. Until the first ACK of new data after the timeout, duplicate ACKs are
    /// not counted (`timeout_` TRUE): no Limited Transmit, no fast retransmit. SACK only.
    All,
}

/// What a timeout of the SYN leaves for the data that follows the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynTimeout {
    /// RFC 6298 (5.7): the RTO is re-initialized to 3 s once the handshake completes; RFC
    /// 5681 §3.1: the initial window is one segment; ssthresh keeps its initial value.
    Rfc6298,
    /// ns-2.35's one-way TCP, where the SYN is packet 0 and its timeout is any timeout
    /// (`TcpAgent::timeout`, tcp/tcp.cc): `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`
    /// halves the one-packet window to `(int) 0.5`, which the floor makes ssthresh_ = 2
    /// packets; `bugfix_ss_` makes the initial window one packet (`wnd_init_ = 1`); the timer
    /// stays backed off (`t_backoff_` 2, `t_rtxcur_` the initial RTO) until the first RTT
    /// sample, as the retransmitted SYN is not timed: no 3 s re-initialization.
    Ns2,
}

/// The window a fast retransmit leaves (RFC 5681 §3.2 step 2, RFC 6675 (4.2)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FastRetransmitWindow {
    /// ssthresh = max(FlightSize / 2, 2*SMSS) (RFC 5681 §3.2 eq. (4)); cwnd = ssthresh (SACK)
    /// or ssthresh + DupThresh*SMSS (Reno, NewReno).
    FlightHalf,
    /// ns-2 `TcpAgent::slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` with `precision_reduce_`:
    /// W = min(cwnd, rwnd); cwnd = W / 2 with no floor (the sender sends only whole segments
    /// of it: 1.5 segments send one); ssthresh = max(whole segments of W / 2, 2) segments
    /// (`ssthresh_` is an int). Reno and NewReno add DupThresh*SMSS of inflation
    /// (`dupwnd_`).
    CwndHalf,
}

/// cwnd when NewReno leaves fast recovery on a full ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewRenoExit {
    /// RFC 6582 §3.2 step 3 option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS).
    Rfc6582,
    /// ns-2 `NewRenoTcpAgent::recv` with `exit_recovery_fix_` 0: drop the inflation
    /// (`dupwnd_ = 0`) and keep cwnd as it is, whatever is in flight (a burst may follow).
    /// cwnd is the window set at entry less what partial ACKs deflated beyond the inflation.
    KeepWindow,
}

/// Which segments give RTT samples (RFC 6298 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RttSampling {
    /// Every ACK that advances snd_una samples the newest never-retransmitted segment it
    /// covers (RFC 6298 §3 allows several samples per RTT; as with RFC 7323 timestamps).
    EveryAck,
    /// ns-2 without `timestamps_` (`TcpAgent::output`, `rtt_active_`, `rtt_seq_`, `rtt_ts_`):
    /// one segment is timed at a time, the first new one sent while none is; its ACK gives
    /// the sample, and the timeout and the fast retransmit (`reset_rtx_timer`) stop the timing.
    /// The RTO backoff ends only with a sample. The BSD scheme (one sample per RTT).
    TimedSegment,
}

/// What starts SACK loss recovery (RFC 6675 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SackEntry {
    /// DupThresh duplicate ACKs or IsLost(HighACK + 1) (RFC 6675 §5).
    DupthreshOrIsLost,
    /// Only the DupThresh-th duplicate ACK carrying new SACK information: ns-2
    /// `Sack1TcpAgent::recv` (`++dupacks_ == numdupacks(cwnd_)` after
    /// `ScoreBoard::CheckUpdate()`).
    Dupacks,
}

/// Which segments SACK recovery retransmits (RFC 6675 §4 NextSeg()).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SackRetransmit {
    /// NextSeg() rules (1)-(4): lost holes, new data, an unSACKed segment below the highest
    /// SACKed octet (rule (3) meets (1.a) and (1.b)), rescue.
    NextSeg,
    /// ns-3.44 `TcpTxBuffer::NextSeg` (src/internet/model/tcp-tx-buffer.cc): rules (1) and
    /// (2), then rule (3) without (1.b): the first unSACKed segment not yet retransmitted,
    /// above every SACK too (ns-3 has no rule (4); `rescue_retransmission` is off in `ns3`).
    NextSegAnyUnsacked,
    /// ns-2 `Sack1TcpAgent::send_much` with `ScoreBoardRQ::GetNextRetran`: every hole below
    /// SACKed data, in order, once, lost by IsLost() or not; then new data; never the
    /// highest unSACKed segment (no rule (3)) and no rescue retransmission (no rule (4)).
    HolesBelowSacked,
    /// Linux `tcp_xmit_retransmit_queue` (net/ipv4/tcp_output.c): only segments marked lost
    /// (`TCPCB_LOST`: RACK's or IsLost()'s marks, rule (1)); then new data (rule (2)); a
    /// segment not marked lost is never resent, even when the receiver window or the
    /// application leaves nothing new to send (no rule (3), no rescue: the older kernels' forward
    /// retransmission, `tcp_can_forward_retransmit`, is gone).
    LostOnly,
}

// ---- Linux dialect ----------------------------------------------------------------------
// Choices where Linux departs from the RFCs; the `linux` profile selects them (docs/tcp.md,
// "Linux dialect").

/// When the retransmission timer is restarted besides RFC 6298 (5.1) and (5.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoRearm {
    /// RFC 6298 (5.3): only an ACK of new data restarts a running timer.
    #[default]
    NewAck,
    /// Also a retransmission of the first unacknowledged segment restarts it with the current
    /// RTO: Linux `tcp_xmit_retransmit_queue` (net/ipv4/tcp_output.c) calls
    /// `tcp_reset_xmit_timer(ICSK_TIME_RETRANS, icsk_rto)` when the segment it resent is the
    /// head of the retransmission queue.
    HeadRetransmit,
}

/// How cwnd grows in slow start per ACK of new data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlowStartGrowth {
    /// RFC 5681 §3.1 eq. (2): cwnd += min(N, SMSS), N the bytes the ACK acknowledges.
    #[default]
    Smss,
    /// cwnd += N, up to ssthresh, the rest of N counted by congestion avoidance: Linux
    /// `tcp_slow_start` (net/ipv4/tcp_cong.c) grows cwnd by the packets acked, two per
    /// delayed ACK.
    Acked,
}

/// The retransmission timeout computed from the RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoFormula {
    /// RFC 6298 (2.2)-(2.4): RTO = SRTT + max(G, 4 RTTVAR), at least the minimum RTO.
    #[default]
    Rfc6298,
    /// Linux `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c): RTO = SRTT +
    /// rttvar, where rttvar is the largest 4 mdev of the last round trip, floored at the
    /// minimum RTO (`mdev_max_us` starts each round at `tcp_rto_min`), and decays by a quarter
    /// of its excess per round; mdev falls with gain 1/32 on samples below SRTT. About
    /// SRTT + max(4 RTTVAR, 200 ms).
    Linux,
    /// ns-2.35 `TcpAgent::rtt_update` and `rtt_timeout` (tcp/tcp.cc): the RTT in whole ticks
    /// of `tcpTick_` (`clock_granularity_s`) crossed between send and ACK, at least one;
    /// SRTT and RTTVAR in fixed point (1/8 and 1/4 tick, `T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2,
    /// integer arithmetic); RTO = SRTT + 4 RTTVAR truncated to whole ticks (`t_rtxcur_`),
    /// raised to `minrto_` and to two ticks; past a backoff of 8 the SRTT is folded into
    /// RTTVAR and forgotten (`rtt_backoff`).
    Ns2,
}

/// CUBIC's Reno-friendly additive increase α_cubic (RFC 9438 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CubicAlpha {
    /// RFC 9438 §4.3: 3 (1 - β) / (1 + β) until W_est reaches cwnd_prior, then 1.
    #[default]
    Rfc9438,
    /// Always 3 (1 - β) / (1 + β), 0.53 with β = 717/1024: Linux `tcp_cubic.c`
    /// (`bictcp_update`, `tcp_friendliness`: `tcp_cwnd` grows by one per
    /// `cwnd * beta_scale / 8` ACKed packets, beta_scale = 15).
    Fixed,
}

/// The window a fast recovery's reduction starts from: what the controller's ssthresh rule
/// multiplies by β (1/2 for Reno, 0.7 for CUBIC), and PRR's RecoverFS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReductionBasis {
    /// FlightSize, without Limited Transmit's data (RFC 5681 §3.2 step 2, RFC 9438 §4.6);
    /// RecoverFS = snd.nxt - snd.una (RFC 6937 §3).
    #[default]
    FlightSize,
    /// cwnd at the loss: Linux `tcp_reno_ssthresh` and `bictcp_recalc_ssthresh`
    /// (net/ipv4/tcp_cong.c, tcp_cubic.c) take `tcp_snd_cwnd`, and `tcp_init_cwnd_reduction`
    /// keeps it as `prior_cwnd`, the RecoverFS of `tcp_cwnd_reduction` (net/ipv4/tcp_input.c).
    /// RFC 9438 §4.6 allows it with a growth gate (`growth_gate`).
    Cwnd,
}

/// When the controller may grow cwnd on an ACK of new data outside recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GrowthGate {
    /// On every such ACK (RFC 5681 §3.1; RFC 7661 is not followed).
    #[default]
    Always,
    /// Only while the flow is cwnd-limited: Linux `tcp_is_cwnd_limited` (include/net/tcp.h),
    /// with `is_cwnd_limited` and `max_packets_out` tracked per window by
    /// `tcp_cwnd_validate` (net/ipv4/tcp_output.c); in slow start also while cwnd < 2
    /// max_packets_out. An rwnd- or application-limited flow keeps its cwnd.
    CwndLimited,
}

/// Every field a profile bundles has a key in the scenario's `[tcp]` table; a key wins over
/// the profile (`tcp/profile.rs`).
#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// The named bundle of defaults this config started from.
    pub profile: Profile,
    /// The fields set by a key rather than by the profile.
    pub explicit: ProfileKeys,
    pub cc: CcKind,
    /// The `[tcp.<algorithm>]` tables given (`cc/table.rs`), any algorithm's: only `cc`'s
    /// is read.
    pub cc_settings: CcSettings,
    pub recovery: Recovery,
    /// RFC 6937 PRR or the classic rules; only SACK recovery reads it.
    pub recovery_rate: RecoveryRate,
    /// RFC 8985 RACK-TLP or duplicate-ACK counting; only SACK recovery reads it.
    pub loss_detection: LossDetection,
    /// RFC 5682 F-RTO detection of spurious timeouts, with the RFC 4015 Eifel response.
    pub frto: bool,
    /// F-RTO also on a timeout during fast recovery (RFC 5682 is silent; Linux does not).
    pub frto_in_recovery: bool,
    /// RFC 9406 HyStart++ in the initial slow start.
    pub hystart: bool,
    pub newreno_timer: NewRenoTimer,
    pub newreno_reentry: NewRenoReentry,
    pub ca_growth: CaGrowth,
    pub rto_ssthresh: RtoSsthresh,
    /// RFC 6675 §4 NextSeg() rule (4), the rescue retransmission.
    pub rescue_retransmission: bool,
    /// RFC 6675 §4 IsLost() in SetPipe(), or pipe from SACKs alone. Not profile-governed.
    pub sack_pipe: SackPipe,
    /// The receiver acknowledges this many first data segments at once, without delay
    /// (ns-3: the first; Linux quickack mode at connection start).
    pub quickack_segments: u32,
    pub mss_bytes: u32,
    /// IP + TCP header bytes added to every segment (without SACK options).
    pub header_bytes: u32,
    pub initial_window_segments: u32,
    /// Initial slow-start threshold; u64::MAX means "arbitrarily high" (RFC 5681 §3.1).
    pub initial_ssthresh_bytes: u64,
    pub dupack_threshold: u32,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    pub min_rto_ns: SimTime,
    pub initial_rto_ns: SimTime,
    pub max_rto_ns: SimTime,
    /// Clock granularity G of RFC 6298 §2.
    pub clock_granularity_ns: SimTime,
    pub delayed_ack: bool,
    /// Acknowledge at least every this many full-sized segments (RFC 5681 §4.2: 2).
    pub delayed_ack_segments: u32,
    pub delayed_ack_timeout_ns: SimTime,
    pub rwnd_bytes: u64,
    pub ecn: bool,
    // ns-2 dialect
    pub fast_retransmit_window: FastRetransmitWindow,
    pub newreno_exit: NewRenoExit,
    pub sack_entry: SackEntry,
    pub sack_retransmit: SackRetransmit,
    /// The fast retransmit restarts the retransmission timer (ns-2 `dupack_action`:
    /// `reset_rtx_timer(1, 0)`); RFC 6298 (5.1) only starts a timer that is not running.
    pub fast_retransmit_restarts_timer: bool,
    pub rtt_sampling: RttSampling,
    pub reno_reentry: RenoReentry,
    /// The ACK that ends Reno or NewReno fast recovery also grows cwnd, as any ACK of new
    /// data (ns-2 `RenoTcpAgent::recv`, `NewRenoTcpAgent::recv`: `recv_newack_helper` calls
    /// `opencwnd`); RFC 5681 §3.2 step 6 only deflates the window.
    pub exit_ack_opens_window: bool,
    /// The state a lost SYN leaves once the handshake completes (`SynTimeout`).
    pub syn_timeout: SynTimeout,
    /// What the go-back-N after a timeout resends with SACK (`GoBackN`).
    pub go_back_n: GoBackN,
    // Linux dialect (see the enums above).
    pub rto_rearm: RtoRearm,
    pub slow_start_growth: SlowStartGrowth,
    pub rto_formula: RtoFormula,
    pub cubic_alpha: CubicAlpha,
    pub growth_gate: GrowthGate,
    /// Linux's HyStart (`tcp_cubic.c`), not RFC 9406 HyStart++ (`hystart`): `cc/hystart_linux.rs`.
    pub linux_hystart: bool,
    /// Linux TCP Small Queues (`tcp_small_queue_check`, net/ipv4/tcp_output.c): the sender
    /// holds back while its packets fill its own host's outgoing link, instead of that
    /// link's queue dropping them (`sender/small_queues.rs`).
    pub small_queues: bool,
    /// RFC 2883 duplicate SACK: the receiver reports a duplicate segment in the first SACK
    /// block of its next ACK (Linux `net.ipv4.tcp_dsack = 1`, `tcp_dsack_set`; ns-2's
    /// TCPSink and ns-3.44 send none). A DSACK received makes RACK's reordering window grow
    /// (RFC 8985 §6.2 step 4), whatever this key says.
    pub dsack: bool,
    /// Undo a fast recovery once DSACKs have reported every segment it retransmitted
    /// (Linux `tcp_try_undo_dsack`, `tcp_try_undo_recovery`; `sender/dsack_undo.rs`).
    pub dsack_undo: bool,
    /// RFC 7323 TCP timestamps (Linux `net.ipv4.tcp_timestamps = 1`): data carries TSval, the
    /// receiver echoes TS.Recent (§4.3), and the sender uses the echo as Linux does: undo of
    /// a recovery whose hole the original filled (`tcp_packet_delayed`), reordering seen, and
    /// RTT samples where Karn's rule gives none (`sender/timestamps.rs`). The option's bytes
    /// are `header_bytes`' to count.
    pub timestamps: bool,
    /// Outside loss recovery, the window test counts in flight what RFC 6675's SetPipe()
    /// counts (SACKed segments and segments marked lost out, retransmissions in the network
    /// in) instead of FlightSize, as Linux does in every state (`tcp_cwnd_test` in
    /// net/ipv4/tcp_output.c with `tcp_packets_in_flight`, include/net/tcp.h): while a hole
    /// waits for late originals, each SACK releases a new segment. SACK recovery only.
    pub pipe_outside_recovery: bool,
    /// The window a fast recovery reduces from (`ReductionBasis`).
    pub reduction_basis: ReductionBasis,
    /// cwnd and ssthresh in whole segments, as Linux keeps `snd_cwnd` and `snd_ssthresh`
    /// (packet counts, include/linux/tcp.h): the sender uses the whole part of cwnd (the
    /// fraction is Linux's `snd_cwnd_cnt`), and a reduction's ssthresh is rounded down to
    /// whole segments (`tcp_reno_ssthresh`: cwnd >> 1; `bictcp_recalc_ssthresh`: cwnd ·
    /// 717 / 1024, integer division). Reno and CUBIC.
    pub whole_segment_windows: bool,
    /// Before CUBIC's first window reduction, congestion avoidance grows cwnd by at least one
    /// segment per 20 acknowledged, about 5 % per round trip (Linux `bictcp_update` in
    /// net/ipv4/tcp_cubic.c: `if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20`):
    /// after HyStart ends slow start without a loss, the window keeps probing where
    /// RFC 9438 §4.2 starts a cubic curve at W_max = cwnd that stays flat for seconds.
    pub cubic_growth_floor: bool,
    /// Linux's push-flag acknowledgment: the sender sets PSH on the last segment of each
    /// TSO/GSO unit of new data it sends (`tcp_tso_autosize` segments, at least
    /// `tcp_min_tso_segs` = 2; a lone segment goes without), and the receiver acknowledges a
    /// full-sized in-order segment carrying PSH, or one shorter than its estimate of the
    /// peer's MSS (unless it is a second one of that length, which becomes the estimate), at
    /// once instead of delaying the ACK (`tcp_measure_rcv_mss` sets `ICSK_ACK_PUSHED`, and
    /// `tcp_cleanup_rbuf` sends the ACK when the application's read empties the queue;
    /// net/ipv4/tcp_input.c, net/ipv4/tcp.c). `sender/push.rs`.
    pub psh_quickack: bool,
    /// Linux's receive-window growth acknowledgment: while the window the receiver may
    /// advertise (`rcv_ssthresh`) grows, every in-order segment is acknowledged at once.
    /// `tcp_grow_window` (net/ipv4/tcp_input.c), called for each in-order segment of at least
    /// 128 bytes (`tcp_event_data_recv`) and each out-of-order one with SACK
    /// (`tcp_data_queue_ofo`), raises `rcv_ssthresh` by `max(2 * advmss, 2 * len)` up to the
    /// window clamp and sets `icsk_ack.quick |= 1`, so `__tcp_ack_snd_check` finds the
    /// socket in quickack mode. `rcv_ssthresh` starts at the first window the SYN can
    /// carry, 64512 bytes (65535 rounded down to the 1024-byte unit of window scale 10), and
    /// grows here to `rwnd_bytes` (the kernel's clamp follows receive-buffer autotuning).
    /// With `rcvbuf_autotune` the clamp is the autotuned `window_clamp` (at most `rwnd_bytes`)
    /// and the ACKs advertise `rcv_ssthresh`; without it only the ACK rule is modelled and
    /// the advertised window stays `rwnd_bytes`. `receiver.rs`.
    pub grow_window_quickack: bool,
    /// Linux's receive-buffer autotuning (dynamic right-sizing): the receiver's window starts
    /// at the clamp of a `tcp_rmem[1]` buffer (81920 bytes) and grows once per receiver RTT
    /// (`tcp_rcv_rtt_measure_ts` with timestamps, `tcp_rcv_rtt_measure`) to hold twice what the application read in it plus twice its
    /// growth (`tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`, net/ipv4/tcp_input.c), up to
    /// `tcp_rmem[2]` and `rwnd_bytes`; each ACK advertises the window `__tcp_select_window`
    /// (net/ipv4/tcp_output.c) gives. Off: the receiver advertises `rwnd_bytes`. `receiver.rs`.
    pub rcvbuf_autotune: bool,
    /// 0: the retransmission, loss-probe, reorder and delayed-ACK timers fire at their exact
    /// times. N: as Linux's on a kernel with `CONFIG_HZ = N` (`timer_wheel.rs`): armed in
    /// whole jiffies, fired on the timer wheel's shared ticks; the loss probe and the RACK
    /// reorder timeout then also add `TCP_TIMEOUT_MIN_US` (2 ms) before the conversion, as
    /// `tcp_schedule_loss_probe` and `tcp_rack_mark_lost` do.
    pub timer_wheel_hz: u32,
}

impl Default for TcpConfig {
    /// The `rfc` profile (`tcp/profile.rs`).
    fn default() -> Self {
        Profile::Rfc.config()
    }
}

impl TcpConfig {
    pub fn sack(&self) -> bool {
        self.recovery == Recovery::Sack
    }

    /// The recovery rate the flow uses: `recovery_rate` with SACK recovery, else classic.
    pub fn recovery_rate_in_effect(&self) -> RecoveryRate {
        if self.sack() {
            self.recovery_rate
        } else {
            RecoveryRate::Classic
        }
    }

    /// The loss detection the flow uses: `loss_detection` with SACK recovery (RFC 8985 §3
    /// needs SACK), else duplicate-ACK counting.
    pub fn loss_detection_in_effect(&self) -> LossDetection {
        if self.sack() {
            self.loss_detection
        } else {
            LossDetection::Dupthresh
        }
    }
}

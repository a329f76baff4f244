//! Named profiles: one bundle of defaults for every choice where the RFCs leave room and the
//! reference stacks differ. `rfc` follows the RFCs (and is the default); `ns2`, `ns3` and
//! `linux` reproduce the defaults of ns-2.35 (`tcl/lib/ns-default.tcl`, `Agent/TCP` and
//! `Agent/TCPSink`), ns-3.44 (`tcp-socket.cc`, `tcp-socket-base.cc` attributes) and Linux
//! (`include/net/tcp.h` constants, `net/ipv4/tcp_input.c`). docs/tcp.md has the table with the
//! source of every value. A profile only sets defaults: a `tcp.*` key wins over it.
//!
//! `linux` has CUBIC, PRR, RACK-TLP and F-RTO.

use serde::{Deserialize, Serialize};

use super::config::{
    CaGrowth, CcKind, CubicAlpha, FastRetransmitWindow, GoBackN, GrowthGate, LossDetection, NewRenoExit,
    NewRenoReentry, NewRenoTimer, Recovery, RecoveryRate, ReductionBasis, RenoReentry, RtoFormula, RtoRearm,
    RtoSsthresh, RttSampling, SackEntry, SackPipe, SackRetransmit, SlowStartGrowth, SynTimeout, TcpConfig,
};
use crate::engine::time::s_to_ns;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    #[default]
    Rfc,
    Ns2,
    Ns3,
    Linux,
}

/// The set of profile-governed fields that a key set explicitly, one bit per field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProfileKeys(u64);

impl ProfileKeys {
    pub const MSS: ProfileKeys = ProfileKeys(1 << 0);
    pub const HEADER: ProfileKeys = ProfileKeys(1 << 1);
    pub const INITIAL_WINDOW: ProfileKeys = ProfileKeys(1 << 2);
    pub const MIN_RTO: ProfileKeys = ProfileKeys(1 << 3);
    pub const INITIAL_RTO: ProfileKeys = ProfileKeys(1 << 4);
    pub const MAX_RTO: ProfileKeys = ProfileKeys(1 << 5);
    pub const CLOCK_GRANULARITY: ProfileKeys = ProfileKeys(1 << 6);
    pub const DELAYED_ACK: ProfileKeys = ProfileKeys(1 << 7);
    pub const DELAYED_ACK_SEGMENTS: ProfileKeys = ProfileKeys(1 << 8);
    pub const DELAYED_ACK_TIMEOUT: ProfileKeys = ProfileKeys(1 << 9);
    pub const QUICKACK: ProfileKeys = ProfileKeys(1 << 10);
    pub const RWND: ProfileKeys = ProfileKeys(1 << 11);
    pub const LIMITED_TRANSMIT: ProfileKeys = ProfileKeys(1 << 12);
    pub const NEWRENO_TIMER: ProfileKeys = ProfileKeys(1 << 13);
    pub const NEWRENO_REENTRY: ProfileKeys = ProfileKeys(1 << 14);
    pub const CA_GROWTH: ProfileKeys = ProfileKeys(1 << 15);
    pub const RTO_SSTHRESH: ProfileKeys = ProfileKeys(1 << 16);
    pub const RESCUE: ProfileKeys = ProfileKeys(1 << 17);
    pub const CC: ProfileKeys = ProfileKeys(1 << 18);
    pub const RECOVERY_RATE: ProfileKeys = ProfileKeys(1 << 19);
    pub const LOSS_DETECTION: ProfileKeys = ProfileKeys(1 << 20);
    pub const FRTO: ProfileKeys = ProfileKeys(1 << 21);
    pub const HYSTART: ProfileKeys = ProfileKeys(1 << 22);
    // ns-2 dialect
    pub const FAST_RETRANSMIT_WINDOW: ProfileKeys = ProfileKeys(1 << 23);
    pub const NEWRENO_EXIT: ProfileKeys = ProfileKeys(1 << 24);
    pub const SACK_ENTRY: ProfileKeys = ProfileKeys(1 << 25);
    pub const SACK_RETRANSMIT: ProfileKeys = ProfileKeys(1 << 26);
    pub const FAST_RETRANSMIT_TIMER: ProfileKeys = ProfileKeys(1 << 27);
    pub const SACK_PIPE: ProfileKeys = ProfileKeys(1 << 28);
    // Linux dialect
    pub const RTO_REARM: ProfileKeys = ProfileKeys(1 << 29);
    pub const SLOW_START_GROWTH: ProfileKeys = ProfileKeys(1 << 30);
    pub const RTO_FORMULA: ProfileKeys = ProfileKeys(1 << 31);
    pub const CUBIC_ALPHA: ProfileKeys = ProfileKeys(1 << 32);
    pub const GROWTH_GATE: ProfileKeys = ProfileKeys(1 << 33);
    pub const LINUX_HYSTART: ProfileKeys = ProfileKeys(1 << 34);
    // ns-2 dialect
    pub const RTT_SAMPLING: ProfileKeys = ProfileKeys(1 << 35);
    pub const RENO_REENTRY: ProfileKeys = ProfileKeys(1 << 36);
    pub const EXIT_ACK_OPENS: ProfileKeys = ProfileKeys(1 << 38);
    pub const SYN_TIMEOUT: ProfileKeys = ProfileKeys(1 << 41);
    pub const GO_BACK_N: ProfileKeys = ProfileKeys(1 << 42);
    // Linux dialect
    pub const SMALL_QUEUES: ProfileKeys = ProfileKeys(1 << 37);
    pub const DSACK: ProfileKeys = ProfileKeys(1 << 39);
    pub const DSACK_UNDO: ProfileKeys = ProfileKeys(1 << 40);
    pub const TIMESTAMPS: ProfileKeys = ProfileKeys(1 << 48);
    pub const PIPE_OUTSIDE_RECOVERY: ProfileKeys = ProfileKeys(1 << 50);
    pub const REDUCTION_BASIS: ProfileKeys = ProfileKeys(1 << 51);
    pub const WHOLE_SEGMENT_WINDOWS: ProfileKeys = ProfileKeys(1 << 52);
    pub const CUBIC_GROWTH_FLOOR: ProfileKeys = ProfileKeys(1 << 53);
    pub const PSH_QUICKACK: ProfileKeys = ProfileKeys(1 << 55);
    pub const GROW_WINDOW_QUICKACK: ProfileKeys = ProfileKeys(1 << 56);
    pub const RCVBUF_AUTOTUNE: ProfileKeys = ProfileKeys(1 << 57);
    pub const TIMER_WHEEL_HZ: ProfileKeys = ProfileKeys(1 << 54);

    pub fn insert(&mut self, k: ProfileKeys) {
        self.0 |= k.0;
    }

    pub fn contains(self, k: ProfileKeys) -> bool {
        self.0 & k.0 == k.0
    }
}

impl Profile {
    /// The DropTail limit of a link whose queue the scenario leaves unstated, in packets: the
    /// simulator's own default where the profile names one (ns-2: `Queue set limit_ 50`,
    /// tcl/lib/ns-default.tcl), else hosim's 100.
    pub fn default_queue_packets(self) -> u32 {
        match self {
            Profile::Ns2 => 50,
            Profile::Rfc | Profile::Ns3 | Profile::Linux => 100,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Ns2 => "ns2",
            Profile::Ns3 => "ns3",
            Profile::Linux => "linux",
        }
    }

    /// The complete configuration of this profile, no key set. Loss recovery (SACK), the
    /// controller (Reno, CUBIC in `linux`), the initial ssthresh (arbitrarily high), DupThresh (3) and ECN (off)
    /// are the same in all four and are chosen by their own keys.
    pub fn config(self) -> TcpConfig {
        let common = TcpConfig {
            profile: self,
            explicit: ProfileKeys::default(),
            cc: CcKind::RENO,
            cc_settings: Default::default(),
            recovery: Recovery::Sack,
            recovery_rate: RecoveryRate::Classic,
            sack_pipe: SackPipe::IsLost,
            loss_detection: LossDetection::Dupthresh,
            frto: false,
            frto_in_recovery: false,
            hystart: false,
            initial_ssthresh_bytes: u64::MAX,
            dupack_threshold: 3,
            ecn: false,
            // The `rfc` values; the arms below replace what differs.
            newreno_timer: NewRenoTimer::Impatient,
            newreno_reentry: NewRenoReentry::BeyondRecover,
            ca_growth: CaGrowth::Bytes,
            rto_ssthresh: RtoSsthresh::PipeHalf,
            rescue_retransmission: true,
            quickack_segments: 0,
            mss_bytes: 1460,
            header_bytes: 40,
            initial_window_segments: 3,
            limited_transmit: true,
            min_rto_ns: s_to_ns(1.0),
            initial_rto_ns: s_to_ns(1.0),
            max_rto_ns: s_to_ns(60.0),
            clock_granularity_ns: s_to_ns(0.001),
            delayed_ack: true,
            delayed_ack_segments: 2,
            delayed_ack_timeout_ns: s_to_ns(0.2),
            rwnd_bytes: 4 * 1024 * 1024,
            // ns-2 dialect: the RFC behaviour everywhere but in `ns2`.
            fast_retransmit_window: FastRetransmitWindow::FlightHalf,
            newreno_exit: NewRenoExit::Rfc6582,
            sack_entry: SackEntry::DupthreshOrIsLost,
            sack_retransmit: SackRetransmit::NextSeg,
            fast_retransmit_restarts_timer: false,
            rtt_sampling: RttSampling::EveryAck,
            reno_reentry: RenoReentry::Always,
            exit_ack_opens_window: false,
            syn_timeout: SynTimeout::Rfc6298,
            go_back_n: GoBackN::SkipSacked,
            // Linux dialect: the RFC behaviour outside `linux`.
            rto_rearm: RtoRearm::NewAck,
            slow_start_growth: SlowStartGrowth::Smss,
            rto_formula: RtoFormula::Rfc6298,
            cubic_alpha: CubicAlpha::Rfc9438,
            growth_gate: GrowthGate::Always,
            linux_hystart: false,
            // ns-2 and ns-3 hand every segment to the host's queue, which drops when full.
            small_queues: false,
            // RFC 2883 is an extension the RFCs do not require; ns-2's TCPSink and ns-3.44's
            // TcpSocketBase send no D-SACK.
            dsack: false,
            dsack_undo: false,
            pipe_outside_recovery: false,
            reduction_basis: ReductionBasis::FlightSize,
            // RFC 5681 and RFC 9438 count cwnd and ssthresh in bytes.
            whole_segment_windows: false,
            // RFC 9438 §4.2: the cubic curve from W_max = cwnd after a loss-free exit.
            cubic_growth_floor: false,
            // RFC 1122 §4.2.3.2 leaves PSH to the receiver's judgement; RFC 5681 §4.2 delays
            // ACKs regardless of it.
            psh_quickack: false,
            // RFC 5681 §4.2: the window a receiver advertises does not change when it ACKs.
            grow_window_quickack: false,
            // RFC 7323 §2.3 leaves the receive window to the receiver; it is `rwnd_bytes`.
            rcvbuf_autotune: false,
            // RFC 6298 and RFC 8985 timers fire when they expire.
            timer_wheel_hz: 0,
            // RFC 7323 is an extension; ns-2's Agent/TCP `timestamps_` is false. (ns-3.44's
            // Timestamp attribute is true, but hosim models only what Linux does with them.)
            timestamps: false,
        };
        match self {
            Profile::Rfc => common,
            // ns-default.tcl: Agent/TCP packetSize_ 1000, window_ 20, windowInit_ 2,
            // minrto_ 0.2, rtxcur_init_ 3.0, maxrto_ 60, tcpTick_ 0.01, windowOption_ 1,
            // singledup_ 1; Agent/TCPSink acknowledges every segment (TCPSink/DelAck
            // interval_ 100ms); Agent/TCP/Newreno newreno_changes1_ 1 (Impatient).
            // ns-2 dialect (docs/tcp.md): slowdown() halves min(cwnd_, wnd_) with no floor, ssthresh_ whole
            // packets; Newreno exit_recovery_fix_ 0; Sack1 enters on the third duplicate ACK
            // and retransmits only holes below SACKed data (ScoreBoardRQ::GetNextRetran);
            // the fast retransmit restarts the timer (dupack_action: reset_rtx_timer(1, 0));
            // one segment timed per RTT (rtt_active_; timestamps_ false);
            // Sack1 counts its pipe_ itself; the ACK that ends Reno/NewReno recovery opens
            // cwnd_ (recv_newack_helper -> opencwnd); the RTO in whole tcpTick_ ticks
            // (rtt_update, rtt_timeout).
            Profile::Ns2 => TcpConfig {
                mss_bytes: 1000,
                initial_window_segments: 2,
                min_rto_ns: s_to_ns(0.2),
                initial_rto_ns: s_to_ns(3.0),
                clock_granularity_ns: s_to_ns(0.01),
                delayed_ack: false,
                delayed_ack_timeout_ns: s_to_ns(0.1),
                rwnd_bytes: 20 * 1000,
                // ns-2's cwnd_ is a double (tcp.h) grown by `TcpAgent::opencwnd`
                // (tcp.cc, cwnd_ += increase_num_ / cwnd_): `per-ack-exact`.
                ca_growth: CaGrowth::PerAckExact,
                rto_ssthresh: RtoSsthresh::CwndHalf,
                rescue_retransmission: false,
                fast_retransmit_window: FastRetransmitWindow::CwndHalf,
                newreno_exit: NewRenoExit::KeepWindow,
                sack_entry: SackEntry::Dupacks,
                sack_retransmit: SackRetransmit::HolesBelowSacked,
                fast_retransmit_restarts_timer: true,
                rtt_sampling: RttSampling::TimedSegment,
                reno_reentry: RenoReentry::BeyondRecover,
                exit_ack_opens_window: true,
                syn_timeout: SynTimeout::Ns2,
                go_back_n: GoBackN::All,
                sack_pipe: SackPipe::Ns2Counter,
                rto_formula: RtoFormula::Ns2,
                ..common
            },
            // tcp-socket.cc: SegmentSize 536, InitialCwnd 10, DelAckCount 2, DelAckTimeout
            // 200 ms, RcvBufSize 131072; tcp-socket-base.cc: MinRto 1 s, ClockGranularity
            // 1 ms, Timestamp true (12 option bytes), LimitedTransmit true; RttEstimator
            // InitialEstimation 1 s.
            Profile::Ns3 => TcpConfig {
                mss_bytes: 536,
                header_bytes: 52,
                initial_window_segments: 10,
                quickack_segments: 1,
                rwnd_bytes: 131_072,
                newreno_timer: NewRenoTimer::SlowButSteady,
                newreno_reentry: NewRenoReentry::AtRecover,
                ca_growth: CaGrowth::PerAck,
                rescue_retransmission: false,
                // tcp-tx-buffer.cc `TcpTxBuffer::NextSeg`: rule (3) without (1.b).
                sack_retransmit: SackRetransmit::NextSegAnyUnsacked,
                ..common
            },
            // include/net/tcp.h: TCP_INIT_CWND 10, TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s,
            // TCP_RTO_MAX 120 s, TCP_DELACK_MIN 40 ms, TCP_MAX_QUICKACKS 16; timestamps on
            // (net.ipv4.tcp_timestamps = 1): MSS 1448 on a 1500-byte MTU.
            // net.ipv4.tcp_congestion_control = cubic (tcp_cubic.c); PRR as
            // tcp_cwnd_reduction bounds it (`prr-linux`: one segment more than delivered only
            // on an ACK that advances snd_una and marks nothing newly lost);
            // net.ipv4.tcp_recovery = 1 (RACK, tcp_recovery.c) with tcp_early_retrans = 3
            // (TLP); net.ipv4.tcp_frto = 2 (SACK-enhanced F-RTO).
            Profile::Linux => TcpConfig {
                cc: CcKind::CUBIC,
                recovery_rate: RecoveryRate::PrrLinux,
                loss_detection: LossDetection::RackTlp,
                frto: true,
                mss_bytes: 1448,
                header_bytes: 52,
                initial_window_segments: 10,
                min_rto_ns: s_to_ns(0.2),
                max_rto_ns: s_to_ns(120.0),
                delayed_ack_timeout_ns: s_to_ns(0.04),
                quickack_segments: 16,
                newreno_timer: NewRenoTimer::SlowButSteady,
                rto_ssthresh: RtoSsthresh::KeepInRecovery,
                rescue_retransmission: false,
                // tcp_xmit_retransmit_queue resends only TCPCB_LOST segments.
                sack_retransmit: SackRetransmit::LostOnly,
                // Linux dialect (docs/tcp.md).
                rto_rearm: RtoRearm::HeadRetransmit,
                slow_start_growth: SlowStartGrowth::Acked,
                rto_formula: RtoFormula::Linux,
                cubic_alpha: CubicAlpha::Fixed,
                growth_gate: GrowthGate::CwndLimited,
                // tcp_cubic.c `hystart` = 1 (its own HyStart, `cc/hystart_linux.rs`).
                linux_hystart: true,
                // TCP Small Queues (tcp_output.c `tcp_small_queue_check`, `tcp_tsq_handler`).
                small_queues: true,
                // net.ipv4.tcp_dsack = 1: D-SACK (tcp_input.c `tcp_dsack_set`).
                dsack: true,
                // tcp_input.c `tcp_try_undo_dsack` (`sender/dsack_undo.rs`).
                dsack_undo: true,
                // net.ipv4.tcp_timestamps = 1 (RFC 7323; `sender/timestamps.rs`).
                timestamps: true,
                // tcp_output.c `tcp_cwnd_test`: in flight = `tcp_packets_in_flight` in every state.
                pipe_outside_recovery: true,
                // `tcp_reno_ssthresh`, `bictcp_recalc_ssthresh`: from cwnd; PRR from `prior_cwnd`.
                reduction_basis: ReductionBasis::Cwnd,
                // `snd_cwnd`, `snd_ssthresh` in packets; `bictcp_recalc_ssthresh` rounds down.
                whole_segment_windows: true,
                // `bictcp_update`: cnt <= 20 while `last_max_cwnd` is 0 (5 % per RTT).
                cubic_growth_floor: true,
                // Not `psh_quickack`, though Linux acknowledges pushed segments at once: with
                // it hosim's ACK stream is the kernel's, but its goodput moves away from the
                // kernel's in three of the six paper comparisons (docs/tcp.md, "Linux dialect").
                // Not `grow_window_quickack` either, nor `rcvbuf_autotune`, the receive-buffer
                // autotuning that sets its clamp: with both, no gap to the kernel closes
                // (bench/linux/README.md, "Receive-buffer autotuning"; docs/tcp.md).
                // Exact timers. `timer_wheel_hz = 250` (the referee kernel's CONFIG_HZ) is the
                // kernel's timing, but not selected: with it two to six of `many-flows`' 32
                // flows starve, which the kernel's do not (docs/tcp.md, "Linux dialect").
                timer_wheel_hz: 0,
                ..common
            },
        }
    }

    /// `base` moved to this profile: every profile-governed field takes this profile's value
    /// unless a key set it (`base.explicit`); the other fields stay as they are.
    pub fn rebase(self, base: &TcpConfig) -> TcpConfig {
        let d = self.config();
        let mut cfg = base.clone();
        cfg.profile = self;
        macro_rules! take {
            ($($key:ident => $field:ident),* $(,)?) => {
                $(if !base.explicit.contains(ProfileKeys::$key) {
                    cfg.$field = d.$field;
                })*
            };
        }
        take!(
            MSS => mss_bytes,
            HEADER => header_bytes,
            INITIAL_WINDOW => initial_window_segments,
            MIN_RTO => min_rto_ns,
            INITIAL_RTO => initial_rto_ns,
            MAX_RTO => max_rto_ns,
            CLOCK_GRANULARITY => clock_granularity_ns,
            DELAYED_ACK => delayed_ack,
            DELAYED_ACK_SEGMENTS => delayed_ack_segments,
            DELAYED_ACK_TIMEOUT => delayed_ack_timeout_ns,
            QUICKACK => quickack_segments,
            RWND => rwnd_bytes,
            LIMITED_TRANSMIT => limited_transmit,
            NEWRENO_TIMER => newreno_timer,
            NEWRENO_REENTRY => newreno_reentry,
            CA_GROWTH => ca_growth,
            RTO_SSTHRESH => rto_ssthresh,
            RESCUE => rescue_retransmission,
            CC => cc,
            RECOVERY_RATE => recovery_rate,
            LOSS_DETECTION => loss_detection,
            FRTO => frto,
            HYSTART => hystart,
            // ns-2 dialect
            FAST_RETRANSMIT_WINDOW => fast_retransmit_window,
            NEWRENO_EXIT => newreno_exit,
            SACK_ENTRY => sack_entry,
            SACK_RETRANSMIT => sack_retransmit,
            FAST_RETRANSMIT_TIMER => fast_retransmit_restarts_timer,
            SACK_PIPE => sack_pipe,
            RTO_REARM => rto_rearm,
            SLOW_START_GROWTH => slow_start_growth,
            RTO_FORMULA => rto_formula,
            CUBIC_ALPHA => cubic_alpha,
            GROWTH_GATE => growth_gate,
            LINUX_HYSTART => linux_hystart,
            RTT_SAMPLING => rtt_sampling,
            RENO_REENTRY => reno_reentry,
            SMALL_QUEUES => small_queues,
            EXIT_ACK_OPENS => exit_ack_opens_window,
            SYN_TIMEOUT => syn_timeout,
            GO_BACK_N => go_back_n,
            DSACK => dsack,
            DSACK_UNDO => dsack_undo,
            TIMESTAMPS => timestamps,
            PIPE_OUTSIDE_RECOVERY => pipe_outside_recovery,
            REDUCTION_BASIS => reduction_basis,
            WHOLE_SEGMENT_WINDOWS => whole_segment_windows,
            CUBIC_GROWTH_FLOOR => cubic_growth_floor,
            PSH_QUICKACK => psh_quickack,
            GROW_WINDOW_QUICKACK => grow_window_quickack,
            RCVBUF_AUTOTUNE => rcvbuf_autotune,
            TIMER_WHEEL_HZ => timer_wheel_hz,
        );
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two dialects were added at once and both took bits 26-31: every key needs its own bit,
    /// or setting one key would mark another as explicitly set.
    #[test]
    fn every_profile_key_has_a_bit_of_its_own() {
        let keys = [
            ProfileKeys::MSS,
            ProfileKeys::HEADER,
            ProfileKeys::INITIAL_WINDOW,
            ProfileKeys::MIN_RTO,
            ProfileKeys::INITIAL_RTO,
            ProfileKeys::MAX_RTO,
            ProfileKeys::CLOCK_GRANULARITY,
            ProfileKeys::DELAYED_ACK,
            ProfileKeys::DELAYED_ACK_SEGMENTS,
            ProfileKeys::DELAYED_ACK_TIMEOUT,
            ProfileKeys::QUICKACK,
            ProfileKeys::RWND,
            ProfileKeys::LIMITED_TRANSMIT,
            ProfileKeys::NEWRENO_TIMER,
            ProfileKeys::NEWRENO_REENTRY,
            ProfileKeys::CA_GROWTH,
            ProfileKeys::RTO_SSTHRESH,
            ProfileKeys::RESCUE,
            ProfileKeys::CC,
            ProfileKeys::RECOVERY_RATE,
            ProfileKeys::LOSS_DETECTION,
            ProfileKeys::FRTO,
            ProfileKeys::HYSTART,
            ProfileKeys::FAST_RETRANSMIT_WINDOW,
            ProfileKeys::NEWRENO_EXIT,
            ProfileKeys::SACK_ENTRY,
            ProfileKeys::SACK_RETRANSMIT,
            ProfileKeys::FAST_RETRANSMIT_TIMER,
            ProfileKeys::SACK_PIPE,
            ProfileKeys::RTO_REARM,
            ProfileKeys::SLOW_START_GROWTH,
            ProfileKeys::RTO_FORMULA,
            ProfileKeys::CUBIC_ALPHA,
            ProfileKeys::GROWTH_GATE,
            ProfileKeys::LINUX_HYSTART,
            ProfileKeys::RTT_SAMPLING,
            ProfileKeys::RENO_REENTRY,
            ProfileKeys::SMALL_QUEUES,
            ProfileKeys::EXIT_ACK_OPENS,
            ProfileKeys::SYN_TIMEOUT,
            ProfileKeys::GO_BACK_N,
            ProfileKeys::DSACK,
            ProfileKeys::DSACK_UNDO,
            ProfileKeys::TIMESTAMPS,
            ProfileKeys::PIPE_OUTSIDE_RECOVERY,
            ProfileKeys::REDUCTION_BASIS,
            ProfileKeys::WHOLE_SEGMENT_WINDOWS,
            ProfileKeys::CUBIC_GROWTH_FLOOR,
            ProfileKeys::PSH_QUICKACK,
            ProfileKeys::GROW_WINDOW_QUICKACK,
            ProfileKeys::RCVBUF_AUTOTUNE,
            ProfileKeys::TIMER_WHEEL_HZ,
        ];
        let mut seen = 0u64;
        for k in keys {
            assert_eq!(k.0.count_ones(), 1, "{k:?}");
            assert_eq!(seen & k.0, 0, "{k:?} shares its bit");
            seen |= k.0;
        }
    }

    #[test]
    fn rebase_keeps_fields_set_by_a_key_and_takes_the_rest() {
        let mut base = Profile::Rfc.config();
        base.min_rto_ns = s_to_ns(1.0);
        base.explicit.insert(ProfileKeys::MIN_RTO);
        base.recovery = Recovery::NewReno;
        let cfg = Profile::Linux.rebase(&base);
        assert_eq!(cfg.profile, Profile::Linux);
        assert_eq!(cfg.min_rto_ns, s_to_ns(1.0), "set by a key, equal to rfc's value, still kept");
        assert_eq!(cfg.initial_window_segments, 10, "from the profile");
        assert_eq!(cfg.recovery, Recovery::NewReno, "not profile-governed");
    }

    #[test]
    fn linux_bundles_rack_tlp_and_frto_and_a_key_wins_over_them() {
        let cfg = Profile::Linux.config();
        assert_eq!((cfg.loss_detection, cfg.frto), (LossDetection::RackTlp, true));
        let mut base = Profile::Rfc.config();
        base.explicit.insert(ProfileKeys::LOSS_DETECTION);
        base.explicit.insert(ProfileKeys::FRTO);
        let cfg = Profile::Linux.rebase(&base);
        assert_eq!((cfg.loss_detection, cfg.frto), (LossDetection::Dupthresh, false));
    }

    #[test]
    fn ns2_bundles_the_ns2_dialect_and_a_key_wins_over_it() {
        let cfg = Profile::Ns2.config();
        assert_eq!(
            (cfg.ca_growth, cfg.fast_retransmit_window, cfg.newreno_exit, cfg.sack_entry, cfg.sack_retransmit),
            (
                CaGrowth::PerAckExact,
                FastRetransmitWindow::CwndHalf,
                NewRenoExit::KeepWindow,
                SackEntry::Dupacks,
                SackRetransmit::HolesBelowSacked
            )
        );
        assert_eq!(cfg.rto_formula, RtoFormula::Ns2);
        let mut base = Profile::Rfc.config();
        base.explicit.insert(ProfileKeys::SACK_RETRANSMIT);
        let cfg = Profile::Ns2.rebase(&base);
        assert_eq!((cfg.sack_retransmit, cfg.sack_entry), (SackRetransmit::NextSeg, SackEntry::Dupacks));
    }

    #[test]
    fn ns3_takes_ns3s_next_seg_and_rfc_the_rfc_one() {
        assert_eq!(Profile::Ns3.config().sack_retransmit, SackRetransmit::NextSegAnyUnsacked);
        assert_eq!(Profile::Rfc.config().sack_retransmit, SackRetransmit::NextSeg);
    }

    #[test]
    fn default_config_is_the_rfc_profile() {
        let cfg = TcpConfig::default();
        assert_eq!(
            (cfg.profile, cfg.rto_ssthresh, cfg.ca_growth),
            (Profile::Rfc, RtoSsthresh::PipeHalf, CaGrowth::Bytes)
        );
    }
}

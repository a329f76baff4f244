//! The TCP receiver: reassembly, cumulative and delayed ACKs (RFC 5681 §4.2, RFC 1122
//! §4.2.3.2), SACK block generation (RFC 2018 §4), duplicate SACK (RFC 2883, with `dsack`) and
//! ECN echo (RFC 3168 §6.1.3), and the timestamp echo TS.Recent (RFC 7323 §4.3, with
//! `timestamps`).

use super::config::TcpConfig;
use crate::engine::time::SimTime;
use crate::net::packet::SackBlocks;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    pub ack: u64,
    pub sack: SackBlocks,
    pub ece: bool,
    pub rwnd: u64,
    /// RFC 7323 TSecr: TS.Recent (0 without timestamps).
    pub ts_ecr: u32,
}

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    pub segments: u64,
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub ce_segments: u64,
    pub acks_sent: u64,
}

/// What one arriving data segment did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataResult {
    /// Bytes newly delivered in order to the application.
    pub delivered: u64,
    /// Bytes of this segment the receiver already had.
    pub duplicate: bool,
    pub ack: Option<AckOut>,
}

/// include/net/tcp.h: `TCP_MSS_DEFAULT` (536) and `TCP_MIN_MSS` (88), bytes of payload.
const TCP_MSS_DEFAULT: u64 = 536;
const TCP_MIN_MSS: u64 = 88;

/// Linux's first `rcv_ssthresh` on a connection with window scaling (`grow_window_quickack`):
/// the SYN's window is unscaled, at most 65535 bytes, and `tcp_select_initial_window`
/// (net/ipv4/tcp_output.c) rounds it down to the unit of the scale (2^10 here: the kernel's
/// first data segments find `rcv_wnd` = 64512 in `tcp:tcp_probe`).
const LINUX_INITIAL_RCV_SSTHRESH: u64 = 64_512;

/// `rcvbuf_autotune`: `net.ipv4.tcp_rmem` of the referee kernel (4096 131072 33554432: the
/// default of net/ipv4/tcp.c `tcp_init` on a machine with 4 GiB or more), the first and the
/// largest `sk_rcvbuf`, bytes of memory.
const TCP_RMEM_DEFAULT: u64 = 131_072;
const TCP_RMEM_MAX: u64 = 33_554_432;
/// `rcvbuf_autotune`: the socket's `scaling_ratio`, window bytes per 256 bytes of memory
/// (`tcp_win_from_space`, include/net/tcp.h; `TCP_RMEM_TO_WIN_SCALE` = 8). Linux measures it
/// in `tcp_measure_rcv_mss` as len / truesize of a full segment: 160 for the referee's 1448-
/// byte segments (truesize 2304), which makes its first `window_clamp` 131072 · 160 / 256 =
/// 81920 bytes, as `tcp:tcp_rcvbuf_grow` reports. hosim keeps it constant.
const SCALING_RATIO: u64 = 160;
/// `rcvbuf_autotune`: the unit of the advertised window with window scale 10 (the scale
/// `tcp_select_initial_window` picks for a `tcp_rmem[2]` of 32 MiB).
const WSCALE_UNIT: u64 = 1 << 10;
/// include/net/tcp.h `TCP_INIT_CWND`.
const TCP_INIT_CWND: u64 = 10;

/// `tcp_win_from_space`: the window `space` bytes of receive memory hold.
fn win_from_space(space: u64) -> u64 {
    (space * SCALING_RATIO) >> 8
}

/// `tcp_space_from_win`: the receive memory a window of `win` bytes needs.
fn space_from_win(win: u64) -> u64 {
    (win << 8) / SCALING_RATIO
}

pub struct TcpReceiver {
    delayed_ack: bool,
    delack_segments: u32,
    delack_timeout_ns: SimTime,
    /// `TcpConfig::timer_wheel_hz`.
    timer_wheel_hz: u32,
    /// First data segments still to be acknowledged at once (quickack).
    quickacks_left: u32,
    /// `psh_quickack`: acknowledge a pushed in-order segment at once.
    psh_quickack: bool,
    mss_bytes: u32,
    /// `psh_quickack`: Linux's estimate of the peer's MSS (`icsk_ack.rcv_mss`), and the
    /// length of the last short segment that could be a smaller MSS (`last_seg_size`, 0:
    /// none), as `tcp_measure_rcv_mss` keeps them.
    rcv_mss: u32,
    last_seg_size: u32,
    /// `grow_window_quickack`: Linux's `rcv_ssthresh`, the window the receiver may advertise,
    /// growing towards `rwnd_bytes`; every segment that raises it is acknowledged at once.
    grow_window_quickack: bool,
    rcv_ssthresh: u64,
    /// `rcvbuf_autotune`: Linux's receive-buffer autotuning (dynamic right-sizing). `sk_rcvbuf`
    /// (bytes of memory) and `window_clamp` (the largest window it may advertise) grow once
    /// per receiver RTT with what the application read in it (`rcvq_space`); the RTT is
    /// `rcv_rtt_est` (µs << 3, 0: none yet), measured from `rcv_rtt_seq` / `rcv_rtt_time`.
    /// `rcv_wnd` is the window of the last ACK (`tcp_select_window`).
    rcvbuf_autotune: bool,
    sk_rcvbuf: u64,
    window_clamp: u64,
    rcvq_space: u64,
    rcvq_seq: u64,
    rcvq_time: Option<SimTime>,
    rcv_rtt_est_us8: u64,
    rcv_rtt_seq: u64,
    rcv_rtt_time: Option<SimTime>,
    /// `rcv_rtt_last_tsecr`: the TSecr of the last timestamp sample.
    rcv_rtt_last_tsecr: u32,
    rcv_wnd: u64,
    sack: bool,
    /// RFC 2883: report a duplicate segment in the first SACK block of the next ACK.
    dsack: bool,
    /// The duplicate to report (RFC 2883 §4: one D-SACK block, in the next ACK only).
    pending_dsack: Option<(u64, u64)>,
    /// Advertised receive window. Constant unless an element (e.g. a proxy) sets it.
    pub rwnd_bytes: u64,
    rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: sorted, disjoint, non-adjacent [start, end) ranges.
    ooo: Vec<(u64, u64)>,
    /// Starts of recently received out-of-order segments, most recent first (RFC 2018 §4).
    recent: [u64; 3],
    recent_len: usize,
    unacked_segments: u32,
    delack_deadline: Option<SimTime>,
    ece_pending: bool,
    /// RFC 7323 §4.3 with `timestamps`: TS.Recent, the TSval echoed in every ACK (0: none yet
    /// or timestamps off), and Last.ACK.sent (Linux `rcv_wup`, rcv_nxt when the last ACK
    /// left).
    timestamps: bool,
    ts_recent: u32,
    last_ack_sent: u64,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            delayed_ack: cfg.delayed_ack,
            delack_segments: cfg.delayed_ack_segments.max(1),
            delack_timeout_ns: cfg.delayed_ack_timeout_ns,
            timer_wheel_hz: cfg.timer_wheel_hz,
            quickacks_left: cfg.quickack_segments,
            psh_quickack: cfg.psh_quickack,
            mss_bytes: cfg.mss_bytes,
            // `tcp_initialize_rcv_mss`: min(advmss, rcv_wnd / 2, TCP_MSS_DEFAULT), at least
            // TCP_MIN_MSS.
            rcv_mss: u64::from(cfg.mss_bytes).min(cfg.rwnd_bytes / 2).clamp(TCP_MIN_MSS, TCP_MSS_DEFAULT) as u32,
            last_seg_size: 0,
            grow_window_quickack: cfg.grow_window_quickack,
            rcv_ssthresh: LINUX_INITIAL_RCV_SSTHRESH.min(cfg.rwnd_bytes),
            // `tcp_init_buffer_space` (net/ipv4/tcp_input.c): `sk_rcvbuf` = tcp_rmem[1], the
            // clamp the window it holds (as `tcp_measure_rcv_mss` sets it for the measured
            // `scaling_ratio`), `rcvq_space.space` = min(rcv_ssthresh, rcv_wnd, TCP_INIT_CWND
            // · advmss).
            rcvbuf_autotune: cfg.rcvbuf_autotune,
            sk_rcvbuf: TCP_RMEM_DEFAULT,
            window_clamp: win_from_space(TCP_RMEM_DEFAULT),
            rcvq_space: (TCP_INIT_CWND * u64::from(cfg.mss_bytes)).min(LINUX_INITIAL_RCV_SSTHRESH).min(cfg.rwnd_bytes),
            rcvq_seq: 0,
            rcvq_time: None,
            rcv_rtt_est_us8: 0,
            rcv_rtt_seq: 0,
            rcv_rtt_time: None,
            rcv_rtt_last_tsecr: 0,
            rcv_wnd: LINUX_INITIAL_RCV_SSTHRESH.min(cfg.rwnd_bytes),
            sack: cfg.sack(),
            dsack: cfg.sack() && cfg.dsack,
            pending_dsack: None,
            rwnd_bytes: cfg.rwnd_bytes,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: [0; 3],
            recent_len: 0,
            unacked_segments: 0,
            delack_deadline: None,
            ece_pending: false,
            timestamps: cfg.timestamps,
            ts_recent: 0,
            last_ack_sent: 0,
            stats: ReceiverStats::default(),
        }
    }

    /// Next byte expected; equals the bytes delivered in order so far.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// Has every byte of [seq, seq+len) arrived (in order or buffered)?
    pub fn has(&self, seq: u64, len: u32) -> bool {
        let end = seq + len as u64;
        end <= self.rcv_nxt || self.ooo.iter().any(|&(s, e)| s <= seq.max(self.rcv_nxt) && end <= e)
    }

    pub fn out_of_order_bytes(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    /// The TSval of the data segment at `seq` about to be passed to [`Self::on_data`]. RFC
    /// 7323 §4.3 (2): TS.Recent takes it when SEG.SEQ <= Last.ACK.sent, so that an ACK
    /// echoes the earliest unacknowledged segment's TSval, and a segment filling a hole (its
    /// SEG.SEQ is the ACK already sent) is echoed by the ACK it triggers. As Linux
    /// `tcp_replace_ts_recent` (`!after(seq, rcv_wup)`, `tcp_paws_check`): never backwards.
    pub fn on_tsval(&mut self, seq: u64, tsval: u32) {
        if self.timestamps && seq <= self.last_ack_sent && (tsval.wrapping_sub(self.ts_recent) as i32) >= 0 {
            self.ts_recent = tsval;
        }
    }

    /// A data segment arrived. `ce`: the IP header carried Congestion Experienced; `psh`: the
    /// TCP header carried PSH.
    pub fn on_data(&mut self, now: SimTime, seq: u64, len: u32, ce: bool, cwr: bool, psh: bool) -> DataResult {
        self.stats.segments += 1;
        // RFC 3168 §6.1.3: CWR stops the echo; CE (re)starts it.
        if cwr {
            self.ece_pending = false;
        }
        if ce {
            self.ece_pending = true;
            self.stats.ce_segments += 1;
        }
        let end = seq + len as u64;
        let had_gap = !self.ooo.is_empty();
        let (delivered, duplicate, immediate) = if end <= self.rcv_nxt {
            // Old data: acknowledge at once so the sender learns where we are.
            self.note_dsack(seq, end);
            (0, true, true)
        } else if seq > self.rcv_nxt {
            let dup = self.insert_ooo(seq, end);
            if dup {
                // RFC 2883 §4.1.2: a duplicate above the cumulative ACK; the block holding
                // it is the next one reported (it stays the most recent, `note_recent`).
                self.note_dsack(seq, end);
            }
            self.note_recent(seq);
            self.stats.out_of_order_segments += 1;
            // RFC 5681 §4.2: an out-of-order segment triggers an immediate (duplicate) ACK.
            (0, dup, true)
        } else {
            let before = self.rcv_nxt;
            if seq < before {
                // RFC 2883 §4.1.3-style partial duplicate: its first part had arrived.
                self.note_dsack(seq, before);
            }
            self.rcv_nxt = end;
            self.absorb_ooo();
            // RFC 5681 §4.2: a segment that fills (part of) a gap is acknowledged at once.
            (self.rcv_nxt - before, false, had_gap)
        };
        if duplicate {
            self.stats.duplicate_segments += 1;
        }
        if self.rcvbuf_autotune && delivered > 0 {
            // `tcp_event_data_recv` for in-order data, after `tcp_queue_rcv` moved rcv_nxt.
            self.rcv_rtt_measure(now);
        }
        // `grow_window_quickack` (Linux `tcp_grow_window`): a new in-order segment of at least
        // 128 bytes, or an out-of-order one with SACK, raises `rcv_ssthresh` by
        // max(2 * advmss, 2 * len) up to the clamp and sets `icsk_ack.quick |= 1`: a bitwise
        // OR, so during the first `quickack_segments` (16, an even count) each growth step
        // makes the count odd and the ACK's decrement (`tcp_dec_quickack_mode`) takes it
        // back: every step adds one immediate ACK to the initial ones (16 + 6 = 22 in the
        // referee's captures).
        if self.grow_window_quickack
            && !duplicate
            && (delivered > 0 && len >= 128 || seq > self.rcv_nxt && self.sack)
            && self.rcv_ssthresh < self.clamp()
        {
            let incr = 2 * u64::from(self.mss_bytes.max(len));
            self.rcv_ssthresh = (self.rcv_ssthresh + incr).min(self.clamp());
            self.quickacks_left |= 1;
        }
        // The first `quickack_segments` data segments are acknowledged at once (ns-3 ACKs
        // the first; Linux starts in quickack mode).
        let quick = self.quickacks_left > 0;
        self.quickacks_left = self.quickacks_left.saturating_sub(1);
        // `psh_quickack` (Linux): an in-order segment sets `ICSK_ACK_PUSHED` as
        // `tcp_measure_rcv_mss` decides; the application's read then empties the receive
        // queue and `tcp_cleanup_rbuf` sends the ACK at once. (The application here reads what
        // arrives in order at once; with out-of-order data held the ACK is immediate anyway.)
        let pushed = self.psh_quickack && delivered > 0 && self.measure_rcv_mss(len, psh);
        let ack = if immediate || quick || pushed || !self.delayed_ack {
            Some(self.make_ack())
        } else {
            self.unacked_segments += 1;
            if self.unacked_segments >= self.delack_segments {
                Some(self.make_ack())
            } else {
                if self.delack_deadline.is_none() {
                    // Linux `tcp_send_delayed_ack` arms it in jiffies (`timer_wheel_hz`).
                    self.delack_deadline =
                        Some(super::timer_wheel::expiry(now, self.delack_timeout_ns, self.timer_wheel_hz));
                }
                None
            }
        };
        if self.rcvbuf_autotune && delivered > 0 {
            // The application's read (`tcp_recvmsg` → `tcp_rcv_space_adjust`) follows the
            // softirq's ACK decision above.
            self.rcv_space_adjust(now);
        }
        DataResult { delivered, duplicate, ack }
    }

    /// The window clamp in effect: Linux's autotuned `window_clamp` with `rcvbuf_autotune`,
    /// bounded by `rwnd_bytes` (the scenario's cap); else `rwnd_bytes`.
    fn clamp(&self) -> u64 {
        if self.rcvbuf_autotune {
            self.window_clamp.min(self.rwnd_bytes)
        } else {
            self.rwnd_bytes
        }
    }

    /// The window the next ACK advertises. `rwnd_bytes`, or with `rcvbuf_autotune` as Linux's
    /// `__tcp_select_window` and `tcp_select_window` (net/ipv4/tcp_output.c) give it: the
    /// free space of the buffer (`tcp_space`: the application reads in-order data at once,
    /// so the buffer holds only out-of-order data), halved cases rounded down to the window
    /// scale's unit and 0 below 1/16 of the buffer or one MSS, at most `rcv_ssthresh` (with
    /// `grow_window_quickack`; without it `rcv_ssthresh` is taken to be at the clamp),
    /// rounded up to the unit (`ALIGN`), never moving the right edge back (`cur_win`).
    fn advertised_window(&self) -> u64 {
        if !self.rcvbuf_autotune {
            return self.rwnd_bytes;
        }
        let full = self.window_clamp;
        let mut free = full.saturating_sub(self.out_of_order_bytes());
        if free < full / 2 {
            free -= free % WSCALE_UNIT;
            if free < full / 16 || free < u64::from(self.mss_bytes) {
                free = 0;
            }
        }
        if self.grow_window_quickack {
            free = free.min(self.rcv_ssthresh);
        }
        let new_win = free.div_ceil(WSCALE_UNIT) * WSCALE_UNIT;
        let cur_win = (self.last_ack_sent + self.rcv_wnd).saturating_sub(self.rcv_nxt);
        new_win.max(cur_win.div_ceil(WSCALE_UNIT) * WSCALE_UNIT).min(self.rwnd_bytes)
    }

    /// Linux `tcp_rcv_rtt_measure` (net/ipv4/tcp_input.c): the receiver's RTT without
    /// timestamps, the time rcv_nxt takes to pass the right edge of the window advertised
    /// when the measurement started (one window of data), kept as a minimum
    /// (`tcp_rcv_rtt_update` with `win_dep`). With timestamps `rcv_rtt_measure_ts` samples
    /// every RTT as well.
    fn rcv_rtt_measure(&mut self, now: SimTime) {
        if let Some(t) = self.rcv_rtt_time {
            if self.rcv_nxt < self.rcv_rtt_seq {
                return;
            }
            let sample_us8 = (now.saturating_sub(t) / 1000).max(1) << 3;
            if self.rcv_rtt_est_us8 == 0 || sample_us8 < self.rcv_rtt_est_us8 {
                self.rcv_rtt_est_us8 = sample_us8;
            }
        }
        self.rcv_rtt_seq = self.rcv_nxt + self.rcv_wnd;
        self.rcv_rtt_time = Some(now);
    }

    /// Linux `tcp_rcv_rtt_measure_ts` (net/ipv4/tcp_input.c), with `rcvbuf_autotune` and
    /// `timestamps`, for a data segment of `len` bytes arriving at `now_ts` (the receiver's
    /// timestamp clock) and echoing `tsecr`: once per new TSecr, a segment of at least
    /// `rcv_mss` gives the sample now − TSecr (`tcp_rtt_tsopt_us`, in whole timestamp ticks),
    /// smoothed by 7/8 (`tcp_rcv_rtt_update` without `win_dep`); a sample below the estimate
    /// replaces it.
    pub fn rcv_rtt_measure_ts(&mut self, now_ts: u32, len: u32, tsecr: u32) {
        if !(self.rcvbuf_autotune && self.timestamps) || tsecr == self.rcv_rtt_last_tsecr {
            return;
        }
        self.rcv_rtt_last_tsecr = tsecr;
        let delta = now_ts.wrapping_sub(tsecr) as i32;
        if tsecr == 0 || len < self.rcv_mss || delta <= 0 {
            return;
        }
        let sample_us = delta as u64 * (crate::tcp::sender::TS_TICK_NS / 1000);
        let old = self.rcv_rtt_est_us8;
        self.rcv_rtt_est_us8 =
            if old == 0 || sample_us << 3 < old { sample_us << 3 } else { old - (old >> 3) + sample_us };
    }

    /// Linux `tcp_rcv_space_adjust` (net/ipv4/tcp_input.c), after the application read all
    /// in-order data: once per receiver RTT, if it read more than `rcvq_space.space` in that
    /// RTT, `tcp_rcvbuf_grow`.
    fn rcv_space_adjust(&mut self, now: SimTime) {
        let since = *self.rcvq_time.get_or_insert(now);
        let rtt_us = self.rcv_rtt_est_us8 >> 3;
        if rtt_us == 0 || now.saturating_sub(since) / 1000 < rtt_us {
            return;
        }
        let copied = self.rcv_nxt - self.rcvq_seq;
        if copied > self.rcvq_space {
            self.rcvbuf_grow(copied);
        }
        self.rcvq_seq = self.rcv_nxt;
        self.rcvq_time = Some(now);
    }

    /// Linux 6.18 `tcp_rcvbuf_grow` (net/ipv4/tcp_input.c): room for twice what was read in
    /// the last RTT ("DRS is always one RTT late") plus twice the growth it showed
    /// (`rcvwin · (new − old) / old`: "slow start: allow the sender to double its rate"),
    /// plus the out-of-order span; `sk_rcvbuf` takes the memory that window needs, at most
    /// tcp_rmem[2], and `window_clamp` follows it.
    fn rcvbuf_grow(&mut self, newval: u64) {
        let oldval = std::mem::replace(&mut self.rcvq_space, newval);
        let mut rcvwin = newval << 1;
        rcvwin = rcvwin.saturating_add(rcvwin.saturating_mul(newval - oldval) / oldval.max(1) * 2);
        if let Some(&(_, end)) = self.ooo.last() {
            rcvwin += end - self.rcv_nxt;
        }
        let rcvbuf = space_from_win(rcvwin.min(u64::MAX >> 8)).min(TCP_RMEM_MAX);
        if rcvbuf > self.sk_rcvbuf {
            self.sk_rcvbuf = rcvbuf;
            self.window_clamp = win_from_space(rcvbuf);
        }
    }

    /// Linux `tcp_measure_rcv_mss` (net/ipv4/tcp_input.c) for an in-order segment of `len`
    /// payload bytes: whether it sets `ICSK_ACK_PUSHED`. A segment of at least `rcv_mss`
    /// becomes the new estimate (at most the MSS) and is pushed if it carries PSH (the 6.10
    /// source: "likely the end of an application write"). A shorter one is pushed, unless
    /// it looks like a smaller MSS: at least `TCP_MSS_DEFAULT` bytes, or `TCP_MIN_MSS` without
    /// PSH (the kernel compares the segment with its TCP header, options included, against
    /// these plus 20 bytes), of the same length as the last such segment, which makes it the
    /// estimate instead. (`ICSK_ACK_PUSHED2`, two short segments in a row, acknowledges even
    /// in pingpong mode, which hosim does not model: here it is the same as PUSHED.)
    fn measure_rcv_mss(&mut self, len: u32, psh: bool) -> bool {
        let lss = std::mem::take(&mut self.last_seg_size);
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.mss_bytes);
            return psh;
        }
        let opts = if self.timestamps { 12 } else { 0 };
        let with_opts = u64::from(len) + opts;
        if with_opts >= TCP_MSS_DEFAULT || (with_opts >= TCP_MIN_MSS && !psh) {
            self.last_seg_size = len;
            if len == lss {
                self.rcv_mss = len;
                return false;
            }
        }
        true
    }

    /// The delayed-ACK timer may have expired.
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<AckOut> {
        match self.delack_deadline {
            Some(d) if d <= now => Some(self.make_ack()),
            _ => None,
        }
    }

    /// The ACK that completes or answers the handshake.
    pub fn syn_ack(&self) -> AckOut {
        // With `rcvbuf_autotune` the SYN's window is unscaled (RFC 7323 §2.2): at most 64512.
        let rwnd = if self.rcvbuf_autotune { self.rcv_wnd } else { self.rwnd_bytes };
        AckOut { ack: self.rcv_nxt, sack: SackBlocks::default(), ece: false, rwnd, ts_ecr: 0 }
    }

    /// A window update: the ACK of what has arrived, carrying the current `rwnd_bytes` (sent
    /// when the advertised window changes, e.g. Freeze-TCP's zero window advertisement).
    pub fn window_update(&mut self) -> AckOut {
        self.make_ack()
    }

    fn make_ack(&mut self) -> AckOut {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        let rwnd = self.advertised_window();
        self.rcv_wnd = rwnd;
        self.last_ack_sent = self.rcv_nxt;
        let sack = self.sack_blocks();
        AckOut { ack: self.rcv_nxt, sack, ece: self.ece_pending, rwnd, ts_ecr: self.ts_recent }
    }

    /// With `dsack`, remembers [start, end) as the duplicate to report (RFC 2883 §4: the
    /// latest duplicate; Linux `tcp_dsack_set`).
    fn note_dsack(&mut self, start: u64, end: u64) {
        if self.dsack {
            self.pending_dsack = Some((start, end));
        }
    }

    /// RFC 2018 §4: the first block holds the most recently received segment, the others
    /// repeat the most recently reported blocks. RFC 2883 §4: a duplicate not yet reported
    /// goes first, as a D-SACK block, in this ACK only.
    fn sack_blocks(&mut self) -> SackBlocks {
        let mut out = SackBlocks::default();
        if !self.sack {
            return out;
        }
        if let Some(block) = self.pending_dsack.take() {
            out.push(block);
        }
        // The D-SACK block may equal a block of the queue; that block is still reported.
        let d = out.len();
        for &seq in &self.recent[..self.recent_len] {
            if let Some(&block) = self.ooo.iter().find(|&&(s, e)| s <= seq && seq < e) {
                if !out.iter().skip(d).any(|b| b == block) && !out.push(block) {
                    break;
                }
            }
        }
        // Blocks not in the recency list (older ones) fill what space is left, lowest first.
        for &block in &self.ooo {
            if out.len() == SackBlocks::CAPACITY {
                break;
            }
            if !out.iter().skip(d).any(|b| b == block) {
                out.push(block);
            }
        }
        out
    }

    fn note_recent(&mut self, seq: u64) {
        let mut list = [seq, 0, 0];
        let mut n = 1;
        for &s in &self.recent[..self.recent_len] {
            if n == list.len() {
                break;
            }
            if s != seq {
                list[n] = s;
                n += 1;
            }
        }
        self.recent = list;
        self.recent_len = n;
    }

    /// Inserts [start, end) into the out-of-order set. Returns true if it was all there already.
    fn insert_ooo(&mut self, start: u64, end: u64) -> bool {
        let i = self.ooo.partition_point(|&(_, e)| e < start);
        if i < self.ooo.len() && self.ooo[i].0 <= start && end <= self.ooo[i].1 {
            return true;
        }
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((s, e)));
        false
    }

    fn absorb_ooo(&mut self) {
        let mut k = 0;
        while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].1);
            k += 1;
        }
        if k > 0 {
            self.ooo.drain(..k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::Recovery;

    const MSS: u32 = 1000;

    fn receiver(delayed: bool) -> TcpReceiver {
        let cfg = TcpConfig { delayed_ack: delayed, recovery: Recovery::Sack, ..TcpConfig::default() };
        TcpReceiver::new(&cfg)
    }

    fn seg(r: &mut TcpReceiver, i: u64) -> DataResult {
        r.on_data(0, i * MSS as u64, MSS, false, false, false)
    }

    #[test]
    fn timestamp_echo_follows_rfc7323_ts_recent() {
        // RFC 7323 §4.3: a delayed ACK echoes the earlier of its two segments; an out-of-order
        // segment does not change TS.Recent; the segment filling the hole is echoed. Without
        // the key nothing is echoed.
        for ts in [false, true] {
            let cfg = TcpConfig { timestamps: ts, recovery: Recovery::Sack, ..TcpConfig::default() };
            let mut r = TcpReceiver::new(&cfg);
            let arrive = |r: &mut TcpReceiver, i: u64, tsval: u32| {
                r.on_tsval(i * MSS as u64, tsval);
                r.on_data(0, i * MSS as u64, MSS, false, false, false).ack.map(|a| a.ts_ecr)
            };
            assert_eq!(arrive(&mut r, 0, 10), None);
            assert_eq!(arrive(&mut r, 1, 11), Some(if ts { 10 } else { 0 }), "the first of the two");
            assert_eq!(arrive(&mut r, 3, 13), Some(if ts { 10 } else { 0 }), "out of order: unchanged");
            assert_eq!(arrive(&mut r, 2, 5), Some(if ts { 10 } else { 0 }), "never backwards");
            assert_eq!(arrive(&mut r, 4, 14), None);
            assert_eq!(arrive(&mut r, 5, 15), Some(if ts { 14 } else { 0 }), "in order, at Last.ACK.sent");
        }
    }

    #[test]
    fn quickack_first_segment_is_acked_at_once_then_delayed() {
        let cfg = TcpConfig { quickack_segments: 1, recovery: Recovery::Sack, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&cfg);
        assert!(seg(&mut r, 0).ack.is_some(), "ns-3 acknowledges the first data segment at once");
        assert!(seg(&mut r, 1).ack.is_none(), "then every second segment");
        assert_eq!(seg(&mut r, 2).ack.map(|a| a.ack), Some(3 * MSS as u64));
    }

    #[test]
    fn without_quickack_first_segment_waits_for_the_delayed_ack() {
        let mut r = receiver(true);
        assert!(seg(&mut r, 0).ack.is_none());
        assert_eq!(seg(&mut r, 1).ack.map(|a| a.ack), Some(2 * MSS as u64));
    }

    #[test]
    fn psh_quickack_acks_a_lone_pushed_segment_at_once_and_delays_the_others() {
        // Linux `tcp_measure_rcv_mss` + `tcp_cleanup_rbuf`: a full-sized segment with PSH, or
        // a short one, is acknowledged when the application has read it; without PSH the ACK
        // waits for a second segment. Without the key PSH changes nothing (RFC 5681 §4.2).
        for key in [false, true] {
            let cfg = TcpConfig { psh_quickack: key, recovery: Recovery::Sack, mss_bytes: MSS, ..TcpConfig::default() };
            let mut r = TcpReceiver::new(&cfg);
            let mut arrive =
                |seq: u64, len: u32, psh: bool| r.on_data(0, seq, len, false, false, psh).ack.map(|a| a.ack);
            assert_eq!(arrive(0, MSS, true), key.then_some(1000), "a lone pushed segment");
            assert_eq!(arrive(1000, MSS, false), if key { None } else { Some(2000) });
            assert_eq!(arrive(2000, MSS, false), if key { Some(3000) } else { None }, "every second segment");
            assert_eq!(arrive(3000, 400, false), Some(3400), "a short segment is pushed (and the second)");
        }
    }

    #[test]
    fn psh_quickack_learns_a_smaller_mss_as_tcp_measure_rcv_mss_does() {
        // A peer sending 700-byte segments: the first is short against the MSS and pushed; the
        // second of the same length becomes `rcv_mss` and is not; from then on they are
        // full-sized, acknowledged every second one unless they carry PSH. (Before: every
        // segment shorter than the MSS was acknowledged at once.)
        let cfg = TcpConfig { psh_quickack: true, recovery: Recovery::Sack, mss_bytes: MSS, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&cfg);
        assert_eq!(r.rcv_mss, 536, "tcp_initialize_rcv_mss: TCP_MSS_DEFAULT");
        let mut arrive = |i: u64, psh: bool| r.on_data(0, i * 700, 700, false, false, psh).ack.is_some();
        // 700 >= 536: the first segment is already the estimate, without PSH not pushed.
        assert_eq!([arrive(0, false), arrive(1, false), arrive(2, true), arrive(3, false)], [false, true, true, false]);
        let mut r = TcpReceiver::new(&TcpConfig { rwnd_bytes: 800, ..cfg.clone() });
        assert_eq!(r.rcv_mss, 400, "rcv_wnd / 2");
        let mut r2 = TcpReceiver::new(&cfg);
        r2.rcv_mss = MSS;
        let mut arrive = |i: u64| r2.on_data(0, i * 700, 700, false, false, false).ack.is_some();
        assert_eq!([arrive(0), arrive(1), arrive(2), arrive(3)], [true, false, true, false]);
        assert_eq!(r2.rcv_mss, 700);
        // A short segment with PSH below TCP_MSS_DEFAULT is always pushed (no MSS candidate).
        let mut arrive = |i: u64| r.on_data(0, i * 300, 300, false, false, true).ack.is_some();
        assert_eq!([arrive(0), arrive(1), arrive(2)], [true, true, true]);
    }

    #[test]
    fn grow_window_quickack_acks_every_segment_while_the_window_grows() {
        // Linux `tcp_grow_window`: each in-order segment raises `rcv_ssthresh` by 2 * MSS from
        // 64512 bytes and sets `icsk_ack.quick |= 1`, so it is acknowledged at once; once the
        // window reaches its clamp (`rwnd_bytes`) ACKs go back to every second segment.
        // Without the key the first segment already waits (RFC 5681 §4.2).
        for key in [false, true] {
            let cfg = TcpConfig {
                grow_window_quickack: key,
                rwnd_bytes: LINUX_INITIAL_RCV_SSTHRESH + 5 * MSS as u64,
                recovery: Recovery::Sack,
                mss_bytes: MSS,
                ..TcpConfig::default()
            };
            let mut r = TcpReceiver::new(&cfg);
            let acks: Vec<bool> = (0..7).map(|i| seg(&mut r, i).ack.is_some()).collect();
            let grown = [true, true, true, false, true, false, true];
            let rfc = [false, true, false, true, false, true, false];
            assert_eq!(acks, if key { grown } else { rfc });
            // An out-of-order segment with SACK grows it too (`tcp_data_queue_ofo`).
            let mut r = TcpReceiver::new(&cfg);
            r.on_data(0, 2 * MSS as u64, MSS, false, false, false);
            let expect = if key { LINUX_INITIAL_RCV_SSTHRESH + 2 * MSS as u64 } else { LINUX_INITIAL_RCV_SSTHRESH };
            assert_eq!(r.rcv_ssthresh, expect);
        }
    }

    #[test]
    fn grow_window_steps_extend_the_initial_quickacks_as_linux_ors_them() {
        // Linux starts in quickack mode with 16 ACKs (`tcp_incr_quickack`); each
        // `tcp_grow_window` step sets `icsk_ack.quick |= 1` before the ACK's decrement, so
        // with 6 steps the first 16 + 6 = 22 segments are acknowledged one by one (the
        // referee kernel's receivers in ss-overshoot and four-flows-q50), then every second.
        // Taking the larger of the count and 1 instead gave 16.
        for (steps, singles) in [(0u64, 16usize), (6, 22)] {
            let cfg = TcpConfig {
                grow_window_quickack: true,
                quickack_segments: 16,
                rwnd_bytes: LINUX_INITIAL_RCV_SSTHRESH + steps * 2 * MSS as u64,
                recovery: Recovery::Sack,
                mss_bytes: MSS,
                ..TcpConfig::default()
            };
            let mut r = TcpReceiver::new(&cfg);
            let acks: Vec<bool> = (0..30).map(|i| seg(&mut r, i).ack.is_some()).collect();
            let first_delayed = acks.iter().position(|a| !a).unwrap();
            assert_eq!(first_delayed, singles, "{acks:?}");
            assert!(acks[singles..].chunks(2).all(|c| c == [false, true]), "{acks:?}");
        }
    }

    fn autotune_receiver(key: bool, rwnd_bytes: u64) -> TcpReceiver {
        let cfg = TcpConfig {
            rcvbuf_autotune: key,
            grow_window_quickack: key,
            rwnd_bytes,
            recovery: Recovery::Sack,
            mss_bytes: 1448,
            ..TcpConfig::default()
        };
        TcpReceiver::new(&cfg)
    }

    /// Slow start towards the receiver: rounds of 10, 20, 40, ... full segments, one round per
    /// `rtt` ns, 100 µs apart; the window of every ACK, in order.
    fn slow_start_windows(r: &mut TcpReceiver, rounds: u32, rtt: SimTime) -> Vec<u64> {
        let (mut seq, mut wins) = (0u64, Vec::new());
        for k in 0..rounds {
            for i in 0..(10u64 << k) {
                let res = r.on_data(u64::from(k) * rtt + i * 100_000, seq, 1448, false, false, false);
                seq += 1448;
                wins.extend(res.ack.map(|a| a.rwnd));
            }
        }
        wins
    }

    #[test]
    fn rcvbuf_autotune_opens_the_window_once_per_receiver_rtt() {
        // Without the key every ACK advertises `rwnd_bytes`.
        let mut r = autotune_receiver(false, 4 << 20);
        assert!(slow_start_windows(&mut r, 6, 50_000_000).iter().all(|&w| w == 4 << 20));
        // With it the first ACK advertises `rcv_ssthresh` (64512 plus the first segment's
        // growth, rounded up to the scale's unit), the window grows, never
        // shrinks, and stays within the clamp, which grows past the first buffer's 81920.
        let mut r = autotune_receiver(true, 4 << 20);
        let wins = slow_start_windows(&mut r, 6, 50_000_000);
        assert_eq!(wins[0], (LINUX_INITIAL_RCV_SSTHRESH + 2 * 1448).div_ceil(WSCALE_UNIT) * WSCALE_UNIT);
        assert!(wins.windows(2).all(|w| w[0] <= w[1]), "{wins:?}");
        assert!(r.window_clamp > 81_920 && r.window_clamp < 4 << 20, "{}", r.window_clamp);
        assert!(*wins.last().unwrap() <= r.window_clamp.div_ceil(WSCALE_UNIT) * WSCALE_UNIT);
        // The receiver's RTT: the time one advertised window of data took (3 rounds here,
        // the window being larger than the sender's), kept as a minimum.
        let rtt_us = r.rcv_rtt_est_us8 >> 3;
        assert!((50_000..=150_000).contains(&rtt_us), "{rtt_us}");
        // `rwnd_bytes` caps the clamp and the window.
        let mut r = autotune_receiver(true, 200_000);
        let wins = slow_start_windows(&mut r, 7, 50_000_000);
        assert_eq!(*wins.last().unwrap(), 200_000);
        assert!(wins.iter().all(|&w| w <= 200_000));
    }

    #[test]
    fn rcvbuf_grow_follows_the_kernels_trace() {
        // `tcp:tcp_rcvbuf_grow` of the 6.18 kernel (drop-or-forward, seed 1): 30408 bytes read
        // in an RTT after an initial `rcvq_space` of 14480 made `window_clamp` 81920 →
        // 194610: rcvwin = 2 · 30408 + 2 · (2 · 30408 · 15928 / 14480) = 194610 bytes,
        // `sk_rcvbuf` 311376 (scaling ratio 160/256), the clamp 194610.
        let mut r = autotune_receiver(true, 4 << 20);
        assert_eq!((r.window_clamp, r.rcvq_space), (81_920, 14_480));
        r.rcvbuf_grow(30_408);
        assert_eq!((r.sk_rcvbuf, r.window_clamp), (311_376, 194_610));
        // Out-of-order data adds its span; tcp_rmem[2] bounds the buffer.
        r.on_data(0, 10_000, 1000, false, false, false);
        r.rcvbuf_grow(1 << 28);
        assert_eq!((r.sk_rcvbuf, r.window_clamp), (TCP_RMEM_MAX, win_from_space(TCP_RMEM_MAX)));
    }

    #[test]
    fn rcvbuf_autotune_takes_the_receivers_rtt_from_the_echo_of_its_timestamps() {
        // `tcp_rcv_rtt_measure_ts`: once per new TSecr, now − TSecr in ms ticks; the first
        // sample sets the estimate, later ones are smoothed by 7/8 (`tcp_rcv_rtt_update`).
        // Without timestamps (or without the key) the echo is ignored.
        for (timestamps, key) in [(true, true), (false, true), (true, false)] {
            let cfg = TcpConfig {
                timestamps,
                rcvbuf_autotune: key,
                recovery: Recovery::Sack,
                mss_bytes: 1448,
                ..TcpConfig::default()
            };
            let mut r = TcpReceiver::new(&cfg);
            r.rcv_rtt_measure_ts(150, 1448, 100);
            r.rcv_rtt_measure_ts(190, 1448, 100);
            r.rcv_rtt_measure_ts(270, 1448, 200);
            r.rcv_rtt_measure_ts(280, 100, 210);
            let expect = if timestamps && key { (50_000 << 3) - 50_000 + 70_000 } else { 0 };
            assert_eq!(r.rcv_rtt_est_us8, expect);
        }
    }

    #[test]
    fn rcvbuf_autotune_never_moves_the_right_edge_back() {
        // `tcp_select_window`: out-of-order data fills the buffer, but the window offered
        // stays what the last ACK offered beyond the cumulative ACK (`cur_win`).
        let mut r = autotune_receiver(true, 4 << 20);
        let first = r.on_data(0, 0, 1448, false, false, false).ack.unwrap();
        let edge = first.ack + first.rwnd;
        for i in 2..40u64 {
            let a = r.on_data(0, i * 1448, 1448, false, false, false).ack.unwrap();
            assert!(a.ack + a.rwnd >= edge, "segment {i}: {} < {edge}", a.ack + a.rwnd);
        }
    }

    #[test]
    fn in_order_without_delayed_ack_acks_every_segment() {
        let mut r = receiver(false);
        let res = seg(&mut r, 0);
        assert_eq!(res.delivered, 1000);
        assert_eq!(res.ack.unwrap().ack, 1000);
    }

    #[test]
    fn timer_wheel_arms_the_delayed_ack_in_jiffies_on_the_next_tick() {
        // Linux `tcp_send_delayed_ack` at HZ 250: 40 ms = 10 jiffies from the jiffy of 10.5 ms
        // (2), fired on the tick after: 13 jiffies = 52 ms, not 50.5 ms.
        let cfg = TcpConfig {
            recovery: Recovery::Sack,
            delayed_ack_timeout_ns: 40_000_000,
            timer_wheel_hz: 250,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(&cfg);
        assert!(r.on_data(10_500_000, 0, MSS, false, false, false).ack.is_none());
        assert_eq!(r.delack_deadline(), Some(52_000_000));
        let exact = TcpConfig { timer_wheel_hz: 0, ..cfg };
        let mut r = TcpReceiver::new(&exact);
        r.on_data(10_500_000, 0, MSS, false, false, false);
        assert_eq!(r.delack_deadline(), Some(50_500_000));
    }

    #[test]
    fn delayed_ack_acks_every_second_segment_or_on_timer() {
        let mut r = receiver(true);
        assert!(seg(&mut r, 0).ack.is_none());
        assert_eq!(r.delack_deadline(), Some(200_000_000));
        assert_eq!(seg(&mut r, 1).ack.unwrap().ack, 2000);
        assert!(seg(&mut r, 2).ack.is_none());
        assert!(r.on_delack_timer(100_000_000).is_none());
        assert_eq!(r.on_delack_timer(200_000_000).unwrap().ack, 3000);
    }

    #[test]
    fn out_of_order_segment_is_acked_at_once_with_sack_block() {
        let mut r = receiver(true);
        seg(&mut r, 0);
        let res = seg(&mut r, 2);
        let ack = res.ack.expect("immediate duplicate ACK");
        assert_eq!(ack.ack, 1000);
        assert_eq!(ack.sack.iter().collect::<Vec<_>>(), vec![(2000, 3000)]);
    }

    #[test]
    fn hole_fill_is_acked_at_once_and_delivers_everything_buffered() {
        let mut r = receiver(true);
        seg(&mut r, 1);
        seg(&mut r, 2);
        let res = seg(&mut r, 0);
        assert_eq!(res.delivered, 3000);
        assert_eq!(res.ack.unwrap().ack, 3000);
    }

    #[test]
    fn first_sack_block_is_the_most_recent_segment() {
        let mut r = receiver(false);
        seg(&mut r, 2);
        seg(&mut r, 4);
        let ack = seg(&mut r, 6).ack.unwrap();
        assert_eq!(ack.sack.iter().collect::<Vec<_>>(), vec![(6000, 7000), (4000, 5000), (2000, 3000)]);
        // Receiving 5 merges blocks 4 and 6: the merged block is reported first.
        let ack = seg(&mut r, 5).ack.unwrap();
        assert_eq!(ack.sack.iter().collect::<Vec<_>>(), vec![(4000, 7000), (2000, 3000)]);
    }

    #[test]
    fn duplicates_are_counted_and_acked() {
        let mut r = receiver(true);
        seg(&mut r, 0);
        seg(&mut r, 1);
        let res = seg(&mut r, 0);
        assert!(res.duplicate);
        assert_eq!(res.ack.unwrap().ack, 2000);
        assert_eq!(r.stats.duplicate_segments, 1);
    }

    fn dsack_receiver() -> TcpReceiver {
        let cfg = TcpConfig { delayed_ack: false, recovery: Recovery::Sack, dsack: true, ..TcpConfig::default() };
        TcpReceiver::new(&cfg)
    }

    fn blocks(res: DataResult) -> Vec<(u64, u64)> {
        res.ack.expect("an ACK").sack.iter().collect()
    }

    #[test]
    fn dsack_reports_a_duplicate_below_the_cumulative_ack_once() {
        // RFC 2883 §4.1.1: the duplicate goes first, alone (nothing is out of order), and
        // only in the ACK it triggered.
        let mut r = dsack_receiver();
        seg(&mut r, 0);
        seg(&mut r, 1);
        assert_eq!(blocks(seg(&mut r, 0)), vec![(0, 1000)]);
        assert_eq!(blocks(seg(&mut r, 2)), vec![], "reported once");
        let mut plain = receiver(false);
        seg(&mut plain, 0);
        assert_eq!(blocks(seg(&mut plain, 0)), vec![], "without `dsack` (ns-2, ns-3, rfc)");
    }

    #[test]
    fn dsack_of_out_of_order_data_is_followed_by_the_block_holding_it() {
        // RFC 2883 §4.1.2: duplicate of segment 3, held above the hole at 0; the block that
        // holds it follows, even when the two are equal.
        let mut r = dsack_receiver();
        seg(&mut r, 3);
        seg(&mut r, 5);
        assert_eq!(blocks(seg(&mut r, 3)), vec![(3000, 4000), (3000, 4000), (5000, 6000)]);
        seg(&mut r, 4);
        assert_eq!(blocks(seg(&mut r, 4)), vec![(4000, 5000), (3000, 6000)]);
    }

    #[test]
    fn dsack_of_a_partly_duplicate_segment_names_the_old_part() {
        let mut r = dsack_receiver();
        seg(&mut r, 0);
        let res = r.on_data(0, 500, MSS, false, false, false);
        assert_eq!(res.delivered, 500);
        assert_eq!(blocks(res), vec![(500, 1000)]);
    }

    #[test]
    fn ce_sets_ece_until_cwr() {
        let mut r = receiver(false);
        assert!(r.on_data(0, 0, MSS, true, false, false).ack.unwrap().ece);
        assert!(r.on_data(0, 1000, MSS, false, false, false).ack.unwrap().ece);
        assert!(!r.on_data(0, 2000, MSS, false, true, false).ack.unwrap().ece);
    }
}

//! A TCP flow: its two endpoints, its application, the segments a scenario drops on purpose,
//! and the per-flow bookkeeping of the summary (spurious timeouts, goodput bins).

use crate::app::App;
use crate::engine::time::ns_to_s;
use crate::engine::time::SimTime;
use crate::net::packet::Packet;
use crate::net::NO_TAG;
use crate::net::{FlowId, LinkId, NodeId};
use crate::observe::{TraceKind, Traces};
use crate::tcp::{TcpReceiver, TcpSender};

/// Segments a scenario asks to drop at the sender, by segment index (seq / MSS).
#[derive(Clone, Debug, Default)]
pub struct DropRules {
    /// Drop the first transmission of these segments.
    pub first_tx: Vec<u64>,
    /// Drop the first retransmission of these segments (index, already used).
    pub retx: Vec<(u64, bool)>,
}

impl DropRules {
    pub(super) fn should_drop(&mut self, seg_index: u64, is_retx: bool) -> bool {
        if !is_retx {
            return self.first_tx.contains(&seg_index);
        }
        match self.retx.iter_mut().find(|(i, used)| *i == seg_index && !*used) {
            Some(rule) => {
                rule.1 = true;
                true
            }
            None => false,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.first_tx.is_empty() && self.retx.is_empty()
    }
}

pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// The links the flow's packets leave their host by, noted for a run whose routes cannot
    /// change ([`World::static_routes`](super::World::static_routes)): `[0]` from `src` (data),
    /// `[1]` from `dst` (ACKs); [`NO_TAG`] otherwise, and the host's route is looked up.
    /// Beside `src` and `dst`, which a packet's creation reads anyway, it spares the host's
    /// node and route entry (cold with hundreds of hosts) for every packet an endpoint sends.
    pub(super) out_links: [LinkId; 2],
    pub app: App,
    pub start_ns: SimTime,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub drops: DropRules,
    /// Bytes written by a rate-limited application so far.
    pub app_written: u64,
    /// The socket send buffer (data written and not yet acknowledged); a rate-limited
    /// application's write that does not fit is refused whole (ns-3 `TcpSocketBase::Send`
    /// fails, and its `OnOffApplication` drops the packet). u64::MAX: unbounded.
    pub sndbuf_bytes: u64,
    pub app_refused_bytes: u64,
    pub(super) rto_event_at: Option<SimTime>,
    pub(super) delack_event_at: Option<SimTime>,
    /// Unresolved timeouts: (retransmitted seq, time of the timeout), sorted. A timeout is
    /// spurious if any copy of that segment sent before it reaches the receiver. A flat list:
    /// a flow has a few, and a timeout then costs no allocation once the list has room.
    pub(super) timeouts: Vec<(u64, SimTime)>,
    /// The largest seq in `timeouts` while it is not empty: a segment starting above it
    /// cannot resolve any, which spares the list (cold with hundreds of flows) a look for
    /// every segment a flow receives after its first genuine timeout.
    pub(super) timeouts_last: u64,
    pub spurious_timeouts: u64,
    pub delivered_bytes: u64,
    pub completion_ns: Option<SimTime>,
    pub tag_errors: u64,
    pub scripted_drops: u64,
    /// Goodput trace: the interval being summed and the bytes delivered in it so far.
    pub(super) goodput_bin: u64,
    pub(super) goodput_bytes: u64,
    /// Split connection: bytes this flow delivers in order are handed to that flow's sender
    /// as application data (a split connection: the flow ends at a proxy that relays it).
    pub relay_to: Option<FlowId>,
    /// The last traced cwnd, ssthresh, inflight, RTO and effective window.
    pub(super) last_traced: [u64; 5],
    /// Time limited by the peer's receive window (`World::account_rwnd_limit`): the closed
    /// stretches, and the start of the open one.
    pub(super) rwnd_limited_ns: SimTime,
    pub(super) rwnd_limited_since: Option<SimTime>,
    /// With `tcp.rcvbuf_autotune`: the sender's TS.Recent from the receiver's ACKs (RFC 7323
    /// §4.3: the TSval of the latest ACK, on the receiver's timestamp clock), which its data
    /// segments echo as TSecr (`Packet::rwnd_bytes` of a data segment).
    pub(super) peer_tsval: u32,
}

impl Flow {
    /// Seconds the flow was limited by the peer's receive window, up to `end` (the end of the
    /// run) for a stretch still open.
    pub fn rwnd_limited_s(&self, end: SimTime) -> f64 {
        let open = self.rwnd_limited_since.map_or(0, |since| end.saturating_sub(since));
        (self.rwnd_limited_ns + open) as f64 / 1e9
    }

    pub fn new(
        name: String,
        src: NodeId,
        dst: NodeId,
        app: App,
        start_ns: SimTime,
        cfg: crate::tcp::TcpConfig,
        drops: DropRules,
    ) -> Flow {
        let receiver = TcpReceiver::new(&cfg);
        let sender = TcpSender::new(cfg, app.initial_bytes());
        Flow {
            name,
            src,
            dst,
            out_links: [NO_TAG; 2],
            app,
            start_ns,
            sender,
            receiver,
            drops,
            app_written: 0,
            sndbuf_bytes: u64::MAX,
            app_refused_bytes: 0,
            rto_event_at: None,
            delack_event_at: None,
            timeouts: Vec::new(),
            timeouts_last: 0,
            spurious_timeouts: 0,
            delivered_bytes: 0,
            completion_ns: None,
            tag_errors: 0,
            scripted_drops: 0,
            goodput_bin: 0,
            goodput_bytes: 0,
            relay_to: None,
            last_traced: [u64::MAX; 5],
            rwnd_limited_ns: 0,
            rwnd_limited_since: None,
            peer_tsval: 0,
        }
    }
}

/// A copy of a timed-out segment reached the receiver: if it was sent before a timeout of that
/// segment, that timeout was spurious.
#[inline]
pub(super) fn resolve_spurious(flow: &mut Flow, pkt: &Packet) {
    if !flow.timeouts.is_empty() && pkt.seq <= flow.timeouts_last {
        resolve_spurious_in(flow, pkt);
    }
}

/// [`resolve_spurious`] for a segment that may cover a timed-out one: drops (and counts) the
/// timeouts of the segments it covers that came after it was sent. Rare (retransmissions), so
/// out of line: the per-segment path keeps only the guard.
#[inline(never)]
fn resolve_spurious_in(flow: &mut Flow, pkt: &Packet) {
    let end = pkt.seq + pkt.len as u64;
    let t = &mut flow.timeouts;
    let lo = t.partition_point(|&(k, _)| k < pkt.seq);
    let hi = lo + t[lo..].partition_point(|&(k, _)| k < end);
    let mut kept = lo;
    for i in lo..hi {
        if pkt.sent_ns >= t[i].1 {
            t[kept] = t[i];
            kept += 1;
        }
    }
    t.drain(kept..hi);
    flow.spurious_timeouts += (hi - kept) as u64;
    note_timeouts_last(flow);
}

/// Most unresolved timeouts a flow keeps. A genuine timeout stays in the list (a copy sent
/// before it might still arrive and show it spurious), so the list grows with the flow's
/// timeouts; past this many the oldest is forgotten, and can then no longer be counted as
/// spurious. A run that reaches it has had more than this many timeouts of one flow.
pub const MAX_UNRESOLVED_TIMEOUTS: usize = 1024;

/// A timeout of the segment at `seq`, at `now`: unresolved until a copy of the segment reaches
/// the receiver.
pub(super) fn note_timeout(flow: &mut Flow, seq: u64, now: SimTime) {
    if flow.timeouts.len() >= MAX_UNRESOLVED_TIMEOUTS {
        // The lowest segment's entry goes: long acknowledged, most likely a genuine timeout
        // that no late copy will ever resolve. Without a bound the list grew by one entry per
        // timeout (an RTO of 1 ns: 15 GB in ten minutes).
        flow.timeouts.remove(0);
    }
    let at = flow.timeouts.partition_point(|&e| e <= (seq, now));
    flow.timeouts.insert(at, (seq, now));
    note_timeouts_last(flow);
}

/// The original of the segment at `seq` reached the receiver before its timeouts: they were
/// all spurious.
pub(super) fn resolve_timeout_at(flow: &mut Flow, seq: u64) {
    let before = flow.timeouts.len();
    flow.timeouts.retain(|&(k, _)| k != seq);
    flow.spurious_timeouts += (before - flow.timeouts.len()) as u64;
    note_timeouts_last(flow);
}

/// Keeps `timeouts_last` after the list changed (timeouts and their resolution only).
fn note_timeouts_last(flow: &mut Flow) {
    flow.timeouts_last = flow.timeouts.last().map_or(0, |&(k, _)| k);
}

/// Goodput trace: `bytes` delivered at `now`. Rows are written as intervals close, so the trace
/// streams with the others (one row per flow and interval, idle intervals as 0).
pub(super) fn goodput_add(
    flow: &mut Flow,
    traces: &mut Traces,
    f: FlowId,
    now: SimTime,
    interval: SimTime,
    bytes: u64,
) {
    let bin = now / interval;
    if bin != flow.goodput_bin {
        goodput_close(flow, traces, f, bin, interval);
    }
    flow.goodput_bytes += bytes;
}

/// Writes the rows of intervals `goodput_bin .. until` and makes `until` the current one.
pub(super) fn goodput_close(flow: &mut Flow, traces: &mut Traces, f: FlowId, until: u64, interval: SimTime) {
    let iv_s = ns_to_s(interval);
    for b in flow.goodput_bin..until {
        let bytes = if b == flow.goodput_bin { flow.goodput_bytes } else { 0 };
        traces.record(TraceKind::Goodput, b * interval, f, bytes as f64 * 8.0 / iv_s);
    }
    flow.goodput_bin = until.max(flow.goodput_bin);
    flow.goodput_bytes = 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn flow() -> Flow {
        Flow::new("f".into(), 0, 1, App::Bulk, 0, crate::tcp::TcpConfig::default(), DropRules::default())
    }

    /// A copy of the segment at `seq`, `len` bytes, sent at `sent_ns`.
    fn copy(seq: u64, len: u32, sent_ns: SimTime) -> Packet {
        let mut p = Packet::new(0, 0, 0, 1, PacketKind::Data, 40 + len, sent_ns);
        p.seq = seq;
        p.len = len;
        p
    }

    #[test]
    fn the_unresolved_timeouts_of_a_flow_are_bounded_and_the_newest_are_kept() {
        let mut f = flow();
        // Genuine timeouts of one segment every ns (an RTO of 1 ns): the list grew without end.
        for t in 0..3 * MAX_UNRESOLVED_TIMEOUTS as u64 {
            note_timeout(&mut f, 1000 + t / 100, t);
        }
        assert_eq!(f.timeouts.len(), MAX_UNRESOLVED_TIMEOUTS);
        assert_eq!(f.timeouts_last, 1000 + (3 * MAX_UNRESOLVED_TIMEOUTS as u64 - 1) / 100);
        let oldest_kept = f.timeouts[0].1;
        assert_eq!(oldest_kept, 2 * MAX_UNRESOLVED_TIMEOUTS as u64, "the oldest entries went first");
    }

    #[test]
    fn a_copy_sent_before_a_timeout_makes_it_spurious_and_the_largest_key_follows_the_map() {
        let mut f = flow();
        note_timeout(&mut f, 1000, 50);
        note_timeout(&mut f, 5000, 80);
        assert_eq!(f.timeouts_last, 5000);
        // Above every timed-out segment: nothing to resolve.
        resolve_spurious(&mut f, &copy(6000, 1000, 10));
        assert_eq!((f.spurious_timeouts, f.timeouts.len()), (0, 2));
        // A copy starting at the largest key, sent before its timeout: spurious.
        resolve_spurious(&mut f, &copy(5000, 1000, 70));
        assert_eq!((f.spurious_timeouts, f.timeouts.len(), f.timeouts_last), (1, 1, 1000));
        // A copy sent after the timeout (the retransmission) resolves nothing.
        resolve_spurious(&mut f, &copy(1000, 1000, 60));
        assert_eq!((f.spurious_timeouts, f.timeouts.len()), (1, 1));
        // The original, arriving after its retransmission, was sent before the timeout.
        resolve_spurious(&mut f, &copy(1000, 1000, 5));
        assert_eq!((f.spurious_timeouts, f.timeouts.len()), (2, 0));
        note_timeout(&mut f, 300, 90);
        assert_eq!(f.timeouts_last, 300, "a new timeout after the map emptied");
        resolve_timeout_at(&mut f, 300);
        assert_eq!((f.spurious_timeouts, f.timeouts.len()), (3, 0));
    }

    #[test]
    fn of_two_timeouts_of_one_segment_only_those_after_the_copy_was_sent_are_spurious() {
        let mut f = flow();
        note_timeout(&mut f, 2000, 100);
        note_timeout(&mut f, 4000, 150);
        note_timeout(&mut f, 2000, 300);
        assert_eq!(f.timeouts, vec![(2000, 100), (2000, 300), (4000, 150)]);
        // A copy of 2000 sent at 200: the timeout at 300 was spurious, the one at 100 not.
        resolve_spurious(&mut f, &copy(2000, 1000, 200));
        assert_eq!(f.spurious_timeouts, 1);
        assert_eq!(f.timeouts, vec![(2000, 100), (4000, 150)]);
        // One copy covering both segments, sent before either timeout.
        resolve_spurious(&mut f, &copy(1000, 4000, 50));
        assert_eq!((f.spurious_timeouts, f.timeouts.len(), f.timeouts_last), (3, 0, 0));
    }
}

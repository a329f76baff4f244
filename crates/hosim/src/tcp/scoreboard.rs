//! The sender's record of every outstanding segment, and the SACK scoreboard operations of
//! RFC 6675 §4 on top of it: Update(), IsLost(), SetPipe().
//!
//! Segments are never re-packetized: a retransmission reuses the original boundaries, and the
//! receiver SACKs whole segments, so marking works segment by segment.

use std::collections::VecDeque;

use crate::engine::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegRec {
    pub start: u64,
    pub end: u64,
    pub sacked: bool,
    /// Set by the last `update_loss` pass: RFC 6675 IsLost(start).
    pub lost: bool,
    /// How many times this segment has been sent (1 = never retransmitted).
    pub tx_count: u16,
    /// RFC 8985 Segment.xmit_ts: the time of the latest (re)transmission.
    pub last_sent_ns: SimTime,
    /// A retransmission of this segment is in the network: set when it is resent, cleared when
    /// RACK marks that retransmission lost too (RFC 8985 §6.2 step 5; Linux
    /// `TCPCB_SACKED_RETRANS`). Only RACK's SetPipe reads it.
    pub rexmit_out: bool,
}

impl SegRec {
    /// Bytes the segment covers (a record is never empty).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// What a cumulative ACK removed, for the RTT sample and statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckedInfo {
    pub bytes: u64,
    /// Send time of the newest fully acked segment, when the ACK is an unambiguous echo of
    /// it: Karn's rule (RFC 6298 §3) excludes ACKs covering a retransmitted segment, and an ACK
    /// covering a segment SACKed earlier was triggered by a hole being filled, not by that
    /// segment's arrival, so it gives no sample either.
    pub rtt_sample_sent_ns: Option<SimTime>,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SegRec>,
    sacked_bytes: u64,
    /// Segments SACKed (RFC 8985 RACK.segs_sacked).
    sacked_segs: u32,
    /// Segments removed from the front so far: `index + popped` names a segment for good.
    popped: u64,
    /// Where IsLost() starts to hold, kept between `update_loss` calls.
    loss_edge: LossEdge,
    /// The segments below HighRxt, kept between `update_loss` calls.
    rxt: RxtSpan,
    /// Segments marked lost (again, for a lost retransmission) since `begin_ack`: Linux
    /// `rs->losses`, what `tcp_cwnd_reduction` calls `newly_lost`.
    lost_this_ack: u32,
}

/// RFC 6675 IsLost() as one boundary. IsLost(S) counts the SACKed segments and bytes above S,
/// which only grow towards the front, so the segments it holds for are exactly the unSACKed
/// ones below the highest SACKed segment with DupThresh or more SACKed segments (or more than
/// (DupThresh - 1) * SMSS SACKed bytes) at or above it. New SACKs only move that segment up,
/// and a cumulative ACK or new data does not move it, so `update_loss` walks each segment past
/// it once per recovery instead of the whole scoreboard on every ACK.
#[derive(Clone, Copy, Debug, Default)]
struct LossEdge {
    /// Start of that SACKed segment; None while IsLost() holds for no segment.
    start: Option<u64>,
    /// Its index plus `Scoreboard::popped`, and its length in bytes.
    id: u64,
    len: u64,
    /// SACKed segments and bytes starting at or above it (while `start` is Some).
    sacked_segs: u32,
    sacked_bytes: u64,
}

/// The segments starting below `end` (HighRxt's end when `update_loss` last ran): the
/// retransmitted segments, which SetPipe() counts once more unless SACKed. Segments are
/// contiguous, so their unSACKed bytes are `seg_end` - the front's start - `sacked_bytes`.
#[derive(Clone, Copy, Debug, Default)]
struct RxtSpan {
    end: u64,
    /// End of the last of them (0 if none).
    seg_end: u64,
    /// Index plus `Scoreboard::popped` of the first segment starting at or above `end`.
    next_id: u64,
    /// Their SACKed bytes.
    sacked_bytes: u64,
}

impl Scoreboard {
    pub fn push_new(&mut self, start: u64, end: u64, now: SimTime) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end == start));
        if start < self.rxt.end {
            self.rxt.seg_end = end;
            self.rxt.next_id += 1;
        }
        self.segs.push_back(SegRec {
            start,
            end,
            sacked: false,
            lost: false,
            tx_count: 1,
            last_sent_ns: now,
            rexmit_out: false,
        });
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn get(&self, i: usize) -> &SegRec {
        &self.segs[i]
    }

    pub fn iter(&self) -> impl Iterator<Item = &SegRec> {
        self.segs.iter()
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    pub fn sacked_segs(&self) -> u32 {
        self.sacked_segs
    }

    /// Mutable access for loss marking (RACK, RFC 8985 §6.2 step 5).
    pub fn get_mut(&mut self, i: usize) -> &mut SegRec {
        &mut self.segs[i]
    }

    /// Index of the segment that starts at `seq`, if any.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end <= seq);
        (i < self.segs.len() && self.segs[i].start == seq).then_some(i)
    }

    /// Index of the first segment that starts at or after `seq` (`len()` if none).
    pub fn first_starting_at(&self, seq: u64) -> usize {
        self.segs.partition_point(|s| s.start < seq)
    }

    /// Records a retransmission of segment `i`.
    pub fn mark_resent(&mut self, i: usize, now: SimTime) -> SegRec {
        let s = &mut self.segs[i];
        s.tx_count = s.tx_count.saturating_add(1);
        s.last_sent_ns = now;
        s.rexmit_out = true;
        *s
    }

    /// Removes every segment below the cumulative ACK `ack`.
    pub fn ack_to(&mut self, ack: u64) -> AckedInfo {
        self.ack_to_with(ack, &mut |_| {})
    }

    /// `ack_to`, calling `delivered` for every segment this ACK delivers (not those SACKed
    /// before), before it is removed.
    pub fn ack_to_with(&mut self, ack: u64, delivered: &mut impl FnMut(&SegRec)) -> AckedInfo {
        let mut info = AckedInfo::default();
        let len_before = self.segs.len();
        let mut ambiguous = false;
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                let s = self.segs.pop_front().expect("front exists");
                info.bytes += s.len();
                if s.sacked {
                    self.sacked_bytes -= s.len();
                    self.sacked_segs -= 1;
                    if s.start < self.rxt.end {
                        self.rxt.sacked_bytes -= s.len();
                    }
                } else {
                    delivered(&s);
                }
                ambiguous |= s.tx_count > 1 || s.sacked;
                info.rtt_sample_sent_ns = Some(s.last_sent_ns);
            } else {
                if front.start < ack {
                    // Only possible if a peer acknowledges inside a segment; keep the rest.
                    let cut = ack - front.start;
                    if front.sacked {
                        self.sacked_bytes -= cut;
                    }
                    info.bytes += cut;
                    front.start = ack;
                    // Both found again from the front at the next `update_loss`.
                    self.rxt = RxtSpan::default();
                    self.loss_edge.start = None;
                }
                break;
            }
        }
        self.popped += (len_before - self.segs.len()) as u64;
        if self.loss_edge.start.is_some() && self.loss_edge.id < self.popped {
            // The segment IsLost() started at was acknowledged: every SACKed segment left is
            // above it, and none of them has enough SACKed above it.
            self.loss_edge.start = None;
        }
        if ambiguous {
            info.rtt_sample_sent_ns = None;
        }
        info
    }

    /// RFC 6675 Update(): marks the segments covered by the SACK blocks. Returns the number of
    /// newly SACKed bytes.
    pub fn mark_sacked(&mut self, blocks: impl Iterator<Item = (u64, u64)>) -> u64 {
        self.mark_sacked_with(blocks, &mut |_| {})
    }

    /// `mark_sacked`, calling `delivered` for every newly SACKed segment.
    pub fn mark_sacked_with(
        &mut self,
        blocks: impl Iterator<Item = (u64, u64)>,
        delivered: &mut impl FnMut(&SegRec),
    ) -> u64 {
        let mut newly = 0;
        let (edge, rxt) = (&mut self.loss_edge, &mut self.rxt);
        for (start, end) in blocks {
            let mut i = self.segs.partition_point(|s| s.end <= start);
            while i < self.segs.len() && self.segs[i].start < end {
                let s = &mut self.segs[i];
                if !s.sacked && s.start >= start && s.end <= end {
                    s.sacked = true;
                    // A SACKed segment is not lost (every reader of the mark skips SACKed
                    // segments; `update_loss` then finds the marks it left).
                    s.lost = false;
                    newly += s.len();
                    self.sacked_segs += 1;
                    if edge.start.is_some_and(|e| s.start >= e) {
                        edge.sacked_segs += 1;
                        edge.sacked_bytes += s.len();
                    }
                    if s.start < rxt.end {
                        rxt.sacked_bytes += s.len();
                    }
                    delivered(s);
                }
                i += 1;
            }
        }
        self.sacked_bytes += newly;
        newly
    }

    /// RFC 2018 §8: after a retransmission timeout the sender forgets SACK information, since
    /// the receiver may have reneged.
    pub fn clear_sacked(&mut self) {
        for s in self.segs.iter_mut() {
            s.sacked = false;
            s.lost = false;
            s.rexmit_out = false;
        }
        self.sacked_bytes = 0;
        self.sacked_segs = 0;
        self.loss_edge.start = None;
        self.rxt = RxtSpan { next_id: self.popped, ..RxtSpan::default() };
    }

    /// Brings IsLost() up to date for every segment and returns SetPipe (RFC 6675 §4) in bytes.
    ///
    /// IsLost(S): DupThresh or more SACKed segments above S, or more than
    /// (DupThresh - 1) * SMSS SACKed bytes above S.
    /// SetPipe: for each unSACKed segment, +len if not lost, and +len again if it was
    /// retransmitted (start below HighRxt).
    ///
    /// Kept incrementally ([`LossEdge`], [`RxtSpan`]): pipe = the unSACKed bytes, less the
    /// lost ones (the unSACKed bytes below the edge), plus the unSACKed bytes below HighRxt.
    /// Debug builds check it against the walk over every segment (`pipe_by_walk`).
    /// `dupthresh` and `mss` are the same on every call.
    pub fn update_loss(&mut self, dupthresh: u32, mss: u32, high_rxt_end: u64) -> u64 {
        debug_assert!(dupthresh >= 1, "DupThresh is validated to be at least 1");
        self.advance_loss_edge(dupthresh, (dupthresh as u64 - 1) * mss as u64);
        self.advance_rxt(high_rxt_end);
        let pipe = self.unsacked_bytes() - self.lost_bytes() + self.rxt_unsacked_bytes();
        debug_assert_eq!(
            self.pipe_by_walk(dupthresh, mss, high_rxt_end),
            (pipe, true),
            "SetPipe kept incrementally against the walk, and the IsLost() marks"
        );
        pipe
    }

    /// Moves the IsLost() edge up to the highest SACKed segment with enough SACKed at or above
    /// it, marking the unSACKed segments it passes lost.
    #[inline(always)]
    fn advance_loss_edge(&mut self, dupthresh: u32, byte_limit: u64) {
        let edge = &mut self.loss_edge;
        loop {
            // SACKed segments and bytes at or above the next SACKed segment up, and the index
            // it is searched from.
            let (segs, bytes, mut i) = match edge.start {
                None => (self.sacked_segs, self.sacked_bytes, 0),
                Some(_) => (edge.sacked_segs - 1, edge.sacked_bytes - edge.len, (edge.id - self.popped) as usize + 1),
            };
            if segs < dupthresh && bytes <= byte_limit {
                return;
            }
            // A SACKed segment is above: `segs` or `bytes` is not 0.
            while !self.segs[i].sacked {
                self.lost_this_ack += u32::from(!self.segs[i].lost);
                self.segs[i].lost = true;
                i += 1;
            }
            let s = &self.segs[i];
            let id = i as u64 + self.popped;
            *edge = LossEdge { start: Some(s.start), id, len: s.len(), sacked_segs: segs, sacked_bytes: bytes };
        }
    }

    /// Finds the segments starting below `high_rxt_end`: on from the last ones when HighRxt
    /// moved up (it does, within a recovery), from the front otherwise.
    #[inline(always)]
    fn advance_rxt(&mut self, high_rxt_end: u64) {
        if high_rxt_end == self.rxt.end {
            return;
        }
        if high_rxt_end < self.rxt.end {
            self.rxt = RxtSpan { next_id: self.popped, ..RxtSpan::default() };
        }
        let rxt = &mut self.rxt;
        // Segments below `popped` were acknowledged, and so started below `rxt.end`.
        let mut i = rxt.next_id.saturating_sub(self.popped) as usize;
        while let Some(s) = self.segs.get(i).filter(|s| s.start < high_rxt_end) {
            if s.sacked {
                rxt.sacked_bytes += s.len();
            }
            rxt.seg_end = s.end;
            i += 1;
        }
        rxt.next_id = i as u64 + self.popped;
        rxt.end = high_rxt_end;
    }

    /// The unSACKed bytes of the segments starting below HighRxt's end.
    fn rxt_unsacked_bytes(&self) -> u64 {
        let front = self.segs.front().map_or(u64::MAX, |f| f.start);
        self.rxt.seg_end.saturating_sub(front) - self.rxt.sacked_bytes
    }

    /// Bytes outstanding and not SACKed.
    fn unsacked_bytes(&self) -> u64 {
        match (self.segs.front(), self.segs.back()) {
            (Some(f), Some(b)) => b.end - f.start - self.sacked_bytes,
            _ => 0,
        }
    }

    /// Bytes IsLost() holds for: the unSACKed bytes below the edge (segments are contiguous).
    fn lost_bytes(&self) -> u64 {
        match (self.loss_edge.start, self.segs.front()) {
            (Some(e), Some(f)) => (e - f.start) - (self.sacked_bytes - self.loss_edge.sacked_bytes),
            _ => 0,
        }
    }

    /// SetPipe without IsLost(): no segment is presumed lost, so pipe counts every unSACKed
    /// segment once and every retransmitted one (start below HighRxt) once more
    /// (`SackPipe::SackedOnly`).
    pub fn pipe_without_loss(&mut self, high_rxt_end: u64) -> u64 {
        let mut pipe = 0u64;
        for s in self.segs.iter_mut() {
            s.lost = false;
            if !s.sacked {
                pipe += s.len();
                if s.start < high_rxt_end {
                    pipe += s.len();
                }
            }
        }
        // No mark is left: IsLost() holds for no segment.
        self.loss_edge.start = None;
        pipe
    }

    /// RFC 6675 §4 IsLost() and SetPipe() by their definitions, walking every segment from the
    /// top: the pipe, and whether every segment's mark agrees with IsLost(). The reference
    /// `update_loss` is checked against.
    pub fn pipe_by_walk(&self, dupthresh: u32, mss: u32, high_rxt_end: u64) -> (u64, bool) {
        let byte_limit = (dupthresh as u64 - 1) * mss as u64;
        let (mut sacked_segs_above, mut sacked_bytes_above) = (0u32, 0u64);
        let (mut pipe, mut marks_agree) = (0u64, true);
        for s in self.segs.iter().rev() {
            if s.sacked {
                sacked_segs_above += 1;
                sacked_bytes_above += s.len();
                marks_agree &= !s.lost;
                continue;
            }
            // The SACKed segments and bytes above S, S itself unSACKed.
            let lost = sacked_segs_above >= dupthresh || sacked_bytes_above > byte_limit;
            marks_agree &= s.lost == lost;
            if !lost {
                pipe += s.len();
            }
            if s.start < high_rxt_end {
                pipe += s.len();
            }
        }
        (pipe, marks_agree)
    }
}

impl Scoreboard {
    /// RFC 6675 §4 SetPipe() with the loss marks RACK set (RFC 8985 §6.2) instead of IsLost():
    /// for each unSACKed segment, +len if not marked lost, and +len if a retransmission of it
    /// is in the network.
    pub fn pipe_from_marks(&self) -> u64 {
        let mut pipe = 0;
        for s in self.segs.iter().filter(|s| !s.sacked) {
            if !s.lost {
                pipe += s.len();
            }
            if s.rexmit_out {
                pipe += s.len();
            }
        }
        pipe
    }

    /// An ACK's processing starts: no segment newly marked lost yet.
    pub fn begin_ack(&mut self) {
        self.lost_this_ack = 0;
    }

    /// RACK marked `segments` lost (or a retransmission of them lost) on this ACK.
    pub fn note_marked_lost(&mut self, segments: u32) {
        self.lost_this_ack += segments;
    }

    /// Segments marked lost since `begin_ack` (Linux `rs->losses`).
    pub fn lost_this_ack(&self) -> u32 {
        self.lost_this_ack
    }

    /// Forgets every loss mark RACK set (Linux `tcp_undo_cwnd_reduction` with `unmark_loss`:
    /// the recovery was undone).
    pub fn clear_lost_marks(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
    }

    /// The first unSACKed segment marked lost whose retransmission is not in the network.
    pub fn first_lost_unsent(&self) -> Option<usize> {
        self.segs.iter().position(|s| !s.sacked && s.lost && !s.rexmit_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push_new(i * 1000, (i + 1) * 1000, i);
        }
        b
    }

    #[test]
    fn cumulative_ack_pops_segments_and_samples_the_newest() {
        let mut b = board(5);
        let info = b.ack_to(3000);
        assert_eq!(info.bytes, 3000);
        assert_eq!(info.rtt_sample_sent_ns, Some(2), "segment 2 is the newest acked");
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn ack_covering_a_retransmitted_hole_gives_no_sample() {
        // Segment 1 was lost and resent; the ACK for 0..3 was triggered by the resend, so the
        // send time of segment 2 would overstate the RTT.
        let mut b = board(5);
        b.mark_resent(1, 100);
        assert_eq!(b.ack_to(3000).rtt_sample_sent_ns, None);
    }

    #[test]
    fn ack_covering_a_segment_sacked_earlier_gives_no_sample() {
        let mut b = board(4);
        b.mark_sacked([(2000, 3000)].into_iter());
        assert_eq!(b.ack_to(3000).rtt_sample_sent_ns, None);
    }

    #[test]
    fn ack_of_only_retransmitted_segments_gives_no_sample() {
        let mut b = board(2);
        b.mark_resent(0, 100);
        assert_eq!(b.ack_to(1000).rtt_sample_sent_ns, None);
    }

    #[test]
    fn sack_marks_whole_segments_once() {
        let mut b = board(6);
        assert_eq!(b.mark_sacked([(2000, 4000)].into_iter()), 2000);
        assert_eq!(b.mark_sacked([(2000, 5000)].into_iter()), 1000);
        assert_eq!(b.sacked_bytes(), 3000);
        b.ack_to(3000);
        assert_eq!(b.sacked_bytes(), 2000);
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        // Segments 0..6; SACK 1,2 -> segment 0 not lost; SACK 3 too -> lost.
        let mut b = board(6);
        b.mark_sacked([(1000, 3000)].into_iter());
        let pipe = b.update_loss(3, MSS, 0);
        assert!(!b.get(0).lost);
        // Unsacked: 0, 3, 4, 5, none lost -> pipe 4000.
        assert_eq!(pipe, 4000);
        b.mark_sacked([(3000, 4000)].into_iter());
        let pipe = b.update_loss(3, MSS, 0);
        assert!(b.get(0).lost);
        assert!(!b.get(4).lost);
        // Unsacked: 0 (lost, not counted), 4, 5.
        assert_eq!(pipe, 2000);
    }

    #[test]
    fn retransmitted_lost_segment_counts_once_in_pipe() {
        let mut b = board(5);
        b.mark_sacked([(1000, 4000)].into_iter());
        // Segment 0 lost and retransmitted (HighRxt end = 1000): counted once; segment 4: once.
        assert_eq!(b.update_loss(3, MSS, 1000), 2000);
    }

    #[test]
    fn pipe_without_loss_counts_every_unsacked_hole_as_in_flight() {
        // Segments 0..6, 1..=4 SACKed: IsLost(0) holds (4 SACKed above), so RFC 6675 pipe is
        // segment 5 only; without IsLost segment 0 stays in flight too.
        let mut b = board(6);
        b.mark_sacked([(1000, 5000)].into_iter());
        assert_eq!(b.update_loss(3, MSS, 0), 1000);
        assert_eq!(b.pipe_without_loss(0), 2000);
        assert!(!b.get(0).lost, "no segment is marked lost");
        // Segment 0 retransmitted (HighRxt end 1000): counted twice, as RFC 6675 SetPipe
        // counts a retransmitted segment that is not presumed lost.
        assert_eq!(b.pipe_without_loss(1000), 3000);
    }

    #[test]
    fn clear_sacked_forgets_everything() {
        let mut b = board(4);
        b.mark_sacked([(1000, 4000)].into_iter());
        b.clear_sacked();
        assert_eq!(b.sacked_bytes(), 0);
        assert!(b.iter().all(|s| !s.sacked));
    }

    #[test]
    fn first_starting_at_skips_segments_that_begin_below() {
        let b = board(3);
        assert_eq!(b.first_starting_at(0), 0);
        assert_eq!(b.first_starting_at(1000), 1);
        assert_eq!(b.first_starting_at(1500), 2);
        assert_eq!(b.first_starting_at(9000), 3);
    }

    proptest::proptest! {
        /// SetPipe and the IsLost() marks kept incrementally by `update_loss` equal RFC 6675
        /// §4's definitions (`pipe_by_walk`) after any sequence of sends, SACKs (whole and
        /// partial blocks), cumulative ACKs (inside a segment too), SACK resets after a
        /// timeout, SetPipe() without IsLost(), and HighRxt moving up and back down. An SMSS
        /// below the segments' size lets the byte rule of IsLost() decide too.
        #[test]
        fn incremental_set_pipe_equals_the_walk_over_every_segment(
            dupthresh in 1u32..5,
            smss in proptest::sample::select(vec![MSS, MSS / 3]),
            ops in proptest::collection::vec((0u8..8, 0u64..40, 1u64..40), 1..200),
        ) {
            let mut b = Scoreboard::default();
            let mut next = 0u64;
            let mut high_rxt_end = 0u64;
            for (op, x, y) in ops {
                let (lo, hi) = (b.iter().next().map_or(next, |s| s.start), next);
                match op {
                    // New data: x segments, the last one short when y is odd.
                    0 | 1 => {
                        for k in 0..x % 6 {
                            let len = if k + 1 == x % 6 && y % 2 == 1 { 1 + y * 20 } else { MSS as u64 };
                            b.push_new(next, next + len, 0);
                            next += len;
                        }
                    }
                    // A SACK block from x to x + y (hundreds of bytes above the front).
                    2 | 3 => {
                        let start = lo + x * 250;
                        b.mark_sacked([(start, start + y * 250)].into_iter());
                    }
                    // A cumulative ACK, mostly at a segment boundary.
                    4 => {
                        let ack = if y % 5 == 0 { lo + x * 97 } else { lo + x / 4 * MSS as u64 };
                        b.ack_to(ack.min(hi));
                    }
                    // HighRxt moves: up (a retransmission), or anywhere (a new recovery).
                    5 => {
                        high_rxt_end = if y % 4 == 0 { lo + x * 300 } else { high_rxt_end.max(lo) + (x % 3) * MSS as u64 };
                    }
                    6 if x % 8 == 0 => b.clear_sacked(),
                    6 => {
                        // Once per unSACKed segment, once more if retransmitted.
                        let want: u64 = b
                            .iter()
                            .filter(|s| !s.sacked)
                            .map(|s| if s.start < high_rxt_end { 2 * s.len() } else { s.len() })
                            .sum();
                        proptest::prop_assert_eq!(b.pipe_without_loss(high_rxt_end), want);
                    }
                    _ => {}
                }
                if y % 3 != 0 {
                    // Sometimes several steps between two SetPipe() calls.
                    let pipe = b.update_loss(dupthresh, smss, high_rxt_end);
                    proptest::prop_assert_eq!((pipe, true), b.pipe_by_walk(dupthresh, smss, high_rxt_end));
                }
            }
        }
    }

    #[test]
    fn index_of_finds_segment_starts_only() {
        let b = board(3);
        assert_eq!(b.index_of(1000), Some(1));
        assert_eq!(b.index_of(1500), None);
        assert_eq!(b.index_of(3000), None);
    }
}

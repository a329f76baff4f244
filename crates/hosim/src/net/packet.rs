//! Packets. A packet is a `Copy` value with no heap parts. Between endpoints it is passed by
//! value; on a link it sits in a slot of the world's [`PacketStore`](super::store::PacketStore)
//! from the queue's acceptance to its arrival, and only the slot's index moves through the
//! queue, the transmitter and the pipeline.

use super::{FlowId, NodeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Syn,
    SynAck,
    Data,
    Ack,
}

/// The two ECN bits of the IP header (RFC 3168 §5). ECT(0) and ECT(1) are not told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecn {
    NotEct,
    Ect,
    Ce,
}

/// Up to three SACK blocks (RFC 2018 §3), as half-open byte ranges [start, end).
///
/// Each block is kept as its start and a 32-bit length, 40 bytes in all where three
/// `(start, end)` pairs took 56: that keeps a [`Packet`] at 128 bytes, which the compiler
/// copies inline (a larger one is copied by a call to `memcpy`) and which spans two cache
/// lines of its store slot instead of three (bench/decisions.md, "A 128-byte packet").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    starts: [u64; 3],
    lens: [u32; 3],
    len: u8,
}

impl SackBlocks {
    /// Blocks an option holds: three, beside the timestamp option (RFC 2018 §3).
    pub const CAPACITY: usize = 3;

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let n = self.len as usize;
        self.starts[..n].iter().zip(&self.lens[..n]).map(|(&s, &l)| (s, s + l as u64))
    }

    /// Appends a block; false (and nothing changed) when all three are taken.
    ///
    /// A block longer than 2^32 − 1 bytes is reported as its first 2^32 − 1 bytes. On the
    /// wire its edges are 32-bit sequence numbers, so no longer block can be sent; it would
    /// need more than 4 GiB received above a hole, past any window of RFC 7323 §2.3 (2^30).
    /// A SACK naming part of what arrived stays true, so the sender is only less informed.
    pub fn push(&mut self, block: (u64, u64)) -> bool {
        let i = self.len as usize;
        if i == Self::CAPACITY {
            return false;
        }
        debug_assert!(block.0 < block.1, "an empty or reversed SACK block {block:?}");
        self.starts[i] = block.0;
        self.lens[i] = u32::try_from(block.1 - block.0).unwrap_or(u32::MAX);
        self.len += 1;
        true
    }

    /// Bytes of TCP option space the blocks take: kind, length, 8 bytes a block,
    /// padded to a multiple of 4 (RFC 2018 §3).
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            (2 + 8 * self.len as u32).div_ceil(4) * 4
        }
    }
}

/// A GTP-U tunnel header (3GPP TS 29.281) over UDP/IP. While a packet is tunnelled, its
/// `src`, `dst` and `ecn` are the *outer* header's, which is all that routers and queues see;
/// the inner (user) header's values wait here until the tunnel end restores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunnel {
    pub inner_src: NodeId,
    pub inner_dst: NodeId,
    pub inner_ecn: Ecn,
    /// GTP-U End Marker (TS 29.281 §7.3.2): no user payload; the last packet on the old path.
    pub end_marker: bool,
    /// Tunnel Endpoint Identifier of the outer GTP-U header (TS 29.281 §5.1): chosen by the
    /// tunnel's receiving end. Only a capture reads it; it fits in the padding of `Tunnel`,
    /// so the packet does not grow (`a_packet_fits_the_inline_copy_limit`).
    pub teid: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Unique per run, in creation order.
    pub uid: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: PacketKind,
    /// Bytes on the wire: headers plus payload.
    pub size_bytes: u32,
    /// First payload byte (data), in the flow's byte numbering starting at 0.
    pub seq: u64,
    pub len: u32,
    /// Cumulative acknowledgment: next byte expected (ACK packets).
    pub ack: u64,
    pub sack: SackBlocks,
    /// An ACK: the window it advertises. A data segment of a flow with
    /// `tcp.rcvbuf_autotune`: its RFC 7323 TSecr (the sender's TS.Recent; 0 otherwise), so
    /// that the packet does not grow.
    pub rwnd_bytes: u64,
    pub ecn: Ecn,
    pub ece: bool,
    pub cwr: bool,
    /// PSH: set by a sender with `tcp.psh_quickack` (`tcp/sender/push.rs`).
    pub psh: bool,
    /// When the sender put this copy on the wire.
    pub sent_ns: u64,
    /// True when this is a retransmission of bytes sent before.
    pub is_retx: bool,
    /// A data segment: a tag derived from (flow, seq, len): the receiver checks it to catch
    /// any mix-up of payload between flows or offsets on the way. An ACK: its RFC 7323 TSecr
    /// (with `tcp.timestamps`; 0: none, as Linux reads a zero echo), so that the packet does
    /// not grow (`a_packet_fits_the_inline_copy_limit`). A data segment's TSval is its
    /// `sent_ns` on the sender's timestamp clock.
    pub tag: u32,
    /// Set while the packet travels inside a GTP-U tunnel.
    pub tunnel: Option<Tunnel>,
}

/// The payload tag a sender puts on a data segment: the three identifying fields mixed into
/// 32 bits (a multiply and the 64-bit finalizer of MurmurHash3, a dozen instructions; every
/// field changes the tag). The receiver recomputes it to catch a payload delivered under the
/// wrong flow or offset.
#[inline]
pub fn payload_tag(flow: FlowId, seq: u64, len: u32) -> u32 {
    let mut h = seq ^ ((flow as u64) << 32 | len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h as u32
}

impl Packet {
    /// A header-only packet of `size_bytes` with every other field zero or off; callers fill in
    /// what their kind of packet carries.
    pub fn new(
        uid: u64,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        kind: PacketKind,
        size_bytes: u32,
        sent_ns: u64,
    ) -> Packet {
        Packet {
            uid,
            flow,
            src,
            dst,
            kind,
            size_bytes,
            seq: 0,
            len: 0,
            ack: 0,
            sack: SackBlocks::default(),
            rwnd_bytes: 0,
            ecn: Ecn::NotEct,
            ece: false,
            cwr: false,
            psh: false,
            sent_ns,
            is_retx: false,
            tag: 0,
            tunnel: None,
        }
    }

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }

    /// Does this packet travel from the flow's sender to its receiver?
    pub fn towards_receiver(&self) -> bool {
        matches!(self.kind, PacketKind::Data | PacketKind::Syn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_option_is_padded_to_four_bytes() {
        let mut s = SackBlocks::default();
        assert_eq!(s.option_bytes(), 0);
        s.push((0, 10));
        assert_eq!(s.option_bytes(), 12);
        s.push((20, 30));
        s.push((40, 50));
        assert_eq!(s.option_bytes(), 28);
        assert!(!s.push((60, 70)), "a fourth block does not fit");
    }

    #[test]
    fn a_packet_fits_the_inline_copy_limit() {
        // 128 bytes: copied with eight 16-byte moves, not a call to memcpy; the TEID lives in
        // the padding of `Tunnel`, and SACK lengths are 32-bit.
        assert_eq!(std::mem::size_of::<Packet>(), 128);
        assert_eq!(std::mem::size_of::<SackBlocks>(), 40);
    }

    #[test]
    fn sack_blocks_round_trip_and_a_block_too_long_for_the_wire_is_cut() {
        let mut s = SackBlocks::default();
        assert!(s.is_empty());
        s.push((5_000_000_000, 5_000_001_448));
        s.push((1 << 41, (1 << 41) + (1 << 33)));
        assert_eq!(s.len(), 2);
        let got: Vec<_> = s.iter().collect();
        assert_eq!(got, vec![(5_000_000_000, 5_000_001_448), (1 << 41, (1 << 41) + u32::MAX as u64)]);
    }

    #[test]
    fn payload_tag_depends_on_every_field() {
        let t = payload_tag(1, 1000, 1460);
        assert_ne!(t, payload_tag(2, 1000, 1460));
        assert_ne!(t, payload_tag(1, 2460, 1460));
        assert_ne!(t, payload_tag(1, 1000, 100));
        // Neighbouring segments of neighbouring flows, as a mix-up would deliver them, all differ.
        let mut tags: Vec<u32> = (0..4)
            .flat_map(|f| (0..250u64).flat_map(move |i| [(f, i * 1448, 1448), (f, i * 1448, 100)]))
            .map(|(f, seq, len)| payload_tag(f, seq, len))
            .collect();
        tags.sort_unstable();
        tags.dedup();
        assert_eq!(tags.len(), 2000);
    }
}

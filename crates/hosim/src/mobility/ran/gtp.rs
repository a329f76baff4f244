//! GTP-U over UDP tunnels (3GPP TS 29.281): gateway -> cell for downlink user data, and
//! source cell -> target cell for X2/Xn data forwarding during a handover.
//!
//! Encapsulation swaps the packet's `src`/`dst`/`ecn` for the outer header's and keeps the
//! inner ones in [`Tunnel`]: routers and their queues (RED included) see only the outer
//! header. Decapsulation applies the ECN rule of the paper's Fig. 7, which is RFC 6040 §4.2
//! when the tunnel end propagates marks, and "a mark is a drop" when it does not.

use crate::net::packet::{Ecn, Packet, Tunnel};
use crate::net::NodeId;
use crate::sim::Cx;

/// Outer IPv4 (20) + UDP (8) + GTP-U (8) header bytes added by encapsulation.
pub const GTP_OVERHEAD_BYTES: u32 = 36;

/// The S1-U downlink TEID that eNodeB `enb` allocates for UE `ue`'s bearer (TS 23.401
/// §5.3.4.1: the eNodeB chooses its own TEIDs); 0x1EEE_UUUU with eNodeB and UE indices.
pub fn s1u_teid(enb: usize, ue: usize) -> u32 {
    0x1000_0000 | ((enb as u32 & 0xfff) << 16) | (ue as u32 & 0xffff)
}

/// The X2 downlink forwarding TEID the target allocates for handover `ho` (TS 36.423 §8.2.1,
/// "DL Forwarding GTP Tunnel Endpoint"); 0x2000_HHHH with the handover index.
pub fn x2_teid(ho: usize) -> u32 {
    0x2000_0000 | (ho as u32 & 0xffff)
}

/// Whether `teid` is an X2/Xn forwarding tunnel's (else a gateway's S1-U tunnel's).
pub fn is_forwarding(teid: u32) -> bool {
    teid & 0xf000_0000 == 0x2000_0000
}

/// Puts `pkt` into a tunnel from `from` to `to` with TEID `teid`. A packet already in a tunnel
/// (forwarding at the source eNodeB) gets a new outer header and keeps its inner one.
/// `outer_ect`: the tunnel entry declares the outer header ECN-capable, so an AQM may mark it.
pub fn encapsulate(pkt: &mut Packet, from: NodeId, to: NodeId, teid: u32, outer_ect: bool) {
    match pkt.tunnel.as_mut() {
        Some(t) => t.teid = teid,
        None => {
            pkt.tunnel =
                Some(Tunnel { inner_src: pkt.src, inner_dst: pkt.dst, inner_ecn: pkt.ecn, end_marker: false, teid });
            pkt.size_bytes += GTP_OVERHEAD_BYTES;
        }
    }
    pkt.src = from;
    pkt.dst = to;
    pkt.ecn = if outer_ect { Ecn::Ect } else { Ecn::NotEct };
}

/// X2/Xn data forwarding: sends a user packet from cell node `from` to cell node `to` in the
/// tunnel `teid` the target allocated, along `from`'s routes.
pub fn forward<T>(cx: &mut Cx<T>, (from, to): (NodeId, NodeId), teid: u32, outer_ect: bool, mut pkt: Packet) {
    encapsulate(&mut pkt, from, to, teid, outer_ect);
    cx.forward(from, pkt);
}

/// A GTP-U End Marker from `from` to `to` for the bearer of UE node `ue`, tunnel `teid`: a
/// header-only packet.
pub fn end_marker(template: Packet, (from, to): (NodeId, NodeId), ue: NodeId, teid: u32, outer_ect: bool) -> Packet {
    let mut pkt = template;
    pkt.size_bytes = GTP_OVERHEAD_BYTES;
    pkt.len = 0;
    pkt.tunnel = Some(Tunnel { inner_src: from, inner_dst: ue, inner_ecn: Ecn::NotEct, end_marker: true, teid });
    pkt.src = from;
    pkt.dst = to;
    pkt.ecn = if outer_ect { Ecn::Ect } else { Ecn::NotEct };
    pkt
}

/// What the tunnel end does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decap {
    /// The inner packet continues (possibly with CE copied in).
    Deliver,
    /// Delivered with CE copied from the outer header (Fig. 7(a)).
    DeliverMarked,
    /// The outer header carried CE but the mark cannot be passed on (Fig. 7(b), or a tunnel
    /// end that does not propagate ECN): the packet is dropped, as RED would have done.
    DropMarked,
}

/// Removes the outer header, restoring the inner one. `ecn_through_tunnel`: the tunnel end
/// copies CE into an ECN-capable inner header (RFC 6040 §4.2, "normal mode").
pub fn decapsulate(pkt: &mut Packet, ecn_through_tunnel: bool) -> Decap {
    let t = pkt.tunnel.take().expect("decapsulating a tunnelled packet");
    let outer_ce = pkt.ecn == Ecn::Ce;
    pkt.src = t.inner_src;
    pkt.dst = t.inner_dst;
    pkt.ecn = t.inner_ecn;
    pkt.size_bytes = pkt.size_bytes.saturating_sub(GTP_OVERHEAD_BYTES);
    if !outer_ce {
        return Decap::Deliver;
    }
    if ecn_through_tunnel && t.inner_ecn != Ecn::NotEct {
        pkt.ecn = Ecn::Ce;
        Decap::DeliverMarked
    } else {
        Decap::DropMarked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn data(ecn: Ecn) -> Packet {
        let mut p = Packet::new(1, 0, 10, 20, PacketKind::Data, 1500, 0);
        p.len = 1460;
        p.ecn = ecn;
        p
    }

    #[test]
    fn encapsulation_hides_inner_addresses_and_ecn() {
        let mut p = data(Ecn::NotEct);
        encapsulate(&mut p, 1, 2, s1u_teid(0, 0), true);
        assert_eq!((p.src, p.dst, p.ecn, p.size_bytes), (1, 2, Ecn::Ect, 1536));
        encapsulate(&mut p, 2, 3, x2_teid(0), false);
        assert_eq!(p.tunnel.map(|t| t.teid), Some(x2_teid(0)), "the new tunnel's TEID");
        assert!(is_forwarding(x2_teid(7)) && !is_forwarding(s1u_teid(3, 7)));
        assert_eq!(
            (p.src, p.dst, p.ecn, p.size_bytes),
            (2, 3, Ecn::NotEct, 1536),
            "re-tunnelling adds no second header"
        );
        assert_eq!(decapsulate(&mut p, true), Decap::Deliver);
        assert_eq!((p.src, p.dst, p.ecn, p.size_bytes), (10, 20, Ecn::NotEct, 1500));
    }

    #[test]
    fn outer_ce_is_copied_into_ect_inner_only_when_propagating() {
        for (inner, through, expect) in [
            (Ecn::Ect, true, Decap::DeliverMarked),
            (Ecn::Ect, false, Decap::DropMarked),
            (Ecn::NotEct, true, Decap::DropMarked),
            (Ecn::NotEct, false, Decap::DropMarked),
        ] {
            let mut p = data(inner);
            encapsulate(&mut p, 1, 2, s1u_teid(0, 0), true);
            p.ecn = Ecn::Ce; // a RED queue on the way marked the outer header
            assert_eq!(decapsulate(&mut p, through), expect, "inner {inner:?}, through {through}");
            if expect == Decap::DeliverMarked {
                assert_eq!(p.ecn, Ecn::Ce);
            }
        }
    }
}

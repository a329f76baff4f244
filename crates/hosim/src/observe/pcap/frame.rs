//! The bytes of a captured packet: IPv4 (RFC 791) and TCP (RFC 9293) headers with real
//! checksums, the TCP options as sent, the ECN bits (RFC 3168 §5, §6.1), and on tunnelled
//! packets the outer IPv4 / UDP / GTP-U headers (3GPP TS 29.281 §5.1) around them.
//!
//! What the simulator does not model is fixed here, the same for every packet:
//!
//! - addresses: node `n` is 10.0.0.0 + n + 1 (node 0 is 10.0.0.1);
//! - ports: flow `f`'s sender uses 10000 + f, its receiver 5001;
//! - sequence numbers: both initial sequence numbers are 0, so data byte `b` of the flow has
//!   sequence number 1 + b (the relative numbers Wireshark shows are the flow's byte offsets);
//! - the SYN and SYN-ACK carry MSS, window scale and (with SACK on) SACK-permitted
//!   (RFC 2018 §2); with ECN on, the SYN has ECE and CWR set and the SYN-ACK ECE (RFC 3168
//!   §6.1.1); the window field is the receive window shifted by the flow's window scale;
//! - the payload is `len` zero bytes; checksums cover it, so a capture truncated to a snap
//!   length still carries the checksums of the whole packet;
//! - the header sizes are the real ones (20-byte IPv4, 20-byte TCP plus options), which may
//!   differ from the scenario's modelled `tcp.header_bytes`.

use etherparse::{IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};

use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::net::NodeId;

/// UDP port of GTP-U (TS 29.281 §4.4.2.3), used as source and destination.
pub const GTPU_PORT: u16 = 2152;
/// GTP-U message types (TS 29.281 §6.1).
pub const GTPU_G_PDU: u8 = 255;
pub const GTPU_END_MARKER: u8 = 254;
/// Port of every flow's receiver; the sender's is `SENDER_PORT_BASE + flow`.
pub const RECEIVER_PORT: u16 = 5001;
pub const SENDER_PORT_BASE: u16 = 10000;

const OUTER_BYTES: usize = 20 + 8 + 8;
const TTL: u8 = 64;

/// What the capture needs to know about a flow beyond its packets.
#[derive(Clone, Copy, Debug)]
pub struct FlowWire {
    pub mss_bytes: u32,
    pub sack: bool,
    pub ecn: bool,
    /// The receive window the receiver advertises (the largest it can be).
    pub rwnd_bytes: u64,
}

impl FlowWire {
    /// The window scale shift (RFC 7323 §2.3) that makes `rwnd_bytes` fit the 16-bit field.
    pub fn window_shift(&self) -> u8 {
        let mut s = 0u8;
        while s < 14 && (self.rwnd_bytes >> s) > u16::MAX as u64 {
            s += 1;
        }
        s
    }
}

/// IPv4 address of node `n`.
pub fn node_addr(n: NodeId) -> [u8; 4] {
    (0x0A00_0000u32.wrapping_add(n).wrapping_add(1)).to_be_bytes()
}

fn ip_ecn(e: Ecn) -> IpEcn {
    match e {
        Ecn::NotEct => IpEcn::NotEct,
        Ecn::Ect => IpEcn::Ect0,
        Ecn::Ce => IpEcn::CongestionExperienced,
    }
}

/// TCP sequence number of flow byte `b` (initial sequence number 0).
fn wire_seq(b: u64) -> u32 {
    (b as u32).wrapping_add(1)
}

/// Builds captured frames into one reused buffer: no allocation per packet once it has grown.
#[derive(Default)]
pub struct Framer {
    pub buf: Vec<u8>,
}

impl Framer {
    /// Encodes `pkt` (of a flow described by `flow`) into `self.buf`.
    pub fn encode(&mut self, pkt: &Packet, flow: &FlowWire) {
        self.buf.clear();
        let Some(t) = pkt.tunnel else {
            self.push_tcp(pkt, flow, (pkt.src, pkt.dst), pkt.ecn);
            return;
        };
        self.buf.resize(OUTER_BYTES, 0);
        let msg = if t.end_marker {
            GTPU_END_MARKER
        } else {
            self.push_tcp(pkt, flow, (t.inner_src, t.inner_dst), t.inner_ecn);
            GTPU_G_PDU
        };
        let gtp_payload = (self.buf.len() - OUTER_BYTES) as u16;
        // Version 1, protocol type GTP, no optional fields (TS 29.281 §5.1).
        let gtp = [0x30, msg, (gtp_payload >> 8) as u8, gtp_payload as u8];
        self.buf[28..32].copy_from_slice(&gtp);
        self.buf[32..36].copy_from_slice(&t.teid.to_be_bytes());
        let udp_len = self.buf.len() - 20;
        let mut ip = ipv4(udp_len, IpNumber::UDP, (pkt.src, pkt.dst), pkt.ecn, pkt.uid);
        ip.header_checksum = ip.calc_header_checksum();
        let udp = UdpHeader::with_ipv4_checksum(GTPU_PORT, GTPU_PORT, &ip, &self.buf[28..])
            .expect("a GTP-U datagram fits in UDP");
        let mut head = &mut self.buf[..28];
        ip.write(&mut head).expect("20 bytes");
        udp.write(&mut head).expect("8 bytes");
    }

    /// Appends the inner IPv4/TCP packet with a zero payload of `pkt.len` bytes.
    fn push_tcp(&mut self, pkt: &Packet, flow: &FlowWire, (src, dst): (NodeId, NodeId), ecn: Ecn) {
        let tcp = tcp_header(pkt, flow);
        let start = self.buf.len();
        let tcp_len = tcp.header_len() + pkt.len as usize;
        let mut ip = ipv4(tcp_len, IpNumber::TCP, (src, dst), ecn, pkt.uid);
        ip.header_checksum = ip.calc_header_checksum();
        ip.write(&mut self.buf).expect("writing to a Vec");
        tcp.write(&mut self.buf).expect("writing to a Vec");
        let tcp_at = start + ip.header_len();
        self.buf.resize(tcp_at + tcp_len, 0);
        let sum = tcp.calc_checksum_ipv4(&ip, &self.buf[tcp_at + tcp.header_len()..]).expect("a segment fits in IPv4");
        // The checksum field is bytes 16..18 of the TCP header.
        self.buf[tcp_at + 16..tcp_at + 18].copy_from_slice(&sum.to_be_bytes());
    }
}

fn ipv4(payload: usize, proto: IpNumber, (src, dst): (NodeId, NodeId), ecn: Ecn, uid: u64) -> Ipv4Header {
    let mut ip = Ipv4Header::new(payload as u16, TTL, proto, node_addr(src), node_addr(dst)).expect("fits in IPv4");
    ip.ecn = ip_ecn(ecn);
    ip.identification = uid as u16;
    ip.dont_fragment = true;
    ip
}

/// The TCP header of `pkt` with checksum 0 (filled in once the payload is in place).
fn tcp_header(pkt: &Packet, flow: &FlowWire) -> TcpHeader {
    let sender_port = SENDER_PORT_BASE.wrapping_add(pkt.flow as u16);
    let shift = flow.window_shift();
    let rwnd = if pkt.kind == PacketKind::Ack { pkt.rwnd_bytes } else { flow.rwnd_bytes };
    let window = (rwnd >> shift).min(u16::MAX as u64) as u16;
    let mut tcp = if pkt.towards_receiver() {
        TcpHeader::new(sender_port, RECEIVER_PORT, 0, window)
    } else {
        TcpHeader::new(RECEIVER_PORT, sender_port, 0, window)
    };
    match pkt.kind {
        // The handshake: both initial sequence numbers are 0.
        PacketKind::Syn | PacketKind::SynAck => {
            tcp.syn = true;
            tcp.window_size = flow.rwnd_bytes.min(u16::MAX as u64) as u16;
            tcp.ece = flow.ecn;
            if pkt.kind == PacketKind::Syn {
                tcp.cwr = flow.ecn;
            } else {
                tcp.ack = true;
                tcp.acknowledgment_number = 1;
            }
            let mss = TcpOptionElement::MaximumSegmentSize(flow.mss_bytes.min(u16::MAX as u32) as u16);
            let ws = TcpOptionElement::WindowScale(shift);
            let opts: &[TcpOptionElement] = if flow.sack {
                &[mss, TcpOptionElement::SelectiveAcknowledgementPermitted, ws]
            } else {
                &[mss, TcpOptionElement::Noop, ws]
            };
            tcp.set_options(opts).expect("handshake options fit");
        }
        // Sender to receiver: the data acknowledges the receiver's SYN.
        PacketKind::Data => {
            tcp.sequence_number = wire_seq(pkt.seq);
            tcp.ack = true;
            tcp.acknowledgment_number = 1;
            tcp.cwr = pkt.cwr;
            // PSH as the sender set it (`tcp.psh_quickack`, tcp/sender/push.rs); hosim's other
            // senders mark none.
            tcp.psh = pkt.psh;
        }
        // Receiver to sender: cumulative ACK, ECE, SACK blocks (RFC 2018 §3).
        PacketKind::Ack => {
            tcp.sequence_number = 1;
            tcp.ack = true;
            tcp.acknowledgment_number = wire_seq(pkt.ack);
            tcp.ece = pkt.ece;
            if !pkt.sack.is_empty() {
                let mut blocks = pkt.sack.iter().map(|(s, e)| (wire_seq(s), wire_seq(e)));
                let first = blocks.next().expect("at least one block");
                let rest = [blocks.next(), blocks.next(), None];
                let opts = [
                    TcpOptionElement::Noop,
                    TcpOptionElement::Noop,
                    TcpOptionElement::SelectiveAcknowledgement(first, rest),
                ];
                tcp.set_options(&opts).expect("three SACK blocks fit");
            }
        }
    }
    tcp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Tunnel;
    use etherparse::{NetSlice, SlicedPacket, TransportSlice};

    fn flow() -> FlowWire {
        FlowWire { mss_bytes: 1448, sack: true, ecn: true, rwnd_bytes: 4 << 20 }
    }

    fn ack_with_two_sack_blocks_and_ece() -> Packet {
        let mut p = Packet::new(7, 3, 5, 2, PacketKind::Ack, 52, 0);
        p.ack = 1000;
        p.sack.push((3000, 4448));
        p.sack.push((5896, 7344));
        p.ece = true;
        p.ecn = Ecn::Ce;
        p.rwnd_bytes = 4 << 20;
        p
    }

    fn checksums_ok(bytes: &[u8]) -> bool {
        let (ip, rest) = Ipv4Header::from_slice(bytes).expect("an IPv4 header");
        let (tcp, payload) = TcpHeader::from_slice(rest).expect("a TCP header");
        ip.header_checksum == ip.calc_header_checksum()
            && tcp.checksum == tcp.calc_checksum_ipv4(&ip, payload).expect("fits")
    }

    #[test]
    fn ack_frame_carries_sack_blocks_ecn_and_valid_checksums() {
        let mut f = Framer::default();
        f.encode(&ack_with_two_sack_blocks_and_ece(), &flow());
        let sliced = SlicedPacket::from_ip(&f.buf).expect("parses as IP");
        let Some(NetSlice::Ipv4(ip)) = sliced.net else { panic!("IPv4") };
        assert_eq!(ip.header().source(), [10, 0, 0, 6]);
        assert_eq!(ip.header().destination(), [10, 0, 0, 3]);
        assert_eq!(ip.header().ecn(), IpEcn::CongestionExperienced);
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
        assert_eq!((tcp.source_port(), tcp.destination_port()), (RECEIVER_PORT, SENDER_PORT_BASE + 3));
        assert!(tcp.ack() && tcp.ece() && !tcp.cwr());
        assert_eq!(tcp.acknowledgment_number(), 1001);
        let sack: Vec<_> = tcp.options_iterator().filter_map(Result::ok).collect();
        assert!(
            sack.contains(&TcpOptionElement::SelectiveAcknowledgement((3001, 4449), [Some((5897, 7345)), None, None]))
        );
        assert_eq!(tcp.window_size() as u64, (4u64 << 20) >> flow().window_shift());
        assert!(checksums_ok(&f.buf));
    }

    #[test]
    fn data_frame_has_zero_payload_of_its_length_and_ect() {
        let mut p = Packet::new(8, 0, 1, 4, PacketKind::Data, 1500, 0);
        (p.seq, p.len, p.ecn, p.cwr) = (2896, 1448, Ecn::Ect, true);
        let mut f = Framer::default();
        f.encode(&p, &flow());
        assert_eq!(f.buf.len(), 20 + 20 + 1448);
        let sliced = SlicedPacket::from_ip(&f.buf).expect("parses as IP");
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
        assert_eq!(tcp.sequence_number(), 2897);
        assert!(tcp.cwr() && tcp.payload().iter().all(|&b| b == 0));
        let Some(NetSlice::Ipv4(ip)) = sliced.net else { panic!("IPv4") };
        assert_eq!(ip.header().ecn(), IpEcn::Ect0);
        assert!(checksums_ok(&f.buf));
    }

    #[test]
    fn data_frame_carries_psh_only_where_the_sender_set_it() {
        let flags = |psh: bool| {
            let mut p = Packet::new(8, 0, 1, 4, PacketKind::Data, 1500, 0);
            (p.seq, p.len, p.psh) = (2896, 1448, psh);
            let mut f = Framer::default();
            f.encode(&p, &flow());
            let sliced = SlicedPacket::from_ip(&f.buf).expect("parses as IP");
            let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
            assert!(checksums_ok(&f.buf));
            tcp.psh()
        };
        assert!(!flags(false));
        assert!(flags(true));
    }

    #[test]
    fn syn_offers_mss_sack_permitted_window_scale_and_ecn() {
        let p = Packet::new(1, 0, 1, 4, PacketKind::Syn, 60, 0);
        let mut f = Framer::default();
        f.encode(&p, &flow());
        let (_, rest) = Ipv4Header::from_slice(&f.buf).expect("IPv4");
        let (tcp, _) = TcpHeader::from_slice(rest).expect("TCP");
        assert!(tcp.syn && !tcp.ack && tcp.ece && tcp.cwr);
        let opts: Vec<_> = tcp.options_iterator().filter_map(Result::ok).collect();
        assert!(opts.contains(&TcpOptionElement::MaximumSegmentSize(1448)));
        assert!(opts.contains(&TcpOptionElement::SelectiveAcknowledgementPermitted));
        assert!(opts.contains(&TcpOptionElement::WindowScale(flow().window_shift())));
        assert!(checksums_ok(&f.buf));
    }

    #[test]
    fn tunnelled_data_has_outer_udp_gtpu_with_teid_and_the_inner_ecn() {
        let mut p = Packet::new(9, 0, 1, 4, PacketKind::Data, 1536, 0);
        (p.seq, p.len, p.src, p.dst, p.ecn) = (0, 1460, 20, 21, Ecn::Ce);
        p.tunnel =
            Some(Tunnel { inner_src: 1, inner_dst: 4, inner_ecn: Ecn::Ect, end_marker: false, teid: 0x1000_0002 });
        let mut f = Framer::default();
        f.encode(&p, &flow());
        let sliced = SlicedPacket::from_ip(&f.buf).expect("parses as IP");
        let Some(NetSlice::Ipv4(outer)) = sliced.net else { panic!("IPv4") };
        assert_eq!(outer.header().ecn(), IpEcn::CongestionExperienced);
        let Some(TransportSlice::Udp(udp)) = sliced.transport else { panic!("UDP") };
        assert_eq!(udp.destination_port(), GTPU_PORT);
        let (hdr, inner) = UdpHeader::from_slice(&f.buf[20..]).expect("UDP");
        assert_eq!(
            hdr.checksum,
            hdr.calc_checksum_ipv4(&Ipv4Header::from_slice(&f.buf).expect("IPv4").0, inner).expect("fits")
        );
        assert_eq!(&inner[..8], &[0x30, GTPU_G_PDU, 0x05, 0xdc, 0x10, 0x00, 0x00, 0x02][..], "G-PDU of 1500 bytes");
        assert!(checksums_ok(&inner[8..]));
        let (ip, _) = Ipv4Header::from_slice(&inner[8..]).expect("inner IPv4");
        assert_eq!((ip.source, ip.ecn), ([10, 0, 0, 2], IpEcn::Ect0));
    }

    #[test]
    fn end_marker_is_a_header_only_gtpu_message() {
        let mut p = Packet::new(10, 0, 20, 21, PacketKind::Data, 36, 0);
        p.tunnel =
            Some(Tunnel { inner_src: 20, inner_dst: 4, inner_ecn: Ecn::NotEct, end_marker: true, teid: 0x2000_0000 });
        let mut f = Framer::default();
        f.encode(&p, &flow());
        assert_eq!(f.buf.len(), 36);
        assert_eq!(&f.buf[28..], &[0x30, GTPU_END_MARKER, 0, 0, 0x20, 0, 0, 0][..]);
    }
}

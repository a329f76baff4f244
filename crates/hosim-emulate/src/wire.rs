//! The few fields of a real IPv4 packet the simulated network needs (RFC 791 §3.1, RFC 9293
//! §3.1), and the one field it writes: the ECN codepoint CE (RFC 3168 §5), with the header
//! checksum computed again (RFC 791 §3.1, RFC 1071).

pub const PROTO_TCP: u8 = 6;
const TCP_SYN: u8 = 0x02;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// The ECN field: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    pub ecn: u8,
    pub total_len: u16,
    pub proto: u8,
    pub tcp: Option<Tcp>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tcp {
    pub seq: u32,
    pub ack: u32,
    pub syn: bool,
    pub payload_len: u32,
}

/// Reads an IPv4 packet; `None` for anything else (IPv6, a truncated header).
pub fn parse(b: &[u8]) -> Option<Ipv4> {
    if b.len() < 20 || b[0] >> 4 != 4 {
        return None;
    }
    let ihl = (b[0] & 0x0f) as usize * 4;
    let total_len = u16::from_be_bytes([b[2], b[3]]);
    if ihl < 20 || (total_len as usize) < ihl || b.len() < total_len as usize {
        return None;
    }
    let proto = b[9];
    let tcp = (proto == PROTO_TCP && total_len as usize >= ihl + 20).then(|| {
        let t = &b[ihl..];
        let doff = (t[12] >> 4) as usize * 4;
        Tcp {
            seq: u32::from_be_bytes([t[4], t[5], t[6], t[7]]),
            ack: u32::from_be_bytes([t[8], t[9], t[10], t[11]]),
            syn: t[13] & TCP_SYN != 0,
            payload_len: (total_len as usize).saturating_sub(ihl + doff) as u32,
        }
    });
    Some(Ipv4 {
        src: [b[12], b[13], b[14], b[15]],
        dst: [b[16], b[17], b[18], b[19]],
        ecn: b[1] & 0x03,
        total_len,
        proto,
        tcp,
    })
}

/// The IPv4 header checksum of `h` (its checksum field taken as zero).
fn header_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, pair) in h.chunks(2).enumerate() {
        if i == 5 {
            continue; // the checksum field itself
        }
        sum += u32::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Sets CE in an ECN-capable packet, as a router's AQM does (RFC 3168 §5), and updates the
/// header checksum. A Not-ECT packet is left alone (RFC 3168 §5: CE only on ECT packets).
pub fn set_ce(b: &mut [u8]) -> bool {
    if b.len() < 20 || b[1] & 0x03 == 0 {
        return false;
    }
    b[1] |= 0x03;
    let ihl = (b[0] & 0x0f) as usize * 4;
    let c = header_checksum(&b[..ihl]);
    b[10..12].copy_from_slice(&c.to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 60-byte IPv4/TCP SYN from 198.18.0.1 to 198.18.0.2, ECT(0), with a valid checksum.
    fn syn() -> Vec<u8> {
        let mut b = vec![0u8; 60];
        b[0] = 0x45;
        b[1] = 0x02;
        b[2..4].copy_from_slice(&60u16.to_be_bytes());
        b[8] = 64;
        b[9] = PROTO_TCP;
        b[12..16].copy_from_slice(&[198, 18, 0, 1]);
        b[16..20].copy_from_slice(&[198, 18, 0, 2]);
        let c = header_checksum(&b[..20]);
        b[10..12].copy_from_slice(&c.to_be_bytes());
        b[24..28].copy_from_slice(&1000u32.to_be_bytes());
        b[32] = 10 << 4; // 40-byte TCP header (options)
        b[33] = TCP_SYN;
        b
    }

    /// RFC 1071: a header whose checksum is right sums to 0xffff.
    fn verifies(h: &[u8]) -> bool {
        let mut sum: u32 = h.chunks(2).map(|p| u32::from(u16::from_be_bytes([p[0], p[1]]))).sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum == 0xffff
    }

    #[test]
    fn parse_reads_addresses_ecn_and_tcp_fields() {
        let p = parse(&syn()).unwrap();
        assert_eq!((p.src, p.dst, p.ecn, p.total_len, p.proto), ([198, 18, 0, 1], [198, 18, 0, 2], 2, 60, 6));
        assert_eq!(p.tcp, Some(Tcp { seq: 1000, ack: 0, syn: true, payload_len: 0 }));
        assert!(parse(&[0x60; 40]).is_none(), "IPv6 is not read");
    }

    #[test]
    fn set_ce_marks_an_ect_packet_and_keeps_its_checksum_valid() {
        let mut b = syn();
        assert!(verifies(&b[..20]));
        assert!(set_ce(&mut b));
        assert_eq!(b[1] & 3, 3);
        assert!(verifies(&b[..20]), "the header checksum is updated");
        let mut plain = syn();
        plain[1] = 0;
        assert!(!set_ce(&mut plain), "a Not-ECT packet is not marked");
        assert_eq!(plain[1], 0);
    }
}

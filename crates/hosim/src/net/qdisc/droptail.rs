//! DropTail: a packet is queued if it fits within the limit, in packets or in bytes, and
//! dropped otherwise. The packets wait in the queue's FIFO ([`super::Queue`]).

/// A queue's limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether one more packet of `size_bytes` fits in a queue holding `len_pkts` packets of
    /// `len_bytes` bytes in all.
    #[inline]
    pub fn admits(self, len_pkts: usize, len_bytes: u64, size_bytes: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => len_pkts < n as usize,
            QueueLimit::Bytes(b) => len_bytes + size_bytes as u64 <= b,
        }
    }
}

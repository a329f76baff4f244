//! A radio access node serving one UE over one radio link (an inter-RAT source or target:
//! the eNodeB, or the 2G/3G node): a [`PriorityBuffer`] (forwarded data before new data) and
//! a [`Radio`] at the RAT's rate, sending while the UE is attached.

use crate::net::{LinkId, NodeId};

use super::buffer::PriorityBuffer;
use super::radio::Radio;

pub struct AccessNode {
    pub node: NodeId,
    pub name: &'static str,
    /// Node -> UE radio link.
    pub radio_link: LinkId,
    /// UE -> node radio link.
    pub uplink: LinkId,
    pub rate_bps: u64,
    pub buffer: PriorityBuffer,
    pub radio: Radio,
}

impl AccessNode {
    pub fn new(node: NodeId, name: &'static str, radio_link: LinkId, uplink: LinkId, rate_bps: u64) -> AccessNode {
        AccessNode {
            node,
            name,
            radio_link,
            uplink,
            rate_bps,
            buffer: PriorityBuffer::default(),
            radio: Radio::default(),
        }
    }

    /// Packets in the node's buffer.
    pub fn held(&self) -> u64 {
        self.buffer.held()
    }
}

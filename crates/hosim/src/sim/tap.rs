//! The emulation tap: hosts whose packets leave the simulation. In `hosim emulate` the
//! endpoints of a scenario's flows are real network stacks (`crates/hosim-emulate`): a packet
//! that reaches such a host is not handed to hosim's TCP but kept here, with the time it
//! arrived, until the driver writes it out. Packets enter at those hosts through the same
//! forwarding as any other ([`Cx::forward`](super::Cx::forward), or
//! [`World::inject`](super::World::inject)). A simulated run has no tap
//! (`World::tap` is `None`) and never reaches this file.

use crate::engine::time::SimTime;
use crate::net::packet::Packet;
use crate::net::NodeId;

/// A packet that reached a tapped host at `at_ns`.
#[derive(Clone, Copy, Debug)]
pub struct Tapped {
    pub node: NodeId,
    pub pkt: Packet,
    pub at_ns: SimTime,
}

/// Host `node` attached to (`attached`) or left the access network its link `link` leads into,
/// at `at_ns` ([`Cx::set_attached`](super::Cx::set_attached), kept in `World::attachments`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub at_ns: SimTime,
    pub node: NodeId,
    pub link: crate::net::LinkId,
    pub attached: bool,
}

#[derive(Debug, Default)]
pub struct Tap {
    /// Per node: does it leave the simulation?
    hosts: Vec<bool>,
    out: Vec<Tapped>,
}

impl Tap {
    /// A tap on the nodes `hosts` of a network of `nodes` nodes.
    pub fn new(nodes: usize, hosts: &[NodeId]) -> Tap {
        let mut on = vec![false; nodes];
        for &h in hosts {
            on[h as usize] = true;
        }
        Tap { hosts: on, out: Vec::new() }
    }

    #[inline]
    pub fn takes(&self, n: NodeId) -> bool {
        self.hosts.get(n as usize).copied().unwrap_or(false)
    }

    pub(super) fn push(&mut self, node: NodeId, pkt: Packet, at_ns: SimTime) {
        self.out.push(Tapped { node, pkt, at_ns });
    }

    /// Takes what reached the tapped hosts since the last call, in order of arrival.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Tapped> {
        self.out.drain(..)
    }

    /// Packets waiting to be taken (counted as consumed already).
    pub fn pending(&self) -> usize {
        self.out.len()
    }
}

impl super::World {
    /// The uid the next injected packet gets: the driver files the packet's real bytes under
    /// it before the injection, because the packet's first link may start transmitting it, and
    /// a capture read its bytes, within the call.
    pub fn next_inject_uid(&self) -> u64 {
        self.next_uid
    }

    /// Emulation: host `pkt.src` sends `pkt` now, along its route. The packet gets the next
    /// uid (returned: the key of its real bytes in the driver's table) and is counted as
    /// created, as every packet a sender makes.
    pub fn inject(&mut self, mut pkt: Packet) -> u64 {
        let uid = self.next_uid;
        self.next_uid += 1;
        self.counters.created += 1;
        pkt.uid = uid;
        pkt.sent_ns = self.now;
        let src = pkt.src;
        self.forward(src, pkt);
        uid
    }
}

impl super::World {
    /// Emulation with a host of several interfaces: [`World::inject`], but onto link `l`, the
    /// interface the real packet left by, whatever the host's route.
    pub fn inject_on(&mut self, l: crate::net::LinkId, mut pkt: Packet) -> u64 {
        let uid = self.next_uid;
        self.next_uid += 1;
        self.counters.created += 1;
        pkt.uid = uid;
        pkt.sent_ns = self.now;
        self.link_enqueue(l, pkt);
        uid
    }
}

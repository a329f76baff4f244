//! Reordering at the target (`target_reordering`; on by default for `rearrange`, Cohen &
//! Levin's forward-and-rearrange, and as `lte_x2`'s eNodeB reordering of Pacifico et al.):
//! the target holds the direct packets the gateway sends it until the old path is empty, so
//! that the packets the source forwards reach the UE first.
//!
//! The old path is known to be empty by the GTP-U End Marker (TS 29.281 §7.3.2, TS 36.300
//! §10.1.2.2.1): at the path switch the gateway sends one on the old path; the source passes
//! it on behind the packets it forwarded (or, if it still served the UE when the marker came,
//! as with a predicted path switch, sends one behind what it forwards at the HO command). Its
//! arrival at the target ends the hold. Without the gateway's marker (`end_marker = false`),
//! or with a marker lost in a full queue, the target stops holding `reorder_timeout_s` after
//! it first holds a direct packet with the UE attached (or, if it holds none, after it has
//! both the UE attached and the path switched).

use super::handover::{step, Step};
use super::{Cellular, Timer};
use crate::mobility::ran::gtp;
use crate::net::PacketKind;
use crate::sim::Cx;

impl Cellular {
    /// Sends an end marker for handover `h`'s UE: from the gateway to the source on the old
    /// S1 path, or (`from_gw` false) from the source to the target on the forwarding path.
    pub(super) fn send_end_marker(&mut self, cx: &mut Cx<Timer>, h: usize, from_gw: bool) {
        let (u, source, target) = (self.handovers[h].ue, self.handovers[h].source, self.handovers[h].target);
        let cells = &self.ran.cells;
        let (from, to, teid) = if from_gw {
            (self.gw, cells[source].node, gtp::s1u_teid(source, u))
        } else {
            let to = if self.p.via_core { self.gw } else { cells[target].node };
            (cells[source].node, to, gtp::x2_teid(h))
        };
        let flow = self.ue_flows[u].first().copied().unwrap_or(0);
        let base = cx.new_packet(flow, from, to, PacketKind::Data);
        let em = gtp::end_marker(base, (from, to), self.ran.ues[u].node, teid, false);
        cx.forward(from, em);
    }

    /// An end marker for UE `u` came out of a tunnel at cell `c`: the source passes it on
    /// behind what it forwarded; the target stops holding direct packets.
    pub(super) fn on_end_marker(&mut self, cx: &mut Cx<Timer>, c: usize, u: usize) {
        let now = cx.now();
        cx.counters_mut().consumed += 1;
        let Some(h) = self.state[u].last else { return };
        let ho = &mut self.handovers[h];
        if c == ho.source && ho.end_marker_at_source_ns.is_none() {
            ho.end_marker_at_source_ns = Some(now);
            if ho.forwarding {
                self.send_end_marker(cx, h, false);
            }
            return;
        }
        if c == ho.target && ho.end_marker_at_target_ns.is_none() {
            ho.end_marker_at_target_ns = Some(now);
            self.stop_reordering(cx, h);
        }
    }

    /// The target waits at most the reordering timeout for the end marker, counted from when
    /// it both holds a direct packet and has the UE attached (as `lte_x2`'s eNodeB): this
    /// bounds the extra delay of a held packet. Called when the UE attaches or the path
    /// switches: once both have happened, a target that holds direct packets starts the
    /// timer; one that holds none yet starts it with the first, and stops waiting if none
    /// has come within the timeout (so that the UE may hand over again).
    pub(super) fn arm_reorder_timeout(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let ho = &self.handovers[h];
        if ho.reorder_wait && ho.attach_ns.is_some() && ho.path_switch_ns.is_some() {
            let at = cx.now() + self.p.reorder_timeout_ns;
            let s = if ho.held_direct > 0 { Step::ReorderTimeout } else { Step::ReorderIdle };
            step(cx, h, at, s);
        }
    }

    /// The first direct packet held for an attached UE starts the reordering timer.
    pub(super) fn arm_reorder_timer(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let at = cx.now() + self.p.reorder_timeout_ns;
        step(cx, h, at, Step::ReorderTimeout);
    }

    /// The target releases the direct packets it held, behind the forwarded ones.
    pub(super) fn stop_reordering(&mut self, cx: &mut Cx<Timer>, h: usize) {
        let now = cx.now();
        let ho = &mut self.handovers[h];
        if !ho.reorder_wait {
            return;
        }
        ho.reorder_wait = false;
        ho.reordering_ended_ns = Some(now);
        let (u, target) = (ho.ue, ho.target);
        for pkt in self.ran.cells[target].buffers.release_held(u, now) {
            self.enqueue(cx, target, u, pkt);
        }
        self.end_if_done(cx, h);
    }
}

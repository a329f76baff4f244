//! A cell (an eNodeB or gNodeB): its buffers for the UEs it can serve, a scheduler that shares
//! its radio among the UEs attached to it, the radio transmitter, and the radio links to each
//! UE. A UE attached to two cells is served by both schedulers, each from its own buffers.

use crate::net::{LinkId, NodeId};
use crate::sim::Cx;

use super::buffer::{BufferLimit, CellBuffers};
use super::radio::Radio;
use super::scheduler::{PropFair, Scheduler};
use super::Timer;

/// ECN at the cell's tunnel end (see `gtp.rs`).
#[derive(Clone, Debug, Default)]
pub struct TunnelStats {
    /// Packets dropped because their outer CE mark could not be passed on.
    pub ce_drops: u64,
    /// CE marks copied from the outer into the inner header.
    pub ce_copied: u64,
}

pub struct Cell {
    pub node: NodeId,
    pub name: String,
    /// Radio downlink `cell->ue` per UE (by UE index), where the UE can attach to this cell.
    pub downlinks: Vec<Option<LinkId>>,
    pub radio_bps: u64,
    pub scheduler: Scheduler,
    pub buffers: CellBuffers,
    pub radio: Radio,
    /// Private radios: one transmitter per UE, busy or not (empty: the UEs share `radio`).
    /// Each UE's radio link is then a link of its own, as the private wireless links of
    /// Cohen & Levin's network; `radio` counts the packets of all of them.
    pub private: Vec<bool>,
    pub tunnel: TunnelStats,
    /// Proportional fair instead of `scheduler`.
    pub pf: Option<PropFair>,
    /// Variable rates: each UE's rate from this cell now (set by [`super::Ran::set_rate`]);
    /// the radio holds a packet while it sends it and its radio link only adds the delay.
    /// None: each UE's rate is its radio link's, fixed while a packet is sent.
    pub var_rates: Option<Vec<u64>>,
}

impl Cell {
    pub fn new(
        node: NodeId,
        name: String,
        n_ues: usize,
        limit: BufferLimit,
        radio_bps: u64,
        scheduler: Scheduler,
    ) -> Cell {
        Cell {
            node,
            name,
            downlinks: vec![None; n_ues],
            radio_bps,
            scheduler,
            buffers: CellBuffers::new(n_ues, limit),
            radio: Radio::default(),
            private: Vec::new(),
            tunnel: TunnelStats::default(),
            pf: None,
            var_rates: None,
        }
    }

    /// Gives each UE a transmitter of its own (see [`Cell::private`]).
    pub fn with_private_radios(mut self) -> Cell {
        self.private = vec![false; self.downlinks.len()];
        self
    }

    /// If the radio is idle, the scheduler picks a UE that is `attached` here and has a queued
    /// packet (with variable rates: and a rate > 0), and the radio sends that UE's head packet
    /// on its radio link, at the UE's rate. `me` is this cell's index, which the radio's timer
    /// carries.
    pub fn serve<T: From<Timer>>(&mut self, cx: &mut Cx<T>, me: usize, attached: impl Fn(usize) -> bool) {
        if !self.private.is_empty() {
            return self.serve_private(cx, me, attached);
        }
        if self.radio.busy {
            return;
        }
        let now = cx.now();
        let Cell { buffers, downlinks, var_rates, pf, scheduler, .. } = self;
        let (buffers, downlinks, var_rates) = (&*buffers, &*downlinks, &*var_rates);
        let links = cx.links();
        let rate = |u: usize| match var_rates {
            Some(r) => r[u],
            None => downlinks[u].map_or(0, |l| links[l as usize].rate_bps),
        };
        let picked = match pf {
            Some(pf) => {
                pf.pick(now, |u| if attached(u) && buffers.head_bytes(u).is_some() { Some(rate(u)) } else { None })
            }
            None => scheduler.pick(|u| {
                let may = attached(u) && (var_rates.is_none() || rate(u) > 0);
                if may {
                    buffers.head_bytes(u)
                } else {
                    None
                }
            }),
        };
        let Some(u) = picked else { return };
        let rate = rate(u);
        let pkt = self.buffers.pop(u, now).expect("the scheduler picks a backlogged UE");
        if let Some(pf) = &mut self.pf {
            pf.served(u, now, pkt.size_bytes as u64 * 8);
        }
        let link = self.downlinks[u].expect("an attached UE has a radio link");
        if self.var_rates.is_some() {
            self.radio.transmit_var(cx, me, (link, u), rate, pkt);
        } else {
            self.radio.transmit(cx, me, link, rate, pkt);
        }
    }

    /// Private radios: every idle one whose UE is attached sends that UE's head packet.
    fn serve_private<T: From<Timer>>(&mut self, cx: &mut Cx<T>, me: usize, attached: impl Fn(usize) -> bool) {
        let now = cx.now();
        for u in 0..self.private.len() {
            if self.private[u] || !attached(u) {
                continue;
            }
            let Some(pkt) = self.buffers.pop(u, now) else { continue };
            let link = self.downlinks[u].expect("an attached UE has a radio link");
            let rate = cx.links()[link as usize].rate_bps;
            self.private[u] = true;
            self.radio.send(cx, Timer::PrivateRadioDone { cell: me, ue: u }, link, rate, pkt);
        }
    }

    /// Packets in the cell's buffers.
    pub fn held(&self) -> u64 {
        self.buffers.held_packets() + self.radio.held()
    }
}

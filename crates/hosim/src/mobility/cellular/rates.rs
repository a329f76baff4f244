//! Radio rates that change with time: a cell's capacity from a rate process or a per-cell
//! Mahimahi trace, and a UE's radio rate from a trace, both read by `net::rate` (the models
//! and the trace reader of variable-rate links).
//!
//! The rate at which cell c sends to UE u is the smallest of the cell's capacity (`cell_bps`,
//! or its process or trace), the UE's rate (its trace, if it has one) and the rate-table rate
//! at the UE's distance (if there is a table). With any of these variable, the cell's radio
//! sends each packet at the rate of the moment and a change acts on the packet in service
//! (`ran::Radio::transmit_var`); the radio links then only add the radio delay.

use super::{Cellular, Timer};
use crate::engine::rng::{stream_rng, StreamKind};
use crate::engine::time::SimTime;
use crate::net::rate::{RateModel, RateSchedule};
use crate::sim::Cx;

/// Stream index bases (kind `Cell`) of the cells' capacity processes and the UEs' rates.
const CAPACITY_STREAM: u64 = 1_000_000;
const UE_RATE_STREAM: u64 = 3_000_000;

/// The time-varying rates of a cellular network.
pub struct Rates {
    capacity: Vec<Option<RateSchedule>>,
    /// Each cell's capacity now.
    pub capacity_bps: Vec<u64>,
    ue: Vec<Option<RateSchedule>>,
    ue_bps: Vec<Option<u64>>,
    /// The rate table's rate of each (UE, cell) at the UE's distance, if there is a table.
    table_bps: Vec<Vec<Option<u64>>>,
    /// Integral of each cell's capacity since 0, in bits * 1e9, as of `since_ns`.
    capacity_work: Vec<u128>,
    since_ns: Vec<SimTime>,
}

impl Rates {
    pub fn new(seed: u64, cell_bps: Vec<u64>, capacity: Vec<Option<RateModel>>, ue: Vec<Option<RateModel>>) -> Rates {
        let schedule = |m: Option<RateModel>, stream: u64| {
            m.map(|m| RateSchedule::new(m, stream_rng(seed, StreamKind::Cell, stream)))
        };
        let n_cells = capacity.len();
        let n_ues = ue.len();
        let capacity: Vec<_> =
            capacity.into_iter().enumerate().map(|(c, m)| schedule(m, CAPACITY_STREAM + c as u64)).collect();
        let ue: Vec<_> = ue.into_iter().enumerate().map(|(u, m)| schedule(m, UE_RATE_STREAM + u as u64)).collect();
        Rates {
            capacity,
            capacity_bps: cell_bps,
            ue,
            ue_bps: vec![None; n_ues],
            table_bps: vec![vec![None; n_cells]; n_ues],
            capacity_work: vec![0; n_cells],
            since_ns: vec![0; n_cells],
        }
    }

    /// The rate cell `c` sends to UE `u` at now.
    pub fn bps(&self, u: usize, c: usize) -> u64 {
        let mut r = self.capacity_bps[c];
        if let Some(x) = self.ue_bps[u] {
            r = r.min(x);
        }
        if let Some(x) = self.table_bps[u][c] {
            r = r.min(x);
        }
        r
    }

    /// Cell `c`'s mean capacity over [0, now], bit/s.
    pub fn mean_capacity_bps(&self, c: usize, now: SimTime) -> f64 {
        let w = self.capacity_work[c] + self.capacity_bps[c] as u128 * (now - self.since_ns[c]) as u128;
        w as f64 / now.max(1) as f64
    }
}

impl Cellular {
    /// Starts every capacity process and UE trace at time 0.
    pub(super) fn start_rates(&mut self, cx: &mut Cx<Timer>) {
        let Some(r) = self.rates.as_ref() else { return };
        let (cells, ues) = (r.capacity.len(), r.ue.len());
        for c in 0..cells {
            self.next_capacity(cx, c);
        }
        for u in 0..ues {
            self.next_ue_rate(cx, u);
        }
    }

    /// Cell `c`'s capacity moves on to its next segment.
    pub(super) fn next_capacity(&mut self, cx: &mut Cx<Timer>, c: usize) {
        let now = cx.now();
        let r = self.rates.as_mut().expect("variable rates");
        let Some(s) = r.capacity[c].as_mut() else { return };
        let (bps, dur) = s.next_segment();
        r.capacity_work[c] += r.capacity_bps[c] as u128 * (now - r.since_ns[c]) as u128;
        r.since_ns[c] = now;
        r.capacity_bps[c] = bps;
        if now.saturating_add(dur) < cx.end_ns() {
            cx.schedule(now + dur, Timer::CellRate { cell: c });
        }
        for u in 0..self.ran.ues.len() {
            self.apply_rate(cx, u, c);
        }
    }

    /// UE `u`'s trace moves on to its next segment.
    pub(super) fn next_ue_rate(&mut self, cx: &mut Cx<Timer>, u: usize) {
        let now = cx.now();
        let r = self.rates.as_mut().expect("variable rates");
        let Some(s) = r.ue[u].as_mut() else { return };
        let (bps, dur) = s.next_segment();
        r.ue_bps[u] = Some(bps);
        if now.saturating_add(dur) < cx.end_ns() {
            cx.schedule(now + dur, Timer::UeRate { ue: u });
        }
        for c in 0..self.ran.cells.len() {
            self.apply_rate(cx, u, c);
        }
    }

    /// The rate table gives UE `u` `bps` from cell `c` at its distance now.
    pub(super) fn set_table_rate(&mut self, cx: &mut Cx<Timer>, u: usize, c: usize, bps: u64) {
        self.rates.as_mut().expect("variable rates").table_bps[u][c] = Some(bps);
        self.apply_rate(cx, u, c);
    }

    fn apply_rate(&mut self, cx: &mut Cx<Timer>, u: usize, c: usize) {
        let bps = self.rates.as_ref().expect("variable rates").bps(u, c);
        let now_bps = self.ran.cells[c].var_rates.as_ref().map(|r| r[u]);
        if now_bps != Some(bps) {
            self.ran.set_rate(cx, c, u, bps);
        }
    }
}

//! Opt-in traces, recorded as columns (time, id, value). When tracing is off nothing is
//! allocated and each probe costs one branch. The queue trace is fed from the link points
//! (`super::Observers::link`); the sender traces from the TCP endpoints.

use crate::engine::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    Cwnd,
    Ssthresh,
    Rtt,
    Rto,
    Inflight,
    Queue,
    /// Rate of a variable-rate link, recorded at every change (per link).
    Rate,
    /// Goodput of a flow over each trace interval (time = the interval's start).
    Goodput,
}

impl TraceKind {
    pub const ALL: [TraceKind; 8] = [
        TraceKind::Cwnd,
        TraceKind::Ssthresh,
        TraceKind::Rtt,
        TraceKind::Rto,
        TraceKind::Inflight,
        TraceKind::Queue,
        TraceKind::Rate,
        TraceKind::Goodput,
    ];

    /// Table name and value column name, with units.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            TraceKind::Cwnd => ("cwnd", "cwnd_bytes"),
            TraceKind::Ssthresh => ("ssthresh", "ssthresh_bytes"),
            TraceKind::Rtt => ("rtt", "rtt_s"),
            TraceKind::Rto => ("rto", "rto_s"),
            TraceKind::Inflight => ("inflight", "inflight_bytes"),
            TraceKind::Queue => ("queue", "len_pkts"),
            TraceKind::Rate => ("rate", "rate_bps"),
            TraceKind::Goodput => ("goodput", "goodput_bps"),
        }
    }

    /// The name of the table's second value column, for a kind that has one: the cwnd trace
    /// also records the effective window, min(cwnd, the peer's receive window) (RFC 5681 §2:
    /// the sender may not send beyond the smaller of the two), which is what limits sending.
    pub fn second_column(self) -> Option<&'static str> {
        match self {
            TraceKind::Cwnd => Some("effective_window_bytes"),
            _ => None,
        }
    }

    /// Whether the id column names a flow (else a queue).
    pub fn per_flow(self) -> bool {
        !matches!(self, TraceKind::Queue | TraceKind::Rate)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceTable {
    pub time_ns: Vec<SimTime>,
    pub id: Vec<u32>,
    pub value: Vec<f64>,
    /// The second value column (`TraceKind::second_column`), as long as `value` for a kind
    /// that has one, else empty.
    pub value2: Vec<f64>,
}

impl TraceTable {
    pub fn push(&mut self, t: SimTime, id: u32, v: f64) {
        self.time_ns.push(t);
        self.id.push(id);
        self.value.push(v);
    }

    pub fn push2(&mut self, t: SimTime, id: u32, v: f64, v2: f64) {
        self.push(t, id, v);
        self.value2.push(v2);
    }

    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }

    /// Removes every row, keeping the allocation.
    pub fn clear(&mut self) {
        self.time_ns.clear();
        self.id.clear();
        self.value.clear();
        self.value2.clear();
    }
}

#[derive(Clone, Debug, Default)]
pub struct Traces {
    pub enabled: bool,
    pub tables: [TraceTable; 8],
}

impl Traces {
    #[inline]
    pub fn record(&mut self, kind: TraceKind, t: SimTime, id: u32, v: f64) {
        if self.enabled {
            self.tables[kind as usize].push(t, id, v);
        }
    }

    /// A row of a kind with a second value column (`TraceKind::second_column`).
    #[inline]
    pub fn record2(&mut self, kind: TraceKind, t: SimTime, id: u32, v: f64, v2: f64) {
        if self.enabled {
            self.tables[kind as usize].push2(t, id, v, v2);
        }
    }

    pub fn table(&self, kind: TraceKind) -> &TraceTable {
        &self.tables[kind as usize]
    }

    /// Hands every table with at least `min_rows` rows (and at least one) to `sink`, then
    /// clears it: memory stays bounded by the chunk size, whatever the simulated time.
    pub fn flush(
        &mut self,
        min_rows: usize,
        sink: &mut dyn FnMut(TraceKind, &TraceTable) -> Result<(), String>,
    ) -> Result<(), String> {
        for kind in TraceKind::ALL {
            let t = &mut self.tables[kind as usize];
            if !t.is_empty() && t.len() >= min_rows {
                sink(kind, t)?;
                t.clear();
            }
        }
        Ok(())
    }
}

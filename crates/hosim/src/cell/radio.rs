//! Radio links of varying rate: the world side of `net::rate`. A `LinkRate` event fires at
//! every segment boundary of a variable-rate link; it moves the link to its next rate and, if
//! a packet is being serialized, reschedules that packet's completion from the bits it has left.
//! The superseded completion event is ignored when it fires (`World::on_tx_done`).

use super::CellEvent;
use crate::metrics::TraceKind;
use crate::net::LinkId;
use crate::world::{Event, World};

impl World {
    /// Schedules the first rate change of every variable-rate link and records its first rate.
    pub(crate) fn start_rate_schedules(&mut self) {
        for l in 0..self.links.len() {
            if let Some(v) = self.links[l].var.as_ref() {
                let (end, rate) = (v.segment_end_ns, v.rate_bps);
                self.links[l].rate_bps = rate;
                self.traces.record(TraceKind::Rate, 0, l as LinkId, rate as f64);
                self.events.schedule(end, Event::Cell(CellEvent::LinkRate(l as LinkId)));
            }
        }
    }

    pub(crate) fn on_link_rate(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        let busy = link.in_service.is_some();
        let v = link.var.as_mut().expect("rate events only for variable-rate links");
        let old = v.rate_bps;
        let done = v.change(now, busy);
        let (rate, end) = (v.rate_bps, v.segment_end_ns);
        link.rate_bps = rate;
        if rate != old {
            self.traces.record(TraceKind::Rate, now, l, rate as f64);
        }
        if let Some(done) = done {
            self.events.schedule(done, Event::LinkTxDone(l));
        }
        if end <= self.end_ns {
            self.events.schedule(end, Event::Cell(CellEvent::LinkRate(l)));
        }
    }
}

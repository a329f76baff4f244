//! The links of 802.11 media (`net::wifi`): a packet offered to such a link waits in the
//! link's queue; the head of one of a station's queues contends for the medium (it is the
//! link's `in_service` meanwhile), and a frame received leaves by the link's pipeline at the
//! end of the data frame, plus the link's propagation delay. A medium has one pending event:
//! its next access while idle, or the end of the exchange on the air.

use crate::net::wifi::WifiPort;
use crate::net::LinkId;
use crate::net::Verdict;
use crate::observe::LinkPoint;

use super::network::arrival_tag;
use super::world::{Event, World};

impl World {
    /// Offers the packet in `slot` to link `l` of a medium: queued (or dropped by the queue),
    /// and made its station's head frame if the station has none.
    pub(super) fn wifi_enqueue_slot(&mut self, l: LinkId, slot: u32, port: WifiPort) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        link.stats.offered += 1;
        match link.queue.enqueue_slot(now, slot, &mut link.rng, &mut self.store) {
            Verdict::DroppedFull | Verdict::DroppedEarly => {
                self.counters.dropped_queue += 1;
                if self.obs.wants(LinkPoint::Drop) {
                    self.obs.link(LinkPoint::Drop, now, l, link, self.store.get(slot));
                }
                self.store.release(slot);
                return;
            }
            Verdict::Queued | Verdict::Marked => {}
        }
        if self.obs.wants(LinkPoint::Enqueue) {
            let link = &*link;
            let queued = link.queue.back(&self.store).expect("just enqueued");
            self.obs.link(LinkPoint::Enqueue, now, l, link, queued);
        }
        let m = &self.media[port.medium as usize];
        if m.head_link[port.station as usize].is_none() {
            self.wifi_next_head(port.medium, port.station as usize);
            if self.media[port.medium as usize].exchange.is_none() {
                self.wifi_schedule_access(port.medium);
            }
        }
    }

    /// Station `s` of medium `m` takes the head of its next non-empty queue (its links in
    /// turn) as the frame it contends for.
    fn wifi_next_head(&mut self, m: u32, s: usize) {
        let now = self.now;
        let wm = &mut self.media[m as usize];
        let links = &wm.station_links[s];
        for k in 0..links.len() {
            let turn = (wm.next_turn[s] + k) % links.len();
            let l = links[turn];
            let link = &mut self.links[l as usize];
            let Some(slot) = link.queue.dequeue_slot(now, &self.store) else { continue };
            link.in_service = Some(slot);
            wm.next_turn[s] = turn + 1;
            wm.head_link[s] = Some(l);
            wm.medium.frame_ready(s, self.store.get(slot).size_bytes, now);
            return;
        }
    }

    /// Schedules medium `m`'s next access, if a station has a frame and it moved.
    fn wifi_schedule_access(&mut self, m: u32) {
        let wm = &mut self.media[m as usize];
        let Some(at) = wm.medium.next_access() else { return };
        if at != wm.access_ns {
            wm.access_ns = at;
            self.events.schedule_timer(at, Event::Medium(m));
        }
    }

    /// Medium `m`'s event: the end of the exchange on the air, or the next access. An event
    /// that is neither (superseded by an earlier access) is ignored.
    pub(super) fn on_medium(&mut self, m: u32) {
        let now = self.now;
        let wm = &mut self.media[m as usize];
        match wm.exchange {
            Some(ex) if ex.end_ns == now => self.wifi_end_exchange(m),
            Some(_) => {}
            None if wm.access_ns == now => self.wifi_access(m),
            None => {}
        }
    }

    /// The stations whose counts end now send: a received frame enters its link's pipeline,
    /// arriving at the end of the data frame plus the link's delay.
    fn wifi_access(&mut self, m: u32) {
        let now = self.now;
        let wm = &mut self.media[m as usize];
        wm.access_ns = crate::engine::time::SimTime::MAX;
        let ex = wm.medium.access(now);
        wm.exchange = Some(ex);
        self.events.schedule_timer(ex.end_ns, Event::Medium(m));
        for s in 0..self.media[m as usize].station_links.len() {
            if ex.senders & (1 << s) == 0 {
                continue;
            }
            let l = self.media[m as usize].head_link[s].expect("a sender has a head frame");
            let link = &mut self.links[l as usize];
            let slot = link.in_service.expect("a sender's head is in service");
            if self.obs.wants(LinkPoint::Transmit) {
                let link = &*link;
                self.obs.link(LinkPoint::Transmit, now, l, link, self.store.get(slot));
            }
            if !ex.received {
                continue;
            }
            link.in_service = None;
            link.stats.transmitted += 1;
            link.stats.tx_bytes += self.store.get(slot).size_bytes as u64;
            let at = ex.rx_end_ns + link.delay_ns;
            let tag = arrival_tag(self.static_routes, &self.nodes, link.to, link.to_class, self.store.get(slot));
            link.pipeline.push_back(&mut self.store, at, slot, tag);
            if link.pipeline.len() == 1 {
                self.events.schedule_timer(at, Event::LinkArrive(l));
            }
        }
    }

    /// The medium is idle again: senders whose frame is done (received, or given up at the
    /// retry limit) take their next; then the next access is scheduled.
    fn wifi_end_exchange(&mut self, m: u32) {
        let now = self.now;
        let ex = self.media[m as usize].exchange.take().expect("an exchange is on the air");
        for s in 0..self.media[m as usize].station_links.len() {
            if ex.heads_done() & (1 << s) == 0 {
                continue;
            }
            let l = self.media[m as usize].head_link[s].take().expect("a sender has a head frame");
            if !ex.received {
                // Discarded at the retry limit: lost on the link.
                let link = &mut self.links[l as usize];
                let slot = link.in_service.take().expect("a sender's head is in service");
                link.stats.transmitted += 1;
                link.stats.lost += 1;
                self.counters.dropped_loss += 1;
                if self.obs.wants(LinkPoint::Lost) {
                    let link = &*link;
                    self.obs.link(LinkPoint::Lost, now, l, link, self.store.get(slot));
                }
                self.store.release(slot);
            }
            self.wifi_next_head(m, s);
        }
        self.media[m as usize].access_ns = crate::engine::time::SimTime::MAX;
        self.wifi_schedule_access(m);
    }
}

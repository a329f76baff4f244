//! An 802.11 medium: the PHY's airtime and interframe spaces (`phy.rs`) and the DCF's
//! contention, retries and collisions among the stations sharing it (`dcf.rs`).

pub mod dcf;
pub mod phy;

pub use dcf::{Exchange, Medium, MediumStats};
pub use phy::{Standard, Timing};

use super::LinkId;
use crate::engine::time::SimTime;

/// A link whose transmitter is a station of a medium: its frames leave when that station
/// wins the contention (`World::media`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WifiPort {
    pub medium: u32,
    pub station: u32,
}

/// A medium of the world with the links of its stations. Each station sends the head of one
/// of its links' queues at a time, taking its links in turn (the AP has one per station).
pub struct WifiMedium {
    pub name: String,
    pub medium: Medium,
    /// Each station's outgoing links.
    pub station_links: Vec<Vec<LinkId>>,
    /// Per station: the link whose head frame is contending (its packet is the link's
    /// `in_service`), if any.
    pub head_link: Vec<Option<LinkId>>,
    /// Per station: where its turn among its links goes next.
    pub next_turn: Vec<usize>,
    /// The exchange on the air, until its end.
    pub exchange: Option<Exchange>,
    /// When the next access is due (its event); `SimTime::MAX` if none.
    pub access_ns: SimTime,
}

impl WifiMedium {
    pub fn new(name: String, medium: Medium, station_links: Vec<Vec<LinkId>>) -> WifiMedium {
        let n = station_links.len();
        WifiMedium {
            name,
            medium,
            station_links,
            head_link: vec![None; n],
            next_turn: vec![0; n],
            exchange: None,
            access_ns: SimTime::MAX,
        }
    }
}

//! The packet capture of an emulated run: the real bytes of each packet, one classic pcap file
//! per captured link (`<link>.pcap`, link type RAW: IPv4 packets without a link header),
//! taken when the packet's serialization starts on the link, as `hosim run`'s capture
//! (`observe/pcap`), and timestamped with the run's clock.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use hosim::engine::SimTime;
use hosim::net::packet::Packet;
use hosim::net::{Link, LinkId};
use hosim::observe::{LinkPoint, Observer};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::DataLink;

/// The real bytes of the packets inside the simulated network, by uid.
pub type Payloads = Rc<RefCell<HashMap<u64, Vec<u8>>>>;

pub struct RealCapture {
    payloads: Payloads,
    writers: Vec<Option<PcapWriter<BufWriter<File>>>>,
    pub files: Vec<PathBuf>,
}

impl RealCapture {
    pub fn create(dir: &Path, links: &[(String, bool)], payloads: Payloads) -> std::io::Result<RealCapture> {
        std::fs::create_dir_all(dir)?;
        let mut writers = Vec::new();
        let mut files = Vec::new();
        for (name, on) in links {
            if !on {
                writers.push(None);
                continue;
            }
            let safe: String =
                name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
            let path = dir.join(format!("{safe}.pcap"));
            let header = PcapHeader { datalink: DataLink::RAW, ..Default::default() };
            let w = PcapWriter::with_header(BufWriter::new(File::create(&path)?), header)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            writers.push(Some(w));
            files.push(path);
        }
        Ok(RealCapture { payloads, writers, files })
    }
}

impl Observer for RealCapture {
    fn points(&self) -> u8 {
        LinkPoint::Transmit.bit()
    }

    fn on_link(&mut self, _point: LinkPoint, now: SimTime, l: LinkId, _link: &Link, pkt: &Packet) {
        let Some(Some(w)) = self.writers.get_mut(l as usize) else { return };
        let payloads = self.payloads.borrow();
        // Packets a mechanism made (a GTP-U end marker) have no real bytes.
        let Some(bytes) = payloads.get(&pkt.uid) else { return };
        let p = PcapPacket::new(Duration::from_nanos(now), bytes.len() as u32, bytes);
        let _ = w.write_packet(&p);
    }

    fn finish(&mut self) -> std::io::Result<()> {
        use std::io::Write;
        for w in self.writers.drain(..).flatten() {
            w.into_writer().flush()?;
        }
        Ok(())
    }
}

/// Forgets the real bytes of a packet a link drops (queue full, RED, a discipline's drop at
/// dequeue) or loses, so that the table holds only packets still in the network. A packet a
/// mechanism drops (a hard handover) is not seen here; its bytes stay until the run ends.
pub struct ForgetDropped(pub Payloads);

impl Observer for ForgetDropped {
    fn points(&self) -> u8 {
        LinkPoint::Drop.bit() | LinkPoint::Lost.bit()
    }

    fn on_link(&mut self, _point: LinkPoint, _now: SimTime, _l: LinkId, _link: &Link, pkt: &Packet) {
        self.0.borrow_mut().remove(&pkt.uid);
    }
}

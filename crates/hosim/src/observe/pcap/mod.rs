//! Packet capture: an [`Observer`] at the [`LinkPoint::Transmit`] point of the chosen links
//! that writes every packet, as the bytes of `frame.rs`, to pcapng (one interface per link,
//! nanosecond timestamps, `if_tsresol` 9) or to classic pcap (one file per link,
//! microsecond timestamps). Link type RAW (101): each record starts with the IPv4 header.
//!
//! A packet is captured when its serialization starts on the link, timestamped with that
//! instant, as a capture on the sending interface would see it; so a link's packet count is
//! its `transmitted` count plus the packet still in service when the run ends. Writing goes
//! through a buffered writer as the run goes: nothing is held per packet. Off (no capture
//! asked for), the observer does not exist and the Transmit point costs one branch.

pub mod frame;

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, TsResolution};

use super::{LinkPoint, Observer};
use crate::engine::time::SimTime;
use crate::net::{Link, LinkId, Packet};
pub use frame::{FlowWire, Framer};

/// File format of a capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaptureFormat {
    /// One `capture.pcapng` with one interface per captured link.
    #[default]
    PcapNg,
    /// One `<link>.pcap` per captured link.
    Pcap,
}

impl CaptureFormat {
    pub fn parse(name: &str) -> Option<CaptureFormat> {
        match name {
            "pcapng" => Some(CaptureFormat::PcapNg),
            "pcap" => Some(CaptureFormat::Pcap),
            _ => None,
        }
    }
}

/// The name of the pcapng capture file.
pub const PCAPNG_FILE: &str = "capture.pcapng";

/// The file name of link `name`'s classic pcap: letters, digits, `-`, `_` and `.` stay, every
/// other byte of the name's UTF-8 becomes `%XX` (its hex value), so two links never share a file
/// and the link's name reads back from the file's (percent-decoding, as in a URL).
pub fn pcap_file_name(link: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(link.len() + 5);
    for b in link.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out.push_str(".pcap");
    out
}

/// The longest file name most file systems take, in bytes.
pub const MAX_FILE_NAME_BYTES: usize = 255;

type Out = BufWriter<File>;

enum Sink {
    /// The writer and the interface id of each link (None: not captured).
    Ng(PcapNgWriter<Out>, Vec<Option<u32>>),
    /// A writer per link (None: not captured).
    Classic(Vec<Option<PcapWriter<Out>>>),
}

/// The capture observer.
pub struct Capture {
    sink: Sink,
    flows: Vec<FlowWire>,
    framer: Framer,
    /// Bytes kept of each packet; 0: all.
    snaplen: u32,
    /// The first write error; writing stops there and `finish` returns it.
    error: Option<io::Error>,
    files: Vec<PathBuf>,
}

fn pcap_err(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        e => io::Error::other(e.to_string()),
    }
}

impl Capture {
    /// Creates the capture files in `dir` for the links whose `captured` entry is true.
    /// `links` are the names of all links, by id; `flows` describes every flow, by id.
    /// `existing_dir`: `dir` must exist already (it is not made again if it was removed).
    pub fn create(
        dir: &Path,
        existing_dir: bool,
        format: CaptureFormat,
        links: &[(String, bool)],
        flows: Vec<FlowWire>,
        snaplen: u32,
    ) -> io::Result<Capture> {
        if !existing_dir {
            std::fs::create_dir_all(dir)?;
        } else if !dir.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotFound, "the directory is gone"));
        }
        let file_snaplen = if snaplen == 0 { 262_144 } else { snaplen };
        let mut files = Vec::new();
        let sink = match format {
            CaptureFormat::PcapNg => {
                let path = dir.join(PCAPNG_FILE);
                let mut w = PcapNgWriter::new(BufWriter::new(File::create(&path)?)).map_err(pcap_err)?;
                files.push(path);
                let mut ids = Vec::with_capacity(links.len());
                let mut next = 0u32;
                for (name, on) in links {
                    if !on {
                        ids.push(None);
                        continue;
                    }
                    let idb = InterfaceDescriptionBlock {
                        linktype: DataLink::RAW,
                        snaplen: file_snaplen,
                        options: vec![
                            InterfaceDescriptionOption::IfName(Cow::Owned(name.clone())),
                            InterfaceDescriptionOption::IfTsResol(9),
                        ],
                    };
                    w.write_pcapng_block(idb).map_err(pcap_err)?;
                    ids.push(Some(next));
                    next += 1;
                }
                Sink::Ng(w, ids)
            }
            CaptureFormat::Pcap => {
                let mut ws = Vec::with_capacity(links.len());
                for (name, on) in links {
                    if !on {
                        ws.push(None);
                        continue;
                    }
                    let path = dir.join(pcap_file_name(name));
                    let header = PcapHeader {
                        snaplen: file_snaplen,
                        datalink: DataLink::RAW,
                        ts_resolution: TsResolution::MicroSecond,
                        endianness: pcap_file::Endianness::Little,
                        ..PcapHeader::default()
                    };
                    let w = PcapWriter::with_header(BufWriter::new(File::create(&path)?), header).map_err(pcap_err)?;
                    files.push(path);
                    ws.push(Some(w));
                }
                Sink::Classic(ws)
            }
        };
        Ok(Capture { sink, flows, framer: Framer::default(), snaplen, error: None, files })
    }

    /// The files this capture writes.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    fn write(&mut self, now: SimTime, l: LinkId, pkt: &Packet) -> io::Result<()> {
        let wanted = match &self.sink {
            Sink::Ng(_, ids) => ids[l as usize].is_some(),
            Sink::Classic(ws) => ws[l as usize].is_some(),
        };
        if !wanted {
            return Ok(());
        }
        self.framer.encode(pkt, &self.flows[pkt.flow as usize]);
        let bytes = &self.framer.buf;
        let orig_len = bytes.len() as u32;
        let kept = if self.snaplen == 0 { bytes.len() } else { bytes.len().min(self.snaplen as usize) };
        let timestamp = Duration::from_nanos(now);
        match &mut self.sink {
            Sink::Ng(w, ids) => {
                let block = EnhancedPacketBlock {
                    interface_id: ids[l as usize].expect("checked above"),
                    timestamp,
                    original_len: orig_len,
                    data: Cow::Borrowed(&bytes[..kept]),
                    options: Vec::new(),
                };
                w.write_pcapng_block(block).map_err(pcap_err)?;
            }
            Sink::Classic(ws) => {
                let w = ws[l as usize].as_mut().expect("checked above");
                w.write_packet(&PcapPacket::new(timestamp, orig_len, &bytes[..kept])).map_err(pcap_err)?;
            }
        }
        Ok(())
    }
}

impl Observer for Capture {
    fn points(&self) -> u8 {
        LinkPoint::Transmit.bit()
    }

    fn on_link(&mut self, _point: LinkPoint, now: SimTime, l: LinkId, _link: &Link, pkt: &Packet) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.write(now, l, pkt) {
            self.error = Some(e);
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match &mut self.sink {
            Sink::Ng(w, _) => w.get_mut().flush(),
            // The classic writer gives its file back only by value: the capture ends here.
            Sink::Classic(ws) => ws.iter_mut().filter_map(Option::take).try_for_each(|w| w.into_writer().flush()),
        }
    }
}

//! Interfaces that follow the host's attachment (`hosim emulate --multipath`): when a mechanism
//! says a host has left an access network (`Cx::set_attached`, `World::attachments`; the
//! vertical handoff in `hard` mode), the interface pinned to that network's link goes down in
//! the host's namespace, and comes up again when the host re-attaches, as a real host's WiFi
//! or cellular interface does when it loses or regains its network.
//!
//! A thread of its own ([`Follower`], SCHED_FIFO as the loop, so it runs as soon as the loop
//! files a change) does what a real host's stack and network manager do, in order:
//! - leaving: the interface's address is removed (RTM_DELADDR, as `ip addr del`), which takes
//!   the kernel tens of microseconds and leaves the sockets that use it without a route at
//!   once; then the link goes down (RTM_NEWLINK without IFF_UP, as `ip link set DEV down`),
//!   which can take the kernel milliseconds (`dev_close` waits for an RCU grace period);
//! - joining: the link comes up and the address comes back (RTM_NEWLINK, RTM_NEWADDR), with its
//!   /24 prefix route;
//! - then the MPTCP path manager's endpoint, which the in-kernel path manager does not derive
//!   from the interfaces by itself: a host's network manager adds an endpoint for an address
//!   when its interface gets it and removes it when the interface loses it (as NetworkManager's
//!   MPTCP support and mptcpd do). Here `ip mptcp endpoint add ADDR dev DEV id N subflow` on
//!   joining and `ip mptcp endpoint delete id N` on leaving. Adding an endpoint makes the path
//!   manager of the side that opened the connection open a subflow from it at once (a
//!   listener's subflows would go to the peer's ephemeral port, where nothing listens);
//!   deleting one closes the subflows that use its address and sends REMOVE_ADDR
//!   (RFC 8684 §3.4.2).
//!
//! The link and address changes are rtnetlink(7) requests on a NETLINK_ROUTE socket opened
//! inside the namespace, not the `ip` command: starting a process costs milliseconds on a
//! loaded machine, the requests tens of microseconds, and the removal of the address is the
//! instant the host loses the network. Each change is recorded with its times.

use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::sync::mpsc::{channel, Sender};
use std::time::Instant;

use hosim::engine::ns_to_s;
use nix::sched::{setns, CloneFlags};
use serde_json::{json, Value};

/// linux/rtnetlink.h, linux/netlink.h, linux/if_addr.h.
const RTM_NEWLINK: u16 = 16;
const RTM_NEWADDR: u16 = 20;
const RTM_DELADDR: u16 = 21;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_ACK: u16 = 0x4;
const NLM_F_EXCL: u16 = 0x200;
const NLM_F_CREATE: u16 = 0x400;
const NLMSG_ERROR: u16 = 0x2;
const IFF_UP: u32 = 0x1;
const IFA_ADDRESS: u16 = 1;
const IFA_LOCAL: u16 = 2;

/// A NETLINK_ROUTE socket inside one namespace.
pub struct LinkControl {
    fd: OwnedFd,
    seq: u32,
}

impl LinkControl {
    /// The socket, opened from a thread that has entered namespace `ns` (a netlink socket
    /// belongs to the namespace it was created in), and the index of each of `devs` there.
    pub fn open_in(ns: &str, devs: &[String]) -> Result<(LinkControl, Vec<i32>), String> {
        let (ns, devs) = (ns.to_string(), devs.to_vec());
        std::thread::spawn(move || -> Result<(LinkControl, Vec<i32>), String> {
            let f = File::open(format!("/var/run/netns/{ns}")).map_err(|e| format!("namespace {ns}: {e}"))?;
            setns(f.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|e| format!("setns {ns}: {e}"))?;
            // SAFETY: plain socket(2); the descriptor is checked and owned below.
            let fd =
                unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_ROUTE) };
            if fd < 0 {
                return Err(format!("netlink socket in {ns}: {}", std::io::Error::last_os_error()));
            }
            // SAFETY: fd was just opened and is owned by nobody else.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            // An acknowledgment that does not come in 200 ms is an error, not a hang.
            let tv = libc::timeval { tv_sec: 0, tv_usec: 200_000 };
            // SAFETY: SO_RCVTIMEO reads a timeval of the given size.
            unsafe {
                libc::setsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_RCVTIMEO,
                    (&tv as *const libc::timeval).cast(),
                    std::mem::size_of::<libc::timeval>() as libc::socklen_t,
                )
            };
            let mut index = Vec::with_capacity(devs.len());
            for dev in &devs {
                let name = std::ffi::CString::new(dev.as_str()).map_err(|e| e.to_string())?;
                // SAFETY: a NUL-terminated name; the call reads it only.
                let i = unsafe { libc::if_nametoindex(name.as_ptr()) };
                if i == 0 {
                    return Err(format!("no interface {dev} in {ns}"));
                }
                index.push(i as i32);
            }
            Ok((LinkControl { fd, seq: 0 }, index))
        })
        .join()
        .map_err(|_| "the thread opening a netlink socket panicked".to_string())?
    }

    /// Brings interface `ifindex` up or down.
    pub fn set_up(&mut self, ifindex: i32, up: bool) -> Result<(), String> {
        // struct ifinfomsg: family AF_UNSPEC, type, the interface, its new flags and the mask
        // of the flags to change.
        let mut body = [0u8; 16];
        body[4..8].copy_from_slice(&ifindex.to_ne_bytes());
        body[8..12].copy_from_slice(&(if up { IFF_UP } else { 0 }).to_ne_bytes());
        body[12..16].copy_from_slice(&IFF_UP.to_ne_bytes());
        self.request(RTM_NEWLINK, 0, &body).map_err(|e| format!("link {}: {e}", if up { "up" } else { "down" }))
    }

    /// Adds (or removes) IPv4 address `addr`/`prefix` on interface `ifindex`.
    pub fn set_addr(&mut self, ifindex: i32, addr: [u8; 4], prefix: u8, add: bool) -> Result<(), String> {
        assert!(crate::safety::in_benchmark_range(addr));
        // struct ifaddrmsg (family AF_INET, prefix length, flags, scope universe, interface),
        // then the attributes IFA_LOCAL and IFA_ADDRESS, each a 4-byte header and the address.
        let mut body = [0u8; 24];
        body[0] = libc::AF_INET as u8;
        body[1] = prefix;
        body[4..8].copy_from_slice(&ifindex.to_ne_bytes());
        for (at, kind) in [(8, IFA_LOCAL), (16, IFA_ADDRESS)] {
            body[at..at + 2].copy_from_slice(&8u16.to_ne_bytes());
            body[at + 2..at + 4].copy_from_slice(&kind.to_ne_bytes());
            body[at + 4..at + 8].copy_from_slice(&addr);
        }
        let (kind, flags) = if add { (RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL) } else { (RTM_DELADDR, 0) };
        let a = crate::safety::fmt_addr(addr);
        self.request(kind, flags, &body).map_err(|e| format!("address {a} {}: {e}", if add { "add" } else { "del" }))
    }

    /// Sends one request (a `struct nlmsghdr` then `body`) and waits for its acknowledgment.
    fn request(&mut self, kind: u16, flags: u16, body: &[u8]) -> Result<(), String> {
        self.seq = self.seq.wrapping_add(1);
        let len = 16 + body.len();
        let mut m = Vec::with_capacity(len);
        m.extend_from_slice(&(len as u32).to_ne_bytes());
        m.extend_from_slice(&kind.to_ne_bytes());
        m.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK | flags).to_ne_bytes());
        m.extend_from_slice(&self.seq.to_ne_bytes());
        m.extend_from_slice(&0u32.to_ne_bytes());
        m.extend_from_slice(body);
        let fd = self.fd.as_raw_fd();
        // SAFETY: sends `m`, of its length, on a socket this value owns (to the kernel: an
        // unconnected netlink socket's default destination).
        if unsafe { libc::send(fd, m.as_ptr().cast(), m.len(), 0) } != m.len() as isize {
            return Err(std::io::Error::last_os_error().to_string());
        }
        let mut buf = [0u8; 1024];
        loop {
            // SAFETY: reads into `buf`, of its length.
            let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n < 0 {
                return Err(format!("no acknowledgment: {}", std::io::Error::last_os_error()));
            }
            if (n as usize) < 20 {
                return Err("a short answer".into());
            }
            let kind = u16::from_ne_bytes([buf[4], buf[5]]);
            let seq = u32::from_ne_bytes([buf[8], buf[9], buf[10], buf[11]]);
            if kind != NLMSG_ERROR || seq != self.seq {
                continue; // not the answer to this request
            }
            // struct nlmsgerr: the error (0: acknowledged), then the request's header.
            return match i32::from_ne_bytes([buf[16], buf[17], buf[18], buf[19]]) {
                0 => Ok(()),
                e => Err(std::io::Error::from_raw_os_error(-e).to_string()),
            };
        }
    }
}

/// One attachment change of one interface, for the [`Follower`].
pub struct Change {
    pub host: String,
    /// The host's index (its [`LinkControl`]), namespace, the interface's index there.
    pub k: usize,
    pub ns: String,
    pub ifindex: i32,
    pub dev: String,
    pub addr: [u8; 4],
    pub prefix: u8,
    pub attached: bool,
    /// The simulated time of the change (ns since the run's start, as the wall clock).
    pub at_ns: u64,
    /// The `ip mptcp endpoint` arguments that follow it, if any.
    pub endpoint: Option<Vec<String>>,
}

/// The thread that applies the changes in the order they were filed: each batch (the changes
/// of one instant: a hard handoff leaves one network and joins the other) first on the links
/// and addresses, then on the endpoints, so that joining does not wait for the `ip` command
/// that removes the endpoint of the network left.
pub struct Follower {
    tx: Sender<Vec<Change>>,
    handle: std::thread::JoinHandle<Vec<Value>>,
}

impl Follower {
    /// `links`: each emulated host's socket (None: a host without pinned interfaces).
    pub fn start(t0: Instant, mut links: Vec<Option<LinkControl>>, realtime: bool) -> Follower {
        let (tx, rx) = channel::<Vec<Change>>();
        let handle = std::thread::spawn(move || {
            let _rt = realtime.then(|| crate::rt::Realtime::acquire(10));
            let since = |t0: Instant| t0.elapsed().as_nanos() as u64;
            let mut out = Vec::new();
            for batch in rx {
                let batch: Vec<Change> = batch.into_iter().filter(|c| links[c.k].is_some()).collect();
                let first = out.len();
                // The instant of each change: leaving, the address goes; joining, the link
                // comes up and the address comes back (the network is usable).
                for c in &batch {
                    let Some(ctl) = links[c.k].as_mut() else { continue };
                    let errors: Vec<String> = if c.attached {
                        ctl.set_up(c.ifindex, true)
                            .err()
                            .into_iter()
                            .chain(ctl.set_addr(c.ifindex, c.addr, c.prefix, true).err())
                            .collect()
                    } else {
                        ctl.set_addr(c.ifindex, c.addr, c.prefix, false).err().into_iter().collect()
                    };
                    let done_ns = since(t0);
                    out.push(json!({
                        "host": c.host,
                        "device": c.dev,
                        "address": crate::safety::fmt_addr(c.addr),
                        "up": c.attached,
                        "at_s": ns_to_s(c.at_ns),
                        "done_s": ns_to_s(done_ns),
                        "late_us": done_ns.saturating_sub(c.at_ns) as f64 / 1e3,
                        "link_done_s": ns_to_s(done_ns),
                        "endpoint": c.endpoint.as_ref().map(|a| a.join(" ")),
                        "endpoint_done_s": None::<f64>,
                        "errors": errors,
                    }));
                }
                // Then the links left go down (the kernel may take milliseconds).
                for (c, rec) in batch.iter().zip(first..) {
                    if c.attached {
                        continue;
                    }
                    let Some(ctl) = links[c.k].as_mut() else { continue };
                    let r = ctl.set_up(c.ifindex, false);
                    let m = &mut out[rec];
                    m["link_done_s"] = json!(ns_to_s(since(t0)));
                    if let (Err(e), Some(errors)) = (r, m["errors"].as_array_mut()) {
                        errors.push(json!(e));
                    }
                }
                // Then the endpoints.
                for (c, rec) in batch.iter().zip(first..) {
                    let Some(args) = &c.endpoint else { continue };
                    let mut a: Vec<&str> = vec!["-n", &c.ns, "mptcp", "endpoint"];
                    a.extend(args.iter().map(String::as_str));
                    let r = crate::safety::ip(&a);
                    let m = &mut out[rec];
                    m["endpoint_done_s"] = json!(ns_to_s(since(t0)));
                    if let (Err(e), Some(errors)) = (r, m["errors"].as_array_mut()) {
                        errors.push(json!(e));
                    }
                }
            }
            out
        });
        Follower { tx, handle }
    }

    /// The changes of one instant.
    pub fn file(&self, batch: Vec<Change>) {
        if !batch.is_empty() {
            let _ = self.tx.send(batch);
        }
    }

    /// Waits for the filed changes; each one's record.
    pub fn finish(self) -> Vec<Value> {
        drop(self.tx);
        self.handle.join().unwrap_or_default()
    }
}

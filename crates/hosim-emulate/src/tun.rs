//! TUN devices: opened from a thread that has entered the namespace (`setns(2)` changes the
//! network namespace of the calling thread only), so the device is created inside it. The
//! device is not persistent: it disappears when its file descriptor is closed.

use std::fs::File;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};

use nix::sched::{setns, CloneFlags};

/// `TUNSETIFF` (`_IOW('T', 202, int)`, linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Opens a new TUN device `dev` inside namespace `ns` (non-blocking, IPv4 packets without a
/// packet-information header).
pub fn open_in(ns: &str, dev: &str) -> Result<OwnedFd, String> {
    let (ns, dev) = (ns.to_string(), dev.to_string());
    std::thread::spawn(move || -> Result<OwnedFd, String> {
        let f = File::open(format!("/var/run/netns/{ns}")).map_err(|e| format!("namespace {ns}: {e}"))?;
        setns(f.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|e| format!("setns {ns}: {e}"))?;
        // SAFETY: a constant path; the returned descriptor is checked and owned below.
        let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(format!("/dev/net/tun: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: fd was just opened and is owned by nobody else.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
        req.name[..dev.len()].copy_from_slice(dev.as_bytes());
        // SAFETY: TUNSETIFF reads a struct ifreq, which IfReq lays out (name, flags, padding).
        if unsafe { libc::ioctl(fd, TUNSETIFF as _, &mut req as *mut IfReq) } < 0 {
            return Err(format!("TUNSETIFF {dev} in {ns}: {}", std::io::Error::last_os_error()));
        }
        Ok(owned)
    })
    .join()
    .map_err(|_| "the thread opening a TUN device panicked".to_string())?
}

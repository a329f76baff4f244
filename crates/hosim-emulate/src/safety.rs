//! Safety: what `hosim emulate` may touch on the machine, and how it leaves it.
//!
//! - Addresses come only from 198.18.0.0/15 (RFC 2544 §C.2.2, the benchmarking range), one per
//!   emulated host, on the TUN device of a network namespace this run creates.
//! - Each namespace has one route, 198.18.0.0/15 through its TUN device (with several
//!   interfaces, 198.18.i.0/24 through interface i), and no default route: a packet to any
//!   other address has no route and never leaves the namespace. What the TUN
//!   device gives hosim goes into the simulated network and comes out only at another of the
//!   run's TUN devices.
//! - The namespaces are named `hosim-emu-<pid>-<k>`. They are deleted, with every process left
//!   in them, when the run ends, fails or is interrupted ([`Namespaces`]'s `Drop`); one whose
//!   pid no longer runs hosim (a run killed with SIGKILL) is deleted by the next run
//!   ([`remove_stale`]). The TUN devices are not persistent: they go with the file descriptor.
//! - No machine-wide setting is changed: the only sysctls a run could set are per namespace,
//!   and die with it.

use std::path::Path;
use std::process::Command;

/// Prefix of every namespace a run creates.
pub const PREFIX: &str = "hosim-emu-";

/// The most hosts one run emulates (198.18.0.1 to 198.18.0.250).
pub const MAX_HOSTS: usize = 250;

/// The prefix length of the addresses of a host's several interfaces: 198.18.i.0/24 is the
/// network of interface `i`.
pub const MULTI_PREFIX: u8 = 24;

/// The most interfaces one emulated host has.
pub const MAX_IFACES: usize = 8;

/// The address of interface `i` of emulated host `k` (both 0-based): 198.18.i.(k + 1).
pub fn host_addr(k: usize, i: usize) -> [u8; 4] {
    assert!(k < MAX_HOSTS, "at most {MAX_HOSTS} emulated hosts");
    assert!(i < MAX_IFACES, "at most {MAX_IFACES} interfaces a host");
    let a = [198, 18, i as u8, (k + 1) as u8];
    debug_assert!(in_benchmark_range(a));
    a
}

/// Is `a` inside 198.18.0.0/15?
pub fn in_benchmark_range(a: [u8; 4]) -> bool {
    a[0] == 198 && a[1] & 0xfe == 18
}

pub fn fmt_addr(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// Root and `/dev/net/tun`, or the one line saying what is missing.
pub fn preflight() -> Result<(), String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("hosim emulate needs root (it creates network namespaces and TUN devices)".into());
    }
    if !Path::new("/dev/net/tun").exists() {
        return Err("hosim emulate needs /dev/net/tun (the tun kernel module)".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Err("hosim emulate needs the `ip` command (iproute2)".into());
    }
    Ok(())
}

/// Runs `ip ARGS`; its stderr on failure.
pub fn ip(args: &[&str]) -> Result<String, String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if !out.status.success() {
        return Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The namespaces named by `ip netns list` that start with [`PREFIX`].
fn ours() -> Vec<String> {
    ip(&["netns", "list"])
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(PREFIX))
        .map(str::to_string)
        .collect()
}

/// Kills what still runs in namespace `name` and deletes it.
fn delete(name: &str) {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids.split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
            // SAFETY: kill has no memory preconditions; the pid runs in our namespace.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// Does process `pid` run hosim (the CLI, or Python with hosim loaded)?
fn runs_hosim(pid: i32) -> bool {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else { return false };
    maps.contains("hosim")
        || std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c.windows(5).any(|w| w == b"hosim"))
}

/// Deletes the namespaces left by runs that no longer exist; their names.
pub fn remove_stale() -> Vec<String> {
    let me = std::process::id() as i32;
    let mut removed = Vec::new();
    for name in ours() {
        let pid = name[PREFIX.len()..].split('-').next().and_then(|p| p.parse::<i32>().ok());
        let alive = pid.is_some_and(|p| p == me || runs_hosim(p));
        if !alive {
            delete(&name);
            removed.push(name);
        }
    }
    removed
}

/// The namespaces of one run, deleted on drop (end, error, interrupt).
pub struct Namespaces {
    pub names: Vec<String>,
}

impl Namespaces {
    /// Creates `n` namespaces, `hosim-emu-<pid>-<k>`, each with its loopback up.
    pub fn create(n: usize) -> Result<Namespaces, String> {
        let pid = std::process::id();
        let mut ns = Namespaces { names: Vec::with_capacity(n) };
        for k in 0..n {
            let name = format!("{PREFIX}{pid}-{k}");
            // A namespace of this pid left by an earlier run of this process.
            if ours().contains(&name) {
                delete(&name);
            }
            ip(&["netns", "add", &name])?;
            ns.names.push(name.clone());
            ip(&["-n", &name, "link", "set", "lo", "up"])?;
        }
        Ok(ns)
    }

    /// Gives namespace `k`'s TUN device `dev` its address and its route, and brings it up;
    /// unless its host is not `attached` to that interface's network at the start: then it
    /// stays down, without an address, until the host joins (attach.rs). A host's only
    /// interface gets its address as /32 and the route 198.18.0.0/15; interface `i` of several
    /// gets 198.18.i.(k+1)/[`MULTI_PREFIX`], whose prefix route (the other hosts' interface
    /// `i`, the same network) the kernel adds whenever the address is there and the link up.
    pub fn configure(&self, k: usize, dev: &str, addr: [u8; 4], only: bool, attached: bool) -> Result<(), String> {
        assert!(in_benchmark_range(addr));
        let name = &self.names[k];
        if !attached {
            ip(&["-n", name, "link", "set", dev, "down", "mtu", "1500"])?;
            return Ok(());
        }
        let a = fmt_addr(addr);
        ip(&["-n", name, "addr", "add", &format!("{a}/{}", if only { 32 } else { MULTI_PREFIX }), "dev", dev])?;
        ip(&["-n", name, "link", "set", dev, "up", "mtu", "1500"])?;
        if only {
            ip(&["-n", name, "route", "add", "198.18.0.0/15", "dev", dev, "src", &a])?;
        }
        Ok(())
    }

    /// MPTCP in namespace `k` (RFC 8684; the kernel's in-kernel path manager): up to 8
    /// subflows and accepted addresses, and each of `endpoints` (device, address, endpoint id)
    /// an endpoint that opens subflows, bound to its device.
    pub fn mptcp(&self, k: usize, endpoints: &[(String, [u8; 4], usize)]) -> Result<(), String> {
        let name = &self.names[k];
        ip(&["-n", name, "mptcp", "limits", "set", "subflow", "8", "add_addr_accepted", "8"])?;
        for (dev, addr, id) in endpoints {
            ip(&[
                "-n",
                name,
                "mptcp",
                "endpoint",
                "add",
                &fmt_addr(*addr),
                "dev",
                dev,
                "id",
                &id.to_string(),
                "subflow",
            ])?;
        }
        Ok(())
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.names {
            delete(name);
        }
    }
}

/// Whether any namespace of process `pid` exists (tests).
pub fn namespaces_of(pid: u32) -> Vec<String> {
    let p = format!("{PREFIX}{pid}-");
    ours().into_iter().filter(|n| n.starts_with(&p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_address_is_in_the_benchmarking_range() {
        for k in 0..MAX_HOSTS {
            for i in 0..MAX_IFACES {
                assert!(in_benchmark_range(host_addr(k, i)));
            }
        }
        assert!(in_benchmark_range([198, 19, 255, 255]));
        assert!(!in_benchmark_range([198, 20, 0, 1]));
        assert!(!in_benchmark_range([10, 0, 0, 1]));
    }

    #[test]
    #[should_panic]
    fn a_host_past_the_limit_gets_no_address() {
        host_addr(MAX_HOSTS, 0);
    }
}

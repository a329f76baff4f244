//! The applications of a run, each a shell command inside a host's namespace (`ip netns exec`),
//! in a process group of its own, killed with the group when the run ends; and the kernel's
//! view of a namespace at the end (`ss -tin`, `nstat -as`).

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

pub struct App {
    pub role: &'static str,
    child: Child,
    pub status: Option<i32>,
}

impl App {
    /// Starts `cmd` with `sh -c` in namespace `ns`. Its output goes to `out` (a file), else to
    /// hosim's own stdout and stderr. Called from the [`Spawner`]'s thread: `posix_spawn` (no
    /// `pre_exec`), so the loop's thread is never stopped by a fork copying the address space.
    fn spawn(role: &'static str, ns: &str, cmd: &str, out: Option<&Path>) -> Result<App, String> {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]);
        // The shell gets SIGKILL if the thread that started it ends (hosim killed included);
        // the rest of its group is killed by `stop` or, after a SIGKILL of hosim, by the next
        // run's removal of the stale namespace.
        if has_setpriv() {
            c.args(["setpriv", "--pdeathsig", "KILL"]);
        }
        c.args(["sh", "-c", cmd]).stdin(Stdio::null()).process_group(0);
        if let Some(path) = out {
            let f = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let g = f.try_clone().map_err(|e| e.to_string())?;
            c.stdout(f).stderr(g);
        }
        let child = c.spawn().map_err(|e| format!("{role} command: {e}"))?;
        Ok(App { role, child, status: None })
    }

    /// Has it exited (its status kept)?
    pub fn exited(&mut self) -> bool {
        if self.status.is_none() {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.status = Some(s.code().unwrap_or(-1));
            }
        }
        self.status.is_some()
    }

    /// Ends the process group: SIGTERM, then SIGKILL after `grace`.
    pub fn stop(&mut self, grace: Duration) {
        let pgid = self.child.id() as i32;
        // SAFETY: signals to the group this App started.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let until = Instant::now() + grace;
        while !self.exited() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: as above; the group may be gone already (ESRCH is harmless).
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        if self.status.is_none() {
            self.status = self.child.wait().ok().map(|s| s.code().unwrap_or(-1));
        }
    }
}

fn in_ns(ns: &str, args: &[&str]) -> String {
    Command::new("ip")
        .args(["netns", "exec", ns])
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// `ss -tin` in namespace `ns`: the kernel's TCP sockets and their state, one entry per socket
/// (its address line and its info line joined).
pub fn ss(ns: &str) -> Vec<String> {
    let text = in_ns(ns, &["ss", "-tinH"]);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with(char::is_whitespace) {
            if let Some(last) = out.last_mut() {
                last.push(' ');
                last.push_str(line.trim());
                continue;
            }
        }
        out.push(line.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    out
}

/// The namespace's non-zero SNMP and extended counters (`nstat -as`), which count from the
/// namespace's creation, so from the run's start.
pub fn nstat(ns: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    for line in in_ns(ns, &["nstat", "-as"]).lines() {
        let mut parts = line.split_whitespace();
        if let (Some(k), Some(v)) = (parts.next(), parts.next()) {
            if let Ok(v) = v.parse::<u64>() {
                m.insert(k.to_string(), v.into());
            }
        }
    }
    m
}

/// Samples `ss -tin` in each namespace every `every`, keeping the last non-empty sample.
pub struct SsSampler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<Vec<Vec<String>>>,
}

impl SsSampler {
    pub fn start(names: Vec<String>, every: Duration) -> SsSampler {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut last = vec![Vec::new(); names.len()];
            while !flag.load(Ordering::Relaxed) {
                for (k, ns) in names.iter().enumerate() {
                    let now = ss(ns);
                    if !now.is_empty() {
                        last[k] = now;
                    }
                }
                let until = Instant::now() + every;
                while Instant::now() < until && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            last
        });
        SsSampler { stop, handle }
    }

    pub fn finish(self) -> Vec<Vec<String>> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

fn has_setpriv() -> bool {
    Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// What the spawner starts: (role, namespace, command, output file).
pub type AppSpec = (&'static str, String, String, Option<PathBuf>);

/// A thread of ordinary priority that starts the applications (each at its time after the
/// run's start) and lives until the run ends, so that `--pdeathsig` (tied to the thread that
/// started a process) fires only when hosim ends. The loop takes the started [`App`]s from
/// [`Spawner::started`].
pub struct Spawner {
    apps: Receiver<Result<App, String>>,
    quit: Sender<()>,
    handle: std::thread::JoinHandle<()>,
}

impl Spawner {
    pub fn start(t0: Instant, specs: Vec<(Duration, AppSpec)>) -> Spawner {
        let (tx, apps) = channel();
        let (quit, quit_rx) = channel::<()>();
        let handle = std::thread::spawn(move || {
            for (at, (role, ns, cmd, out)) in specs {
                let wait = (t0 + at).saturating_duration_since(Instant::now());
                if quit_rx.recv_timeout(wait).is_ok() {
                    return;
                }
                if tx.send(App::spawn(role, &ns, &cmd, out.as_deref())).is_err() {
                    return;
                }
            }
            let _ = quit_rx.recv();
        });
        Spawner { apps, quit, handle }
    }

    /// The applications started since the last call (or the error starting one).
    pub fn started(&self) -> Result<Vec<App>, String> {
        self.apps.try_iter().collect()
    }

    pub fn finish(self) {
        let _ = self.quit.send(());
        let _ = self.handle.join();
    }
}

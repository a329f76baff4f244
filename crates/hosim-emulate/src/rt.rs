//! Real-time scheduling for the loop, held while it runs and released on drop: SCHED_FIFO for
//! the calling thread (with SCHED_RESET_ON_FORK, so the applications it starts run as usual),
//! and a `/dev/cpu_dma_latency` request of 0 µs (the PM QoS interface: no deep C-states while
//! the file is open). Either may be refused (no privilege, no such file): the run goes on and
//! its summary says which it had.

use std::fs::{File, OpenOptions};
use std::io::Write;

pub struct Realtime {
    previous: Option<(libc::c_int, libc::sched_param)>,
    dma: Option<File>,
}

impl Realtime {
    pub fn acquire(priority: i32) -> Realtime {
        // SAFETY: plain syscalls on the calling thread (pid 0), with a valid sched_param.
        let previous = unsafe {
            let policy = libc::sched_getscheduler(0);
            let mut old = libc::sched_param { sched_priority: 0 };
            libc::sched_getparam(0, &mut old);
            let p = libc::sched_param { sched_priority: priority };
            (libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &p) == 0)
                .then_some((policy, old))
        };
        let dma = OpenOptions::new().write(true).open("/dev/cpu_dma_latency").ok().and_then(|mut f| {
            f.write_all(&0i32.to_ne_bytes()).ok()?;
            Some(f)
        });
        Realtime { previous, dma }
    }

    pub fn fifo(&self) -> bool {
        self.previous.is_some()
    }

    pub fn dma_latency(&self) -> bool {
        self.dma.is_some()
    }
}

impl Drop for Realtime {
    fn drop(&mut self) {
        if let Some((policy, param)) = self.previous.take() {
            // SAFETY: restores the thread's own earlier policy.
            unsafe { libc::sched_setscheduler(0, policy, &param) };
        }
        // The latency request ends when the file is closed.
        self.dma.take();
    }
}

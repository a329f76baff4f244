//! The HSDPA system of Ren, Huang, Liu and Lin, "Improving TCP Throughput over HSDPA
//! Networks" (IEEE Trans. Wireless Commun. 2008): TCP over a varying-rate radio downlink,
//! optionally through the window adaptation proxy.
//!
//! Files: `config.rs` (the `[hsdpa]` section), `template.rs` (the Fig. 2 graph and installing
//! the agent), `proxy.rs` (the proxy's control law, eqs. 3-4, 8, 18), `report.rs` (the radio
//! metrics). The agent, [`Hsdpa`], owns no node: the proxy is a host where one flow ends and
//! the next begins (`Flow::relay_to`); the agent samples the Node-B and steers the proxy's
//! sender on its timers.

mod config;
pub mod proxy;
mod report;
mod template;

pub use config::{BandwidthName, HsdpaSection, WindowName};
pub use report::RadioReport;
pub use template::{expand, install, DOWNLINK, PRESET, TEMPLATE};

use crate::net::{FlowId, LinkId};
use crate::sim::{Agent, Cx, Report, World};
use proxy::Proxy;

/// What an HSDPA timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Node-B samples its rate and queue for the proxy.
    Sample,
    /// The proxy takes its control step: the report of this step has arrived or was lost.
    Step,
    /// End of the run: take the radio metrics.
    Summary,
}

/// The HSDPA agent: the optional proxy and the radio report.
pub struct Hsdpa {
    pub proxy: Option<Proxy>,
    /// The Node-B's radio downlink towards the UE.
    pub downlink: LinkId,
    /// The server's flow (to the UE, or to the proxy) and the flow that reaches the UE.
    pub server_flow: FlowId,
    pub ue_flow: FlowId,
    /// The summary, taken at the end of the run.
    finished: Option<Report>,
}

impl Agent for Hsdpa {
    type Timer = Timer;

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        match timer {
            Timer::Sample => {
                let p = self.proxy.as_mut().expect("samples only with the proxy");
                let (step_at, next_sample) = p.sample(cx);
                cx.schedule(step_at, Timer::Step);
                if let Some(t) = next_sample {
                    cx.schedule(t, Timer::Sample);
                }
            }
            Timer::Step => self.proxy.as_mut().expect("steps only with the proxy").step(cx),
            Timer::Summary => {
                let proxy = self.proxy.as_ref().map(Proxy::report);
                let radio = RadioReport::take(cx, self.downlink, self.server_flow, self.ue_flow, proxy);
                let mut report = Report::default();
                report.add_fields(&radio);
                self.finished = Some(report);
            }
        }
    }

    fn report(&self, _world: &World) -> Report {
        self.finished.clone().unwrap_or_default()
    }
}

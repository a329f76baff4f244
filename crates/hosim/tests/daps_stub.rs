//! A DAPS-like handover written only as a test, on the RAN kit (`hosim::mobility::ran`) and
//! the public API: no other file changes, no registration (the scenario is an explicit graph
//! and the agent is added to the built simulation).
//!
//! Dual active protocol stack handover (3GPP TS 38.300 §9.2.3.2), reduced to what the kit
//! must make possible. At the HO command the UE starts connecting to the target while the
//! source keeps serving it. Once connected the UE is attached to both cells: both schedulers
//! serve it, its uplink moves to the target, and the gateway switches its downlink tunnel to
//! the target and sends an end marker down the old path. The source serves what it still
//! holds for the UE, and releases the UE once the end marker has arrived and its queue is
//! empty.
//!
//! ```text
//!  srv ── gw ══ src ── radio ──┐
//!           ╲                  ue
//!            ═ tgt ── radio ──┘
//! ```

use hosim::engine::time::{s_to_ns, SimTime};
use hosim::metrics::summary::check_invariants;
use hosim::mobility::ran::{self, gtp, BufferLimit, Cell, CellSet, Ran, Scheduler, SchedulerKind, Ue};
use hosim::net::{NodeId, Packet, PacketKind, QueueLimit};
use hosim::sim::{Agent, Cx, Sim};

const SOURCE: usize = 0;
const TARGET: usize = 1;
const COMMAND_S: f64 = 1.0;
/// From the HO command until the UE has connected to the target (random access).
const CONNECT_S: f64 = 0.03;
/// From the UE connecting to the target until the gateway switches the path.
const PATH_SWITCH_S: f64 = 0.01;

fn graph(duration_s: f64) -> String {
    let mut t = format!("duration_s = {duration_s}\n");
    for (name, kind) in [("srv", "host"), ("gw", "router"), ("src", "router"), ("tgt", "router"), ("ue", "host")] {
        t += &format!("[[nodes]]\nname = \"{name}\"\nkind = \"{kind}\"\n");
    }
    let links: [(&str, &str, f64, f64, bool); 7] = [
        ("srv", "gw", 100e6, 0.010, true),
        ("gw", "src", 100e6, 0.002, true),
        ("gw", "tgt", 100e6, 0.002, true),
        // Source links first: the UE's first routes use them.
        ("src", "ue", 10e6, 0.001, false),
        ("ue", "src", 10e6, 0.001, false),
        ("tgt", "ue", 10e6, 0.001, false),
        ("ue", "tgt", 10e6, 0.001, false),
    ];
    for (from, to, rate, delay, both) in links {
        t += &format!(
            "[[links]]\nfrom = \"{from}\"\nto = \"{to}\"\nrate_bps = {rate}\ndelay_s = {delay}\n\
             queue_packets = 1000\nbidirectional = {both}\n"
        );
    }
    t + "[[flows]]\nname = \"dl\"\nsrc = \"srv\"\ndst = \"ue\"\n"
}

/// What the DAPS agent's timers are for: the kit's, and the handover's steps.
#[derive(Clone, Copy, Debug)]
enum Timer {
    Ran(ran::Timer),
    Command,
    Connected,
    PathSwitch,
}

impl From<ran::Timer> for Timer {
    fn from(t: ran::Timer) -> Timer {
        Timer::Ran(t)
    }
}

/// What happened when, and what the cells sent meanwhile.
#[derive(Debug, Default)]
struct Log {
    command_ns: SimTime,
    connected_ns: SimTime,
    released_ns: Option<SimTime>,
    /// Bytes delivered in order to the UE at the command and once connected to the target.
    delivered_at_command: u64,
    delivered_at_connect: u64,
    /// Radio packets of (source, target) at the connection and at the release.
    radio_at_connect: (u64, u64),
    radio_at_release: (u64, u64),
}

struct Daps {
    gw: NodeId,
    ran: Ran,
    /// The end marker reached the source: it releases the UE once its queue is empty.
    end_marker_at_source: bool,
    log: Log,
}

impl Daps {
    fn install(sim: &mut Sim) {
        sim.add_agent(|cx: &mut Cx<Timer>| {
            let id = |cx: &Cx<Timer>, n: &str| cx.node_id(n).expect("node");
            let (gw, ue) = (id(cx, "gw"), id(cx, "ue"));
            let mut cells = Vec::new();
            for name in ["src", "tgt"] {
                let n = id(cx, name);
                cx.own(n);
                let scheduler = Scheduler::new(SchedulerKind::Wfq, vec![1.0]);
                let mut cell =
                    Cell::new(n, name.into(), 1, BufferLimit::PerUe(QueueLimit::Packets(100)), 10_000_000, scheduler);
                cell.downlinks[0] = cx.link_id(&format!("{name}->ue"));
                cells.push(cell);
            }
            cx.own(gw);
            let uplinks = vec![cx.link_id("ue->src"), cx.link_id("ue->tgt")];
            let ues = vec![Ue {
                node: ue,
                name: "ue".into(),
                flow: Some(0),
                cells: CellSet::one(SOURCE),
                path: SOURCE,
                uplinks,
            }];
            cx.schedule(s_to_ns(COMMAND_S), Timer::Command);
            Daps { gw, ran: Ran::new(cells, ues, cx.nodes().len()), end_marker_at_source: false, log: Log::default() }
        });
    }

    fn radio_packets(&self) -> (u64, u64) {
        (self.ran.cells[SOURCE].radio.packets, self.ran.cells[TARGET].radio.packets)
    }

    /// Downlink packets for the UE enter the tunnel to the cell on its path.
    fn gateway(&mut self, cx: &mut Cx<Timer>, mut pkt: Packet) {
        if let Some(u) = self.ran.ue_at(pkt.dst) {
            let path = self.ran.ues[u].path;
            gtp::encapsulate(&mut pkt, self.gw, self.ran.cells[path].node, gtp::s1u_teid(path, u), false);
        }
        cx.forward(self.gw, pkt);
    }

    /// A cell: the UE's uplink goes on; tunnelled downlink is queued for the UE and served.
    fn cell(&mut self, cx: &mut Cx<Timer>, c: usize, mut pkt: Packet) {
        let me = self.ran.cells[c].node;
        let Some(t) = pkt.tunnel.filter(|_| pkt.dst == me) else {
            return cx.forward(me, pkt);
        };
        gtp::decapsulate(&mut pkt, false);
        if t.end_marker {
            cx.counters_mut().consumed += 1;
            self.end_marker_at_source = true;
            return self.release_if_drained(cx);
        }
        let u = self.ran.ue_at(t.inner_dst).expect("tunnels carry the UE's packets");
        let now = cx.now();
        if !self.ran.cells[c].buffers.offer(u, now, pkt, cx.rng()) {
            cx.counters_mut().dropped_queue += 1;
        }
        self.ran.serve(cx, c);
    }

    /// The source lets the UE go once the old path is empty: the end marker has arrived and
    /// nothing is queued for the UE.
    fn release_if_drained(&mut self, cx: &mut Cx<Timer>) {
        let src = &self.ran.cells[SOURCE];
        if self.end_marker_at_source && src.buffers.head_bytes(0).is_none() && self.ran.ues[0].cells.contains(SOURCE) {
            self.ran.ues[0].cells.detach(SOURCE);
            self.log.released_ns = Some(cx.now());
            self.log.radio_at_release = self.radio_packets();
        }
    }

    fn step(&mut self, cx: &mut Cx<Timer>, t: Timer) {
        let now = cx.now();
        match t {
            Timer::Ran(t) => {
                self.ran.on_timer(cx, t);
                self.release_if_drained(cx);
            }
            // The source keeps serving the UE while it connects to the target.
            Timer::Command => {
                self.log.command_ns = now;
                self.log.delivered_at_command = cx.flows()[0].delivered_bytes;
                cx.schedule(now + s_to_ns(CONNECT_S), Timer::Connected);
            }
            // Attached to both cells; the uplink moves to the target.
            Timer::Connected => {
                self.ran.ues[0].cells.attach(TARGET);
                assert_eq!(self.ran.ues[0].cells.len(), 2);
                self.log.connected_ns = now;
                self.log.delivered_at_connect = cx.flows()[0].delivered_bytes;
                self.log.radio_at_connect = self.radio_packets();
                let (ue, up) = (self.ran.ues[0].node, self.ran.ues[0].uplinks[TARGET].expect("uplink"));
                ran::route_uplink(cx, ue, up);
                cx.schedule(now + s_to_ns(PATH_SWITCH_S), Timer::PathSwitch);
            }
            // New downlink to the target; an end marker closes the old path.
            Timer::PathSwitch => {
                self.ran.ues[0].path = TARGET;
                let (gw, src, ue) = (self.gw, self.ran.cells[SOURCE].node, self.ran.ues[0].node);
                let base = cx.new_packet(0, gw, src, PacketKind::Data);
                let em = gtp::end_marker(base, (gw, src), ue, gtp::s1u_teid(SOURCE, 0), false);
                cx.forward(gw, em);
                self.ran.serve(cx, TARGET);
            }
        }
    }
}

impl Agent for Daps {
    type Timer = Timer;

    fn on_packet(&mut self, cx: &mut Cx<Timer>, node: NodeId, pkt: Packet) {
        match self.ran.cell_at(node) {
            Some(c) => self.cell(cx, c, pkt),
            None => self.gateway(cx, pkt),
        }
    }

    fn on_timer(&mut self, cx: &mut Cx<Timer>, timer: Timer) {
        self.step(cx, timer);
    }

    fn held_packets(&self) -> u64 {
        self.ran.held_packets()
    }

    fn check(&self) -> Vec<String> {
        self.ran.check()
    }
}

fn run_daps() -> Sim {
    let text = graph(3.0);
    let s = hosim::scenario::load(&text, "daps.toml", &[]).expect("valid scenario");
    let mut sim = hosim::scenario::build::build(&s, "daps.toml", 1).expect("buildable scenario");
    Daps::install(&mut sim);
    sim.run();
    sim
}

#[test]
fn a_daps_ue_is_served_by_the_source_while_it_connects_and_by_both_cells_until_release() {
    let sim = run_daps();
    assert!(check_invariants(&sim).is_empty(), "{:?}", check_invariants(&sim));
    let daps = sim.agent::<Daps>().expect("the DAPS agent");
    let log = &daps.log;
    assert_eq!(log.connected_ns - log.command_ns, s_to_ns(CONNECT_S));
    assert!(
        log.delivered_at_connect > log.delivered_at_command,
        "the source kept delivering while the UE connected to the target"
    );
    let released = log.released_ns.expect("the source released the UE");
    assert!(released > log.connected_ns + s_to_ns(PATH_SWITCH_S), "released after the path switch");
    let (src, tgt) = (log.radio_at_release.0 - log.radio_at_connect.0, log.radio_at_release.1 - log.radio_at_connect.1);
    assert!(src > 0 && tgt > 0, "both cells sent to the UE while it was attached to both: {src}, {tgt}");
    assert_eq!(daps.ran.ues[0].cells, CellSet::one(TARGET), "the UE is left with the target");
    assert_eq!(daps.ran.cells[SOURCE].held(), 0, "nothing of the UE is left in the source");
    let stats = &sim.world.flows[0].sender.stats;
    assert_eq!(stats.timeouts, 0, "no retransmission timeout across the handover");
    assert!(sim.world.flows[0].delivered_bytes > 2_000_000, "{} bytes", sim.world.flows[0].delivered_bytes);
}

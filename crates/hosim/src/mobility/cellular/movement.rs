//! Movement off the line: cells on a grid, UEs on a random waypoint walk, and handover
//! decisions from measured distances; and movement from a trace of (time, UE, cell).
//!
//! - Random waypoint (Johnson & Maltz's mobility model, as in "Random Waypoint Considered
//!   Harmful", Yoon, Liu & Noble, 2003): a UE starts at a uniform random point of the area,
//!   picks a uniform random waypoint and a speed uniform in [`speed_mps`, `speed_max_mps`],
//!   walks there in a straight line, pauses `pause_s`, and repeats. The area is the cells'
//!   bounding box widened by half a cell spacing on every side. The lowest speed must be > 0:
//!   with speeds near 0 the average speed decays over the run (Yoon et al.). Each UE draws
//!   from its own stream (seed, `Cell` kind, `WALK_STREAM + u`), so runs are deterministic
//!   and a UE's walk does not depend on the others.
//! - Decisions: every `measure_period_s` a UE compares its distances to the cells. A
//!   neighbour closer than the serving cell by more than the hysteresis enters the A3-like
//!   condition (TS 38.331 §5.5.4.4, distance standing in for signal level); if the condition
//!   holds without a break for the time to trigger, the serving cell decides. On the line
//!   the entry is found in closed form (`handover.rs`); off it, one measurement period late at
//!   most.
//! - Trace (`movement_trace`): a CSV file of `time_s,ue,cell` rows (a header line and `#`
//!   comments allowed). A row at time 0 gives the UE's first cell; a later one is a handover
//!   decision of the UE to that cell at that time, as a `[[cellular.handovers]]` entry.

use rand::Rng as _;

use super::{Cellular, SchemeName, Timer};
use crate::engine::rng::Rng;
use crate::engine::time::{s_to_ns, SimTime};
use crate::sim::Cx;

/// Stream index base of the UEs' walks (kind `Cell`).
pub const WALK_STREAM: u64 = 2_000_000;

/// One leg of a walk: from `from` at `start_ns` to `to` at `arrive_ns`, paused until `leave_ns`.
#[derive(Clone, Copy, Debug)]
struct Leg {
    from: (f64, f64),
    to: (f64, f64),
    start_ns: SimTime,
    arrive_ns: SimTime,
    leave_ns: SimTime,
}

/// A UE's random waypoint walk, drawn leg by leg as time goes on.
#[derive(Clone, Debug)]
pub struct Walk {
    rng: Rng,
    /// The area: (x min, y min), (x max, y max).
    area: ((f64, f64), (f64, f64)),
    speed_mps: (f64, f64),
    pause_ns: SimTime,
    leg: Leg,
    /// Legs walked so far.
    pub legs: u64,
}

impl Walk {
    pub fn new(mut rng: Rng, area: ((f64, f64), (f64, f64)), speed_mps: (f64, f64), pause_ns: SimTime) -> Walk {
        let start = point(&mut rng, area);
        let leg = Leg { from: start, to: start, start_ns: 0, arrive_ns: 0, leave_ns: 0 };
        let mut w = Walk { rng, area, speed_mps, pause_ns, leg, legs: 0 };
        w.leg = w.next_leg(start, 0);
        w
    }

    /// From `from` at `t`: a new waypoint and speed.
    fn next_leg(&mut self, from: (f64, f64), t: SimTime) -> Leg {
        let to = point(&mut self.rng, self.area);
        let (lo, hi) = self.speed_mps;
        let v = if hi > lo { self.rng.gen_range(lo..=hi) } else { lo };
        let walk_ns = s_to_ns((to.0 - from.0).hypot(to.1 - from.1) / v);
        let arrive_ns = t + walk_ns;
        // A leg takes at least a nanosecond, so time always moves on.
        let leave_ns = (arrive_ns + self.pause_ns).max(t + 1);
        self.legs += 1;
        Leg { from, to, start_ns: t, arrive_ns, leave_ns }
    }

    /// The UE's position at `t`, which must not go back in time past the current leg.
    pub fn at(&mut self, t: SimTime) -> (f64, f64) {
        while t >= self.leg.leave_ns {
            self.leg = self.next_leg(self.leg.to, self.leg.leave_ns);
        }
        let l = self.leg;
        if t >= l.arrive_ns {
            return l.to;
        }
        let f = (t - l.start_ns) as f64 / (l.arrive_ns - l.start_ns) as f64;
        (l.from.0 + f * (l.to.0 - l.from.0), l.from.1 + f * (l.to.1 - l.from.1))
    }
}

fn point(rng: &mut Rng, ((x0, y0), (x1, y1)): ((f64, f64), (f64, f64))) -> (f64, f64) {
    let x = if x1 > x0 { rng.gen_range(x0..x1) } else { x0 };
    let y = if y1 > y0 { rng.gen_range(y0..y1) } else { y0 };
    (x, y)
}

/// One row of a movement trace: UE `ue` is in cell `cell` from `at_s` on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRow {
    pub at_s: f64,
    pub ue: u32,
    pub cell: u32,
}

/// Parses a movement trace: `time_s,ue,cell` rows, times >= 0 and non-decreasing, UE and cell
/// indices below `ues` and `cells`. The first line may be a header; blank lines and lines
/// starting with `#` are skipped. Errors name the line.
pub fn parse_trace(text: &str, ues: u32, cells: u32) -> Result<Vec<TraceRow>, String> {
    let mut rows: Vec<TraceRow> = Vec::new();
    let mut first = true;
    for (i, line) in text.lines().enumerate() {
        let s = line.trim();
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        let header = first && !s.starts_with(|ch: char| ch.is_ascii_digit() || ch == '.');
        first = false;
        if header {
            continue;
        }
        let n = i + 1;
        let fields: Vec<&str> = s.split(',').map(str::trim).collect();
        let [t, ue, cell] = fields[..] else {
            return Err(format!("line {n}: expected 3 fields time_s,ue,cell, got {}", fields.len()));
        };
        let at_s: f64 = t.parse().map_err(|_| format!("line {n}: time_s must be a number, got {t:?}"))?;
        if !at_s.is_finite() || at_s < 0.0 {
            return Err(format!("line {n}: time_s must be >= 0, got {t}"));
        }
        if rows.last().is_some_and(|r| at_s < r.at_s) {
            return Err(format!("line {n}: times must not decrease ({at_s} after {})", rows.last().unwrap().at_s));
        }
        let index = |name: &str, v: &str, below: u32| -> Result<u32, String> {
            match v.parse::<u32>() {
                Ok(x) if x < below => Ok(x),
                _ => Err(format!("line {n}: {name} must be an index below {below}, got {v:?}")),
            }
        };
        rows.push(TraceRow { at_s, ue: index("ue", ue, ues)?, cell: index("cell", cell, cells)? });
    }
    Ok(rows)
}

impl Cellular {
    /// UE `u`'s position in the plane at `t` (line movement: along y = 0).
    pub(super) fn pos_m(&mut self, u: usize, t: SimTime) -> (f64, f64) {
        match self.walks.get_mut(u) {
            Some(w) => w.at(t),
            None => (self.x_m(u, t), 0.0),
        }
    }

    /// Distance of UE `u` from cell `c` at `t`.
    pub(super) fn dist_m(&mut self, u: usize, c: usize, t: SimTime) -> f64 {
        let (x, y) = self.pos_m(u, t);
        let (cx, cy) = self.p.cell_xy_m[c];
        (x - cx).hypot(y - cy)
    }

    /// Off the line: one measurement of UE `u`. Neighbours entering the A3-like condition
    /// start their time to trigger; those leaving it stop it. Comes back a period later.
    pub(super) fn measure_2d(&mut self, cx: &mut Cx<Timer>, u: usize) {
        let now = cx.now();
        let next = now + self.p.measure_period_ns;
        if next < cx.end_ns() {
            cx.schedule(next, Timer::Measure2d { ue: u });
        }
        if self.p.scheme == SchemeName::Cho {
            self.cho_measure_2d(cx, u);
        }
        // A prepared CHO waits for the execution condition: it goes on being measured.
        let cho_waits = self.state[u].active.is_some_and(|h| {
            let ho = &self.handovers[h];
            ho.scheme == SchemeName::Cho && ho.command_ns.is_none()
        });
        if self.state[u].active.is_some() && !cho_waits {
            return; // decisions wait for the handover's end, which restarts every trigger
        }
        let s = self.state[u].serving;
        let ds = self.dist_m(u, s, now);
        for n in 0..self.p.cell_xy_m.len() {
            let held = n != s && self.dist_m(u, n, now) + self.p.hysteresis_m < ds;
            match (held, self.a3_since[u][n]) {
                (true, None) => {
                    self.a3_since[u][n] = Some(now);
                    cx.schedule(now + self.p.time_to_trigger_ns, Timer::Triggered { ue: u, source: s, target: n });
                }
                (false, Some(_)) => self.a3_since[u][n] = None,
                _ => {}
            }
        }
    }

    /// Off the line: the condition for `target` has held since its entry for the time to
    /// trigger, without a break.
    pub(super) fn a3_held(&self, u: usize, target: usize, now: SimTime) -> bool {
        self.a3_since[u][target].is_some_and(|t| now >= t + self.p.time_to_trigger_ns)
    }

    /// The serving cell changed: every time to trigger starts anew.
    pub(super) fn a3_reset(&mut self, u: usize) {
        if let Some(row) = self.a3_since.get_mut(u) {
            row.iter_mut().for_each(|t| *t = None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream_rng, StreamKind};

    #[test]
    fn a_walk_stays_in_its_area_moves_at_its_speeds_and_repeats_with_its_seed() {
        let area = ((-100.0, -50.0), (900.0, 450.0));
        let walk = |seed| Walk::new(stream_rng(seed, StreamKind::Cell, WALK_STREAM), area, (10.0, 20.0), s_to_ns(1.0));
        let (mut a, mut b, mut c) = (walk(1), walk(1), walk(2));
        let mut prev = a.at(0);
        let mut differs = false;
        for k in 1..=20_000u64 {
            let t = k * 10_000_000; // 10 ms steps over 200 s
            let p = a.at(t);
            assert_eq!(p, b.at(t), "same seed, same walk");
            differs |= p != c.at(t);
            assert!(p.0 >= -100.0 && p.0 <= 900.0 && p.1 >= -50.0 && p.1 <= 450.0, "{p:?}");
            let v = (p.0 - prev.0).hypot(p.1 - prev.1) / 0.01;
            assert!(v <= 20.0 + 1e-6, "{v} m/s at {t}");
            prev = p;
        }
        assert!(differs, "another seed walks elsewhere");
        assert!(a.legs > 5, "{} legs in 200 s", a.legs);
    }

    #[test]
    fn a_trace_parses_with_a_header_and_names_the_line_of_an_error() {
        let rows = parse_trace("time_s,ue,cell\n# comment\n0,0,1\n2.5, 1, 0\n", 2, 2).unwrap();
        assert_eq!(rows, vec![TraceRow { at_s: 0.0, ue: 0, cell: 1 }, TraceRow { at_s: 2.5, ue: 1, cell: 0 }]);
        let err = |text: &str| parse_trace(text, 2, 3).unwrap_err();
        assert!(err("0,0,1\n1,0\n").starts_with("line 2: expected 3 fields"), "{}", err("0,0,1\n1,0\n"));
        assert!(err("0,0,1\n1,2,0\n").starts_with("line 2: ue must be an index below 2"));
        assert!(err("0,0,3\n").starts_with("line 1: cell must be an index below 3"));
        assert!(err("2,0,1\n1,0,2\n").starts_with("line 2: times must not decrease"));
        assert!(err("0,0,1\nx,0,1\n").starts_with("line 2: time_s must be a number"));
    }
}

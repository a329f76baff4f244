//! `cellular` movement off the line (issue 37 §1): cells on a grid, random waypoint, a
//! movement trace. Handover decisions follow from the geometry within one time to trigger;
//! trace-driven handovers happen at the trace's times; bad input is refused by key and line.

use hosim::engine::rng::{stream_rng, StreamKind};
use hosim::engine::s_to_ns;
use hosim::mobility::cellular::{Walk, WALK_STREAM};
use hosim::RunOptions;
use serde_json::Value;

const BASE: &str = "name = \"m\"\ntopology = \"cellular\"\nduration_s = 20.0\n[cellular]\nues = 1\n";

fn run(kv: &[(&str, &str)], seed: u64) -> Result<Value, String> {
    let overrides = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let opts = RunOptions { seed: Some(seed), overrides, traces: false, ..Default::default() };
    hosim::run(BASE, "m.toml", &opts).map(|o| o.summary).map_err(|e| e.to_string())
}

fn summary(kv: &[(&str, &str)], seed: u64) -> Value {
    run(kv, seed).unwrap_or_else(|e| panic!("{e}"))
}

fn handovers(s: &Value) -> Vec<(f64, Option<f64>, String, String)> {
    let hs = s["handovers"].as_array().expect("handovers");
    hs.iter()
        .map(|h| {
            let cell = |k: &str| h[k].as_str().unwrap().to_string();
            (h["start_s"].as_f64().unwrap(), h["end_s"].as_f64(), cell("source"), cell("target"))
        })
        .collect()
}

/// A file in the temp dir, unique to this test process.
fn temp_file(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("hosim-movement-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn on_a_grid_a_ue_moving_along_a_row_hands_over_within_one_time_to_trigger_of_each_border() {
    // A 3 x 2 grid 400 m apart; the UE runs along the first row (y = 0) at 20 m/s from x = 0.
    // Borders (midpoints plus half the 10 m hysteresis) at 205 and 605 m: 10.25 s and 30.25 s.
    let (ttt, period) = (0.256, 0.04);
    let s = summary(
        &[
            ("duration_s", "35"),
            ("cellular.cells", "6"),
            ("cellular.layout", "\"grid\""),
            ("cellular.grid_columns", "3"),
            ("cellular.cell_spacing_m", "400"),
            ("cellular.speed_mps", "20"),
            ("cellular.hysteresis_m", "10"),
            ("cellular.time_to_trigger_s", "0.256"),
            ("cellular.measure_period_s", "0.04"),
            ("cellular.scheme", "\"forward\""),
            ("tcp.rwnd_bytes", "65535"),
        ],
        1,
    );
    let hos = handovers(&s);
    assert_eq!(hos.len(), 2, "{hos:?}");
    for ((start, _, from, to), (border_s, cells)) in
        hos.iter().zip([(10.25, ("cell0", "cell1")), (30.25, ("cell1", "cell2"))])
    {
        assert_eq!((from.as_str(), to.as_str()), cells);
        let late = start - (border_s + ttt);
        assert!((-1e-9..=period + 1e-9).contains(&late), "decided at {start}, border at {border_s}: {late} s late");
    }
}

/// Cells listed in the plane (`cell_positions_m` as `[x, y]` pairs): a triangle 500 m wide
/// with its apex 430 m up. A UE crossing the base along y = 0 at 20 m/s from x = 0 hands over
/// at the base's border (250 m plus half the 10 m hysteresis: 12.75 s) to cell1, not to the
/// apex cell; one starting under the apex (x = 250, y = 0: nearer cell0, 250 m, than cell2,
/// 430 m) at rest never hands over. Listed along y = 0 instead, the apex cell stands at 250 m
/// and takes the first UE at its own border (125 m).
#[test]
fn cells_listed_in_the_plane_are_measured_by_their_distances() {
    let (ttt, period) = (0.256, 0.04);
    let kv = |xy: &'static str, speed: &'static str, x0: &'static str| {
        summary(
            &[
                ("duration_s", "20"),
                ("cellular.cells", "3"),
                ("cellular.cell_positions_m", xy),
                ("cellular.ue_start_m", x0),
                ("cellular.speed_mps", speed),
                ("cellular.hysteresis_m", "10"),
                ("cellular.scheme", "\"forward\""),
                ("tcp.rwnd_bytes", "65535"),
            ],
            1,
        )
    };
    let hos = handovers(&kv("[[0, 0], [500, 0], [250, 430]]", "20", "0"));
    assert_eq!(hos.len(), 1, "{hos:?}");
    let (start, _, from, to) = &hos[0];
    assert_eq!((from.as_str(), to.as_str()), ("cell0", "cell1"));
    let late = start - (12.75 + ttt);
    assert!((-1e-9..=period + 1e-9).contains(&late), "decided at {start}: {late} s late");
    assert!(handovers(&kv("[[0, 0], [500, 0], [250, 430]]", "0", "250")).is_empty());
    let on_line = handovers(&kv("[0, 250, 500]", "20", "0"));
    assert_eq!((on_line[0].2.as_str(), on_line[0].3.as_str()), ("cell0", "cell1"));
    assert!((on_line[0].0 - (6.5 + ttt)).abs() < 1e-6, "{on_line:?}");
}

/// Conditional handover on a grid (TS 38.300 §9.2.3.4): its prepare, execution and radio
/// link failure conditions on the measured distances. A 3 x 2 grid 400 m apart; the UE runs
/// along the first row at 20 m/s. Prepared when cell1 is closer than cell0 by more than
/// -40 m (x > 180 m: 9 s) with cell1 and cell4 (then 450 m against cell0's 180 m: not
/// meeting the condition) not both candidates; executed once cell1 has been closer by the
/// 10 m hysteresis (x > 205 m: 10.25 s) for the time to trigger. With a 2 s time to trigger
/// the link to cell0 fails first (cell1 closer by 30 m: x > 215 m, 10.75 s) and the UE
/// re-establishes in the prepared cell1. Once in cell1, cell0 meets the -40 m prepare
/// condition until the UE is 20 m past the border (x < 220 m): prepared, never executed,
/// and withdrawn as the UE moves on (its copies discarded).
#[test]
fn cho_on_a_grid_prepares_executes_and_fails_by_measured_distances() {
    let period = 0.04;
    let run_cho = |ttt: &'static str| {
        summary(
            &[
                ("duration_s", "14"),
                ("cellular.cells", "6"),
                ("cellular.layout", "\"grid\""),
                ("cellular.grid_columns", "3"),
                ("cellular.cell_spacing_m", "400"),
                ("cellular.speed_mps", "20"),
                ("cellular.hysteresis_m", "10"),
                ("cellular.time_to_trigger_s", ttt),
                ("cellular.measure_period_s", "0.04"),
                ("cellular.scheme", "\"cho\""),
                ("cellular.cho_prepare_offset_m", "-40"),
                ("cellular.rlf_offset_m", "30"),
                ("tcp.rwnd_bytes", "65535"),
            ],
            1,
        )
    };
    let within = |t: f64, from_s: f64| (-1e-9..=period + 1e-9).contains(&(t - from_s));
    let s = run_cho("0.256");
    let hos = s["handovers"].as_array().unwrap();
    assert_eq!(hos.len(), 2, "{hos:?}");
    let back = &hos[1];
    assert_eq!((back["source"].as_str(), back["target"].as_str()), (Some("cell1"), Some("cell0")), "{back}");
    assert!(back["command_s"].is_null() && back["cancelled_discarded"].as_u64() > Some(0), "{back}");
    let ho = &hos[0];
    assert_eq!((ho["source"].as_str(), ho["target"].as_str()), (Some("cell0"), Some("cell1")), "{ho}");
    assert_eq!(ho["candidates"], serde_json::json!(["cell1"]), "{ho}");
    assert!(within(ho["start_s"].as_f64().unwrap(), 9.0), "prepared at 9 s: {ho}");
    assert!(within(ho["command_s"].as_f64().unwrap(), 10.25 + 0.256), "executed a TTT after 10.25 s: {ho}");
    assert_eq!(ho["radio_link_failure"], false, "{ho}");
    let s = run_cho("2.0");
    let ho = &s["handovers"][0];
    assert!(within(ho["start_s"].as_f64().unwrap(), 9.0), "prepared at 9 s: {ho}");
    assert_eq!(ho["radio_link_failure"], true, "{ho}");
    assert_eq!(ho["target"], "cell1", "{ho}");
    assert!(within(ho["command_s"].as_f64().unwrap(), 10.75), "the link fails at 10.75 s: {ho}");
}

/// Replays the A3-like rule on UE 0's walk in 1 ms steps: the first time from `from_s` on
/// that a cell has been closer than `serving` by more than the hysteresis for the whole time
/// to trigger, and that cell.
fn replay(
    walk: &mut Walk,
    cells: &[(f64, f64)],
    serving: usize,
    from_s: f64,
    h: f64,
    ttt: f64,
) -> Option<(f64, usize)> {
    let mut since: Vec<Option<f64>> = vec![None; cells.len()];
    let d = |p: (f64, f64), c: usize| (p.0 - cells[c].0).hypot(p.1 - cells[c].1);
    let mut t = from_s;
    while t < 60.0 {
        let p = walk.at(s_to_ns(t));
        for (n, since_n) in since.iter_mut().enumerate() {
            if n != serving && d(p, n) + h < d(p, serving) {
                let s0 = *since_n.get_or_insert(t);
                if t - s0 >= ttt {
                    return Some((t, n));
                }
            } else {
                *since_n = None;
            }
        }
        t += 0.001;
    }
    None
}

#[test]
fn random_waypoint_handovers_follow_the_walk_within_one_time_to_trigger() {
    let (h, ttt, period, spacing, seed) = (10.0, 0.256, 0.04, 200.0, 7);
    let kv = [
        ("duration_s", "60"),
        ("cellular.cells", "9"),
        ("cellular.layout", "\"grid\""),
        ("cellular.cell_spacing_m", "200"),
        ("cellular.movement", "\"random-waypoint\""),
        ("cellular.speed_mps", "15"),
        ("cellular.speed_max_mps", "30"),
        ("cellular.pause_s", "1"),
        ("cellular.hysteresis_m", "10"),
        ("cellular.scheme", "\"forward\""),
        ("tcp.rwnd_bytes", "65535"),
    ];
    let s = summary(&kv, seed);
    let hos = handovers(&s);
    assert!(hos.len() >= 4, "a 60 s walk at 15-30 m/s over 200 m cells: {hos:?}");
    assert_eq!(hos, handovers(&summary(&kv, seed)), "the same seed walks the same way");
    assert_ne!(hos, handovers(&summary(&kv, seed + 1)), "another seed walks elsewhere");
    // The same walk, rebuilt from the same stream, and the rule replayed finely.
    let cells: Vec<(f64, f64)> = (0..9).map(|c| ((c % 3) as f64 * spacing, (c / 3) as f64 * spacing)).collect();
    let area = ((-100.0, -100.0), (500.0, 500.0));
    let mut walk = Walk::new(stream_rng(seed, StreamKind::Cell, WALK_STREAM), area, (15.0, 30.0), s_to_ns(1.0));
    let p0 = walk.at(0);
    let d = |c: usize| (p0.0 - cells[c].0).hypot(p0.1 - cells[c].1);
    let mut serving = (0..9).min_by(|&a, &b| d(a).total_cmp(&d(b))).unwrap();
    assert_eq!(hos[0].2, format!("cell{serving}"), "the UE starts in the cell nearest to its start");
    let mut from_s = 0.0;
    for (start, end, _, to) in &hos {
        let (t, n) = replay(&mut walk, &cells, serving, from_s, h, ttt).expect("a handover the replay finds");
        assert_eq!(to, &format!("cell{n}"));
        assert!((start - t).abs() <= period + 0.002, "decided at {start}, rule met at {t}");
        serving = n;
        from_s = end.expect("the handover ended");
        // The walk is replayed from the handover's end, where the UE measures anew.
        walk = Walk::new(stream_rng(seed, StreamKind::Cell, WALK_STREAM), area, (15.0, 30.0), s_to_ns(1.0));
    }
}

#[test]
fn trace_driven_handovers_happen_at_the_trace_times() {
    let trace = temp_file("ok.csv", "time_s,ue,cell\n0,0,2\n0,1,0\n2.0,0,1\n4.5,0,0\n4.5,1,2\n7.25,0,2\n");
    let s = summary(
        &[
            ("duration_s", "10"),
            ("cellular.cells", "3"),
            ("cellular.ues", "2"),
            ("cellular.movement", "\"trace\""),
            ("cellular.movement_trace", &format!("{trace:?}")),
            ("cellular.scheme", "\"forward\""),
        ],
        1,
    );
    let hs = s["handovers"].as_array().unwrap();
    let got: Vec<(String, f64, String, String)> = hs
        .iter()
        .map(|h| {
            let st = |k: &str| h[k].as_str().unwrap().to_string();
            (st("ue"), h["start_s"].as_f64().unwrap(), st("source"), st("target"))
        })
        .collect();
    let want = [
        ("ue0", 2.0, "cell2", "cell1"),
        ("ue0", 4.5, "cell1", "cell0"),
        ("ue1", 4.5, "cell0", "cell2"),
        ("ue0", 7.25, "cell0", "cell2"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.2.as_str(), g.3.as_str()), (w.0, w.2, w.3), "{got:?}");
        assert!((g.1 - w.1).abs() < 1e-9, "{got:?}");
    }
}

#[test]
fn bad_movement_input_is_refused_by_key_and_line() {
    let bad = temp_file("bad.csv", "time_s,ue,cell\n0,0,1\n1.0,0,7\n");
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("cellular.movement", "\"trace\"".into()), ("cellular.movement_trace", format!("{bad:?}"))],
            "line 3: cell must be an index below 3",
        ),
        (vec![("cellular.movement", "\"trace\"".into())], "`cellular.movement_trace`: required"),
        (
            vec![("cellular.movement_trace", format!("{bad:?}"))],
            "`cellular.movement_trace`: is for movement = \"trace\"",
        ),
        (
            vec![("cellular.layout", "\"grid\"".into()), ("cellular.grid_columns", "4".into())],
            "`cellular.grid_columns`: must be 1 to cells (3)",
        ),
        (
            vec![("cellular.cell_positions_m", "[[0, 0], [500, 0]]".into())],
            "`cellular.cell_positions_m`: must list one position per cell (3 cells), got 2",
        ),
        (
            vec![("cellular.cell_positions_m", "[[0, 0], [500, 0], [0, 0]]".into())],
            "`cellular.cell_positions_m[2]`: is cell 0's position too (0, 0)",
        ),
        (
            vec![("cellular.cell_positions_m", "[[0, 0], [500, 0], [250, nan]]".into())],
            "`cellular.cell_positions_m[2][1]`",
        ),
        (vec![("cellular.cell_positions_m", "[[0, 0], [500, 0], 250]".into())], "cellular.cell_positions_m"),
        (
            vec![
                ("cellular.cell_positions_m", "[[0, 0], [500, 0], [250, 430]]".into()),
                ("cellular.layout", "\"grid\"".into()),
            ],
            "`cellular.cell_positions_m`: is for layout = \"line\"",
        ),
        (
            vec![("cellular.movement", "\"random-waypoint\"".into())],
            "`cellular.speed_mps`: random waypoint needs a speed > 0",
        ),
        (vec![("cellular.measure_period_s", "0".into())], "`cellular.measure_period_s`: must be >= 0.001 s"),
        (
            vec![
                ("cellular.movement", "\"random-waypoint\"".into()),
                ("cellular.speed_mps", "1".into()),
                ("cellular.speed_max_mps", "1e9".into()),
            ],
            "`cellular.speed_max_mps`: random waypoint speeds must be <= 1000 m/s",
        ),
    ];
    for (kv, want) in cases {
        let kv: Vec<(&str, &str)> = kv.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let e = run(&kv, 1).expect_err("must be rejected");
        assert!(!e.contains('\n') && e.contains(want), "{kv:?}: {e}");
    }
    let e =
        run(&[("cellular.movement", "\"trace\""), ("cellular.movement_trace", &format!("{bad:?}"))], 1).unwrap_err();
    assert!(e.contains(&bad), "names the file: {e}");
}

#[test]
fn the_grid_and_random_waypoint_example_of_the_docs_runs() {
    let doc = include_str!("../../../docs/scenarios.md");
    let start = doc.find("```toml\nname = \"grid-walk\"").expect("the example in docs/scenarios.md") + 8;
    let text = &doc[start..start + doc[start..].find("```").unwrap()];
    let overrides = vec![("duration_s".to_string(), "15".to_string())];
    let opts = RunOptions { seed: Some(3), overrides, traces: false, ..Default::default() };
    let s = hosim::run(text, "docs/scenarios.md", &opts).unwrap_or_else(|e| panic!("{e}")).summary;
    let hos = s["handovers"].as_array().unwrap();
    assert!(!hos.is_empty() && hos.iter().all(|h| h["scheme"] == "daps"), "{}", hos.len());
    let cells = s["cellular"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 9);
    assert!(cells.iter().all(|c| c["capacity_mean_bps"].as_f64().is_some_and(|m| m > 20e6 && m < 50e6)));
    let delivered: u64 = s["flows"].as_array().unwrap().iter().map(|f| f["bytes_delivered"].as_u64().unwrap()).sum();
    assert!(delivered > 10_000_000, "{delivered} bytes");
}

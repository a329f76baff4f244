//! Golden summaries: every preset (and the variants its paper varies) gives a byte-identical
//! summary JSON, apart from `wall_time_s`, to the file kept under `tests/golden/`. A refactor
//! that claims "behaviour unchanged" must pass this unchanged; a deliberate behaviour change
//! regenerates the files with `HOSIM_UPDATE_GOLDEN=1 cargo test -p hosim --test golden` and
//! says why in its commit.

use std::path::PathBuf;

/// Durations are shortened where the full preset
/// would make the suite slow; the mechanisms still act in each run.
/// (golden file stem, preset, seed, `--set` overrides).
type Case = (&'static str, &'static str, u64, &'static [(&'static str, &'static str)]);

const CASES: &[Case] = &[
    ("dumbbell-s1", "dumbbell", 1, &[]),
    ("dumbbell-8flows-s1", "dumbbell", 1, &[("dumbbell.flows", "8"), ("tcp.recovery", "newreno")]),
    (
        "dumbbell-loss-s2",
        "dumbbell",
        2,
        &[("duration_s", "10"), ("dumbbell.loss", "0.01"), ("tcp.recovery", "newreno")],
    ),
    ("dumbbell-reno-s3", "dumbbell", 3, &[("duration_s", "10"), ("dumbbell.loss", "0.005"), ("tcp.recovery", "reno")]),
    ("lte-x2-standard-s1", "lte-x2", 1, &[]),
    ("lte-x2-standard-s7", "lte-x2", 7, &[]),
    ("lte-x2-fast-s1", "lte-x2", 1, &[("lte_x2.path_switch", "fast")]),
    ("lte-x2-predicted-s1", "lte-x2", 1, &[("lte_x2.path_switch", "predicted")]),
    ("lte-x2-red-ecn-s1", "lte-x2", 1, &[("lte_x2.router_queue", "red"), ("lte_x2.ecn", "true")]),
    ("fcp-forward-s1", "fcp", 1, &[]),
    (
        "fcp-1g-forward-s1",
        "fcp",
        1,
        &[
            ("duration_s", "5"),
            ("fcp.backbone_bps", "1e9"),
            ("fcp.wireless_bps", "1e8"),
            ("fcp.backbone_queue_pkts", "500"),
            ("fcp.bs_buffer_pkts", "200"),
        ],
    ),
    ("fcp-drop-s1", "fcp", 1, &[("duration_s", "15"), ("fcp.scheme", "drop")]),
    (
        "fcp-rearrange-s2",
        "fcp",
        2,
        &[("duration_s", "15"), ("fcp.scheme", "rearrange"), ("fcp.handover_distribution", "exponential")],
    ),
    ("hsdpa-square-s1", "hsdpa", 1, &[]),
    (
        "hsdpa-random-proxy-s1",
        "hsdpa",
        1,
        &[("hsdpa.bandwidth", "random"), ("hsdpa.period_s", "0.2"), ("hsdpa.proxy", "true"), ("duration_s", "60")],
    ),
    ("hsdpa-random-s2", "hsdpa", 2, &[("hsdpa.bandwidth", "random"), ("hsdpa.period_s", "0.2"), ("duration_s", "60")]),
    // One border crossed by every UE (12 s): the three schemes on the same network.
    ("cellular-daps-s1", "cellular", 1, &[("duration_s", "12")]),
    ("cellular-forward-s1", "cellular", 1, &[("duration_s", "12"), ("cellular.scheme", "forward")]),
    ("cellular-drop-s1", "cellular", 1, &[("duration_s", "12"), ("cellular.scheme", "drop")]),
    ("cellular-cho-s1", "cellular", 1, &[("duration_s", "12"), ("cellular.scheme", "cho")]),
    // The first 15 s of the highway: 13 of the 20 UEs cross their first border.
    ("highway-s1", "highway", 1, &[("duration_s", "15")]),
    ("vertical-s1", "vertical", 1, &[]),
    // Two handoffs (at 15 and 30 s) each: the summary's series grow with the duration.
    ("vertical-clah-s1", "vertical", 1, &[("duration_s", "35"), ("vertical.adaptation", "clah")]),
    (
        "vertical-hard-freeze-s2",
        "vertical",
        2,
        &[("duration_s", "35"), ("vertical.mode", "hard"), ("vertical.adaptation", "freeze")],
    ),
    ("inter-rat-forwarding-s1", "inter-rat", 1, &[]),
    ("inter-rat-bicasting-s1", "inter-rat", 1, &[("inter_rat.scheme", "bicasting")]),
    (
        "inter-rat-none-umts-lte-s1",
        "inter-rat",
        1,
        &[("inter_rat.scheme", "none"), ("inter_rat.direction", "umts-lte")],
    ),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn summary_text(preset: &str, seed: u64, overrides: &[(&str, &str)]) -> String {
    let text = hosim::scenario::presets::find(preset).expect("preset exists");
    let opts = hosim::RunOptions {
        seed: Some(seed),
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        traces: false,
        ..Default::default()
    };
    let mut out = hosim::run(text, preset, &opts).expect("preset runs");
    out.summary.as_object_mut().expect("summary is an object").remove("wall_time_s");
    serde_json::to_string_pretty(&out.summary).expect("summary serializes") + "\n"
}

#[test]
fn every_preset_summary_matches_its_golden_file() {
    let update = std::env::var_os("HOSIM_UPDATE_GOLDEN").is_some();
    let mut mismatched = Vec::new();
    for (stem, preset, seed, overrides) in CASES {
        let got = summary_text(preset, *seed, overrides);
        let path = golden_dir().join(format!("{stem}.json"));
        if update {
            std::fs::create_dir_all(golden_dir()).expect("golden dir");
            std::fs::write(&path, &got).expect("write golden");
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if got != want {
            let line = got.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
            mismatched.push(format!("{stem} (first difference at line {})", line + 1));
        }
    }
    assert!(mismatched.is_empty(), "summaries differ from tests/golden: {mismatched:?}");
}

#[test]
fn every_preset_has_a_golden_case() {
    let covered: Vec<&str> = CASES.iter().map(|c| c.1).collect();
    let missing: Vec<&str> =
        hosim::scenario::presets::PRESETS.iter().map(|p| p.0).filter(|name| !covered.contains(name)).collect();
    assert!(missing.is_empty(), "presets without a golden case in tests/golden.rs: {missing:?}");
}

#[test]
fn every_golden_file_belongs_to_a_case() {
    let stems: Vec<&str> = CASES.iter().map(|c| c.0).collect();
    let mut orphans = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).expect("golden dir") {
        let name = entry.expect("dir entry").file_name().to_string_lossy().into_owned();
        if !name.strip_suffix(".json").is_some_and(|stem| stems.contains(&stem)) {
            orphans.push(name);
        }
    }
    assert!(orphans.is_empty(), "files in tests/golden without a case: {orphans:?}");
}

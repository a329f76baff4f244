//! Scenarios on an 802.11 medium (`[[media]]`): TCP over the DCF, its determinism and the
//! rejection of bad values.

mod common;

use serde_json::Value;

/// A server behind a 100 Mb/s wire to an AP, and `stations` mobiles on the AP's medium, each
/// receiving one bulk TCP flow from the server.
fn bss(standard: &str, rate_bps: f64, stations: usize, extra: &str) -> String {
    let mut t = format!(
        r#"
duration_s = 4.0
[tcp]
profile = "ns3"
mss_bytes = 1448
[[nodes]]
name = "srv"
kind = "host"
[[nodes]]
name = "ap"
kind = "router"
[[links]]
from = "srv"
to = "ap"
rate_bps = 100e6
delay_s = 0.001
queue_packets = 1000
[[media]]
standard = "{standard}"
rate_bps = {rate_bps}
ap = "ap"
stations = [{}]
{extra}
"#,
        (0..stations).map(|i| format!("\"sta{i}\"")).collect::<Vec<_>>().join(", ")
    );
    for i in 0..stations {
        t += &format!("[[nodes]]\nname = \"sta{i}\"\nkind = \"host\"\n[[flows]]\nsrc = \"srv\"\ndst = \"sta{i}\"\n");
    }
    t
}

fn run(text: &str, seed: u64) -> Result<Value, String> {
    hosim::run(text, "wifi", &hosim::RunOptions { seed: Some(seed), ..Default::default() })
        .map(|o| o.summary)
        .map_err(|e| e.to_string())
}

#[test]
fn tcp_over_54_mbps_gets_the_dcf_s_share_not_the_nominal_rate() {
    let s = run(&bss("802.11g", 54e6, 1, ""), 1).expect("run");
    let g = s["flows"][0]["goodput_bps"].as_f64().unwrap();
    let m = &s["media"][0];
    assert_eq!(m["name"], "wlan0");
    assert!(m["successes"].as_u64().unwrap() > 1000 && m["busy_s"].as_f64().unwrap() > 2.0, "{m}");
    // 1448-byte segments and their ACKs contend for one medium: well under 54 Mb/s, near
    // the ~25 Mb/s that 802.11g carries for TCP.
    assert!((20e6..30e6).contains(&g), "goodput {g}");
}

#[test]
fn data_and_acks_contend_so_they_collide() {
    let w = common::run_world(&bss("802.11g", 54e6, 1, ""), 1, false);
    let st = &w.media[0].medium.stats;
    assert!(st.successes > 1000, "{st:?}");
    assert!(st.collisions > 0, "the AP's data and the station's ACKs collide sometimes: {st:?}");
    assert_eq!(st.retries, 2 * st.collisions, "a collision of two is a retry for both");
}

#[test]
fn four_stations_share_the_medium_fairly() {
    let s = run(&bss("802.11b", 11e6, 4, ""), 3).expect("run");
    let g: Vec<f64> = (0..4).map(|i| s["flows"][i]["goodput_bps"].as_f64().unwrap()).collect();
    let total: f64 = g.iter().sum();
    assert!((3e6..6.5e6).contains(&total), "total {total}");
    for x in &g {
        assert!(*x > total / 4.0 * 0.5, "every station gets a share: {g:?}");
    }
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_another() {
    let text = bss("802.11g", 24e6, 2, "frame_error_rate = 0.05");
    let a = run(&text, 5).unwrap();
    let b = run(&text, 5).unwrap();
    let c = run(&text, 6).unwrap();
    assert_eq!(a["flows"], b["flows"]);
    assert_ne!(a["flows"], c["flows"]);
}

#[test]
fn bad_media_values_are_one_line_naming_the_key() {
    for (extra_or_rate, key) in [
        ((54e6, "slot = \"long\"\npreamble = \"short\""), "media[0].preamble"),
        ((53e6, ""), "media[0].rate_bps"),
        ((54e6, "frame_error_rate = 1.5"), "media[0].frame_error_rate"),
        ((54e6, "retry_limit = 0"), "media[0].retry_limit"),
        ((54e6, "basic_rates_bps = [1e6]"), "media[0].basic_rates_bps"),
        ((54e6, "queue_packets = 0"), "media[0].queue_packets"),
    ] {
        let (rate, extra) = extra_or_rate;
        let e = run(&bss("802.11g", rate, 1, extra), 1).expect_err("bad value");
        assert!(e.contains(key) && !e.contains('\n'), "{key}: {e}");
    }
    let e = run(&bss("802.11b", 11e6, 1, "slot = \"short\""), 1).expect_err("bad value");
    assert!(e.contains("media[0].slot"), "{e}");
}

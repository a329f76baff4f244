//! The RTT of a low-rate probe beside a saturating TCP flow on an 802.11 medium: the AP sends
//! a bulk flow to one station and, from 1 s on, an 84-byte probe segment every 100 ms (56
//! bytes of data, 28 of headers: the size of a ping), acknowledged at once. The hosim side of
//! bench/ns3/wifi/ns3_rtt.py; prints the median and p90 of the probe's RTT samples.
//!
//! cargo run -p hosim --example wifi_rtt -- [seconds]

use hosim::observe::TraceKind;

fn main() {
    let secs: f64 = std::env::args().nth(1).map_or(10.0, |s| s.parse().expect("seconds"));
    let cases = [
        ("802.11g", 6e6),
        ("802.11g", 24e6),
        ("802.11g", 54e6),
        ("802.11b", 1e6),
        ("802.11b", 5.5e6),
        ("802.11b", 11e6),
    ];
    for (std, rate) in cases {
        let text = format!(
            "duration_s = {}\n[tcp]\nprofile = \"ns3\"\nrecovery = \"sack\"\nmss_bytes = 1448\nheader_bytes = 40\n\
             [[nodes]]\nname = \"ap\"\nkind = \"host\"\n[[nodes]]\nname = \"sta\"\nkind = \"host\"\n\
             [[media]]\nstandard = \"{std}\"\nrate_bps = {rate}\nap = \"ap\"\nstations = [\"sta\"]\nqueue_packets = 1000\n\
             [[flows]]\nname = \"bulk\"\nsrc = \"ap\"\ndst = \"sta\"\n\
             [[flows]]\nname = \"probe\"\nsrc = \"ap\"\ndst = \"sta\"\napp = \"rate\"\nrate_bps = 4480\nstart_s = 1.0\n\
             [flows.tcp]\nmss_bytes = 56\nheader_bytes = 28\ndelayed_ack = false\n",
            1.0 + secs
        );
        let opts = hosim::RunOptions { seed: Some(1), traces: true, ..Default::default() };
        let out = hosim::run(&text, "wifi_rtt", &opts).expect("run");
        let t = out.traces.table(TraceKind::Rtt);
        let mut rtts: Vec<f64> = (0..t.len()).filter(|&i| t.id[i] == 1).map(|i| t.value[i]).collect();
        rtts.sort_by(f64::total_cmp);
        let n = rtts.len();
        let median = if n % 2 == 1 { rtts[n / 2] } else { (rtts[n / 2 - 1] + rtts[n / 2]) / 2.0 };
        let p90 = rtts[(0.9 * (n - 1) as f64) as usize];
        println!(
            "{{\"standard\": \"{std}\", \"rate_bps\": {rate}, \"samples\": {n}, \"rtt_median_s\": {median}, \"rtt_p90_s\": {p90}}}"
        );
    }
}

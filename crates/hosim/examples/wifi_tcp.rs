//! TCP bulk goodput over an 802.11 medium (`[[media]]`): the AP sends one bulk flow to each
//! of `n` stations, whose ACKs contend with the AP's data. The hosim side of
//! bench/ns3/wifi/ns3_tcp.py, with the same TCP (the ns3 profile, MSS 1448, no timestamps:
//! 40 header bytes, SACK, delayed ACK every 2nd segment, 128 KiB receive window) and queues
//! that never drop (1000 packets). Prints one JSON line per case.
//!
//! cargo run -p hosim --example wifi_tcp -- [seconds]

fn scenario(standard: &str, rate_bps: f64, n: usize, secs: f64) -> String {
    let stations: Vec<String> = (0..n).map(|i| format!("\"sta{i}\"")).collect();
    let mut t = format!(
        "duration_s = {secs}\n[tcp]\nprofile = \"ns3\"\nrecovery = \"sack\"\nmss_bytes = 1448\nheader_bytes = 40\n\
         [[nodes]]\nname = \"ap\"\nkind = \"host\"\n\
         [[media]]\nstandard = \"{standard}\"\nrate_bps = {rate_bps}\nap = \"ap\"\nstations = [{}]\nqueue_packets = 1000\n",
        stations.join(", ")
    );
    for i in 0..n {
        t += &format!("[[nodes]]\nname = \"sta{i}\"\nkind = \"host\"\n[[flows]]\nsrc = \"ap\"\ndst = \"sta{i}\"\n");
    }
    t
}

fn main() {
    let secs: f64 = std::env::args().nth(1).map_or(5.0, |s| s.parse().expect("seconds"));
    let cases = [
        ("802.11g", 6e6),
        ("802.11g", 24e6),
        ("802.11g", 54e6),
        ("802.11b", 1e6),
        ("802.11b", 5.5e6),
        ("802.11b", 11e6),
    ];
    for n in [1usize, 4] {
        for (std, rate) in cases {
            let opts = hosim::RunOptions { seed: Some(1), ..Default::default() };
            let out = hosim::run(&scenario(std, rate, n, secs), "wifi_tcp", &opts).expect("run");
            let g: Vec<f64> =
                (0..n).map(|i| out.summary["flows"][i]["goodput_bps"].as_f64().expect("goodput")).collect();
            let total: f64 = g.iter().sum();
            println!(
                "{{\"standard\": \"{std}\", \"rate_bps\": {rate}, \"stations\": {n}, \"goodput_bps\": {g:?}, \"total_goodput_bps\": {total}}}"
            );
        }
    }
}

//! Linux TCP Small Queues (`tcp.small_queues`, on in the `linux` profile): a sender holds back
//! while its packets fill its own host's outgoing link, instead of that link's queue dropping
//! them (net/ipv4/tcp_output.c `tcp_small_queue_check`, `tcp_tsq_handler`). ns-2 and ns-3 hand
//! every segment to the host's queue, which drops when full: their profiles keep that.

/// A server with `flows` bulk flows on its own 1 Gb/s access link (a 100-packet queue) to a
/// router, then 100 Mb/s, 20 ms with a 1000-packet queue to the client; every flow starts at 0.
fn server(profile: &str, extra: &str, flows: usize) -> serde_json::Value {
    let mut text = format!(
        r#"
duration_s = 3
[tcp]
profile = "{profile}"
{extra}
[[nodes]]
name = "server"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "client"
kind = "host"
[[links]]
from = "server"
to = "r"
name = "server-nic"
rate_bps = 1e9
delay_s = 0.0005
queue_packets = 100
bidirectional = true
[[links]]
from = "r"
to = "client"
name = "path"
rate_bps = 100e6
delay_s = 0.02
queue_packets = 1000
bidirectional = true
"#
    );
    for i in 0..flows {
        text.push_str(&format!("[[flows]]\nname = \"f{i}\"\nsrc = \"server\"\ndst = \"client\"\n"));
    }
    let opts = hosim::RunOptions { seed: Some(1), ..Default::default() };
    hosim::run(&text, "test", &opts).expect("run").summary
}

fn queue<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["queues"].as_array().unwrap().iter().find(|q| q["name"] == name).expect("queue")
}

fn goodput(s: &serde_json::Value) -> f64 {
    s["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap()).sum()
}

/// The initial windows of 20 flows that start together (10 segments each: the key is set
/// for every profile) reach the server's 100-packet queue at once.
const FLOWS: usize = 20;
const IW10: &str = "initial_window_segments = 10";

#[test]
fn under_linux_the_servers_own_link_backpressures_its_flows_instead_of_dropping() {
    let linux = server("linux", IW10, FLOWS);
    let nic = queue(&linux, "server-nic");
    assert_eq!(nic["dropped"], 0, "{nic}");
    assert!(nic["max_len_pkts"].as_u64().unwrap() <= 3 * FLOWS as u64, "at most 3 packets of each flow: {nic}");
    let held: u64 =
        linux["flows"].as_array().unwrap().iter().map(|f| f["small_queue_throttles"].as_u64().unwrap()).sum();
    assert!(held > 0, "the limit held senders back");
    // The same run with the Linux dialect key off drops there, and delivers no more.
    let dropping = server("linux", &format!("{IW10}\nsmall_queues = false"), FLOWS);
    assert!(queue(&dropping, "server-nic")["dropped"].as_u64().unwrap() > 0);
    assert!(dropping["flows"][0].get("small_queue_throttles").is_none());
    assert!(goodput(&linux) >= goodput(&dropping), "{} < {}", goodput(&linux), goodput(&dropping));
}

#[test]
fn under_ns2_and_ns3_the_servers_own_link_drops_as_in_those_simulators() {
    for profile in ["ns2", "ns3"] {
        let s = server(profile, IW10, FLOWS);
        let nic = queue(&s, "server-nic");
        assert!(nic["dropped"].as_u64().unwrap() > 50, "{profile}: {nic}");
        assert!(s["flows"][0].get("small_queue_throttles").is_none(), "{profile}");
    }
}

#[test]
fn a_linux_scenario_key_turns_small_queues_on_for_another_profile() {
    let s = server("ns3", &format!("{IW10}\nsmall_queues = true"), FLOWS);
    assert_eq!(queue(&s, "server-nic")["dropped"], 0);
}

//! Property test: whatever the loss (up to 10%), reordering and duplication, every recovery
//! variant completes a file transfer, delivers exactly the file's bytes in order, and never
//! panics. The run's own invariant checks (conservation, reassembly, payload tags) must hold.

mod common;

use proptest::prelude::*;

fn scenario(recovery: &str, loss: f64, dup: f64, reorder: f64, bytes: u64, delayed_ack: bool) -> String {
    format!(
        r#"
duration_s = 2000.0
[tcp]
recovery = "{recovery}"
delayed_ack = {delayed_ack}
[[nodes]]
name = "a"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
kind = "host"
[[links]]
from = "a"
to = "r"
rate_bps = 10e6
delay_s = 0.005
queue_packets = 50
loss = {loss}
duplicate = {dup}
reorder = {reorder}
reorder_delay_s = 0.004
[[links]]
from = "r"
to = "b"
rate_bps = 5e6
delay_s = 0.01
queue_packets = 20
[[flows]]
src = "a"
dst = "b"
app = "file"
bytes = {bytes}
"#
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn file_transfer_completes_exactly_under_impairments(
        recovery in prop::sample::select(vec!["reno", "newreno", "sack"]),
        loss in 0.0f64..0.10,
        dup in 0.0f64..0.05,
        reorder in 0.0f64..0.10,
        bytes in 1u64..300_000,
        delayed_ack in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let w = common::run_world(&scenario(recovery, loss, dup, reorder, bytes, delayed_ack), seed, false);
        let f = &w.flows[0];
        prop_assert!(f.completion_ns.is_some(), "transfer did not complete: {} of {} bytes", f.delivered_bytes, bytes);
        prop_assert_eq!(f.delivered_bytes, bytes);
        prop_assert_eq!(f.receiver.rcv_nxt(), bytes);
        prop_assert_eq!(f.tag_errors, 0);
    }
}

"""The networks of `hosim reproduce todays-handovers` that are not presets: the papers' own
experiments written as `cellular` scenarios (issue 37, sections 3 and 5). Each is TOML text;
the study sets `cellular.scheme` and the TCP (`tcp.profile`, `tcp.recovery`) per run.

- `pacifico-x2`: the `lte-x2` preset's network (Pacifico et al.), as
  crates/hosim/tests/cellular_equivalence.rs writes it: two cells, six UEs (the reference UE 0
  and five in the target cell), 50 Mb/s cells, the router's 12 Mb/s 90-packet S1 queues, a
  10 ms X2, one handover of UE 0 at 2.3 s, 5 s; flows start within the first second.
- `cohen-levin` and `cohen-levin-fast`: the `fcp` preset's network (Cohen & Levin, Fig. 1),
  as the same test writes it: one sender at 100 Mb/s, two base stations 25 ms below the FCP,
  a 50 ms forwarding path, ten mobiles with private 10 Mb/s radios and 20-packet buffers;
  every mobile hands over every Δ = 50 propagation RTTs (4 s) or 5 RTTs (0.4 s), the mobiles'
  phases spread evenly over Δ from 2 s; handovers complete at their decision; 30 s. Flows start
  within the first 0.1 s (the seed's only randomness).
- `inter-rat`: the `inter-rat` preset's network (the 3GPP contribution, Appendix A) written as
  crates/hosim/tests/cellular_equivalence.rs writes it (docs/scenarios.md): both RATs at
  1 Mb/s as in the preset, the Internet link at 155 Mb/s, S1 at the radio rate towards the
  eNodeB and 155 Mb/s towards the 2G/3G node, the anchor's buffer above its path switch, the
  target's priority for forwarded data, the UE's uplink through the source until the switch,
  10 ms Internet RTT, 2 ms radio and forwarding delays, a 100 ms interruption, a bicast lead of
  10 ms; one UE, which leaves the source at 30 s of a 40 s bulk download (the preset: a 20 MB
  file). Unlike the preset's UE, this one keeps a PDCP (reordering, duplicate discard: DAPS
  and CHO need it), and its flow starts within the first second.
"""
from __future__ import annotations

PACIFICO_X2 = """name = "pacifico-x2"
topology = "cellular"
duration_s = 5.0

[cellular]
cells = 2
ues = 6
ue_cells = [0, 1, 1, 1, 1, 1]
handovers = [{ at_s = 2.3, ue = 0, target = 1 }]
x2_delay_s = 0.01
path_switch_delay_s = 0.02
interruption_s = 0.03
prediction_lead_s = 0.13
reorder_timeout_s = 0.1
scheduler = "wfq"
buffer = "per-ue"
cell_bps = 50e6
radio_delay_s = 0.005
uplink_bps = 10e6
s1_bps = 12e6
s1_delay_s = 0.002
s1_queue_packets = 90
s1_uplink_queue_packets = 1000
core_bps = 10e9
core_delay_s = 0.0
core_queue_packets = 1000
server_bps = 100e6
server_rtt_s = 0.004
server_queue_packets = 1000
pdcp_out_of_order_delivery = true
start_window_s = 1.0

[tcp]
mss_bytes = 1460              # Table I: 1500-byte IP packets
header_bytes = 40
rwnd_bytes = 65535            # Table II: cwnd_MAX = 44 segments
"""


def _cohen_levin(name: str, every_s: float) -> str:
    handovers = ", ".join(f"{{ at_s = {2.0 + u * every_s / 10:.4f}, ue = {u}, target = 1, every_s = {every_s} }}"
                          for u in range(10))
    return f"""name = "{name}"
topology = "cellular"
duration_s = 30.0

[cellular]
cells = 2
ues = 10
ue_cells = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
handovers = [{handovers}]
radios = "private"
cell_bps = 10e6
buffer = "per-ue"
buffer_packets = 20
radio_delay_s = 0.005
uplink_bps = 10e6
s1_bps = 100e6
s1_delay_s = 0.025
s1_queue_packets = 50
x2_bps = 100e6
x2_delay_s = 0.05
x2_queue_packets = 50
x2_control_delay_s = 0.0
core_bps = 1e12
core_delay_s = 0.0
one_server = true
server_rtt_s = 0.020
server_bps = 100e6
server_queue_packets = 50
gtp_header = false
interruption_s = 0.0
path_switch_delay_s = 0.0
pdcp_out_of_order_delivery = true
t_reordering_s = 1000.0
start_window_s = 0.1

[tcp]
mss_bytes = 1000
header_bytes = 40
rwnd_bytes = 16777216         # as the fcp preset: a window of a bandwidth-delay product
"""


INTER_RAT = """name = "inter-rat"
topology = "cellular"
duration_s = 40.0

[cellular]
cells = 2
ues = 1
ue_cells = [0]
handovers = [{ at_s = 29.98, ue = 0, target = 1 }]
x2_control_delay_s = 0.01     # the target admits the UE, and bicasting starts, 10 ms before the move
cell_bps = 1e6
uplink_bps = 1e6
s1_bps = [1e6, 155e6]         # S1 "same as RF" to the eNodeB, 155 Mb/s to the 2G/3G node
gateway_buffer = "per-ue"     # the anchor's buffer, above its path switch and bicasting point
forwarded_first = true        # the 2G/3G node's partial reordering
uplink_switch = "attach"      # the UE's ACKs go through the source until the path switch
buffer = "per-ue"
buffer_packets = 100000
radio_delay_s = 0.002
s1_delay_s = 0.001
s1_queue_packets = 10000
s1_uplink_queue_packets = 10000
x2_bps = 155e6
x2_delay_s = 0.002
x2_queue_packets = 10000
core_bps = 1e12
core_delay_s = 0.0
core_queue_packets = 10000
server_bps = 155e6
server_rtt_s = 0.010
server_queue_packets = 10000
gtp_header = false
interruption_s = 0.1
path_switch_delay_s = 0.0
bicast_lead_s = 0.01
start_window_s = 1.0

[tcp]
rwnd_bytes = 65536            # Appendix A: 65,536-byte receiver buffer
"""

#: network name -> TOML text.
NETWORK_TEXTS: dict[str, str] = {
    "pacifico-x2": PACIFICO_X2,
    "cohen-levin": _cohen_levin("cohen-levin", 4.0),
    "cohen-levin-fast": _cohen_levin("cohen-levin-fast", 0.4),
    "inter-rat": INTER_RAT,
}

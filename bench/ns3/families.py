"""Scenario families run by both hosim (run_hosim.py) and ns-3 3.44 (run_ns3.py).

Benchmark only: never imported by hosim, its tests or CI.

Every case is one fully specified workload on the same topology shape, a dumbbell with one
sender/receiver pair per flow:

    s_i --access_i--> left ==bottleneck==> right --access_i--> d_i

* access links: ``access_bps``, one-way delay ``access_delays_s[i]`` on *both* sides of the
  bottleneck (sender side and receiver side), DropTail ``access_queue`` packets;
* bottleneck: ``bottleneck_bps``, ``bottleneck_delay_s``, DropTail ``queue`` packets in each
  direction; Bernoulli loss ``loss`` on the data direction (left -> right) only, applied to
  every packet crossing it (SYN included, ACKs never);
* base RTT of flow i = 2 * (2 * access_delays_s[i] + bottleneck_delay_s) (no serialisation);
* flows start at t = 0 (``stagger_s`` apart if set); bulk flows run for ``duration_s``; file
  flows send ``file_bytes`` and the run stops at ``duration_s`` at the latest;
* drops: ``drop_segments`` (first transmission) and ``drop_retransmissions`` (first
  retransmission) of segment index k = byte offset / MSS, on flow 0, on the bottleneck.

TCP in both (see TCP_COMMON and the comments in run_ns3.py / run_hosim.py): NewReno
congestion control, MSS 1448 payload bytes, no timestamps (40 B TCP/IP headers + 2 B PPP =
1490 B data packets on the wire in both), initial window 10, delayed ACK every 2 segments or
200 ms, minimum RTO 1 s (initial RTO 1 s, max 60 s), 1 ms clock granularity, Limited Transmit,
4 MiB buffers / receive window, DropTail only, classic (RFC 6582/6675) recovery, not PRR.
``sack`` and ``delayed_ack`` vary per case.
"""

from __future__ import annotations

import copy

MSS = 1448
# bytes on the wire of a data packet (both simulators): 1448 + 20 IP + 20 TCP + 2 PPP
DATA_PACKET_BYTES = 1490

TCP_COMMON = {
    "mss_bytes": MSS,
    "initial_window_segments": 10,
    "delayed_ack_segments": 2,
    "delayed_ack_timeout_s": 0.2,
    "min_rto_s": 1.0,
    "initial_rto_s": 1.0,
    "max_rto_s": 60.0,
    "clock_granularity_s": 0.001,
    "dupack_threshold": 3,
    "limited_transmit": True,
    "buffer_bytes": 4 * 1024 * 1024,
}

# TCP stacks compared (``--stack`` of run_ns3.py, run_hosim.py, compare.py). "newreno" is the
# original comparison (NewReno, classic RFC 6675 recovery); "cubic-prr" is ns-3's TcpCubic with
# TcpPrrRecovery against hosim's `tcp.cc = "cubic"` with PRR (RFC 9438, RFC 6937), everything
# else as in "newreno". Result files: bench/results/ns3/{ns3,hosim}<suffix>.json,
# compare<suffix>.md; tolerances: a case misses when goodput or FR + TO are further apart.
STACKS: dict[str, dict] = {
    "newreno": {"suffix": "", "goodput_tol": 0.03, "loss_tol": 0.15},
    "cubic-prr": {"suffix": "-cubic-prr", "goodput_tol": 0.05, "loss_tol": 0.20},
}

DEFAULTS = {
    "flows": 1,
    "access_bps": 100e6,
    "access_delays_s": None,  # None: every flow 0.002
    "access_queue": 1000,
    "bottleneck_bps": 12e6,
    "bottleneck_delay_s": 0.020,
    "queue": 90,
    "loss": 0.0,
    "duration_s": 60.0,
    "stagger_s": 0.0,
    "app": "bulk",  # or "file" with file_bytes
    "file_bytes": None,
    "sack": True,
    "delayed_ack": True,
    "drop_segments": [],
    "drop_retransmissions": [],
    "seed": 1,
    "diagnostic": False,  # True: an extra variant that isolates a known difference
}


def _case(name: str, **kw) -> dict:
    c = copy.deepcopy(DEFAULTS)
    for k in kw:
        if k not in c:
            raise KeyError(k)
    c.update(kw)
    c["name"] = name
    if c["access_delays_s"] is None:
        c["access_delays_s"] = [0.002] * c["flows"]
    assert len(c["access_delays_s"]) == c["flows"]
    return c


# (3) RTT unfairness: base RTTs 20/40/80/160 ms over a 5 ms bottleneck:
# RTT = 2 * (2 d + 5 ms)  =>  d = (RTT / 2 - 5 ms) / 2.
_RTTS = [0.020, 0.040, 0.080, 0.160]
_UNFAIR_DELAYS = [(r / 2 - 0.005) / 2 for r in _RTTS]

# (5) slow-start overshoot: 100 Mb/s, 100 ms base RTT (2 * (2 + 46 + 2) ms), buffer BDP / 4.
_BDP_PKTS = int(100e6 * 0.100 / 8 / DATA_PACKET_BYTES)  # 838

# (7) deterministic drop probes: one 2,172,000-byte file (1500 segments) over an otherwise
# loss-free path (12 Mb/s, 48 ms base RTT, 1000-packet buffer: no congestion loss).
# Slow start with IW 10 and delayed ACKs sends segments ~47..79 in the 4th round trip, so
# 60, 65, 70 are three losses in one window.
_PROBE = dict(flows=1, queue=1000, app="file", file_bytes=1500 * MSS, duration_s=20.0)

FAMILIES: list[dict] = [
    {
        "id": "1-loss-sack",
        "title": "1 % random loss on the bottleneck, SACK",
        "what": "8 bulk flows, 100 Mb/s 20 ms bottleneck (250 pkts, never full), 1 % loss on "
        "data packets, 60 s: loss-limited throughput (Mathis regime)",
        "cases": [
            _case("loss1-sack", flows=8, bottleneck_bps=100e6, queue=250, loss=0.01),
            # diagnostic: without delayed ACKs ns-3's per-ACK increase (SMSS^2/cwnd) also gives
            # +1 SMSS per RTT, like hosim's byte counting (see bench/README.md)
            _case(
                "loss1-sack-ackevery",
                flows=8,
                bottleneck_bps=100e6,
                queue=250,
                loss=0.01,
                delayed_ack=False,
                diagnostic=True,
            ),
        ],
    },
    {
        "id": "2-loss-newreno",
        "title": "1 % random loss on the bottleneck, no SACK (NewReno)",
        "what": "as family 1 without SACK",
        "cases": [_case("loss1-newreno", flows=8, bottleneck_bps=100e6, queue=250, loss=0.01, sack=False)],
    },
    {
        "id": "3-rtt-unfair",
        "title": "RTT unfairness, 4 flows, base RTT 20/40/80/160 ms",
        "what": "4 bulk flows, access delays 2.5/7.5/17.5/37.5 ms each side, 20 Mb/s 5 ms "
        "bottleneck, 100-packet buffer, SACK, 60 s",
        "cases": [
            _case(
                "rtt-unfair",
                flows=4,
                access_delays_s=_UNFAIR_DELAYS,
                bottleneck_bps=20e6,
                bottleneck_delay_s=0.005,
                queue=100,
            ),
            _case(
                "rtt-unfair-ackevery",
                flows=4,
                access_delays_s=_UNFAIR_DELAYS,
                bottleneck_bps=20e6,
                bottleneck_delay_s=0.005,
                queue=100,
                delayed_ack=False,
                diagnostic=True,
            ),
        ],
    },
    {
        "id": "4-many-flows",
        "title": "32 flows on a 10-packet buffer",
        "what": "32 bulk flows, 12 Mb/s 20 ms bottleneck, 10-packet buffer (BDP 48 pkts), SACK, 60 s",
        "cases": [_case("many-flows", flows=32, queue=10)],
    },
    {
        "id": "5-ss-overshoot",
        "title": "slow-start overshoot on a large BDP",
        "what": f"1 bulk flow, 1 Gb/s access, 100 Mb/s 46 ms bottleneck (base RTT 100 ms, "
        f"BDP {_BDP_PKTS} pkts), buffer BDP/4 = {_BDP_PKTS // 4} pkts, SACK, 20 s",
        "cases": [
            _case(
                "ss-overshoot",
                flows=1,
                access_bps=1e9,
                bottleneck_bps=100e6,
                bottleneck_delay_s=0.046,
                queue=_BDP_PKTS // 4,
                duration_s=20.0,
            ),
            _case(
                "ss-overshoot-ackevery",
                flows=1,
                access_bps=1e9,
                bottleneck_bps=100e6,
                bottleneck_delay_s=0.046,
                queue=_BDP_PKTS // 4,
                duration_s=20.0,
                delayed_ack=False,
                diagnostic=True,
            ),
        ],
    },
    {
        "id": "6-delack",
        "title": "delayed ACK on vs off, congested dumbbell",
        "what": "4 bulk flows, 12 Mb/s 20 ms bottleneck, 30-packet buffer, SACK, 60 s; "
        "receivers ACK every 2nd segment (200 ms timer) or every segment",
        "cases": [
            _case("delack-on", flows=4, queue=30, delayed_ack=True),
            _case("delack-off", flows=4, queue=30, delayed_ack=False),
        ],
    },
    {
        "id": "7-probes",
        "title": "deterministic drop probes (1 flow, 1500-segment file, no other loss)",
        "what": "12 Mb/s 20 ms bottleneck, 1000-packet buffer; drops of segment indices "
        "(offset / 1448) on the bottleneck; goodput = file bytes / completion time",
        "cases": [
            _case(f"{probe}-{'sack' if sack else 'newreno'}", sack=sack, **_PROBE, **drops)
            for probe, drops in [
                ("one-loss", {"drop_segments": [60]}),
                ("three-losses", {"drop_segments": [60, 65, 70]}),
                ("lost-retx", {"drop_segments": [60], "drop_retransmissions": [60]}),
            ]
            for sack in (True, False)
        ]
        + [
            # diagnostic: the one-loss probe without delayed ACKs
            _case(
                "one-loss-sack-ackevery", sack=True, delayed_ack=False, diagnostic=True, **_PROBE, drop_segments=[60]
            ),
        ],
    },
]


def all_cases() -> list[dict]:
    out = []
    for fam in FAMILIES:
        for c in fam["cases"]:
            c = dict(c)
            c["family"] = fam["id"]
            out.append(c)
    return out


def select(names: list[str] | None) -> list[dict]:
    """Cases whose name or family id contains any of ``names`` (all when empty)."""
    cases = all_cases()
    if not names:
        return cases
    return [c for c in cases if any(n in c["name"] or n in c["family"] for n in names)]

"""Cases of the Linux referee: the families of bench/ns3/families.py at 10-12 Mb/s.

Benchmark only. Every case is a bench/ns3 case dict (same keys, same dumbbell, built with
its ``_case``), so bench/ns3/run_hosim.py's ``case_toml`` gives hosim's side of it. Rates are
modest because the bottleneck is a user-space forwarder on a shared 2-core machine
(README.md); durations are 30 s (20 s for slow start).
"""

from __future__ import annotations

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "ns3_families", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ns3", "families.py")
)
assert _spec is not None and _spec.loader is not None
ns3_families = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ns3_families)
_RTTS, MSS, _ns3_case = ns3_families._RTTS, ns3_families.MSS, ns3_families._case

# The kernel's side opens its connections one after another (endpoint.py tx, one connect()
# per flow in a loop): the forwarder read many-flows' 32 SYNs 35-45 us apart (2026-11-27,
# `first_packet_us` of run_kernel.py's output). hosim's flows start that far apart too
# (``stagger_s``). Started at the same instant, hosim's 32 SYNs met a 10-packet queue
# together and the same 21 were dropped, again at every synchronized SYN retry: 11 flows
# never connected (README.md, "many-flows: the start"). Any spacing from 20 us to 1 ms gives
# the same regime; the 4-flow cases do not depend on it.
SYN_SPACING_S = 40e-6


def _case(name: str, **kw) -> dict:
    return _ns3_case(name, stagger_s=SYN_SPACING_S, **kw)


_UNFAIR_DELAYS = [(r / 2 - 0.005) / 2 for r in _RTTS]
# 10 Mb/s, 100 ms base RTT: BDP = 10e6 * 0.1 / 8 / 1500 = 83 packets
_BDP_PKTS = int(10e6 * 0.100 / 8 / 1500)
_PROBE = dict(flows=1, queue=1000, app="file", file_bytes=1500 * MSS, duration_s=20.0)

FAMILIES: list[dict] = [
    {
        "id": "1-loss",
        "title": "1 % random loss, 4 flows, 10 Mb/s 20 ms, 100-packet queue, 30 s",
        "cases": [_case("loss1", flows=4, bottleneck_bps=10e6, queue=100, loss=0.01, duration_s=30.0)],
    },
    {
        "id": "3-rtt-unfair",
        "title": "RTT unfairness, 4 flows, base RTT 20/40/80/160 ms, 10 Mb/s 5 ms, 100-packet queue, 30 s",
        "cases": [
            _case(
                "rtt-unfair",
                flows=4,
                access_delays_s=_UNFAIR_DELAYS,
                bottleneck_bps=10e6,
                bottleneck_delay_s=0.005,
                queue=100,
                duration_s=30.0,
            )
        ],
    },
    {
        "id": "4-many-flows",
        "title": "many flows on a small queue: 32 flows / 10 packets at 12 Mb/s, and 4 flows / 50 packets "
        "at 10 Mb/s (the issue's item 5)",
        "cases": [
            _case("many-flows", flows=32, queue=10, duration_s=30.0),
            _case(
                "four-flows-q50",
                flows=4,
                bottleneck_bps=10e6,
                bottleneck_delay_s=0.016,
                access_delays_s=[0.001] * 4,
                queue=50,
                duration_s=30.0,
            ),
        ],
    },
    {
        "id": "5-ss-overshoot",
        "title": f"slow-start overshoot: 1 flow, 10 Mb/s, base RTT 100 ms, queue BDP/4 = {_BDP_PKTS // 4}, "
        "and base RTT 40 ms with a 100-packet queue, 20 s",
        "cases": [
            _case(
                "ss-overshoot",
                flows=1,
                bottleneck_bps=10e6,
                bottleneck_delay_s=0.046,
                queue=_BDP_PKTS // 4,
                duration_s=20.0,
            ),
            _case("ss-q100", flows=1, bottleneck_bps=10e6, bottleneck_delay_s=0.012, queue=100, duration_s=20.0),
        ],
    },
    {
        "id": "7-probes",
        "title": "scripted drops on a 1500-segment file, 12 Mb/s 20 ms, 1000-packet queue",
        "cases": [
            _case(f"{probe}-sack", **_PROBE, **drops)
            for probe, drops in [
                ("one-loss", {"drop_segments": [60]}),
                ("three-losses", {"drop_segments": [60, 65, 70]}),
                ("lost-retx", {"drop_segments": [60], "drop_retransmissions": [60]}),
                ("tail-loss", {"drop_segments": [1499]}),
            ]
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

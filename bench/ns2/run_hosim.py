#!/usr/bin/env python3
"""hosim side of the ns-2.35 comparison: the families of bench/ns3/families.py with
``profile = "ns2"``, written to JSON in the layout of run_ns2.py.

Benchmark only (never in CI or the test suite).

The scenario of each case is bench/ns3/run_hosim.py's ``case_toml`` (one spec for hosim, ns-3
and ns-2); the run and its per-flow counters are its ``run_case``, with the profile dict
``ns2`` added here: ``tcp.profile = "ns2"`` plus the values that run_ns2.py sets on the ns-2
side (families.TCP_COMMON: MSS 1448, 42 B of headers, IW 10, min and initial RTO 1 s, 1 ms
clock, 4 MiB window, 200 ms delayed-ACK timer). Everything else (window growth, ssthresh after
a timeout, rescue retransmission, and the ns-2 dialect keys) is the profile's.

Scripted probes also record flow 0's retransmissions that get through (a pcap of the
receiver's access link right->d0: the time each retransmitted data segment starts its
transmission there, as hosim segment index), to set beside ns-2's (``-`` events of the same
link's queue trace). hosim drops a scripted segment before it is sent, ns-2 on the
bottleneck, so only the copies that get through are comparable.

Usage:
  python bench/ns2/run_hosim.py                   # all cases -> bench/results/ns2/hosim.json
  python bench/ns2/run_hosim.py --cases probes --out /tmp/h.json --set tcp.ns2_...=...
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ns3"))
from families import MSS, TCP_COMMON, select  # noqa: E402

# bench/ns3/run_hosim.py by its path (this file has the same name)
_spec = importlib.util.spec_from_file_location("ns3_run_hosim", os.path.join(HERE, "..", "ns3", "run_hosim.py"))
assert _spec is not None and _spec.loader is not None
ns3_side = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ns3_side)

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns2"))

NS2_MATCHED: dict = {
    "tcp.profile": "ns2",
    "tcp.mss_bytes": MSS,  # packetSize_ 1448
    "tcp.header_bytes": 42,  # tcpip_base_hdr_size_ 42 (1490 B data packets)
    "tcp.initial_window_segments": TCP_COMMON["initial_window_segments"],  # windowInit_ 10
    "tcp.delayed_ack_segments": TCP_COMMON["delayed_ack_segments"],  # TCPSink/DelAck: every 2nd
    "tcp.delayed_ack_timeout_s": TCP_COMMON["delayed_ack_timeout_s"],  # interval_ 0.2
    "tcp.min_rto_s": TCP_COMMON["min_rto_s"],  # minrto_ 1
    "tcp.initial_rto_s": TCP_COMMON["initial_rto_s"],  # rtxcur_init_ 1
    "tcp.max_rto_s": TCP_COMMON["max_rto_s"],  # maxrto_ 60
    "tcp.clock_granularity_s": TCP_COMMON["clock_granularity_s"],  # tcpTick_ 0.001
    "tcp.dupack_threshold": TCP_COMMON["dupack_threshold"],  # numdupacks_ 3
    "tcp.limited_transmit": TCP_COMMON["limited_transmit"],  # singledup_ 1
    "tcp.rwnd_bytes": (TCP_COMMON["buffer_bytes"] // MSS) * MSS,  # window_ 2896 packets
}
ns3_side.PROFILES["ns2"] = NS2_MATCHED


def pcap_retransmissions(path: str, sport: int = 10000) -> list[list]:
    """[time_s, segment index] of every data segment of the flow on port ``sport`` that is a
    retransmission (seen before, or below the highest segment seen), from a classic pcap
    (link type RAW, IPv4)."""
    out = []
    seen: set[int] = set()
    with open(path, "rb") as fh:
        data = fh.read()
    off = 24
    while off + 16 <= len(data):
        sec, usec, incl, _orig = struct.unpack_from("<IIII", data, off)
        off += 16
        pkt = data[off : off + incl]
        off += incl
        ihl = (pkt[0] & 0x0F) * 4
        total = struct.unpack_from(">H", pkt, 2)[0]
        tcp = pkt[ihl:]
        sp, _dp, seq = struct.unpack_from(">HHI", tcp, 0)
        doff = (tcp[12] >> 4) * 4
        if sp != sport or total - ihl - doff <= 0:
            continue
        k = (seq - 1) // MSS  # the SYN takes sequence number 0
        if k in seen or (seen and k < max(seen)):
            out.append([round(sec + usec * 1e-6, 6), k])
        seen.add(k)
    return out


def count_syn_as_ns2(res: dict) -> dict:
    """ns-2's counters in hosim's terms: ns-2's SYN is packet 0, so its timeout is counted in
    ``nrexmit_`` and its retransmission in ``nrexmitpack_``; hosim counts SYN retransmissions
    apart (``syn_retransmits``). Adds them to each flow's timeouts and retransmits, and the
    sums, in place."""
    for f in res["flows"]:
        f["timeouts"] += f["syn_retransmits"]
        f["retransmits"] += f["syn_retransmits"]
    for k in ("timeouts", "retransmits"):
        res[k] = sum(f[k] for f in res["flows"])
    return res


def run_one(c: dict, seed: int, extra: dict) -> dict:
    import hosim  # noqa: PLC0415
    from hosim.api import Capture  # noqa: PLC0415

    c = dict(c, seed=seed)
    probe = bool(c["drop_segments"] or c["drop_retransmissions"])
    res, _ = ns3_side.run_case(c, "ns2", False, extra)
    count_syn_as_ns2(res)
    res["seed"] = seed
    if probe:
        with tempfile.TemporaryDirectory(prefix="ns2cmp-h-") as wd:
            ov = dict(NS2_MATCHED)
            ov.update(extra)
            hosim.run(
                ns3_side.case_toml(c),
                seed=seed,
                overrides=ov,
                traces=False,
                capture=Capture(wd, ["right->d0"], "pcap"),
            )
            pcap = [f for f in os.listdir(wd) if f.startswith("right") and "d0" in f and f.endswith(".pcap")]
            res["retransmissions_sent"] = pcap_retransmissions(os.path.join(wd, pcap[0]))
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", help="substrings of case names / family ids (default: all)")
    ap.add_argument("--seeds", type=int, default=20, help="seeds of the random-loss cases (default 20)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="one more hosim override")
    ap.add_argument("--out", default=os.path.join(RESULTS, "hosim.json"))
    args = ap.parse_args()
    extra = {}
    for kv in args.set:
        k, _, v = kv.partition("=")
        extra[k] = v
    results = {}
    if os.path.exists(args.out) and args.cases:
        with open(args.out) as fh:
            results = json.load(fh).get("cases", {})
    for c in select(args.cases):
        seeds = list(range(1, args.seeds + 1)) if c["loss"] else [c["seed"]]
        runs = [run_one(c, s, extra) for s in seeds]
        results[c["name"]] = {"runs": runs}
        r = runs[0]
        print(
            f"{c['name']:<22} {len(runs):2d} run(s)  goodput {r['aggregate_goodput_bps'] / 1e6:8.3f} Mb/s  "
            f"retx {r['retransmits']:6d}  FR {r['fast_recoveries']:5d}  RTO {r['timeouts']:4d}  "
            f"({sum(x['run_cpu_s'] for x in runs):.2f} s cpu)",
            flush=True,
        )
    import hosim  # noqa: PLC0415

    doc = {
        "simulator": "hosim",
        "hosim_version": getattr(hosim, "__version__", None),
        "profile_overrides": NS2_MATCHED,
        "extra_overrides": extra,
        "command": "python " + " ".join(sys.argv),
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cases": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

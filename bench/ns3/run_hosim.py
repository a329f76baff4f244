#!/usr/bin/env python3
"""hosim side of the ns-3 comparison: run the families of families.py, write JSON.

Benchmark only (never in CI or the test suite).

Each case becomes an explicit TOML graph (see ``case_toml``): nodes s_i, left, right, d_i;
access links s_i<->left and right<->d_i, the bottleneck left->right (with the case's loss) and
right->left as two separate links so that only the data direction is lossy; one flow per
pair. The TCP settings that make hosim behave like ns-3's TCP as configured in run_ns3.py
come from one dict of overrides per profile (PROFILES), applied with ``hosim.run(...,
overrides=...)`` on top of the TOML. The per-case keys (recovery, delayed ACK, drops) are in
the TOML itself, so swapping the profile dict does not touch them.

Counters (hosim summary, per flow; see docs/tcp.md "Counters"):
  goodput      bulk: bytes delivered in order to the receiving application * 8 / duration_s;
               file: file bytes * 8 / completion time, the time the receiving application got
               the last byte (from the goodput trace in 0.1 ms bins; hosim's own
               completion_time_s, the sender's last-byte-acknowledged time, is kept as
               sender_completion_time_s)
  retransmits  data segments sent again (fast retransmit, partial-ACK / NextSeg, go-back-N)
  fast_recoveries  entries into fast recovery (NewReno) or SACK loss recovery
  timeouts     retransmission-timer expirations with data outstanding

Usage:
  python bench/ns3/run_hosim.py                       # all cases -> bench/results/ns3/hosim.json
  python bench/ns3/run_hosim.py --cases probes        # a subset (substring of name/family)
  python bench/ns3/run_hosim.py --cases lost-retx-sack --traces   # + cwnd/ssthresh CSV
  python bench/ns3/run_hosim.py --stack cubic-prr     # CUBIC + PRR -> hosim-cubic-prr.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from families import STACKS, TCP_COMMON, select  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RX_BIN_S = 1e-4  # goodput-trace bin used to time the last delivery of a file
RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns3"))

# --- TCP profiles ------------------------------------------------------------------------------
# One dict of hosim overrides per profile. "ns3" is `tcp.profile = "ns3"` (ns-3's TCP choices:
# per-ACK window growth, Slow-but-Steady NewReno timer, re-entry at `recover`, no rescue
# retransmission, ssthresh from pipe after a timeout) plus the values both sides are set to in
# run_ns3.py (NS3_MATCHED: MSS 1448 without timestamps, IW 10, 4 MiB buffers, ...), which
# differ from ns-3's own defaults. "ns3-keys" is the same values without the profile (the
# `rfc` choices), to show what the profile's choices change.
NS3_MATCHED: dict = {
    "tcp.mss_bytes": TCP_COMMON["mss_bytes"],  # ns-3 SegmentSize 1448 (payload)
    # 20 IP + 20 TCP (ns-3 with Timestamp=false) + 2 PPP: 1490 B data packets in both.
    "tcp.header_bytes": 42,
    "tcp.initial_window_segments": TCP_COMMON["initial_window_segments"],  # InitialCwnd 10
    "tcp.delayed_ack_segments": TCP_COMMON["delayed_ack_segments"],  # DelAckCount 2
    "tcp.delayed_ack_timeout_s": TCP_COMMON["delayed_ack_timeout_s"],  # DelAckTimeout 200 ms
    "tcp.min_rto_s": TCP_COMMON["min_rto_s"],  # MinRto 1 s
    "tcp.initial_rto_s": TCP_COMMON["initial_rto_s"],  # RttEstimator InitialEstimation 1 s
    "tcp.max_rto_s": TCP_COMMON["max_rto_s"],  # ns-3 caps the backed-off RTO at 60 s
    "tcp.clock_granularity_s": TCP_COMMON["clock_granularity_s"],  # ClockGranularity 1 ms
    "tcp.dupack_threshold": TCP_COMMON["dupack_threshold"],  # ReTxThreshold 3
    "tcp.limited_transmit": TCP_COMMON["limited_transmit"],  # LimitedTransmit true
    "tcp.rwnd_bytes": TCP_COMMON["buffer_bytes"],  # RcvBufSize 4 MiB, window scaling
}
PROFILES: dict[str, dict] = {
    "ns3": {"tcp.profile": "ns3", **NS3_MATCHED},
    "ns3-keys": dict(NS3_MATCHED),
    "hosim-default": {},
}
# What each stack of families.STACKS adds on top of the profile. "cubic-prr" against ns-3's
# TcpCubic + TcpPrrRecovery: RFC 9438 CUBIC and PRR. ns-3.44's PRR is PRR-CRB that adds one
# segment on a "safe" ACK (one that cumulatively acknowledges retransmitted data), as Linux's
# `tcp_cwnd_reduction` does; hosim's `prr-ssrb` is the RFC 6937 slow-start reduction bound on
# every ACK below ssthresh (the `linux` profile's choice). `--set tcp.recovery_rate=prr-crb`
# gives the other bound.
STACK_OVERRIDES: dict[str, dict] = {
    "newreno": {},
    "cubic-prr": {"tcp.cc": "cubic", "tcp.recovery_rate": "prr-ssrb"},
}


def case_toml(c: dict) -> str:
    """The explicit graph of one case (see families.py for the topology)."""
    L = []
    L.append(f'name = "ns3cmp-{c["name"]}"')
    L.append(f"duration_s = {c['duration_s']!r}")
    L.append(f"seed = {c['seed']}")
    L.append("")
    L.append("[tcp]")
    L.append(f'recovery = "{"sack" if c["sack"] else "newreno"}"')
    L.append(f"delayed_ack = {'true' if c['delayed_ack'] else 'false'}")
    L.append("")
    L.append("[trace]")
    L.append('queues = ["bneck"]')
    L.append("")
    for kind, names in (
        ("router", ["left", "right"]),
        ("host", [f"s{i}" for i in range(c["flows"])] + [f"d{i}" for i in range(c["flows"])]),
    ):
        for n in names:
            L += ["[[nodes]]", f'name = "{n}"', f'kind = "{kind}"', ""]

    def link(frm, to, rate, delay, q, name=None, loss=0.0, bidir=False):
        out = ["[[links]]"]
        if name:
            out.append(f'name = "{name}"')
        out += [
            f'from = "{frm}"',
            f'to = "{to}"',
            f"rate_bps = {float(rate)!r}",
            f"delay_s = {float(delay)!r}",
            'queue = "droptail"',
            f"queue_packets = {int(q)}",
        ]
        if loss:
            out.append(f"loss = {float(loss)!r}")
        # hosim links are bidirectional unless told otherwise, the reverse direction with the
        # same loss: the one-way links (the bottleneck and its return) must say so, or the
        # ACKs take the lossy bottleneck's reverse direction.
        out.append(f"bidirectional = {'true' if bidir else 'false'}")
        return out + [""]

    # Bottleneck first, so it also wins any min-hop route tie.
    L += link("left", "right", c["bottleneck_bps"], c["bottleneck_delay_s"], c["queue"], name="bneck", loss=c["loss"])
    L += link("right", "left", c["bottleneck_bps"], c["bottleneck_delay_s"], c["queue"], name="bneck_back")
    for i in range(c["flows"]):
        d = c["access_delays_s"][i]
        L += link(f"s{i}", "left", c["access_bps"], d, c["access_queue"], bidir=True)
        L += link("right", f"d{i}", c["access_bps"], d, c["access_queue"], bidir=True)
    for i in range(c["flows"]):
        L += ["[[flows]]", f'name = "flow{i}"', f'src = "s{i}"', f'dst = "d{i}"', f'app = "{c["app"]}"']
        if c["app"] == "file":
            L.append(f"bytes = {int(c['file_bytes'])}")
        L.append(f"start_s = {i * c['stagger_s']!r}")
        if i == 0 and c["drop_segments"]:
            L.append(f"drop_segments = {list(c['drop_segments'])}")
        if i == 0 and c["drop_retransmissions"]:
            L.append(f"drop_retransmissions = {list(c['drop_retransmissions'])}")
        L.append("")
    return "\n".join(L)


def run_case(c: dict, profile: str, traces: bool, extra: dict | None = None) -> tuple[dict, object]:
    import hosim  # noqa: PLC0415

    toml = case_toml(c)
    overrides = dict(PROFILES[profile])
    overrides.update(extra or {})
    is_file = c["app"] == "file"
    if is_file:
        # hosim's completion_time_s is taken at the *sender* (last byte acknowledged: it includes
        # the ACK's way back and, for an odd last segment, the 200 ms delayed-ACK timer). ns-3's
        # is taken at the receiver (PacketSink), so take the receiver's last delivery from the
        # goodput trace in 0.1 ms bins (bin start + 0.05 ms).
        overrides["trace.interval_s"] = RX_BIN_S
    t0 = time.perf_counter()
    c0 = time.process_time()
    r = hosim.run(toml, seed=c["seed"], overrides=overrides, traces=traces or is_file)
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    s = r.summary
    flows = []
    for f in s["flows"]:
        ct = sender_ct = None
        if is_file:
            sender_ct = f["completion_time_s"]
            g = r.traces["goodput"]
            g = g[(g["flow"] == f["name"]) & (g["goodput_bps"] > 0)]
            if f["bytes_delivered"] == c["file_bytes"] and len(g):
                ct = float(g["time_s"].iloc[-1]) + RX_BIN_S / 2 - f["start_s"]
            gp = (c["file_bytes"] * 8 / ct) if ct else f["bytes_delivered"] * 8 / c["duration_s"]
        else:
            gp = f["bytes_delivered"] * 8 / c["duration_s"]
        flows.append(
            {
                "name": f["name"],
                "goodput_bps": gp,
                "bytes_delivered": f["bytes_delivered"],
                "completion_time_s": ct,
                "sender_completion_time_s": sender_ct,
                "segments_sent": f["segments_sent"],
                "retransmits": f["retransmits"],
                "fast_recoveries": f["fast_recoveries"],
                "timeouts": f["timeouts"],
                "spurious_timeouts": f["spurious_timeouts"],
                "syn_retransmits": f["syn_retransmits"],
                "scripted_drops": f["scripted_drops"],
                "rtt_mean_s": f["rtt_mean_s"],
                "cwnd_final_bytes": f["cwnd_final_bytes"],
                "ssthresh_final_bytes": f["ssthresh_final_bytes"],
            }
        )
    bq = next(q for q in s["queues"] if q["name"] == "bneck")
    res = {
        "case": c["name"],
        "family": c["family"],
        "flows": flows,
        "aggregate_goodput_bps": sum(f["goodput_bps"] for f in flows),
        "retransmits": sum(f["retransmits"] for f in flows),
        "fast_recoveries": sum(f["fast_recoveries"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "bottleneck": {
            "queue_drops": bq["dropped"],
            "lost_on_link": bq["lost_on_link"],
            "enqueued": bq["enqueued"],
            "max_len_pkts": bq["max_len_pkts"],
            "utilization": bq["utilization"],
        },
        "events": s["events"],
        "run_wall_s": wall,
        "run_cpu_s": cpu,
        "invariants_ok": s["invariants"]["ok"],
    }
    return res, (r.traces if traces else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", help="substrings of case names / family ids (default: all)")
    ap.add_argument("--profile", default="ns3", choices=sorted(PROFILES))
    ap.add_argument("--stack", default="newreno", choices=sorted(STACKS), help="TCP compared (families.STACKS)")
    ap.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="one more hosim override (diagnostics)"
    )
    ap.add_argument("--out", default=None, help="default: bench/results/ns3/hosim<stack suffix>.json")
    ap.add_argument(
        "--traces",
        action="store_true",
        help="also write <case>.hosim.cwnd.csv (time_s, flow, cwnd_bytes, ssthresh_bytes)",
    )
    ap.add_argument("--print-toml", metavar="CASE", help="print the TOML of one case and exit")
    args = ap.parse_args()

    if args.print_toml:
        print(case_toml(select([args.print_toml])[0]))
        return 0

    import hosim  # noqa: PLC0415

    suffix = STACKS[args.stack]["suffix"]
    if args.out is None:
        args.out = os.path.join(RESULTS, f"hosim{suffix}.json")
    extra = dict(STACK_OVERRIDES[args.stack])
    for kv in args.set:
        k, _, v = kv.partition("=")
        extra[k] = v
    cases = select(args.cases)
    results = {}
    if os.path.exists(args.out) and args.cases:
        with open(args.out) as fh:  # partial re-run: keep the other cases
            results = json.load(fh).get("cases", {})
    for c in cases:
        res, tr = run_case(c, args.profile, args.traces, extra)
        results[c["name"]] = res
        print(
            f"{c['name']:<22} goodput {res['aggregate_goodput_bps'] / 1e6:8.3f} Mb/s  retx {res['retransmits']:6d}  "
            f"FR {res['fast_recoveries']:5d}  RTO {res['timeouts']:4d}  ({res['run_cpu_s']:.2f} s cpu)",
            flush=True,
        )
        if tr is not None:
            cw = tr["cwnd"].copy()
            ss = tr["ssthresh"]
            path = os.path.join(RESULTS, f"{c['name']}{suffix}.hosim.cwnd.csv")
            cw.to_csv(path, index=False)
            ss.to_csv(os.path.join(RESULTS, f"{c['name']}{suffix}.hosim.ssthresh.csv"), index=False)
            print(f"  wrote {path} (+ .ssthresh.csv)")
    doc = {
        "simulator": "hosim",
        "hosim_version": getattr(hosim, "__version__", None),
        "profile": args.profile,
        "profile_overrides": PROFILES[args.profile],
        "stack": args.stack,
        "stack_overrides": extra,
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

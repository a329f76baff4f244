#!/usr/bin/env python3
"""Which transmissions a sender made on a timer, read from packet captures at the senders.

Benchmark only. The same classification for the kernel (a tcpdump on the senders' TUN
device: `run_kernel.py --pcap DIR`) and for hosim (`hosim run --pcap` of every sender's
access links in both directions), so the two sides are compared by one rule, from the
outside. Per flow, a data segment sent within ``--clock-ms`` of an ACK reaching the sender
(or of the SYN-ACK) is ACK-clocked, and so is one sent within ``--clock-ms`` of the sender's previous
segment (a burst); any other segment opens a timer event. Each event is classified by its first segment:

* ``new``: new data (sequence at or above the highest sent): a loss probe with new data
  (RFC 8985 §7.3; Linux `tcp_send_loss_probe` -> `tcp_write_xmit`).
* ``retx-tail``: a retransmission of the highest segment sent, more than one segment
  outstanding: a loss probe retransmitting (§7.3).
* ``retx-una``: a retransmission of the first unacknowledged segment: an RTO or a RACK
  reorder timeout (``gap_ms`` tells them apart: the reorder timer runs a quarter of the
  minimum RTT, the RTO at least 200 ms), or, with one segment outstanding, a probe.
* ``retx-other``: any other retransmission.

For every event the state the sender was in when the last ACK arrived: segments
outstanding, whether that ACK carried SACK blocks, and the time since it and since the
sender's previous segment, also in units of the flow's smoothed RTT (estimated from the
capture: first transmissions and the ACKs that cover them, RFC 6298 gains).

Usage:
  python bench/linux/timer_events.py kernel /tmp/k/many-flows-0.pcap
  python bench/linux/timer_events.py hosim /tmp/h          # hosim run --out /tmp/h --pcap ... --pcap-format pcap
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import statistics
import struct
import sys
import urllib.parse

import dpkt

from hosim.capture import _options

# pcap link types: the offset of the IPv4 header in a record
_LINK_OFFSET = {1: 14, 12: 0, 101: 0, 113: 16, 228: 0, 276: 20}


def read_pcap(path: str):
    """(time s, IPv4 packet bytes) of every record of a classic pcap file (dpkt)."""
    with open(path, "rb") as f:
        reader = dpkt.pcap.Reader(f)
        off = _LINK_OFFSET.get(reader.datalink())
        if off is None:
            raise SystemExit(f"{path}: pcap link type {reader.datalink()} not supported")
        for ts, rec in reader:
            yield float(ts), rec[off:]


def tcp_of(pkt: bytes):
    """(src, sport, dst, dport, seq, ack, flags, payload length, SACK blocks) or None."""
    if len(pkt) < 40 or pkt[0] >> 4 != 4 or pkt[9] != 6:
        return None
    ihl = (pkt[0] & 0x0F) * 4
    total = struct.unpack_from("!H", pkt, 2)[0]
    sport, dport, seq, ack = struct.unpack_from("!HHII", pkt, ihl)
    doff = (pkt[ihl + 12] >> 4) * 4
    flags = pkt[ihl + 13]
    # The SACK blocks: the option walk of hosim's own capture reader.
    _, sacks = _options(bytes(pkt[ihl + 20 : ihl + doff]))
    return pkt[12:16], sport, pkt[16:20], dport, seq, ack, flags, total - ihl - doff, sacks


def load_kernel(path: str):
    """Per flow key (sender address, port): time-sorted events ("d"/"a", time, fields)."""
    flows = collections.defaultdict(list)
    senders = set()
    recs = list(read_pcap(path))
    for _, pkt in recs:
        f = tcp_of(pkt)
        if f and f[6] & 0x02 and not f[6] & 0x10:  # SYN: the sender's side
            senders.add((f[0], f[1]))
    for t, pkt in recs:
        f = tcp_of(pkt)
        if not f:
            continue
        if (f[0], f[1]) in senders:
            flows[(f[0], f[1])].append(("d", t, f))
        elif (f[2], f[3]) in senders:
            flows[(f[2], f[3])].append(("a", t, f))
    return flows


def load_hosim(d: str, ack_delay_s: float):
    """hosim's per-link pcaps: a sender's outgoing link (its data, as sent) and the link into
    it (its ACKs, at their transmission start + ``ack_delay_s``: their arrival)."""
    flows = collections.defaultdict(list)
    for path in glob.glob(os.path.join(d, "*.pcap")):
        name = urllib.parse.unquote(os.path.basename(path)[: -len(".pcap")])
        a, _, b = name.partition("->")
        if a.startswith("s") and b == "left":
            for t, pkt in read_pcap(path):
                f = tcp_of(pkt)
                if f:
                    flows[(f[0], f[1])].append(("d", t, f))
        elif a == "left" and b.startswith("s"):
            for t, pkt in read_pcap(path):
                f = tcp_of(pkt)
                if f:
                    flows[(f[2], f[3])].append(("a", t + ack_delay_s, f))
    return flows


def classify(events, clock_s: float):
    """The timer events of one flow."""
    events.sort(key=lambda e: (e[1], e[0] == "d"))
    isn = None
    snd_una = snd_max = 0
    last_ack_t = None
    last_ack_sacked = False
    last_send_t = None
    srtt = rttvar = None
    timing: dict[int, float] = {}  # end seq of a first transmission -> send time
    out: list[dict] = []
    pending: dict | None = None
    for kind, t, f in events:
        _, _, _, _, seq, ack, flags, plen, sacks = f
        if kind == "a":
            if flags & 0x02:  # SYN-ACK
                last_ack_t = t
                continue
            if isn is None:
                continue
            a = (ack - isn - 1) & 0xFFFFFFFF
            if pending is not None:
                # the first ACK after the event: did everything sent before it arrive?
                pending["all_arrived"] = a >= pending.pop("_snd_max") and not any(
                    ((b[1] - isn - 1) & 0xFFFFFFFF) > a for b in sacks
                )
                pending = None
            if a > snd_una:
                # RTT sample from the highest first transmission this ACK covers
                covered = [e for e in timing if e <= a]
                if covered:
                    e = max(covered)
                    r = t - timing[e]
                    if srtt is None:
                        srtt, rttvar = r, r / 2
                    else:
                        rttvar = 0.75 * rttvar + 0.25 * abs(srtt - r)
                        srtt = 0.875 * srtt + 0.125 * r
                    for e in covered:
                        del timing[e]
                snd_una = a
            last_ack_t = t
            last_ack_sacked = any(((s[1] - isn - 1) & 0xFFFFFFFF) > snd_una for s in sacks)
            continue
        if flags & 0x02:
            isn = seq
            continue
        if isn is None or plen == 0:
            continue
        s = (seq - isn - 1) & 0xFFFFFFFF
        end = s + plen
        clocked = last_ack_t is not None and t - last_ack_t <= clock_s
        burst = last_send_t is not None and t - last_send_t <= clock_s
        if not clocked and not burst:
            outstanding = max(0, snd_max - snd_una)
            if s >= snd_max:
                cls = "new"
            elif s <= snd_una < end:
                cls = "retx-una"
            elif end >= snd_max:
                cls = "retx-tail"
            else:
                cls = "retx-other"
            out.append(
                {
                    "t": round(t, 6),
                    "class": cls,
                    "outstanding_segs": round(outstanding / 1448, 2),
                    "sacked": last_ack_sacked,
                    "gap_ack_ms": round((t - last_ack_t) * 1e3, 3) if last_ack_t is not None else None,
                    "gap_send_ms": round((t - last_send_t) * 1e3, 3) if last_send_t is not None else None,
                    "srtt_ms": round(srtt * 1e3, 3) if srtt else None,
                    "_snd_max": snd_max,
                }
            )
            pending = out[-1]
        if s >= snd_max:
            timing[end] = t
        else:
            # Karn: no sample from a retransmitted range
            for e in [e for e in timing if e > s]:
                del timing[e]
        snd_max = max(snd_max, end)
        last_send_t = t
    for e in out:
        e.pop("_snd_max", None)
    return out


def ack_profile(events) -> collections.Counter:
    """The receiver's ACK clock seen at the sender: ACKs without SACK blocks that advance the
    cumulative ACK, by segments acknowledged (1, 2, 3, 4+); those of one segment split into
    ``1-at-once`` (within 15 ms of the flow's minimum RTT after the segment was sent) and
    ``1-delayed`` (the receiver's delayed-ACK timer)."""
    out: collections.Counter = collections.Counter()
    isn = None
    una = 0
    sent: dict[int, float] = {}
    samples: list[tuple[int, float]] = []
    for kind, t, f in sorted(events, key=lambda e: (e[1], e[0] == "d")):
        _, _, _, _, seq, ack, flags, plen, sacks = f
        if flags & 0x02:
            if kind == "d":
                isn = seq
            continue
        if isn is None:
            continue
        if kind == "d":
            if plen:
                s = (seq - isn - 1) & 0xFFFFFFFF
                sent[s + plen] = t
            continue
        a = (ack - isn - 1) & 0xFFFFFFFF
        if a > una and not sacks and a in sent:
            n = round((a - una) / 1448)
            samples.append((n, t - sent[a]))
        una = max(una, a)
    if not samples:
        return out
    floor = min(d for _, d in samples)
    for n, d in samples:
        out["1-at-once" if n == 1 and d < floor + 0.015 else "1-delayed" if n == 1 else min(n, 4)] += 1
    return out


def summarize(per_flow: dict) -> dict:
    evs = [e for v in per_flow.values() for e in v]
    by = collections.Counter(e["class"] for e in evs)

    def band(e):
        if e["gap_ack_ms"] is None or not e["srtt_ms"]:
            return "?"
        x = e["gap_ack_ms"] / e["srtt_ms"]
        return "<1" if x < 1 else "1-1.8" if x < 1.8 else "1.8-2.5" if x < 2.5 else "2.5-4" if x < 4 else ">=4"

    table = collections.Counter(
        (e["class"], "sack" if e["sacked"] else "nosack", min(int(e["outstanding_segs"] + 0.5), 4), band(e))
        for e in evs
    )
    arrived = collections.Counter((e["class"], e.get("all_arrived")) for e in evs)
    gaps = collections.defaultdict(list)
    for e in evs:
        if e["gap_ack_ms"] is not None:
            gaps[e["class"]].append(e["gap_ack_ms"])
    return {
        "events": len(evs),
        "by_class": dict(by),
        "first_ack_after_covers_all_sent_before": {f"{c}/{a}": n for (c, a), n in sorted(arrived.items(), key=str)},
        "gap_ack_ms_median": {k: round(statistics.median(v), 1) for k, v in gaps.items()},
        "by_class_sack_outstanding_gapband": {
            f"{c}/{s}/{o}{'+' if o == 4 else ''}/{b}": n for (c, s, o, b), n in sorted(table.items())
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("side", choices=["kernel", "hosim"])
    ap.add_argument("path", help="kernel: a pcap file; hosim: the run's --out directory (pcap format)")
    ap.add_argument("--clock-ms", type=float, default=1.0)
    ap.add_argument(
        "--ack-delay-ms", type=float, default=2.0, help="hosim: the access delay (a lower bound of the ACK's arrival)"
    )
    ap.add_argument("--events", action="store_true", help="print every event, one JSON line each")
    args = ap.parse_args()
    if not os.path.exists(args.path):
        print(f"timer_events: {args.path}: no such file or directory", file=sys.stderr)
        return 2
    flows = load_kernel(args.path) if args.side == "kernel" else load_hosim(args.path, args.ack_delay_ms / 1e3)
    per_flow = {f"{'.'.join(map(str, k[0]))}:{k[1]}": classify(v, args.clock_ms / 1e3) for k, v in flows.items()}
    acks: collections.Counter = collections.Counter()
    for v in flows.values():
        acks.update(ack_profile(v))
    if args.events:
        for k, v in sorted(per_flow.items()):
            for e in v:
                print(json.dumps({"flow": k, **e}))
    summary = summarize(per_flow)
    summary["acks_without_sack_by_segments_acked"] = {str(k): n for k, n in sorted(acks.items(), key=str)}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
